"""Fixtures of the daily tests: a clock the test moves by hand, a context on a temp database, a fake transport."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from bot.app import AppContext, create_context
from bot.commands import Reply
from bot.config import Settings
from bot.sending import SendOutcome
from tests.conftest import say_to
from tests.fakes.clock import ManualClock
from tests.servers import DIALECTS, database


@dataclass
class FakeTransport:
    """Records what the scheduler sends; ``script`` gives the outcomes in order (then success)."""

    platform: str = "telegram"
    channel: str = "telegram"
    sent: list[tuple[str, str]] = field(default_factory=list)
    script: list[str] = field(default_factory=list)  # "ok" | "forbidden" | "gave_up" | "bad_request" | "hang"
    calls: int = 0
    is_ready: bool = True
    hang: asyncio.Event = field(default_factory=asyncio.Event)

    def configured(self) -> bool:
        return True

    def ready(self) -> bool:
        return self.is_ready

    async def send(self, sub, text: str, *, before_request=None, moment=None) -> SendOutcome:
        if before_request is not None and not await before_request():  # the scheduler is stopping
            return SendOutcome(False, 0, (), "not_attempted", sub.chat_id)
        self.calls += 1
        step = self.script.pop(0) if self.script else "ok"
        if step == "hang":  # a request that never returns (the process dies meanwhile)
            await self.hang.wait()
            step = "ok"
        if step == "ok":
            self.sent.append((sub.chat_id, text))
            return SendOutcome(True, 1, (len(self.sent),), None, sub.chat_id)
        return SendOutcome(False, 0, (), step, sub.chat_id)

    def sent_to(self, chat_id: str) -> list[str]:
        return [t for c, t in self.sent if c == chat_id]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(utc(2026, 11, 29, 21, 0))  # 06:00 in Seoul on Monday 30 November 2026


@pytest.fixture(params=DIALECTS)
def db_path(request, tmp_path) -> Iterator[str]:
    """The daily suite runs on SQLite and on PostgreSQL (a fresh schema per test, tests/servers.py)."""
    with database(request.param, str(tmp_path / "daily.db")) as target:
        yield target


@pytest.fixture
async def ctx(db_path: str, clock: ManualClock) -> AsyncIterator[AppContext]:
    context = await create_context(Settings(db_path=db_path, lang="ko", tz="Asia/Seoul"), clock=clock)
    try:
        yield context
    finally:
        await context.close()


Say = Callable[..., "asyncio.Future[Reply]"]


@pytest.fixture
def say(ctx: AppContext) -> Say:
    """Telegram by default, with a ko language hint (``say_to`` of the root conftest)."""
    return say_to(ctx, platform="telegram", lang_hint="ko")


async def settle(scheduler, timeout: float = 5.0) -> None:
    """Wait until the scheduler has handled everything due and sleeps, and its queues are empty."""

    async def _wait() -> None:
        while True:
            await scheduler.idle.wait()
            await scheduler.drain()
            await asyncio.sleep(0)
            if scheduler.idle.is_set() and scheduler.pending() == 0 and not scheduler.waiting:
                return
            await asyncio.sleep(0.01)

    await asyncio.wait_for(_wait(), timeout)


async def move(clock: ManualClock, scheduler, at: datetime, timeout: float = 5.0) -> None:
    """Set the clock; if that reaches the scheduler's wake-up instant, wait for it to act and settle."""
    await settle(scheduler, timeout)
    before = scheduler.cycles
    target = scheduler.sleeping_until
    clock.set(at)
    if target is not None and at >= target:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while scheduler.cycles == before:
            if loop.time() > end:
                raise TimeoutError("the scheduler did not wake up")
            await asyncio.sleep(0.002)
    await settle(scheduler, timeout)


@contextlib.asynccontextmanager
async def running_scheduler(ctx: AppContext, **kw) -> AsyncIterator:
    """A :class:`DailyScheduler` running in the background until the block ends."""
    from bot.scheduler import DailyScheduler

    scheduler = DailyScheduler(ctx, **kw)
    stop = asyncio.Event()
    task = asyncio.create_task(scheduler.run(stop))
    try:
        await settle(scheduler)
        yield scheduler
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
