"""Fixtures of the fault-and-abuse suite: a context on a temp database and ``say`` through ``dispatch``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime

import pytest

from bot.app import AppContext, create_context
from bot.commands import Incoming, Reply, dispatch
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


Say = Callable[..., Awaitable[Reply]]


@pytest.fixture
def say(ctx: AppContext) -> Say:
    async def _say(
        text: str,
        user: str = "u1",
        platform: str = "console",
        chat: str | None = None,
        chat_kind: str = "private",
        lang_hint: str | None = "ko",
        display_name: str | None = None,
    ) -> Reply:
        return await dispatch(
            Incoming(
                platform=platform,
                chat_id=chat or user,
                user_id=user,
                text=text,
                lang_hint=lang_hint,
                chat_kind=chat_kind,
                display_name=display_name,
            ),
            ctx,
        )

    return _say


@pytest.fixture
async def tg():
    """A fake Telegram Bot API server on 127.0.0.1 (tests/fakes/telegram.py)."""
    from tests.fakes.telegram import FakeTelegram

    async with FakeTelegram(token="7012345678:AAHfake-TelegramToken_for-reliability-01") as fake:
        yield fake
