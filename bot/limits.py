"""The send budgets of the one sender (:mod:`bot.sending`): one interface, two implementations.

A budget is a named bucket with a :class:`Rate` (``tokens`` per ``per`` seconds, at most ``burst`` at once).
:meth:`Limiter.acquire` returns when one send may go out under that bucket.

- :class:`LocalLimiter` — in this process: a :class:`TokenBucket` per key (FIFO waiters). The default, and
  the only one without Redis: every process has its own budget.
- :class:`RedisLimiter` — when ``SIKPAN_REDIS_URL`` is set: every bucket lives in Redis, so all processes
  (adapters, queue workers) share one budget. Each acquire is one atomic Lua script (GCRA, the "generic cell
  rate algorithm" form of a token bucket, on the server's clock): it *reserves* the next slot the bucket
  allows and answers how long to wait for it, so a waiting send costs one round trip, not a poll. A key
  expires once its bucket is full again (bounded memory).

Redis unreachable mid-run (documented in docs/reliability.md): :class:`RedisLimiter` **waits** — it retries
with back-off (0.2 s doubling to 2 s) and sends nothing while it cannot reserve a slot, because a
per-process budget in N processes would be N times the platform's limit (429s for everybody). A send that
waits has not been attempted: a daily reading stays ``claimed`` (sent once Redis is back), a reply is late,
nothing is lost or doubled. Only after ``fallback_after`` seconds (default 30) of outage does one acquire go
through a local bucket (logged), so a chat is not left without an answer for long.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bot import metrics

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "sikpan:"


@dataclass(frozen=True)
class Rate:
    tokens: float  # this many sends …
    per: float = 1.0  # … per this many seconds
    burst: float = 1.0  # at most this many at once after a quiet spell


class Limiter(Protocol):
    async def acquire(self, key: str, rate: Rate) -> None:
        """Wait until one send is allowed under bucket ``key`` (and take it)."""

    def forget_if_full(self, keys: Sequence[str]) -> bool:
        """Drop the state of these buckets if all of them are full again; True when nothing is kept."""


class TokenBucket:
    """Async token bucket: ``rate`` tokens per ``per`` seconds, at most ``burst`` stored; FIFO waiters."""

    def __init__(
        self,
        rate: float,
        per: float = 1.0,
        burst: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        if rate <= 0 or per <= 0:
            raise ValueError("rate and per must be positive")
        self.fill_rate = rate / per  # tokens per second
        self.capacity = float(burst if burst is not None else 1.0)
        self.tokens = self.capacity
        self._clock = clock
        self._sleep = sleep
        self._last = clock()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self.tokens = min(self.capacity, self.tokens + (now - self._last) * self.fill_rate)
        self._last = now

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                self._refill()
                if self.tokens >= 1.0 - 1e-9:  # tolerate float rounding
                    self.tokens = max(0.0, self.tokens - 1.0)
                    return
                await self._sleep((1.0 - self.tokens) / self.fill_rate)

    def full(self) -> bool:
        self._refill()
        return self.tokens >= self.capacity and not self._lock.locked()


class LocalLimiter:
    """The in-process budgets: one :class:`TokenBucket` per key."""

    def __init__(self, *, sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep) -> None:
        self._sleep = sleep
        self.buckets: dict[str, TokenBucket] = {}

    async def acquire(self, key: str, rate: Rate) -> None:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(rate.tokens, rate.per, rate.burst, sleep=self._sleep)
        await bucket.acquire()

    def forget_if_full(self, keys: Sequence[str]) -> bool:
        found = [self.buckets[k] for k in keys if k in self.buckets]
        if not all(b.full() for b in found):
            return False
        for k in keys:
            self.buckets.pop(k, None)
        return True


# KEYS[1]: the bucket; ARGV[1]: microseconds per token; ARGV[2]: burst. Returns the microseconds to wait for
# the slot it reserved. State: the "theoretical arrival time" (µs, server clock) of the next token.
_GCRA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tau = (tonumber(ARGV[2]) - 1) * interval
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local at = tat - tau
if at < now then at = now end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1000)
return math.ceil(at - now)
"""

_RETRY_FIRST = 0.2
_RETRY_MAX = 2.0


