"""Motion over time from the ephemeris: 順 · 逆 · 留 of the five planets and the eclipse (蝕) at a birth.

Both are read from ``ephemeris.compute_tt`` only (positions and central-difference speeds at an instant):

- **留 (station)**: a station is a root of the speed dλ/dt. The speed is sampled at t − W, t and t + W; a sign
  change on either side brackets a station, which is then found by bisection on the speed to 1e-5 day. A planet
  is 留 when a station lies within the window W of the birth, otherwise 順 (speed > 0) or 逆 (speed < 0).
  W comes from ``data/rules.json`` ``station`` (no classical number in the seeds or the spec: see there).
- **蝕 (seed 004 ¶28 「陰陽晦蝕以無光…日月遇蝕」)**: the syzygy (new or full moon) nearest the birth, found by
  bisection on the elongation λ☾ − λ☉; an eclipse if the Moon's latitude there, β = asin(sin i · sin(λ☾ − Ω))
  with the osculating node Ω, is inside the mean eclipse limit (``rules.json`` ``eclipse``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.qizheng import ephemeris, tables

PLANETS = ("水星", "金星", "火星", "木星", "土星")
SHUN, NI, LIU = "順", "逆", "留"
_TOL_DAYS = 1e-5


@dataclass(frozen=True, slots=True)
class Station:
    body: str
    jd_tt: float
    days: float  # station − birth, in days

    def to_json(self) -> dict[str, Any]:
        return {"jd_tt": round(self.jd_tt, 5), "days": round(self.days, 4)}


@dataclass(frozen=True, slots=True)
class Eclipse:
    kind: str  # "solar" (new moon) or "lunar" (full moon)
    jd_tt: float  # the syzygy
    days: float  # syzygy − birth
    moon_latitude: float  # degrees, at the syzygy
    limit: float  # degrees

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "jd_tt": round(self.jd_tt, 5),
            "days": round(self.days, 4),
            "moon_latitude": round(self.moon_latitude, 4),
            "limit": self.limit,
        }


@cache
def station_rule() -> dict[str, Any]:
    rule: dict[str, Any] = tables.rules()["station"]
    return rule


def station_window_days() -> float:
    return float(station_rule()["window_days"])


def motion_of(speed: float, station: Station | None) -> str:
    if station is not None:
        return LIU
    return SHUN if speed >= 0 else NI


def _bisect(f: Callable[[float], float], a: float, b: float, fa: float) -> float:
    while b - a > _TOL_DAYS:
        m = 0.5 * (a + b)
        fm = f(m)
        if (fm < 0) == (fa < 0):
            a, fa = m, fm
        else:
            b = m
    return 0.5 * (a + b)


def _sampler(jd_tt: float, jd_ut: float) -> Callable[[float], ephemeris.RawPositions]:
    delta = jd_tt - jd_ut

    @cache
    def at(t: float) -> ephemeris.RawPositions:
        return ephemeris.compute_tt(t, t - delta)

    return at


def _speed_of(at: Callable[[float], ephemeris.RawPositions], name: str) -> Callable[[float], float]:
    return lambda t: at(t).speeds[name]


def _elongation_of(at: Callable[[float], ephemeris.RawPositions], target: float) -> Callable[[float], float]:
    return lambda t: _elongation(at(t), target)


def stations(jd_tt: float, jd_ut: float, speeds: dict[str, float]) -> dict[str, Station]:
    """Stations of the five planets within the window of the instant (root of the speed, by bisection)."""
    w = station_window_days()
    at = _sampler(jd_tt, jd_ut)
    before, after = at(jd_tt - w).speeds, at(jd_tt + w).speeds
    out: dict[str, Station] = {}
    for name in PLANETS:
        v0 = speeds[name]
        if (before[name] < 0) != (v0 < 0):
            a, b, fa = jd_tt - w, jd_tt, before[name]
        elif (after[name] < 0) != (v0 < 0):
            a, b, fa = jd_tt, jd_tt + w, v0
        else:
            continue
        root = _bisect(_speed_of(at, name), a, b, fa)
        out[name] = Station(name, root, root - jd_tt)
    return out


def _elongation(raw: ephemeris.RawPositions, target: float) -> float:
    """λ☾ − λ☉ − target, wrapped to (−180°, 180°]."""
    e = raw.longitudes["太陰"] - raw.longitudes["太陽"] - target
    return (e + 180.0) % 360.0 - 180.0


def eclipse_near(jd_tt: float, jd_ut: float, raw: ephemeris.RawPositions) -> Eclipse | None:
    """The eclipse whose syzygy lies within ``rules.json`` ``eclipse.window_days`` of the instant, if any."""
    rule = tables.rules()["eclipse"]
    window = float(rule["window_days"])
    at = _sampler(jd_tt, jd_ut)
    for kind, target in (("solar", 0.0), ("lunar", 180.0)):
        e0 = _elongation(raw, target)
        rate = raw.speeds["太陰"] - raw.speeds["太陽"]  # ≈ 11–15 °/day
        if abs(e0) > rate * (window + 0.5):
            continue
        a, b = jd_tt - window - 0.5, jd_tt + window + 0.5
        fa, fb = _elongation(at(a), target), _elongation(at(b), target)
        if (fa < 0) == (fb < 0):
            continue
        t = _bisect(_elongation_of(at, target), a, b, fa)
        if abs(t - jd_tt) > window:
            continue
        syz = at(t)
        node = syz.longitudes["true_node"]
        incl = math.radians(float(rule["inclination_deg"]))
        beta = math.degrees(math.asin(math.sin(incl) * math.sin(math.radians(syz.longitudes["太陰"] - node))))
        limit = float(rule["limits_deg"][kind])
        if abs(beta) <= limit:
            return Eclipse(kind, t, t - jd_tt, beta, limit)
    return None
