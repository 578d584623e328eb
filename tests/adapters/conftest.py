"""Fixtures: fake servers and a whole ``sikpan run`` (``bot.app.run``) in the test's event loop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.config import Settings
from tests.fakes.telegram import FakeTelegram

STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"


def day_ganzhi(day: date) -> str:
    """The day's 干支 by counting days from a known 甲子 day (1949-10-01; also 2000-01-07)."""
    i = (day - date(1949, 10, 1)).days % 60
    return STEMS[i % 10] + BRANCHES[i % 12]


def day_pillars_now(zone: str) -> set[str]:
    """The day 干支 for the civil wall clock in ``zone`` (子 day start at 23:00), around now."""
    out = set()
    for delta in (timedelta(0), timedelta(seconds=20)):
        local = datetime.now(ZoneInfo(zone)) + delta
        day = local.date() + (timedelta(days=1) if local.hour == 23 else timedelta(0))
        out.add(day_ganzhi(day))
    return out


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(token="7012345678:AAHfake-TelegramToken_for-tests-0123456") as fake:
        yield fake


def tg_settings(tg: FakeTelegram, db: str, **kw: str) -> Settings:
    return Settings(
        telegram_token=tg.token,
        telegram_api_base_url=tg.base_url,
        db_path=db,
        lang=kw.get("lang", "ko"),
        tz=kw.get("tz", "Asia/Seoul"),
    )


class Running:
    """A running ``sikpan run``: its stop event and (once created) its AppContext."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()
        self.ctx: Any = None
        self.task: asyncio.Task[Any] | None = None  # bot.app.run (done once stopped)

    @property
    def telegram(self) -> Any:
        return self.ctx.telegram_application.bot_data["adapter"]


@contextlib.asynccontextmanager
async def running(
    settings: Settings, ready: FakeTelegram | None = None, clock: Any = None
) -> AsyncIterator[Running]:
    """``sikpan run`` (``bot.app.run``, on ``clock`` if given) in-process until the block ends (then stop,
    bounded); with ``ready``, once it polls that fake Telegram."""
    import bot.app

    handle = Running()
    original = bot.app.create_context

    async def capture(settings: Settings, clock: Any = None) -> Any:
        handle.ctx = await original(settings, clock)
        return handle.ctx

    bot.app.create_context = capture  # type: ignore[assignment]
    task = handle.task = asyncio.create_task(bot.app.run(settings, handle.stop, clock=clock))
    try:
        if ready is not None:
            before = len([c for c in ready.calls if c.method == "getUpdates"])
            await ready.wait_for("getUpdates", before + 1, timeout=10)
        yield handle
    finally:
        bot.app.create_context = original  # type: ignore[assignment]
        handle.stop.set()
        await asyncio.wait_for(task, 20)
