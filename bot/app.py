"""The application: its context (settings, storage, clock) and ``run`` that starts every transport.

``run(settings, stop)`` opens the database (migrating it), then starts, in one event loop:
the Telegram adapter when ``TELEGRAM_BOT_TOKEN`` is set (``bot.telegram.run_telegram(ctx, stop)``), the
Discord adapter when ``DISCORD_BOT_TOKEN`` is set (``bot.discord.run_discord(ctx, stop)``), the daily
scheduler when ``bot.scheduler.run_scheduler(ctx, stop)`` exists, and the console chat on stdin/stdout when
no token is set. It returns when ``stop`` is set (or the console reaches end of input) and every task ended.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.config import Settings
from bot.startup import StartupError, check_database
from bot.storage import Storage

log = logging.getLogger(__name__)


class Clock(Protocol):
    async def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...


class SystemClock:
    async def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class AppContext:
    settings: Settings
    storage: Storage
    clock: Clock = field(default_factory=SystemClock)
    extras: dict[str, Any] = field(default_factory=dict)  # per-area singletons (scheduler, senders …)

    async def close(self) -> None:
        await self.storage.close()


async def create_context(settings: Settings, clock: Clock | None = None) -> AppContext:
    """Open (and migrate) the database named by the settings."""
    storage = await Storage.open(settings.db_path)
    return AppContext(settings=settings, storage=storage, clock=clock or SystemClock())


def _optional(module: str, attr: str) -> Callable[..., Coroutine[Any, Any, Any]] | None:
    """``module.attr`` if that module exists (another area may not have landed yet)."""
    try:
        if importlib.util.find_spec(module) is None:
            return None
    except ModuleNotFoundError:
        return None
    fn = getattr(importlib.import_module(module), attr, None)
    return fn if callable(fn) else None


async def run(settings: Settings, stop: asyncio.Event, *, console_io: Any = None) -> None:
    """Start everything configured in ``settings`` and wait until ``stop`` is set.

    Raises :class:`bot.startup.StartupError` when the database is unusable (checked first) or an adapter
    cannot start (after its retries): everything else is stopped first, so the process exits non-zero.
    """
    await asyncio.to_thread(check_database, settings.db_path)
    ctx = await create_context(settings)
    tasks: dict[str, asyncio.Task[Any]] = {}
    failed: list[tuple[str, BaseException]] = []
    try:
        if settings.telegram_token:
            runner = _optional("bot.telegram", "run_telegram")
            if runner is None:
                log.error("TELEGRAM_BOT_TOKEN is set but the Telegram adapter is not installed")
            else:
                tasks["telegram"] = asyncio.create_task(runner(ctx, stop), name="telegram")
        if settings.discord_token:
            runner = _optional("bot.discord", "run_discord")
            if runner is None:
                log.error("DISCORD_BOT_TOKEN is set but the Discord adapter is not installed")
            else:
                tasks["discord"] = asyncio.create_task(runner(ctx, stop), name="discord")
        if tasks:
            scheduler = _optional("bot.scheduler", "run_scheduler")
            if scheduler is not None:
                tasks["scheduler"] = asyncio.create_task(scheduler(ctx, stop), name="scheduler")
        if not settings.has_tokens:
            from bot.console import run_console

            tasks["console"] = asyncio.create_task(run_console(ctx, stop, io=console_io), name="console")
        if not tasks:
            log.error("nothing to run")
            return
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
                adapters_left = [t for t in pending if t.get_name() in ("telegram", "discord")]
                if task.get_name() in ("telegram", "discord") and exc is not None:
                    # an adapter that cannot start (after its retries), or the last adapter gone: a deaf
                    # bot must not keep running — stop everything and exit non-zero
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
