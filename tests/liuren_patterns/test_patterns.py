"""課體/課格 detection (engine.liuren.patterns) against the definitions of seeds 002 and 003.

Positive and negative cases are built by hand from each definition (conftest.HandChart); the eight seed-003
課 are built through the chart API from the (day, 局) the seed gives.
"""

from __future__ import annotations

import pytest

from engine.core.cycle import GanZhi
from engine.liuren import chart_for_ju
from engine.liuren.patterns import catalogue, detect, guiren_dependent, undetectable

from .conftest import hand


def names(chart: object) -> set[str]:
    return {h.name for h in detect(chart)}  # type: ignore[arg-type]


# ------------------------------------------------------------------ seed 003: the 課體 each entry names
# (day, 局, 三傳, the 課體 line of the entry, further names its 解曰/斷曰 text applies to the 課)
SEED003 = [
    ("庚辰", 8, "寅未子", "重審，驀越，引從", {"閉口"}),  # 夜貴未 is the 旬尾 (entry 3: 「夜貴旬尾…是為閉口」): 夜 only
    ("庚辰", 9, "辰申子", "元首，潤下，不備，勵德，閉口", {"迴環", "斷橋"}),  # 「三傳不離乎四課，循環」「中申又值旬空」
    ("庚辰", 10, "寅巳申", "彈射，元胎", {"閉口", "刖足"}),  # 「夜貴旬尾臨辰，是為閉口」「末傳申值旬空」
    ("庚辰", 11, "申戌子", "涉害，間傳，斬關，涉三淵", {"斬首", "貴登天門", "罡塞鬼戶"}),  # 「初傳申為旬空」「貴登天門，罡塞鬼戶」
    ("庚辰", 12, "午未申", "蒿矢，進茹，麗明", {"刖足", "交車合", "天網四張"}),  # 「喜末傳空陷」「交車作六合」「為天網四張」
    ("辛巳", 1, "巳申寅", "伏吟，元胎，斬關", {"斷橋"}),  # 「中空名折腰格」
    ("辛巳", 2, "卯寅丑", "元首，退茹，斬關，勵德", set()),
    ("辛巳", 3, "丑亥酉", "間傳，極陰", {"刖足", "交車合", "驀越"}),  # 「末傳酉金，又作旬空」「干上申，支上卯，為交車合財」「更名驀越」
]  # fmt: skip


@pytest.mark.parametrize(("day", "ju", "trans", "keti", "text_names"), SEED003)
def test_seed003_names(day: str, ju: int, trans: str, keti: str, text_names: set[str]) -> None:
    # the seed reads both 貴人 (entry 2 「兩貴臨門」): a name it gives holds under the 晝 or the 夜 貴人
    chart = chart_for_ju(GanZhi.parse(day), ju)
    assert "".join(t.branch.char for t in chart.transmissions) == trans
    found = names(chart) | set(chart.method_names) | set(guiren_dependent(chart))
    missing = set(keti.split("，")) - found
    assert not missing, f"{day} 第{ju}局: {missing} not detected"
    assert text_names <= found


def test_every_pattern_is_machine_checkable() -> None:
    # 驀越, the last name the seeds use without a rule, is defined by 《大六壬尋源》 (「用起第四課者，名驀越課」)
    assert undetectable() == ()


# 驀越 as seed 003 names it: the only 下賊上 of the 四課 stands in lesson 4 (支之陰神) and is taken as 用.
# Lessons worked by hand from the plate (spec §1–§2) for each seed-003 課.
MOYUE_SEED003 = [
    ("庚辰", 8, True),  # 丑/庚 午/丑 酉/辰 寅/酉: only 寅/酉 下賊上 → 用寅 (「課體：重審，驀越，引從」)
    ("庚辰", 9, False),  # 子/庚 辰/子 申/辰 子/申: 辰/子 上克下 → 用辰 from lesson 2 (「課體：元首，…」)
    ("庚辰", 10, False),  # 亥/庚 寅/亥 未/辰 戌/未: no 克; 庚 克 寅 → 彈射 (「課體：彈射，元胎」)
    ("庚辰", 11, False),  # 戌/庚 子/戌 午/辰 申/午: 子(2) 申(4) both 下賊上 → 涉害 (「課體：涉害，間傳，斬關，涉三淵」)
    ("庚辰", 12, False),  # 酉/庚 戌/酉 巳/辰 午/巳: no 克 → 蒿矢 午 (「課體：蒿矢，進茹，麗明」)
    ("辛巳", 1, False),  # 伏吟 (「課體：伏吟，元胎，斬關」)
    ("辛巳", 2, False),  # 酉/辛 申/酉 辰/巳 卯/辰: 卯/辰 上克下 → 元首 from lesson 4 (「課體：元首，退茹，斬關，勵德」)
    ("辛巳", 3, True),  # 申/辛 午/申 卯/巳 丑/卯: 丑/卯 the only 下賊上, passing over 午/申 (「更名驀越」)
]  # fmt: skip


