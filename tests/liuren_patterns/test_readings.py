"""Readings (engine.liuren.reading): seed-003 texts, the composed seed-002 reading, and the templates."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

import pytest

from bot.i18n import render
from engine.core.cycle import Branch, GanZhi, Stem
from engine.errors import EngineInputError
from engine.liuren import chart_for_ju
from engine.liuren.reading import (
    attributes_of,
    compose,
    glossary,
    read,
    relations,
    render_context,
    seed_keys,
    seed_reading,
)

B = Branch.from_char


def chart(day: str, ju: int):  # type: ignore[no-untyped-def]
    return chart_for_ju(GanZhi.parse(day), ju)


def ids(attrs) -> set[str]:  # type: ignore[no-untyped-def]
    return {a.id for a in attrs}


# ------------------------------------------------------------------------------------------- seed 003


def test_seed_keys() -> None:
    # seed 003: 庚辰 第8局 (heading) … the other 局 from their 干上 facts (spec §5)
    assert [(d.chars, j) for d, j in seed_keys()] == [
        ("庚辰", 8), ("庚辰", 9), ("庚辰", 10), ("庚辰", 11), ("庚辰", 12), ("辛巳", 1), ("辛巳", 2), ("辛巳", 3),
    ]  # fmt: skip


# 課義 of each entry as seed 003 prints it, and the start of its Korean 解曰
KEYI = [
    ("庚辰", 8, "己財先費，方獲厚利，初引末從，旬丁晝貴。", "인목은 경일의 재성인데"),
    ("庚辰", 9, "課傳循環，脫空在關，無心俯就，兩貴難扳。", "삼전이 모두 사과 가운데서 와서"),
    ("庚辰", 10, "夜貴閉口，馬負財走，幸而逢生，空亡隨後。", "야간의 귀인은 바로 이는"),
    ("庚辰", 11, "初中泛浮，兩虎堪憂，乘生坐克，樂里成愁。", "초전의 신금은 바로 순공에"),
    ("庚辰", 12, "支干交會，拱貴在內，蒿矢帶金，申空無畏。", "사와 신이 서로 합하고"),
    ("辛巳", 1, "旅情未已，半路而止，凡事折腰，遇中有滯。", "복음은 본래 잠복하여"),
    ("辛巳", 2, "人足乘丁，豈容少停，斬關月將，萬里行程。", "정(丁)은 가장 움직임을"),
    ("辛巳", 3, "申夜空空，墓脫須逢，家須富有，丁馬逢凶。", "신금은 본래 순공에 떨어지고"),
]


def _seed003_data() -> dict[str, Any]:
    from importlib import resources

    text = (
        resources.files("engine.liuren").joinpath("data", "readings_seed003.json").read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


@pytest.mark.parametrize(("day", "ju", "keyi", "jie_ko"), KEYI)
def test_seed_text(day: str, ju: int, keyi: str, jie_ko: str) -> None:
    r = seed_reading(chart(day, ju))
    assert r is not None and r.seed is not None and r.kind == "seed"
    kinds = [s.kind for s in r.seed.sections]
    assert kinds[:3] == ["keti", "jie", "duan"] and kinds[-1] == "citations"
    lzh, ko = glossary("lzh"), glossary("ko")
    first = f"seed003.{r.seed.entry}.0"
    assert lzh[first]["text"].endswith("課義：" + keyi)
    # the seed's Korean of 解曰 opens so; where our copy is reworded (issue 15) the seed's wording is in its note
    section = _seed003_data()["entries"][r.seed.entry - 1]["sections"][1]
    assert ko[f"seed003.{r.seed.entry}.1"]["text"] == section["ko"]
    assert section["ko"].startswith(jie_ko) or f"「{jie_ko}" in section["ko_note"]
    assert lzh[f"seed003.{r.seed.entry}.1"]["text"].startswith("解曰：")


def test_seed_entry6_keeps_both_category_paragraphs() -> None:
    r = seed_reading(chart("辛巳", 1))
    assert r is not None and r.seed is not None
    cats = [s for s in r.seed.sections if s.kind == "categories"]
    assert len(cats) == 2
    lzh = glossary("lzh")
    assert lzh[f"seed003.6.{cats[0].index}"]["text"].startswith("天時：水下火上")
    assert lzh[f"seed003.6.{cats[1].index}"]["text"].startswith("胎產：課名懸胎")


def test_not_a_seed_ke() -> None:
    assert seed_reading(chart("庚辰", 7)) is None
    assert seed_reading(chart("甲子", 8)) is None
    assert [r.kind for r in read(chart("甲子", 8))] == ["composed"]
    assert [r.kind for r in read(chart("庚辰", 8))] == ["seed", "composed"]


# ------------------------------------------------------------------------- composed: seed-002 facts


def test_entry1_facts() -> None:
    # seed 003 entry 1 (庚辰 第8局): 「寅為日之財，因坐空鄉」, 「丑旬遁為丁」, 「晝為旦貴臨身」
    r = compose(chart("庚辰", 8))
    first = r.position("initial")
    assert first.branch == B("寅") and "relative.財" in ids(first.attributes)
    assert first.seat == B("酉") and "xunkong" in ids(first.seat_attributes)
    gan = r.position("gan_upper")
    assert gan.branch == B("丑") and gan.dun_stem == Stem.DING
    assert gan.general.char == "貴人"  # daytime chart


def test_entry3_facts() -> None:
    # seed 003 entry 3 (庚辰 第10局): 「寅乃日之財，馬負之而發用」 (申子辰日寅), 「中傳逢日干長生」 (庚日巳),
    # 「末傳申值旬空」, 「巳臨絕地」 (巳 on 寅; 庚日寅 is 絕)
    r = compose(chart("庚辰", 10))
    first, middle, last = r.position("initial"), r.position("middle"), r.position("final")
    assert {"relative.財", "yima"} <= ids(first.attributes)
    assert middle.branch == B("巳") and "stage.長生" in ids(middle.attributes)
    assert middle.seat == B("寅") and "stage.絕" in ids(middle.seat_attributes)
    assert last.branch == B("申") and "xunkong" in ids(last.attributes)
    assert any(a.id == "linkong" for a in last.general_attributes)


def test_entry4_facts() -> None:
    # seed 003 entry 4 (庚辰 第11局): 「初傳申為旬空，中傳戌為坐空」, 「子為脫鄉」, 「申乘晝虎」
    r = compose(chart("庚辰", 11))
    assert "xunkong" in ids(r.position("initial").attributes)
    assert r.position("middle").seat == B("申") and "xunkong" in ids(r.position("middle").seat_attributes)
    assert "relative.盜" in ids(r.position("final").attributes)
    assert r.position("initial").general.char == "白虎"


def test_entry6_links_all_four() -> None:
    # seed 003 entry 6 (辛巳 伏吟, 三傳 巳申寅): 「三傳刑沖破害俱全」
    r = compose(chart("辛巳", 1))
    kinds = {k.kind for k in r.links}
    assert {"刑", "沖", "破", "害"} <= kinds
    # 巳刑申, 申刑寅 (seed 002 「巳刑申…申刑寅」), 寅申相沖, 申巳相破, 寅巳相害
    pairs = {(k.kind, k.a_branch.char, k.b_branch.char) for k in r.links}
    assert {
        ("刑", "巳", "申"),
        ("刑", "申", "寅"),
        ("沖", "申", "寅"),
        ("破", "巳", "申"),
        ("害", "巳", "寅"),
    } <= pairs


def test_entry8_facts() -> None:
    # seed 003 entry 8 (辛巳): 「亥為日脫」; 「午為辛金之病地」 (seed 002 病: 辛日午)
    r = compose(chart("辛巳", 3))
    assert r.position("middle").branch == B("亥") and "relative.盜" in ids(r.position("middle").attributes)
    day = GanZhi.parse("辛巳")
    assert "stage.病" in ids(attributes_of(B("午"), day, B("子"), day.xunkong))


def test_relations_seed002() -> None:
    # 刑干/刑支 … 合: seed 002 tables; 亥刑亥 (the seed's 「亥刑害」 read as spec §6 says)
    assert relations(B("子"), B("卯")) == ("刑",)
    assert relations(B("亥"), B("亥")) == ("刑",)
    assert relations(B("巳"), B("申")) == ("刑", "破", "合")
    assert relations(B("子"), B("午")) == ("沖",)
    assert relations(B("子"), B("未")) == ("害",)


def test_vitality_needs_month() -> None:
    c = chart("庚辰", 8)
    assert not any(a.id.startswith("vitality.") for a in compose(c).position("initial").attributes)
    # seed 002: 寅 (木) in an autumn month (酉) is 死 「秋寅卯」
    r = compose(c, month=B("酉"))
    assert "vitality.死" in ids(r.position("initial").attributes)
    assert "yuejian" in ids(r.position("zhi_upper").attributes)  # 支上酉 is the 月建


def test_taisui_and_birth() -> None:
    r = compose(chart("庚辰", 8), year=B("寅"), birth=B("午"))
    assert "taisui" in ids(r.position("initial").attributes)
    assert r.position("birth").branch == B("午")


def test_leishen_categories() -> None:
    c = chart("庚辰", 8)
    # 天文: 「寅卯屬東方木星」 「寅屬箕尾宿」
    hits = compose(c, "天文").position("initial").leishen
    lzh = glossary("lzh")
    texts = {lzh[f"leishen.{h.entry}"]["text"] for h in hits}
    assert {"東方木星", "箕尾宿"} <= texts
    # 人物: 「印煞屬父母」 — 丑 is 印 of 庚; 「貴人屬王侯紳士」
    texts = {lzh[f"leishen.{h.entry}"]["text"] for h in compose(c, "人物").position("gan_upper").leishen}
    assert {"父母", "王侯紳士", "牧築耕夫"} <= texts
    # 數目: 子 = 五行一, 先天九
    texts = {lzh[f"leishen.{h.entry}"]["text"] for h in compose(c, "shumu").position("final").leishen}
    assert {"五行一", "先天九"} <= texts
    # 顏色: 寅 青; in an autumn month 寅 is 死 → 淡舊 (「休囚淡舊」)
    texts = {
        lzh[f"leishen.{h.entry}"]["text"]
        for h in compose(c, "顏色", month=B("酉")).position("initial").leishen
    }
    assert texts == {"青", "淡舊"}


def _leishen_texts(category: str, branch: str, general: str, dun: str | None = None) -> set[str]:
    from engine.core.cycle import Stem
    from engine.liuren.leishen import lookup
    from engine.liuren.types import General

    lzh = glossary("lzh")
    hits = lookup(
        category,
        B(branch),
        general=General.from_char(general),
        dun_stem=Stem.from_char(dun) if dun is not None else None,
    )
    return {lzh[f"leishen.{h.entry}"]["text"] for h in hits}


def test_tianwen_yu_is_and_not_rides() -> None:
    # seed 002 天文 「巳與白虎屬風，寅與青龍屬云」: 巳 and 白虎 each belong to 風 — 白虎 need not ride 巳
    assert "風" in _leishen_texts("天文", "巳", "貴人")
    assert "風" in _leishen_texts("天文", "子", "白虎")
    assert "雲" in _leishen_texts("天文", "申", "青龍")
    assert "風" not in _leishen_texts("天文", "子", "貴人")
    # 「亥子申酉乘白虎太陰屬雪雹」 is the one 乘: 白虎 on 午 is not 雪雹, on 申 it is
    assert "雪雹" not in _leishen_texts("天文", "午", "白虎")
    assert "雪雹" in _leishen_texts("天文", "申", "白虎")
    assert "雪雹" not in _leishen_texts("天文", "申", "貴人")


def test_tianwen_rain_keeps_ren_gui() -> None:
    # 「亥子壬癸與玄琥天后為雨澤」: a branch whose 遁干 is 壬 or 癸 is 雨澤 as well as 亥子, 玄武, 天后
    assert "雨澤" in _leishen_texts("天文", "午", "貴人", dun="壬")
    assert "雨澤" in _leishen_texts("天文", "未", "貴人", dun="癸")
    assert "雨澤" not in _leishen_texts("天文", "未", "貴人", dun="甲")
    assert "雨澤" in _leishen_texts("天文", "亥", "貴人")
    assert "雨澤" in _leishen_texts("天文", "寅", "玄武") and "雨澤" in _leishen_texts("天文", "寅", "天后")
    # in a chart: 庚辰 (甲戌旬) 午 carries 壬 (甲戌 乙亥 丙子 丁丑 戊寅 己卯 庚辰 辛巳 壬午)
    c = chart("庚辰", 12)
    assert c.transmissions[0].branch == B("午") and c.transmissions[0].dun_stem.char == "壬"
    hits = compose(c, "天文").position("initial").leishen
    assert "雨澤" in {glossary("lzh")[f"leishen.{h.entry}"]["text"] for h in hits}


def test_dili_mao_row_is_split() -> None:
    # 「卯屬正東方，亦屬柳星張所照處與市道旌旗地」: 柳星張 are 午's (天文 「柳星張宿」), 旌旗 午's (器用 「午屬書畫旌旗」)
    mao = _leishen_texts("地理", "卯", "貴人")
    wu = _leishen_texts("地理", "午", "貴人")
    assert "正東方" in mao and not any("柳星張" in t for t in mao)
    assert "柳星張所照處與市道旌旗地" in wu
    from engine.liuren.leishen import entries

    assert all("flag" in e for e in entries("地理") if e["match"] in ({"branch": "卯"}, {"branch": "午"}))


def test_glossary_never_defines_a_word_by_itself() -> None:
    # seed 002 旬空 「六旬逢空位上所乘之將謂之臨空」: 臨空 is defined, not repeated
    for lang in ("lzh", "ko"):
        for key, entry in glossary(lang).items():
            if "name" in entry and "text" in entry:
                assert entry["text"] != entry["name"], (lang, key)
    assert glossary("lzh")["linkong"]["text"].startswith("六旬逢空位上所乘之將")


def test_bad_category() -> None:
    with pytest.raises(EngineInputError) as err:
        compose(chart("庚辰", 8), "占星")
    assert err.value.code == "error.liuren.bad_category"


def test_to_json_is_ids_only() -> None:
    data = compose(chart("庚辰", 8), "器用", month=B("酉")).to_json()
    assert data["kind"] == "composed" and data["day"] == "庚辰" and data["ju"] == 8
    assert data["positions"][0]["attributes"][0] == {"id": "relative.財", "params": {}}
    gloss = glossary("ko")
    for p in data["positions"]:
        for a in p["attributes"] + p["seat_attributes"] + p["general_attributes"]:
            assert a["id"] in gloss


# ------------------------------------------------------------------------------------------ templates


@pytest.mark.parametrize("ext", ["txt", "html", "md"])
@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_templates(ext: str, lang: str) -> None:
    readings = read(chart("庚辰", 8), "天文", month=B("酉"))
    out = render(f"liuren/reading.{ext}.j2", lang, **render_context(readings, lang))
    assert "liuren_reading." not in out  # every message id is translated
    if lang == "lzh":
        assert "己財先費，方獲厚利" in out and "初傳" in out and "東方木星" in out
    else:
        assert (
            "자기 재물을 먼저 쓰고서야 큰 이익(厚利)을 얻으며" in out and "초전" in out and "동방 세성" in out
        )
    if ext == "html":
        assert "<b>" in out


def test_seed_text_only_for_the_seed_san_chuan() -> None:
    # the seed text describes 庚辰 第8局 with 三傳 寅未子 (spec §5); a chart of that (day, 局) whose options
    # produced another 三傳 must not get it
    from dataclasses import replace

    c = chart("庚辰", 8)
    assert seed_reading(c) is not None
    t = c.transmissions
    other = replace(c, transmissions=(t[0], t[2], t[1]))
    assert seed_reading(other) is None


def test_chart_at_supplies_month_and_year() -> None:
    from datetime import datetime

    from engine.liuren import chart_at

    # 2024-03-20 (after 驚蟄, before 清明): 卯 month, 甲辰 year
    c = chart_at(datetime(2024, 3, 20, 12, 0, tzinfo=UTC))
    r = compose(c)
    assert r.month == B("卯") and r.year == B("辰")
    assert any(a.id.startswith("vitality.") for a in r.position("initial").attributes)
