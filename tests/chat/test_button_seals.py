"""Issue 36 item 2: every button is authorised on the server (bot/seal.py, bot/commands/pages.access).

User A keeps a 七政四餘 chart (birth 1990-05-17 14:30 in Seoul: date, time, place, coordinates); user B, who can
read A's user id and guess A's history numbers, presses forged and replayed buttons — on Telegram and Discord
(the real python-telegram-bot and discord.py against the fakes) and types them on the console. Each press is
answered with "this button has expired" in B's language and shows nothing of A. A's own old (unsealed)
buttons still work where A presses them; a cast answered to a group may be browsed by the group, with only
what its view's allow-list names (no saved place or coordinates)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import pytest

from bot import privacy
from bot.commands import Incoming, dispatch, pages
from bot.console import ConsoleSession
from bot.i18n import gettext
from bot.seal import DATA_LIMIT, FORGED, LEGACY, OWN, PUBLIC, ButtonSeal, unsealed
from tests.adapters.conftest import running, tg_settings
from tests.chat._views import ask, buttons, components, page_of
from tests.conftest import discord_bot

BIRTH = "/qizheng 1990-05-17 14:30 서울 save"
# what of A's birth data any text could show (the date, the hour, the place, its coordinates)
A_DATA = ("1990", "05-17", "14:30", "서울", "首爾", "Seoul", "126.9", "37.5")


def _leaks(text: str) -> list[str]:
    return [s for s in A_DATA if s in text]


def _calls_text(calls: list[Any]) -> str:
    return "\n".join(repr(c.params) + repr(c.result) for c in calls)


async def _tg_press(tg, run, data: str, chat_id: int, user_id: int, chat_type: str = "private", **kw):
    """B's (or A's) press of raw button ``data`` on message 5 of ``chat_id``: (its answer, the calls it made)."""
    before = len(tg.calls)
    update = tg.callback_query(
        data, chat_id=chat_id, user_id=user_id, message_id=5, chat_type=chat_type,
        message={"message_id": 5, "text": "…"}, **kw,
    )  # fmt: skip
    await run.telegram.wait_handled(update["update_id"], 30)
    made = tg.calls[before:]
    [answer] = [c for c in made if c.method == "answerCallbackQuery"]
    return answer, made


async def test_telegram_forged_and_replayed_buttons_show_nothing_of_another_user(tg, tmp_path):
    a, b, group, other_group = 7101, 7102, -1007100, -1007200
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        [first] = await ask(tg, run, BIRTH, a)
        assert "1990" in _calls_text([first])  # A's own reply shows A's birth
        keyboard = buttons(first)
        assert {page_of(x) for x in keyboard} >= {"brief", "houses"}
        assert all(len(x["callback_data"].encode()) <= DATA_LIMIT for x in keyboard)
        houses = next(x for x in keyboard if page_of(x) == "houses")
        number = pages.decode(unsealed(houses["callback_data"])).number
        expired = {lang: gettext(lang, "chat.button.expired") for lang in ("ko", "lzh")}
        presses = [
            # A's real button data, pressed by B in B's own chat (a replay from another chat)
            (houses["callback_data"], b, b, "private"),
            # forged: the old unsealed form naming A's row, and a made-up seal
            (f"p:{a}:{number}:houses", b, b, "private"),
            (f"p:{a}:{number}:houses|AAAAAAAAAAAAAAAA", b, b, "private"),
            (f"c:{a}:{number}:brief:1", b, b, "private"),  # a caption part of A's page
            # A's private button replayed in a group, by B and by A: valid only in A's private chat
            (houses["callback_data"], group, b, "supergroup"),
            (houses["callback_data"], group, a, "supergroup"),
            (f"p:{a}:{number}:houses", group, b, "supergroup"),
        ]
        for data, chat, user, kind in presses:
            answer, made = await _tg_press(tg, run, data, chat, user, kind, language_code="lzh")
            assert answer.params["text"] == expired["lzh"], (data, chat, user)
            assert not [c for c in made if c.method.startswith(("editMessage", "send"))], (data, made)
            assert not _leaks(_calls_text(made)), (data, _leaks(_calls_text(made)))
        # A's own old (unsealed) button, pressed by A in A's chat: still shows A's page
        answer, made = await _tg_press(tg, run, f"p:{a}:{number}:houses", a, a)
        assert "text" not in answer.params
        [edit] = [c for c in made if c.method.startswith("editMessage")]
        assert all("|" in x["callback_data"] for x in buttons(edit))  # the page's buttons come sealed
        # … and in a group A's old button shows nothing of a view no group may see (七政: birth data)
        answer, made = await _tg_press(tg, run, f"p:{a}:{number}:houses", group, a, "supergroup")
        assert answer.params["text"] == expired["ko"] and not _leaks(_calls_text(made))
        # old settings buttons (unsealed, naming their owner): the owner's press still works, another's not
        answer, made = await _tg_press(tg, run, f"s:{a}:day_starts=00:00", b, b, language_code="lzh")
        assert answer.params["text"] == gettext("lzh", "chat.settings.not_yours") and not [
            c for c in made if c.method.startswith("edit")
        ]
        answer, made = await _tg_press(tg, run, f"s:{a}:day_starts=00:00", a, a)
        assert "text" not in answer.params and [c for c in made if c.method.startswith("editMessage")]
        assert (await run.ctx.storage.get_user(f"telegram:{a}")).options["day_starts"] == "00:00"
        assert (await run.ctx.storage.get_user(f"telegram:{b}")) is None or "day_starts" not in (
            await run.ctx.storage.get_user(f"telegram:{b}")
        ).options
        # a group cast: anyone in that group may browse it; the same button in another group is expired
        [cast] = await ask(tg, run, "/cast 庚辰 8", group, user_id=a, chat_type="supergroup")
        read = next(x for x in buttons(cast) if page_of(x) == "read")
        answer, made = await _tg_press(tg, run, read["callback_data"], group, b, "supergroup")
        assert "text" not in answer.params and [c for c in made if c.method.startswith("editMessage")]
        answer, made = await _tg_press(tg, run, read["callback_data"], other_group, b, "supergroup")
        assert answer.params["text"] == expired["ko"] and not [c for c in made if c.method.startswith("edit")]


async def test_discord_forged_and_replayed_custom_ids_show_nothing_of_another_user(dc, tmp_path):
    a, b = "1100000000000000701", "1100000000000000702"
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter = await dc.slash("qizheng", {"when": BIRTH.split(" ", 1)[1]}, user_id=a, dm=True)
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        ids = [c["custom_id"] for c in components(first)]
        assert ids and all(len(i) <= DATA_LIMIT and "|" in i for i in ids)
        houses = next(i for i in ids if pages.decode(unsealed(i)).page == "houses")
        number = pages.decode(unsealed(houses)).number
        forged = [
            (houses, {"dm": True}),  # A's real custom_id, from B's own DM channel
            (houses, {}),  # … from a guild channel
            (f"p:{a}:{number}:houses", {"dm": True}),  # the old unsealed form naming A's row
            (f"p:{a}:{number}:houses|AAAAAAAAAAAAAAAA", {}),  # a made-up seal
        ]
        for custom_id, where in forged:
            before = len(dc.messages)
            pressed = await dc.press(first, custom_id, user_id=b, locale="zh-TW", **where)
            await dc.wait_acked(pressed, timeout=10)
            assert pressed.ack_type == 4, custom_id  # an ephemeral notice, not an update of the message
            notice = next(m for m in dc.messages if m.get("interaction") == pressed.id)
            assert notice["content"] == gettext("lzh", "chat.button.expired") and notice["flags"] & 64
            assert not _leaks(repr(dc.messages[before:])), custom_id
        # A's own button in A's DM still shows the page
        pressed = await dc.press(first, houses, user_id=a, dm=True)
        await dc.wait_acked(pressed, timeout=10)
        assert pressed.ack_type == 7 and components(pressed.original)


async def test_the_console_never_reads_a_button_of_another_user(ctx):
    a = Incoming(platform="telegram", chat_id="7301", user_id="7301", text=BIRTH, chat_kind="private")
    kept = await dispatch(a, ctx)
    number = kept.context["no"]
    assert isinstance(number, int) and "1990" in repr(kept.context)
    session = ConsoleSession(ctx)
    for line in (f"p:7301:{number}:houses", f"p:telegram:7301:{number}:brief", str(number), "houses", "2"):
        assert not _leaks(await session.answer(line)), line


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_the_expired_notice_is_in_the_pressers_language(lang):
    text = gettext(lang, "chat.button.expired")
    assert text and text != "chat.button.expired"
    assert ("단추" in text) if lang == "ko" else ("鈕" in text and "。" in text)


def test_a_seal_holds_in_its_own_chat_for_its_audience_only():
    seal, other = ButtonSeal.random(), ButtonSeal.random()
    data = "p:1100000000000000701:123456789:patterns"  # the longest owner (Discord) and number
    public = seal.seal("telegram", "-100", data)
    own = seal.seal("telegram", "42", data, audience="42")
    assert len(public.encode()) <= DATA_LIMIT and len(own.encode()) <= DATA_LIMIT
    assert seal.open("telegram", "-100", "9", public).status == PUBLIC
    assert seal.open("telegram", "-100", "9", public).data == data
    assert seal.open("telegram", "-101", "9", public).status == FORGED  # another chat
    assert seal.open("discord", "-100", "9", public).status == FORGED  # another platform
    assert other.open("telegram", "-100", "9", public).status == FORGED  # another server's key
    assert seal.open("telegram", "42", "42", own).status == OWN
    assert seal.open("telegram", "42", "43", own).status == FORGED  # another presser
    assert seal.open("telegram", "42", "42", own.replace("patterns", "houses")).status == FORGED
    assert seal.open("telegram", "42", "42", data).status == LEGACY
    assert (
        ButtonSeal.from_secret("s").open("t", "1", "2", ButtonSeal.from_secret("s").seal("t", "1", "x")).valid
    )
    # the seal as the module documents it (buttons sent before keep opening): the first 16 base64url characters
    # of the HMAC-SHA-256 over the platform, the chat, the audience and the data, keyed by the server's key
    message = "\x1f".join(("telegram", "42", "42", data)).encode()
    expected = base64.urlsafe_b64encode(hmac.new(seal.key, message, hashlib.sha256).digest()).decode()[:16]
    assert own == f"{data}|{expected}"


def test_page_access_by_seal_presser_and_chat():
    ref = pages.PageRef("A", 3, "brief")
    assert pages.access(PUBLIC, ref, "B", "group") == "public"
    assert pages.access(OWN, ref, "A", "group") == "full"  # A's ephemeral reply
    assert pages.access(OWN, ref, "B", "private") is None
    assert pages.access(LEGACY, ref, "A", "private") == "full"
    assert pages.access(LEGACY, ref, "A", "group") == "public"
    assert pages.access(LEGACY, ref, "B", "private") is None
    assert pages.access(FORGED, ref, "A", "private") is None


def test_a_group_sees_only_what_a_views_allow_list_names():
    cast = {
        "when": {"local": "2026-03-01 10:00", "offset": "UTC+09:00", "zone": "Asia/Seoul",
                 "solar": "2026-03-01 09:32", "longitude": 126.9784},
        "day": "庚辰", "no": 4, "private_note": "x",
    }  # fmt: skip
    shown = privacy.public_context("cast", cast)
    assert shown is not None
    assert shown["when"] == {"local": "2026-03-01 10:00", "offset": "UTC+09:00", "zone": "Asia/Seoul",
                             "solar": None, "longitude": None}  # fmt: skip
    assert shown["day"] == "庚辰" and shown["no"] == 4 and "private_note" not in shown
    qizheng = {"when": {"local": "1990-05-17 14:30", "lon": 126.97, "lat": 37.56}, "place": {"ko": "서울"}}
    assert privacy.public_context("qizheng", qizheng) is None  # birth data is all it is: never to a group
