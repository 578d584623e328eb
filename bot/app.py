"""The application: ``run`` starts every transport and the daily scheduler in one event loop.

``run(settings, stop)`` checks the database (:func:`bot.startup.check_database`), opens it (migrating it),
then starts: the Telegram adapter when
``TELEGRAM_BOT_TOKEN`` is set (``bot.telegram.run_telegram(ctx, stop)``), the Discord adapter when
``DISCORD_BOT_TOKEN`` is set (``bot.discord.run_discord(ctx, stop)``), the daily scheduler
(``bot.scheduler.run_scheduler``) whenever an adapter runs, and the console chat on stdin/stdout when no token
is set. It returns when ``stop`` is set (or the console reaches end of input) and every task ended.

The chat libraries are optional extras (``pip install 'sikpan[telegram]'``, ``[discord]``, ``[all]``): an
adapter module is imported only when its token is set, and a missing library raises :class:`MissingExtra`
(``sikpan run`` turns it into a one-line message naming the extra) before anything starts.

Supervision (:func:`_supervise`): a task that fails is logged and the others go on, except that an adapter
that cannot start (``StartupError`` after its retries) or the last adapter gone stops everything, and ``run``
raises :class:`bot.startup.StartupError` so the process exits non-zero.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from bot.config import Settings
from bot.console import LineSource, run_console
from bot.context import AppContext, Clock, SystemClock, create_context
from bot.scheduler import run_scheduler, run_worker
from bot.startup import StartupError, check_database

log = logging.getLogger(__name__)

Runner = Callable[[AppContext, asyncio.Event], Coroutine[Any, Any, None]]

# The extra that installs each adapter's chat library, and the top-level module of that library.
EXTRAS: dict[str, tuple[str, str]] = {"telegram": ("telegram", "telegram"), "discord": ("discord", "discord")}


class MissingExtra(RuntimeError):
    """A token is set but the chat library of its adapter is not installed."""

    def __init__(self, platform: str, extra: str, module: str) -> None:
        super().__init__(f"{platform}: install sikpan[{extra}] (module {module!r} is missing)")
        self.platform = platform
        self.extra = extra
        self.module = module


def transport_runner(platform: str) -> Runner:
    """The run function of an adapter, imported now (its chat library is an optional extra)."""
    extra, library = EXTRAS[platform]
    try:
        if platform == "telegram":
            from bot.telegram import run_telegram

            return run_telegram
        from bot.discord import run_discord

        return run_discord
    except ModuleNotFoundError as err:
        if err.name is not None and err.name.split(".")[0] == library:
            raise MissingExtra(platform, extra, err.name) from None
        raise


def configured_runners(settings: Settings) -> dict[str, Runner]:
    """``{platform: runner}`` for every token that is set; :class:`MissingExtra` when a library is absent."""
    tokens = {"telegram": settings.telegram_token, "discord": settings.discord_token}
    return {platform: transport_runner(platform) for platform, token in tokens.items() if token}


async def run(
    settings: Settings,
    stop: asyncio.Event,
    *,
    console_io: tuple[LineSource, Any] | None = None,
    clock: Clock | None = None,
) -> None:
    """Start everything configured in ``settings`` and wait until ``stop`` is set.

    Raises :class:`bot.startup.StartupError` when the database is unusable (checked before it is opened)
    or an adapter cannot start (after its retries): everything else is stopped first, so the process
    exits non-zero.
    """
    runners = configured_runners(settings)  # before the database is opened: a missing extra fails first
    await asyncio.to_thread(check_database, settings.db_path)
    ctx = await create_context(settings, clock or SystemClock())
    tasks: dict[str, asyncio.Task[None]] = {}
    try:
        for platform, runner in runners.items():
            tasks[platform] = asyncio.create_task(runner(ctx, stop), name=platform)
        if tasks:
            tasks["scheduler"] = asyncio.create_task(run_scheduler(ctx, stop), name="scheduler")
            if settings.redis_url and settings.telegram_token:
                # the scheduler queues Telegram readings (bot.queue): this process works the queue too
                tasks["worker"] = asyncio.create_task(run_worker(ctx, stop), name="worker")
        else:
            tasks["console"] = asyncio.create_task(run_console(ctx, stop, io=console_io), name="console")
        failed = await _supervise(tasks, stop)
        if failed:
            name, first = failed[0]
            if isinstance(first, StartupError):
                raise first
            raise StartupError("bot.error.adapter_start", platform=name, attempts=1, detail=repr(first)[:200])
    finally:
        for task in tasks.values():
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        await ctx.close()


ADAPTERS = ("telegram", "discord")


async def _supervise(
    tasks: dict[str, asyncio.Task[None]], stop: asyncio.Event
) -> list[tuple[str, BaseException]]:
    """The process boundary: a task that fails is logged (with its name) and the others go on.

    An adapter that cannot start (after its retries), or the last adapter gone, stops everything: a deaf
    bot must not keep running. Returns those adapter failures (the caller exits non-zero).
    """
    failed: list[tuple[str, BaseException]] = []
    stop_task = asyncio.create_task(stop.wait(), name="stop")
    pending: set[asyncio.Task[Any]] = set(tasks.values())
    while pending and not stop.is_set():
        done, pending = await asyncio.wait(pending | {stop_task}, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if task is stop_task:
                continue
            pending.discard(task)
            if task.cancelled():
                continue
            exc = task.exception()
            if isinstance(exc, StartupError):
                log.error("%s could not start: %s", task.get_name(), exc.params.get("detail"))
            elif exc is not None:
                log.error("%s stopped with an error", task.get_name(), exc_info=exc)
            adapters_left = [t for t in pending if t.get_name() in ADAPTERS]
            if task.get_name() in ADAPTERS and exc is not None:
                if isinstance(exc, StartupError) or not adapters_left:
                    failed.append((task.get_name(), exc))
                    stop.set()
            if task.get_name() == "console":
                stop.set()  # end of input on the console ends the program
        pending.discard(stop_task)
    stop.set()
    # Give every adapter a moment to wind down on its own (they watch ``stop``), then cancel.
    if pending:
        _, still = await asyncio.wait(pending, timeout=10)
        for task in still:
            task.cancel()
        if still:
            await asyncio.gather(*still, return_exceptions=True)
    stop_task.cancel()
    await asyncio.gather(stop_task, return_exceptions=True)
    return failed


__all__ = [
    "AppContext",
    "Clock",
    "MissingExtra",
    "SystemClock",
    "configured_runners",
    "create_context",
    "run",
    "transport_runner",
]