@pytest.mark.parametrize(("day", "ju", "holds"), MOYUE_SEED003)
def test_moyue_on_seed003(day: str, ju: int, holds: bool) -> None:
    chart = chart_for_ju(GanZhi.parse(day), ju)
    hit = next((h for h in detect(chart) if h.name == "驀越"), None)
    assert (hit is not None) == holds
    if hit is not None:
        assert dict(hit.facts)["lesson"] == "4"
        assert dict(hit.facts)["initial"] == chart.lessons[3].upper.char


def test_moyue_other_methods() -> None:
    # 返吟 丙寅 第7局 亥/丙 巳/亥 申/寅 寅/申: 下賊上 巳(2) and 寅(4) — not the only one in lesson 4
    assert "驀越" not in names(chart_for_ju(GanZhi.parse("丙寅"), 7))
    # 甲寅 第3局 (干支同位: 2課 = 4課 = 戌/子): the same 下賊上 stands in lesson 2 as well
    chart = chart_for_ju(GanZhi.parse("甲寅"), 3)
    assert [(ls.upper.char, ls.lower.char) for ls in chart.lessons][1::2] == [("戌", "子"), ("戌", "子")]
    assert "驀越" not in names(chart)


# ------------------------------------------------------------------ 貴人 of the cast (晝/夜 by the options)
def test_guiren_dependent_follows_the_cast() -> None:
    # seed 003 entry 3 (庚辰 第10局) 課義 「夜貴閉口」, 解曰 「夜貴旬尾臨辰，是為閉口」: the 夜貴 未 is the 旬尾
    day, ju = GanZhi.parse("庚辰"), 10
    assert "閉口" in names(chart_for_ju(day, ju, daytime=False))
    assert "閉口" not in names(chart_for_ju(day, ju, daytime=True))
    assert guiren_dependent(chart_for_ju(day, ju))["閉口"] == ["夜"]
    # entry 2 (第9局) 「兩貴臨門」: 晝貴丑 on 酉, 夜貴未 on 卯 → 勵德 under both
    assert guiren_dependent(chart_for_ju(day, 9))["勵德"] == ["晝", "夜"]
    # entry 4 (第11局) 「貴登天門」 of the 晝貴 丑 on 亥 only
    assert guiren_dependent(chart_for_ju(day, 11))["貴登天門"] == ["晝"]
    assert "貴登天門" not in names(chart_for_ju(day, 11, daytime=False))


def test_night_cast_decides_lide_with_the_night_guiren() -> None:
    # 丙 晝貴亥 夜貴酉 (《六壬大全》 「丙丁豬雞位」); 丙寅 第5局: 亥 over 卯 (勵德 by day), 酉 over 丑 (not by night)
    day = GanZhi.parse("丙寅")
    night = chart_for_ju(day, 5, daytime=False)
    assert night.guiren.char == "酉" and night.earth_of(night.guiren).char == "丑"
    assert "勵德" not in night.ke_ti()
    assert "勵德" in chart_for_ju(day, 5, daytime=True).ke_ti()
    # and 丙寅 is in the 甲子旬, whose 旬尾 is 酉 (癸酉): the 夜貴 酉 closes the mouth (entry 3's rule)
    assert guiren_dependent(night) == {"勵德": ["晝"], "閉口": ["夜"]}
    assert "閉口" in night.ke_ti()


def test_seed002_zage_all_present() -> None:
    # seed 002 格局·雜格, in its order
    zage = "斫輪 鑄印 軒蓋 斬關 六陰 六陽 迴環 一體 斬首 斷橋 刖足 始終".split()
    got = [p.name for p in catalogue() if p.group == "zage"]
    assert got == zage
    assert all(p.rule is not None for p in catalogue() if p.group == "zage")


def test_yiti_is_duzu_of_jiwei() -> None:
    # spec §6: 一體 is the 獨足 of 己未 干上酉 (己 寄未, 酉 over 未: 第11局), reachable with 八專 before 遙剋
    chart = chart_for_ju(GanZhi.parse("己未"), 11)
    assert chart.lessons[0].upper.char == "酉"
    assert "".join(t.branch.char for t in chart.transmissions) == "酉酉酉"
    assert "一體" in names(chart)


