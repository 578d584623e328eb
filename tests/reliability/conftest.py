"""Fixtures of the fault-and-abuse suite: a context on a temp database (``say`` is the root conftest's)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.app import AppContext, create_context
from bot.config import Settings
from tests.fakes.clock import ManualClock

# 2024-02-04 03:30 UTC = 12:30 in Seoul (a 戊戌 day; spec/calendar.md §2).
INSTANT = datetime(2024, 2, 4, 3, 30, tzinfo=UTC)


@pytest.fixture
async def ctx(tmp_path) -> AsyncIterator[AppContext]:
    context = await create_context(
        Settings(db_path=str(tmp_path / "rel.db"), lang="ko", tz="Asia/Seoul"), clock=ManualClock(INSTANT)
    )
    try:
        yield context
    finally:
        await context.close()


@pytest.fixture
async def tg():
    """A fake Telegram Bot API server on 127.0.0.1 (tests/fakes/telegram.py)."""
    from tests.fakes.telegram import FakeTelegram

    async with FakeTelegram(token="7012345678:AAHfake-TelegramToken_for-reliability-01") as fake:
        yield fake
