"""Integrity of engine/shensha/data/stars.json: completeness against the seed, sources, verses, meanings."""

from __future__ import annotations

import pytest

from engine.shensha import OPTION_VALUES, star_defs
from engine.shensha.rules import RULE_KINDS
from tests.shensha.helpers import SEEDS

# Every star of the seed-000 神煞 chapter, extracted by reading the text: (line, the words the seed uses, our name).
# The 九曜 other than 破軍/左輔/右弼 and the 經星 are named by the text without any rule (「其有星之名，而無所本者」),
# so they are not stars here; 文庫/武庫 and the twelve palace names (帝座 … 廣寒宮) are places, not stars.
SEED_000_STARS = [
    (55, "破軍", "破軍"), (55, "左輔", "左輔"), (55, "右弼", "右弼"),
    (55, "紫微垣", "紫微"), (55, "天市垣", "天市"), (55, "太微垣", "太微"),
    (59, "天德", "天德"), (59, "天干天德", "天干天德"), (67, "月德", "月德"), (67, "天干月德", "天干月德"),
    (71, "陽貴", "陽貴"), (71, "陰貴", "陰貴"), (71, "天乙貴人", "天乙貴人"),
    (79, "福星貴人", "福星貴人"), (79, "天廚貴人", "天廚貴人"), (83, "天元祿", "天元祿"),
    (87, "天財", "天財"), (87, "地財", "地財"), (91, "文昌", "文昌"),
    (95, "將星", "將星"), (95, "攀鞍", "攀鞍"), (99, "驛馬", "驛馬"), (95, "六害", "六害"), (95, "華蓋", "華蓋"),
    (95, "劫煞", "劫煞"), (95, "災煞", "災煞"), (95, "天煞", "天煞"), (95, "地煞", "地煞"), (95, "年煞", "年煞"),
    (95, "月煞", "月煞(將星)"), (95, "亡人煞", "亡神"),
    (99, "天馬", "天馬"), (103, "天喜", "天喜"), (103, "喜神", "喜神"),
    (107, "天赦", "天赦"), (107, "天解", "天解"), (111, "月解", "月解"), (111, "喝散", "喝散"),
    (115, "天醫", "天醫"), (115, "活曜", "活曜"),
    (123, "雷火之煞", "雷火"), (123, "旌旗煞", "旌旗"), (123, "網羅", "網羅"),
    (127, "天耳", "天耳"), (127, "天目", "天目"),
    (131, "天罡煞", "天罡煞"), (131, "天犬", "天犬"), (131, "天豬", "天豬"), (131, "天鼠", "天鼠"), (131, "天牛", "天牛"),
    (135, "勾陳煞", "勾陳煞"), (135, "暗金", "暗金"), (135, "破碎", "破碎"),
    (139, "大耗", "大耗"), (139, "小耗", "小耗"), (139, "荒蕪", "荒蕪"), (139, "月空", "月空"), (139, "月煞", "月煞"),
    (143, "天賊", "天賊"), (143, "天狗", "天狗"), (143, "地賊", "地賊"), (143, "天燭", "天燭"), (143, "天火", "天火"),
    (147, "天官符", "天官符"), (147, "生氣", "生氣"), (147, "死氣", "死氣"), (147, "死氣官符", "官符"),
    (147, "錘門官符", "鎚門官符"),
    (159, "天獄", "天獄"), (159, "地獄煞", "地獄"), (159, "血刃", "血刃"), (159, "血忌", "血忌"), (159, "羊刃", "羊刃"),
    (171, "陰煞", "陰煞"), (171, "折煞", "折煞"), (171, "浴盆煞", "浴盆煞"), (171, "咸池煞", "咸池"),
    (183, "天哭", "天哭"), (183, "喪門", "喪門"), (183, "弔客", "弔客"), (183, "喪車", "喪車"), (183, "亡人", "亡人"),
    (183, "五墓", "五墓"), (183, "三坵", "三坵"),
    (187, "孤寡之煞", "孤辰"), (187, "巳孤丑寡", "寡宿"), (187, "關", "關"), (187, "鎖", "鎖"),
    (191, "往亡", "往亡"), (191, "歸忌", "歸忌"), (191, "絕路空", "絕路空"), (191, "覆舟煞", "覆舟"), (191, "白浪", "白浪"),
    (203, "鶴神", "鶴神"),
    (207, "五符", "五符"), (207, "天曹", "天曹"), (207, "地符", "地符"), (207, "風伯", "風伯"), (207, "雷公", "雷公"),
    (207, "雨師", "雨師"), (207, "風雲", "風雲"), (207, "堂符", "堂符"), (207, "國印", "國印"), (207, "天關", "天關"),
    (207, "地匣", "地匣"), (207, "陀羅星", "天賊(五符)"),
    (211, "天罡", "天罡"), (211, "太乙", "太乙"), (211, "勝光", "勝光"), (211, "小吉", "小吉"), (211, "傳送", "傳送"),
    (211, "從魁", "從魁"), (211, "河魁", "河魁"), (211, "登明", "登明"), (211, "神后", "神后"), (211, "大吉", "大吉"),
    (211, "功曹", "功曹"), (211, "太沖", "太沖"),
    (215, "太歲", "太歲"), (215, "太陽", "太陽"), (215, "十二年喪門", "喪門(歲)"), (215, "卯起太陰", "太陰"),
    (215, "以辰起官符", "官符(歲)"), (215, "死符", "死符"), (215, "歲破", "歲破"), (215, "龍德", "龍德"),
    (215, "白虎", "白虎"), (215, "福德", "福德"), (215, "故名弔客", "弔客(歲)"), (215, "病符", "病符"),
    (215, "飛廉附之", "飛廉"), (215, "五鬼附之", "五鬼"), (215, "欄杆", "欄杆"), (215, "天狗附之", "天狗(歲)"),
    (219, "月上飛廉", "月上飛廉"), (219, "月上五鬼", "月上五鬼"),
]  # fmt: skip

