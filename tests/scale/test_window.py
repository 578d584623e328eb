"""The budgets' semantics (bot/limits.py), on a hand-moved clock in this process and on the real Redis.

The numbers are the test's own; what is checked is the definition: a :class:`Window` of ``count`` in
``seconds`` never has more than ``count`` slots in any window of ``seconds``, allows ``count`` at once,
serves waiters in the order they came, counts a settled slot from when its request ended; a :class:`Rate`
places a waiter's slot after the queued ones however late it wakes; Redis and the local classes place the
same schedule."""

from __future__ import annotations

import asyncio

import pytest

from bot.limits import LocalLimiter, RedisLimiter, SlidingWindow, Slot, Window
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


def reserve_all(window: SlidingWindow, n: int, hand: HandClock) -> list[float]:
    slots = []
    for _ in range(n):
        wait, _ = window.reserve()
        slots.append(hand.now + wait)
    return slots


def test_a_window_allows_its_count_at_once_and_never_more_in_any_window():
    hand = HandClock()
    window = SlidingWindow(29, 29 / 28, clock=hand)
    slots = reserve_all(window, 29 * 7, hand)
    assert slots[:29] == [100.0] * 29  # the burst: all at once
    assert max_per_window(slots, 29 / 28) == 29
    assert max_per_window(slots, 1.0) <= 29 < 30  # under Telegram's 30 in any second
    # sustained: 28 per second
    assert (len(slots) - 29) / (slots[-1] - slots[0]) == pytest.approx(28, rel=0.01)


def test_a_token_bucket_of_burst_rate_lets_twice_the_rate_into_one_second():
    """Why the overall budget is a window: the old bucket (28 at once, refilled at 28/s) on the same clock."""
    from bot.limits import TokenBucket

    hand = HandClock()
    bucket = TokenBucket(28, 1.0, 28, clock=hand)
    slots = []
    for _ in range(100):
        wait, _ = bucket.reserve()
        slots.append(hand.now + wait)
    assert max_per_window(slots, 1.0) >= 55  # 28 + 27 refilled within the same second: 429s at a cap of 30


def test_a_settled_slot_counts_from_when_its_request_ended():
    hand = HandClock()
    window = SlidingWindow(2, 1.0, clock=hand)
    (_, a), (_, _b) = window.reserve(), window.reserve()
    hand.now += 0.5
    window.settle(a)  # a's request ended half a second after its slot (a slow answer)
    c, _ = window.reserve()
    d, _ = window.reserve()
    assert hand.now + c == pytest.approx(101.0)  # one second after b's slot
    assert hand.now + d == pytest.approx(101.5)  # one second after a ended, not after its slot


async def test_waiters_get_their_slots_in_the_order_they_came():
    limiter = LocalLimiter()
    budget = Window(3, 0.05)
    slots: dict[int, float] = {}

    async def one(i: int) -> None:
        slots[i] = (await limiter.acquire("all", budget)).at

    await asyncio.gather(*(one(i) for i in range(12)))
    in_call_order = [slots[i] for i in range(12)]
    assert in_call_order == sorted(in_call_order)  # first come, first served
    assert in_call_order[-1] - in_call_order[0] >= 3 * 0.05 - 1e-6  # 12 at 3 per window: 4 windows


def test_a_rate_places_a_slot_after_the_queued_ones_whatever_the_wake_up():
    """GCRA reservations: a second send reserved while the first waits goes one interval after it, so a
    waiter that wakes late loses nothing of the budget (the in-process bucket used to refill from its wake-up)."""
    from bot.limits import TokenBucket

    hand = HandClock()
    bucket = TokenBucket(28, 1.0, 1, clock=hand)
    waits = [bucket.reserve()[0] for _ in range(56)]
    assert waits[-1] == pytest.approx(55 / 28)
    hand.now += 0.5 + 0.004  # every waiter woke 4 ms late: the next slot is still on the grid
    assert hand.now + bucket.reserve()[0] == pytest.approx(100.0 + 56 / 28)


@pytest.fixture
def redis_url():
    require_redis()
    with fresh_redis_url() as url:
        yield url


async def _redis_slots(limiter: RedisLimiter, key: str, budget: Window, n: int) -> list[float]:
    """Reserve ``n`` slots back to back; their times on Redis's clock."""
    return [(await limiter.reserve(key, budget)).server_at for _ in range(n)]


async def test_redis_places_the_same_schedule_as_the_local_window(redis_url):
    budget = Window(5, 0.2)
    hand = HandClock()
    local = reserve_all(SlidingWindow(budget.count, budget.seconds, clock=hand), 40, hand)
    limiter = RedisLimiter.from_url(redis_url)
    try:
        remote = await _redis_slots(limiter, "same", budget, 40)
    finally:
        await limiter.close()
    local_rel = [t - local[0] for t in local]
    remote_rel = [t - remote[0] for t in remote]
    assert remote_rel == pytest.approx(local_rel, abs=0.02)  # Redis's clock moves a little between calls
    assert max_per_window(remote, budget.seconds - 1e-6) <= budget.count  # exactly, on the server's clock


async def test_redis_settles_a_slot_at_its_end_like_the_local_window(redis_url):
    limiter = RedisLimiter.from_url(redis_url)
    budget = Window(2, 1.0)
    try:
        a = await limiter.reserve("settle", budget)
        b = await limiter.reserve("settle", budget)
        await asyncio.sleep(0.5)
        await limiter.settle(Slot(0.0, "settle", a.member, budget))
        c = await limiter.reserve("settle", budget)
        d = await limiter.reserve("settle", budget)
    finally:
        await limiter.close()
    assert c.server_at == pytest.approx(b.server_at + 1.0, abs=1e-6)  # one second after b's slot
    assert d.server_at - a.server_at == pytest.approx(1.5, abs=0.1)  # a second after a ended, not its slot


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
    slots = sorted(reservations[0] + reservations[1])
    assert max_per_window(slots, budget.seconds - 1e-6) <= budget.count  # one budget, on the server's clock
    assert slots[-1] - slots[0] >= 3 * budget.seconds  # 40 sends: four windows' worth
    for own in reservations:  # each client's slots in the order it reserved them (first come, first served;
        # Redis's clock is the wall clock, seen to step back by microseconds on this machine)
        assert all(b >= a - 1e-3 for a, b in zip(own, own[1:])), own
