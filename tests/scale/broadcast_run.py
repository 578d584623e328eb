"""The full broadcast of issue #17 as one run: S schedulers + W workers (separate processes, ``role_proc.py``)
on PostgreSQL and Redis, N subscriptions due in one minute, the fake Telegram capped at 30 sends in any second
(429 with retry_after beyond it). Its figures are what ``test_broadcast.py`` asserts and ``bench/broadcast.py``
prints.

    python tests/scale/broadcast_run.py --n 10000 --out result.json

The suite runs it in the background from the start of the session (``tests/scale/conftest.py``) and checks
the result at the end; needs the servers of tests/servers.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[2])  # the project, not tests/scale/

import pytest  # noqa: E402

from tests.fakes.telegram import FakeTelegram  # noqa: E402
from tests.scale.test_broadcast import (  # noqa: E402
    CAP,
    TOKEN,
    accepted,
    max_per_window,
    role_env,
    spawn,
    stop_all,
    wait_settled,
)
from tests.servers import fresh_pg_url, fresh_redis_url  # noqa: E402
from tests.subscriptions import subscribe_due_in  # noqa: E402


async def run(n: int, schedulers: int = 3, workers: int = 4) -> dict[str, Any]:
    with fresh_pg_url() as db, fresh_redis_url() as redis_url:
        async with FakeTelegram(token=TOKEN, flood_limit=CAP) as tg:
            t0 = time.monotonic()
            await subscribe_due_in(db, n)
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
                "statuses": done,
                "sent": done.get("sent", 0),
                "chats": len(chats),
                "twice": sum(1 for v in chats.values() if v > 1),
                "wall_s": round(span, 1),
                "rate_per_s": round((len(times) - 1) / span, 2),
                "peak_per_1s": max_per_window(times),
                "429s": tg.flood_rejections,
                "floor_s": round(n / CAP, 1),
                "ratio_to_floor": round(span / (n / CAP), 3),
                "process_errors": errors,
            }


FULL_N = 10_000


class BackgroundRun:
    """:func:`run` in a process of its own (its own session: it and the processes it starts stop together)."""

    def __init__(self, n: int = FULL_N) -> None:
        self.n = n
        self.dir = Path(tempfile.mkdtemp(prefix="sikpan-broadcast-"))
        self.out = self.dir / "result.json"
        self.log = self.dir / "stderr.log"
        self.started = time.monotonic()
        with self.log.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--n", str(n), "--out", str(self.out)],
                cwd=Path(__file__).resolve().parents[2],
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
            )

    def result(self, timeout: float) -> dict[str, Any]:
        """Wait for the run (at most ``timeout`` seconds from its start); its figures."""
        left = max(1.0, timeout - (time.monotonic() - self.started))
        try:
            self.proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(
                f"the broadcast of {self.n} did not end within {timeout:.0f}s: {self.tail()}"
            ) from None
        if not self.out.exists():
            raise AssertionError(
                f"the broadcast run wrote no result (exit {self.proc.returncode}): {self.tail()}"
            )
        figures: dict[str, Any] = json.loads(self.out.read_text())
        return figures

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        """SIGTERM to the run's process group (its schedulers and workers), SIGKILL after 20 s."""
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


RUN = pytest.StashKey[BackgroundRun]()  # the session's run (tests/scale/conftest.py)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--schedulers", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    try:
        result = asyncio.run(run(args.n, args.schedulers, args.workers))
    except BaseException as exc:  # the run's outer boundary: the test at the end reports it
        result = {"error": f"{type(exc).__name__}: {exc}"}
        args.out.write_text(json.dumps(result))
        raise
    args.out.write_text(json.dumps(result))


if __name__ == "__main__":
    main()
