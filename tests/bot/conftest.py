"""Fixtures for the bot-core tests: the manual clock (tests/fakes/clock.py), an application context on a temp
database (``say`` is the root conftest's, on this ``ctx``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.app import AppContext, create_context
from bot.config import Settings
from tests.fakes.clock import ManualClock

# 2024-02-04 03:30 UTC = 12:30 in Seoul on 2024-02-04 (a 戊戌 day, spec/calendar.md §2 checks)
# = 22:30 in New York on 2024-02-03 (the day before: 丁酉).
DEFAULT_INSTANT = datetime(2024, 2, 4, 3, 30, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(DEFAULT_INSTANT)


@pytest.fixture
def db_path(tmp_path) -> str:
    return str(tmp_path / "bot.db")


@pytest.fixture
async def ctx(db_path: str, clock: ManualClock) -> AsyncIterator[AppContext]:
    context = await create_context(Settings(db_path=db_path, lang="ko", tz="Asia/Seoul"), clock=clock)
    try:
        yield context
    finally:
        await context.close()
