"""Local solar time: apparent (true) solar time via a tabulated equation of time, or local mean time.

LAT = UT + λ/15 h + EoT (spec/calendar.md §4), EoT = apparent − mean solar time. EoT comes from
``data/eot.txt``: 12 h + Greenwich hour angle of the geocentric apparent Sun − UT1, computed with skyfield and
JPL DE440 by ``scripts/gen_terms.py`` every two days (milliseconds) and interpolated here with a four-point
(cubic) Lagrange formula; interpolation error < 0.01 s. Civil time is turned into UT1 first: in the UTC era
(1972 to the end of skyfield's IERS table) UT1 − UTC = 32.184 s + (TAI − UTC) − ΔT from the tabulated ΔT and
the leap seconds in the metadata; elsewhere civil time is UT1 by the table's policy. Mean time = UT1 + λ/15 h.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum
from functools import cache

from engine.calendar.terms import metadata
from engine.datafiles import read_text
from engine.errors import EngineInputError


class SolarTime(Enum):
    """Which solar clock replaces the civil wall clock for the day and hour pillars."""

    APPARENT = "apparent"  # 真太陽時: mean time + equation of time
    MEAN = "mean"  # 平太陽時 (local mean time): UT + longitude / 15 h


@dataclass(frozen=True, slots=True)
class EotGrid:
    start: float
    step: float
    eot: tuple[float, ...]  # seconds
    delta_t: tuple[float, ...]  # seconds
    utc_start: float
    utc_end: float
    leap_from: tuple[int, ...]
    leap_offset: tuple[int, ...]


@cache
def _grid() -> EotGrid:
    meta = metadata()
    info = meta["eot"]
    text = read_text("engine.calendar", info["file"])
    numbers = [int(v) / 1000.0 for v in text.split()]
    leaps = meta["leap_seconds"]["rows"]
    return EotGrid(
        float(info["start_unix"]),
        float(info["step_s"]),
        tuple(numbers[0::2]),
        tuple(numbers[1::2]),
        float(leaps[0][0]),
        float(meta["utc_end_unix"]),
        tuple(int(r[0]) for r in leaps),
        tuple(int(r[1]) for r in leaps),
    )


def _cubic(values: tuple[float, ...], x: float) -> float:
    """Four-point Lagrange interpolation on a unit grid at fractional index x."""
    j = math.floor(x)
    if j < 1 or j + 2 >= len(values):
        raise EngineInputError("error.calendar.out_of_range", f"outside the solar-time table: {x}", value=x)
    u = x - j
    y0, y1, y2, y3 = values[j - 1], values[j], values[j + 1], values[j + 2]
    return (
        -u * (u - 1) * (u - 2) / 6 * y0
        + (u + 1) * (u - 1) * (u - 2) / 2 * y1
        - (u + 1) * u * (u - 2) / 2 * y2
        + (u + 1) * u * (u - 1) / 6 * y3
    )


def equation_of_time(seconds: float) -> float:
    """EoT (apparent − mean solar time) in seconds at POSIX ``seconds`` (1899-12-03 … 2101-01-29)."""
    g = _grid()
    return _cubic(g.eot, (seconds - g.start) / g.step)


def ut1_minus_civil(seconds: float) -> float:
    """UT1 − civil time in seconds: 32.184 + (TAI − UTC) − ΔT in the UTC era, else 0 (civil time is UT1)."""
    g = _grid()
    if not g.utc_start <= seconds < g.utc_end:
        return 0.0
    tai_minus_utc = g.leap_offset[bisect_right(g.leap_from, seconds) - 1]
    return 32.184 + tai_minus_utc - _cubic(g.delta_t, (seconds - g.start) / g.step)


def check_longitude(longitude: float) -> float:
    value = float(longitude)
    if not math.isfinite(value) or not -180.0 <= value <= 180.0:
        raise EngineInputError(
            "error.calendar.bad_longitude",
            f"longitude must be within -180..180: {longitude}",
            value=longitude,
        )
    return value


def solar_offset(seconds: float, longitude: float, kind: SolarTime = SolarTime.APPARENT) -> float:
    """Solar time minus UTC, in seconds, at POSIX ``seconds`` for an east-positive longitude in degrees."""
    offset = check_longitude(longitude) * 240.0 + ut1_minus_civil(seconds)
    if kind is SolarTime.APPARENT:
        offset += equation_of_time(seconds)
    return offset


def solar_clock(instant: datetime, longitude: float, kind: SolarTime = SolarTime.APPARENT) -> datetime:
    """The instant on the local solar clock, as an aware datetime whose UTC offset is the solar offset."""
    seconds = instant.timestamp()
    offset = solar_offset(seconds, longitude, kind)
    name = "LAT" if kind is SolarTime.APPARENT else "LMT"
    return instant.astimezone(timezone(timedelta(seconds=round(offset, 6)), name))
