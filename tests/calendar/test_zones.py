"""Time zones: the instant first, the wall clock for day and hour (spec/calendar.md §3).

Offsets asserted here are those of the IANA tz database (``asia`` file): Asia/Seoul LMT +8:27:52 to 1908-04-01,
+8:30 1908–1911, +9 from 1912, DST +10 1948–1951, +8:30 1954-03-21 – 1961-08-10 with DST +9:30 1955–1960,
DST +10 1987–1988; Asia/Shanghai LMT +8:05:43 to 1901, +8, DST 1919, 1940–1949, 1986–1991.
Term instants come from the independent skyfield root finding (conftest.py).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from engine.calendar import four_pillars, resolve_local, zone
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError

ONE = timedelta(seconds=1)
NAMES = "春分 清明 穀雨 立夏 小滿 芒種 夏至 小暑 大暑 立秋 處暑 白露 秋分 寒露 霜降 立冬 小雪 大雪 冬至 小寒 大寒 立春 雨水 驚蟄".split()


def hms(h: int, m: int = 0, s: int = 0) -> timedelta:
    return timedelta(hours=h, minutes=m, seconds=s)


@pytest.mark.parametrize(
    ("zone_key", "wall", "offset"),
    [
        ("Asia/Seoul", datetime(1900, 6, 1, 12), hms(8, 27, 52)),
        ("Asia/Seoul", datetime(1908, 3, 31, 23, 59), hms(8, 27, 52)),
        ("Asia/Seoul", datetime(1908, 4, 1, 12), hms(8, 30)),
        ("Asia/Seoul", datetime(1911, 12, 31, 12), hms(8, 30)),
        ("Asia/Seoul", datetime(1912, 6, 1, 12), hms(9)),
        ("Asia/Seoul", datetime(1949, 7, 1, 12), hms(10)),
        ("Asia/Seoul", datetime(1950, 1, 1, 12), hms(9)),
        ("Asia/Seoul", datetime(1954, 6, 1, 12), hms(8, 30)),
        ("Asia/Seoul", datetime(1957, 7, 1, 12), hms(9, 30)),
        ("Asia/Seoul", datetime(1957, 12, 1, 12), hms(8, 30)),
        ("Asia/Seoul", datetime(1961, 9, 1, 12), hms(9)),
        ("Asia/Seoul", datetime(1987, 7, 1, 12), hms(10)),
        ("Asia/Seoul", datetime(1988, 7, 1, 12), hms(10)),
        ("Asia/Seoul", datetime(1989, 7, 1, 12), hms(9)),
        ("Asia/Shanghai", datetime(1900, 6, 1, 12), hms(8, 5, 43)),
        ("Asia/Shanghai", datetime(1902, 6, 1, 12), hms(8)),
        ("Asia/Shanghai", datetime(1988, 7, 1, 12), hms(9)),
        ("Asia/Shanghai", datetime(1992, 7, 1, 12), hms(8)),
        ("Asia/Pyongyang", datetime(2016, 7, 1, 12), hms(8, 30)),
    ],
)
def test_historic_offsets_from_tzdata(zone_key: str, wall: datetime, offset: timedelta) -> None:
    assert resolve_local(wall, zone_key).utcoffset() == offset


# Terms whose wall-clock moment falls in a special era: (zone, year, k, IANA offset then).
ERA_TERMS = [
    ("Asia/Seoul", 1900, 21, hms(8, 27, 52)),  # 立春 under LMT
    ("Asia/Seoul", 1910, 3, hms(8, 30)),  # 立夏, first +8:30 era
    ("Asia/Seoul", 1949, 7, hms(10)),  # 小暑, DST 1948–51
    ("Asia/Seoul", 1956, 21, hms(8, 30)),  # 立春, second +8:30 era
    ("Asia/Seoul", 1957, 6, hms(9, 30)),  # 夏至 (中氣: 月將), DST 1955–60
    ("Asia/Seoul", 1987, 7, hms(10)),  # 小暑, DST 1987–88
    ("Asia/Seoul", 1988, 8, hms(10)),  # 大暑 (中氣), DST 1987–88
    ("Asia/Seoul", 2024, 21, hms(9)),
    ("Asia/Shanghai", 1900, 21, hms(8, 5, 43)),  # LMT
    ("Asia/Shanghai", 1946, 5, hms(9)),  # 芒種, DST 1940–49
    ("Asia/Shanghai", 1988, 5, hms(9)),  # 芒種, DST 1986–91
    ("Asia/Shanghai", 2024, 21, hms(8)),
]


@pytest.mark.parametrize(("zone_key", "year", "k", "offset"), ERA_TERMS)
def test_term_boundary_on_historic_wall_clocks(
    term_at, zone_key: str, year: int, k: int, offset: timedelta
) -> None:  # type: ignore[no-untyped-def]
    at = term_at(year, k)
    wall = (at + offset).replace(tzinfo=None)  # the wall clock that the IANA offset of the era shows
    before = four_pillars(resolve_local(wall - ONE, zone_key))
    on = four_pillars(resolve_local(wall, zone_key))
    assert on.local.utcoffset() == offset
    assert before.term.name == NAMES[(k - 1) % 24] and on.term.name == NAMES[k]
    if k % 2 == 1:  # 節: the month changes
        assert on.month.branch == before.month.branch.shift(1)
    else:  # 中氣: the 月將 changes
        assert on.month_general == before.month_general.shift(-1)
    if k == 21:
        assert (before.year, on.year) == (GanZhi.of(year - 5), GanZhi.of(year - 4))
    # pitfall §8.5: reading the same wall clock as a fixed +8 would already be past the term at wall − 1 s
    if offset > hms(8):
        fixed = four_pillars((wall - ONE).replace(tzinfo=timezone(hms(8))))
        assert fixed.term.name == NAMES[k] != before.term.name


def test_seoul_dst_day_and_hour_follow_the_wall_clock() -> None:
    # 1957-07-01 23:10 at +9:30 (DST): wall clock decides, so 子初換日 has already happened.
    at = resolve_local(datetime(1957, 7, 1, 23, 10), "Asia/Seoul")
    assert at.utcoffset() == hms(9, 30)
    p = four_pillars(at)
    ordinal_day = GanZhi.of(datetime(1957, 7, 1).toordinal() + 1721425 + 49)
    assert p.day == ordinal_day.shift(1) and p.hour_branch == Branch.ZI


def test_dst_gap_rejected_or_shifted() -> None:
    # Seoul DST began 1987-05-10 02:00 → 03:00
    with pytest.raises(EngineInputError) as err:
        resolve_local(datetime(1987, 5, 10, 2, 30), "Asia/Seoul")
    assert err.value.code == "error.calendar.nonexistent_time"
    shifted = resolve_local(datetime(1987, 5, 10, 2, 30), "Asia/Seoul", nonexistent="shift")
    assert shifted.replace(tzinfo=None) == datetime(1987, 5, 10, 3, 30) and shifted.utcoffset() == hms(10)
    # LMT → +8:30 on 1908-04-01 skipped 2 min 8 s
    with pytest.raises(EngineInputError):
        resolve_local(datetime(1908, 4, 1, 0, 1), "Asia/Seoul")


def test_dst_fold_takes_first_occurrence() -> None:
    # Seoul DST ended 1987-10-11 03:00 → 02:00: 02:30 happens twice; the first is still +10.
    first = resolve_local(datetime(1987, 10, 11, 2, 30), "Asia/Seoul")
    assert first.utcoffset() == hms(10)
    # Shanghai DST ended 1988-09-11 02:00 → 01:00 (IANA: Sep Sun>=11 2:00)
    assert resolve_local(datetime(1988, 9, 11, 1, 30), "Asia/Shanghai").utcoffset() == hms(9)


@pytest.mark.parametrize("key", ["Asia/Nowhere", "", "../etc/passwd", "Asia", "asia/seoul/x"])
def test_unknown_zone(key: str) -> None:
    with pytest.raises(EngineInputError) as err:
        zone(key)
    assert err.value.code == "error.calendar.unknown_zone"
    with pytest.raises(EngineInputError):
        resolve_local(datetime(2024, 1, 1), key)


def test_aware_input_to_resolve_local_rejected() -> None:
    with pytest.raises(EngineInputError):
        resolve_local(datetime.fromisoformat("2024-01-01T00:00:00+09:00"), "Asia/Seoul")
