"""End to end: the real discord.py client (gateway + REST + slash commands) against the fake Discord."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import bot.discord as dmod
from bot.discord.sender import DiscordSender
from bot.i18n import gettext
from tests.adapters.conftest import BRANCHES, STEMS, day_pillars_now, running, tg_settings
from tests.conftest import discord_bot, discord_settings
from tests.fakes.discord import FakeDiscord

MESSAGE_CONTENT_INTENT = 1 << 15


pytestmark = pytest.mark.usefixtures("restore_discord_endpoints")


async def _slash(
    dc: FakeDiscord, name: str, options: dict[str, Any] | None = None, **kw: Any
) -> tuple[Any, str]:
    inter = await dc.slash(name, options, **kw)
    await dc.wait_followups(inter, 1, timeout=10)
    await asyncio.sleep(0.1)  # later parts, if any
    return inter, "\n".join(_shown(m) for m in inter.followups)


def _shown(message: dict[str, Any]) -> str:
    """What a message shows: its content and its embeds (title, description) — a stored cast is an embed."""
    parts = [message.get("content") or ""]
    for e in message.get("embeds") or []:
        parts += [e.get("title") or "", e.get("description") or ""]
    return "\n".join(p for p in parts if p)


def _ganzhi_pairs(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1) if text[i] in STEMS and text[i + 1] in BRANCHES}


async def test_gateway_handshake_heartbeats_and_command_sync(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")) as ctx:
        assert dc.identify is not None and dc.identify["token"] == dc.token
        assert not dc.identify["intents"] & MESSAGE_CONTENT_INTENT  # no privileged intent requested
        await dc._wait(lambda: dc.heartbeats >= 2, 5, "two heartbeats")  # HEARTBEAT → ACK, repeatedly
        assert [scope for scope, _ in dc.sync_calls] == ["global"]  # one bulk overwrite on start
        commands = {c["name"]: c for c in dc.synced["global"]}
        assert {"start", "cast", "shensha", "history", "show", "lang"} <= set(commands)
        for c in commands.values():
            assert 1 <= len(c["description"]) <= 100
            assert set(c["description_localizations"]) == {"ko", "zh-TW"}
        options = {o["name"]: o for o in commands["show"]["options"]}
        assert options["number"]["type"] == 4 and options["number"]["required"] is True  # integer
        lang = {o["name"]: o for o in commands["lang"]["options"]}["lang"]
        assert [ch["value"] for ch in lang["choices"]] == ["ko", "lzh"]
        assert ctx.discord_client.user.id == int(dc.bot_user_id)
    # a restart with the same schema reads the registered commands and writes nothing
    async with discord_bot(dc, str(tmp_path / "db.sqlite")) as ctx:
        assert len(dc.sync_calls) == 1
        assert {c.name for c in ctx.discord_client.synced} == set(commands)
    # a changed schema (here: a description) is written again
    dc.synced["global"][0]["description"] = "stale"
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        assert len(dc.sync_calls) == 2


async def test_slash_commands_defer_within_the_deadline_then_follow_up(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter, text = await _slash(dc, "shensha", {"day": "甲子"})
        assert inter.ack_type == 5  # deferred ("thinking"), the fake's 1 s deadline was met
        assert inter.acked_at - inter.created_at < 1.0
        assert "천을귀인(天乙貴人) 축·미" in text  # the Korean first page reads its names (issue 33 item 6)
        assert all(m["allowed_mentions"] == {"parse": []} for m in inter.followups)

        _, cast = await _slash(dc, "cast", {"when": "now"})
        assert day_pillars_now("Asia/Seoul") & _ganzhi_pairs(cast)

        _, bad = await _slash(dc, "cast", {"when": "甲乙"})
        assert bad.splitlines()[0] == "⚠ " + gettext("ko", "error.not_a_ganzhi", value="甲乙")
        assert "/help cast" in bad.splitlines()[1]  # engine errors point to the usage
        _, bad_lzh = await _slash(dc, "cast", {"when": "甲乙"}, locale="zh-TW", user_id=555)
        assert bad_lzh.splitlines()[0] == "⚠ " + gettext("lzh", "error.not_a_ganzhi", value="甲乙")

        _, dm = await _slash(dc, "shensha", {"day": "甲子"}, dm=True, user_id=556)
        assert "天乙貴人" in dm


async def test_long_replies_are_split_within_2000(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter, text = await _slash(dc, "cast", {"when": "2026-11-29 23:10"})
        await asyncio.sleep(0.3)
        contents = [_shown(m) for m in inter.followups]
        assert all(len(m["content"]) <= 2000 for m in inter.followups)  # the fake refuses longer (50035)
        assert all(0 < len(c) for c in contents)
        assert all(r.status < 400 for r in dc.requests if r.path.startswith("webhooks/"))


async def test_mentions_are_never_pinged(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        _, text = await _slash(dc, "shensha", {"day": "@everyone <@123456789012345678> @here"})
        assert "@everyone" not in text and "@here" not in text and "<@1" not in text
        assert "everyone" in text  # echoed, but inert
        client_mentions = [m["allowed_mentions"] for m in dc.messages]
        assert client_mentions and all(am == {"parse": []} for am in client_mentions)


async def test_forbidden_recipient_is_reported_once_and_rate_limits_are_honoured(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")) as ctx:
        client = ctx.discord_client
        channel = client.get_channel(int(dc.channel_id))
        assert channel is not None
        reports = []
        sender = DiscordSender(on_blocked=lambda *a: reports.append(a))

        dc.forbid_channel(dc.channel_id)
        outcome = await sender.send(channel, "hello @everyone")
        assert outcome.error == "forbidden"
        assert reports == [("discord", dc.channel_id, "50007 Cannot send messages to this user")]
        posts = [r for r in dc.requests if r.method == "POST" and r.path.endswith("/messages")]
        assert [r.status for r in posts] == [403]  # not retried
        dc._forbidden.clear()

        # a 429 with retry_after: discord.py waits the server's value, the message arrives once
        dc.rate_limit_next(0.5)
        assert (await sender.send(channel, "once")).ok
        posts = [r for r in dc.requests if r.method == "POST" and r.path.endswith("/messages")]
        assert [r.status for r in posts[1:]] == [429, 200]
        assert posts[2].at - posts[1].at >= 0.5
        assert [m["content"] for m in dc.messages].count("once") == 1

        # the rate-limit headers pace the client: 12 posts through a 5-per-second bucket go out in
        # windows (discord.py may still meet a 429 when several waiters wake at once; it then waits the
        # server's retry_after), and every message arrives exactly once
        before = len([r for r in dc.requests if r.path.endswith("/messages")])
        start = time.monotonic()
        results = await asyncio.gather(*(sender.send(channel, f"m{i}") for i in range(12)))
        assert all(r.ok for r in results)
        assert time.monotonic() - start >= 1.0
        attempts = [r for r in dc.requests if r.path.endswith("/messages")][before:]
        assert len([r for r in attempts if r.status == 200]) == 12
        assert len(attempts) < 24  # not hammering: most requests waited for their window
        assert sorted(m["content"] for m in dc.messages if m["content"].startswith("m")) == sorted(
            f"m{i}" for i in range(12)
        )


@pytest.mark.parametrize("global_", [False, True], ids=["per-route", "global"])
async def test_a_429_on_a_reply_is_waited_out_counted_and_the_reply_arrives_once(dc, tmp_path, global_):
    """discord.py retries a 429 itself (the sender never sees it): the client's ``http_trace`` counts it in
    ``sikpan_rate_limited_total{platform="discord"}`` with its ``retry_after``."""
    from bot import metrics

    registry = metrics.enable()

    def value(name: str) -> float:
        return registry.get_sample_value(name, {"platform": "discord"}) or 0.0

    before = value("sikpan_rate_limited_total"), value("sikpan_rate_limit_wait_seconds_sum")
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        dc.rate_limit_next(0.4, global_=global_)
        inter = await dc.slash("start", user_id=4290)
        await dc.wait_followups(inter, 1, timeout=10)
        await asyncio.sleep(0.3)  # later parts, if any
        after = value("sikpan_rate_limited_total"), value("sikpan_rate_limit_wait_seconds_sum")
    posts = [r for r in dc.requests if r.method == "POST" and r.path.startswith("webhooks/")]
    assert posts[0].status == 429 and all(r.status == 200 for r in posts[1:])
    assert posts[1].at - posts[0].at >= 0.4  # the server's retry_after, waited out
    assert len(posts) - 1 == len(inter.followups)  # the refused post was sent again once, nothing twice
    shown = [_shown(m) for m in inter.followups]
    assert shown and all(shown) and len(set(shown)) == len(shown)
    assert after[0] - before[0] == 1
    assert after[1] - before[1] == pytest.approx(0.4)  # the body's retry_after, not the rounded header


async def test_restart_keeps_history_and_both_adapters_run_in_one_loop(dc, tg, tmp_path):
    db = str(tmp_path / "db.sqlite")
    both = discord_settings(dc, db, telegram_token=tg.token, telegram_api_base_url=tg.base_url)
    async with running(both, ready=tg):
        await dc.wait_ready()
        await _slash(dc, "cast", {"when": "2026-11-29 23:10"}, user_id=777)
        tg.user_says("/start", chat_id=778)
        await tg.wait_sent(778, 1, timeout=10)
    dc._ready.clear()
    async with running(both, ready=tg):
        await dc.wait_ready()
        _, history = await _slash(dc, "history", {}, user_id=777)
        assert "2026-11-29 23:10" in history
        _, other = await _slash(dc, "history", {}, user_id=779)  # another user sees none of it
        assert "2026-11-29" not in other
    assert tg_settings  # the Telegram half was served by the same process


def test_command_line_from_slash_values():
    from bot.commands import lookup

    spec = lookup("cast")
    assert spec is not None
    assert dmod.command_line(spec, {"when": "2026-11-29 23:10"}) == "/cast 2026-11-29 23:10"
    assert dmod.command_line(spec, {"when": None}) == "/cast"


async def test_defer_comes_first_even_when_the_command_is_slow(dc, tmp_path, monkeypatch):
    real_dispatch = dmod.dispatch

    async def slow_dispatch(incoming, ctx):
        await asyncio.sleep(1.5)  # longer than the fake's 1 s acknowledgement deadline
        return await real_dispatch(incoming, ctx)

    monkeypatch.setattr(dmod, "dispatch", slow_dispatch)
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter, text = await _slash(dc, "shensha", {"day": "甲子"})
        assert inter.ack_type == 5 and inter.acked_at - inter.created_at < 1.0
        assert "天乙貴人" in text
        assert inter.followups and all(m["id"] for m in inter.followups)


async def test_the_discord_token_never_reaches_the_logs(dc, tmp_path, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        await _slash(dc, "start")
    assert caplog.records
    assert dc.token not in caplog.text
    assert dc.token.split(".")[-1] not in caplog.text


async def test_optional_prefix_commands(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite"), prefix="!"):
        assert dc.identify["intents"] & MESSAGE_CONTENT_INTENT  # prefix commands need the intent
        await dc.user_message("!shensha 甲子")
        [msg] = await dc.wait_for_messages(1, timeout=10, predicate=lambda m: m["via"] == "channel")
        assert msg["channel_id"] == dc.channel_id and "天乙貴人" in msg["content"]
        assert msg["allowed_mentions"] == {"parse": []}
        await dc.user_message("hello, no command here")
        await dc.user_message("!shensha 甲子", dm=True, user_id=4242)
        dms = await dc.wait_for_messages(1, timeout=10, predicate=lambda m: m["channel_id"] == "4243")
        assert "天乙貴人" in dms[0]["content"]
        assert len([m for m in dc.messages if m["via"] == "channel"]) == 2  # the plain message got no answer


async def test_the_fake_enforces_discords_acknowledgement_rules():
    import aiohttp

    async with FakeDiscord(ack_deadline=0.2) as fake:
        async with aiohttp.ClientSession() as http:

            async def ack(inter, kind=5):
                url = f"{fake.api_base_url}/interactions/{inter.id}/{inter.token}/callback?with_response=true"
                async with http.post(url, json={"type": kind, "data": {}}) as r:
                    return r.status, (await r.json()).get("code")

            late = await fake.slash("start")
            await asyncio.sleep(0.3)
            assert await ack(late) == (404, 10062)  # Unknown interaction
            timely = await fake.slash("start")
            assert (await ack(timely))[0] == 200
            assert await ack(timely) == (400, 40060)  # already acknowledged
            url = f"{fake.api_base_url}/webhooks/{fake.application_id}/{timely.token}?wait=true"
            async with http.post(url, json={"content": "x" * 2001}) as r:
                assert r.status == 400 and (await r.json())["code"] == 50035
            async with http.post(url, json={"content": "ok"}) as r:
                assert r.status == 200 and r.headers["Content-Type"] == "application/json"
