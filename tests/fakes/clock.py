"""The one test clock (a :class:`bot.context.Clock`): time stands still until the test moves it."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta


class ManualClock:
    """``now()`` returns what the test set; ``sleep_until`` returns once the test moved time that far."""

    def __init__(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("a clock tells aware instants")
        self.at = at
        self._moved = asyncio.Event()

    async def now(self) -> datetime:
        return self.at

    async def sleep_until(self, instant: datetime) -> None:
        while self.at < instant:
            self._moved.clear()
            await self._moved.wait()

    def set(self, at: datetime) -> None:
        self.at = at
        self._moved.set()

    def advance(self, delta: timedelta) -> None:
        self.set(self.at + delta)
