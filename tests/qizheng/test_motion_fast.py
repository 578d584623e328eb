"""#18 item 4 after #16: the station (留) and eclipse (蝕, seed 004 ¶28 「陰陽晦蝕以無光」) searches of the
chart take the fast path (screens by Taylor bounds, instants sampled together, roots refined from a guess);
their results must be those of the slow reference search kept in ``tests/qizheng/reference_motion.py`` (the
search before the fast path: one full ``compute_tt`` per instant, false position from the t ± W brackets).

The births: 500 drawn at random 1900–2100, and dense grids around real stations and eclipses (NASA's catalogue,
Espenak: total solar 2009-07-22 and 2024-04-08, total lunar 2018-07-27; 水星 stations 1990-05 and 2024-04), so
that stations and eclipses are actually compared, not only their absence.
"""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest

from engine.qizheng import ephemeris as eph
from engine.qizheng import motion, tables

from . import reference_motion as ref

TOL_DAYS = 1e-5  # the false-position tolerance of both searches


def _births() -> list[datetime]:
    rng = random.Random(18)
    start = datetime(1900, 1, 1, tzinfo=UTC)
    span = (datetime(2100, 12, 31, tzinfo=UTC) - start).total_seconds()
    out = [start + timedelta(seconds=rng.uniform(0, span)) for _ in range(500)]
    for first, days, step_h in (
        (datetime(2024, 3, 28, tzinfo=UTC), 32, 7.3),  # 水星 stations 04-01, 04-25; solar eclipse 04-08
        (datetime(1990, 5, 14, tzinfo=UTC), 6, 3.1),  # 水星 station 05-17 (issue 16)
        (datetime(2009, 7, 20, 12, tzinfo=UTC), 3, 1.9),  # total solar eclipse 07-22 02:35 UT
        (datetime(2018, 7, 26, 8, tzinfo=UTC), 3, 1.9),  # total lunar eclipse 07-27 20:22 UT
    ):
        n = int(days * 24 / step_h)
        out += [first + timedelta(hours=step_h * k) for k in range(n)]
    return out


BIRTHS = _births()


@pytest.fixture(scope="module")
def compared() -> list[tuple[datetime, eph.RawPositions, tuple, tuple]]:
    rows = []
    for at in BIRTHS:
        raw = eph.compute(at)
        fast = motion.of_birth(raw)
        slow = (
            ref.stations(raw.jd_tt, raw.jd_ut, raw.speeds),
            ref.eclipse_near(raw.jd_tt, raw.jd_ut, raw),
        )
        # the reference's own screen drops no station either
        assert slow[0] == ref.stations(raw.jd_tt, raw.jd_ut, raw.speeds, screen=False), at
        rows.append((at, raw, fast, slow))
    return rows


def test_the_sample_holds_stations_and_eclipses(compared):
    n_stations = sum(len(slow[0]) for _, _, _, slow in compared)
    kinds = {slow[1].kind for _, _, _, slow in compared if slow[1] is not None}
    assert len(compared) >= 500 + 150 and n_stations >= 40 and kinds == {"solar", "lunar"}


def test_motion_is_that_of_the_reference(compared):
    for at, raw, (fast_st, _), (slow_st, _) in compared:
        assert fast_st.keys() == slow_st.keys(), at
        for name in motion.PLANETS:
            label = motion.motion_of(raw.speeds[name], fast_st.get(name))
            assert label == ref.motion_of(raw.speeds[name], slow_st.get(name)), (at, name)
        for name, st in fast_st.items():
            assert abs(st.jd_tt - slow_st[name].jd_tt) <= TOL_DAYS, (at, name)
            assert abs(st.days - slow_st[name].days) <= TOL_DAYS, (at, name)


def test_eclipses_are_those_of_the_reference(compared):
    for at, _, (_, fast), (_, slow) in compared:
        assert (fast is None) == (slow is None), at
        if fast is None or slow is None:
            continue
        assert fast.kind == slow.kind and fast.limit == slow.limit, at
        assert abs(fast.jd_tt - slow.jd_tt) <= TOL_DAYS, at
        # the Moon's latitude moves < 1.4°/day, so a 1e-5-day difference of the syzygy moves it < 2e-5°
        assert abs(fast.moon_latitude - slow.moon_latitude) <= 2e-5, at


def test_the_bracketing_searches_are_those_of_the_reference(compared):
    """The fallbacks of the fast path (``motion.stations``, ``motion.eclipse_near``) on their own."""
    for k, (at, raw, _, (slow_st, slow_ec)) in enumerate(compared):
        if not slow_st and slow_ec is None and k % 7:
            continue  # every birth with a station or an eclipse, and one in seven of the others
        st = motion.stations(raw.jd_tt, raw.jd_ut, raw.speeds, accelerations=raw.accelerations)
        assert st.keys() == slow_st.keys(), at
        assert all(abs(st[n].jd_tt - slow_st[n].jd_tt) <= TOL_DAYS for n in st), at
        ec = motion.eclipse_near(raw.jd_tt, raw.jd_ut, raw)
        assert (ec is None) == (slow_ec is None), at
        if ec is not None and slow_ec is not None:
            assert ec.kind == slow_ec.kind and abs(ec.jd_tt - slow_ec.jd_tt) <= TOL_DAYS, at
            assert abs(ec.moon_latitude - slow_ec.moon_latitude) <= 2e-5, at


