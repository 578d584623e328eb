"""End to end through ``sikpan run`` (``bot.app.run``): the real python-telegram-bot client against the fake
Bot API server (tests/fakes/telegram.py), with the application's clock replaced by a hand-moved one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

import bot.app
from bot.app import AppContext, create_context
from bot.commands import daily_pages
from bot.config import Settings
from bot.i18n import gettext
from bot.presentation import CURRENT
from bot.seal import unsealed
from bot.storage import DailyStore
from tests.chat._views import buttons
from tests.daily.conftest import move, settle, utc
from tests.fakes.clock import ManualClock
from tests.fakes.telegram import FakeTelegram, visible_text

TOKEN = "7012345678:AAHfake-TelegramToken_for-daily-tests-01"
pytestmark = pytest.mark.filterwarnings("ignore:Deprecated since version v22.2")

TITLE_KO = gettext("ko", "daily.title.liuren")


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(token=TOKEN) as fake:
        yield fake


def settings(tg: FakeTelegram, db: str) -> Settings:
    return Settings(
        telegram_token=tg.token, telegram_api_base_url=tg.base_url, db_path=db, lang="ko", tz="Asia/Seoul"
    )


@contextlib.asynccontextmanager
async def app_running(
    tg: FakeTelegram, db: str, clock: ManualClock, monkeypatch
) -> AsyncIterator[AppContext]:
    """``bot.app.run`` with the fake clock injected; yields its context once the scheduler sleeps."""
    contexts: list[AppContext] = []
    original = create_context

    async def with_clock(s: Settings, clock_: object = None) -> AppContext:
        ctx = await original(s, clock=clock)
        contexts.append(ctx)
        return ctx

    monkeypatch.setattr(bot.app, "create_context", with_clock)
    stop = asyncio.Event()
    before = len([c for c in tg.calls if c.method == "getUpdates"])
    task = asyncio.create_task(bot.app.run(settings(tg, db), stop))
    try:
        await tg.wait_for("getUpdates", before + 1, timeout=10)
        for _ in range(500):
            if contexts and contexts[0].daily_scheduler is not None:
                break
            await asyncio.sleep(0.01)
        ctx = contexts[0]
        await settle(ctx.daily_scheduler)
        yield ctx
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)


def daily_messages(tg: FakeTelegram, chat_id) -> list[str]:
    """The daily readings sent to a chat (the first message of each: the photo's caption, or the text)."""
    shown = [c.params.get("text") or c.params.get("caption") or "" for c in tg.sent_to(chat_id)]
    return [text for text in shown if text.startswith(f"<b>{TITLE_KO}")]


async def ask(tg: FakeTelegram, text: str, chat_id: int, **kw) -> str:
    before = len(tg.sent_to(chat_id))
    tg.user_says(text, chat_id=chat_id, **kw)
    calls = await tg.wait_sent(chat_id, before + 1, timeout=10)
    return calls[before].params["text"]


async def test_a_minute_ahead_delivered_once_and_restarts(tg, tmp_path, monkeypatch):
    """Issue 8 "done when": set a minute ahead → delivered once at that minute; a restart right after
    delivery sends nothing more; a restart before it sends it once."""
    db = str(tmp_path / "db.sqlite")
    clock = ManualClock(utc(2026, 11, 29, 22, 14, 30))  # 07:14:30 in Seoul
    async with app_running(tg, db, clock, monkeypatch) as ctx:
        answer = await ask(tg, "/daily 07:15", 501, language_code="ko")
        assert "07:15" in answer and "2026-11-30 07:15" in answer
        s = ctx.daily_scheduler
        await settle(s)
        assert s.sleeping_until == utc(2026, 11, 29, 22, 15)
        await move(clock, s, utc(2026, 11, 29, 22, 14, 59))
        assert daily_messages(tg, 501) == []
        await move(clock, s, utc(2026, 11, 29, 22, 15))
        [text] = daily_messages(tg, 501)
        assert "2026-11-30 (월) 07:15 Asia/Seoul" in text
        await move(clock, s, utc(2026, 11, 29, 22, 20))
        assert len(daily_messages(tg, 501)) == 1

    async with app_running(tg, db, clock, monkeypatch) as ctx:  # restart right after the delivery
        await settle(ctx.daily_scheduler)
        assert ctx.daily_scheduler.sleeping_until == utc(2026, 11, 30, 22, 15)
    assert len(daily_messages(tg, 501)) == 1

    # a restart before the delivery: stopped at 07:14 the next day, started again at 07:16
    clock.set(utc(2026, 11, 30, 22, 14))
    async with app_running(tg, db, clock, monkeypatch):
        pass
    assert len(daily_messages(tg, 501)) == 1
    clock.set(utc(2026, 11, 30, 22, 16))
    async with app_running(tg, db, clock, monkeypatch) as ctx:
        await settle(ctx.daily_scheduler)
        for _ in range(200):
            if len(daily_messages(tg, 501)) == 2:
                break
            await asyncio.sleep(0.01)
        assert len(daily_messages(tg, 501)) == 2
        await move(clock, ctx.daily_scheduler, utc(2026, 11, 30, 23, 0))
        assert len(daily_messages(tg, 501)) == 2
        # /today answers with the very text delivered today (cast for 07:15, although sent at 07:16)
        last = daily_messages(tg, 501)[-1]
        assert "2026-12-01 (화) 07:15" in last
        # (the delivery is one photo: the picture, the reading's first page as its caption — whole, with the
        # buttons of its pages; /today opens on the same page)
        today = visible_text(await ask(tg, "/today", 501, language_code="ko"), "HTML")
        caption = visible_text(last, "HTML")
        assert len(caption) <= 1024 and gettext("ko", "daily.picture.more") not in caption
        assert today == caption
    rows = await _deliveries(db)
    assert [(r.local_date.isoformat(), r.status) for r in rows] == [
        ("2026-11-30", "sent"),
        ("2026-12-01", "sent"),
    ]


async def _deliveries(db: str):
    ctx = await create_context(Settings(db_path=db))
    try:
        return await DailyStore(ctx.storage).deliveries()
    finally:
        await ctx.close()


async def test_429_storm_loses_nothing_and_sends_each_once(tg, tmp_path, monkeypatch):
    db = str(tmp_path / "db.sqlite")
    clock = ManualClock(utc(2026, 11, 29, 21, 0))
    chats = list(range(1001, 1021))
    async with app_running(tg, db, clock, monkeypatch) as ctx:
        for chat in chats:
            await ask(tg, "/daily 07:00", chat, language_code="ko")
        s = ctx.daily_scheduler
        # the next twelve readings (each one sendPhoto: the picture of the day, default on) get 429 retry_after=1
        tg.rate_limit(1, times=12, method="sendPhoto")
        await move(clock, s, utc(2026, 11, 29, 22, 0), timeout=30)
        for chat in chats:
            assert len(daily_messages(tg, chat)) == 1, chat
        sender = ctx.telegram_sender
        assert sender.retry_waits and set(sender.retry_waits) == {1.0}  # the server's value, honoured
        assert len([c for c in tg.calls if c.status == 429]) == 12
    rows = await _deliveries(db)
    assert len(rows) == 20 and {r.status for r in rows} == {"sent"}


async def test_blocked_user_disables_the_subscription(tg, tmp_path, monkeypatch):
    db = str(tmp_path / "db.sqlite")
    clock = ManualClock(utc(2026, 11, 29, 21, 0))
    async with app_running(tg, db, clock, monkeypatch) as ctx:
        await ask(tg, "/daily 07:00", 77, language_code="ko")
        await ask(tg, "/daily 07:00", 78, language_code="ko")
        tg.block(77)
        s = ctx.daily_scheduler
        await move(clock, s, utc(2026, 11, 29, 22, 0))
        await move(clock, s, utc(2026, 11, 30, 22, 0))
        assert len(daily_messages(tg, 78)) == 2
        forbidden = [c for c in tg.calls if c.status == 403]
        assert len(forbidden) == 1  # never retried, never tried again the next day
        store = DailyStore(ctx.storage)
        sub = await store.for_chat("telegram", "77")
        assert not sub.active and sub.disabled_reason.startswith("forbidden")
        assert [r.status for r in await store.deliveries(sub.id)] == ["blocked"]


def _daily_call(tg: FakeTelegram, chat_id):
    """The sendPhoto/sendMessage call of the (last) daily reading sent to a chat."""
    calls = [
        c
        for c in tg.sent_to(chat_id)
        if (c.params.get("caption") or c.params.get("text") or "").startswith(f"<b>{TITLE_KO}")
    ]
    return calls[-1]


async def _press(tg: FakeTelegram, call, page: str, chat_id, **kw):
    """Press the button of ``page`` under a delivered reading; returns (the notice answered, the edit or None)."""
    [button] = [
        b
        for b in buttons(call)
        if (ref := daily_pages.decode(unsealed(b["callback_data"]))) and ref.page == page and ref.part == 0
    ]
    answers = len([c for c in tg.calls if c.method == "answerCallbackQuery"])
    edits = len([c for c in tg.calls if c.method.startswith("editMessage") and c.status == 200])
    tg.callback_query(
        button["callback_data"],
        chat_id=chat_id,
        message_id=call.result["message_id"],
        message=call.result,
        **kw,
    )
    [answer] = (await tg.wait_for("answerCallbackQuery", answers + 1, timeout=10))[answers:]
    edited = [c for c in tg.calls if c.method.startswith("editMessage") and c.status == 200][edits:]
    return answer.params.get("text"), (edited[0] if edited else None)


def _member(status: str):
    async def handler(params):
        user = {"id": int(params["user_id"]), "is_bot": False, "first_name": "M"}
        result = {"status": status, "user": user}
        if status == "creator":
            result["is_anonymous"] = False
        return 200, {"ok": True, "result": result}

    return handler


async def test_group_non_admin_cannot_change_daily(tg, tmp_path, monkeypatch):
    db = str(tmp_path / "db.sqlite")
    clock = ManualClock(utc(2026, 11, 29, 21, 0))
    async with app_running(tg, db, clock, monkeypatch) as ctx:
        tg.overrides["getChatMember"] = _member("member")
        answer = await ask(tg, "/daily 07:00", -100500, user_id=9, chat_type="supergroup", language_code="ko")
        assert answer == "⚠ " + gettext("ko", "bot.error.admin_only", name="daily")
        store = DailyStore(ctx.storage)
        assert await store.for_chat("telegram", "-100500") is None
        tg.overrides["getChatMember"] = _member("creator")
        answer = await ask(  # with a topic (issue 32 item 4): 재물 names seed 003's 求財
            tg, "/daily 07:00 재물", -100500, user_id=10, chat_type="supergroup", language_code="ko"
        )
        assert "구재(求財)" in answer
        sub = await store.for_chat("telegram", "-100500")
        assert sub is not None and sub.active and sub.chat_kind == "group"
        tg.overrides["getChatMember"] = _member("member")
        answer = await ask(tg, "/daily off", -100500, user_id=9, chat_type="supergroup", language_code="ko")
        assert answer == "⚠ " + gettext("ko", "bot.error.admin_only", name="daily")
        assert (await store.for_chat("telegram", "-100500")).active
        await move(clock, ctx.daily_scheduler, utc(2026, 11, 29, 22, 0))
        assert len(daily_messages(tg, -100500)) == 1
        # its page buttons (issue 32 item 4) work for any member of the group, and nowhere else
        sent = _daily_call(tg, -100500)
        caption = visible_text(sent.params["caption"], "HTML").split("\n\n")
        assert caption[1].startswith(gettext("ko", "daily.topic", topic="구재(求財)"))  # the topic leads
        assert [daily_pages.decode(unsealed(b["callback_data"])).page for b in buttons(sent)] == [
            "day",
            "chart",
            "topics",
        ]
        notice, edit = await _press(tg, sent, "chart", -100500, user_id=9, chat_type="supergroup")
        assert notice is None and edit is not None and edit.method == "editMessageCaption"
        assert gettext("ko", "daily.liuren") in visible_text(edit.params["caption"], "HTML")
        labels = [b["text"] for b in buttons(edit)]
        assert labels[:2] == [
            gettext("ko", "chat.page.daily.day"),
            CURRENT + gettext("ko", "chat.page.daily.chart"),
        ]
        notice, edit = await _press(tg, sent, "chart", 9, user_id=9)  # the group's button in a private chat
        assert notice == gettext("ko", "chat.button.expired") and edit is None


async def test_daily_picture_setting_on_sends_one_photo_off_sends_text(tg, tmp_path, monkeypatch):
    """Issue 14: the daily reading carries the picture of the day's 課 unless its owner turned it off
    (``/settings daily_picture off``); a photo delivery is one request (its caption is the reading)."""
    import io

    from PIL import Image

    db = str(tmp_path / "db.sqlite")
    clock = ManualClock(utc(2026, 11, 29, 21, 0))
    async with app_running(tg, db, clock, monkeypatch) as ctx:
        await ask(tg, "/daily 07:00", 601, language_code="ko")  # default: on
        await ask(tg, "/lang lzh", 602, language_code="ko")
        await ask(tg, "/daily 07:00", 602, language_code="ko")
        await ask(tg, "/settings daily_picture off", 603, language_code="ko")
        await ask(tg, "/daily 07:00", 603, language_code="ko")
        before = len(tg.calls)
        await move(clock, ctx.daily_scheduler, utc(2026, 11, 29, 22, 0))
        sent = [c for c in tg.calls[before:] if c.method in ("sendPhoto", "sendMessage")]
        by_chat = {chat: [c for c in sent if c.params["chat_id"] == chat] for chat in (601, 602, 603)}
        [ko] = by_chat[601]
        [lzh] = by_chat[602]
        [off] = by_chat[603]
        for photo in (ko, lzh):
            assert photo.method == "sendPhoto" and photo.status == 200
            image = Image.open(io.BytesIO(photo.files["photo"]))
            assert image.format == "PNG" and min(image.size) >= 640
            assert len(visible_text(photo.params["caption"], "HTML")) <= 1024
        assert ko.params["caption"].startswith(f"<b>{TITLE_KO}")
        # the caption is the reading /today shows: whole when it fits, else cut at a line with a pointer to /today
        today_lzh = await ask(tg, "/today", 602, language_code="ko")
        caption = lzh.params["caption"]
        if caption != today_lzh:
            kept, pointer = caption.rsplit("\n", 1)
            assert "/today" in pointer and "/today" not in kept
            assert today_lzh.startswith(kept + "\n") and len(kept) > 200
        assert off.method == "sendMessage" and off.params["text"].startswith(f"<b>{TITLE_KO}")
        # the page buttons: the photo's caption becomes the page (in caption-sized parts), a text its text
        notice, edit = await _press(tg, ko, "chart", 601)
        assert notice is None and edit.method == "editMessageCaption"
        chart = visible_text(edit.params["caption"], "HTML")
        assert chart.startswith(TITLE_KO) and gettext("ko", "daily.liuren") in chart and len(chart) <= 1024
        parts = [b for b in buttons(edit) if daily_pages.decode(unsealed(b["callback_data"])).part > 0]
        if parts:  # the 課傳 page is longer than a caption: its other parts one tap away
            assert all(daily_pages.decode(unsealed(b["callback_data"])).page == "chart" for b in parts)
        notice, edit = await _press(tg, edit, "day", 601)
        assert edit is not None and edit.params["caption"] == ko.params["caption"]  # back to the first page
        notice, edit = await _press(tg, lzh, "chart", 602)
        assert edit is not None and gettext("lzh", "daily.liuren") in edit.params["caption"]
        notice, edit = await _press(tg, off, "chart", 603)
        assert edit.method == "editMessageText" and gettext("ko", "daily.liuren") in edit.params["text"]
        notice, edit = await _press(tg, edit, "topics", 603)  # the page of every topic
        assert gettext("ko", "daily.topics") in edit.params["text"] and "구재(求財)" in edit.params["text"]
        notice, edit = await _press(tg, off, "chart", 603, user_id=777)  # sealed for the subscriber alone
        assert notice == gettext("ko", "chat.button.expired") and edit is None
    rows = await _deliveries(db)
    assert len(rows) == 3 and {r.status for r in rows} == {"sent"}