def split_redis_url(url: str) -> tuple[str, str]:
    """``redis://host:6379/0?prefix=NAME`` → (the URL redis-py is given, the key prefix); ``prefix`` is ours
    (every key of sikpan starts with it: several bots, or tests, share one server), default ``sikpan:``."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((v for k, v in query if k == "prefix"), DEFAULT_PREFIX) or DEFAULT_PREFIX
    rest = urlencode([(k, v) for k, v in query if k != "prefix"])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment)), prefix


def redis_client(url: str) -> Any:
    """A ``redis.asyncio.Redis`` for ``url`` (the ``redis`` extra, imported only when a URL is configured)."""
    import redis.asyncio as aioredis

    dsn, _ = split_redis_url(url)
    return aioredis.Redis.from_url(dsn, socket_timeout=2.0, socket_connect_timeout=2.0)


class RedisLimiter:
    """Budgets shared by every process through Redis (see the module doc)."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        fallback_after: float = 30.0,
        max_late: float = 0.015,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        self.client = client
        self.prefix = prefix
        self.fallback_after = fallback_after
        self._sleep = sleep
        self._script = client.register_script(_GCRA)
        self._unreachable = (RedisConnectionError, RedisTimeoutError, OSError)
        self._local = LocalLimiter(sleep=sleep)
        self.outage_waits = 0  # acquires that waited for Redis to come back (tests, metrics)
        self.fallbacks = 0  # acquires that gave up waiting and used a local bucket
        self.max_late = max_late
        self.late_slots = 0  # reserved slots given up because this process woke too late for them

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisLimiter:
        _, prefix = split_redis_url(url)
        return cls(redis_client(url), prefix=prefix, **kwargs)

    async def reserve(self, key: str, rate: Rate) -> float:
        """Reserve the next slot of the bucket; the seconds until it (Redis errors propagate)."""
        interval_us = 1_000_000.0 * rate.per / rate.tokens
        wait_us = await self._script(keys=[self.prefix + "limit:" + key], args=[interval_us, rate.burst])
        return max(0.0, int(wait_us) / 1_000_000.0)

    async def acquire(self, key: str, rate: Rate) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        pause = _RETRY_FIRST
        waited = False
        while True:
            try:
                wait = await self.reserve(key, rate)
            except self._unreachable as exc:
                if loop.time() - started >= self.fallback_after:
                    self.fallbacks += 1
                    log.error(
                        "limits: Redis unreachable for %.0fs (%s); a local budget for %s",
                        self.fallback_after,
                        exc,
                        key,
                    )
                    await self._local.acquire(key, rate)
                    return
                if not waited:
                    waited = True
                    self.outage_waits += 1
                    metrics.limiter_outage_wait()
                    log.warning("limits: Redis unreachable (%s); waiting for it before sending", exc)
                await self._sleep(pause)
                pause = min(_RETRY_MAX, pause * 2)
                continue
            if wait <= 0:
                return
            slot = loop.time() + wait
            await self._sleep(wait)
            if loop.time() - slot <= self.max_late:
                return
            # woke too late (the loop was busy): sent now, this slot would land next to the following one
            # and break the budget's spacing; take a new slot instead (the late one stays unused)
            self.late_slots += 1

    def forget_if_full(self, keys: Sequence[str]) -> bool:
        self._local.forget_if_full(keys)
        return True  # the keys in Redis expire by themselves once full

    async def close(self) -> None:
        await self.client.aclose()


def limiter_for(redis_url: str | None) -> Limiter:
    """The budgets of a process: shared through Redis when a URL is configured, else in-process."""
    if redis_url:
        return RedisLimiter.from_url(redis_url)
    return LocalLimiter()


class _HasLimiter(Protocol):
    settings: Any
    limiter: Limiter | None


def limiter_of(ctx: _HasLimiter) -> Limiter:
    """The one limiter of an application context (``ctx.limiter``), made on first use from its settings."""
    if ctx.limiter is None:
        ctx.limiter = limiter_for(ctx.settings.redis_url)
    return ctx.limiter


__all__ = [
    "DEFAULT_PREFIX",
    "Limiter",
    "LocalLimiter",
    "Rate",
    "RedisLimiter",
    "TokenBucket",
    "limiter_for",
    "limiter_of",
    "redis_client",
    "split_redis_url",
]
