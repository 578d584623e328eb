"""The full-size multi-process broadcast of issue #17 (the suite runs it scaled down:
tests/scale/test_broadcast.py): S schedulers + W workers (separate processes) on PostgreSQL and Redis,
N subscriptions due in one minute, the fake Telegram capped at 30 msg/s (429 with retry_after beyond it).

    .venv/bin/python bench/broadcast.py [--n 10000] [--schedulers 3] [--workers 4] [--json]

Figures: wall time from the first to the last send, the send rate, the peak in any 1-second window, 429s,
chats served twice, and the ratio of the wall time to the floor the cap allows (N / 30 s).
Needs the servers of tests/servers.py (SIKPAN_TEST_PG, SIKPAN_TEST_REDIS).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the project, not bench/

from tests.scale.broadcast_run import run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--schedulers", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = asyncio.run(run(args.n, args.schedulers, args.workers))
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>16}: {value}")


if __name__ == "__main__":
    main()
