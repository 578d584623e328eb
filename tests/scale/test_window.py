"""The budgets' semantics (bot/limits.py), on a hand-moved clock in this process and on the real Redis.

The numbers are the test's own; what is checked is the definition: a :class:`Window` of ``count`` in
``seconds`` never lets more than ``count`` requests *arrive* in any window of ``seconds``, whatever the delay
between a slot and its request's arrival and its end (a request arrives after its slot and before its end);
it allows ``count`` at once, serves waiters in the order they came, counts a settled slot from when its
request ended, grants nothing while ``count`` slots are unsettled, and a slot never settled (its process
killed) frees itself after ``max_flight``; a :class:`Rate` places a waiter's slot after the queued ones
however late it wakes; Redis and the local classes place the same schedule."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import random
from dataclasses import dataclass

import pytest

from bot.limits import POLL, LocalLimiter, RedisLimiter, Reservation, SlidingWindow, Slot, Window
from tests.scale.test_broadcast import max_per_window
from tests.servers import fresh_redis_url, require_redis


class HandClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


@dataclass(frozen=True)
class Send:
    """One send of a schedule: asks for its slot at ``ask``; its request reaches the server ``late`` seconds
    after the slot (a busy loop, a commit, the network) and ends ``takes`` seconds after that (None: never
    settled — its process was killed)."""

    ask: float
    late: float = 0.0
    takes: float | None = 0.0


@dataclass(frozen=True)
class Sent:
    slot: float
    arrival: float
    end: float | None


def run(window: SlidingWindow, hand: HandClock, sends: list[Send]) -> list[Sent]:
    """Drive a schedule through ``window`` on the hand clock, in time order: reservations (asked again when
    refused, as ``acquire`` does), and each slot settled at its request's end. What each send got."""
    order = itertools.count()
    events: list[tuple[float, int, int, int]] = []  # (time, 0 settle | 1 reserve, order, send)
    for i, send in enumerate(sends):
        heapq.heappush(events, (send.ask, 1, next(order), i))
        hand.now = min(hand.now, send.ask)
    got: dict[int, tuple[Sent, Reservation]] = {}
    while events:
        at, kind, _, i = heapq.heappop(events)
        hand.now = max(hand.now, at)
        if kind == 0:
            window.settle(int(got[i][1].member or -1))
            continue
        reservation = window.reserve()
        if not reservation.granted:
            assert reservation.wait > 0
            heapq.heappush(events, (hand.now + reservation.wait, 1, next(order), i))
            continue
        assert reservation.server_at == pytest.approx(hand.now + reservation.wait)
        send = sends[i]
        arrival = reservation.server_at + send.late
        end = None if send.takes is None else arrival + send.takes
        got[i] = (Sent(reservation.server_at, arrival, end), reservation)
        if end is not None:
            heapq.heappush(events, (end, 0, next(order), i))
    assert len(got) == len(sends), "a send never got its slot"
    return [got[i][0] for i in range(len(sends))]


def arrivals(sent: list[Sent]) -> list[float]:
    return [s.arrival for s in sent]


def test_a_window_allows_its_count_at_once_and_never_more_in_any_window():
    hand = HandClock()
    budget = Window.of_rate(28)  # the sender's: 28 in any second
    assert (budget.count, budget.seconds) == (28, 1.0)
    window = SlidingWindow(budget.count, budget.seconds, clock=hand)
    sent = run(window, hand, [Send(100.0, takes=0.01) for _ in range(28 * 7)])
    assert [s.slot for s in sent[:28]] == [100.0] * 28  # the burst: all at once
    assert max_per_window(arrivals(sent), 1.0) == 28 < 30  # under Telegram's 30 in any second
    # sustained: 28 per second and the requests' 10 ms (a slot counts until its request ended)
    rate = (len(sent) - 28) / (sent[-1].slot - sent[0].slot)
    assert rate == pytest.approx(28 / 1.01, rel=1e-6)


