"""裝卦 analysis (engine/liuyao/analysis.py): 日沖 / 暗動 / 日破 / 沖散, 進神 · 退神, 回頭生 · 回頭剋, 化墓 · 化絕 ·
化空 · 化破, 反吟 · 伏吟, 原神 · 忌神 · 仇神, 應期 and line 神煞 on moving lines only.

Worked examples are seed 000's (``000:N`` = line N of /work/shared/seeds/000_*.txt); where the seed only names a
term, the test states the named classic's rule (《增刪卜易》, 《卜筮正宗》; outside the seeds) and checks it on
casts found in the table.
"""

from itertools import product

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.liuyao import Options, Scatter, build, cast_manual
from engine.liuyao.analysis import advance, rules

from .conftest import chart


def transforms(reading, line):
    return reading.analysis[line - 1].transforms


def test_qian_zhi_tai_the_changed_yin_is_empty():
    # 000:27 注 「如戌建己酉日，用官得謙之泰，以戌月午變寅爻當成火局，然寅值空，乃失其始」: line 2 午 化 寅, and
    # 寅 is 旬空 on 己酉 (甲辰旬 寅卯空): 化空; 寅木 生 午火: 回頭生.
    r = chart("謙", "泰", "戌", "己酉", use="官")
    ln = r.chart.lines[1]
    assert (ln.branch.char, ln.changed.branch.char) == ("午", "寅")
    assert {"hua_kong", "hui_tou_sheng"} <= set(transforms(r, 2))


def test_dun_zhi_qian_wu_becomes_yin():
    # 000:23 注 「變會如戌建甲寅日，用官得遁之乾」: 午 (line 2) 化 寅 — 回頭生, not 空 on 甲寅 (甲寅旬 子丑空).
    r = chart("遁", "乾", "戌", "甲寅", use="官")
    assert transforms(r, 2) == ("hui_tou_sheng",)


def test_kun_zhi_dui_use_is_clashed_by_the_day():
    # 000:39 注 「酉建庚申日，用財得困之兌是謂真刑」: the 用 寅 moves (to 巳) and 日申 沖s it: 沖散 under the default
    # scatter=day_clash (000:15 「惟空破散」), plain 日沖 with scatter=none.
    r = chart("困", "兌", "酉", "庚申", use="財")
    st = r.analysis[0].strength
    assert st.day_clash and st.chong_san and st.damaged
    r2 = chart("困", "兌", "酉", "庚申", use="財", options=Options(scatter=Scatter.NONE))
    st2 = r2.analysis[0].strength
    assert st2.day_clash and not st2.chong_san and not st2.damaged


def test_an_dong_and_ri_po():
    # 《增刪卜易》: a static line 沖ed by the day is 暗動 when 旺相, 日破 when 休囚. 乾為天 in 寅月 (木旺, 金囚):
    # on a 申 day the static 寅 (line 2, 旺) is 暗動; on a 寅 day the static 申 (line 5, 囚) is 日破.
    a = chart("乾", None, "寅", "甲申").analysis[1].strength
    assert (a.day_clash, a.an_dong, a.ri_po) == (True, True, False) and not a.damaged
    b = chart("乾", None, "寅", "甲寅").analysis[4].strength
    assert (b.day_clash, b.an_dong, b.ri_po) == (True, False, True) and b.damaged
    assert "日沖" in b.tags and "日破" in b.tags


def _find(pred):
    """A cast whose moving line satisfies ``pred(line)``, read in 子月 on 甲子 (the first in digit order)."""
    for digits in product("6789", repeat=6):
        r = build(cast_manual("".join(digits)), Branch.ZI, GanZhi.parse("甲子"))
        for ln in r.chart.lines:
            if ln.moving and pred(ln):
                return r, ln.position
    raise AssertionError("no such cast")


# 《卜筮正宗》 / 《增刪卜易》: 「亥化子、寅化卯、巳化午、申化酉、丑化辰、辰化未、未化戌、戌化丑」 進神, the reverse 退神
# (000:39 names 退神: 「夫刑之為象…猶退神之例」).
JIN = ["亥子", "寅卯", "巳午", "申酉", "丑辰", "辰未", "未戌", "戌丑"]


@pytest.mark.parametrize("pair", JIN)
def test_jin_shen_and_tui_shen(pair):
    a, b = Branch.from_char(pair[0]), Branch.from_char(pair[1])
    assert advance(a, b) == 1 and advance(b, a) == -1


def test_no_other_pair_is_jin_or_tui():
    pairs = {(Branch.from_char(p[0]), Branch.from_char(p[1])) for p in JIN}
    for a, b in product(Branch, repeat=2):
        if (a, b) not in pairs and (b, a) not in pairs:
            assert advance(a, b) == 0, (a, b)


def test_jin_and_tui_on_casts():
    # One of each kind among real casts.
    r, pos = _find(lambda ln: ln.changed is not None and advance(ln.branch, ln.changed.branch) == 1)
    assert "jin_shen" in transforms(r, pos)
    r, pos = _find(lambda ln: ln.changed is not None and advance(ln.branch, ln.changed.branch) == -1)
    assert "tui_shen" in transforms(r, pos)


