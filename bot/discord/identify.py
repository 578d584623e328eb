"""IDENTIFY spacing across the shard processes of one bot (issue #35).

Discord lets a bot start one session per ``max_concurrency`` bucket every 5 s (the bucket of a shard is
``shard_id % max_concurrency``; ``max_concurrency`` is 1 unless Discord raised it for a large bot), whatever
process the shards run in. discord.py spaces the shards of one ``AutoShardedClient`` only; shard processes
started together (``DISCORD_SHARD_IDS=0`` and ``=1`` side by side) identified 0.7 s apart.

With ``SIKPAN_REDIS_URL`` each IDENTIFY first takes its bucket's turn in Redis, from discord.py's public
``before_identify_hook``: ``SET <prefix>discord:identify:<bot id>:<bucket> <token> NX PX <interval + margin>``.
Whoever sets the key identifies now; the others wait for its time to live and try again, so two IDENTIFYs
of a bucket are at least :data:`IDENTIFY_INTERVAL` + :data:`IDENTIFY_MARGIN` apart on the Redis server's
clock (the margin covers the moment between the turn and the IDENTIFY frame leaving). Nothing is released:
the key expires by itself, so a process killed right after its turn costs no one more than the interval.

Redis unreachable: the turn is not taken (logged) and the client spaces its own shards as discord.py
does — a gateway that refuses an early IDENTIFY answers with a close that discord.py retries.
``max_concurrency`` comes from ``GET /gateway/bot`` (``fetch_session_start_limits``, once per client);
1 when it cannot be read.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

import aiohttp
import discord

from bot.limits import redis_client, split_redis_url

log = logging.getLogger(__name__)

IDENTIFY_INTERVAL = 5.0  # seconds between two IDENTIFYs of one bucket (Discord's rule)
IDENTIFY_MARGIN = 0.5  # seconds added to the turn's time to live: the IDENTIFY leaves after the turn
MIN_POLL = 0.05  # seconds: the shortest wait before asking for a turn again


class IdentifyGate:
    """One IDENTIFY per ``max_concurrency`` bucket every :data:`IDENTIFY_INTERVAL` seconds, across processes."""

    def __init__(
        self,
        redis: Any,
        *,
        prefix: str,
        interval: float = IDENTIFY_INTERVAL,
        margin: float = IDENTIFY_MARGIN,
    ) -> None:
        self.redis = redis
        self.prefix = prefix
        self.interval = interval
        self.margin = margin
        self.concurrency: int | None = None
        self.token = os.urandom(8).hex()
        self.turns = 0  # turns taken (tests)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> IdentifyGate:
        _, prefix = split_redis_url(url)
        return cls(redis_client(url), prefix=prefix, **kwargs)

    async def max_concurrency(self, client: discord.Client) -> int:
        """The bot's ``max_concurrency`` (``GET /gateway/bot``), read once; 1 when it cannot be read."""
        if self.concurrency is None:
            concurrency = 1
            if isinstance(client, discord.AutoShardedClient):
                try:
                    limits = await client.fetch_session_start_limits()
                    concurrency = max(1, int(limits.max_concurrency))
                except (discord.HTTPException, discord.GatewayNotFound, aiohttp.ClientError, OSError) as exc:
                    log.warning("discord: max_concurrency unknown (%r); 1 assumed", exc)
            self.concurrency = concurrency
        return self.concurrency

    def key(self, client: discord.Client, bucket: int) -> str:
        bot_id = client.application_id or (client.user.id if client.user is not None else 0)
        return f"{self.prefix}discord:identify:{bot_id}:{bucket}"

    async def wait_turn(self, client: discord.Client, shard_id: int) -> bool:
        """Wait for the turn of ``shard_id``'s bucket; True once taken, False when Redis is unreachable (the
        caller spaces its shards itself)."""
        from redis.exceptions import RedisError  # the redis extra: only where a Redis URL is configured

        bucket = shard_id % await self.max_concurrency(client)
        key = self.key(client, bucket)
        ttl_ms = int(1000 * (self.interval + self.margin))
        waited = 0.0
        while True:
            try:
                if await self.redis.set(key, self.token, nx=True, px=ttl_ms):
                    self.turns += 1
                    log.info(
                        "discord: shard %s identifies (bucket %d, waited %.1fs)", shard_id, bucket, waited
                    )
                    return True
                left = int(await self.redis.pttl(key))
            except (RedisError, OSError) as exc:
                log.warning("discord: no identify turn from Redis (%r); spaced in this process only", exc)
                return False
            pause = max(MIN_POLL, left / 1000 if left > 0 else MIN_POLL)
            waited += pause
            await asyncio.sleep(pause)

    async def close(self) -> None:
        await self.redis.aclose()


__all__ = ["IDENTIFY_INTERVAL", "IDENTIFY_MARGIN", "IdentifyGate"]
