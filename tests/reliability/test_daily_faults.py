"""Daily deliveries under faults, in-process: the real ``TelegramSender`` (paced) against the fake Bot API.

#12.4 ``sending`` is written after the pacing wait, immediately before the request: a stop while readings
are queued behind the pacer leaves them ``claimed`` (sent after the next start), never ``uncertain``.
#12.3 a lost ``sendPhoto`` answer (a reading's first request: its picture) makes the delivery ``uncertain`` and it is never sent again.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import time, timedelta

import pytest
import telegram

from bot.app import create_context
from bot.config import Settings
from bot.scheduler import DailyScheduler, DailyStore, TelegramTransport
from bot.telegram.sender import TelegramSender
from tests.daily.conftest import ManualClock, utc
from tests.fakes.telegram import FakeTelegram

pytestmark = pytest.mark.filterwarnings("ignore:Deprecated since version v22.2")
NOW = utc(2026, 11, 29, 21, 0)  # 06:00 in Seoul: the subscriptions below are due now


@pytest.fixture
async def tg():
    async with FakeTelegram() as fake:
        yield fake


async def _context(db: str, clock: ManualClock, bot: telegram.Bot, **sender_kw):
    ctx = await create_context(Settings(db_path=db, lang="ko", tz="Asia/Seoul"), clock=clock)
    ctx.telegram_sender = TelegramSender(bot, **sender_kw)
    return ctx


async def _subscribe(ctx, chats: range) -> None:
    store = DailyStore(ctx.storage)
    for chat in chats:
        await store.subscribe(
            platform="telegram", chat_id=str(chat), chat_kind="private", user_key=f"telegram:{chat}",
            at_time=time(6, 0), tz="Asia/Seoul", lang="ko", kind="liuren", options={},
            now=NOW - timedelta(days=1),
        )  # fmt: skip


def _requested(tg: FakeTelegram) -> Counter[str]:
    # a reading is one sendPhoto (the picture of the day's 課, its caption the reading's first part)
    return Counter(str(c.params.get("chat_id")) for c in tg.calls if c.method == "sendPhoto")


async def _statuses(ctx) -> dict[str, str]:
    rows = await ctx.storage.fetchall(
        "SELECT s.chat_id, d.status FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id"
    )
    return {r[0]: r[1] for r in rows}


async def test_a_stop_while_readings_wait_for_the_pacer_leaves_them_claimed_then_sent_once(tg, tmp_path):
    db = str(tmp_path / "daily.db")
    clock = ManualClock(NOW)
    chats = range(5001, 5031)  # 30 readings at 4 msg/s overall: most of them wait for the pacer
    async with telegram.Bot(tg.token, base_url=tg.base_url) as bot:
        ctx = await _context(db, clock, bot, overall_rate=4.0)
        await _subscribe(ctx, chats)
        scheduler = DailyScheduler(ctx, transports={"telegram": TelegramTransport(ctx)}, shutdown_timeout=0.5)
        stop = asyncio.Event()
        task = asyncio.create_task(scheduler.run(stop))
        await tg.wait_sent(count=4, timeout=10)
        stop.set()  # what SIGTERM does in ``sikpan run``
        await asyncio.wait_for(task, 10)
        await asyncio.sleep(0.2)
        first = await _statuses(ctx)
        requested = _requested(tg)
        # never-tried rows are not in flight: only rows whose request reached Telegram left "claimed"
        in_flight = {chat for chat, status in first.items() if status in ("sending", "uncertain")}
        assert in_flight <= set(requested), in_flight - set(requested)
        assert sum(status == "claimed" for status in first.values()) >= 15
        await ctx.close()

        # the next start sends every claimed reading; nobody gets a reading twice
        ctx = await _context(db, clock, bot, overall_rate=50.0)
        scheduler = DailyScheduler(ctx, transports={"telegram": TelegramTransport(ctx)})
        stop = asyncio.Event()
        task = asyncio.create_task(scheduler.run(stop))
        await tg.wait_sent(count=len(chats), timeout=15)
        stop.set()
        await asyncio.wait_for(task, 10)
        final = await _statuses(ctx)
        await ctx.close()
    assert set(final.values()) == {"sent"}, Counter(final.values())
    assert all(n == 1 for n in _requested(tg).values()) and len(_requested(tg)) == len(chats)


async def test_a_lost_send_message_answer_is_uncertain_and_not_resent(tg, tmp_path):
    clock = ManualClock(NOW)
    tg.lose_response("sendPhoto", chat_id=6001)
    async with telegram.Bot(tg.token, base_url=tg.base_url) as bot:
        ctx = await _context(str(tmp_path / "d.db"), clock, bot, backoff=0.01)
        await _subscribe(ctx, range(6001, 6003))
        scheduler = DailyScheduler(ctx, transports={"telegram": TelegramTransport(ctx)}, backoff=0.01)
        stop = asyncio.Event()
        task = asyncio.create_task(scheduler.run(stop))
        await tg.wait_sent(count=2, timeout=10)
        await asyncio.sleep(0.5)  # time for any retry to happen
        stop.set()
        await asyncio.wait_for(task, 10)
        statuses = await _statuses(ctx)
        await ctx.close()
    assert statuses == {"6001": "uncertain", "6002": "sent"}
    assert _requested(tg) == {"6001": 1, "6002": 1}  # Telegram holds one message per chat
    assert scheduler.stats.uncertain == 1