def test_a_stall_with_requests_in_flight_puts_no_more_than_count_into_a_window():
    """The case that drew 429s: 28 slots at once whose requests stall 0.9 s before they reach the server (a
    blocked loop, a slow commit) while 28 more are asked for. Counted at their slots, the first 28 would let
    the next 28 go one window after the slots — 56 arrivals within a second at the server. Counted until
    they end, the next 28 wait for their ends."""
    hand = HandClock()
    window = SlidingWindow(28, 1.0, clock=hand)
    stalled = [Send(100.0, late=0.9, takes=0.05) for _ in range(28)]
    after = [Send(100.01, late=0.0, takes=0.01) for _ in range(28)]
    sent = run(window, hand, stalled + after)
    assert max_per_window(arrivals(sent), 1.0) == 28
    first_end = min(s.end or 0.0 for s in sent[:28])
    assert min(s.slot for s in sent[28:]) == pytest.approx(first_end + 1.0)  # 100.95 + 1 s


@pytest.mark.parametrize("seed", range(12))
def test_any_delays_never_put_more_than_count_arrivals_into_a_window(seed: int) -> None:
    """Random schedules (seeded): bursts and trickles of asks, requests reaching the server up to 1 s after
    their slot and taking up to 1 s, a few never settled (killed processes): no window of ``seconds`` at
    the server ever holds more than ``count`` arrivals."""
    rng = random.Random(seed)
    count, seconds = rng.choice([(1, 0.5), (3, 1.0), (28, 1.0), (5, 0.2)])
    hand = HandClock()
    window = SlidingWindow(count, seconds, max_flight=2.5, clock=hand)
    sends = []
    t = 100.0
    for _ in range(150):
        t += rng.choice([0.0, 0.0, 0.0, rng.expovariate(count / seconds)])
        late = rng.choice([0.0, rng.uniform(0, 0.05), rng.uniform(0, 1.0)])
        takes = None if rng.random() < 0.02 else rng.choice([rng.uniform(0, 0.02), rng.uniform(0, 1.0)])
        sends.append(Send(t, late, takes))
    sent = run(window, hand, sends)
    # the bound needs the slot-to-end time under max_flight (``depart`` keeps it so for a late request)
    assert all(s.end is None or s.end - s.slot < 2.5 for s in sent)
    assert max_per_window(arrivals(sent), seconds) <= count


def test_a_slot_never_settled_frees_itself_after_max_flight():
    """A kill -9 leaves its slot unsettled: it counts as in flight until ``slot + max_flight``, then as if
    its request had ended then (the budget is one send short meanwhile, never over)."""
    hand = HandClock()
    window = SlidingWindow(2, 1.0, max_flight=5.0, clock=hand)
    sent = run(window, hand, [Send(100.0, takes=None)] + [Send(100.0, takes=0.1) for _ in range(4)])
    # one short: after the killed one, one send per second (each a second after the one before ended)
    assert [s.slot for s in sent] == pytest.approx([100.0, 100.0, 101.1, 102.2, 103.3])
    hand = HandClock()
    window = SlidingWindow(1, 1.0, max_flight=5.0, clock=hand)
    killed = window.reserve()
    assert killed.granted and killed.server_at == 100.0
    hand.now = 100.5
    refused = window.reserve()
    assert not refused.granted and refused.wait == pytest.approx(POLL * 1.0)  # in flight: poll
    hand.now = 104.9
    assert not window.reserve().granted  # still in flight for all the window knows
    hand.now = 105.0
    freed = window.reserve()
    assert freed.granted and freed.server_at == pytest.approx(106.0)  # counted as ended at 100 + 5 s


def test_a_refused_reservation_is_asked_again_when_the_blocking_slot_may_have_ended():
    hand = HandClock()
    window = SlidingWindow(1, 1.0, max_flight=5.0, clock=hand)
    first = window.reserve()
    second = window.reserve()
    assert first.granted and first.server_at == 100.0 and second.granted is False
    assert second.wait == pytest.approx(POLL * 1.0)  # in flight: poll
    window.settle(int(first.member or -1))
    third = window.reserve()
    assert third.granted and third.server_at == pytest.approx(101.0)
    fourth = window.reserve()  # third's slot is a second ahead: not before it has come
    assert not fourth.granted and fourth.wait == pytest.approx(1.0 + POLL * 1.0)


def test_a_token_bucket_of_burst_rate_lets_twice_the_rate_into_one_second():
    """Why the overall budget is a window: the old bucket (28 at once, refilled at 28/s) on the same clock."""
    from bot.limits import TokenBucket

    hand = HandClock()
    bucket = TokenBucket(28, 1.0, 28, clock=hand)
    slots = []
    for _ in range(100):
        slots.append(bucket.reserve().server_at)
    assert max_per_window(slots, 1.0) >= 55  # 28 + 27 refilled within the same second: 429s at a cap of 30


