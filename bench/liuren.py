"""Benchmark: cost of one 大六壬 chart from an instant, ours next to kinliuren (same run).

Run: ``.venv/bin/python bench/liuren.py [--quick]``. kinliuren comes from the ``bench`` extra
(``pip install -e '.[bench]'``); if it is not installed it is reported and skipped.

Rows (median of rounds of (time for all instants) / count, microseconds per chart):

- ``sikpan chart_at``: instant → 四柱/月將 (calendar) → chart, the way ``/cast`` works; the 720 課 per option
  set are memoized, so after warm-up the chart part is a cache hit.
- ``sikpan chart_at, cold``: the same with every cache of the chart cleared before each call (the 三傳,
  天將 and the chart itself are computed from scratch; the calendar keeps its loaded term table).
- ``sikpan build_chart, cold``: (day, 月將, 占時) → chart without the calendar, caches cleared.
- ``kinliuren``: ``Liuren(節氣, 月, 日干支, 時干支).result(0)`` with the pillars already computed by our
  calendar (kinliuren cannot start from an instant), i.e. the peer's chart cost alone, which favours it.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import per_call, random_instants  # noqa: E402

from engine.calendar import four_pillars  # noqa: E402
from engine.liuren import build_chart, chart_at  # noqa: E402
from engine.liuren import chart as chart_module  # noqa: E402
from engine.liuren import generals as generals_module  # noqa: E402
from engine.liuren import methods as methods_module  # noqa: E402

KST = timezone(timedelta(hours=9))
CMONTH = ["十一", "十二", "正", "二", "三", "四", "五", "六", "七", "八", "九", "十"]  # by month branch 子…亥


def clear_caches() -> None:
    methods_module.solve.cache_clear()
    chart_module._build.cache_clear()
    generals_module.general_positions.cache_clear()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, rounds = (300, 3) if args.quick else (2000, 7)
    instants = random_instants(n, KST, 1901, 2099)

    def cold_at(at: datetime) -> object:
        clear_caches()
        return chart_at(at)

    pillars = [four_pillars(at) for at in instants]
    triples = [(p.day, p.month_general, p.hour.branch) for p in pillars]

    def cold_build(t: tuple[Any, Any, Any]) -> object:
        clear_caches()
        return build_chart(*t)

    def clear_only(_: object) -> None:
        clear_caches()

    rows: list[tuple[str, float]] = []
    rows.append(("sikpan chart_at (instant → chart)", per_call(chart_at, instants, rounds)))
    clear_cost = per_call(clear_only, instants, rounds)
    rows.append(
        ("sikpan chart_at, cold (caches cleared each call)", per_call(cold_at, instants, rounds) - clear_cost)
    )
    rows.append(
        ("sikpan build_chart, cold (no calendar)", per_call(cold_build, triples, rounds) - clear_cost)
    )
    rows.append(("sikpan four_pillars alone (calendar)", per_call(four_pillars, instants, rounds)))

    try:
        from kinliuren import kinliuren
    except ImportError:
        print("kinliuren: not installed (pip install -e '.[bench]'); skipped")
        kinliuren = None
    if kinliuren is not None:
        args_k = [(p.term.name, CMONTH[p.month.branch], p.day.chars, p.hour.chars) for p in pillars]
        failures = 0

        def kin(a: tuple[str, str, str, str]) -> object:
            nonlocal failures
            try:
                return kinliuren.Liuren(*a).result(0)
            except Exception:  # the peer raises on some 課 (spec/liuren.md §7)
                failures += 1
                return None

        rows.append(
            ("kinliuren Liuren(...).result(0) (pillars given)", per_call(kin, args_k, max(1, rounds // 2)))
        )
        if failures:
            print(f"kinliuren raised on {failures} calls")

    width = max(len(name) for name, _ in rows)
    for name, us in rows:
        print(f"{name:<{width}}  {us:9.2f} µs/chart (median, n={n})")
    ours = rows[0][1]
    if kinliuren is not None:
        kin_us = rows[-1][1]
        print(
            f"speed-up chart_at vs kinliuren: {kin_us / ours:.0f}×; cold chart_at: {kin_us / rows[1][1]:.0f}×"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
