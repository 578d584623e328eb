"""Discord sharding against the fake gateway (which routes a guild's events to its shard, as Discord does):
``AutoShardedClient`` with the shard count from ``/gateway/bot`` or ``DISCORD_SHARD_COUNT``, the shards of a
process from ``DISCORD_SHARD_IDS``, and the slash commands synced by one replica only."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

import bot.discord as dmod
from bot.config import Settings
from bot.context import create_context
from tests.fakes.discord import FakeDiscord

pytestmark = pytest.mark.usefixtures("restore_discord_endpoints")


def settings_for(dc: FakeDiscord, db: str, **kw) -> Settings:
    return Settings(
        discord_token=dc.token,
        discord_api_base_url=dc.api_base_url,
        discord_gateway_url=dc.gateway_url,
        db_path=db,
        lang="ko",
        **kw,
    )


@contextlib.asynccontextmanager
async def replica(settings: Settings) -> AsyncIterator[object]:
    ctx = await create_context(settings)
    stop = asyncio.Event()
    task = asyncio.create_task(dmod.run_discord(ctx, stop, guild_ready_timeout=0.1))
    try:
        yield ctx
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)
        await ctx.close()


async def wait_identified(dc: FakeDiscord, count: int) -> None:
    await dc._wait(lambda: len(dc.shards_identified) >= count, 10, f"{count} shards identified")


async def test_the_recommended_shard_count_is_used_and_a_guild_is_served_once(tmp_path, monkeypatch):
    monkeypatch.setattr(dmod.SikpanClient, "identify_interval", 0.1)  # Discord's is 5 s; the fake has none
    async with FakeDiscord(ack_deadline=2.0, heartbeat_interval_ms=200, recommended_shards=3) as dc:
        async with replica(settings_for(dc, str(tmp_path / "db.sqlite"))) as ctx:
            await wait_identified(dc, 3)
            assert sorted(dc.shards_identified) == [(0, 3), (1, 3), (2, 3)]
            await dc.wait_ready()
            client = ctx.discord_client
            await dc._wait(client.is_ready, 10, "the client ready on every shard")
            inter = await dc.slash("start", user_id=dc.user_id)
            await dc.wait_followups(inter, 1, timeout=10)
            await asyncio.sleep(0.3)
            assert len(inter.followups) == 1  # delivered to the guild's shard only, answered once
            guild = client.get_guild(int(dc.guild_id))
            assert guild is not None and guild.shard_id == dc.shard_of(dc.guild_id, 3)
            assert [scope for scope, _ in dc.sync_calls] == ["global"]


async def test_two_replicas_split_the_shards_and_only_shard_0_syncs_the_commands(tmp_path):
    async with FakeDiscord(ack_deadline=2.0, heartbeat_interval_ms=200) as dc:
        base = settings_for(dc, str(tmp_path / "db.sqlite"), discord_shard_count=2)
        first = replace(base, discord_shard_ids=(0,))
        second = replace(base, discord_shard_ids=(1,))
        assert dmod.syncs_commands(first) and not dmod.syncs_commands(second)
        async with replica(second) as ctx_b, replica(first) as ctx_a:
            await wait_identified(dc, 2)
            assert sorted(dc.shards_identified) == [(0, 2), (1, 2)]
            owner = ctx_a if dc.shard_of(dc.guild_id, 2) == 0 else ctx_b
            await dc._wait(owner.discord_client.is_ready, 10, "the guild's shard ready")
            await dc._wait(lambda: bool(dc.sync_calls), 10, "a sync")
            await asyncio.sleep(0.5)
            assert [scope for scope, _ in dc.sync_calls] == ["global"]  # one replica, one bulk overwrite
            put = [r for r in dc.requests if r.method == "PUT" and r.path.endswith("/commands")]
            assert len(put) == 1
            inter = await dc.slash("start", user_id=dc.user_id)
            await dc.wait_followups(inter, 1, timeout=10)
            await asyncio.sleep(0.3)
            assert len(inter.followups) == 1


def test_sync_follows_the_setting_when_given():
    s = Settings(discord_shard_count=4, discord_shard_ids=(2, 3))
    assert not dmod.syncs_commands(s)
    assert dmod.syncs_commands(replace(s, discord_sync_commands=True))
    assert not dmod.syncs_commands(replace(Settings(), discord_sync_commands=False))
    assert dmod.syncs_commands(Settings())  # unsharded: the one process syncs (same_schema skips a repeat)


async def test_a_shard_id_beyond_the_count_is_closed_by_the_gateway(tmp_path):
    async with FakeDiscord(heartbeat_interval_ms=200) as dc:
        import json

        import aiohttp

        async with aiohttp.ClientSession() as http, http.ws_connect(dc.gateway_url) as ws:
            await ws.receive()  # HELLO
            await ws.send_str(json.dumps({"op": 2, "d": {"token": dc.token, "shard": [2, 2], "intents": 1}}))
            msg = await ws.receive()
            assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 4010
