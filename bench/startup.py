"""Start-up time of the CLI (issue 11: ``sikpan calendar --at … --json`` under 150 ms on the project machine).

Runs each command ``--runs`` times (default 21) as a fresh process, after one warm-up run, and prints the
median, the minimum and the maximum wall time, with ``python -c pass`` measured in the same run as the floor
(the interpreter's own start-up) and each command's ratio to it. The target is checked on the median::

    .venv/bin/python bench/startup.py            # the calendar command, exit 1 if its median is ≥ 150 ms
    .venv/bin/python bench/startup.py --runs 51 --also "cast --day 庚辰 --ju 8 --json"

Not a test: wall time depends on the machine and its load (see docs/architecture.md).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
TARGET_MS = 150.0
CALENDAR = "calendar --at 2024-02-04T16:27:08+08:00 --json"


def wall_times(cmd: list[str], runs: int) -> list[float]:
    """Wall time in milliseconds of ``runs`` fresh runs of ``cmd`` (after one warm-up run)."""
    subprocess.run(cmd, check=True, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append((time.perf_counter() - start) * 1000.0)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--also", action="append", default=[], metavar="ARGS", help="another sikpan command")
    args = parser.parse_args(argv)
    sikpan = str(BIN / "sikpan")
    commands = [("python -c pass", [sys.executable, "-c", "pass"])]
    for text in [CALENDAR, *args.also]:
        commands.append((f"sikpan {text}", [sikpan, *shlex.split(text)]))
    results = {name: wall_times(cmd, args.runs) for name, cmd in commands}
    floor = statistics.median(results["python -c pass"])
    print(f"{'command':<60} {'median':>8} {'min':>8} {'max':>8} {'× floor':>8}")
    for name, times in results.items():
        median = statistics.median(times)
        print(f"{name:<60} {median:8.1f} {min(times):8.1f} {max(times):8.1f} {median / floor:8.2f}")
    calendar = statistics.median(results[f"sikpan {CALENDAR}"])
    verdict = "under" if calendar < TARGET_MS else "NOT under"
    print(f"\nsikpan calendar … --json: median {calendar:.1f} ms, {verdict} the {TARGET_MS:.0f} ms target")
    return 0 if calendar < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