def test_fan_yin_and_earth_clash_is_not_jin_or_tui():
    # 反吟: the 變 沖s the line (坤 line 3 卯 化 巽's 酉). An earth clash (丑 化 未, 辰 化 戌) is the same 五行 but
    # a 沖 — 反吟, not 進/退.
    r, pos = _find(lambda ln: ln.changed is not None and ln.changed.branch == ln.branch.shift(6))
    assert "fan_yin" in transforms(r, pos)
    assert advance(Branch.CHOU, Branch.WEI) == 0 and advance(Branch.CHEN, Branch.XU) == 0


def test_fu_yin_qian_zhi_da_zhuang():
    # 伏吟: the 變 carries the same branch. 乾 and 震 both take 子寅辰·午申戌 (spec §2 納支), so 乾之大壯 (lines 5, 6
    # move, outer 乾 → 震) changes 申 into 申 and 戌 into 戌.
    r = chart("乾", "大壯", "子", "甲子")
    assert r.chart.moving == (5, 6)
    assert "fu_yin" in transforms(r, 5) and "fu_yin" in transforms(r, 6)


def test_hui_tou_ke_hua_mu_hua_jue():
    # 回頭剋: the 變 克s the moving line; 化墓 / 化絕: the 變 is the line's 墓 / 絕 (木 墓未 絕申, 火 墓戌 絕亥, 金 墓丑
    # 絕寅, 水土 墓辰 絕巳 with 土 長生 申).
    r, pos = _find(lambda ln: ln.changed is not None and ln.changed.element.controls(ln.element))
    assert "hui_tou_ke" in transforms(r, pos)
    tomb = {"木": "未", "火": "戌", "金": "丑", "水": "辰", "土": "辰"}
    jue = {"木": "申", "火": "亥", "金": "寅", "水": "巳", "土": "巳"}
    r, pos = _find(lambda ln: ln.changed is not None and ln.changed.branch.char == tomb[ln.element.char])
    assert "hua_mu" in transforms(r, pos)
    r, pos = _find(lambda ln: ln.changed is not None and ln.changed.branch.char == jue[ln.element.char])
    assert "hua_jue" in transforms(r, pos)


def test_hua_po():
    # 化破: the 變 沖s the 月建. In 子月 a line that changes into 午.
    r, pos = _find(lambda ln: ln.changed is not None and ln.changed.branch == Branch.WU)
    assert "hua_po" in transforms(r, pos)


def test_yuan_ji_chou_shen():
    # 《增刪卜易》: 生用神者原神, 克用神者忌神, 生忌神克原神者仇神. 乾為天 (乾宮金), 用 妻財 木 (line 2 寅):
    # 原神 水 子孫 (line 1 子), 忌神 金 兄弟 (line 5 申), 仇神 土 父母 (lines 3 辰, 6 戌).
    v = chart("乾", None, "寅", "甲子", use="妻財").verdict
    got = {h.role: (h.relative.char, h.element.char, h.lines) for h in v.helpers}
    assert got == {
        "yuan_shen": ("子孫", "水", (1,)),
        "ji_shen": ("兄弟", "金", (5,)),
        "chou_shen": ("父母", "土", (3, 6)),
    }


def test_active_ji_shen_weighs_against():
    # 乾之既濟 moves line 4 午 (官鬼 火); for 用 兄弟 (金) the 忌神 is 火: a moving, undamaged 忌神 counts against.
    v = chart("乾", "既濟", "寅", "戊戌", use="兄弟").verdict
    ji = next(h for h in v.helpers if h.role == "ji_shen")
    assert 4 in ji.active
    assert any(r.code == "helper" and r.weight < 0 and "忌神" in r.text for r in v.reasons)


def test_ying_qi_basics():
    # 000:15 「靜遲動速，旺大衰小」.
    moving = chart("乾", "既濟", "寅", "戊戌", use="官").verdict.to_json()["ying_qi"]  # 午 moves, 相 in 寅月
    assert (moving["speed"], moving["size"]) == ("速", "大")
    static = chart("乾", None, "寅", "甲午", use="兄弟").verdict.to_json()["ying_qi"]  # 申 static, 囚, 日午克
    assert static["speed"] == "遲" and static["size"] == "小"


def test_stars_act_on_moving_lines_only():
    # 000:223 「占星之法，多視其類，非類則弗親也，各伺其動，不動則不伺也」.
    r = chart("乾", "既濟", "寅", "戊戌")
    for ln, an in zip(r.chart.lines, r.analysis, strict=True):
        assert an.stars == (ln.marks if ln.moving else ())
    assert any(an.stars for an in r.analysis)


def test_every_rule_names_its_source():
    for rid, rl in rules().items():
        assert rl.source and rl.lzh and rl.ko, rid
        # outside_seeds: the rule rests on a named classic; otherwise a seed line carries it
        assert (
            ("《增刪卜易》" in rl.source or "《卜筮正宗》" in rl.source)
            if rl.outside_seeds
            else "000:" in rl.source
        )
