"""One busy server channel: many members' slash commands, in batches, from the same guild channel.

The real discord.py client against the fake Discord with Discord's own rules (the 3-second acknowledgement
deadline, a 5-per-second bucket per route and major parameter). Interaction callbacks and follow-ups are
interaction endpoints: each interaction has buckets of its own and none counts against the bot's global
limit (docs "Rate Limits"), so a hundred interactions of one channel never wait for each other's buckets.
(The fake used to put every callback into one shared 5-per-second bucket: each batch of ten met 429s and
discord.py's "Webhook … is rate limited" warnings.)

The channel's admission limit — a burst of 30, then 2 commands a second, one "slow down" and then silence
(docs/reliability.md, ``tests/reliability/test_discord_faults.py``) — is the flood rule, not the transport:
it is lifted here, so what is measured is the gateway, the REST buckets and the bot's event loop.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.admission import Admission, Limits
from tests.conftest import discord_bot
from tests.fakes.discord import FakeDiscord

pytestmark = pytest.mark.usefixtures("restore_discord_endpoints")

COMMANDS = 120  # ≥ 100, in batches of BATCH
BATCH = 10
SLASH = (("cast", {"when": "now"}), ("liuyao", {"lines": "797979"}), ("shensha", {"day": "甲子"}))
HEARTBEAT_MS = 250
ANSWER_WITHIN = 10.0  # seconds from a command to its reply, on a loaded 2-core machine
HEARTBEAT_SLACK = 1.0  # seconds a heartbeat may come late (the loop busy; threads of a loaded machine)


async def test_a_hundred_commands_from_one_channel_are_each_answered_once_and_the_heartbeat_keeps_pace(
    tmp_path, caplog
):
    caplog.set_level(logging.WARNING, logger="discord")
    async with (
        FakeDiscord(ack_deadline=3.0, heartbeat_interval_ms=HEARTBEAT_MS, require_alt_text=True) as dc,
        discord_bot(dc, str(tmp_path / "d.db")) as ctx,
    ):
        ctx.admission = Admission(Limits(chat_burst=COMMANDS, chat_per_second=COMMANDS))
        first_heartbeat = len(dc.heartbeat_log)
        inters = []
        for start in range(0, COMMANDS, BATCH):
            batch = []
            for i in range(start, start + BATCH):
                name, options = SLASH[i % 3]
                batch.append(
                    await dc.slash(name, options, user_id=500_000 + i, locale="ko" if i % 2 else "zh-TW")
                )
            for inter in batch:
                await dc.wait_followups(inter, 1, timeout=ANSWER_WITHIN)
            inters += batch
        await asyncio.sleep(0.3)  # anything sent twice would arrive now
        # two heartbeats after the last reply: the client has read every event the gateway sent
        seen = len(dc.heartbeat_log)
        await dc._wait(lambda: len(dc.heartbeat_log) >= seen + 2, 5, "two more heartbeats")
        admitted = ctx.admission.admitted

    assert admitted == COMMANDS
    assert dc.rate_limited == 0  # no 429: one interaction's buckets are its own
    assert {i.payload["channel_id"] for i in inters} == {dc.channel_id}  # all from one guild channel
    for inter in inters:
        callbacks = [r for r in dc.requests if r.path.startswith(f"interactions/{inter.id}/")]
        followup = f"webhooks/{dc.application_id}/{inter.token}"
        posts = [r for r in dc.requests if r.method == "POST" and r.path == followup]
        assert [r.status for r in callbacks] == [200] and inter.ack_type == 5  # deferred, once
        assert inter.acked_at - inter.created_at < 3.0  # Discord's deadline (the fake refuses later ones)
        assert [r.status for r in posts] == [200] * len(inter.followups) and len(inter.followups) == 1
        assert posts[0].at - inter.created_at < ANSWER_WITHIN
        assert {m["channel_id"] for m in inter.followups} == {dc.channel_id}
    shensha = [i for i in inters if i.payload["data"]["name"] == "shensha"]
    # 甲子 day: 天乙貴人 in 丑 and 未 (《三命通會》 "甲戊庚牛羊"), shown in both languages
    assert all("天乙貴人" in str(i.followups[0]) for i in shensha)

    # the heartbeat kept its interval all along (a blocked loop would have delayed it) …
    beats = [at for at, _, _ in dc.heartbeat_log[first_heartbeat:]]
    gaps = [b - a for a, b in zip(beats, beats[1:])]
    assert len(gaps) >= 3 and max(gaps) < HEARTBEAT_MS / 1000 + HEARTBEAT_SLACK
    # … and reported the last sequence sent: the client's reader was never behind the gateway
    _, acked_seq, sent_seq = dc.heartbeat_log[-1]
    assert acked_seq == sent_seq >= COMMANDS
    behind = [r.getMessage() for r in caplog.records if r.name.startswith("discord.")]
    assert not [m for m in behind if "keep up" in m or "heartbeat blocked" in m or "rate limited" in m]