# ---------------------------------------------------------- each definition: a chart where it holds, one where not
CASES = [
    # 三傳卯戌巳曰斫輪 / 三傳巳戌卯曰鑄印 / 三傳午卯子曰軒蓋
    ("斫輪", hand("甲子", 0, "卯戌巳"), hand("甲子", 0, "巳戌卯")),
    ("鑄印", hand("甲子", 0, "巳戌卯"), hand("甲子", 0, "卯戌巳")),
    ("軒蓋", hand("甲子", 0, "午卯子"), hand("甲子", 0, "子卯午")),
    # 辰戌臨干支曰斬關: 庚 寄申, offset 2 puts 戌 over 申 (干上); 辛巳 offset 11 puts 辰 over 巳 (支上)
    ("斬關", hand("庚辰", 2), hand("庚辰", 5)),
    ("斬關", hand("辛巳", 11), hand("辛巳", 10)),
    # 六陰: 丁卯 (寄未), offset 2: uppers 酉亥巳未, 三傳 all 陰 / one 陽
    ("六陰", hand("丁卯", 2, "酉亥丑"), hand("丁卯", 2, "酉亥子")),
    # 六陽: 甲子 (寄寅), offset 2: uppers 辰午寅辰
    ("六陽", hand("甲子", 2, "辰午申"), hand("甲子", 2, "辰午未")),
    # 三傳三將同四課三將曰迴環: 庚辰 offset 4, uppers 子辰申子; two distinct 傳 (辰子辰) are not 三將
    ("迴環", hand("庚辰", 4, "辰申子"), hand("庚辰", 4, "辰申寅")),
    ("迴環", hand("庚辰", 4, "辰申子"), hand("庚辰", 4, "辰子辰")),
    ("一體", hand("己未", 2, "酉酉酉"), hand("己未", 2, "申申申")),
    # 初/中/末傳空: 庚辰 in the 甲戌旬, 空 申酉
    ("斬首", hand("庚辰", 0, "申子辰"), hand("庚辰", 0, "子申辰")),
    ("斷橋", hand("庚辰", 0, "寅申子"), hand("庚辰", 0, "申寅子")),
    ("刖足", hand("庚辰", 0, "午未酉"), hand("庚辰", 0, "酉午未")),
    # 初傳屬旬首，末傳屬旬尾: 甲戌旬 旬首戌, 旬尾未 (癸未)
    ("始終", hand("庚辰", 0, "戌子未"), hand("庚辰", 0, "未子戌")),
    # 連茹 進/退 and 間傳 (seed 003 entries 5, 7, 4, 8)
    ("進茹", hand("庚辰", 0, "午未申"), hand("庚辰", 0, "申未午")),
    ("退茹", hand("辛巳", 0, "卯寅丑"), hand("辛巳", 0, "丑寅卯")),
    ("間傳", hand("庚辰", 0, "申戌子"), hand("庚辰", 0, "申戌亥")),
    ("間傳", hand("辛巳", 0, "丑亥酉"), hand("辛巳", 0, "丑亥戌")),
    ("涉三淵", hand("庚辰", 0, "申戌子"), hand("庚辰", 0, "戌子寅")),
    ("極陰", hand("辛巳", 0, "丑亥酉"), hand("辛巳", 0, "亥酉未")),
    ("麗明", hand("庚辰", 0, "午未申"), hand("庚辰", 0, "未申酉")),
    # 不備: 庚辰 offset 4 gives 子/庚(申) 辰/子 申/辰 子/申 — three lessons; offset 5 gives four
    ("不備", hand("庚辰", 4), hand("庚辰", 5)),
    # 三合局 (潤下 named by seed 003 entry 2) in any order; 稼穡 all 土
    ("潤下", hand("庚辰", 0, "辰申子"), hand("庚辰", 0, "辰申午")),
    ("炎上", hand("庚辰", 0, "戌寅午"), hand("庚辰", 0, "戌寅子")),
    ("曲直", hand("庚辰", 0, "未亥卯"), hand("庚辰", 0, "未亥寅")),
    ("從革", hand("庚辰", 0, "丑巳酉"), hand("庚辰", 0, "丑巳申")),
    ("稼穡", hand("癸丑", 0, "丑戌未"), hand("癸丑", 0, "丑戌申")),
    # 引從: 庚辰 offset 5, 干上丑: 初寅 前引, 末子 後從 (seed 003 entry 1); reversed is not
    ("引從", hand("庚辰", 5, "寅未子"), hand("庚辰", 5, "子未寅")),
    # 閉口: 旬尾加旬首 — 甲子旬 旬尾酉 over 子 (offset 9); 甲's 貴人 丑/未 are not 酉
    ("閉口", hand("甲子", 9), hand("甲子", 8)),
    # 勵德: 庚 晝貴丑 夜貴未; offset 4 puts 丑 on 酉 and 未 on 卯 (seed 003 entry 2 兩貴臨門)
    ("勵德", hand("庚辰", 4), hand("庚辰", 5)),
    ("勵德", hand("庚辰", 4, night=True), hand("庚辰", 5, night=True)),
    # 閉口 by 貴人值旬尾 (entry 3 「夜貴閉口」): 庚 夜貴未 is the 甲戌旬's 旬尾, 晝貴丑 is not
    ("閉口", hand("庚辰", 3, night=True), hand("庚辰", 3)),
    # 元胎: 三傳皆孟 (entries 3 and 6: 寅巳申, 巳申寅)
    ("元胎", hand("庚辰", 0, "寅巳申"), hand("庚辰", 0, "寅巳午")),
    # 交車合: 庚辰 offset 1: 干上酉 合 支辰, 支上巳 合 干(申) (entry 5)
    ("交車合", hand("庚辰", 1), hand("庚辰", 2)),
    # 貴登天門: 晝貴丑 on 亥 (entry 4, offset 2); 罡塞鬼戶: 辰 on 寅; 天網四張: 辰戌 on 卯酉
    ("貴登天門", hand("庚辰", 2), hand("庚辰", 5)),
    ("罡塞鬼戶", hand("庚辰", 2), hand("庚辰", 3)),
    ("天網四張", hand("庚辰", 1), hand("庚辰", 2)),
    ("天網四張", hand("庚辰", 7), hand("庚辰", 8)),
    # 驀越: the only 下賊上 in lesson 4 taken as 用 (entries 1, 8) vs two 下賊上 (entry 4), vs 元首 (entry 7)
    ("驀越", hand("庚辰", 5, "寅未子"), hand("庚辰", 2, "申戌子")),
    ("驀越", hand("辛巳", 10, "丑亥酉"), hand("辛巳", 11, "卯寅丑")),
    ("驀越", hand("庚辰", 5, "寅未子"), hand("庚辰", 5, "未寅子")),
]


