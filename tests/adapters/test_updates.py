"""Updates in without python-telegram-bot's update machinery (issue #18): the value type read from the Bot
API's JSON (checked against PTB's own ``Update.de_json`` of the same JSON, an independent reading), and our
long polling against the fake Bot API (offsets confirmed on stop, 409 between two instances, 5xx and 401,
a failing handler)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import re
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
import telegram
from telegram.error import InvalidToken

import bot.telegram as tgmod
from bot.commands import error_reply
from bot.telegram import TelegramAdapter
from bot.telegram.polling import Poller
from bot.telegram.updates import parse_update
from bot.views import render
from tests.adapters.conftest import running, tg_settings
from tests.fakes.telegram import FakeTelegram

# The sample update of the Bot API's webhook guide ("Testing your bot with updates",
# core.telegram.org/bots/webhooks): a private chat, a text message from "Test Firstname" "Test Lastname";
# here with the text "/start" and the bot_command entity clients add, and a language_code.
PRIVATE_COMMAND = """{
  "update_id": 10000,
  "message": {
    "date": 1441645532,
    "chat": {"last_name": "Test Lastname", "id": 1111111, "type": "private",
             "first_name": "Test Firstname", "username": "Testusername"},
    "message_id": 1365,
    "from": {"last_name": "Test Lastname", "id": 1111111, "is_bot": false,
             "first_name": "Test Firstname", "username": "Testusername", "language_code": "ko"},
    "text": "/start",
    "entities": [{"offset": 0, "length": 6, "type": "bot_command"}]
  }
}"""

# A command addressed by name in a supergroup (the Bot API: "/command@botname"; the entity covers the name).
GROUP_COMMAND = """{
  "update_id": 10001,
  "message": {
    "message_id": 77,
    "from": {"id": 2222222, "is_bot": false, "first_name": "김", "language_code": "zh-hant"},
    "chat": {"id": -1001234567890, "title": "易學", "type": "supergroup"},
    "date": 1441645600,
    "text": "/shensha@sikpan_bot 甲子",
    "entities": [{"offset": 0, "length": 19, "type": "bot_command"}]
  }
}"""

# A button pressed under one of our photo messages (a CallbackQuery: id, from, message, chat_instance, data).
CALLBACK_ON_PHOTO = """{
  "update_id": 10002,
  "callback_query": {
    "id": "4382bfdwdsb323b2d9",
    "from": {"id": 1111111, "is_bot": false, "first_name": "Test Firstname", "last_name": "Test Lastname",
             "language_code": "en"},
    "message": {
      "message_id": 1366,
      "from": {"id": 123456, "is_bot": true, "first_name": "sikpan", "username": "sikpan_bot"},
      "chat": {"id": 1111111, "first_name": "Test Firstname", "type": "private"},
      "date": 1441645540,
      "photo": [{"file_id": "AgAD-small", "file_unique_id": "s1", "width": 90, "height": 90},
                {"file_id": "AgAD-large", "file_unique_id": "l1", "width": 800, "height": 800}],
      "caption": "盤"
    },
    "chat_instance": "-1234567890",
    "data": "p:1111111:1:chart"
  }
}"""


def _ptb(raw: str) -> telegram.Update:
    update = telegram.Update.de_json(json.loads(raw), None)
    assert update is not None
    return update


def test_a_private_text_command_reads_as_ptb_reads_it():
    update = parse_update(json.loads(PRIVATE_COMMAND))
    ptb = _ptb(PRIVATE_COMMAND)
    assert update is not None and ptb.message is not None and ptb.effective_user is not None
    message = update.message
    assert message is not None and update.callback_query is None
    assert update.update_id == ptb.update_id == 10000
    assert (message.message_id, message.chat.id, message.chat.type) == (1365, 1111111, "private")
    assert message.text == ptb.message.text == "/start"
    assert [(e.type, e.offset, e.length) for e in message.entities] == [
        (e.type, e.offset, e.length) for e in ptb.message.entities
    ]
    user = update.effective_user
    assert user is not None
    assert user.full_name == ptb.effective_user.full_name == "Test Firstname Test Lastname"
    assert (user.id, user.language_code) == (1111111, "ko")
    assert message.sender_chat_id is None and not message.has_photo
    assert update.effective_chat == message.chat and update.effective_message is message


def test_a_group_command_with_the_bot_name():
    update = parse_update(json.loads(GROUP_COMMAND))
    ptb = _ptb(GROUP_COMMAND)
    assert update is not None and update.message is not None and ptb.effective_user is not None
    assert update.message.chat.type == "supergroup" and update.message.chat.id == -1001234567890
    user = update.effective_user
    assert user is not None and user.full_name == ptb.effective_user.full_name == "김"  # no last name
    adapter = TelegramAdapter(cast(Any, None), cast(Any, None))
    adapter.username = "sikpan_bot"
    assert adapter.command_text(update) == "/shensha 甲子"
    adapter.username = "other_bot"  # /cmd@sikpan_bot is not for another bot
    assert adapter.command_text(update) is None


def test_a_callback_query_on_a_photo_message():
    update = parse_update(json.loads(CALLBACK_ON_PHOTO))
    ptb = _ptb(CALLBACK_ON_PHOTO)
    assert update is not None and update.message is None
    query = update.callback_query
    assert query is not None and ptb.callback_query is not None
    assert (query.id, query.data) == ("4382bfdwdsb323b2d9", "p:1111111:1:chart")
    assert query.from_user.full_name == ptb.callback_query.from_user.full_name
    assert query.from_user.language_code == "en"
    assert query.message is not None and query.message.has_photo
    assert (query.message.chat.id, query.message.message_id) == (1111111, 1366)
    assert update.effective_chat == query.message.chat and update.effective_user == query.from_user


def test_updates_of_another_kind_are_ignored(caplog):
    caplog.set_level(logging.INFO)
    edited = json.loads(PRIVATE_COMMAND.replace('"message"', '"edited_message"', 1))
    member = {
        "update_id": 10003,
        "my_chat_member": {
            "chat": {"id": 1, "type": "private", "first_name": "A"},
            "from": {"id": 1, "is_bot": False, "first_name": "A"},
            "date": 1,
            "old_chat_member": {"status": "member", "user": {"id": 2, "is_bot": True, "first_name": "b"}},
            "new_chat_member": {"status": "kicked", "user": {"id": 2, "is_bot": True, "first_name": "b"},
                                "until_date": 0},
        },
    }  # fmt: skip
    assert parse_update(edited) is None
    assert parse_update(member) is None
    assert "edited_message" in caplog.text and "my_chat_member" in caplog.text


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "update",
        {"message": {}},  # no update_id
        {"update_id": "10000", "message": {}},
        {"update_id": True, "message": {}},
        {"update_id": 1, "message": {"message_id": 1, "text": "/start"}},  # no chat
        {"update_id": 1, "message": {"message_id": 1, "chat": {"id": "1", "type": "private"}}},
        {"update_id": 1, "message": {"message_id": 1, "chat": {"id": 1, "type": "private"}, "entities": {}}},
        {"update_id": 1, "message": {"message_id": 1, "chat": {"id": 1, "type": "private"}, "text": 5}},
        {
            "update_id": 1,
            "message": {"message_id": 1, "chat": {"id": 1, "type": "private"}, "from": {"id": 1}},
        },
        {"update_id": 1, "callback_query": {"id": "q", "data": "x"}},  # no from
        {"update_id": 1, "callback_query": None},
    ],
)
def test_malformed_updates_are_ignored_not_raised(data, caplog):
    assert parse_update(data) is None
    assert "could not be read" in caplog.text


# ------------------------------------------------------------------------------------- polling, end to end
@contextlib.asynccontextmanager
async def polling(
    tg: FakeTelegram, db: str
) -> AsyncIterator[tuple[TelegramAdapter, Any, asyncio.Task[None]]]:
    """One sikpan poller on ``tg`` (the application as ``sikpan run`` builds it); stopped at the end."""
    from bot.app import create_context

    ctx = await create_context(tg_settings(tg, db))
    app = tgmod.build_application(ctx, tg.token, tg.base_url)
    stop = asyncio.Event()
    try:
        async with app:
            await tgmod.prepare(app)
            await app.start()
            task = asyncio.create_task(tgmod.poll(app, stop, timeout=10))
            try:
                yield app.bot_data["adapter"], app, task
            finally:
                stop.set()
                with contextlib.suppress(InvalidToken):
                    await asyncio.wait_for(task, 20)
                await app.stop()
    finally:
        await ctx.close()


async def test_offsets_are_confirmed_on_stop_and_a_restart_gets_nothing_again(tg, tmp_path):
    db = str(tmp_path / "db.sqlite")
    async with running(tg_settings(tg, db), ready=tg) as run:
        ids = [tg.user_says("/shensha 甲子", chat_id=300 + i)["update_id"] for i in range(3)]
        for update_id in ids:
            assert await run.telegram.wait_handled(update_id) is not None
    # the updates taken were confirmed to Telegram before the process ended (getUpdates with offset past them)
    assert tg.confirmed_offset == max(ids) + 1
    async with running(tg_settings(tg, db), ready=tg) as run:
        fresh = tg.user_says("/shensha 甲子", chat_id=399)
        assert await run.telegram.wait_handled(fresh["update_id"]) is not None
        assert not set(ids) & set(run.telegram.handled)  # nothing handled again
    assert [len(tg.sent_to(300 + i)) for i in range(3)] == [1, 1, 1]


async def test_a_handler_that_raises_gets_the_internal_error_reply_and_polling_goes_on(
    tg, tmp_path, monkeypatch, caplog
):
    real_handle = TelegramAdapter.handle

    async def handle(self, update):
        if update.message is not None and update.message.text == "/shensha 乙丑":
            raise RuntimeError("handler bug")
        return await real_handle(self, update)

    monkeypatch.setattr(TelegramAdapter, "handle", handle)
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        bad = tg.user_says("/shensha 乙丑", chat_id=401)
        assert await run.telegram.wait_handled(bad["update_id"]) is None
        good = tg.user_says("/shensha 甲子", chat_id=402)
        assert (await run.telegram.wait_handled(good["update_id"])) is not None
    [answer] = tg.sent_to(401)
    assert answer.params["text"] == render(error_reply("bot.error.internal", "ko"), "telegram")
    assert "天乙貴人" in tg.sent_to(402)[0].params["text"]
    assert "handler bug" in caplog.text and f"update {bad['update_id']} in chat 401" in caplog.text


async def test_5xx_and_network_errors_are_retried_with_back_off(tg, tmp_path, caplog):
    tg.fail("getUpdates", 502, "Bad Gateway", times=2)
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, app, task):
        update = tg.user_says("/shensha 甲子", chat_id=501)
        assert await adapter.wait_handled(update["update_id"], timeout=10) is not None
    polls = [c for c in tg.calls if c.method == "getUpdates"]
    failed = [c for c in polls if c.status == 502]
    assert len(failed) == 2
    first_ok = next(c for c in polls if c.status == 200)
    assert first_ok.at - failed[0].at >= 1.0 + 1.5 - 0.1  # waited 1 s, then 1.5 s
    assert caplog.text.count("getUpdates failed") == 2


async def test_a_revoked_token_ends_polling_with_a_clear_error(tg, tmp_path, caplog):
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, app, task):
        await tg.wait_for("getUpdates", timeout=10)
        tg.token = "7012345678:revoked"  # every request with the old token is 401 from now on
        with pytest.raises(InvalidToken):
            await asyncio.wait_for(asyncio.shield(task), 15)
    assert "refused the token" in caplog.text


async def test_two_pollers_on_one_token_one_polls_the_other_backs_off_no_update_twice(tg, tmp_path, caplog):
    """Telegram ends the older of two long polls with 409 (the fake as the Bot API server). Each instance logs
    its conflicts and backs off — growing, not reset by the polls between — and every update is handled by
    one instance, once: by both only when Telegram itself gave it to both (an update is forgotten only when
    the next poll confirms it, so a poll of the other instance in the milliseconds between an answer and that
    next poll gets it too — the Bot API's behaviour, which no client can prevent)."""
    caplog.set_level(logging.WARNING)
    async with (
        polling(tg, str(tmp_path / "a.sqlite")) as (first, app_a, _),
        polling(tg, str(tmp_path / "b.sqlite")) as (second, app_b, _),
    ):
        ids = []
        loop = asyncio.get_running_loop()
        started = loop.time()
        for i in range(30):  # ≈ 12 s of commands at uneven intervals (not in step with the 1 s back-offs)
            ids.append(tg.user_says("/shensha 甲子", chat_id=600 + i % 6)["update_id"])
            await asyncio.sleep(0.29 + 0.13 * (i % 3))
        for update_id in ids:  # every command answered, by one instance or the other
            for _ in range(200):
                if update_id in first.handled or update_id in second.handled:
                    break
                await asyncio.sleep(0.05)
        elapsed = loop.time() - started
        pollers: list[Poller] = [app_a.bot_data["poller"], app_b.bot_data["poller"]]
    handled_a = {i for i in ids if i in first.handled}
    handled_b = {i for i in ids if i in second.handled}
    assert handled_a | handled_b == set(ids)
    given = collections.Counter(
        u["update_id"]
        for c in tg.calls
        if c.method == "getUpdates" and c.status == 200
        for u in c.result or ()
    )
    assert handled_a & handled_b <= {
        i for i, n in given.items() if n > 1
    }  # handled twice only if given twice
    replies = sum(len(tg.sent_to(600 + k)) for k in range(6))
    assert replies == sum(given[i] for i in ids)  # one reply per update given: none handled twice by one
    # the conflict was seen, logged as such, and backed off from: growing waits, not a busy loop
    conflicts = sum(p.conflicts for p in pollers)
    assert conflicts >= 2 and tg.conflicts >= conflicts
    assert "another instance is polling with this token" in caplog.text
    waits = [float(w) for w in re.findall(r"getUpdates conflict .*?again in ([\d.]+)s", caplog.text)]
    assert len(waits) == conflicts and max(waits) >= 1.5
    assert conflicts <= elapsed / 1.0 + 1
    polls = [c for c in tg.calls if c.method == "getUpdates"]
    assert len(polls) <= 2 * (elapsed / tg.poll_hold + 1) + len(ids) + conflicts + 4


class _HeldPoll:
    """A request layer whose ``getUpdates`` is held until cancelled (a long poll Telegram never answers);
    the calls are counted and each cancelled one noted."""

    read_timeout = 5.0

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.cancelled = 0
        self.held = asyncio.Event()

    async def api_call(self, url: str, params: Any, *, read_timeout: Any = None) -> Any:
        self.calls.append(url.rsplit("/", 1)[1])
        if url.endswith("/deleteWebhook"):
            return True
        self.held.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        raise AssertionError("unreachable")


async def _held_poller() -> tuple[Poller, _HeldPoll]:
    request = _HeldPoll()
    bot = type("B", (), {"base_url": "https://api.example/bot1:x", "request": request})()

    async def process(update: Any) -> None:
        raise AssertionError("no update comes")

    return Poller(bot, request, process), request


async def test_stop_cuts_the_poll_in_flight_and_run_returns():
    poller, request = await _held_poller()
    stop = asyncio.Event()
    task = asyncio.create_task(poller.run(stop))
    await asyncio.wait_for(request.held.wait(), 5)
    stop.set()
    await asyncio.wait_for(task, 5)  # returns: the held poll was cut, no error
    assert request.cancelled == 1
    assert request.calls == ["deleteWebhook", "getUpdates"]  # nothing taken: no confirming poll
    assert not task.cancelled() and task.result() is None


async def test_a_polling_task_cancelled_from_outside_stays_cancelled_even_when_stop_cuts_it_too():
    for also_stop in (False, True):
        poller, request = await _held_poller()
        stop = asyncio.Event()
        task = asyncio.create_task(poller.run(stop))
        await asyncio.wait_for(request.held.wait(), 5)
        task.cancel()  # from outside: not the poller's own cut
        if also_stop:  # and stop's cut lands on the same task before it runs: the outside cancellation wins
            poller._cut(asyncio.get_running_loop().create_future())
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
        assert task.cancelled()
        assert request.cancelled == 1
