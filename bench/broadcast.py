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
import time
from collections import Counter
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the project, not bench/

from tests.fakes.telegram import FakeTelegram  # noqa: E402
from tests.scale.test_broadcast import (  # noqa: E402
    CAP,
    TOKEN,
    accepted,
    max_per_window,
    role_env,
    spawn,
    stop_all,
    subscribe_due,
    wait_settled,
)
from tests.servers import fresh_pg_url, fresh_redis_url  # noqa: E402


async def run(n: int, schedulers: int, workers: int) -> dict[str, float]:
    with fresh_pg_url() as db, fresh_redis_url() as redis_url:
        async with FakeTelegram(token=TOKEN, flood_limit=CAP) as tg:
            t0 = time.monotonic()
            await subscribe_due(db, n)
            written = time.monotonic() - t0
            env = role_env(db, redis_url, tg)
            procs = [await spawn("scheduler", env) for _ in range(schedulers)]
            procs += [await spawn("worker", env) for _ in range(workers)]
            try:
                done = await wait_settled(db, n, timeout=n / 20 + 120)
            finally:
                errors = await stop_all(procs)
            times = accepted(tg)
            chats = Counter(str(c.params["chat_id"]) for c in tg.sent)
            span = max(times) - min(times)
            return {
                "n": n,
                "schedulers": schedulers,
                "workers": workers,
                "subscribe_s": round(written, 1),
                "sent": done.get("sent", 0),
                "other_statuses": sum(v for k, v in done.items() if k != "sent"),
                "chats": len(chats),
                "twice": sum(1 for v in chats.values() if v > 1),
                "wall_s": round(span, 1),
                "rate_per_s": round((len(times) - 1) / span, 2),
                "peak_per_1s": max_per_window(times),
                "429s": tg.flood_rejections,
                "floor_s": round(n / CAP, 1),
                "ratio_to_floor": round(span / (n / CAP), 3),
                "process_errors": len(errors),
            }


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
