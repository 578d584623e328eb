"""Discord fault scenarios: the sender's retry policy (#12.3, #12.8) and a slash-command flood through the
fake gateway (#12.1)."""

from __future__ import annotations

import asyncio
import logging

import aiohttp
import discord
import pytest

from bot.discord.sender import DiscordSender
from bot.i18n import gettext
from tests.conftest import discord_bot
from tests.fakes.discord import FakeDiscord


class _Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "fake"


class Target:
    """A messageable whose ``send`` fails with the scripted errors, then succeeds."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0
        self.id = 55

    async def send(self, **kwargs):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return type("Message", (), {"id": 1000 + self.calls})()


def _connector_error() -> aiohttp.ClientConnectorError:
    key = type("Key", (), {"host": "127.0.0.1", "port": 1, "ssl": None})()
    return aiohttp.ClientConnectorError(key, OSError(111, "Connection refused"))


async def test_a_discord_5xx_is_uncertain_and_not_resent(caplog):
    target = Target(discord.DiscordServerError(_Response(503), {"message": "upstream", "code": 0}))
    sender = DiscordSender(backoff=0.0)
    with caplog.at_level(logging.ERROR, logger="bot.sending"):
        outcome = await sender.send(target, "하루")
    assert outcome.error == "uncertain" and target.calls == 1  # the old sender sent it up to 3 times
    assert sender.dropped["uncertain"] == 1 and any(r.levelno == logging.ERROR for r in caplog.records)


async def test_a_lost_discord_answer_is_uncertain_and_not_resent():
    target = Target(aiohttp.ServerDisconnectedError())
    outcome = await DiscordSender(backoff=0.0).send(target, "하루")
    assert outcome.error == "uncertain" and target.calls == 1


async def test_a_refused_discord_connection_is_retried():
    target = Target(_connector_error(), _connector_error())
    outcome = await DiscordSender(backoff=0.0, max_attempts=3).send(target, "하루")
    assert outcome.ok and target.calls == 3


async def test_before_request_false_sends_nothing():
    target = Target()

    async def stopping() -> bool:
        return False

    outcome = await DiscordSender().send(target, "하루", before_request=stopping)
    assert outcome.error == "not_attempted" and target.calls == 0


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_a_slash_command_flood_gets_one_ephemeral_slow_down(tmp_path):
    async with (
        FakeDiscord(ack_deadline=1.0, heartbeat_interval_ms=200) as dc,
        discord_bot(dc, str(tmp_path / "d.db")) as ctx,
    ):
        flood = [await dc.slash("start", None, user_id=7001) for _ in range(40)]
        other = await dc.slash("start", None, user_id=7002)
        await dc.wait_followups(other, 1, timeout=10)
        await asyncio.sleep(0.5)
        slow_down = "⚠ " + gettext("ko", "bot.error.slow_down")
        warned = [i for i in flood if i.ack_type == 4]
        assert len(warned) == 1 and warned[0].original["flags"] & 64
        assert slow_down in warned[0].original.get("content", "")
        answered = [i for i in flood if i.ack_type == 5]
        assert 1 <= len(answered) <= 12  # the burst; the rest was dropped without any work
        assert ctx.admission.dropped >= 25


# ---- presses and commands that are not (or no longer) ours (issue 36) --------------------------------------


@pytest.mark.parametrize("custom_id", ["p:\ud800:2:brief", "\udfff", "p:x:2:brief\u202e", "zzz:unknown"])
async def test_a_press_with_a_bad_custom_id_is_acknowledged_with_an_error(tmp_path, caplog, custom_id):
    """A lone surrogate used to raise UnicodeEncodeError in the database query, and an unknown id was never
    acknowledged (the client shows "interaction failed"): both get an ephemeral error, in the presser's
    language, and the bot goes on."""
    async with (
        FakeDiscord(ack_deadline=1.0, heartbeat_interval_ms=200) as dc,
        discord_bot(dc, str(tmp_path / "d.db")),
    ):
        message = {"id": "1300000000000000001", "content": "…", "components": []}
        for locale, lang in (("ko", "ko"), ("zh-TW", "lzh")):
            inter = await dc.wait_acked(await dc.press(message, custom_id, locale=locale))
            assert inter.ack_type == 4 and inter.original["flags"] & 64
            assert inter.original["content"] == gettext(lang, "bot.error.bad_button")
        other = await dc.slash("start", None, user_id=7003)
        await dc.wait_followups(other, 1, timeout=10)  # still answering
    assert "UnicodeEncodeError" not in caplog.text and "Traceback" not in caplog.text


async def test_a_stale_command_name_is_answered_renamed_or_removed_in_the_users_language(tmp_path, caplog):
    """A client whose command list predates a rename sends a name the tree no longer has: answered "this
    command was renamed or removed" (ko, lzh), with no internal-error reply and no traceback in the log."""
    async with (
        FakeDiscord(ack_deadline=1.0, heartbeat_interval_ms=200) as dc,
        discord_bot(dc, str(tmp_path / "d.db")),
    ):
        for locale, lang in (("ko", "ko"), ("zh-TW", "lzh")):
            inter = await dc.slash("oldcast", None, locale=locale, command_id="1300000000000000077")
            await dc.wait_acked(inter)
            shown = inter.original.get("content", "") if inter.original else ""
            shown += "".join(f.get("content", "") for f in inter.followups)
            assert gettext(lang, "bot.error.command_gone") in shown
            assert gettext(lang, "bot.error.internal") not in shown
    assert "Traceback" not in caplog.text and "command failed" not in caplog.text
