"""A daily reading whose send meets a lost database connection before its request (issue 36 item 3), with
the fault injected at the exact point, in-process: the real ``TelegramTransport`` and ``TelegramSender``
against the fake Bot API, on SQLite.

The transport reads the subscriber's picture setting (``reading_picture``: ``storage.get_user``) before the
sender paces and marks the row ``sending``. A connection lost there was taken for a failed send (an
``exception`` attempt: logged with its traceback, the row's error written, and in the scheduler's own
workers a reading failed for good after three of them) instead of "not sent, the database is away": the
same back-off as a lost ``start_sending``, the row left ``claimed`` as it was, sent once when the database
answers. And a queue job that raises ends for good in arq, its row waiting for the scheduler's
``requeue_after`` (10 minutes): it runs again instead (the row's state keeps it from sending twice)."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import asyncpg
import pytest
import telegram

from bot.features.daily.reading import subscription_moment
from bot.scheduler import (
    DB_RETRY_FIRST,
    DB_RETRY_MAX,
    JOB_ERROR_RETRY,
    DeliveryWorker,
    LostDatabase,
    SchedulerStats,
    TelegramTransport,
    db_backoff,
    send_and_record,
)
from bot.storage import DailyStore
from tests.daily.conftest import ManualClock
from tests.fakes.telegram import FakeTelegram
from tests.reliability.test_daily_faults import NOW, _context, _requested, _subscribe

pytestmark = pytest.mark.filterwarnings("ignore:Deprecated since version v22.2")
CHAT = 7301


class FailOnce:
    """An awaitable stand-in for a storage method: raises ``error`` on its first call, then is the real one."""

    def __init__(self, real, error: BaseException) -> None:
        self.real = real
        self.error = error
        self.calls = 0

    async def __call__(self, *args):
        self.calls += 1
        if self.calls == 1:
            raise self.error
        return await self.real(*args)


def lost() -> BaseException:  # what asyncpg raised in the workers when the proxy cut their connections
    return asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation")


@pytest.fixture
async def tg():
    async with FakeTelegram() as fake:
        yield fake


async def _claimed(ctx) -> int:
    await _subscribe(ctx, range(CHAT, CHAT + 1))
    claimed, _ = await DailyStore(ctx.storage).claim_due(NOW, "scheduler-a", ["telegram"], timedelta(hours=2))
    [(delivery_id, _)] = claimed
    return delivery_id


async def _row(ctx, delivery_id: int) -> tuple:
    row = await ctx.storage.fetchone(
        "SELECT status, attempts, claimed_by, error FROM deliveries WHERE id = ?", (delivery_id,)
    )
    return tuple(row)


async def test_a_queue_job_whose_picture_setting_read_loses_the_database_runs_again_soon_and_sends_once(
    tg, tmp_path, monkeypatch
):
    async with telegram.Bot(tg.token, base_url=tg.base_url) as bot:
        ctx = await _context(str(tmp_path / "d.db"), ManualClock(NOW), bot)
        try:
            delivery_id = await _claimed(ctx)
            monkeypatch.setattr(ctx.storage, "get_user", FailOnce(ctx.storage.get_user, lost()))
            worker = DeliveryWorker(ctx)
            # the first lost connection of the worker: the shortest back-off, not a 2 s "retry" attempt
            assert await worker.deliver(delivery_id) == ("db_unreachable", DB_RETRY_FIRST)
            assert await _row(ctx, delivery_id) == ("claimed", 0, "scheduler-a", None)  # untouched
            assert _requested(tg) == Counter()
            assert await worker.deliver(delivery_id) == ("sent", None)  # run again: the database is back
            assert await worker.deliver(delivery_id) == ("sent", None)  # and once more: nothing sent
            assert await _row(ctx, delivery_id) == ("sent", 1, worker.token, None)
        finally:
            await ctx.close()
    assert _requested(tg) == Counter({str(CHAT): 1})


async def test_three_lost_picture_setting_reads_are_not_three_failed_attempts(tg, tmp_path, monkeypatch):
    """The scheduler's own workers count a job's attempts (``max_attempts`` 3): a lost connection at the
    third must not settle the reading as ``failed`` — no request was ever made."""
    async with telegram.Bot(tg.token, base_url=tg.base_url) as bot:
        ctx = await _context(str(tmp_path / "d.db"), ManualClock(NOW), bot)
        try:
            delivery_id = await _claimed(ctx)
            monkeypatch.setattr(ctx.storage, "get_user", FailOnce(ctx.storage.get_user, lost()))
            store = DailyStore(ctx.storage)
            found = await store.job(delivery_id)
            assert found is not None
            row, sub = found
            guard = LostDatabase(lambda: store.start_sending(delivery_id, "scheduler-a", NOW))
            result = await send_and_record(
                store, TelegramTransport(ctx), delivery_id, sub, "읽기", guard, 3, 3, ctx.clock,
                SchedulerStats(), subscription_moment(sub, row.due_at),
            )  # fmt: skip
            assert result == "not_attempted"
            assert isinstance(guard.error, asyncpg.exceptions.ConnectionDoesNotExistError)
            assert await _row(ctx, delivery_id) == ("claimed", 0, "scheduler-a", None)
        finally:
            await ctx.close()
    assert _requested(tg) == Counter()


async def test_a_queue_job_that_meets_an_unexpected_error_runs_again_instead_of_ending(tg, tmp_path):
    async with telegram.Bot(tg.token, base_url=tg.base_url) as bot:
        ctx = await _context(str(tmp_path / "d.db"), ManualClock(NOW), bot)
        try:
            delivery_id = await _claimed(ctx)
            worker = DeliveryWorker(ctx)
            worker.store.job = FailOnce(worker.store.job, RuntimeError("a fault no handler knows"))
            assert await worker.deliver(delivery_id) == ("error", JOB_ERROR_RETRY)  # arq's Retry, not the end
            assert await _row(ctx, delivery_id) == ("claimed", 0, "scheduler-a", None)
            assert await worker.deliver(delivery_id) == ("sent", None)
        finally:
            await ctx.close()
    assert _requested(tg) == Counter({str(CHAT): 1})


def test_the_backoff_after_thousands_of_lost_connections_is_the_cap_not_an_overflow():
    # a worker's jobs share the failure count: a 10-s outage pushed it past 1,024 and 2.0 ** 1024 raised
    # OverflowError inside the job, whose reading then stayed ``claimed`` (tests/scale/test_db_outage.py)
    assert [db_backoff(n) for n in (0, 1, 2, 3, 4, 5)] == [DB_RETRY_FIRST, 0.25, 0.5, 1.0, 2.0, DB_RETRY_MAX]
    assert db_backoff(1_025) == db_backoff(10**9) == DB_RETRY_MAX
