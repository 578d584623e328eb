"""One scheduler process of the cross-process tests: ``python scheduler_proc.py DB OUT SECONDS [STALE]``
(STALE: seconds of silence after which another scheduler's rows are taken over; heartbeats at STALE / 4).

Runs :class:`bot.scheduler.DailyScheduler` on the real clock for SECONDS (or until SIGTERM) with a transport
that appends ``<pid> <chat id>`` to OUT for every reading it sends (``O_APPEND``: one line per write)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from datetime import timedelta

from bot.app import create_context
from bot.config import Settings
from bot.scheduler import DailyScheduler
from bot.sending import SendOutcome


class AppendTransport:
    platform = "telegram"
    channel = "telegram"

    def __init__(self, out: str) -> None:
        self.fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def configured(self) -> bool:
        return True

    def ready(self) -> bool:
        return True

    async def send(self, sub, text: str, *, before_request=None, moment=None) -> SendOutcome:  # type: ignore[no-untyped-def]
        if before_request is not None and not await before_request():
            return SendOutcome(False, 0, (), "not_attempted", sub.chat_id)
        os.write(self.fd, f"{os.getpid()} {sub.chat_id}\n".encode())
        await asyncio.sleep(0.02)  # a request's round trip
        return SendOutcome(True, 1, (1,), None, sub.chat_id)


async def main(db: str, out: str, seconds: float, stale: float) -> None:
    ctx = await create_context(Settings(db_path=db, lang="ko", tz="UTC"))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.call_later(seconds, stop.set)
    try:
        scheduler = DailyScheduler(
            ctx,
            transports={"telegram": AppendTransport(out)},
            workers=4,
            poll_every=0.2,
            stale_after=timedelta(seconds=stale),
            heartbeat_every=stale / 4,
        )
        await scheduler.run(stop)
    finally:
        await ctx.close()


if __name__ == "__main__":
    asyncio.run(
        main(sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 90)
    )
