"""#12.5 nothing personal reaches a group; #12.6 Telegram's shared sender accounts are keyed per chat."""

from __future__ import annotations

import asyncio

import pytest

from bot.i18n import gettext
from bot.privacy import private_only
from bot.views import CHANNELS, render
from tests.adapters.conftest import running, tg_settings
from tests.conftest import discord_bot

pytestmark = pytest.mark.filterwarnings("ignore:Deprecated since version v22.2")

# Saved privately first: a place (Seoul City Hall), a zone, an option, a birth chart with consent.
LON, LAT = "126.9780", "37.5665"
SECRETS = ("126.97", "37.56", "126°", "37°", "America/New_York", "1984-03-05")


async def _personal_user(say, user="p1", platform="console"):
    async def private(line):
        return await say(line, user=user, platform=platform)

    assert (await private(f"/place {LON} {LAT}")).view == "place"
    assert (await private("/tz America/New_York")).view == "tz"
    assert (await private("/settings solar_time on")).view == "settings"
    saved = await private(f"/qizheng 1984-03-05 14:20 {LON} {LAT} save")
    assert saved.view == "qizheng" and saved.context["saved"]
    assert (await private("/cast 2026-11-29 23:10")).view == "cast"


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


@pytest.mark.parametrize("platform", ["telegram", "discord", "console"])
@pytest.mark.parametrize("kind", ["group", "channel"])
async def test_private_only_commands_in_a_group_say_ask_privately_and_show_nothing(say, platform, kind):
    await _personal_user(say, platform=platform)
    for line in ("/settings", "/place", "/tz", "/history", "/show 1", "/show 2", "/qizheng", "/forget",
                 f"/place {LON} {LAT}", "/tz Asia/Seoul", "/forget yes", "/settings solar_time off"):  # fmt: skip
        answer = await say(line, user="p1", platform=platform, chat="g1", chat_kind=kind)
        assert answer.view == "error" and answer.context["code"] == "bot.error.private_only", line
        for channel in CHANNELS:
            assert not _leaks(render(answer, channel)), (line, channel)
    # nothing ran: the saved data is unchanged (the /forget yes and /tz in the group did nothing)
    mine = await say("/settings", user="p1", platform=platform)
    assert mine.context["zone"] == "America/New_York" and mine.context["longitude"] == pytest.approx(126.978)
    assert (await say("/history", user="p1", platform=platform)).context["total"] == 2


async def test_a_cast_in_a_group_hides_the_saved_longitude(say):
    await _personal_user(say)
    private = await say("/cast 2026-11-29 23:10", user="p1")
    assert private.context["when"]["longitude"] == pytest.approx(126.978)  # shown to the user alone
    public = await say("/cast 2026-11-29 23:10", user="p1", chat="g1", chat_kind="group")
    assert public.view == "cast" and public.context["when"]["longitude"] is None
    for channel in CHANNELS:
        assert "126.98" not in render(public, channel) and "126.98" in render(private, channel)


def test_the_private_only_message_exists_in_both_languages():
    for lang in ("ko", "lzh"):
        text = gettext(lang, "bot.error.private_only", name="history")
        assert text != "bot.error.private_only" and "/history" in text
    assert all(private_only(name) for name in ("history", "show", "settings", "place", "tz", "qizheng"))


async def _say_tg(tg, run, text, chat_id, *, user_id, sender_chat=None, chat_type="supergroup"):
    update = tg.make_update(text, chat_id=chat_id, user_id=user_id, chat_type=chat_type)
    if sender_chat is not None:
        update["message"]["sender_chat"] = {"id": sender_chat, "type": "channel", "title": "news"}
    before = len(tg.sent_to(chat_id))
    tg.push_update(update)
    await run.telegram.wait_handled(update["update_id"], 10)
    return "\n".join(c.shown for c in tg.sent_to(chat_id)[before:])


async def test_telegram_group_gets_ask_privately_and_anonymous_admins_are_per_group(tg, tmp_path):
    anon = 1087968824  # GroupAnonymousBot
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        g1, g2 = -1001000000001, -1001000000002
        text = await _say_tg(tg, run, "/settings", g1, user_id=31)
        assert text == "⚠ " + gettext("ko", "bot.error.private_only", name="settings")
        # an anonymous admin of group 1 switches *their* language; group 2's anonymous admin is someone else
        await _say_tg(tg, run, "/lang lzh", g1, user_id=anon)
        assert gettext("lzh", "bot.error.private_only", name="tz") in await _say_tg(
            tg, run, "/tz", g1, user_id=anon
        )
        assert gettext("ko", "bot.error.private_only", name="tz") in await _say_tg(
            tg, run, "/tz", g2, user_id=anon
        )
        # channel senders (Channel_Bot 136817688) are keyed per channel too
        await _say_tg(tg, run, "/lang lzh", g1, user_id=136817688, sender_chat=-1002000000001)
        other = await _say_tg(tg, run, "/tz", g1, user_id=136817688, sender_chat=-1002000000002)
        assert gettext("ko", "bot.error.private_only", name="tz") in other
        keys = {r[0] for r in await run.ctx.storage.fetchall("SELECT user_key FROM users")}
    assert {f"telegram:{anon}@{g1}", "telegram:136817688@-1002000000001"} <= keys
    assert f"telegram:{anon}" not in keys and "telegram:136817688" not in keys


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_discord_slash_qizheng_and_show_in_a_guild_are_ephemeral(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "d.db")):
        user = 4242
        for name, options in (
            ("qizheng", {"when": f"1984-03-05 14:20 {LON} {LAT} save"}),
            ("qizheng", None),  # the saved birth chart
            ("show", {"number": 1}),
            ("history", None),
        ):
            inter = await dc.slash(name, options, user_id=user)
            await dc.wait_followups(inter, 1, timeout=15)
            await asyncio.sleep(0.1)
            assert inter.original["flags"] & 64, name  # the deferred answer is ephemeral …
            assert all(int(m.get("flags") or 0) & 64 for m in inter.followups), name  # … and every part
        public = await dc.slash("start", None, user_id=user)
        await dc.wait_followups(public, 1, timeout=15)
        assert not public.original["flags"] & 64  # others stay public
