"""Benchmark: cost of one 大六壬 chart from an instant and of one row of the 720-課 table, ours next to
kinliuren (same run).

Run: ``.venv/bin/python bench/liuren.py [--quick] [--json]``. kinliuren comes from the ``bench`` extra
(``pip install -e '.[bench]'``); if it is not installed it is reported and skipped.

Rows (median of rounds of (CPU time for all inputs) / count, microseconds per chart or row; CPU time of this
process, so that the ratios hold on a machine shared with other work):

- ``sikpan chart_at``: instant → 四柱/月將 (calendar) → chart, the way ``/cast`` works; the 720 課 per option
  set are memoized, so after warm-up the chart part is a cache hit.
- ``sikpan chart_at, cold``: the same with every cache of the chart cleared before each call (the 三傳,
  天將 and the chart itself are computed from scratch; the calendar keeps its loaded term table).
- ``sikpan build_chart, cold``: (day, 月將, 占時) → chart without the calendar, caches cleared.
- ``sikpan table row, cold``: one line of ``sikpan liuren table --json`` — ``chart_for_ju`` (三傳, 天將),
  its 課體 and 雜格 for the cast and for both 貴人 (``table_row(cast=False)``) and the JSON line — with every
  cache of the chart and of the 課體 cleared before each pass over the 720 課 (so each row is computed from
  scratch once per pass; the per-課 tables are filled during the pass, as in one CLI run).
- ``sikpan table row, warm``: the same pass again without clearing (what a long-running process pays).
- ``sikpan liuren table --json`` per row: CPU time of the CLI process building all 720 rows minus the CPU
  time of ``sikpan liuren table --help`` (same imports, no rows), / 720 — the figure of issue 18 item 3.
- ``kinliuren``: ``Liuren(節氣, 月, 日干支, 時干支).result(0)`` with the pillars already computed by our
  calendar (kinliuren cannot start from an instant), i.e. the peer's chart cost alone, which favours it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

# the repository root instead of bench/ (whose bot.py and calendar.py would shadow the package and the
# standard library module); bench/ last, for timing.py
sys.path[0] = str(Path(__file__).resolve().parent.parent)
sys.path.append(str(Path(__file__).resolve().parent))

from timing import per_call, random_instants  # noqa: E402

from bot.cli.liuren import table_charts  # noqa: E402
from engine.calendar import four_pillars  # noqa: E402
from engine.liuren import Options, build_chart, chart_at  # noqa: E402
from engine.liuren import chart as chart_module  # noqa: E402
from engine.liuren.options import DEFAULT_OPTIONS  # noqa: E402

KST = timezone(timedelta(hours=9))
CLOCK = time.process_time  # CPU time of this process: robust to a loaded machine
CMONTH = ["十一", "十二", "正", "二", "三", "四", "五", "六", "七", "八", "九", "十"]  # by month branch 子…亥


def clear_caches() -> None:
    chart_module.clear_caches()


def table_pass(options: Options) -> list[str]:
    """Every line of ``sikpan liuren table --json`` (as bot/cli/liuren.py and emit_json make them)."""
    return [
        json.dumps(chart.table_row(cast=False), ensure_ascii=False, separators=(", ", ": "))
        for chart in table_charts(options)
    ]


def table_row_cold(rounds: int, options: Options = DEFAULT_OPTIONS) -> float:
    """Median CPU µs per row of a whole table pass with every chart and 課體 cache cleared first."""
    samples = []
    table_pass(options)  # imports and data files loaded
    for _ in range(rounds):
        clear_caches()
        start = CLOCK()
        rows = table_pass(options)
        samples.append((CLOCK() - start) / len(rows) * 1e6)
    return statistics.median(samples)


def table_row_warm(rounds: int, options: Options = DEFAULT_OPTIONS) -> float:
    table_pass(options)
    samples = []
    for _ in range(rounds):
        start = CLOCK()
        rows = table_pass(options)
        samples.append((CLOCK() - start) / len(rows) * 1e6)
    return statistics.median(samples)


def _child_cpu(args: list[str]) -> float:
    """CPU seconds (user + system) of one ``python -m bot.cli …`` process."""
    # byte-code caches written and used, as in an installed package (PYTHONDONTWRITEBYTECODE would make every
    # run compile the modules it imports late, which is not the cost of a row)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "bot.cli", *args], check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cli_row(repeats: int) -> float:
    """CPU µs per row of ``sikpan liuren table --json`` beyond the start-up of ``sikpan liuren table --help``
    (medians of ``repeats`` processes each)."""
    _child_cpu(["liuren", "table", "--json"])  # byte-code caches written
    table = statistics.median(_child_cpu(["liuren", "table", "--json"]) for _ in range(repeats))
    help_ = statistics.median(_child_cpu(["liuren", "table", "--help"]) for _ in range(repeats))
    return (table - help_) / 720 * 1e6


def kinliuren_chart(pillars: list[Any], rounds: int) -> tuple[float | None, int]:
    """kinliuren's chart (pillars given), median CPU µs, and how many calls raised; None if not installed."""
    try:
        from kinliuren import kinliuren
    except ImportError:
        return None, 0
    args_k = [(p.term.name, CMONTH[p.month.branch], p.day.chars, p.hour.chars) for p in pillars]
    failures = 0

    def kin(a: tuple[str, str, str, str]) -> object:
        nonlocal failures
        try:
            return kinliuren.Liuren(*a).result(0)
        except Exception:  # the peer raises on some 課 (spec/liuren.md §7)
            failures += 1
            return None

    return per_call(kin, args_k, rounds, CLOCK), failures