@pytest.mark.parametrize(("name", "holds", "fails"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_definition(name: str, holds: object, fails: object) -> None:
    assert name in names(holds)
    assert name not in names(fails)


def test_every_checkable_pattern_has_a_case() -> None:
    checkable = {p.name for p in catalogue() if p.rule is not None}
    assert checkable == {c[0] for c in CASES}


def test_bubei_not_on_fuyin() -> None:
    # 伏吟 has only two distinct lessons; seed 003 entry 6 (辛巳 伏吟) is not called 不備
    assert "不備" not in names(chart_for_ju(GanZhi.parse("辛巳"), 1))


def test_xun_tail_closed_mouth_by_guiren() -> None:
    # seed 003 entry 3: 夜貴未 is the 旬尾 of the 甲戌旬 → 閉口, whatever the plate
    hit = next(h for h in detect(hand("庚辰", 3, night=True)) if h.name == "閉口")
    assert dict(hit.facts)["guiren"] == "未"


def test_facts_name_the_position() -> None:
    hit = next(h for h in detect(chart_for_ju(GanZhi.parse("庚辰"), 11)) if h.name == "斬關")
    assert dict(hit.facts) == {"gan_upper": "戌"}
    assert hit.to_json()["source"].startswith("seed 002")


def test_all_720_detect() -> None:
    # every 課 can be examined, and the chart's ke_ti lists method names before pattern names
    for i in range(60):
        day = GanZhi.of(i)
        for ju in range(1, 13):
            chart = chart_for_ju(day, ju)
            hits = detect(chart)
            assert len({h.id for h in hits}) == len(hits)


def test_huihuan_needs_three_distinct_transmissions() -> None:
    # 「三傳三將同四課三將曰迴環」: a 三傳 of two distinct branches (most 返吟, e.g. 寅申寅) has no 三將
    two_distinct = 0
    for i in range(60):
        for ju in range(1, 13):
            chart = chart_for_ju(GanZhi.of(i), ju)
            trans = [t.branch for t in chart.transmissions]
            in_uppers = all(b in {ls.upper for ls in chart.lessons} for b in trans)
            hit = "迴環" in names(chart)
            assert hit == (in_uppers and len(set(trans)) == 3)
            two_distinct += in_uppers and len(set(trans)) == 2
    assert two_distinct > 0  # such 課 exist and are no longer 迴環
