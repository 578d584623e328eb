"""Motion over time from the ephemeris: 順 · 逆 · 留 of the five planets and the eclipse (蝕) at a birth.

Both read the apparent longitudes and central-difference speeds of ``ephemeris.compute_tt`` (at the birth)
and of the same chain at other instants (``ephemeris.motion_samples``, ``ephemeris.probe_samples``: without
the chart-only extras, several instants in one vectorised evaluation):

- **留 (station)**: a station is a root of the speed dλ/dt. The rule is that of the bracketing search
  (:func:`stations`): the speed sampled at t − W and t + W, a sign change on either side brackets a station.
  A planet is 留 when a station lies within the window W of the birth, otherwise 順 (speed > 0) or 逆
  (speed < 0). W comes from ``data/rules.json`` ``station`` (no classical number in the seeds or the spec:
  see there). **Screen** (no sampling where a station is impossible): by Taylor's theorem a root of v at
  t + d, |d| ≤ W, needs |v(t)| ≤ |a(t)|·W + J·W²/2 + ε, with a the acceleration at the birth (second
  difference of the longitude) and J a bound on |d³λ/dt³| within W of a station (``rules.json``
  ``station.max_jerk``); ε covers the difference between a and the derivative of the sampled speed.
- **蝕 (seed 004 ¶28 「陰陽晦蝕以無光…日月遇蝕」)**: the syzygy (new or full moon) nearest the birth, the root of
  the elongation e = λ☾ − λ☉ (− 180° for the full moon) within ±(W_e + ½) day (only when the Sun is within the
  screen of a node); an eclipse if it lies within W_e and the Moon's latitude there, β = asin(sin i ·
  sin(λ☾ − Ω)) with the osculating node Ω, is inside the mean eclipse limit (``rules.json`` ``eclipse``).
  **Screen**: a syzygy within W_e needs |e(t)| ≤ ė(t)·W_e + Ë·W_e²/2 + ε, with Ë a bound on |d²e/dt²|
  (``eclipse.max_elongation_acceleration``).

:func:`of_birth` (the chart's entry) solves every screened root from one vectorised evaluation of three
probes in the interval the same bound allows, and falls back to the bracketing searches (:func:`stations`,
:func:`eclipse_near`) where the bound gives no short interval or the probes contradict it. The results are
those of the search before this fast path (``tests/qizheng/test_motion_fast.py`` compares them, on 725
births, with that search kept in ``tests/qizheng/reference_motion.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.qizheng import ephemeris, tables

PLANETS = ("水星", "金星", "火星", "木星", "土星")
SHUN, NI, LIU = "順", "逆", "留"
_TOL_DAYS = 1e-5
REFINE_DAYS = 2e-3  # half-width of the probe pair around a guessed root


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


def _root(
    f: Callable[[float], float], a: float, b: float, fa: float, fb: float, tol: float = _TOL_DAYS
) -> float:
    """A root of ``f`` bracketed by [a, b] (signs of fa, fb differ): false position with the Illinois step."""
    side = 0
    c = a
    for _ in range(60):
        c = (a * fb - b * fa) / (fb - fa)
        fc = f(c)
        if abs(b - a) < tol or fc == 0.0:
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
        if abs(b - a) < tol:
            break
    return c


class Sampler:
    """Motion samples at TT instants for one chart, each instant computed once; the instants asked together
    are evaluated in one vectorised call (``ephemeris.motion_samples``)."""

    __slots__ = ("_memo",)

    def __init__(self) -> None:
        self._memo: dict[float, ephemeris.MotionSample] = {}

    def many(self, instants: Sequence[float]) -> list[ephemeris.MotionSample]:
        missing = [t for t in dict.fromkeys(instants) if t not in self._memo]
        if missing:
            self._memo.update(zip(missing, ephemeris.motion_samples(missing)))
        return [self._memo[t] for t in instants]

    def __call__(self, t: float) -> ephemeris.MotionSample:
        return self.many((t,))[0]

    def samples(self) -> list[ephemeris.MotionSample]:
        return list(self._memo.values())


@dataclass(frozen=True, slots=True)
class _Bracket:
    """A sign change of ``f`` on [a, b] and a guess of its root."""

    f: Callable[[ephemeris.MotionSample], float]
    a: float
    b: float
    fa: float
    fb: float
    guess: float


def _hermite_root(
    t: float, w: float, f0: float, d0: float, fm: float, fp: float, a: float, b: float
) -> float:
    """Root in [a, b] of the cubic through f(t − w) = fm, f(t) = f0, f(t + w) = fp with f′(t) = d0."""
    c2 = (fp + fm - 2.0 * f0) / (2.0 * w * w)
    c3 = ((fp - fm) / (2.0 * w) - d0) / (w * w)

    def cubic(x: float) -> float:
        d = x - t
        return f0 + d * (d0 + d * (c2 + d * c3))

    pa, pb = cubic(a), cubic(b)
    if (pa < 0) == (pb < 0):
        return 0.5 * (a + b)
    return _root(cubic, a, b, pa, pb, tol=1e-9)


def _solve(at: Sampler, brackets: dict[str, _Bracket]) -> dict[str, float]:
    """The root of each bracket: its function at guess ∓ REFINE_DAYS, all in one evaluation; a sign change
    there gives the root by linear interpolation (error ≈ f″·δ²/(8 f′) < 1e-7 day); otherwise false position
    on the part of the bracket that holds it."""
    probes: list[float] = []
    for br in brackets.values():
        probes += [max(br.a, br.guess - REFINE_DAYS), min(br.b, br.guess + REFINE_DAYS)]
    samples = at.many(probes)
    out: dict[str, float] = {}
    for k, (key, br) in enumerate(brackets.items()):
        lo, hi = probes[2 * k], probes[2 * k + 1]
        flo, fhi = br.f(samples[2 * k]), br.f(samples[2 * k + 1])
        if (flo < 0) != (fhi < 0):
            out[key] = lo + (hi - lo) * flo / (flo - fhi)
            continue

        def fun(t: float, br: _Bracket = br) -> float:
            return br.f(at(t))

        if (flo < 0) == (br.fa < 0):
            out[key] = _root(fun, hi, br.b, fhi, br.fb)
        else:
            out[key] = _root(fun, br.a, lo, br.fa, flo)
    return out


def slow(speeds: Mapping[str, float], window: float) -> tuple[str, ...]:
    """The planets slow enough to have a station within ``window`` days: |v| ≤ 2 · max|dv/dt| · window
    (``rules.json`` ``station.max_acceleration``), for callers that know the speed only."""
    acc = station_rule()["max_acceleration"]
    return tuple(n for n in PLANETS if abs(speeds[n]) <= 2.0 * float(acc[n]) * window)


def may_station(
    speeds: Mapping[str, float], accelerations: Mapping[str, float], window: float
) -> tuple[str, ...]:
    """The planets that can have a station within ``window`` days: |v| ≤ |a|·W + J·W²/2 + ε (Taylor's
    theorem with the bound J of ``rules.json`` ``station.max_jerk``, ε = ``station.screen_epsilon``)."""
    rule = station_rule()
    jerk, eps = rule["max_jerk"], float(rule["screen_epsilon"])
    return tuple(
        n
        for n in PLANETS
        if abs(speeds[n]) <= abs(accelerations[n]) * window + 0.5 * float(jerk[n]) * window * window + eps
    )


def stations(
    jd_tt: float,
    jd_ut: float,
    speeds: Mapping[str, float],
    screen: bool = True,
    accelerations: Mapping[str, float] | None = None,
    at: Sampler | None = None,
    only: tuple[str, ...] = PLANETS,
) -> dict[str, Station]:
    """Stations of the five planets within the window of the instant (root of the speed, bracketed).

    With ``screen``, only the planets that can have one are searched (:func:`may_station` when the
    accelerations are given, otherwise :func:`slow`). ``jd_ut`` is not used (kept for callers)."""
    w = station_window_days()
    if not screen:
        names = only
    elif accelerations is None:
        names = tuple(n for n in slow(speeds, w) if n in only)
    else:
        names = tuple(n for n in may_station(speeds, accelerations, w) if n in only)
    if not names:
        return {}
    at = at or Sampler()
    before, after = at.many((jd_tt - w, jd_tt + w))
    brackets: dict[str, _Bracket] = {}
    for name in names:
        v0, vm, vp = speeds[name], before.speeds[name], after.speeds[name]
        if (vm < 0) != (v0 < 0):
            a, b, fa, fb = jd_tt - w, jd_tt, vm, v0
        elif (vp < 0) != (v0 < 0):
            a, b, fa, fb = jd_tt, jd_tt + w, v0, vp
        else:
            continue
        slope = accelerations[name] if accelerations is not None else (vp - vm) / (2.0 * w)
        guess = _hermite_root(jd_tt, w, v0, slope, vm, vp, a, b)
        brackets[name] = _Bracket(_speed_reader(name), a, b, fa, fb, guess)
    return {name: Station(name, t, t - jd_tt) for name, t in _solve(at, brackets).items()}


def _elongation(longitudes: Mapping[str, float], target: float) -> float:
    """λ☾ − λ☉ − target, wrapped to (−180°, 180°]."""
    e = longitudes["太陰"] - longitudes["太陽"] - target
    return (e + 180.0) % 360.0 - 180.0


def _speed_reader(name: str) -> Callable[[ephemeris.MotionSample], float]:
    return lambda sample: sample.speeds[name]


def _elongation_reader(target: float) -> Callable[[ephemeris.MotionSample], float]:
    return lambda sample: _elongation(sample.longitudes, target)


def eclipse_near(
    jd_tt: float, jd_ut: float, raw: ephemeris.RawPositions, at: Sampler | None = None
) -> Eclipse | None:
    """The eclipse whose syzygy lies within ``rules.json`` ``eclipse.window_days`` of the instant, if any.

    ``jd_ut`` is not used (kept for callers)."""
    rule = tables.rules()["eclipse"]
    window = float(rule["window_days"])
    # the Sun must be near a node: eclipse limits in longitude are below the screen (rules.json eclipse)
    sun_node = (raw.longitudes["太陽"] - raw.longitudes["true_node"]) % 180.0
    if min(sun_node, 180.0 - sun_node) > float(rule["sun_node_screen_deg"]):
        return None
    rate = raw.speeds["太陰"] - raw.speeds["太陽"]  # ≈ 11–15 °/day
    # a syzygy within the window: |e| ≤ ė·W + Ë·W²/2 + ε (Taylor), else no search
    reach = rate * window + 0.5 * float(rule["max_elongation_acceleration"]) * window * window
    reach += float(rule["screen_epsilon_deg"])
    half = window + 0.5  # the bracket: the syzygy nearest the birth lies within it
    for kind, target in (("solar", 0.0), ("lunar", 180.0)):
        e0 = _elongation(raw.longitudes, target)
        if abs(e0) > min(reach, rate * half):
            continue
        at = at or Sampler()
        before, after = at.many((jd_tt - half, jd_tt + half))
        read = _elongation_reader(target)
        fa, fb = read(before), read(after)
        if (fa < 0) == (fb < 0):
            continue
        guess = _hermite_root(jd_tt, half, e0, rate, fa, fb, jd_tt - half, jd_tt + half)
        bracket = _Bracket(read, jd_tt - half, jd_tt + half, fa, fb, guess)
        t = _solve(at, {kind: bracket})[kind]
        if abs(t - jd_tt) > window:
            continue
        moon, node = _at_root(at, t)
        found = _eclipse_at(kind, t, t - jd_tt, moon, node, rule)
        if found is not None:
            return found
    return None


def _at_root(at: Sampler, t: float) -> tuple[float, float]:
    """λ☾ and the osculating node at ``t``: interpolated between the two probes of :func:`_solve` around it
    when they are sampled (error ≈ λ″·δ²/8 < 1e-6°), otherwise sampled at ``t``."""
    near = [s for s in at.samples() if abs(s.jd_tt - t) <= REFINE_DAYS]
    lo = max((s for s in near if s.jd_tt <= t), key=lambda s: s.jd_tt, default=None)
    hi = min((s for s in near if s.jd_tt >= t), key=lambda s: s.jd_tt, default=None)
    if lo is None or hi is None or hi.jd_tt == lo.jd_tt:
        sample = at(t)
        return sample.longitudes["太陰"], sample.true_node
    x = (t - lo.jd_tt) / (hi.jd_tt - lo.jd_tt)

    def lerp(a: float, b: float) -> float:
        return a + x * ((b - a + 180.0) % 360.0 - 180.0)

    return lerp(lo.longitudes["太陰"], hi.longitudes["太陰"]), lerp(lo.true_node, hi.true_node)


@dataclass(frozen=True, slots=True)
class _Probe:
    """A root of ``read`` at t + d, known by a Taylor bound to lie in [lo, hi] (days from t) unless the bound
    fails; ``edge`` is the bracket edge of the unscreened search (±W for stations, ±(W_e + ½) for syzygies)."""

    key: str
    read: Callable[[ephemeris.MotionSample], float]
    lo: float
    hi: float
    edge: float

    def offsets(self) -> tuple[float, float, float]:
        return (self.lo, 0.5 * (self.lo + self.hi), self.hi)


def _interval(
    f0: float, slope: float, curvature: float, eps: float, edge: float
) -> tuple[float, float] | None:
    """Where f(t + d) = f0 + slope·d + r, |r| ≤ curvature·d²/2 + eps, can vanish, clipped to [−edge, edge]:
    |d − d₀| ≤ R/|slope| with d₀ = −f0/slope and R the remainder bound at |d₀| plus that margin.
    None when the interval is not short (a slow slope: the bracketing search decides)."""
    if abs(slope) * edge < 4.0 * (0.5 * curvature * edge * edge + eps):
        return None
    d0 = -f0 / slope
    first = (0.5 * curvature * edge * edge + eps) / abs(slope)
    reach = min(edge, abs(d0) + first)
    half = (0.5 * curvature * reach * reach + eps) / abs(slope)
    lo, hi = max(-edge, d0 - half), min(edge, d0 + half)
    if lo >= hi:
        return None
    return lo, hi


def _lagrange(xs: Sequence[float], ys: Sequence[float], x: float) -> float:
    """The polynomial through the points (xs, ys) at ``x``."""
    total = 0.0
    for i, (xi, yi) in enumerate(zip(xs, ys)):
        term = yi
        for j, xj in enumerate(xs):
            if j != i:
                term *= (x - xj) / (xi - xj)
        total += term
    return total


def of_birth(raw: ephemeris.RawPositions) -> tuple[dict[str, Station], Eclipse | None]:
    """The stations and the eclipse of the instant of ``raw``: the results of :func:`stations` and
    :func:`eclipse_near`, mostly from one vectorised evaluation.

    Each screened search (a planet, a syzygy) gets the interval where its root can lie by the same Taylor
    bound as its screen (:func:`_interval`) and three probes spanning it, all sampled together
    (``ephemeris.probe_samples``: the speeds at station probes, the places at syzygy probes); the root is that
    of the cubic through the probes and the birth (error < 1e-6 day, tests/qizheng/test_motion_fast.py). An
    interval clipped at the bracket edge reproduces the edge test of the bracketing search. Where the bound gives no short
    interval or the probes show no sign change where the bound says there is one, the bracketing search
    (:func:`stations`, :func:`eclipse_near`) decides.
    """
    jd_tt = raw.jd_tt
    rule, ecl = station_rule(), tables.rules()["eclipse"]
    w = float(rule["window_days"])
    probes: list[_Probe] = []
    classic_planets: list[str] = []
    for name in may_station(raw.speeds, raw.accelerations, w):
        iv = _interval(
            raw.speeds[name],
            raw.accelerations[name],
            float(rule["max_jerk"][name]),
            float(rule["screen_epsilon"]),
            w,
        )
        if iv is None:
            classic_planets.append(name)
        else:
            probes.append(_Probe(name, _speed_reader(name), iv[0], iv[1], w))
    window = float(ecl["window_days"])
    classic_eclipse = False
    for kind, target, iv in _syzygy_intervals(raw, ecl):
        if iv is None:
            classic_eclipse = True
        else:
            probes.append(_Probe(kind, _elongation_reader(target), iv[0], iv[1], window + 0.5))
    at = Sampler()
    speed_at = [jd_tt + d for p in probes if p.key in PLANETS for d in p.offsets()]
    place_at = [jd_tt + d for p in probes if p.key not in PLANETS for d in p.offsets()]
    by_speed: dict[float, ephemeris.MotionSample] = {}
    by_place: dict[float, ephemeris.MotionSample] = {}
    if probes:
        speed_samples, place_samples = ephemeris.probe_samples(speed_at, place_at)
        by_speed, by_place = dict(zip(speed_at, speed_samples)), dict(zip(place_at, place_samples))
    found: dict[str, Station] = {}
    eclipse: Eclipse | None = None
    here = ephemeris.MotionSample(
        jd_tt,
        {n: raw.longitudes[n] for n in ephemeris.SEVEN},
        {n: raw.speeds[n] for n in ephemeris.SEVEN},
        raw.longitudes["true_node"],
    )
    for p in probes:
        offsets = p.offsets()
        samples = by_speed if p.key in PLANETS else by_place
        got = [samples[jd_tt + d] for d in offsets]
        ys = [p.read(g) for g in got]
        f0 = p.read(here)
        nearest = min(range(len(offsets)), key=lambda k: abs(offsets[k]))
        bracket = next((k for k in range(len(ys) - 1) if (ys[k] < 0) != (ys[k + 1] < 0)), None)
        if bracket is None:
            # no root in [lo, hi]: beyond the bracket edge (the bracketing search stops there too) when the
            # interval was clipped and the probe nearest the birth has the birth's sign; else the bound failed
            clipped = p.lo <= -p.edge or p.hi >= p.edge
            if not clipped or (ys[nearest] < 0) != (f0 < 0):
                if p.key in PLANETS:
                    classic_planets.append(p.key)
                else:
                    classic_eclipse = True
            continue
        a, b = offsets[bracket], offsets[bracket + 1]
        interpolate = _interpolator(p, offsets, got, here)
        curve = interpolate(p.read)
        root = _root(curve, a, b, curve(a), curve(b), tol=1e-10)
        if p.key in PLANETS:
            found[p.key] = Station(p.key, jd_tt + root, root)
        elif abs(root) <= window and eclipse is None:
            moon = interpolate(_longitude_reader("太陰"), angle=True)(root)
            node = interpolate(_node_reader, angle=True)(root)
            eclipse = _eclipse_at(p.key, jd_tt + root, root, moon, node, ecl)
    if classic_planets:
        speeds = {n: raw.speeds[n] for n in PLANETS}
        found.update(stations(jd_tt, raw.jd_ut, speeds, screen=False, only=tuple(classic_planets), at=at))
    if classic_eclipse:
        eclipse = eclipse_near(jd_tt, raw.jd_ut, raw, at=at)
    return dict(sorted(found.items(), key=lambda kv: PLANETS.index(kv[0]))), eclipse


def _longitude_reader(name: str) -> Callable[[ephemeris.MotionSample], float]:
    return lambda sample: sample.longitudes[name]


def _node_reader(sample: ephemeris.MotionSample) -> float:
    return sample.true_node


def _interpolator(
    p: _Probe,
    offsets: Sequence[float],
    got: Sequence[ephemeris.MotionSample],
    here: ephemeris.MotionSample,
) -> Callable[..., Callable[[float], float]]:
    """A function of a reader giving the cubic of that quantity through the three probes and the birth (the
    birth left out when it is next to a probe). Angles are unwrapped from the birth's value."""

    def build(
        read: Callable[[ephemeris.MotionSample], float], angle: bool = False
    ) -> Callable[[float], float]:
        f0 = read(here)
        ys = [f0 + (read(g) - f0 + 180.0) % 360.0 - 180.0 if angle else read(g) for g in got]
        xs, vals = list(offsets), ys
        if min(abs(x) for x in offsets) > 1e-3:
            xs, vals = [*xs, 0.0], [*vals, f0]
        return lambda x: _lagrange(xs, vals, x)

    return build