def measure(quick: bool = False) -> dict[str, Any]:
    """Every figure of this benchmark (µs, CPU time), kinliuren's in the same run."""
    n, rounds = (300, 3) if quick else (2000, 7)
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

    out: dict[str, Any] = {"n": n}
    out["chart_at"] = per_call(chart_at, instants, rounds, CLOCK)
    clear_cost = per_call(clear_only, instants, rounds, CLOCK)
    out["chart_at_cold"] = per_call(cold_at, instants, rounds, CLOCK) - clear_cost
    out["build_chart_cold"] = per_call(cold_build, triples, rounds, CLOCK) - clear_cost
    out["four_pillars"] = per_call(four_pillars, instants, rounds, CLOCK)
    out["table_row_cold"] = table_row_cold(rounds)
    out["table_row_warm"] = table_row_warm(rounds)
    out["cli_table_row"] = cli_row(3 if quick else 7)
    kin, failures = kinliuren_chart(pillars, max(1, rounds // 2))
    out["kinliuren_chart"] = kin
    out["kinliuren_failures"] = failures
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true", help="one JSON line of the figures")
    args = parser.parse_args()
    m = measure(args.quick)
    if args.json:
        print(json.dumps(m))
        return 0
    rows = [
        ("sikpan chart_at (instant → chart)", m["chart_at"]),
        ("sikpan chart_at, cold (caches cleared each call)", m["chart_at_cold"]),
        ("sikpan build_chart, cold (no calendar)", m["build_chart_cold"]),
        ("sikpan four_pillars alone (calendar)", m["four_pillars"]),
        ("sikpan table row, cold (chart + 課體/雜格 + JSON)", m["table_row_cold"]),
        ("sikpan table row, warm", m["table_row_warm"]),
        ("sikpan liuren table --json, per row beyond start-up", m["cli_table_row"]),
    ]
    kin = m["kinliuren_chart"]
    if kin is None:
        print("kinliuren: not installed (pip install -e '.[bench]'); skipped")
    else:
        rows.append(("kinliuren Liuren(...).result(0) (pillars given)", kin))
        if m["kinliuren_failures"]:
            print(f"kinliuren raised on {m['kinliuren_failures']} calls")
    width = max(len(name) for name, _ in rows)
    for name, us in rows:
        print(f"{name:<{width}}  {us:9.2f} µs CPU (median, n={m['n']})")
    if kin is not None:
        print(
            f"kinliuren chart / ours: chart_at {kin / m['chart_at']:.0f}×, cold chart_at {kin / m['chart_at_cold']:.0f}×,"
            f" table row cold {kin / m['table_row_cold']:.0f}× (target ≥ 50×), CLI row {kin / m['cli_table_row']:.0f}×"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