def test_a_settled_slot_counts_from_when_its_request_ended():
    hand = HandClock()
    window = SlidingWindow(2, 1.0, clock=hand)
    a, b = window.reserve(), window.reserve()
    window.settle(int(b.member or -1))  # b's answer came at once
    hand.now += 0.5
    window.settle(int(a.member or -1))  # a's request ended half a second after its slot (a slow answer)
    c = window.reserve()
    d = window.reserve()
    assert c.server_at == pytest.approx(101.0)  # one second after b ended
    assert d.server_at == pytest.approx(101.5)  # one second after a ended, not after its slot


def test_a_slot_is_counted_as_unsettled_from_its_reservation_on():
    """Unsettled means reserved and not yet ended, including a slot still waiting for its time: two slots a
    window ahead block a third until one of them has ended."""
    hand = HandClock()
    window = SlidingWindow(2, 1.0, clock=hand)
    for r in (window.reserve(), window.reserve()):
        window.settle(int(r.member or -1))
    ahead = [window.reserve(), window.reserve()]
    assert [r.server_at for r in ahead] == [101.0, 101.0]
    assert not window.reserve().granted
    hand.now = 101.0
    window.settle(int(ahead[0].member or -1))
    assert window.reserve().server_at == pytest.approx(102.0)


async def test_waiters_get_their_slots_in_call_order_until_count_are_in_flight():
    """Slots are granted in the order the calls came while the window grants; a call refused (``count``
    unsettled) asks again, and the refused ones are served in the order their retries come (not strictly
    the order of their calls). Every one gets a slot, never more than ``count`` in a window."""
    limiter = LocalLimiter()
    budget = Window(3, 0.05)
    slots: dict[int, float] = {}

    async def one(i: int) -> None:
        slot = await limiter.acquire("all", budget)
        slots[i] = slot.at
        await limiter.settle(slot)  # the request, at once

    await asyncio.gather(*(one(i) for i in range(12)))
    assert sorted(slots) == list(range(12))
    assert max(slots[i] for i in range(3)) < min(slots[i] for i in range(3, 12))  # the burst: the first 3
    assert max_per_window(list(slots.values()), budget.seconds - 1e-6) <= budget.count
    assert max(slots.values()) - min(slots.values()) >= 3 * 0.05 - 1e-6  # 12 at 3 per window: 4 windows


async def test_a_cancelled_wait_settles_its_slot():
    """A send cancelled while it waits for its slot (a stop) settles it: the window is not one short."""
    limiter = LocalLimiter()
    budget = Window(1, 0.2)
    await limiter.settle(await limiter.acquire("all", budget))
    waiting = asyncio.create_task(limiter.acquire("all", budget))  # granted, a window ahead
    await asyncio.sleep(0.02)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    window = limiter.buckets["all"]
    assert isinstance(window, SlidingWindow)
    assert max(window.scores.values()) <= limiter.now()  # settled: nothing in flight


def test_a_rate_places_a_slot_after_the_queued_ones_whatever_the_wake_up():
    """GCRA reservations: a second send reserved while the first waits goes one interval after it, so a
    waiter that wakes late loses nothing of the budget (the in-process bucket used to refill from its wake-up)."""
    from bot.limits import TokenBucket

    hand = HandClock()
    bucket = TokenBucket(28, 1.0, 1, clock=hand)
    waits = [bucket.reserve().wait for _ in range(56)]
    assert waits[-1] == pytest.approx(55 / 28)
    hand.now += 0.5 + 0.004  # every waiter woke 4 ms late: the next slot is still on the grid
    assert bucket.reserve().server_at == pytest.approx(100.0 + 56 / 28)


