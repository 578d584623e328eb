"""四柱, 月將 and 旬空 (spec/calendar.md §2) at and around their boundaries.

Boundary instants come from the independent skyfield + DE440 root finding in conftest.py; expected 干支 come
from the spec's rules (year index (Y − 4) mod 60 at 立春; month ((Y − 1984)·12 + m + 2) mod 60 at each 節;
月將 (10 − k/2) mod 12 at each 中氣; day (JDN + 49) mod 60) written out here, or from named checks.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from engine.calendar import (
    DayStart,
    Pillars,
    day_pillar,
    four_pillars,
    hour_pillar,
    latest_term,
    month_general,
    resolve_local,
)
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError, OutOfRangeError

CST = timezone(timedelta(hours=8))
KST = timezone(timedelta(hours=9))
ONE = timedelta(seconds=1)


def gz(text: str) -> GanZhi:
    return GanZhi.parse(text)


# spec §2 月將 table: 中氣 → branch.
GENERALS = {
    "雨水": "亥", "春分": "戌", "穀雨": "酉", "小滿": "申", "夏至": "未", "大暑": "午",
    "處暑": "巳", "秋分": "辰", "霜降": "卯", "小雪": "寅", "冬至": "丑", "大寒": "子",
}  # fmt: skip
# spec §2: 節 → month branch (寅 from 立春 … 丑 from 小寒).
JIE_MONTH = {
    "立春": "寅", "驚蟄": "卯", "清明": "辰", "立夏": "巳", "芒種": "午", "小暑": "未",
    "立秋": "申", "白露": "酉", "寒露": "戌", "立冬": "亥", "大雪": "子", "小寒": "丑",
}  # fmt: skip
TIGER = {
    "甲": "丙",
    "己": "丙",
    "乙": "戊",
    "庚": "戊",
    "丙": "庚",
    "辛": "庚",
    "丁": "壬",
    "壬": "壬",
    "戊": "甲",
    "癸": "甲",
}
NAMES = "春分 清明 穀雨 立夏 小滿 芒種 夏至 小暑 大暑 立秋 處暑 白露 秋分 寒露 霜降 立冬 小雪 大雪 冬至 小寒 大寒 立春 雨水 驚蟄".split()


def year_gz(lichun_year: int) -> GanZhi:
    return GanZhi.of(lichun_year - 4)  # 1984 = 甲子


def month_gz(lichun_year: int, branch_char: str) -> GanZhi:
    """五虎遁 by the 口訣 table (not the closed form the engine uses)."""
    first = TIGER[year_gz(lichun_year).chars[0]]  # stem of the 寅 month
    n = (Branch.from_char(branch_char) - Branch.YIN) % 12
    stem = "甲乙丙丁戊己庚辛壬癸"[("甲乙丙丁戊己庚辛壬癸".index(first) + n) % 10]
    return GanZhi.parse(stem + branch_char)


# --- named checks -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("day", "expected"),
    [(date(1949, 10, 1), "甲子"), (date(2000, 1, 1), "戊午"), (date(2024, 2, 4), "戊戌")],  # spec §2 checks
)
def test_day_pillar_spec_checks(day: date, expected: str) -> None:
    noon = datetime(day.year, day.month, day.day, 12, tzinfo=CST)
    assert four_pillars(noon).day == gz(expected)
    assert four_pillars(noon, DayStart.MIDNIGHT).day == gz(expected)


def test_json_contract_example(term_at) -> None:  # type: ignore[no-untyped-def]
    # 2024 立春 independently at 08:27:08Z, so 16:27:08+08:00 is exactly on the boundary: new year and month.
    assert term_at(2024, 21) == datetime(2024, 2, 4, 8, 27, 8, tzinfo=UTC)
    p = four_pillars(datetime.fromisoformat("2024-02-04T16:27:08+08:00"))
    assert p.to_json() == {
        "at": "2024-02-04T16:27:08+08:00",
        "year": "甲辰",
        "month": "丙寅",
        "day": "戊戌",
        "hour": "庚申",
        "month_general": "子",
        "xunkong": ["辰", "巳"],
        "term": {"name": "立春", "at": "2024-02-04T08:27:08Z"},
    }
    assert list(p.to_json()) == ["at", "year", "month", "day", "hour", "month_general", "xunkong", "term"]
    before = four_pillars(datetime.fromisoformat("2024-02-04T16:27:07+08:00"))
    assert (before.year, before.month, before.term.name) == (gz("癸卯"), gz("乙丑"), "大寒")
    assert p.hour_branch == Branch.SHEN and p.xunkong == (Branch.CHEN, Branch.SI)


def test_naive_instant_rejected() -> None:
    with pytest.raises(EngineInputError) as err:
        four_pillars(datetime(2024, 2, 4, 12))
    assert err.value.code == "error.calendar.naive_time"


# --- ±1 s at 節, 中氣 and 立春 -----------------------------------------------------------------------------------


def _boundary_cases() -> list[tuple[int, int]]:
    rng = random.Random(1949)
    cases = [(2024, k) for k in range(24)]
    cases += [(rng.randint(1900, 2100), rng.randrange(24)) for _ in range(24)]
    cases += [(y, 21) for y in (1900, 1901, 1950, 1984, 2000, 2099, 2100)]
    return cases


@pytest.mark.parametrize(("year", "k"), _boundary_cases())
def test_plus_minus_one_second_at_each_term(term_at, year: int, k: int) -> None:  # type: ignore[no-untyped-def]
    at = term_at(year, k)
    name = NAMES[k]
    before, on, after = (four_pillars((at + d).astimezone(CST)) for d in (-ONE, timedelta(0), ONE))
    assert before.term.name == NAMES[(k - 1) % 24] and on.term.name == name and after.term.name == name
    assert on.term.at == at
    # 小寒 and 大寒 (k = 19, 20) come before that year's 立春
    lichun_year = year - 1 if k in (19, 20) else year
    if name in JIE_MONTH:
        assert on.month == month_gz(lichun_year, JIE_MONTH[name]) == after.month
        assert before.month != on.month
        assert before.month_general == on.month_general
    else:
        assert on.month_general == Branch.from_char(GENERALS[name]) == after.month_general
        assert before.month_general == on.month_general.shift(1)
        assert before.month == on.month
    if name == "立春":
        assert (before.year, on.year) == (year_gz(year - 1), year_gz(year))
    else:
        assert before.year == on.year == year_gz(lichun_year)
    assert month_general(at) == on.month_general and latest_term(at).name == name


def test_first_term_period_of_the_range_is_1899() -> None:
    p = four_pillars(datetime(1900, 1, 1, 0, 0, tzinfo=UTC))
    assert p.year == year_gz(1899) == gz("己亥")
    assert p.month == gz("丙子")  # 己 year: 丙寅 … 子 month = 丙子 (大雪 1899)
    assert p.term.name == "冬至" and p.month_general == Branch.CHOU


def test_month_general_differs_from_month_between_jie_and_zhongqi() -> None:
    p = four_pillars(datetime(2024, 2, 10, 12, tzinfo=CST))  # after 立春, before 雨水
    assert p.month.branch == Branch.YIN and p.month_general == Branch.ZI


# --- 22:59 / 23:00 / 00:00 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wall", "zi23", "midnight"),
    [
        # 2024-02-10 is 甲辰 (2024-02-04 戊戌 + 6); 甲 day: 甲子 … 乙亥; next day 乙巳: 丙子 丁丑 (五鼠遁)
        ("2024-02-10T22:59:59", ("甲辰", "乙亥"), ("甲辰", "乙亥")),
        ("2024-02-10T23:00:00", ("乙巳", "丙子"), ("甲辰", "丙子")),
        ("2024-02-10T23:30:00", ("乙巳", "丙子"), ("甲辰", "丙子")),  # spec §2 example
        ("2024-02-10T23:59:59", ("乙巳", "丙子"), ("甲辰", "丙子")),
        ("2024-02-11T00:00:00", ("乙巳", "丙子"), ("乙巳", "丙子")),
        ("2024-02-11T00:59:59", ("乙巳", "丙子"), ("乙巳", "丙子")),
        ("2024-02-11T01:00:00", ("乙巳", "丁丑"), ("乙巳", "丁丑")),
        ("2024-02-11T22:59:59", ("乙巳", "丁亥"), ("乙巳", "丁亥")),
    ],
)
@pytest.mark.parametrize("zone", ["Asia/Seoul", "Asia/Shanghai"])
def test_day_and_hour_at_23_and_midnight(
    wall: str, zi23: tuple[str, str], midnight: tuple[str, str], zone: str
) -> None:
    at = resolve_local(datetime.fromisoformat(wall), zone)
    p = four_pillars(at)
    q = four_pillars(at, DayStart.MIDNIGHT)
    assert (p.day.chars, p.hour.chars) == zi23
    assert (q.day.chars, q.hour.chars) == midnight
    assert p.xunkong == gz(zi23[0]).xunkong and q.xunkong == gz(midnight[0]).xunkong
    assert p.local.replace(tzinfo=None) == datetime.fromisoformat(wall)
    naive = datetime.fromisoformat(wall)  # the wall-clock helpers give the same answer
    assert (day_pillar(naive).chars, hour_pillar(naive).chars) == zi23
    assert day_pillar(naive, DayStart.MIDNIGHT).chars == midnight[0]


def test_every_hour_branch_and_five_rats_rule() -> None:
    # 五鼠遁 口訣: 甲己→甲子, 乙庚→丙子, 丙辛→戊子, 丁壬→庚子, 戊癸→壬子
    rat = {
        "甲": "甲",
        "己": "甲",
        "乙": "丙",
        "庚": "丙",
        "丙": "戊",
        "辛": "戊",
        "丁": "庚",
        "壬": "庚",
        "戊": "壬",
        "癸": "壬",
    }
    start = date(2024, 2, 4)  # 戊戌
    for offset in range(10):
        d = start + timedelta(days=offset)
        day = gz("戊戌").shift(offset)
        for hour in range(0, 23):
            p = four_pillars(datetime(d.year, d.month, d.day, hour, 30, tzinfo=KST))
            branch = Branch(((hour + 1) // 2) % 12)
            stem0 = "甲乙丙丁戊己庚辛壬癸".index(rat[day.chars[0]])
            assert p.hour == GanZhi.parse("甲乙丙丁戊己庚辛壬癸"[(stem0 + branch) % 10] + branch.char)
            assert p.day == day


# --- out of range ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "1899-12-31T23:59:59+00:00",
        "2101-01-01T00:00:00+00:00",
        "1800-06-01T12:00:00+08:00",
        "2101-01-01T00:00:00-12:00",
    ],
)
def test_out_of_range_refused(text: str) -> None:
    with pytest.raises(OutOfRangeError) as err:
        four_pillars(datetime.fromisoformat(text))
    assert err.value.code == "error.calendar.out_of_range"


@pytest.mark.parametrize(
    "text", ["1900-01-01T00:00:00+14:00", "1900-01-01T00:00:00-12:00", "2100-12-31T23:59:59-12:00"]
)
def test_edges_inside_range(text: str) -> None:
    assert isinstance(four_pillars(datetime.fromisoformat(text)), Pillars)


# spec §2: 雨水→亥 登明, 春分→戌 河魁, 穀雨→酉 從魁, 小滿→申 傳送, 夏至→未 小吉, 大暑→午 勝光, 處暑→巳 太乙,
# 秋分→辰 天罡, 霜降→卯 太衝, 小雪→寅 功曹, 冬至→丑 大吉, 大寒→子 神后 (《六壬技術·月將》)
GENERAL_NAMES = {
    "亥": "登明", "戌": "河魁", "酉": "從魁", "申": "傳送", "未": "小吉", "午": "勝光",
    "巳": "太乙", "辰": "天罡", "卯": "太衝", "寅": "功曹", "丑": "大吉", "子": "神后",
}  # fmt: skip


def test_month_general_names_and_every_zhongqi_of_a_year() -> None:
    from engine.calendar import month_general_name, solar_terms

    assert {b.char: month_general_name(b) for b in Branch} == GENERAL_NAMES
    for term in solar_terms(1985, 1985):
        if not term.is_jie:
            assert month_general(term.at) == Branch.from_char(GENERALS[term.name])
            assert month_general(term.at - ONE) == Branch.from_char(GENERALS[term.name]).shift(1)
