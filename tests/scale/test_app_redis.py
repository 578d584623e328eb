"""``sikpan run`` (role all) with ``SIKPAN_REDIS_URL``: the scheduler queues the Telegram readings (arq) and the
same process works the queue through its adapter's sender, whose budgets are in Redis. End to end with the
real python-telegram-bot against the fake Bot API, on the real Redis."""

from __future__ import annotations

import asyncio

import pytest

import bot.app
from bot.app import AppContext, create_context
from bot.config import Settings
from bot.limits import RedisLimiter
from bot.storage import DailyStore, Storage
from tests.fakes.telegram import FakeTelegram
from tests.servers import fresh_redis_url
from tests.subscriptions import subscribe_due_in

TOKEN = "7012345678:AAHfake-TelegramToken_for-redis-app-01"
pytestmark = pytest.mark.filterwarnings("ignore:Deprecated since version v22.2")


async def test_role_all_with_redis_queues_and_sends_each_reading_once(tmp_path, monkeypatch):
    db = str(tmp_path / "app.db")
    await subscribe_due_in(db, 3, first_chat=700)
    contexts: list[AppContext] = []
    original = create_context

    async def keep(s: Settings, clock: object = None) -> AppContext:
        ctx = await original(s)
        contexts.append(ctx)
        return ctx

    monkeypatch.setattr(bot.app, "create_context", keep)
    with fresh_redis_url() as url:
        async with FakeTelegram(token=TOKEN) as tg:
            settings = Settings(
                telegram_token=tg.token,
                telegram_api_base_url=tg.base_url,
                db_path=db,
                sqlite_shared=True,  # one file for the tasks of this test
                redis_url=url,
                tz="UTC",
            )
            stop = asyncio.Event()
            task = asyncio.create_task(bot.app.run(settings, stop))
            try:
                sent = await tg.wait_sent(count=3, timeout=30)
                tg.user_says("/start", chat_id=42, language_code="ko")
                await tg.wait_sent(chat_id=42, count=1, timeout=10)  # a reply through the shared budget
                await asyncio.sleep(0.5)
                ctx = contexts[0]
                assert isinstance(ctx.limiter, RedisLimiter)
                assert ctx.daily_scheduler.stats.queued == 3  # through arq, not in-process
            finally:
                stop.set()
                await asyncio.wait_for(task, 30)
    assert sorted(str(c.params["chat_id"]) for c in sent) == ["700", "701", "702"]
    assert len([c for c in tg.sent if str(c.params["chat_id"]) in ("700", "701", "702")]) == 3
    storage = await Storage.open(db)
    try:
        assert {d.status for d in await DailyStore(storage).deliveries()} == {"sent"}
    finally:
        await storage.close()


async def test_roles_scheduler_and_worker_with_redis_send_each_reading_once(tmp_path):
    """``--role scheduler`` (Telegram readings → the queue, no client) and ``--role worker`` (the queue → the
    fake Bot API) as ``bot.app.run`` runs them: each reading once, through arq."""
    db = str(tmp_path / "roles.db")
    await subscribe_due_in(db, 3, first_chat=800)
    with fresh_redis_url() as url:
        async with FakeTelegram(token=TOKEN) as tg:
            common = {
                "telegram_token": tg.token,
                "telegram_api_base_url": tg.base_url,
                "db_path": db,
                "sqlite_shared": True,  # both roles open this one file
            }
            stop = asyncio.Event()
            tasks = [
                asyncio.create_task(bot.app.run(Settings(**common, redis_url=url, tz="UTC", role=role), stop))
                for role in ("scheduler", "worker")
            ]
            try:
                sent = await tg.wait_sent(count=3, timeout=30)
                await asyncio.sleep(0.5)
            finally:
                stop.set()
                await asyncio.wait_for(asyncio.gather(*tasks), 30)
    assert sorted(str(c.params["chat_id"]) for c in sent) == ["800", "801", "802"]
    assert len([c for c in tg.sent if str(c.params["chat_id"]) in ("800", "801", "802")]) == 3
    assert not [c for c in tg.calls if c.method == "getUpdates"]  # send-only: no role took updates in
    storage = await Storage.open(db)
    try:
        assert {d.status for d in await DailyStore(storage).deliveries()} == {"sent"}
    finally:
        await storage.close()


@pytest.fixture(autouse=True)
def _needs_redis():
    from tests.servers import require_redis

    require_redis()