def test_a_slot_taken_at_once_is_the_slot_reserve_gives_and_a_later_one_is_not_taken():
    """``acquire_now`` (the sender's path without a coroutine): while the next slot is now it is the very slot
    ``reserve`` would give (same time, numbered and scored the same); when it is later nothing is reserved —
    the budget is as before, so the ``acquire`` that follows gets the slot it would have got anyway."""
    from bot.limits import Rate

    for budget in (Window(3, 1.0), Rate(2, 1.0, 2)):
        hand, twin_hand = HandClock(), HandClock()
        limiter = LocalLimiter(clock=hand, sleep=hand.sleep)
        twin = LocalLimiter(clock=twin_hand, sleep=twin_hand.sleep)  # reserve() only, for comparison
        count = budget.count if isinstance(budget, Window) else int(budget.burst)
        for i in range(count):
            slot = limiter.acquire_now("k", budget)
            expected = twin._bucket("k", budget).reserve()
            assert slot is not None and expected.wait == 0.0
            assert (slot.at, slot.member) == (expected.server_at, expected.member)
            if isinstance(budget, Window) and i == 0:
                hand.now = twin_hand.now = 100.25  # the first settles at once; the others stay in flight
                assert limiter.settle_now(slot)
                twin._bucket("k", budget).settle(int(expected.member or -1))
        before = dict(vars(limiter.buckets["k"]))
        assert limiter.acquire_now("k", budget) is None  # the next slot is later: not taken
        assert dict(vars(limiter.buckets["k"])) == before  # … and nothing reserved
        expected = twin._bucket("k", budget).reserve()
        reservation = limiter.buckets["k"].reserve()
        assert reservation == expected and reservation.wait > 0


def test_a_window_with_count_in_flight_grants_nothing_at_once():
    hand = HandClock()
    limiter = LocalLimiter(clock=hand, sleep=hand.sleep)
    budget = Window(2, 1.0)
    assert limiter.acquire_now("k", budget) is not None and limiter.acquire_now("k", budget) is not None
    hand.now += 5.0  # both still in flight (unsettled): no slot, now or later
    assert limiter.acquire_now("k", budget) is None
    assert not limiter.buckets["k"].reserve().granted


async def test_redis_takes_nothing_at_once_and_settles_only_what_needs_no_call(redis_url):
    limiter = RedisLimiter.from_url(redis_url)
    budget = Window(2, 1.0)
    try:
        assert limiter.acquire_now("now", budget) is None  # every reservation is a call to Redis
        slot = await limiter.acquire("now", budget)
        assert not limiter.settle_now(slot)  # a window's slot is re-scored in Redis: awaited
        assert limiter.settle_now(Slot(0.0, "now"))  # a slot with nothing to re-score
        key = limiter.prefix + "limit:now"
        in_flight = await limiter.client.zscore(key, slot.member)  # slot + the lease (µs, Redis's clock)
        await limiter.settle(slot)
        end = await limiter.client.zscore(key, slot.member)
        assert (in_flight - end) / 1_000_000.0 == pytest.approx(limiter.lease, abs=1.0)  # settled at once
    finally:
        await limiter.close()


@pytest.fixture
def redis_url():
    require_redis()
    with fresh_redis_url() as url:
        yield url


async def _redis_send(limiter: RedisLimiter, key: str, budget: Window) -> tuple[float, float]:
    """Reserve (again while refused), wait for the slot, make no request and settle it: the slot and its
    end on Redis's clock (the end read back from the sorted set)."""
    while True:
        reservation = await limiter.reserve(key, budget)
        if reservation.granted:
            break
        await asyncio.sleep(reservation.wait)
    await asyncio.sleep(reservation.wait)
    await limiter.settle(Slot(0.0, key, reservation.member, budget))
    end = await limiter.client.zscore(limiter.prefix + "limit:" + key, reservation.member)
    return reservation.server_at, float(end) / 1_000_000.0


async def _redis_slots(limiter: RedisLimiter, key: str, budget: Window, n: int) -> list[tuple[float, float]]:
    return [await _redis_send(limiter, key, budget) for _ in range(n)]


async def test_redis_places_the_same_schedule_as_the_local_window(redis_url):
    budget = Window(5, 0.2)
    limiter = RedisLimiter.from_url(redis_url)
    try:
        remote = await _redis_slots(limiter, "same", budget, 40)
    finally:
        await limiter.close()
    # the local window, given the same ends (Redis's clock: each request's end is when it was settled)
    hand = HandClock()
    hand.now = remote[0][0]
    local = SlidingWindow(budget.count, budget.seconds, clock=hand)
    for slot, end in remote:
        hand.now = max(hand.now, slot)
        reservation = local.reserve()
        assert reservation.granted and reservation.server_at == pytest.approx(slot, abs=1e-6)
        hand.now = end
        local.settle(int(reservation.member or -1))
    slots = [slot for slot, _ in remote]
    assert max_per_window(slots, budget.seconds - 1e-6) <= budget.count  # exactly, on the server's clock
    for k in range(budget.count, len(remote)):  # one client, one at a time: the count-th latest is k - count
        assert remote[k][0] >= remote[k - budget.count][1] + budget.seconds - 1e-6


