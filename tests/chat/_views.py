"""Helpers of the chat-view tests (tests/chat/test_*views*.py): ``sikpan run`` and the Discord adapter on a
fixed clock (the 六爻 month and day and the 限 date come from it), pressing Telegram buttons and Discord
components, and the page a button names."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import Any

from bot.commands import pages
from bot.console import ConsoleSession
from bot.seal import unsealed
from tests.adapters.conftest import Running, running, tg_settings
from tests.conftest import discord_bot, discord_settings
from tests.fakes.clock import ManualClock
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import FakeTelegram, visible_text


async def console_in(ctx: Any, lang: str) -> ConsoleSession:
    """A console chat on ``ctx`` that speaks ``lang`` (ko is the console's own; lzh is asked for first)."""
    session = ConsoleSession(ctx)
    if lang == "lzh":
        await session.answer("/lang lzh")
    return session


def telegram_at(
    tg: FakeTelegram, db: str, at: datetime, lang: str = "ko"
) -> AbstractAsyncContextManager[Running]:
    """``sikpan run`` (``bot.app.run``) with the Telegram adapter, on a clock standing at ``at``."""
    return running(tg_settings(tg, db, lang=lang), ready=tg, clock=ManualClock(at))


ACTIONS = (
    "w:/ask ",
    "w:/share ",
    "w:/note ",
)  # the lines of a reading's action rows (bot.commands.action_buttons)


def is_action_row(row: list[dict[str, Any]]) -> bool:
    """A row of a reading's actions (again · another question · share, or the journal's verdicts)?"""
    return any(unsealed(b.get("callback_data") or b.get("custom_id") or "").startswith(ACTIONS) for b in row)


def buttons(call: Any) -> list[dict[str, Any]]:
    """The inline keyboard buttons of a sendMessage / editMessage* call, but its reading's actions (those:
    :func:`action_buttons`)."""
    return [b for row in keyboard_rows(call) if not is_action_row(row) for b in row]


def keyboard_rows(call: Any) -> list[list[dict[str, Any]]]:
    markup = (call.result or {}).get("reply_markup") or call.params.get("reply_markup") or {}
    return list(markup.get("inline_keyboard", []))


def action_buttons(call: Any) -> list[dict[str, Any]]:
    """The buttons of the reading's action rows of a sendMessage / editMessage* call."""
    return [b for row in keyboard_rows(call) if is_action_row(row) for b in row]


def page_of(button: dict[str, Any]) -> str:
    ref = pages.decode(unsealed(button.get("callback_data") or button.get("custom_id")))
    assert ref is not None, button
    return ref.page


async def ask(tg: FakeTelegram, run: Running, text: str, chat_id: int, **kw: Any) -> list[Any]:
    before = len(tg.sent_to(chat_id))
    update = tg.user_says(text, chat_id=chat_id, **kw)
    await run.telegram.wait_handled(update["update_id"], 30)
    return tg.sent_to(chat_id)[before:]


async def press(tg: FakeTelegram, run: Running, button: dict[str, Any], message: dict[str, Any], chat_id: int,
                **kw: Any) -> tuple[Any, str]:  # fmt: skip
    """Press ``button`` of ``message``: (the one answerCallbackQuery call, the visible text of the edit). The
    press carries the message as it is now (after the edits before it), as Telegram sends it."""
    message = tg.messages.get((str(chat_id), message["message_id"]), message)
    answers = len([c for c in tg.calls if c.method == "answerCallbackQuery"])
    edits = len([c for c in tg.calls if c.method.startswith("editMessage")])
    update = tg.callback_query(
        button["callback_data"], chat_id=chat_id, message_id=message["message_id"], message=message, **kw
    )
    await run.telegram.wait_handled(update["update_id"], 30)
    answered = [c for c in tg.calls if c.method == "answerCallbackQuery"][answers:]
    edited = [c for c in tg.calls if c.method.startswith("editMessage") and c.status == 200][edits:]
    assert len(answered) == 1 and answered[0].params["callback_query_id"] == update["callback_query"]["id"]
    assert not answered[0].params.get("show_alert"), answered[0].params
    assert len(edited) == 1 and edited[0].params["message_id"] == message["message_id"]
    assert buttons(edited[0]), "the page keeps its keyboard"
    return edited[0], visible_text(edited[0].html, "HTML")


def discord_at(dc: FakeDiscord, db: str, at: datetime, lang: str = "ko") -> AbstractAsyncContextManager[Any]:
    """The Discord adapter (``bot.discord.run_discord``) on a clock standing at ``at``; yields its context."""
    return discord_bot(dc, db, clock=ManualClock(at), settings=discord_settings(dc, db, lang=lang))


def components(message: dict[str, Any], actions: bool = False) -> list[dict[str, Any]]:
    """A message's buttons: its pages and choices, or (``actions``) its reading's action rows."""
    return [
        c
        for row in message.get("components") or []
        if is_action_row(row.get("components") or []) == actions
        for c in row.get("components") or []
    ]


async def press_component(dc: FakeDiscord, message: dict[str, Any], page: str, **kw: Any) -> dict[str, Any]:
    """Press the button of ``page``; the embed the message was updated to (UPDATE_MESSAGE within 3 s)."""
    button = next(b for b in components(message) if page_of(b) == page)
    inter = await dc.press(message, button["custom_id"], **kw)
    await dc.wait_acked(inter, timeout=10)
    assert inter.ack_type == 7 and inter.acked_at - inter.created_at < 3.0
    [embed] = inter.original["embeds"]
    assert components(inter.original), "the page keeps its buttons"
    return dict(embed)
