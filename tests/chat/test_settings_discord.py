"""Settings as choices on Discord (issue #13 item 5), with the real discord.py against the fake gateway + REST:
``/settings`` in a guild is answered ephemerally with buttons whose ``custom_id`` names the owner and the
``/settings`` line; the one interaction listener answers each press with UPDATE_MESSAGE (type 7) within 3 s;
a press by another member, or a value that cannot work yet, gets an ephemeral one-liner and changes nothing.
Also: a cast shown in a guild channel can be browsed by another member — the views change, nobody's settings
do. Expected texts: seed 003's entry for 庚辰 第八局 (「앞에서 이끌고 뒤에서 따르며」)."""

from __future__ import annotations

import pytest

from bot.commands import pages, setting_buttons
from bot.features import options as _options
from bot.i18n import gettext
from bot.seal import unsealed
from tests.chat.test_discord_pages import _buttons, _press
from tests.conftest import discord_bot

pytestmark = pytest.mark.usefixtures("restore_discord_endpoints")


def _by_target(buttons, target, value=None):
    return next(
        b
        for b in buttons
        if (ref := setting_buttons.decode(unsealed(b["custom_id"])))
        and ref.target == target
        and ref.value == value
    )


def _notice(dc, inter) -> dict:
    return next(m for m in dc.messages if m.get("interaction") == inter.id)


@pytest.mark.parametrize(("locale", "lang"), [("ko", "ko"), ("zh-TW", "lzh")])
async def test_guild_settings_buttons_update_in_place(dc, tmp_path, locale, lang):
    owner = dc.user_id
    async with discord_bot(dc, str(tmp_path / "db.sqlite")) as ctx:
        inter = await dc.slash("settings", None, user_id=owner, locale=locale)
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        assert first["flags"] & 64  # the caller's own data: ephemeral in a guild
        groups = _buttons(first)
        assert {setting_buttons.decode(unsealed(b["custom_id"])).target for b in groups} == set(
            _options.GROUPS
        )

        pressed = await _press(dc, first, _by_target(groups, "qizheng"), user_id=owner, locale=locale)
        assert pressed.ack_type == 7  # UPDATE_MESSAGE: the same message, edited
        names = [gettext(lang, f"qizheng.opt.mansions.{v}") for v in ("modern", "delta_ori", "eta_and")]
        shown = pressed.original["content"].replace("\\", "").replace("`", "")
        # names, not codes (issue 32); the current value alone on the group page
        assert names[0] in shown and "delta_ori" not in shown
        assert names[1] not in shown and names[2] not in shown
        options = _buttons(pressed.original)
        assert len(options) <= 25  # Discord: 5 rows of 5
        pressed = await _press(
            dc, pressed.original, _by_target(options, "qizheng.mansions"), user_id=owner, locale=locale
        )
        values = _buttons(pressed.original)
        current = _by_target(values, "qizheng.mansions", "modern")
        assert current["style"] == 1  # primary: the current value (the default of a new user)
        pressed = await _press(
            dc,
            pressed.original,
            _by_target(values, "qizheng.mansions", "shoushi"),
            user_id=owner,
            locale=locale,
        )
        assert pressed.ack_type == 7
        assert gettext(lang, "bot.settings.changed") in pressed.original["content"]
        user = await ctx.storage.get_user(f"discord:{owner}")
        assert user.options["qizheng.mansions"] == "shoushi"


async def test_another_member_and_an_impossible_value_change_nothing(dc, tmp_path):
    owner, other = dc.user_id, dc.owner_id
    async with discord_bot(dc, str(tmp_path / "db.sqlite")) as ctx:
        inter = await dc.slash("settings", {"option": "liuren.daynight"}, user_id=owner)
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        values = _buttons(first)
        sishu = _by_target(values, "liuren.daynight", "sishu")
        pressed = await _press(dc, first, sishu, user_id=other, locale="zh-TW")
        assert pressed.ack_type == 4
        notice = _notice(dc, pressed)
        assert notice["content"] == gettext("lzh", "chat.settings.not_yours") and notice["flags"] & 64
        sun = _by_target(values, "liuren.daynight", "sun")
        pressed = await _press(dc, first, sun, user_id=owner)
        assert pressed.ack_type == 4
        notice = _notice(dc, pressed)
        assert gettext("ko", "chat.error.sun_needs_place") in notice["content"] and notice["flags"] & 64
        for key in (f"discord:{owner}", f"discord:{other}"):
            user = await ctx.storage.get_user(key)
            assert user is None or "liuren.daynight" not in user.options


async def test_a_guild_cast_is_browsed_by_another_member_views_change_settings_do_not(dc, tmp_path):
    asker, member = dc.user_id, dc.owner_id
    async with discord_bot(dc, str(tmp_path / "db.sqlite")) as ctx:
        done = await dc.slash("settings", {"option": "liuren.gui_rule", "value": "sanming"}, user_id=asker)
        await dc.wait_followups(done, 1, timeout=10)
        before = {k: dict((await ctx.storage.get_user(k)).options) for k in (f"discord:{asker}",)}
        inter = await dc.slash("cast", {"when": "庚辰 8"}, user_id=asker)
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        assert not first["flags"] & 64  # a cast is shown to the channel
        read = next(b for b in _buttons(first) if pages.decode(unsealed(b["custom_id"])).page == "read")
        pressed = await _press(dc, first, read, user_id=member)
        assert pressed.ack_type == 7
        [page] = pressed.original["embeds"]
        assert "앞에서 이끌고 뒤에서 따르며" in page["description"]  # seed 003, the 解 page
        assert page["description"] != first["embeds"][0]["description"]
        trace = next(
            b for b in _buttons(pressed.original) if pages.decode(unsealed(b["custom_id"])).page == "trace"
        )
        again = await _press(dc, pressed.original, trace, user_id=member)
        assert again.ack_type == 7 and "重審" in again.original["embeds"][0]["description"]
        # browsing wrote nobody's settings: the asker's are as they were, the member has none
        assert {k: dict((await ctx.storage.get_user(k)).options) for k in before} == before
        browser = await ctx.storage.get_user(f"discord:{member}")
        assert browser is None or not browser.options
