"""The batched enqueue of the daily job queue (``bot.queue.DeliveryQueue.enqueue``, issue 18): one script run
per chunk of jobs on the real Redis does what arq's ``enqueue_job`` does per job. A delivery id queued twice —
in one chunk, in two chunks, or once by arq itself — is one job; every job is run by arq's worker exactly
once; none is lost between chunks."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

import bot.queue
from bot.queue import JOB, DeliveryQueue, job_id, run_queue_worker
from tests.servers import fresh_redis_url


async def test_batches_queue_each_delivery_once_and_arq_runs_each_once(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(bot.queue, "ENQUEUE_CHUNK", 100)
    seen: Counter[int] = Counter()

    async def deliver(delivery_id: int) -> tuple[str, float | None]:
        seen[delivery_id] += 1
        return "sent", None

    ids = list(range(1, 1235))
    with fresh_redis_url() as url:
        queue = DeliveryQueue(url)
        try:
            pool = await queue._redis()
            # seven jobs queued by arq's own enqueue_job first: the batches see them as queued
            for did in range(1, 701, 100):
                assert await pool.enqueue_job(JOB, did, _job_id=job_id(queue.prefix, did)) is not None
            # duplicates inside one chunk (5, 5) and across chunks (150 … 249 twice)
            batch = [5, *ids, *range(150, 250)]
            assert await queue.enqueue(batch) == len(ids) - 7
            assert await queue.enqueue(ids[:300]) == 0  # all still queued
            assert await queue.pending() == len(ids)
            stop = asyncio.Event()
            worker = asyncio.create_task(run_queue_worker(url, deliver, stop, max_jobs=64, poll_delay=0.05))
            for _ in range(600):
                if len(seen) == len(ids) and await queue.pending() == 0:
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)  # a job run twice would show up meanwhile
            stop.set()
            await asyncio.wait_for(worker, 30)
            assert sorted(seen) == ids and set(seen.values()) == {1}
            assert await queue.pending() == 0
        finally:
            await queue.close()
