"""The broadcast job queue (issue #17): daily readings go from the schedulers to worker processes through
arq (Redis), when ``SIKPAN_REDIS_URL`` is set. Without it the scheduler sends in its own process.

- One job per delivery row: function ``send_delivery``, argument the delivery id, **job id =
  ``<prefix>delivery:<id>``**: a row queued twice (a scheduler's retry, a takeover, the re-queue after a
  Redis restart) is one job while that job exists. Results are not kept (``keep_result=0``): once a job has
  ended, queuing its row again makes a new job — which finds the row no longer ``claimed`` and does nothing.
  The delivery row's state decides, never the queue: ``claimed`` → ``sending`` is one conditional UPDATE
  (:meth:`bot.storage.DailyStore.start_sending`), so arq re-running a job after a worker was ``kill -9``-ed
  (its in-progress key expires ``job_timeout`` + 10 s later) never sends twice.
- Workers (:func:`run_queue_worker`, started by :func:`bot.scheduler.run_worker`) run arq's ``Worker`` with
  a callback that renders and sends through the one sender (:mod:`bot.sending`, budgets in
  :mod:`bot.limits`). Redis unreachable: the worker stops polling, lets its running jobs finish (their
  outcome is written to the database, not to Redis), and starts again with back-off.
- The ``prefix`` of the URL (``?prefix=``, default ``sikpan:``, :func:`bot.limits.split_redis_url`) names
  the queue and the job ids, so several bots (or tests) share one server.

This module is imported only when a Redis URL is configured (the ``redis`` extra: ``redis``, ``arq``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from arq.connections import ArqRedis, RedisSettings, create_pool
from arq.constants import expires_extra_ms, job_key_prefix, result_key_prefix
from arq.jobs import serialize_job
from arq.utils import timestamp_ms
from arq.worker import Retry, Worker, func
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from bot import logs
from bot.limits import split_redis_url

log = logging.getLogger(__name__)

JOB = "send_delivery"
JOB_TIMEOUT = (
    120.0  # seconds a send may take (pacing, 429 waits); a dead worker's jobs resume after it + 10 s
)
MAX_JOBS = 16  # concurrent sends per worker process (the shared budget paces them)
# arq's own bound on a job's runs. The delivery row decides before it (its attempts, the grace window); a
# job whose database is unreachable runs again every 2 s at most (bot.scheduler.db_backoff), so this covers
# half an hour of outage — after it the scheduler queues the row again (``requeue_after``).
MAX_TRIES = 1000
ENQUEUE_CHUNK = 500  # jobs per script run (one round trip)
# KEYS: the queue, then each job's job key and result key; ARGV: expiry (ms), enqueue time (ms = the score),
# then each job's id and serialized job. Returns how many jobs were new.
ENQUEUE_SCRIPT = """
local new = 0
for i = 1, (#KEYS - 1) / 2 do
  local job_key, result_key = KEYS[2 * i], KEYS[2 * i + 1]
  if redis.call('EXISTS', job_key, result_key) == 0 then
    redis.call('PSETEX', job_key, ARGV[1], ARGV[2 * i + 2])
    redis.call('ZADD', KEYS[1], ARGV[2], ARGV[2 * i + 1])
    new = new + 1
  end
end
return new
"""

# deliver(delivery_id) → (what happened, seconds until a retry or None)
Deliver = Callable[[int], Awaitable[tuple[str, float | None]]]


class QueueUnavailable(ConnectionError):
    """Redis did not answer (an OSError, like a refused connection: callers treat both alike)."""


def settings_for(url: str) -> tuple[RedisSettings, str]:
    """arq's connection settings and our key prefix for ``SIKPAN_REDIS_URL``."""
    dsn, prefix = split_redis_url(url)
    settings = RedisSettings.from_dsn(dsn)
    settings.conn_timeout = 2
    settings.conn_retries = 0  # the callers retry (with back-off) and keep what they could not queue
    return settings, prefix


def queue_name(prefix: str) -> str:
    return f"{prefix}daily"


def job_id(prefix: str, delivery_id: int) -> str:
    return f"{prefix}delivery:{delivery_id}"


class DeliveryQueue:
    """The scheduler's side: puts claimed rows on the queue (:class:`bot.scheduler.JobQueue`)."""

    # Telegram readings go through the queue; Discord's stay with the scheduler of the process that runs the
    # Discord client (discord.py paces by Discord's own rate-limit headers, and a worker has no gateway)
    platforms = frozenset({"telegram"})

    def __init__(self, url: str) -> None:
        self.settings, self.prefix = settings_for(url)
        self.name = queue_name(self.prefix)
        self._pool: ArqRedis | None = None
        self._script: AsyncScript | None = None

    async def _redis(self) -> ArqRedis:
        if self._pool is None:
            self._pool = await create_pool(self.settings, default_queue_name=self.name)
        return self._pool

    async def enqueue(self, delivery_ids: Sequence[int]) -> int:
        """Queue every row (job id = delivery id: one already queued is left as it is); returns how many
        jobs are new. :class:`QueueUnavailable` when Redis does not answer (nothing is lost: the rows stay
        ``claimed`` and the caller tries again).

        In chunks of :data:`ENQUEUE_CHUNK`, each one script run on the server (:data:`ENQUEUE_SCRIPT`) that
        does for each job what arq's ``enqueue_job`` does in its WATCH/MULTI transaction — skip a job whose
        job or result key exists, else store the job (arq's own serialization and expiry) and add it to the
        queue — atomically, in one round trip instead of three per job (issue 18)."""
        try:
            pool = await self._redis()
            if self._script is None:
                self._script = pool.register_script(ENQUEUE_SCRIPT)
            new = 0
            for start in range(0, len(delivery_ids), ENQUEUE_CHUNK):
                chunk = delivery_ids[start : start + ENQUEUE_CHUNK]
                now_ms = timestamp_ms()
                keys: list[str] = [self.name]
                args: list[Any] = [expires_extra_ms, now_ms]
                for did in chunk:
                    jid = job_id(self.prefix, did)
                    keys += [job_key_prefix + jid, result_key_prefix + jid]
                    args += [
                        jid,
                        serialize_job(JOB, (did,), {}, None, now_ms, serializer=pool.job_serializer),
                    ]
                new += int(await self._script(keys=keys, args=args))
            return new
        except (RedisError, OSError) as exc:
            await self._drop()
            raise QueueUnavailable(f"{type(exc).__name__}: {exc}") from exc

    async def epoch(self) -> str:
        """The Redis server's ``run_id``: a new one means the server restarted (and, without persistence,
        lost the queue)."""
        try:
            info = await (await self._redis()).info("server")
        except (RedisError, OSError) as exc:
            await self._drop()
            raise QueueUnavailable(f"{type(exc).__name__}: {exc}") from exc
        return str(info.get("run_id", ""))

    async def pending(self) -> int:
        """Jobs waiting in the queue (for tests and metrics)."""
        return int(await (await self._redis()).zcard(self.name))

    async def _drop(self) -> None:
        pool, self._pool = self._pool, None
        self._script = None
        if pool is not None:
            try:
                await pool.aclose()
            except (RedisError, OSError):
                pass

    async def close(self) -> None:
        await self._drop()


async def _send_delivery(ctx: dict[str, Any], delivery_id: int) -> str:
    """The arq job: hand the row to our callback; a retryable failure becomes arq's deferred retry."""
    deliver: Deliver = ctx["sikpan_deliver"]
    job = ctx.get("job_id")
    with logs.ids(job=str(job) if job is not None else None):  # the job's log lines carry its id
        status, retry_in = await deliver(int(delivery_id))
    if retry_in is not None:
        raise Retry(defer=retry_in)
    return status


async def run_queue_worker(
    url: str,
    deliver: Deliver,
    stop: asyncio.Event,
    *,
    max_jobs: int = MAX_JOBS,
    job_timeout: float = JOB_TIMEOUT,
    poll_delay: float = 0.2,
    shutdown_timeout: float = 10.0,
) -> None:
    """Run arq workers for the daily queue until ``stop``; restarted with back-off when Redis fails.

    arq's own INFO lines (two per job: "→ …" and "← …") are turned off (its logger ``arq.worker`` at
    WARNING): the worker's callback logs one line per job (:meth:`bot.scheduler.DeliveryWorker.deliver`)."""
    logging.getLogger("arq.worker").setLevel(logging.WARNING)
    settings, prefix = settings_for(url)
    pause = 0.5
    while not stop.is_set():
        worker = Worker(
            functions=[func(_send_delivery, name=JOB, keep_result=0, max_tries=MAX_TRIES)],
            queue_name=queue_name(prefix),
            redis_settings=settings,
            handle_signals=False,
            max_jobs=max_jobs,
            job_timeout=job_timeout,
            keep_result=0,
            poll_delay=poll_delay,
            max_tries=MAX_TRIES,
            ctx={"sikpan_deliver": deliver},
            log_results=False,
        )
        main = asyncio.create_task(worker.main(), name="arq-worker")
        stopper = asyncio.create_task(stop.wait())
        await asyncio.wait({main, stopper}, return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        worker.allow_pick_jobs = False
        running = [t for t in worker.tasks.values() if not t.done()]
        if not main.done():
            main.cancel()
        await asyncio.gather(main, return_exceptions=True)
        if running:  # sends in flight finish (their outcome goes to the database); bounded at a stop
            _, late = await asyncio.wait(running, timeout=shutdown_timeout if stop.is_set() else None)
            for task in late:
                task.cancel()  # a job cancelled while pacing leaves its row claimed: arq runs it again
            await asyncio.gather(*running, return_exceptions=True)
        failure = None if main.cancelled() else main.exception()
        try:
            if worker._pool is not None:
                await worker.pool.aclose()
        except (RedisError, OSError):
            pass
        if stop.is_set():
            return
        if failure is not None and not isinstance(failure, RedisError | OSError):
            raise failure
        log.warning("queue: Redis failed (%r); the worker starts again in %.1fs", failure, pause)
        try:
            await asyncio.wait_for(stop.wait(), timeout=pause)
        except TimeoutError:
            pass
        pause = min(pause * 2, 5.0)


__all__ = [
    "JOB",
    "JOB_TIMEOUT",
    "Deliver",
    "DeliveryQueue",
    "QueueUnavailable",
    "job_id",
    "queue_name",
    "run_queue_worker",
    "settings_for",
]
