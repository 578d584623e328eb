"""The send budgets of the one sender (:mod:`bot.sending`): one interface, two implementations.

Two kinds of budget, both *reserving*: :meth:`Limiter.acquire` takes the next slot the budget allows (in
the order the calls came: FIFO, fair across processes with Redis), sleeps until it and returns that slot's
time on the limiter's clock (``time.monotonic``), so a waiting send costs one reservation, not a poll — except
while a :class:`Window` has ``count`` slots unsettled: then the reservation is refused and asked again (at
the blocking slot's time, or every :data:`POLL` of a window while it is in flight), and the refused calls are
served in the order their retries come.

- :class:`Rate` — a token bucket in its GCRA form ("generic cell rate algorithm"): ``tokens`` per ``per``
  seconds, at most ``burst`` at once after a quiet spell. State: the theoretical arrival time (TAT) of the
  next token. A reservation made while others wait is placed at the end of the queue, never at "now":
  lateness of a waiter does not lose the budget's time. The per-chat and per-group budgets, and the
  spacing of marked sends (one at a time).
- :class:`Window` — "at most ``count`` sends in any ``seconds`` window", Telegram's rule as the platform
  applies it (a sliding window), **whatever the network or the loop delays**. State: one score per recent
  slot, of which the ``count`` latest are kept. A slot not yet settled (reserved, waiting, or its request in
  flight) is scored ``slot + max_flight``, in the future; :meth:`Limiter.settle` re-scores it to the moment
  its request ended. The rule: while the ``count``-th latest score is in the future (``count`` slots
  unsettled) no slot is granted — the reservation answers "retry" (at the blocking slot's time, else in
  :data:`POLL` of a window); otherwise the next slot is ``max(now, count-th latest + seconds)``. Proof sketch
  (docs/reliability.md): a request reaches the server after its slot and before its end, so if ``count + 1``
  arrived within one window ``[t, t + seconds)``, the last reserved of them, k, saw the ``count`` others
  either unsettled (scored in the future) or settled with an end ≥ t — ``count`` scores ≥ t, of which the
  ``count``-th latest was settled (else no grant), so ``slot_k ≥ t + seconds``: k arrived after the window.
  It allows a burst of ``count`` at once, and sustains ``count`` per ``seconds`` + the request's duration. A
  slot never settled (its process was killed) counts as ended at ``slot + max_flight`` and so frees itself. A
  token bucket with burst = rate does not hold such a window: a full bucket plus one second of refill lets
  ``2 × rate`` through inside one second, which a sliding-window cap rejects (429).

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

Every slot of a :class:`Window` that is granted must be settled, whether its request was made or not
(refused by ``before_request``, an exception, a cancellation: :class:`bot.sending.TelegramSender` settles in
``finally``; :meth:`acquire` settles a slot whose wait was cancelled); one that is not costs the budget one
send for ``max_flight``. A request that leaves more than ``max_late`` after its slot first moves the slot's
placeholder to ``now + max_flight`` (:meth:`Limiter.depart`), so ``max_flight`` bounds a request's duration,
not its wait.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bot import metrics

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "sikpan:"

# How long an unsettled Window slot may be in flight (seconds): at least the longest a Telegram request can
# take once it leaves — a free connection of the pool (30 s, bot/telegram) + connect 5 + media write 20 + read
# 5 — with margin. A slot never settled (kill -9) frees itself after it.
MAX_FLIGHT = 90.0
# With Redis (several processes): an unsettled slot is held under its process's lease instead — scored
# ``slot + LEASE`` and moved to ``now + LEASE`` every ``LEASE / 5`` by the process's heartbeat while its request
# is in flight, so the slots of a process that died (kill -9) free themselves within LEASE of its last beat,
# not after MAX_FLIGHT (issue 36 item 3).
LEASE = 5.0
# A reservation refused while ``count`` slots are in flight asks again after this fraction of the window
# (100 ms at 28 in a second). The slot it then gets is computed from the blocking request's end (``end +
# seconds``, still ahead), not from when it asked, so any poll shorter than the window costs no rate.
POLL = 0.1


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
    max_flight: float = MAX_FLIGHT  # an unsettled slot's placeholder: ``slot + max_flight``

    @classmethod
    def of_rate(cls, rate: float) -> Window:
        """A ``rate`` per second as a window of a second's worth of sends: 28/s → at most 28 in any second
        (a burst of 28; ``28 / (1 s + a request's duration)`` sustained, as a slot counts until its request
        ended). Against Telegram's 30 in any second that leaves two sends of margin; none is needed by the
        rule itself, which holds whatever the delays."""
        count = max(1, int(rate))
        return cls(count, count / rate)


Budget = Rate | Window


class Slot(NamedTuple):
    """A reserved slot: its time on the limiter's clock, and (a :class:`Window`'s) which one to settle;
    ``local``: taken from a :class:`RedisLimiter`'s local fallback (settled there). (A named tuple, not a
    frozen dataclass: one or two are made per send, and a tuple is made in a tenth of the time.)"""

    at: float
    key: str = ""
    member: str | None = None
    budget: Budget | None = None
    local: bool = False


class Reservation(NamedTuple):
    """One reservation: seconds to wait, the slot's name (a window's) and its time (on the budget's clock:
    Redis's for a :class:`RedisLimiter`). ``granted`` False: nothing was reserved — a :class:`Window` with
    ``count`` slots in flight (retry in ``wait`` seconds), or a reservation asked ``at_once`` whose slot is
    not now (it would be in ``wait`` seconds)."""

    wait: float
    member: str | None
    server_at: float
    granted: bool = True


class Limiter(Protocol):
    def now(self) -> float:
        """The clock of the slots :meth:`acquire` returns (seconds, monotonic)."""

    async def acquire(self, key: str, budget: Budget) -> Slot:
        """Reserve the next slot of budget ``key``, wait for it, and return it (its time on :meth:`now`'s clock)."""

    def acquire_now(self, key: str, budget: Budget) -> Slot | None:
        """The slot :meth:`acquire` would return at once, without waiting and without I/O; None when the next
        slot is not now or cannot be known without I/O (Redis) — then nothing was reserved: await
        :meth:`acquire`. (The sender's fast path: no coroutine per budget when nobody waits.)"""

    async def settle(self, slot: Slot) -> None:
        """The request of this slot has ended (answered or failed), or will never be made: a :class:`Window`
        counts it from now (every granted window slot must be settled)."""

    def settle_now(self, slot: Slot) -> bool:
        """:meth:`settle` at once when it needs no I/O (True); False: nothing done, await :meth:`settle`."""

    async def depart(self, slot: Slot) -> None:
        """This slot's request leaves now, late: a :class:`Window` keeps it in flight until ``now + max_flight``."""

    def forget_if_full(self, keys: Sequence[str]) -> bool:
        """Drop the state of these buckets if all of them are full again; True when nothing is kept."""


Sleep = Callable[[float], Awaitable[Any]]


async def _wait_for_slot(sleep: Sleep, wait: float, unused: Callable[[], Awaitable[None]]) -> None:
    """Sleep until a granted slot; a sleep that does not end (cancelled) calls ``unused`` (settles the slot:
    it will not be used)."""
    if wait <= 0:
        return
    waited = False
    try:
        await sleep(wait)
        waited = True
    finally:
        if not waited:
            await unused()


class _Reserving:
    """A local budget for one key: :meth:`reserve` places the next slot, :meth:`acquire` waits for it."""

    def __init__(self, clock: Callable[[], float], sleep: Sleep) -> None:
        self._clock = clock
        self._sleep = sleep

    def reserve(self, at_once: bool = False) -> Reservation:
        """Reserve the next slot: the seconds until it (0: now), its number (a window's, to settle) and time;
        or, not granted, when to ask again. ``at_once``: only a slot that is now — a later one is not
        reserved (not granted, ``wait`` until it)."""
        raise NotImplementedError

    def settle(self, member: int) -> None:
        """Slot ``member``'s request has ended (only a window keeps track)."""

    def depart(self, member: int) -> None:
        """Slot ``member``'s request leaves now (only a window keeps track)."""

    def full(self) -> bool:
        """True when the budget is as if nobody had used it (its state may be dropped)."""
        raise NotImplementedError

    async def take(self) -> Reservation:
        """Reserve (asking again while a window refuses) and wait for the slot. A wait that does not end
        (cancelled) settles the slot it was for."""
        while True:
            reservation = self.reserve()
            if reservation.granted:
                break
            await self._sleep(reservation.wait)
        member = reservation.member

        async def unused() -> None:
            if member is not None:
                self.settle(int(member))

        await _wait_for_slot(self._sleep, reservation.wait, unused)
        return reservation

    async def acquire(self) -> float:
        """:meth:`take`; the slot's time."""
        return (await self.take()).server_at


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

    def reserve(self, at_once: bool = False) -> Reservation:
        now = self._clock()
        tat = max(self.tat, now)  # an idle bucket refills up to its burst, never beyond
        at = max(now, tat - self.tau)
        if at_once and at > now:
            return Reservation(at - now, None, now, granted=False)
        self.tat = tat + self.interval
        return Reservation(at - now, None, at)

    def full(self) -> bool:
        return self.tat <= self._clock()


class SlidingWindow(_Reserving):
    """At most ``count`` sends in any ``seconds`` in this process, whatever the delays (:class:`Window`'s
    rule: no slot while ``count`` are unsettled). Keeps the ``count`` latest scores: a settled slot's end, an
    unsettled one's ``slot + max_flight``."""

    def __init__(
        self,
        count: int,
        seconds: float = 1.0,
        *,
        max_flight: float = MAX_FLIGHT,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if count < 1 or seconds <= 0 or max_flight <= 0:
            raise ValueError("count, seconds and max_flight must be positive")
        super().__init__(clock, sleep)
        self.count = count
        self.seconds = seconds
        self.max_flight = max_flight
        self.scores: dict[int, float] = {}  # slot number → its score
        self.unsettled: set[int] = set()  # slots granted and not settled (the held-slots gauge)
        self._numbers = itertools.count()

    def _score(self, member: int, score: float) -> None:
        scores = self.scores
        scores[member] = score
        extra = len(scores) - self.count
        if extra == 1:  # the usual case: one score more than kept, the lowest (min: no heap to build)
            del scores[min(scores, key=scores.__getitem__)]
        elif extra > 1:  # the lower ones can never be the count-th latest again
            for old, _ in heapq.nsmallest(extra, scores.items(), key=itemgetter(1)):
                del scores[old]

    def reserve(self, at_once: bool = False) -> Reservation:
        now = self._clock()
        at = now
        if len(self.scores) >= self.count:
            nth = min(self.scores.values())  # the count-th latest: only the count latest are kept
            if nth > now:  # count slots unsettled: the earliest may end once its slot has come
                retry = max(0.0, nth - self.max_flight - now) + POLL * self.seconds
                return Reservation(retry, None, now, granted=False)
            at = max(now, nth + self.seconds)
            if at_once and at > now:
                return Reservation(at - now, None, now, granted=False)
        member = next(self._numbers)
        self._score(member, at + self.max_flight)
        self.unsettled.add(member)
        metrics.slots_held(1)
        return Reservation(at - now, str(member), at)

    def settle(self, member: int) -> None:
        self._score(member, self._clock())
        if member in self.unsettled:
            self.unsettled.remove(member)
            metrics.slots_held(-1)

    def depart(self, member: int) -> None:
        self._score(member, self._clock() + self.max_flight)

    def full(self) -> bool:
        return not self.scores or max(self.scores.values()) + self.seconds <= self._clock()


def _local_budget(budget: Budget, clock: Callable[[], float], sleep: Sleep) -> _Reserving:
    if isinstance(budget, Window):
        return SlidingWindow(
            budget.count, budget.seconds, max_flight=budget.max_flight, clock=clock, sleep=sleep
        )
    return TokenBucket(budget.tokens, budget.per, budget.burst, clock=clock, sleep=sleep)


class LocalLimiter:
    """The in-process budgets: one :class:`TokenBucket` or :class:`SlidingWindow` per key."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self.buckets: dict[str, _Reserving] = {}

    def now(self) -> float:
        return self._clock()

    def _bucket(self, key: str, budget: Budget) -> _Reserving:
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = _local_budget(budget, self._clock, self._sleep)
        return bucket

    async def acquire(self, key: str, budget: Budget) -> Slot:
        reservation = await self._bucket(key, budget).take()
        return Slot(reservation.server_at, key, reservation.member, budget)

    def acquire_now(self, key: str, budget: Budget) -> Slot | None:
        reservation = self._bucket(key, budget).reserve(at_once=True)
        if not reservation.granted:
            return None
        return Slot(reservation.server_at, key, reservation.member, budget)

    async def settle(self, slot: Slot) -> None:
        self.settle_now(slot)

    def settle_now(self, slot: Slot) -> bool:
        bucket = self.buckets.get(slot.key)
        if bucket is not None and slot.member is not None:
            bucket.settle(int(slot.member))
        return True

    async def depart(self, slot: Slot) -> None:
        bucket = self.buckets.get(slot.key)
        if bucket is not None and slot.member is not None:
            bucket.depart(int(slot.member))

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

# Window — ARGV[1]: count; ARGV[2]: the window in µs; ARGV[3]: this slot's name; ARGV[4]: max_flight in µs;
# ARGV[5]: the poll in µs. State: a sorted set of slot names scored in µs (an unsettled slot: its time +
# max_flight; a settled one: its request's end), the ``count`` latest kept. Returns {1, wait, slot} for a slot
# granted, {0, retry in µs, now} while the count-th latest is unsettled (its score in the future).
_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local count = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local flight = tonumber(ARGV[4])
local at = now
local nth = redis.call('ZREVRANGE', KEYS[1], count - 1, count - 1, 'WITHSCORES')
if nth[2] then
  local score = tonumber(nth[2])
  if score > now then
    local retry = score - flight - now
    if retry < 0 then retry = 0 end
    return {0, math.ceil(retry + tonumber(ARGV[5])), string.format('%.0f', now)}
  end
  local free = score + window
  if free > at then at = free end
end
redis.call('ZADD', KEYS[1], string.format('%.0f', at + flight), ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(count + 1))
local ttl = math.ceil((at + flight + window - now) / 1000) + 1000
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return {1, math.ceil(at - now), string.format('%.0f', at)}
"""

# A Window's slot re-scored to now + ARGV[4] µs: 0 when its request ended (settle), max_flight when it leaves
# late (depart); unconditionally, re-added if it was trimmed. ARGV[1]: count; ARGV[2]: the window in µs;
# ARGV[3]: the slot's name. The key lives until its latest score is a window old.
_RESCORE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local count = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], string.format('%.0f', now + tonumber(ARGV[4])), ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(count + 1))
local top = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local ttl = math.ceil((tonumber(top[2]) + tonumber(ARGV[2]) - now) / 1000) + 1000
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
"""

# The heartbeat of a process's lease: each of its unsettled slots (ARGV[3…]) still scored in the future is
# moved to now + ARGV[1] µs (never earlier than it is); a settled slot (scored at its end, in the past) or one
# trimmed away is left alone. ARGV[2]: the window in µs (the key lives a window past its latest score).
_EXTEND = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local till = now + tonumber(ARGV[1])
local n = 0
for i = 3, #ARGV do
  local s = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if s and tonumber(s) > now and tonumber(s) < till then
    redis.call('ZADD', KEYS[1], string.format('%.0f', till), ARGV[i])
    n = n + 1
  end
end
local ttl = math.ceil((till + tonumber(ARGV[2]) - now) / 1000) + 1000
if n > 0 and redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return n
"""

_RETRY_FIRST = 0.2
_UNSETTLED_KEPT = 1000
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
        lease: float = LEASE,
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
        self._rescore_script = client.register_script(_RESCORE)
        self._extend_script = client.register_script(_EXTEND)
        self.lease = lease
        self.held: dict[str, Slot] = {}  # window slots granted to this process and not settled (by name)
        self._beat: asyncio.Task[None] | None = None  # the lease's heartbeat, while slots are held
        self._unsettled: list[Slot] = []  # window slots whose settle Redis missed (settled when it is back)
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

    def _flight(self, budget: Window) -> float:
        """How long an unsettled slot counts as in flight without a heartbeat: the lease (or the budget's
        ``max_flight`` when shorter)."""
        return min(self.lease, budget.max_flight)

    async def reserve(self, key: str, budget: Budget) -> Reservation:
        """Reserve the next slot of the budget (Redis errors propagate). A window's slot reserved here is
        not kept alive by the heartbeat (:meth:`acquire`'s are): it counts as in flight for the lease."""
        name = self.prefix + "limit:" + key
        if isinstance(budget, Window):
            member = f"{self._name}:{next(self._names)}"
            granted, wait_us, at_us = await self._window(
                keys=[name],
                args=[
                    budget.count,
                    1_000_000.0 * budget.seconds,
                    member,
                    1_000_000.0 * self._flight(budget),
                    1_000_000.0 * POLL * budget.seconds,
                ],
            )
            if not int(granted):
                return Reservation(int(wait_us) / 1_000_000.0, None, int(at_us) / 1_000_000.0, granted=False)
            return Reservation(max(0.0, int(wait_us) / 1_000_000.0), member, int(at_us) / 1_000_000.0)
        wait_us, at_us = await self._gcra(keys=[name], args=[1_000_000.0 * budget.interval, budget.burst])
        return Reservation(max(0.0, int(wait_us) / 1_000_000.0), None, int(at_us) / 1_000_000.0)

    async def acquire(self, key: str, budget: Budget) -> Slot:
        outage_since: float | None = None
        pause = _RETRY_FIRST
        while True:
            try:
                reservation = await self.reserve(key, budget)
            except self._unreachable as exc:
                if outage_since is None:
                    outage_since = self._clock()
                    self.outage_waits += 1
                    metrics.limiter_outage_wait()
                    log.warning("limits: Redis unreachable (%s); waiting for it before sending", exc)
                elif self._clock() - outage_since >= self.fallback_after:
                    self.fallbacks += 1
                    log.error(
                        "limits: Redis unreachable for %.0fs (%s); a local budget for %s",
                        self.fallback_after,
                        exc,
                        key,
                    )
                    local = await self._local.acquire(key, budget)
                    return Slot(local.at, key, local.member, budget, local=True)  # settled locally
                await self._sleep(pause)
                pause = min(_RETRY_MAX, pause * 2)
                continue
            outage_since, pause = None, _RETRY_FIRST
            if self._unsettled:
                await self._settle_left()
            if not reservation.granted:  # ``count`` slots in flight: ask again when one may have ended
                await self._sleep(reservation.wait)
                continue
            slot = Slot(self._clock() + reservation.wait, key, reservation.member, budget)
            self._hold(slot)
            await _wait_for_slot(self._sleep, reservation.wait, functools.partial(self.settle, slot))
            return slot

    def _hold(self, slot: Slot) -> None:
        """A window slot granted to this process: under its lease until settled."""
        if slot.member is None or not isinstance(slot.budget, Window):
            return
        self.held[slot.member] = slot
        metrics.slots_held(1)
        if self._beat is None or self._beat.done():
            self._beat = asyncio.create_task(self._heartbeat(), name="limits-lease")

    def _release(self, slot: Slot) -> None:
        if slot.member is not None and self.held.pop(slot.member, None) is not None:
            metrics.slots_held(-1)

    async def _heartbeat(self) -> None:
        """While this process holds window slots: every fifth of the lease, move each one that is still
        unsettled to ``now + lease`` (one script per budget key). A beat Redis misses is made at the next;
        slots of a process that stopped beating (killed) count as ended one lease after its last beat."""
        every = self.lease / 5
        while self.held:
            await asyncio.sleep(every)
            by_key: dict[tuple[str, Window], list[str]] = {}
            for member, slot in list(self.held.items()):
                if isinstance(slot.budget, Window):
                    by_key.setdefault((slot.key, slot.budget), []).append(member)
            for (key, budget), members in by_key.items():
                try:
                    await self._extend_script(
                        keys=[self.prefix + "limit:" + key],
                        args=[1_000_000.0 * self._flight(budget), 1_000_000.0 * budget.seconds, *members],
                    )
                except self._unreachable as exc:
                    log.warning(
                        "limits: Redis unreachable (%s); the lease of %d slots not renewed", exc, len(members)
                    )

    async def _rescore(self, slot: Slot, offset: float) -> bool:
        """Re-score a window's slot to Redis's now + ``offset`` seconds; False when Redis is unreachable."""
        if slot.member is None or not isinstance(slot.budget, Window):
            return True
        try:
            await self._rescore_script(
                keys=[self.prefix + "limit:" + slot.key],
                args=[
                    slot.budget.count,
                    1_000_000.0 * slot.budget.seconds,
                    slot.member,
                    1_000_000.0 * offset,
                ],
            )
        except self._unreachable as exc:
            log.warning("limits: Redis unreachable (%s); a slot not re-scored", exc)
            return False
        return True

    def acquire_now(self, key: str, budget: Budget) -> Slot | None:
        return None  # every reservation is a call to Redis

    def settle_now(self, slot: Slot) -> bool:
        if slot.local or slot.member is None:  # the local fallback's, or nothing to re-score (a Rate's)
            return self._local.settle_now(slot)
        return False

    async def settle(self, slot: Slot) -> None:
        if slot.local:
            await self._local.settle(slot)
            return
        self._release(slot)  # not renewed from now on: a settle Redis misses lapses with the lease
        if not await self._rescore(slot, 0.0):
            # settled once Redis answers again (later than its end: never less than the budget); meanwhile
            # it counts as in flight, as it may be. Bounded: the oldest would have freed themselves.
            self._unsettled.append(slot)
            del self._unsettled[:-_UNSETTLED_KEPT]

    async def _settle_left(self) -> None:
        """Settle the slots whose settling Redis missed (it answers again)."""
        left, self._unsettled = self._unsettled, []
        for i, slot in enumerate(left):
            if not await self._rescore(slot, 0.0):
                self._unsettled = left[i:] + self._unsettled
                return

    async def depart(self, slot: Slot) -> None:
        if slot.local:
            await self._local.depart(slot)
        elif isinstance(slot.budget, Window):
            await self._rescore(slot, self._flight(slot.budget))

    def forget_if_full(self, keys: Sequence[str]) -> bool:
        self._local.forget_if_full(keys)
        return True  # the keys in Redis expire by themselves once full

    async def close(self) -> None:
        beat, self._beat = self._beat, None
        if beat is not None:
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
        for slot in list(self.held.values()):
            self._release(slot)
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


# ---- occupancy (issue #35: ``sikpan_send_budget_occupancy``) ------------------------------------------------


async def window_occupancy(limiter: Limiter, key: str, window: Window) -> float | None:
    """The share (0–1) of ``window``'s ``count`` taken by the slots of the last ``seconds`` — sends made,
    in flight or reserved — in the budget ``key``: in this process (:class:`LocalLimiter`), or across every
    process (:class:`RedisLimiter`, one ``ZCOUNT`` on the server's clock). None for another limiter, or a
    budget not used yet."""
    if isinstance(limiter, LocalLimiter):
        bucket = limiter.buckets.get(key)
        if not isinstance(bucket, SlidingWindow):
            return None
        since = limiter.now() - bucket.seconds
        return min(1.0, sum(1 for score in bucket.scores.values() if score >= since) / bucket.count)
    if isinstance(limiter, RedisLimiter):
        seconds, micros = await limiter.client.time()
        since_us = int(seconds) * 1_000_000 + int(micros) - int(1_000_000 * window.seconds)
        taken = await limiter.client.zcount(limiter.prefix + "limit:" + key, since_us, "+inf")
        return min(1.0, int(taken) / window.count)
    return None


__all__ = [
    "DEFAULT_PREFIX",
    "LEASE",
    "Budget",
    "Limiter",
    "LocalLimiter",
    "MAX_FLIGHT",
    "POLL",
    "Rate",
    "RedisLimiter",
    "Reservation",
    "SlidingWindow",
    "Slot",
    "TokenBucket",
    "Window",
    "limiter_for",
    "limiter_of",
    "redis_client",
    "split_redis_url",
    "window_occupancy",
]
