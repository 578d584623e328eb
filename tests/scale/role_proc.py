"""One process of the Redis tests: ``python role_proc.py ROLE`` with ROLE ``scheduler`` or ``worker``.

Settings come from the environment like ``sikpan run`` (``SIKPAN_DB``, ``SIKPAN_REDIS_URL``,
``TELEGRAM_BOT_TOKEN``, ``TELEGRAM_API_BASE_URL``); ``ROLE_STALE`` (seconds: another process's rows are
taken over after this much silence; heartbeats at a quarter of it) and ``ROLE_JOB_TIMEOUT`` tune the
run. Runs on the real clock until SIGTERM: a scheduler claims due rows and queues them (arq), a worker sends
them through the one sender (python-telegram-bot) to the fake Telegram."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import signal
import sys
from datetime import timedelta

from bot.config import load_settings
from bot.context import create_context
from bot.scheduler import DailyScheduler, daily_queue, run_worker
from bot.telegram.sender import start_sender


def dump_tasks() -> None:
    """SIGUSR1: every task of the process with where it waits, to stderr (a test whose rows do not settle
    asks its processes for this before it stops them: a job stalled in a worker shows its stack)."""
    out = io.StringIO()
    for task in asyncio.all_tasks():
        out.write(f"--- {task.get_name()}\n")
        task.print_stack(limit=40, file=out)
    sys.stderr.write(f"=== tasks of {os.getpid()}\n{out.getvalue()}=== end of tasks\n")
    sys.stderr.flush()


async def main(role: str) -> None:
    settings = load_settings()
    ctx = await create_context(settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, dump_tasks)
    stale = float(os.environ.get("ROLE_STALE", "90"))
    try:
        if role == "scheduler":
            scheduler = DailyScheduler(
                ctx,
                queue=daily_queue(ctx),
                stale_after=timedelta(seconds=stale),
                heartbeat_every=stale / 4,
                poll_every=0.5,
            )
            await scheduler.run(stop)
        else:
            await run_worker(
                ctx,
                stop,
                start_sender=start_sender,
                heartbeat_every=stale / 4,
                job_timeout=float(os.environ.get("ROLE_JOB_TIMEOUT", "120")),
                max_jobs=int(os.environ.get("ROLE_MAX_JOBS", "8")),
            )
    finally:
        await ctx.close()


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    asyncio.run(main(sys.argv[1]))
