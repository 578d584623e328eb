"""The shared budgets (bot/limits.py) and the job queue (bot/queue.py) on the real Redis (issue #17).

Rates are the test's own numbers; what is checked is arithmetic on them (N sends at R per second take at
least (N - 1) / R seconds, and no window of one second holds more than R + burst)."""

from __future__ import annotations

import asyncio
import time as clock
from datetime import UTC, datetime, timedelta

import pytest

from bot import metrics
from bot.config import Settings
from bot.context import create_context
from bot.limits import LocalLimiter, Rate, RedisLimiter, split_redis_url
from bot.queue import DeliveryQueue, run_queue_worker
from bot.scheduler import DeliveryWorker
from bot.storage import DailyStore
from tests.daily.conftest import FakeTransport
from tests.scale.test_broadcast import max_per_window, private_redis
from tests.servers import fresh_redis_url
from tests.subscriptions import subscribe_due


def test_the_prefix_is_ours_and_the_rest_goes_to_redis():
    assert split_redis_url("redis://h:6379/2?prefix=bot-a:&ssl_cert_reqs=none") == (
        "redis://h:6379/2?ssl_cert_reqs=none",
        "bot-a:",
    )
    assert split_redis_url("redis://h/0") == ("redis://h/0", "sikpan:")


async def _burst(limiter, key: str, rate: Rate, n: int, stamps: list[float]) -> None:
    async def one() -> None:
        await limiter.acquire(key, rate)
        stamps.append(clock.monotonic())

    await asyncio.gather(*(one() for _ in range(n)))


async def test_two_processes_budgets_are_one_budget_in_redis():
    rate = Rate(40, 1.0, 1)
    with fresh_redis_url() as url:
        first, second = RedisLimiter.from_url(url), RedisLimiter.from_url(url)  # two clients: two "processes"
        try:
            stamps: list[float] = []
            start = clock.monotonic()
            await asyncio.gather(
                _burst(first, "all", rate, 30, stamps), _burst(second, "all", rate, 30, stamps)
            )
            elapsed = clock.monotonic() - start
        finally:
            await first.close()
            await second.close()
    assert elapsed >= (60 - 1) / 40 - 0.05  # one budget: 60 sends at 40/s
    assert max_per_window(stamps) <= 40 + 1
    # the in-process limiters of two processes would each spend the whole budget (twice the rate)
    local_a, local_b = LocalLimiter(), LocalLimiter()
    stamps_local: list[float] = []
    start = clock.monotonic()
    await asyncio.gather(
        _burst(local_a, "all", rate, 30, stamps_local), _burst(local_b, "all", rate, 30, stamps_local)
    )
    assert clock.monotonic() - start < (60 - 1) / 40 * 0.75


async def test_a_burst_budget_allows_its_burst_then_the_rate():
    with fresh_redis_url() as url:
        limiter = RedisLimiter.from_url(url)
        try:
            start = clock.monotonic()
            for _ in range(3):
                await limiter.acquire("chat:1", Rate(1, 1.0, 3))  # Telegram's per-chat pacing: a burst of 3
            burst = clock.monotonic() - start
            await limiter.acquire("chat:1", Rate(1, 1.0, 3))
            fourth = clock.monotonic() - start
        finally:
            await limiter.close()
    assert burst < 0.5 and 0.9 <= fourth < 2.0


async def test_redis_down_the_limiter_waits_then_goes_on():
    async with private_redis(6391) as (base, restart_after):
        limiter = RedisLimiter.from_url(base + "?prefix=t-down:", fallback_after=60)
        registry = metrics.enable()
        waits_before = registry.get_sample_value("sikpan_limiter_outage_waits_total") or 0.0
        try:
            await limiter.acquire("all", Rate(10))
            restart = asyncio.create_task(restart_after(2.0))
            await asyncio.sleep(0.2)  # the server is gone
            started = clock.monotonic()
            await limiter.acquire("all", Rate(10))
            waited = clock.monotonic() - started
            await restart
        finally:
            await limiter.close()
    assert waited >= 1.5 and limiter.outage_waits == 1 and limiter.fallbacks == 0
    assert registry.get_sample_value("sikpan_limiter_outage_waits_total") == waits_before + 1  # /metrics


async def test_redis_down_longer_than_fallback_after_uses_a_local_budget():
    limiter = RedisLimiter.from_url("redis://127.0.0.1:1/0", fallback_after=0.5)  # nothing listens there
    try:
        started = clock.monotonic()
        await limiter.acquire("all", Rate(10))
        assert 0.5 <= clock.monotonic() - started < 5 and limiter.fallbacks == 1
    finally:
        await limiter.close()


async def test_a_delivery_queued_twice_is_one_job_and_a_retry_runs_it_again():
    seen: list[int] = []

    async def deliver(delivery_id: int) -> tuple[str, float | None]:
        seen.append(delivery_id)
        if delivery_id == 2 and seen.count(2) == 1:
            return "retry", 0.1  # a retryable failure: arq runs the job again
        return "sent", None

    with fresh_redis_url() as url:
        queue = DeliveryQueue(url)
        try:
            assert await queue.enqueue([1, 2, 1]) == 2
            assert await queue.enqueue([1]) == 0  # still queued: the same job
            stop = asyncio.Event()
            worker = asyncio.create_task(run_queue_worker(url, deliver, stop, poll_delay=0.05))
            for _ in range(200):
                if sorted(seen) == [1, 2, 2]:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            assert sorted(seen) == [1, 2, 2]
            assert await queue.enqueue([1]) == 1  # ended, no result kept: a new job (the row decides)
            for _ in range(100):
                if seen.count(1) == 2:
                    break
                await asyncio.sleep(0.05)
            stop.set()
            await asyncio.wait_for(worker, 20)
            assert seen.count(1) == 2 and await queue.pending() == 0
        finally:
            await queue.close()


async def test_a_job_run_again_sends_only_a_row_that_is_still_claimed(tmp_path):
    """What makes arq's re-run after a crash harmless: the worker reads the row's state first."""
    now = datetime.now(UTC)
    ctx = await create_context(Settings(db_path=str(tmp_path / "w.db"), lang="ko", tz="UTC"))
    try:
        daily = DailyStore(ctx.storage)
        await subscribe_due(daily, ("a", "b"), now)
        claimed, _ = await daily.claim_due(now, "sched", ["telegram"], timedelta(hours=2))
        (first, _), (second, _) = claimed
        await daily.mark(second, "sending", now)  # in flight at a crash
        tr = FakeTransport()
        worker = DeliveryWorker(ctx, transports={"telegram": tr})
        registry = metrics.enable()

        def jobs(result: str) -> float:
            return registry.get_sample_value("sikpan_queue_jobs_total", {"result": result}) or 0.0

        before = {r: jobs(r) for r in ("sent", "sending")}
        assert await worker.deliver(first) == ("sent", None)
        assert await worker.deliver(first) == ("sent", None)  # the re-run: nothing sent
        assert await worker.deliver(second) == ("sending", None)
        assert [c for c, _ in tr.sent] == ["a"]
        assert (jobs("sent") - before["sent"], jobs("sending") - before["sending"]) == (2, 1)  # every job run
        [row] = [d for d in await daily.deliveries() if d.id == first]
        assert (row.status, row.attempts) == ("sent", 1)
    finally:
        await ctx.close()


@pytest.fixture(autouse=True)
def _needs_redis(request):
    if request.node.name.startswith(("test_the_prefix", "test_a_job_run_again")):
        return
    from tests.servers import require_redis

    require_redis()
