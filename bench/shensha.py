"""Benchmark: cost of the 神煞 of one day (seed 000 stars + seed-002 tables).

Run: ``.venv/bin/python bench/shensha.py [--quick]``. No peer library computes these stars (see docs/shensha.md),
so only our own functions are timed.

Rows (median of rounds; microseconds per call):

- ``evaluate, cold``: ``evaluate(day, month, year, hour)`` with the result cache cleared before each call
  (all 183 rules evaluated);
- ``evaluate, cached``: the same arguments again (LRU hit);
- ``marks + stem_marks, cold``: what a 大六壬 / 六爻 chart calls, result caches cleared (the marking plan, every
  marked star evaluated once for every value of the inputs it reads, is built once per options, like the data);
- ``marks plan, built once``: the cost of building that plan (the first ``marks`` call of a process);
- ``per_month, cold``: the twelve months of a day (``sikpan shensha 甲子 --all-months``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine.shensha as shensha  # noqa: E402
from engine.core.cycle import Branch, GanZhi  # noqa: E402

CASES = [(GanZhi.of(i), Branch(i % 12), GanZhi.of((7 * i) % 60), Branch((5 * i) % 12)) for i in range(60)]


def _clear() -> None:
    shensha._evaluate.cache_clear()


def _round(fn: Callable[[], None], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds = 3 if args.quick else 7
    shensha.evaluate(*CASES[0])  # load the data once

    def cold_evaluate() -> None:
        for d, m, y, h in CASES:
            _clear()
            shensha.evaluate(d, m, y, h)

    def cached_evaluate() -> None:
        for d, m, y, h in CASES:
            shensha.evaluate(d, m, y, h)

    def cold_marks() -> None:
        for d, m, y, h in CASES:
            _clear()
            shensha.marks(d, m, y, h)
            shensha.stem_marks(d, m, y, h)

    def cold_per_month() -> None:
        for d, _, y, h in CASES[:10]:
            _clear()
            shensha.per_month(d, y, h)

    def build_plan() -> None:
        shensha._mark_plan.cache_clear()
        shensha.marks(*CASES[0])

    rows = [
        ("evaluate, cold", cold_evaluate, len(CASES)),
        ("evaluate, cached", cached_evaluate, len(CASES)),
        ("marks + stem_marks, cold", cold_marks, len(CASES)),
        ("marks plan, built once", build_plan, 1),
        ("per_month, cold", cold_per_month, 10),
    ]
    for label, fn, count in rows:
        times = [_round(fn, 1) / count for _ in range(rounds)]
        print(f"{label:28s} {statistics.median(times):10.1f} µs/call")


if __name__ == "__main__":
    main()
