"""Issue #34 items 2 and 3: a reading's actions — 공유 (a revocable deep link that opens the reading for
whoever follows it), 다시 점치기 (the same question, now: a new cast), 다른 질문 (the topics to choose from)
and the journal's verdicts (the owner's alone) — on the console, the fake Telegram and the fake Discord."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.commands import action_buttons as actions
from bot.console import ConsoleSession
from bot.i18n import gettext
from bot.seal import DATA_LIMIT, unsealed
from bot.storage.notes import JournalStore
from bot.storage.shares import TOKEN, new_token
from tests.bot.conftest import DEFAULT_INSTANT
from tests.chat._views import action_buttons, ask, buttons, components, keyboard_rows, telegram_at
from tests.conftest import discord_bot
from tests.fakes.clock import ManualClock
from tests.fakes.telegram import visible_text

LINK = re.compile(r"https://t\.me/sikpan_bot\?start=([A-Za-z0-9_-]+)")
START = re.compile(r"/start ([A-Za-z0-9_-]{22})")


def label(key: str, lang: str = "ko") -> str:
    return gettext(lang, key)


def verdict(outcome: str, lang: str = "ko") -> str:
    return f"{gettext(lang, f'bot.note.mark.{outcome}')} {gettext(lang, f'bot.note.outcome.{outcome}')}"


def test_tokens_are_unguessable_and_fit_a_deep_link():
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200  # 128 random bits each: no repeats
    # Telegram's start parameter: 1–64 characters of A–Z a–z 0–9 _ -
    assert all(TOKEN.match(t) and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", t) for t in tokens)


async def test_console_share_open_revoke_again_and_ask(ctx):
    owner = ConsoleSession(ctx)
    first = await owner.answer("/cast 庚辰 8 재물")
    # the actions, as lines to type, under the pages: the topic by its Korean name
    assert f"{label('chat.action.again')} /cast now 구재" in first
    assert (
        f"{label('chat.action.ask')} /ask cast" in first and f"{label('chat.action.share')} /share 1" in first
    )
    await owner.answer("/note 1 맞음 비밀스러운 메모")
    made = await owner.answer("/share 1")
    token = START.search(made).group(1)
    assert (await owner.answer("/share 1")).count(token) >= 1  # sharing again gives the same link

    reader = ConsoleSession(ctx)  # another session (the console's one user: the link alone opens it)
    opened = await reader.answer(f"/start {token}")
    assert "축귀인" in opened and "비밀스러운" not in opened  # the board, never the owner's notes
    assert "/share" not in opened  # a shared reading offers no owner's actions
    page = await reader.answer("2")
    assert page != opened and "비밀스러운" not in page

    assert gettext("ko", "share.revoked", no=1) in await owner.answer("/share 1 끄기")
    assert gettext("ko", "bot.error.share_gone") in await reader.answer("3")  # its pages stop too
    assert gettext("ko", "bot.error.share_gone") in await ConsoleSession(ctx).answer(f"/start {token}")
    assert gettext("ko", "bot.error.share_gone") in await owner.answer("/start " + "A" * 22)
    assert token not in await owner.answer("/share 1")  # after a revoke, a new link

    again = await owner.answer("/cast now 구재")  # the typed equivalent of 다시 점치기
    assert "#2" in again.splitlines()[0]
    entry = await ctx.storage.get_history("console:local", 2)
    assert entry.inputs["mode"] == "now" and entry.inputs["asked"]["target"] == "求財"
    topics = await owner.answer("/ask")
    assert gettext("ko", "chat.choose.asking") in topics and "/cast now 쟁송" in topics
    assert "/liuyao 소송" in await owner.answer("/ask 육효")
    assert "⚠" in await owner.answer("/ask shensha")
    assert "⚠" in await owner.answer("/share 99")
    qizheng = await owner.answer("/qizheng 1990-05-17 14:30 서울 save")
    number = int(re.search(r"#(\d+)", qizheng).group(1))
    # a birth chart is personal data alone: it is never shared
    assert gettext("ko", "bot.error.share_private", number=number) in await owner.answer(f"/share {number}")
    await owner.answer("/lang lzh")
    lzh = await owner.answer("/cast 庚辰 8 求財")
    assert f"{label('chat.action.again', 'lzh')} /cast now 求財" in lzh
    assert gettext("lzh", "chat.action.note_hint", no=number + 1) in lzh
    await owner.answer("/forget yes")  # the owner's links go with the rest of their data
    assert not await ctx.storage.fetchall("SELECT token FROM shares")


async def _press(tg, run, data: str, chat_id: int, user_id: int, chat_type: str = "private", message=None):
    """A press of ``data`` (as sealed on the message) by ``user_id``: (its answerCallbackQuery, the calls it
    made, the sent messages)."""
    before = len(tg.calls)
    shown = message or {"message_id": 5, "text": "…"}
    update = tg.callback_query(
        data, chat_id=chat_id, user_id=user_id, message_id=shown["message_id"], chat_type=chat_type,
        message=shown,
    )  # fmt: skip
    await run.telegram.wait_handled(update["update_id"], 30)
    query = update["callback_query"]["id"]
    # a press answered with a new message is handled once that is sent; its query is answered right after
    await tg.wait_for("answerCallbackQuery", predicate=lambda c: c.params["callback_query_id"] == query)
    made = tg.calls[before:]
    [answer] = [c for c in made if c.method == "answerCallbackQuery"]
    return answer, made, [c for c in made if c.method.startswith("send")]


def _named(call: Any, key: str, lang: str = "ko") -> dict[str, Any]:
    return next(b for b in action_buttons(call) if b["text"] == label(key, lang))


async def test_telegram_share_link_opens_for_another_user_until_revoked(tg, tmp_path):
    a, b = 7401, 7402
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), DEFAULT_INSTANT) as run:
        [first] = await ask(tg, run, "/cast 庚辰 8 재물", a)
        keys = [x["text"] for x in action_buttons(first)]
        assert keys == [
            *(label(k) for k in ("chat.action.again", "chat.action.ask", "chat.action.share")),
            *(verdict(o) for o in ("held", "missed", "partly")),
        ]
        assert all(len(x["callback_data"].encode()) <= DATA_LIMIT for x in action_buttons(first))
        await ask(tg, run, "/note 1 맞음 비밀스러운 메모", a)

        share = _named(first, "chat.action.share")
        answer, _, [made] = await _press(tg, run, share["callback_data"], a, a)
        assert "text" not in answer.params
        token = LINK.search(visible_text(made.params["text"], "HTML")).group(1)
        assert TOKEN.match(token)
        # the link's /start, in B's own chat: the reading, as the first reply showed it, nothing of A's
        [opened] = await ask(tg, run, f"/start {token}", b)
        shown = opened.params.get("caption") or opened.params.get("text") or ""
        assert "축귀인" in visible_text(shown, "HTML") and "비밀스러운" not in repr(opened.params)
        assert not action_buttons(opened)  # no owner's actions on a shared reading
        page_buttons = buttons(opened)
        assert page_buttons and all(
            unsealed(x["callback_data"]).startswith(f"v:{token}:") for x in page_buttons
        )
        read = next(x for x in page_buttons if unsealed(x["callback_data"]).endswith(":read"))
        answer, made_calls, _ = await _press(tg, run, read["callback_data"], b, b, message=opened.result)
        assert "text" not in answer.params
        [edit] = [c for c in made_calls if c.method.startswith("editMessage")]
        assert edit.method == "editMessageCaption" and "비밀스러운" not in repr(edit.params)
        # 解 is longer than a caption: its parts, a button each, name the token too
        parts = keyboard_rows(edit)[1]
        assert len(parts) > 1 and all(
            unsealed(x["callback_data"]).startswith(f"v:{token}:read") for x in parts
        )
        answer, made_calls, _ = await _press(tg, run, parts[1]["callback_data"], b, b, message=opened.result)
        [more] = [c for c in made_calls if c.method.startswith("editMessage")]
        assert more.params["caption"] != edit.params["caption"]

        # the link's button "turn it off": A's alone
        [[unshare]] = keyboard_rows(made)
        assert unshare["text"] == label("chat.action.unshare")
        answer, _, sent = await _press(tg, run, unshare["callback_data"], b, b)
        assert answer.params["text"] == label("chat.action.not_yours") and not sent  # another's button
        answer, _, [off] = await _press(tg, run, unshare["callback_data"], a, a)
        assert gettext("ko", "share.revoked", no=1) in visible_text(off.params["text"], "HTML")

        # revoked: the link and the pages it opened show nothing any more
        [gone] = await ask(tg, run, f"/start {token}", b)
        assert gettext("ko", "bot.error.share_gone") in visible_text(gone.params["text"], "HTML")
        answer, made_calls, _ = await _press(tg, run, read["callback_data"], b, b, message=opened.result)
        assert answer.params["text"] == gettext("ko", "bot.error.share_gone")
        assert not [c for c in made_calls if c.method.startswith("editMessage")]


async def test_telegram_cast_again_another_question_and_the_owners_journal(tg, tmp_path):
    a, b, group = 7501, 7502, -1007500
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), DEFAULT_INSTANT) as run:
        [first] = await ask(tg, run, "/cast 庚辰 8 재물", group, user_id=a, chat_type="supergroup")
        again = _named(first, "chat.action.again")
        # anyone in the group may cast the same question again, now: a new cast in the presser's history
        answer, _, [cast] = await _press(tg, run, again["callback_data"], group, b, "supergroup")
        assert "text" not in answer.params and cast.method == "sendPhoto"
        entry = await run.ctx.storage.get_history(f"telegram:{b}", 1)
        assert entry.inputs["mode"] == "now" and entry.inputs["asked"]["target"] == "求財"
        answer, _, [topics] = await _press(tg, run, _named(first, "chat.action.ask")["callback_data"], group, a,
                                           "supergroup")  # fmt: skip
        assert gettext("ko", "chat.choose.asking") in visible_text(topics.params["text"], "HTML")
        assert len(buttons(topics)) == 12  # the twelve topics of seed 003, three a row
        assert all(len(row) == 3 for row in topics.params["reply_markup"]["inline_keyboard"])

        # the journal's verdicts: sealed for the owner — another member's press writes nothing
        held = next(x for x in action_buttons(first) if x["text"] == verdict("held"))
        answer, _, sent = await _press(tg, run, held["callback_data"], group, b, "supergroup")
        assert answer.params["text"] == label("chat.action.not_yours") and not sent
        assert await JournalStore(run.ctx.storage).get(f"telegram:{a}", 1) is None
        assert await JournalStore(run.ctx.storage).get(f"telegram:{b}", 1) is None
        # the owner's press: written, and said to the owner alone (the callback's notice, no message)
        answer, _, sent = await _press(tg, run, held["callback_data"], group, a, "supergroup")
        assert gettext("ko", "bot.note.outcome.held") in answer.params["text"] and not sent
        assert (await JournalStore(run.ctx.storage).get(f"telegram:{a}", 1)).outcome == "held"
        # the owner's share button too: another member's press makes no link
        share = _named(first, "chat.action.share")
        answer, _, sent = await _press(tg, run, share["callback_data"], group, b, "supergroup")
        assert answer.params["text"] == label("chat.action.not_yours") and not sent
        assert not await run.ctx.storage.fetchall("SELECT token FROM shares")


def _component(message: dict[str, Any], text: str) -> dict[str, Any]:
    return next(c for c in components(message, actions=True) if c["label"] == text)


async def _notice(dc, pressed) -> dict[str, Any]:
    await dc.wait_acked(pressed, timeout=10)
    assert pressed.ack_type == 4  # an ephemeral one-liner, not an update of the message
    notice = next(m for m in dc.messages if m.get("interaction") == pressed.id)
    assert notice["flags"] & 64
    return notice


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_discord_share_again_and_journal(dc, tmp_path):
    a, b = "1100000000000000801", "1100000000000000802"
    async with discord_bot(dc, str(tmp_path / "db.sqlite"), clock=ManualClock(DEFAULT_INSTANT)) as ctx:
        await dc.wait_synced()
        start = next(c for cmds in dc.synced.values() for c in cmds if c["name"] == "start")
        assert [o["name"] for o in start.get("options", [])] == ["token"]
        inter = await dc.slash("cast", {"when": "庚辰 8", "category": "재물"}, user_id=a)
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        share = _component(first, label("chat.action.share"))
        notice = await _notice(dc, await dc.press(first, share["custom_id"], user_id=b))
        assert notice["content"] == label("chat.action.not_yours")
        pressed = await dc.press(first, share["custom_id"], user_id=a)
        [made] = await dc.wait_followups(pressed, 1, timeout=10)
        token = START.search(made["content"]).group(1)

        opened = await dc.slash("start", {"token": token}, user_id=b)
        [shown] = await dc.wait_followups(opened, 1, timeout=10)
        assert "축귀인" in shown["embeds"][0]["description"] and not components(shown, actions=True)
        read = next(c for c in components(shown) if unsealed(c["custom_id"]) == f"v:{token}:read")
        pressed = await dc.press(shown, read["custom_id"], user_id=b)
        await dc.wait_acked(pressed, timeout=10)
        assert pressed.ack_type == 7  # the page, in place

        off = await dc.slash("share", {"number": 1, "off": "끄기"}, user_id=a)
        [said] = await dc.wait_followups(off, 1, timeout=10)
        assert gettext("ko", "share.revoked", no=1) in said["content"]
        notice = await _notice(dc, await dc.press(shown, read["custom_id"], user_id=b))
        assert notice["content"] == gettext("ko", "bot.error.share_gone")
        gone = await dc.slash("start", {"token": token}, user_id=b)
        [said] = await dc.wait_followups(gone, 1, timeout=10)
        assert gettext("ko", "bot.error.share_gone") in said["content"]

        again = await dc.press(first, _component(first, label("chat.action.again"))["custom_id"], user_id=a)
        [cast] = await dc.wait_followups(again, 1, timeout=10)
        assert "#2" in cast["embeds"][0]["title"]
        assert (await ctx.storage.get_history(f"discord:{a}", 2)).inputs["asked"]["target"] == "求財"

        held = _component(first, verdict("held"))
        notice = await _notice(dc, await dc.press(first, held["custom_id"], user_id=b))
        assert notice["content"] == label("chat.action.not_yours")
        assert await JournalStore(ctx.storage).get(f"discord:{a}", 1) is None
        notice = await _notice(dc, await dc.press(first, held["custom_id"], user_id=a))
        assert gettext("ko", "bot.note.outcome.held") in notice["content"]
        assert (await JournalStore(ctx.storage).get(f"discord:{a}", 1)).outcome == "held"


def test_owner_only_lines_are_the_share_and_note_actions():
    assert actions.owner_only("w:/share 3") and actions.owner_only("w:/note 3 held")
    assert not actions.owner_only("w:/cast now 求財") and not actions.owner_only("w:/ask cast")
    assert actions.decode_shared("v:" + "A" * 22 + ":read") == actions.SharedPage("A" * 22, "read")
    assert actions.decode_shared("v:short:read") is None
