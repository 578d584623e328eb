"""Benchmark: the daily run for many subscribers, and the send rate against the fake Telegram server.

Run: ``.venv/bin/python bench/daily.py [--subs 100000] [--send 300] [--quick] [--render-only]
[--db postgresql://127.0.0.1:5432/test] [--redis redis://127.0.0.1:6379/0]``.

Part 1 — render and enqueue (issue 18 target: 100,000 subscriptions over 20 zones in < 15 s).
    A database gets ``--subs`` active Telegram subscriptions (bulk insert, not timed) spread over 20 IANA zones
    (whole, half and 45-minute offsets, DST and not), a random local minute of the day each, 50/50 ko/lzh,
    80/20 大六壬/六爻, each with its ``next_due_at`` as ``/daily`` writes it. Then one whole day is driven through
    :meth:`bot.scheduler.DailyScheduler.tick` on a hand-moved clock, the production path: at every due minute
    ``DailyStore.claim_due`` (one transaction per minute and batch), render (shared pieces, heads from forms:
    :class:`bot.daily.DailyRenderer`) and put each reading on the platform queue (no worker consumes it: this
    part measures the producer only); on SQLite the log written during the day is checkpointed at the end
    (timed). ``--db``: on that PostgreSQL server, in a fresh schema (dropped after). ``--redis``: the claimed
    rows go to the arq queue on that server under a fresh key prefix (deleted after) — the workers render
    there, so the producer's phases are claim and enqueue. Each scenario runs in its own process. Reported:
    wall and CPU (this process's) in total and per phase (inside ``claim_due``, ``DailyRenderer.parts``, the
    queue put or ``DeliveryQueue.enqueue``; wall − CPU is waiting: the disk, the servers, other load), peak
    RSS (and before the day), readings enqueued, rows claimed, charts computed, bodies and heads rendered,
    head forms made. A second scenario puts every subscriber at 07:00 local (20 bursts of 5,000).

Part 2 — send rate (issue 18: ≥ 95 % of the configured rate, zero loss). The fake Bot API server
    (tests/fakes/telegram.py, ``flood_limit=30``) applies Telegram's documented limit as a sliding window: more
    than 30 sends in any second → 429 with ``retry_after``. ``--send`` readings (the daily picture with its
    caption: ``sendPhoto``) to distinct private chats go through the scheduler's queue and the adapter's
    ``TelegramSender`` (real python-telegram-bot ``Bot`` on the bot's ``HTTPXRequest``; 28 msg/s), with the
    budgets in this process (``LocalLimiter``) and in Redis (``RedisLimiter``, the servers of tests/servers.py),
    each run clean and in a storm where 10 % of the sends get an injected 429 (``flood_storm``). Reported:
    messages per second over the whole run (claim and render included), the steady pace from the first
    accepted send to the last as a ratio of the sender's configured rate and of the platform's 30, the most in
    any second, 429s (over the limit / injected), late slots, and whether every reading arrived exactly once.
    ``--send-only`` skips part 1; ``--send-limiters local|redis|both``.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import Any

# the repository root instead of bench/ (whose calendar.py would shadow the standard library module)
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bot.app import create_context  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.schedule_time import pending_due  # noqa: E402
from bot.scheduler import DailyScheduler, daily_queue  # noqa: E402
from bot.sending import SendOutcome  # noqa: E402
from bot.storage import utc_iso  # noqa: E402
from bot.telegram.sender import TelegramSender, telegram_request  # noqa: E402
from bot.zones import zone  # noqa: E402

ZONES = (
    "Asia/Seoul",
    "Asia/Tokyo",
    "Asia/Shanghai",
    "Asia/Taipei",
    "Asia/Hong_Kong",
    "Asia/Singapore",
    "Asia/Kolkata",
    "Asia/Kathmandu",
    "Australia/Sydney",
    "Australia/Adelaide",
    "Pacific/Auckland",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Moscow",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "America/St_Johns",
    "Pacific/Honolulu",
)
START = datetime(2026, 11, 30, 0, 0, tzinfo=UTC)
CONFIGURED_RATE = (
    inspect.signature(TelegramSender).parameters["overall_rate"].default
)  # msg/s, bot/telegram/sender.py


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    async def now(self) -> datetime:
        return self.at


class NullTransport:
    """Always ready; never called in part 1 (no workers)."""

    platform = "telegram"
    channel = "telegram"

    def configured(self) -> bool:
        return True

    def ready(self) -> bool:
        return True

    async def send(self, sub: Any, text: str) -> SendOutcome:
        return SendOutcome(True, 1, (), None, sub.chat_id)


def seed_rows(n: int, same_time: bool, rng: random.Random) -> Iterator[list[tuple[Any, ...]]]:
    """The bench's subscriptions in chunks of 10,000, each with its ``next_due_at`` as ``/daily`` writes it
    (:meth:`bot.storage.DailyStore.subscribe` → ``bot.schedule_time.pending_due``): the bench's own rows never
    inflate the measured peak."""
    since = START.isoformat(timespec="seconds")  # subscribed at the start of the benchmarked day
    rows: list[tuple[Any, ...]] = []
    for i in range(n):
        zone_name = ZONES[i % len(ZONES)]
        at = dt_time(7, 0) if same_time else dt_time(rng.randrange(24), rng.randrange(60))
        lang = "ko" if rng.random() < 0.5 else "lzh"
        kind = "liuren" if rng.random() < 0.8 else "liuyao"
        d, due = pending_due(at, zone(zone_name), START, START)
        stamp = (START - timedelta(seconds=n - i)).isoformat(timespec="seconds")
        rows.append(
            ("telegram", str(10_000_000 + i), "private", f"telegram:{10_000_000 + i}", at.strftime("%H:%M"),
             zone_name, lang, kind, json.dumps({"day_starts": "23:00"}), since, stamp, stamp, utc_iso(due),
             d.isoformat())
        )  # fmt: skip
        if len(rows) == 10_000 or i == n - 1:
            yield rows
            rows = []


async def seed(ctx: Any, n: int, same_time: bool, rng: random.Random) -> None:
    for rows in seed_rows(n, same_time, rng):
        async with ctx.storage.transaction() as db:
            await db.executemany(
                "INSERT INTO subscriptions (platform, chat_id, chat_kind, user_key, at_time, tz, lang, kind,"
                " options, active, since, created_at, updated_at, next_due_at, next_local_date)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)",
                rows,
            )


class Phases:
    """Wall time spent inside the wrapped calls, per phase, and CPU (process) time of the phases whose calls are
    few (one claim per minute): reading the process clock around every reading's render would cost more
    than some of what it measures; their CPU is in ``other_cpu_s``."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def add(self, phase: str, wall: float, cpu: float | None = None) -> None:
        self.wall[phase] = self.wall.get(phase, 0.0) + wall
        if cpu is not None:
            self.cpu[phase] = self.cpu.get(phase, 0.0) + cpu

    def wrap_async(self, obj: Any, name: str, phase: str) -> None:
        inner = getattr(obj, name)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            w, c = time.perf_counter(), time.process_time()
            try:
                return await inner(*args, **kwargs)
            finally:
                self.add(phase, time.perf_counter() - w, time.process_time() - c)

        setattr(obj, name, timed)

    def wrap(self, obj: Any, name: str, phase: str) -> None:
        """Wall time only (a call per reading)."""
        inner = getattr(obj, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            w = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.add(phase, time.perf_counter() - w)

        setattr(obj, name, timed)


async def render_and_enqueue(n: int, same_time: bool, db: str | None, redis: str | None) -> dict[str, Any]:
    rng = random.Random(8)
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock(START)
        settings = Settings(db_path=db or f"{tmp}/bench.db", redis_url=redis)
        ctx = await create_context(settings, clock=clock)
        queue = daily_queue(ctx)
        try:
            await seed(ctx, n, same_time, rng)
            s = DailyScheduler(ctx, transports={"telegram": NullTransport()}, workers=0, queue=queue)
            phases = Phases()
            phases.wrap_async(s.store, "claim_due", "claim")
            phases.wrap(s.renderer, "parts", "render")
            if queue is not None:
                phases.wrap_async(queue, "enqueue", "enqueue")
            else:
                phases.wrap(s, "_put", "enqueue")
            rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            c0 = time.process_time()
            t0 = time.perf_counter()
            end = START + timedelta(days=1)
            ticks = 1
            nxt = await s.tick(START)
            while nxt is not None and nxt < end:
                clock.at = nxt
                nxt = await s.tick(nxt)
                ticks += 1
            if ctx.storage.dialect == "sqlite":  # the log written during the day, copied into the database:
                w, c = time.perf_counter(), time.process_time()  # measured, not left to the next process
                await ctx.storage.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                phases.add("checkpoint", time.perf_counter() - w, time.process_time() - c)
            wall = time.perf_counter() - t0
            cpu = time.process_time() - c0
            queued = (
                await queue.pending()  # type: ignore[attr-defined]  # bot.queue.DeliveryQueue
                if queue is not None
                else sum(q.qsize() for q in s._queues.values())
            )
            rows = await ctx.storage.fetchone("SELECT COUNT(*) FROM deliveries WHERE status = 'claimed'")
            st = s.renderer.stats
            return {
                "subscriptions": n,
                "scenario": "all at 07:00 local" if same_time else "random minute of the day",
                "db": ctx.storage.dialect,
                "queue": "redis (arq)" if queue is not None else "in-process",
                "wall_s": round(wall, 2),
                "cpu_s": round(cpu, 2),  # this process's CPU time; wall − cpu ≈ waiting (fsync, server, load)
                **{f"{k}_wall_s": round(v, 2) for k, v in phases.wall.items()},
                **{f"{k}_cpu_s": round(v, 2) for k, v in phases.cpu.items()},
                "other_cpu_s": round(
                    cpu - sum(phases.cpu.values()), 2
                ),  # render, the in-process put, the loop
                "ticks": ticks,
                "enqueued": queued,
                "claimed_rows": int(rows[0]) if rows else 0,
                "charts": st.bodies,
                "bodies_rendered": st.body_renders,
                "heads_rendered": st.heads,
                "head_forms": s.renderer.forms.compiled,
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "rss_before_day_mb": round(rss0 / 1024),
            }
        finally:
            if queue is not None:
                await queue.close()
            await ctx.close()


async def send_rate(count: int, storm: float = 0.0, limiter: str = "local") -> dict[str, Any]:
    from telegram import Bot

    from bot.limits import LocalLimiter, RedisLimiter
    from tests.fakes.telegram import FLOOD_METHODS, FakeTelegram
    from tests.servers import fresh_redis_url

    cap = 30  # Telegram's limit: 30 sends in any second (the fake's sliding window)
    fake = FakeTelegram(token="7012345678:AAHfake-TelegramToken_for-the-bench-0001", flood_limit=cap)
    fake.flood_storm = storm
    with (
        tempfile.TemporaryDirectory() as tmp,
        fresh_redis_url() if limiter == "redis" else nullcontext() as url,
    ):
        async with fake:
            clock = Clock(START)
            ctx = await create_context(Settings(db_path=f"{tmp}/send.db"), clock=clock)
            budgets = RedisLimiter.from_url(url) if url else LocalLimiter()
            bot = Bot(fake.token, base_url=fake.base_url, request=telegram_request(64))
            try:
                async with bot:
                    sender = ctx.telegram_sender = TelegramSender(bot, limiter=budgets)
                    since = (START - timedelta(days=1)).isoformat(timespec="seconds")
                    async with ctx.storage.transaction() as db:
                        await db.executemany(
                            "INSERT INTO subscriptions (platform, chat_id, chat_kind, user_key, at_time, tz,"
                            " lang, kind, options, active, since, created_at, updated_at)"
                            " VALUES ('telegram', ?, 'private', ?, '09:00', 'Asia/Seoul', 'ko', 'liuren',"
                            " '{}', 1, ?, ?, ?)",
                            [
                                (str(5000 + i), f"telegram:{5000 + i}", since, since, since)
                                for i in range(count)
                            ],
                        )
                    s = DailyScheduler(ctx, workers=64)
                    clock.at = datetime(2026, 11, 30, 0, 0, tzinfo=UTC)  # 09:00 KST
                    t0 = time.perf_counter()
                    c0 = time.process_time()
                    await s.tick(clock.at)
                    await s.drain()
                    elapsed = time.perf_counter() - t0
                    cpu = time.process_time() - c0
                    await s.close()
            finally:
                if isinstance(budgets, RedisLimiter):
                    await budgets.close()
                await ctx.close()
    ok = [c for c in fake.calls if c.method in FLOOD_METHODS and c.status == 200]
    sent_at = sorted(c.at for c in ok)
    # the pace the sender held: accepted sends from the first to the last (the claim and render before the
    # first send are in ``rate_msg_per_s``)
    steady = (len(sent_at) - 1) / (sent_at[-1] - sent_at[0]) if len(sent_at) > 1 else 0.0
    per_chat: dict[str, int] = {}
    for c in ok:
        per_chat[str(c.params["chat_id"])] = per_chat.get(str(c.params["chat_id"]), 0) + 1
    peak = 0
    start_i = 0
    for end_i, t in enumerate(sent_at):
        while t - sent_at[start_i] >= 1.0:
            start_i += 1
        peak = max(peak, end_i - start_i + 1)
    return {
        "scenario": f"{storm:.0%} of the sends get an injected 429 (retry_after 1)"
        if storm
        else "no injected 429",
        "limiter": limiter,
        "readings": count,
        "sends": len(ok),
        "parts_per_reading": sorted(set(per_chat.values())),
        "exactly_once": len(per_chat) == count and set(per_chat.values()) == {1},
        "seconds": round(elapsed, 2),
        "cpu_s": round(cpu, 2),
        "rate_msg_per_s": round(len(ok) / elapsed, 2),
        "steady_msg_per_s": round(steady, 2),
        "configured_msg_per_s": CONFIGURED_RATE,
        "steady_of_configured": round(steady / CONFIGURED_RATE, 3),
        "platform_msg_per_s": cap,
        "steady_of_platform": round(steady / cap, 3),
        "peak_per_1s": peak,
        "429s_over_limit": fake.flood_rejections,
        "429s_injected": fake.storm_rejections,
        "late_slots": sender.late_slots,  # requests that left more than max_late after their slot
    }


@asynccontextmanager
async def fresh_servers(db: str | None, redis: str | None) -> AsyncIterator[tuple[str | None, str | None]]:
    """A new schema on the PostgreSQL server (``?schema=``, bot.storage.postgres) and a new key prefix on the
    Redis server (``?prefix=``, bot.limits), both removed afterwards: other users of the servers are untouched."""
    tag = "bench_" + uuid.uuid4().hex[:12]
    db_url = f"{db}{'&' if '?' in db else '?'}schema={tag}" if db else None
    redis_url = f"{redis}{'&' if '?' in redis else '?'}prefix={tag}:" if redis else None
    try:
        yield db_url, redis_url
    finally:
        if db:
            import asyncpg

            con = await asyncpg.connect(db)
            try:
                await con.execute(f'DROP SCHEMA IF EXISTS "{tag}" CASCADE')
            finally:
                await con.close()
        if redis:
            import redis.asyncio as aioredis

            client = aioredis.Redis.from_url(redis)
            try:
                keys = [k async for k in client.scan_iter(match=f"*{tag}:*", count=1000)]
                for i in range(0, len(keys), 1000):
                    await client.delete(*keys[i : i + 1000])
            finally:
                await client.aclose()


def scenario_in_child(subs: int, same_time: bool, db: str | None, redis: str | None) -> dict[str, Any]:
    """One render-and-enqueue scenario in a fresh process, so that its peak RSS is its own."""
    args = [sys.executable, __file__, "--scenario", "same" if same_time else "random", "--subs", str(subs)]
    args += ["--db", db] if db else []
    args += ["--redis", redis] if redis else []
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subs", type=int, default=100_000)
    parser.add_argument("--send", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="10,000 subscriptions, 100 sends")
    parser.add_argument(
        "--send-limiters",
        choices=("local", "redis", "both"),
        default="both",
        help="the send budgets: in this process, in Redis (SIKPAN_TEST_REDIS), or one run of each",
    )
    parser.add_argument("--send-only", action="store_true", help="part 2 only")
    parser.add_argument(
        "--db",
        help="part 1 on this PostgreSQL server (a fresh schema), e.g. postgresql://127.0.0.1:5432/test",
    )
    parser.add_argument(
        "--redis", help="part 1 through the arq queue on this Redis server (a fresh key prefix)"
    )
    parser.add_argument("--render-only", action="store_true", help="part 1 only")
    parser.add_argument("--scenario", choices=("random", "same"), help=argparse.SUPPRESS)  # one child's part
    args = parser.parse_args()
    subs, sends = (10_000, 100) if args.quick else (args.subs, args.send)
    if args.scenario:
        async with fresh_servers(args.db, args.redis) as (db, redis):
            result = await render_and_enqueue(subs, args.scenario == "same", db, redis)
        print(json.dumps(result, ensure_ascii=False))
        return
    for same in () if args.send_only else (False, True):
        print(json.dumps(scenario_in_child(subs, same, args.db, args.redis), ensure_ascii=False), flush=True)
    if args.render_only:
        return
    for limiter in ("local", "redis") if args.send_limiters == "both" else (args.send_limiters,):
        print(json.dumps(await send_rate(sends, limiter=limiter), ensure_ascii=False), flush=True)
        print(json.dumps(await send_rate(sends, storm=0.1, limiter=limiter), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