def _syzygy_intervals(
    raw: ephemeris.RawPositions, rule: Mapping[str, Any]
) -> list[tuple[str, float, tuple[float, float] | None]]:
    """The syzygies that pass the screens of :func:`eclipse_near`, with the interval of their instant."""
    window = float(rule["window_days"])
    sun_node = (raw.longitudes["太陽"] - raw.longitudes["true_node"]) % 180.0
    if min(sun_node, 180.0 - sun_node) > float(rule["sun_node_screen_deg"]):
        return []
    rate = raw.speeds["太陰"] - raw.speeds["太陽"]
    acc, eps = float(rule["max_elongation_acceleration"]), float(rule["screen_epsilon_deg"])
    reach = min(rate * window + 0.5 * acc * window * window + eps, rate * (window + 0.5))
    out: list[tuple[str, float, tuple[float, float] | None]] = []
    for kind, target in (("solar", 0.0), ("lunar", 180.0)):
        e0 = _elongation(raw.longitudes, target)
        if abs(e0) <= reach:
            out.append((kind, target, _interval(e0, rate, acc, eps, window + 0.5)))
    return out


def _eclipse_at(
    kind: str, jd: float, days: float, moon: float, node: float, rule: Mapping[str, Any]
) -> Eclipse | None:
    incl = math.radians(float(rule["inclination_deg"]))
    beta = math.degrees(math.asin(math.sin(incl) * math.sin(math.radians(moon - node))))
    limit = float(rule["limits_deg"][kind])
    return Eclipse(kind, jd, days, beta, limit) if abs(beta) <= limit else None
