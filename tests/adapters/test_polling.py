"""Updates in through python-telegram-bot's machinery against the fake Bot API: PTB's ``Updater`` polls,
the ``Application``'s handlers route (commands, aliases, buttons, plain text, migrations, a removed bot),
the stop handles then confirms what was taken (:class:`bot.telegram.PollingBot`), and PTB's polling policy
(5xx and network errors retried with back-off, 409 between two instances, a revoked token) holds."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram.error import InvalidToken

import bot.telegram as tgmod
from bot.commands import error_reply
from bot.telegram import TelegramAdapter
from bot.views import render
from tests.adapters.conftest import running, tg_settings
from tests.fakes.telegram import FakeTelegram


@contextlib.asynccontextmanager
async def polling(
    tg: FakeTelegram, db: str, **callbacks: list[Any]
) -> AsyncIterator[tuple[TelegramAdapter, Any, asyncio.Task[None], asyncio.Event]]:
    """One sikpan application polling ``tg`` (as ``sikpan run`` builds it); stopped at the end."""
    from bot.app import create_context

    ctx = await create_context(tg_settings(tg, db))
    for name, found in callbacks.items():  # on_blocked=[...], on_migrated=[...]: what the callbacks get
        getattr(ctx, name).append(lambda *args, found=found: found.append(args))
    app = tgmod.build_application(ctx, tg.token, tg.base_url)
    stop = asyncio.Event()
    try:
        async with app:
            await tgmod.prepare(app)
            await app.start()
            task = asyncio.create_task(tgmod.poll(app, stop, timeout=10))
            try:
                yield app.bot_data["adapter"], app, task, stop
            finally:
                stop.set()
                with contextlib.suppress(InvalidToken):
                    await asyncio.wait_for(task, 20)
                if app.running:
                    await app.stop()
    finally:
        await ctx.close()


async def _answer(
    tg: FakeTelegram, adapter: TelegramAdapter, text: str, chat_id: int, **kw: Any
) -> list[Any]:
    before = len(tg.sent_to(chat_id))
    update = tg.user_says(text, chat_id=chat_id, **kw)
    await adapter.wait_handled(update["update_id"], 10)
    return tg.sent_to(chat_id)[before:]


async def test_aliases_and_full_width_slashes_are_commands_in_private_chats_only(tg, tmp_path):
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, *_):
        alias = await _answer(tg, adapter, "/점", 801)  # /cast's Korean alias: no bot_command entity
        assert alias and alias[0].method == "sendPhoto"  # a cast (its chart), not the hint plain text gets
        full = await _answer(tg, adapter, "／shensha 甲子", 803)
        assert "천을귀인(天乙貴人) 축·미" in full[0].params["text"]  # read in Korean (issue 33 item 6)
        unknown = await _answer(tg, adapter, "/nosuchcommand", 804)  # answered in private (an error reply)
        assert len(unknown) == 1
        # in a group neither an alias nor an unknown command without our name is ours
        group = -1009
        assert await _answer(tg, adapter, "/점", group, chat_type="supergroup", user_id=5) == []
        assert await _answer(tg, adapter, "/nosuchcommand", group, chat_type="supergroup", user_id=5) == []
        addressed = await _answer(
            tg, adapter, "/nosuchcommand@sikpan_bot", group, chat_type="supergroup", user_id=5
        )
        assert len(addressed) == 1  # addressed to us by name: answered
        assert (
            await _answer(tg, adapter, "/shensha@other_bot 甲子", 805) == []
        )  # another bot's, even in private


async def test_updates_taken_are_handled_then_confirmed_on_stop_and_a_restart_gets_nothing_again(
    tg, tmp_path
):
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


async def test_stop_confirms_only_after_the_updates_taken_are_handled(tg, tmp_path, monkeypatch):
    """PTB's ``Updater.stop`` would confirm what it took before ``Application.stop`` has handled it: that
    confirming ``getUpdates`` is held until every update taken has been answered. (An update is taken and
    not yet confirmed between the poll that got it and the next one, here made to fail.)"""
    release = asyncio.Event()
    real_handle = TelegramAdapter.handle

    async def slow(self: TelegramAdapter, update: Any) -> Any:
        await release.wait()
        return await real_handle(self, update)

    monkeypatch.setattr(TelegramAdapter, "handle", slow)
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, app, task, stop):
        await asyncio.sleep(0.5)  # the Updater's long poll is held
        tg.fail("getUpdates", 502, "Bad Gateway")  # the poll after the one that takes the update fails
        update = tg.user_says("/shensha 甲子", chat_id=311)
        while update["update_id"] + 1 > app.bot.polling.next_offset:  # taken by the Updater
            await asyncio.sleep(0.02)
        stop.set()  # during the Updater's back-off (1 s)
        await asyncio.sleep(0.5)
        assert not task.done()
        assert tg.confirmed_offset <= update["update_id"]  # not confirmed while it is being handled
        release.set()
        await asyncio.wait_for(task, 10)
        assert len(tg.sent_to(311)) == 1
        assert tg.confirmed_offset == update["update_id"] + 1  # then confirmed


async def test_stop_cuts_the_poll_in_flight(tg, tmp_path):
    tg.poll_hold = 30.0  # a long poll Telegram holds for 30 s
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, app, task, stop):
        await asyncio.sleep(1.0)  # the Updater's long poll is held by now
        started = asyncio.get_running_loop().time()
        stop.set()
        await asyncio.wait_for(task, 10)
        assert asyncio.get_running_loop().time() - started < 3.0


async def test_a_handler_that_raises_gets_the_internal_error_reply_and_polling_goes_on(
    tg, tmp_path, monkeypatch, caplog
):
    real_handle = TelegramAdapter.handle

    async def handle(self: TelegramAdapter, update: Any) -> Any:
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
    """PTB's polling policy: a failed poll is retried after 1 s, then 1.5× up to 30 s (back to none after a
    poll that succeeds); each failure reaches the error callback (logged)."""
    tg.fail("getUpdates", 502, "Bad Gateway", times=2)
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, *_):
        update = tg.user_says("/shensha 甲子", chat_id=501)
        assert await adapter.wait_handled(update["update_id"], timeout=10) is not None
    polls = [c for c in tg.calls if c.method == "getUpdates"]
    failed = [c for c in polls if c.status == 502]
    assert len(failed) == 2
    first_ok = next(c for c in polls if c.status == 200)
    assert first_ok.at - failed[0].at >= 1.0 + 1.5 - 0.1  # waited 1 s, then 1.5 s
    assert caplog.text.count("getUpdates failed") == 2


async def test_a_revoked_token_ends_polling_with_a_clear_error(tg, tmp_path, caplog):
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, app, task, stop):
        await tg.wait_for("getUpdates", timeout=10)
        tg.token = "7012345678:revoked"  # every request with the old token is 401 from now on
        with pytest.raises(InvalidToken):
            await asyncio.wait_for(asyncio.shield(task), 15)
    assert "refused the token" in caplog.text


async def test_two_instances_on_one_token_log_the_conflict_back_off_and_handle_no_update_twice(
    tg, tmp_path, caplog
):
    """Telegram ends the older of two long polls with 409 (the fake as the Bot API server). Each instance
    logs the conflict and waits before polling again (PTB's policy: 1 s, 1.5× while conflicts follow each
    other, reset by a poll that succeeds), and every update is handled by one instance, once: by both only
    when Telegram itself gave it to both (an update is forgotten only when the next poll confirms it)."""
    caplog.set_level(logging.WARNING)
    async with (
        polling(tg, str(tmp_path / "a.sqlite")) as (first, *_),
        polling(tg, str(tmp_path / "b.sqlite")) as (second, *_),
    ):
        ids = []
        loop = asyncio.get_running_loop()
        started = loop.time()
        for i in range(30):  # ≈ 12 s of commands at uneven intervals
            ids.append(tg.user_says("/shensha 甲子", chat_id=600 + i % 6)["update_id"])
            await asyncio.sleep(0.29 + 0.13 * (i % 3))
        for update_id in ids:  # every command answered, by one instance or the other
            for _ in range(200):
                if update_id in first.handled or update_id in second.handled:
                    break
                await asyncio.sleep(0.05)
        elapsed = loop.time() - started
    handled_a = {i for i in ids if i in first.handled}
    handled_b = {i for i in ids if i in second.handled}
    assert handled_a | handled_b == set(ids)
    given = collections.Counter(
        u["update_id"]
        for c in tg.calls
        if c.method == "getUpdates" and c.status == 200
        for u in c.result or ()
    )
    assert handled_a & handled_b <= {i for i, n in given.items() if n > 1}  # twice only if given twice
    replies = sum(len(tg.sent_to(600 + k)) for k in range(6))
    assert replies == sum(given[i] for i in ids)  # one reply per update given: none handled twice by one
    conflicts = caplog.text.count("another instance is polling with this token")
    assert conflicts >= 2 and tg.conflicts >= conflicts
    polls = [c for c in tg.calls if c.method == "getUpdates"]
    # no busy loop: each conflict is followed by a wait of at least a second
    assert len(polls) <= 2 * (elapsed / tg.poll_hold + 1) + len(ids) + conflicts + 4


async def test_a_removed_bot_and_a_migrated_group_reach_the_callbacks(tg, tmp_path):
    blocked: list[Any] = []
    migrated: list[Any] = []
    async with polling(tg, str(tmp_path / "db.sqlite"), on_blocked=blocked, on_migrated=migrated) as (
        adapter,
        *_,
    ):
        kicked = tg.bot_removed(901)  # a user blocked the bot
        left = tg.bot_removed(-902, status="left", chat_type="group")
        moved = tg.group_migrated(-903, -1000000000903)
        for update in (kicked, left, moved):
            await adapter.wait_handled(update["update_id"], 10)
    assert blocked == [("telegram", "901", "kicked"), ("telegram", "-902", "left")]
    assert migrated == [("telegram", "-903", "-1000000000903")]
    assert tg.sent == []  # nothing is answered to any of them


async def test_updates_of_another_kind_are_not_asked_for_and_never_answered(tg, tmp_path):
    async with polling(tg, str(tmp_path / "db.sqlite")) as (adapter, *_):
        edited = tg.make_update("/shensha 甲子", chat_id=951)
        tg.push_update({"update_id": edited["update_id"], "edited_message": edited["message"]})
        after = tg.user_says("/shensha 甲子", chat_id=952)
        assert await adapter.wait_handled(after["update_id"], 10) is not None
    assert tg.allowed_updates == [
        "message",
        "callback_query",
        "my_chat_member",
        "inline_query",
        "chosen_inline_result",
    ]
    assert edited["update_id"] not in adapter.handled and tg.sent_to(951) == []
