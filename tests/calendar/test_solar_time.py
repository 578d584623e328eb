"""True solar time (spec/calendar.md §4) against skyfield's hour angle of the apparent Sun (DE440), here."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

import pytest

from engine.calendar import DayStart, SolarTime, equation_of_time, four_pillars
from engine.core.cycle import Branch
from engine.errors import EngineInputError


def _instants() -> list[tuple[datetime, float]]:
    rng = random.Random(1971)
    out = []
    for _ in range(60):
        seconds = rng.uniform(
            datetime(1900, 1, 2, tzinfo=UTC).timestamp(), datetime(2100, 12, 30, tzinfo=UTC).timestamp()
        )
        out.append((datetime.fromtimestamp(round(seconds), UTC), rng.uniform(-180.0, 180.0)))
    out.append((datetime(2024, 2, 4, 8, 27, 8, tzinfo=UTC), 126.98))  # Seoul
    return out


def test_apparent_solar_time_matches_the_hour_angle_of_the_sun(sky) -> None:  # type: ignore[no-untyped-def]
    worst = 0.0
    for at, lon in _instants():
        p = four_pillars(at.astimezone(timezone(timedelta(hours=9))), solar_longitude=lon)
        local = p.local
        ours = (local.hour * 3600 + local.minute * 60 + local.second + local.microsecond / 1e6) / 3600.0
        expected = sky.apparent_solar_hours(at, lon)
        diff = ((ours - expected + 12.0) % 24.0 - 12.0) * 3600.0
        worst = max(worst, abs(diff))
    print("worst LAT error s", worst)
    assert worst < 1.0, worst


def test_equation_of_time_extremes_as_the_spec_states() -> None:
    # spec §4: −14.2 min mid-February, +16.4 min early November
    feb = min(equation_of_time(datetime(2024, 2, d, tzinfo=UTC).timestamp()) for d in range(1, 29))
    nov = max(equation_of_time(datetime(2024, 11, d, tzinfo=UTC).timestamp()) for d in range(1, 15))
    assert -14.3 * 60 < feb < -14.1 * 60
    assert 16.3 * 60 < nov < 16.5 * 60


def test_mean_solar_time_is_ut1_plus_longitude(sky) -> None:  # type: ignore[no-untyped-def]
    for at in (datetime(2024, 2, 4, 14, 0, tzinfo=UTC), datetime(1990, 7, 1, 3, 0, tzinfo=UTC)):
        p = four_pillars(at, solar_longitude=126.98, solar_time=SolarTime.MEAN)
        dut1 = float(sky.ts.from_datetime(at).dut1)  # UT1 − UTC from skyfield's IERS table
        expected = timedelta(seconds=126.98 * 240 + dut1)
        assert abs((p.local.utcoffset() - expected).total_seconds()) < 0.005
        assert p.local.replace(tzinfo=None, microsecond=0) == (at + expected).replace(
            tzinfo=None, microsecond=0
        )
    before_1972 = four_pillars(
        datetime(1960, 1, 1, tzinfo=UTC), solar_longitude=-90.0, solar_time=SolarTime.MEAN
    )
    assert before_1972.local.utcoffset() == timedelta(hours=-6)  # civil time is UT1 before 1972
    # spec §4: Seoul on a +9 clock runs ≈ 32 min ahead of mean solar time
    assert abs(timedelta(hours=9) - p.local.utcoffset() - timedelta(minutes=32, seconds=4.8)) < timedelta(
        seconds=1
    )


def test_solar_time_moves_day_and_hour_only(sky) -> None:  # type: ignore[no-untyped-def]
    # Find the instant when apparent solar time at 126.98°E reaches 23:00 on 2024-02-10, from skyfield.
    lon = 126.98
    guess = datetime(2024, 2, 10, 14, 0, tzinfo=UTC) - timedelta(seconds=lon * 240)
    at = guess
    for _ in range(5):
        hours = sky.apparent_solar_hours(at, lon)
        at = at - timedelta(seconds=((hours - 23.0 + 12.0) % 24.0 - 12.0) * 3600.0)
    before = four_pillars(at - timedelta(seconds=2), solar_longitude=lon)
    after = four_pillars(at + timedelta(seconds=2), solar_longitude=lon)
    assert (before.hour_branch, after.hour_branch) == (Branch.HAI, Branch.ZI)
    assert before.day.shift(1) == after.day  # 子初換日 at 23:00 LAT
    midnight_rule = four_pillars(at + timedelta(seconds=2), DayStart.MIDNIGHT, solar_longitude=lon)
    assert midnight_rule.day == before.day and midnight_rule.hour == after.hour
    civil = four_pillars(at + timedelta(seconds=2))
    assert (civil.year, civil.month, civil.month_general, civil.term) == (
        after.year,
        after.month,
        after.month_general,
        after.term,
    )


@pytest.mark.parametrize("lon", [181.0, -180.5, float("nan"), float("inf")])
def test_bad_longitude(lon: float) -> None:
    with pytest.raises(EngineInputError) as err:
        four_pillars(datetime(2024, 1, 1, tzinfo=UTC), solar_longitude=lon)
    assert err.value.code == "error.calendar.bad_longitude"