async def test_redis_settles_a_slot_at_its_end_like_the_local_window(redis_url):
    limiter = RedisLimiter.from_url(redis_url)
    budget = Window(2, 1.0)
    try:
        a = await limiter.reserve("settle", budget)
        b = await limiter.reserve("settle", budget)
        await limiter.settle(Slot(0.0, "settle", b.member, budget))  # b's answer came at once
        await asyncio.sleep(0.5)
        await limiter.settle(Slot(0.0, "settle", a.member, budget))
        c = await limiter.reserve("settle", budget)
        d = await limiter.reserve("settle", budget)
    finally:
        await limiter.close()
    assert c.server_at == pytest.approx(b.server_at + 1.0, abs=0.01)  # a second after b ended
    assert d.server_at - a.server_at == pytest.approx(1.5, abs=0.1)  # a second after a ended, not its slot


async def test_redis_grants_nothing_while_count_slots_are_in_flight(redis_url: str) -> None:
    limiter = RedisLimiter.from_url(redis_url)
    budget = Window(3, 0.3, max_flight=1.0)
    try:
        flying = [await limiter.reserve("flight", budget) for _ in range(3)]
        refused = await limiter.reserve("flight", budget)
        await limiter.settle(Slot(0.0, "flight", flying[1].member, budget))
        granted = await limiter.reserve("flight", budget)
        killed = await limiter.reserve("flight", budget)  # two in flight + granted: refused again
        await asyncio.sleep(1.05)  # past max_flight: the two never settled count as ended at slot + 1 s
        healed = await limiter.reserve("flight", budget)
    finally:
        await limiter.close()
    assert all(r.granted for r in flying) and not refused.granted and refused.member is None
    assert refused.wait == pytest.approx(POLL * 0.3, abs=1e-6)  # in flight: poll
    assert granted.granted and granted.server_at >= flying[1].server_at + 0.3
    assert not killed.granted and killed.wait == pytest.approx(
        POLL * 0.3, abs=1e-6
    )  # the first two: in flight
    assert healed.granted
    assert healed.server_at == pytest.approx(flying[0].server_at + 1.0 + 0.3, abs=0.01)


async def test_redis_settles_what_it_missed_once_it_answers_again(redis_url: str) -> None:
    """A settle that Redis misses (it is down) is made by the next reservation that reaches it."""
    limiter = RedisLimiter.from_url(redis_url)
    budget = Window(1, 0.2)
    try:
        slot = await limiter.acquire("missed", budget)
        script = limiter._rescore_script
        limiter._rescore_script = _unreachable
        await limiter.settle(slot)
        limiter._rescore_script = script
        assert limiter._unsettled == [slot]
        nxt = await limiter.acquire("missed", budget)  # refused while the first is unsettled… then settled
        await limiter.settle(nxt)
    finally:
        await limiter.close()
    assert limiter._unsettled == [] and nxt.at - slot.at >= 0.2


async def _unreachable(**_: object) -> None:
    raise ConnectionError("down")


async def test_redis_window_is_one_budget_for_two_processes_in_the_order_reserved(redis_url):
    budget = Window(10, 0.5)
    first, second = RedisLimiter.from_url(redis_url), RedisLimiter.from_url(redis_url)  # two "processes"
    try:
        reservations = await asyncio.gather(
            *(_redis_slots(limiter, "two", budget, 20) for limiter in (first, second))
        )
    finally:
        await first.close()
        await second.close()
    slots = sorted(slot for own in reservations for slot, _ in own)
    assert max_per_window(slots, budget.seconds - 1e-6) <= budget.count  # one budget, on the server's clock
    assert slots[-1] - slots[0] >= 3 * budget.seconds  # 40 sends: four windows' worth
    for own in reservations:  # each client's slots in the order it reserved them (first come, first served;
        # Redis's clock is the wall clock, seen to step back by microseconds on this machine)
        assert all(b[0] >= a[0] - 1e-3 for a, b in zip(own, own[1:])), own
