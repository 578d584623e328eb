"""Issue #13 on Discord, with the real discord.py against the fake gateway + REST: a stored cast answers with
one embed (title, description, footer with the options used) and page buttons whose ``custom_id`` names the
stored row; each press is acknowledged by UPDATE_MESSAGE (type 7) within the 3-second rule, also after a
restart, and anyone in the guild may browse.

Expected texts: seed 003's entry for 庚辰 第八局 (its Korean 「前引後從」 as our data words it, 「앞에서 이끌고 뒤에서 따르며」) on
the 解 page; 重審 (that entry's 課體) on the 法 page.
"""

from __future__ import annotations

import pytest

from bot.commands import pages
from bot.features.base import pages_of
from bot.i18n import gettext
from bot.seal import unsealed
from tests.chat._views import components
from tests.conftest import discord_bot

pytestmark = pytest.mark.usefixtures("restore_discord_endpoints")
SEED_003_KO = "앞에서 이끌고 뒤에서 따르며"


def _buttons(message: dict) -> list[dict]:
    return components(message)  # the pages (the reading's actions: tests/chat/test_share.py)


async def _press(dc, message, button, **kw):
    inter = await dc.press(message, button["custom_id"], **kw)
    await dc.wait_acked(inter, timeout=10)
    assert inter.acked_at - inter.created_at < 3.0
    return inter


async def test_cast_embed_buttons_update_in_place_and_after_restart(dc, tmp_path):
    db = str(tmp_path / "db.sqlite")
    async with discord_bot(dc, db):
        inter = await dc.slash("cast", {"when": "庚辰 8"})
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        [embed] = first["embeds"]
        assert embed["title"].startswith(gettext("ko", "bot.cast.title"))
        assert len(embed["description"]) <= 1500 and "축귀인" in embed["description"]
        assert embed["footer"]["text"].startswith(gettext("ko", "liuren.options"))
        assert all(pages.decode(unsealed(b["custom_id"])) for b in _buttons(first))
        # the page buttons (the topic buttons after them re-read the cast for a topic: test_topic_screen.py)
        buttons = [
            b for b in _buttons(first) if pages.decode(unsealed(b["custom_id"])).page in pages_of("cast")
        ]
        assert len(buttons) >= 3
        detail = ""
        for button in buttons:
            pressed = await _press(dc, first, button, user_id=dc.user_id)
            assert pressed.ack_type == 7  # UPDATE_MESSAGE: the same message, edited
            [page] = pressed.original["embeds"]
            assert _buttons(pressed.original), "the page keeps its buttons"
            detail += page["description"]
        assert SEED_003_KO in detail
        assert len(detail) - len(embed["description"]) >= 1500
    trace = next(b for b in buttons if pages.decode(unsealed(b["custom_id"])).page == "trace")
    async with discord_bot(dc, db):  # a restart: the old message's buttons still work
        pressed = await _press(dc, first, trace, user_id=dc.owner_id)  # another member of the guild
        assert pressed.ack_type == 7
        assert "重審" in pressed.original["embeds"][0]["description"]


async def test_a_forgotten_cast_is_answered_ephemerally(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter = await dc.slash("cast", {"when": "庚辰 8"}, dm=True)
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        forget = await dc.slash("forget", {"confirm": "yes"}, dm=True)
        await dc.wait_followups(forget, 1, timeout=10)
        pressed = await _press(dc, first, _buttons(first)[1], dm=True)
        assert pressed.ack_type == 4
        answer = next(m for m in dc.messages if m.get("interaction") == pressed.id)
        assert answer["content"] == gettext("ko", "chat.page.gone") and answer["flags"] & 64


def _command(dc, name):
    return next(c for cmds in dc.synced.values() for c in cmds if c["name"] == name)


async def test_typed_options_localizations_and_permissions(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        await dc.wait_synced()
        cast = _command(dc, "cast")
        assert cast["name_localizations"]["ko"] == gettext("ko", "chat.name.cast")
        assert cast["name_localizations"]["zh-TW"] == gettext("lzh", "chat.name.cast")
        assert cast["description_localizations"]["ko"]
        # the topics (seed 003) and seed 002's eleven 類神 categories, and the 六爻 用神 with the question
        # categories, are offered by autocomplete (issue 32: more than Discord's 25 choices, and any word)
        category = next(o for o in cast["options"] if o["name"] == "category")
        assert category.get("autocomplete") and not category.get("choices")
        liuyao = _command(dc, "liuyao")
        use = next(o for o in liuyao["options"] if o["name"] == "use")
        assert use.get("autocomplete") and not use.get("choices")
        method = next(o for o in liuyao["options"] if o["name"] == "method")
        assert {c["value"] for c in method["choices"]} == {"coins", "time"}
        daily = _command(dc, "daily")
        assert int(daily["default_member_permissions"]) & discord_manage_guild()
        assert _command(dc, "cast").get("default_member_permissions") is None

        # a typed category reaches the 大六壬 reading (the 類神 category line of the composed reading)
        inter = await dc.slash("cast", {"when": "庚辰 8", "category": "天文"})
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        read = next(b for b in _buttons(first) if pages.decode(unsealed(b["custom_id"])).page == "read")
        pressed = await _press(dc, first, read, user_id=dc.user_id)
        assert gettext("ko", "liuren_reading.category") in pressed.original["embeds"][0]["description"]


def discord_manage_guild() -> int:
    return 1 << 5  # MANAGE_GUILD (Discord's permission bit 5)


async def test_autocomplete_for_tz_and_place(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        await dc.wait_synced()
        tz = await dc.autocomplete("tz", {"zone": "seo"}, "zone")
        await dc.wait_acked(tz, timeout=10)
        assert tz.ack_type == 8 and tz.choices[0]["value"] == "Asia/Seoul"  # Seoul, by its English name
        place = await dc.autocomplete("place", {"longitude": "서"}, "longitude")
        await dc.wait_acked(place, timeout=10)
        assert place.ack_type == 8 and 0 < len(place.choices) <= 25
        assert any(c["value"] == "서울" for c in place.choices)
