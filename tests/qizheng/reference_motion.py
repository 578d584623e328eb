"""The slow reference search for tests/qizheng/test_motion_fast.py: the station and eclipse search of
engine/qizheng/motion.py as it stood at bbdeee1 (before the fast path), kept verbatim below apart from this
docstring. Every instant it reads is a full ``ephemeris.compute_tt`` call, one at a time; stations are
bracketed by t ± W and found by false position, eclipses by false position on the elongation over t ± 1 day.

Original description:

Both are read from ``ephemeris.compute_tt`` only (positions and central-difference speeds at an instant):

- 留 (station): a station is a root of the speed dλ/dt. The speed is sampled at t − W, t and t + W; a sign
  change on either side brackets a station, which is then found by false position (Illinois) on the speed
  to 1e-5 day. Planets too fast to reach a station within W (|v| > 2 · max|dv/dt| · W) are not sampled.
- 蝕: the syzygy nearest the birth, found by false position on the elongation λ☾ − λ☉ (only when the Sun is
  within the screen of a node); an eclipse if the Moon's latitude there, β = asin(sin i · sin(λ☾ − Ω)), is
  inside the mean eclipse limit.
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


def _root(f: Callable[[float], float], a: float, b: float, fa: float, fb: float) -> float:
    """A root of ``f`` bracketed by [a, b] (signs of fa, fb differ): false position with the Illinois step."""
    side = 0
    c = a
    for _ in range(60):
        c = (a * fb - b * fa) / (fb - fa)
        fc = f(c)
        if abs(b - a) < _TOL_DAYS or fc == 0.0:
            break
        if (fc < 0) == (fb < 0):
            b, fb = c, fc
            if side == -1:
                fa *= 0.5
            side = -1
        else:
            a, fa = c, fc
            if side == 1:
                fb *= 0.5
            side = 1
        if abs(b - a) < _TOL_DAYS:
            break
    return c


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


def slow(speeds: dict[str, float], window: float) -> tuple[str, ...]:
    """The planets slow enough to have a station within ``window`` days: |v| ≤ 2 · max|dv/dt| · window
    (``rules.json`` ``station.max_acceleration``); the others cannot, so they are not sampled."""
    acc = station_rule()["max_acceleration"]
    return tuple(n for n in PLANETS if abs(speeds[n]) <= 2.0 * float(acc[n]) * window)


def stations(jd_tt: float, jd_ut: float, speeds: dict[str, float], screen: bool = True) -> dict[str, Station]:
    """Stations of the five planets within the window of the instant (root of the speed, bracketed)."""
    w = station_window_days()
    names = slow(speeds, w) if screen else PLANETS
    if not names:
        return {}
    at = _sampler(jd_tt, jd_ut)
    before, after = at(jd_tt - w).speeds, at(jd_tt + w).speeds
    out: dict[str, Station] = {}
    for name in names:
        v0 = speeds[name]
        if (before[name] < 0) != (v0 < 0):
            a, b, fa, fb = jd_tt - w, jd_tt, before[name], v0
        elif (after[name] < 0) != (v0 < 0):
            a, b, fa, fb = jd_tt, jd_tt + w, v0, after[name]
        else:
            continue
        root = _root(_speed_of(at, name), a, b, fa, fb)
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
    # the Sun must be near a node: eclipse limits in longitude are below the screen (rules.json eclipse)
    sun_node = (raw.longitudes["太陽"] - raw.longitudes["true_node"]) % 180.0
    if min(sun_node, 180.0 - sun_node) > float(rule["sun_node_screen_deg"]):
        return None
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
        t = _root(_elongation_of(at, target), a, b, fa, fb)
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
