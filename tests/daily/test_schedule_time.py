"""Due instants of daily readings across DST changes.

Expected instants are worked by hand from the US rule (second Sunday of March 02:00 EST → 03:00 EDT,
first Sunday of November 02:00 EDT → 01:00 EST; in 2026 March 8 and November 1) and from Korea's fixed
UTC+9 since 1988, not from the code under test.
"""

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.schedule_time import due_instant, latest_due, next_due, parse_hhmm

NY = ZoneInfo("America/New_York")
SEOUL = ZoneInfo("Asia/Seoul")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    "text,expected",
    [("07:30", time(7, 30)), ("7:05", time(7, 5)), ("0730", time(7, 30)), ("23:59", time(23, 59)),
     ("00:00", time(0, 0)), ("07：30", time(7, 30))],
)  # fmt: skip
def test_parse_hhmm(text, expected):
    assert parse_hhmm(text) == expected


@pytest.mark.parametrize("text", ["24:00", "7:60", "730", "ab:cd", "", "7:5", "-1:30", "07:30:00"])
def test_parse_hhmm_rejects(text):
    assert parse_hhmm(text) is None


def test_seoul_morning_is_previous_utc_evening():
    assert due_instant(date(2026, 11, 30), time(7, 0), SEOUL) == utc(2026, 11, 29, 22, 0)
    assert next_due(time(7, 0), SEOUL, utc(2026, 11, 29, 21, 59)) == (
        date(2026, 11, 30),
        utc(2026, 11, 29, 22),
    )
    # exactly at the due instant it is no longer "next": the following day is
    assert next_due(time(7, 0), SEOUL, utc(2026, 11, 29, 22, 0))[0] == date(2026, 12, 1)


def test_new_york_ordinary_days_either_side_of_spring_forward():
    # 08:00 EST = 13:00 UTC on Saturday 7 March; 08:00 EDT = 12:00 UTC on Sunday 8 March
    assert due_instant(date(2026, 3, 7), time(8, 0), NY) == utc(2026, 3, 7, 13)
    assert due_instant(date(2026, 3, 8), time(8, 0), NY) == utc(2026, 3, 8, 12)
    assert next_due(time(8, 0), NY, utc(2026, 3, 7, 13, 0, 1)) == (date(2026, 3, 8), utc(2026, 3, 8, 12))


def test_gap_time_is_shifted_forward():
    # 02:30 does not exist on 8 March 2026 in New York: due at 02:30 EST = 07:30 UTC (03:30 EDT)
    assert due_instant(date(2026, 3, 8), time(2, 30), NY) == utc(2026, 3, 8, 7, 30)


def test_fold_time_is_due_once_at_first_occurrence():
    # 01:30 happens twice on 1 November 2026: 05:30 UTC (EDT) and 06:30 UTC (EST); due at the first only
    assert due_instant(date(2026, 11, 1), time(1, 30), NY) == utc(2026, 11, 1, 5, 30)
    nxt = next_due(time(1, 30), NY, utc(2026, 11, 1, 5, 30))
    assert nxt == (date(2026, 11, 2), utc(2026, 11, 2, 6, 30))


def test_latest_due():
    assert latest_due(time(7, 0), SEOUL, utc(2026, 11, 30, 1)) == (date(2026, 11, 30), utc(2026, 11, 29, 22))
    assert latest_due(time(7, 0), SEOUL, utc(2026, 11, 29, 21, 59)) == (
        date(2026, 11, 29),
        utc(2026, 11, 28, 22),
    )


# ---- properties over many zones and instants (hypothesis) ------------------------------------------------

ZONES = ["Asia/Seoul", "America/New_York", "Europe/London", "Australia/Sydney", "America/Sao_Paulo",
         "Asia/Kolkata", "Pacific/Auckland", "Europe/Moscow"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    zone=st.sampled_from(ZONES),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
    after=st.datetimes(datetime(1990, 1, 1), datetime(2040, 1, 1)),
)
def test_next_due_is_the_first_instant_showing_the_wall_time(zone, hour, minute, after):
    z, at = ZoneInfo(zone), time(hour, minute)
    after = after.replace(tzinfo=UTC)
    d, due = next_due(at, z, after)
    assert due > after
    assert latest_due(at, z, due) == (d, due)
    assert due_instant(d - timedelta(days=1), at, z) <= after  # no earlier day was still to come
    local = due.astimezone(z)
    assert local.date() == d
    shown = local.replace(tzinfo=None) - datetime.combine(d, at)
    if shown:  # only in a gap: shifted forward by the gap (an hour in these zones)
        assert shown == timedelta(hours=1)
        assert datetime.combine(d, at, tzinfo=z).replace(fold=0).astimezone(UTC).astimezone(z).time() != at
    # in a fold, the first occurrence: an hour earlier the clock did not show the same wall time
    assert (due - timedelta(hours=1)).astimezone(z).replace(tzinfo=None) != datetime.combine(d, at)


def test_seoul_has_no_dst_every_day_of_2026_is_22_utc():
    d = date(2026, 1, 1)
    while d.year == 2026:
        assert due_instant(d, time(7, 0), SEOUL) == datetime.combine(d, time(7, 0), tzinfo=UTC) - timedelta(
            hours=9
        )
        d += timedelta(days=1)