def test_the_fast_roots_are_roots(compared):
    """Each station and syzygy of the fast path is a sign change of the speed / elongation within 1e-6 day
    (the reference stops at 1e-5), e.g. issue 16's 水星 留 of 1990-05-17 14:30 KST."""
    checked = 0
    for at, _, (fast_st, fast_ec), _ in compared:
        for name, st in fast_st.items():
            before, after = eph.motion_samples((st.jd_tt - 1e-6, st.jd_tt + 1e-6))
            assert (before.speeds[name] < 0) != (after.speeds[name] < 0), (at, name)
            checked += 1
        if fast_ec is not None:
            target = 0.0 if fast_ec.kind == "solar" else 180.0
            before, after = eph.motion_samples((fast_ec.jd_tt - 1e-6, fast_ec.jd_tt + 1e-6))
            e = [motion._elongation(s.longitudes, target) for s in (before, after)]
            assert (e[0] < 0) != (e[1] < 0), at
    assert checked >= 40


def test_motion_samples_are_compute_tt():
    """The lean sample of the searches reads the same chain as the chart: identical numbers at one instant."""
    for jd in (2415030.3, 2447999.71, 2488000.05):
        full, lean = eph.compute_tt(jd, jd), eph.motion_sample(jd)
        assert lean.longitudes == {n: full.longitudes[n] for n in eph.SEVEN}
        assert lean.speeds == {n: full.speeds[n] for n in eph.SEVEN}
        assert lean.true_node == full.longitudes["true_node"]
        # several instants at once agree with one at a time to rounding
        pair = eph.motion_samples((jd, jd + 0.37))
        again = eph.motion_sample(jd + 0.37)
        for name in eph.SEVEN:
            assert math.isclose(pair[0].speeds[name], lean.speeds[name], rel_tol=0, abs_tol=1e-9)
            assert math.isclose(pair[1].longitudes[name], again.longitudes[name], rel_tol=0, abs_tol=1e-9)


@pytest.mark.parametrize("planet", motion.PLANETS)
def test_jerk_bound_of_the_screen_holds_at_stations(planet):
    """rules.json station.max_jerk bounds |d³λ/dt³| within the window of a station (the screen's premise),
    checked with the engine's own apparent speed at the first station after 2030-01-01."""
    rule = tables.rules()["station"]
    jerk = float(rule["max_jerk"][planet])
    t = 2462502.5  # 2030-01-01
    v = eph.motion_sample(t).speeds[planet]
    while (eph.motion_sample(t + 4.0).speeds[planet] < 0) == (v < 0):
        t += 4.0
    w = float(rule["window_days"])
    h = 0.25
    grid = [t + k * h for k in range(int(-w / h), int((4.0 + w) / h) + 1)]
    speeds = [s.speeds[planet] for s in eph.motion_samples(grid)]
    second = [(speeds[k + 1] - 2 * speeds[k] + speeds[k - 1]) / h**2 for k in range(1, len(speeds) - 1)]
    assert max(abs(x) for x in second) <= jerk


def test_the_screen_skips_the_fast_planets():
    """At a birth far from any station (水星 direct five weeks after its 1990-05-17 station) no planet is
    searched, while the unscreened search agrees that none has a station."""
    at = datetime(1990, 6, 20, 3, 0, tzinfo=UTC)
    raw = eph.compute(at)
    w = motion.station_window_days()
    assert motion.may_station(raw.speeds, raw.accelerations, w) == ()
    assert motion.stations(raw.jd_tt, raw.jd_ut, raw.speeds, screen=False) == {}


def test_a_failed_bound_falls_back_to_the_bracketing_search(monkeypatch):
    """With a jerk bound far too small the probe interval misses the station: the bracketing search must
    still find it (issue 16's 水星 留, 1990-05-17 14:30 KST)."""
    at = datetime(1990, 5, 17, 5, 30, tzinfo=UTC)
    raw = eph.compute(at)
    expected = ref.stations(raw.jd_tt, raw.jd_ut, raw.speeds)
    rule = motion.station_rule()
    monkeypatch.setitem(rule, "max_jerk", dict.fromkeys(motion.PLANETS, 0.0))
    monkeypatch.setitem(rule, "screen_epsilon", 1e-12)
    found = motion.of_birth(raw)[0]
    assert found.keys() == expected.keys() == {"水星"}
    assert abs(found["水星"].jd_tt - expected["水星"].jd_tt) <= TOL_DAYS
