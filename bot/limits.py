"""The send budgets of the one sender (:mod:`bot.sending`): one interface, two implementations.

Two kinds of budget, both *reserving*: :meth:`Limiter.acquire` takes the next slot the budget allows (in
the order the calls came: FIFO, fair across processes with Redis), sleeps until it and returns that slot's
time on the limiter's clock (``time.monotonic``), so a waiting send costs one reservation, not a poll.

- :class:`Rate` — a token bucket in its GCRA form ("generic cell rate algorithm"): ``tokens`` per ``per``
  seconds, at most ``burst`` at once after a quiet spell. State: the theoretical arrival time (TAT) of the
  next token. A reservation made while others wait is placed at the end of the queue, never at "now":
  lateness of a waiter does not lose the budget's time. The per-chat and per-group budgets, and the
  spacing of marked sends (one at a time).
- :class:`Window` — "at most ``count`` sends in any ``seconds`` window", Telegram's rule as the platform
  applies it (a sliding window). State: one time per recent send — its slot, moved to the moment its
  request ended once the sender sender settles it (:meth:`Limiter.settle`) — of which the ``count`` latest are kept; the
  next slot is ``max(now, count-th latest + seconds)``. A request reaches the server after its slot and
  before it ends, so whatever the network or the loop delays, no window of ``seconds`` at the server holds
  more than ``count`` sends whose ends were known when the later ones were reserved (a send still in flight
  counts at its slot). It allows a burst of ``count`` at once. A token bucket with burst = rate does not
  hold such a window: a full bucket plus one second of refill lets ``2 × rate`` through inside one second,
  which a sliding-window cap rejects (429).

Implementations:

- :class:`LocalLimiter` — in this process: a :class:`TokenBucket` or :class:`SlidingWindow` per key. The
  default, and the only one without Redis: every process has its own budget.
- :class:`RedisLimiter` — when ``SIKPAN_REDIS_URL`` is set: every budget lives in Redis, so all processes
  (adapters, queue workers) share one. Each reservation is one atomic Lua script on the server's clock, with
  the same arithmetic as the local classes (``tests/scale/test_limits_queue.py`` runs one schedule through
  both). A key expires once its budget is full again (bounded memory).

Redis unreachable mid-run (documented in docs/reliability.md): :class:`RedisLimiter` **waits** — it retries
with back-off (0.2 s doubling to 2 s) and sends nothing while it cannot reserve a slot, because a
per-process budget in N processes would be N times the platform's limit (429s for everybody). A send that
waits has not been attempted: a daily reading stays ``claimed`` (sent once Redis is back), a reply is late,
nothing is lost or doubled. Only after ``fallback_after`` seconds (default 30) of outage does one acquire go
through a local budget (logged), so a chat is not left without an answer for long.

A slot is a reservation, not a guarantee about when the request leaves: the sender re-checks its overall
slot immediately before the request and takes a new one when it is more than ``max_late`` behind
(:class:`bot.sending.TelegramSender`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bot import metrics

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "sikpan:"


@dataclass(frozen=True)
class Rate:
    """A token bucket: ``tokens`` sends per ``per`` seconds, at most ``burst`` at once after a quiet spell."""

    tokens: float
    per: float = 1.0
    burst: float = 1.0

    @property
    def interval(self) -> float:
        return self.per / self.tokens


@dataclass(frozen=True)
class Window:
    """At most ``count`` sends in any window of ``seconds`` (a sliding window, bursts included)."""

    count: int
    seconds: float = 1.0

    @classmethod
    def of_rate(cls, rate: float) -> Window:
        """A sustained ``rate`` per second as a window of one send more than a second's worth, stretched to
        keep the rate: 28/s → at most 29 in any 29/28 s (1.036 s). Against Telegram's 30 in any second that
        leaves one send and 36 ms of slack for a request that reaches the server later than its slot."""
        count = int(rate) + 1
        return cls(count, count / rate)


Budget = Rate | Window


@dataclass(frozen=True)
class Slot:
    """A reserved slot: its time on the limiter's clock, and (a :class:`Window`'s) which one to settle."""

    at: float
    key: str = ""
    member: str | None = None
    budget: Budget | None = None


class Limiter(Protocol):
    def now(self) -> float:
        """The clock of the slots :meth:`acquire` returns (seconds, monotonic)."""

    async def acquire(self, key: str, budget: Budget) -> Slot:
        """Reserve the next slot of budget ``key``, wait for it, and return it (its time on :meth:`now`'s clock)."""

    async def settle(self, slot: Slot) -> None:
        """The request of this slot has ended (answered or failed): a :class:`Window` counts it from now."""

    def forget_if_full(self, keys: Sequence[str]) -> bool:
        """Drop the state of these buckets if all of them are full again; True when nothing is kept."""


Sleep = Callable[[float], Awaitable[Any]]


class _Reserving:
    """A local budget for one key: :meth:`reserve` places the next slot, :meth:`acquire` waits for it."""

    def __init__(self, clock: Callable[[], float], sleep: Sleep) -> None:
        self._clock = clock
        self._sleep = sleep

    def reserve(self) -> tuple[float, int | None]:
        """Reserve the next slot; the seconds until it (0: now) and its number (a window's, to settle)."""
        raise NotImplementedError

    def settle(self, member: int) -> None:
        """Slot ``member``'s request has ended (only a window keeps track)."""

    def full(self) -> bool:
        """True when the budget is as if nobody had used it (its state may be dropped)."""
        raise NotImplementedError

    async def acquire(self) -> float:
        wait, _ = self.reserve()
        slot = self._clock() + wait
        if wait > 0:
            await self._sleep(wait)
        return slot


class TokenBucket(_Reserving):
    """A GCRA token bucket in this process: ``rate`` per ``per`` seconds, ``burst`` at once; FIFO slots."""

    def __init__(
        self,
        rate: float,
        per: float = 1.0,
        burst: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if rate <= 0 or per <= 0:
            raise ValueError("rate and per must be positive")
        super().__init__(clock, sleep)
        self.interval = per / rate
        self.capacity = float(burst if burst is not None else 1.0)
        self.tau = (self.capacity - 1.0) * self.interval  # how far ahead of the TAT a slot may be
        self.tat = clock()  # theoretical arrival time of the next token

    def reserve(self) -> tuple[float, int | None]:
        now = self._clock()
        tat = max(self.tat, now)  # an idle bucket refills up to its burst, never beyond
        at = max(now, tat - self.tau)
        self.tat = tat + self.interval
        return at - now, None

    def full(self) -> bool:
        return self.tat <= self._clock()


class SlidingWindow(_Reserving):
    """At most ``count`` slots in any ``seconds`` in this process; FIFO. Keeps the ``count`` latest times
    (a slot, or when its request ended once settled)."""

    def __init__(
        self,
        count: int,
        seconds: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if count < 1 or seconds <= 0:
            raise ValueError("count and seconds must be positive")
        super().__init__(clock, sleep)
        self.count = count
        self.seconds = seconds
        self.times: dict[int, float] = {}  # slot number → its time
        self._numbers = itertools.count()

    def _keep(self, member: int, at: float) -> None:
        self.times[member] = max(at, self.times.get(member, at))
        if len(self.times) > self.count:  # the earlier ones can never be the count-th latest again
            for old, _ in heapq.nsmallest(
                len(self.times) - self.count, self.times.items(), key=itemgetter(1)
            ):
                del self.times[old]

    def reserve(self) -> tuple[float, int | None]:
        now = self._clock()
        at = now
        if len(self.times) >= self.count:
            at = max(now, min(self.times.values()) + self.seconds)
        member = next(self._numbers)
        self._keep(member, at)
        return at - now, member

    def settle(self, member: int) -> None:
        self._keep(member, self._clock())

    def full(self) -> bool:
        return not self.times or max(self.times.values()) + self.seconds <= self._clock()


def _local_budget(budget: Budget, clock: Callable[[], float], sleep: Sleep) -> _Reserving:
    if isinstance(budget, Window):
        return SlidingWindow(budget.count, budget.seconds, clock=clock, sleep=sleep)
    return TokenBucket(budget.tokens, budget.per, budget.burst, clock=clock, sleep=sleep)


class LocalLimiter:
    """The in-process budgets: one :class:`TokenBucket` or :class:`SlidingWindow` per key."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self.buckets: dict[str, _Reserving] = {}

    def now(self) -> float:
        return self._clock()

    async def acquire(self, key: str, budget: Budget) -> Slot:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = _local_budget(budget, self._clock, self._sleep)
        wait, member = bucket.reserve()
        slot = Slot(self._clock() + wait, key, None if member is None else str(member), budget)
        if wait > 0:
            await self._sleep(wait)
        return slot

    async def settle(self, slot: Slot) -> None:
        bucket = self.buckets.get(slot.key)
        if bucket is not None and slot.member is not None:
            bucket.settle(int(slot.member))

    def forget_if_full(self, keys: Sequence[str]) -> bool:
        found = [self.buckets[k] for k in keys if k in self.buckets]
        if not all(b.full() for b in found):
            return False
        for k in keys:
            self.buckets.pop(k, None)
        return True


# The same arithmetic as TokenBucket.reserve / SlidingWindow.reserve, on the server's clock (µs), atomic.
# KEYS[1]: the budget. Returns the microseconds to wait for the slot it reserved, and the slot (µs, server clock).
# GCRA — ARGV[1]: microseconds per token; ARGV[2]: burst. State: the TAT (a string, µs).
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
return {math.ceil(at - now), string.format('%.0f', at)}
"""

# Window — ARGV[1]: count; ARGV[2]: the window in µs; ARGV[3]: this slot's name. State: a sorted set of slot
# names scored by their time (µs), the ``count`` latest kept.
_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local count = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local at = now
local nth = redis.call('ZREVRANGE', KEYS[1], count - 1, count - 1, 'WITHSCORES')
if nth[2] then
  local free = tonumber(nth[2]) + window
  if free > at then at = free end
end
redis.call('ZADD', KEYS[1], string.format('%.0f', at), ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(count + 1))
local ttl = math.ceil((at + window - now) / 1000) + 1000
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return {math.ceil(at - now), string.format('%.0f', at)}
"""

# A Window's slot whose request ended: ARGV[1]: count; ARGV[2]: the window in µs; ARGV[3]: the slot's name.
_SETTLE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local count = tonumber(ARGV[1])
local score = redis.call('ZSCORE', KEYS[1], ARGV[3])
if score and tonumber(score) >= now then return 0 end
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(count + 1))
local ttl = math.ceil(tonumber(ARGV[2]) / 1000) + 1000
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
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


@dataclass(frozen=True)
class Reservation:
    """One reservation in Redis: seconds to wait, the slot's name (a window's) and its time on Redis's clock."""

    wait: float
    member: str | None
    server_at: float


class RedisLimiter:
    """Budgets shared by every process through Redis (see the module doc)."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = DEFAULT_PREFIX,
        fallback_after: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        self.client = client
        self.prefix = prefix
        self.fallback_after = fallback_after
        self._clock = clock
        self._sleep = sleep
        self._gcra = client.register_script(_GCRA)
        self._window = client.register_script(_WINDOW)
        self._settle = client.register_script(_SETTLE)
        self._names = itertools.count()
        self._name = os.urandom(6).hex()  # this limiter's slot names: unique across processes
        self._unreachable = (RedisConnectionError, RedisTimeoutError, OSError)
        self._local = LocalLimiter(clock=clock, sleep=sleep)
        self.outage_waits = 0  # acquires that waited for Redis to come back (tests, metrics)
        self.fallbacks = 0  # acquires that gave up waiting and used a local bucket

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisLimiter:
        _, prefix = split_redis_url(url)
        return cls(redis_client(url), prefix=prefix, **kwargs)

    def now(self) -> float:
        return self._clock()

    async def reserve(self, key: str, budget: Budget) -> Reservation:
        """Reserve the next slot of the budget (Redis errors propagate)."""
        name = self.prefix + "limit:" + key
        member = None
        if isinstance(budget, Window):
            member = f"{self._name}:{next(self._names)}"
            wait_us, at_us = await self._window(
                keys=[name], args=[budget.count, 1_000_000.0 * budget.seconds, member]
            )
        else:
            wait_us, at_us = await self._gcra(keys=[name], args=[1_000_000.0 * budget.interval, budget.burst])
        return Reservation(max(0.0, int(wait_us) / 1_000_000.0), member, int(at_us) / 1_000_000.0)

    async def acquire(self, key: str, budget: Budget) -> Slot:
        started = self._clock()
        pause = _RETRY_FIRST
        waited = False
        while True:
            try:
                reservation = await self.reserve(key, budget)
            except self._unreachable as exc:
                if self._clock() - started >= self.fallback_after:
                    self.fallbacks += 1
                    log.error(
                        "limits: Redis unreachable for %.0fs (%s); a local budget for %s",
                        self.fallback_after,
                        exc,
                        key,
                    )
                    local = await self._local.acquire(key, budget)
                    return Slot(local.at, key, None, budget)  # nothing to settle in Redis
                if not waited:
                    waited = True
                    self.outage_waits += 1
                    metrics.limiter_outage_wait()
                    log.warning("limits: Redis unreachable (%s); waiting for it before sending", exc)
                await self._sleep(pause)
                pause = min(_RETRY_MAX, pause * 2)
                continue
            wait = reservation.wait
            slot = Slot(self._clock() + wait, key, reservation.member, budget)
            if wait > 0:
                await self._sleep(wait)
            return slot

    async def settle(self, slot: Slot) -> None:
        if slot.member is None or not isinstance(slot.budget, Window):
            return
        try:
            await self._settle(
                keys=[self.prefix + "limit:" + slot.key],
                args=[slot.budget.count, 1_000_000.0 * slot.budget.seconds, slot.member],
            )
        except (
            self._unreachable
        ) as exc:  # the slot keeps its reserved time: the next reservation waits for Redis
            log.warning("limits: Redis unreachable (%s); a slot not settled", exc)

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
    "Budget",
    "Limiter",
    "LocalLimiter",
    "Rate",
    "RedisLimiter",
    "SlidingWindow",
    "Slot",
    "TokenBucket",
    "Window",
    "limiter_for",
    "limiter_of",
    "redis_client",
    "split_redis_url",
]