# Seed 002's 目錄 (line 19) lists 44 kinds; we name 長生's 死 「死」 and 旺相's 「死(旺相)」, and the two 天將 that
# share a name with a year star 「白虎(天將)」 「太陰(天將)」; 太歲 is the same star as seed 000's.
SEED_002_ORDER = "印 盜 鬼 財 劫 長生 沐浴 冠帶 臨官 帝旺 衰 病 死 墓 絕 胎 養 刑 沖 破 害 合 馬 太歲 旺 相 死(旺相) 囚 休 月建 月將 旬空 貴人 螣蛇 朱雀 六合 勾陳 青龍 天空 白虎(天將) 太常 玄武 太陰(天將) 天后".split()


def test_every_seed_000_star_is_in_the_text_and_in_the_data():
    text = SEEDS["000"]
    for line, words, _ in SEED_000_STARS:
        assert words in text[line], (line, words)
    ours = {s.name for s in star_defs() if s.seed == "000"}
    wanted = [name for _, _, name in SEED_000_STARS]
    assert len(wanted) == len(set(wanted)) == 136
    assert set(wanted) == ours, (set(wanted) - ours, ours - set(wanted))


def test_seed_002_has_its_44_kinds():
    directory = SEEDS["002"][19]
    plain = [n.split("(")[0] for n in SEED_002_ORDER]
    assert directory.startswith("目錄：" + "、".join(plain) + "。")
    names = {s.name for s in star_defs()}
    assert len(SEED_002_ORDER) == 44
    assert set(SEED_002_ORDER) <= names


def test_ids_and_names_are_unique_and_rules_known():
    stars = star_defs()
    assert len({s.id for s in stars}) == len(stars)
    assert len({s.name for s in stars}) == len(stars)
    aliases = [a for s in stars for a in s.aliases]
    assert not set(aliases) & {s.name for s in stars}, "an alias shadows another star's name"

    def kinds(rule):
        yield rule["kind"]
        for sub in [rule.get("of")] if isinstance(rule.get("of"), dict) else list(rule.get("of") or ()):
            if isinstance(sub, dict) or hasattr(sub, "keys"):
                yield from kinds(sub)

    for s in stars:
        assert set(kinds(s.rule)) <= RULE_KINDS, s.id
        for v in s.variants.values():
            assert set(kinds(v.rule)) <= RULE_KINDS, s.id
        if s.option is not None:
            assert s.option in OPTION_VALUES and set(s.variants) <= set(OPTION_VALUES[s.option]), s.id


def test_distinct_names_for_the_clashes_of_spec():
    names = {s.name for s in star_defs()}
    for pair in [
        ("月煞", "月煞(將星)"), ("天賊", "天賊(五符)"), ("天罡煞", "天罡"), ("喪門", "喪門(歲)"), ("弔客", "弔客(歲)"),
        ("官符", "官符(歲)"), ("天狗", "天狗(歲)"), ("飛廉", "月上飛廉"), ("五鬼", "月上五鬼"), ("亡神", "亡人"),
        ("天關", "關"), ("驛馬", "馬"),
    ]:  # fmt: skip
        assert set(pair) <= names, pair


@pytest.mark.parametrize("s", star_defs(), ids=lambda s: s.id)
def test_sources_and_verses_are_verbatim(s):
    assert s.sources, s.id
    for src in s.sources:
        assert src.quote in SEEDS[src.seed][src.line], (s.id, str(src))
    if s.verse:
        assert any(s.verse in SEEDS["000"][line] for line in SEEDS["000"]), s.id
    assert s.meaning["ko"].strip() and s.meaning["lzh"].strip(), s.id
    assert s.value_type in {
        "branch",
        "stem",
        "stem_or_branch",
        "branches",
        "palace",
        "direction",
        "bool",
        "word",
    }


def test_school_notes_exist_where_the_text_is_ambiguous():
    by_name = {s.name: s for s in star_defs()}
    for name, option in [
        ("將星", "jiangxing_key"), ("驛馬", "jiangxing_key"), ("陰貴", "yingui"), ("地獄", "diyu"),
        ("血刃", "xueji"), ("血忌", "xueji"), ("天狗", "tiangou"), ("網羅", "wangluo"), ("旌旗", "jingqi"),
        ("關", "guansuo"), ("天醫", "tianyi_value"),
    ]:  # fmt: skip
        s = by_name[name]
        assert s.option == option and s.notes, name


def test_every_star_name_has_a_korean_reading():
    from bot.i18n import term

    for s in star_defs():
        for name in (s.name, *s.aliases):
            reading = term("ko", name)
            assert reading != name and not any("\u4e00" <= ch <= "\u9fff" for ch in reading), name
            assert term("lzh", name) == name
