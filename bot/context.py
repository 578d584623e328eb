"""The application context every command and service reads: settings, storage, clock, per-area singletons.

This module depends only on :mod:`bot.config` and :mod:`bot.storage`, so the command layer, the adapters
and the scheduler can all import it without importing each other (``bot.app`` starts them).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.config import Settings
from bot.storage import Storage


class Clock(Protocol):
    async def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...

    async def sleep_until(self, instant: datetime) -> None:
        """Return once ``now()`` has reached ``instant``."""
        ...


class SystemClock:
    """The wall clock. ``sleep_until`` naps at most ``max_nap`` seconds at a time, re-reading the clock,
    so that a wall-clock jump (NTP, suspend) is noticed."""

    max_nap = 30.0

    async def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(self, instant: datetime) -> None:
        while True:
            now = await self.now()
            if now >= instant:
                return
            await asyncio.sleep(min((instant - now).total_seconds(), self.max_nap))


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
