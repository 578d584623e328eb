"""Benchmark: the daily run for many subscribers, and the send rate against the fake Telegram server.

Run: ``.venv/bin/python bench/daily.py [--subs 100000] [--send 300] [--quick]``.

Part 1 — render and enqueue (issue 18 target: 100,000 subscriptions over 20 zones in < 15 s).
    A temp database gets ``--subs`` active Telegram subscriptions (bulk insert, not timed; written at distinct
    seconds before the day) spread over 20 IANA zones (whole, half and 45-minute offsets, DST and not), a
    random local minute of the day each, 50/50 ko/lzh, 80/20 大六壬/六爻. Then one whole day is driven through
    :class:`bot.scheduler.DailyScheduler` on a hand-moved clock: plan every subscription (``_refresh``, in
    batches from the database), and at every due minute ``tick`` — claim the rows in the database (one
    transaction per minute, committed with ``synchronous=FULL``), render (shared pieces, heads from forms:
    :class:`bot.daily.DailyRenderer`) and put each reading on the platform queue (no worker consumes it:
    this part measures the producer only). Each scenario runs in its own process. Reported: wall time in
    total and per phase, this process's CPU time (wall − CPU is waiting: fsync, other load on the machine),
    peak RSS, readings enqueued, charts computed, bodies and heads rendered, head forms made.
    A second scenario puts every subscriber at 07:00 local (20 bursts of 5,000).

Part 2 — send rate (issue 18: ≥ 95 % of the configured rate, zero loss). The fake Bot API server
    (tests/fakes/telegram.py, ``flood_limit=30``) applies Telegram's documented limit as a sliding window: more
    than 30 sends in any second → 429 with ``retry_after``. ``--send`` readings (the daily picture with its
    caption: ``sendPhoto``) to distinct private chats go through the scheduler's queue and the adapter's
    ``TelegramSender`` (real python-telegram-bot ``Bot`` on the bot's aiohttp transport; 28 msg/s), with the
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
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# the repository root instead of bench/ (whose calendar.py would shadow the standard library module)
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bot.app import create_context  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.scheduler import DailyScheduler  # noqa: E402
from bot.sending import SendOutcome, TelegramSender  # noqa: E402

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
)  # msg/s, bot/sending.py


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


async def seed(ctx: Any, n: int, same_time: bool, rng: random.Random) -> None:
    since = START.isoformat(timespec="seconds")  # subscribed at the start of the benchmarked day
    rows = []
    for i in range(n):
        # written at distinct seconds before the day, as subscriptions made over time are (the scheduler polls
        # ``updated_at`` for changes made by other processes)
        stamp = (START - timedelta(seconds=n - i)).isoformat(timespec="seconds")
        zone = ZONES[i % len(ZONES)]
        at = "07:00" if same_time else f"{rng.randrange(24):02d}:{rng.randrange(60):02d}"
        lang = "ko" if rng.random() < 0.5 else "lzh"
        kind = "liuren" if rng.random() < 0.8 else "liuyao"
        rows.append(
            ("telegram", str(10_000_000 + i), "private", f"telegram:{10_000_000 + i}", at, zone, lang, kind,
             json.dumps({"day_starts": "23:00"}), since, stamp, stamp)
        )  # fmt: skip
        if len(rows) == 10_000 or i == n - 1:  # in chunks: the bench's own rows do not inflate the peak RSS
            async with ctx.storage.transaction() as db:
                await db.executemany(
                    "INSERT INTO subscriptions (platform, chat_id, chat_kind, user_key, at_time, tz, lang, kind,"
                    " options, active, since, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
                    rows,
                )
            rows.clear()


async def render_and_enqueue(n: int, same_time: bool) -> dict[str, Any]:
    rng = random.Random(8)
    with tempfile.TemporaryDirectory() as tmp:
        clock = Clock(START)
        ctx = await create_context(Settings(db_path=f"{tmp}/bench.db"), clock=clock)
        try:
            await seed(ctx, n, same_time, rng)
            s = DailyScheduler(ctx, transports={"telegram": NullTransport()}, workers=0)
            c0 = time.process_time()
            t0 = time.perf_counter()
            await s._refresh(START)
            t_plan = time.perf_counter() - t0
            end = START + timedelta(days=1)
            ticks = 0
            t1 = time.perf_counter()
            nxt = await s.tick(START)
            while nxt is not None and nxt < end:
                clock.at = nxt
                nxt = await s.tick(nxt)
                ticks += 1
            t_run = time.perf_counter() - t1
            cpu = time.process_time() - c0
            queued = sum(q.qsize() for q in s._queues.values())
            rows = await ctx.storage.fetchone("SELECT COUNT(*) FROM deliveries WHERE status = 'claimed'")
            st = s.renderer.stats
            return {
                "subscriptions": n,
                "scenario": "all at 07:00 local" if same_time else "random minute of the day",
                "plan_s": round(t_plan, 2),
                "run_s": round(t_run, 2),
                "total_s": round(t_plan + t_run, 2),
                "cpu_s": round(cpu, 2),  # this process's CPU time; total − cpu ≈ waiting (fsync, other load)
                "ticks": ticks,
                "enqueued": queued,
                "claimed_rows": int(rows[0]) if rows else 0,
                "charts": st.bodies,
                "bodies_rendered": st.body_renders,
                "heads_rendered": st.heads,
                "head_forms": s.renderer.forms.compiled,
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            }
        finally:
            await ctx.close()


async def send_rate(count: int, storm: float = 0.0, limiter: str = "local") -> dict[str, Any]:
    from telegram import Bot

    from bot.limits import LocalLimiter, RedisLimiter
    from bot.telegram.request import AiohttpRequest
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
            bot = Bot(fake.token, base_url=fake.base_url, request=AiohttpRequest(connection_pool_size=64))
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


def scenario_in_child(subs: int, same_time: bool) -> dict[str, Any]:
    """One render-and-enqueue scenario in a fresh process, so that its peak RSS is its own."""
    args = [sys.executable, __file__, "--scenario", "same" if same_time else "random", "--subs", str(subs)]
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
    parser.add_argument("--scenario", choices=("random", "same"), help=argparse.SUPPRESS)  # one child's part
    args = parser.parse_args()
    subs, sends = (10_000, 100) if args.quick else (args.subs, args.send)
    if args.scenario:
        print(json.dumps(await render_and_enqueue(subs, args.scenario == "same"), ensure_ascii=False))
        return
    for same in () if args.send_only else (False, True):
        print(json.dumps(scenario_in_child(subs, same), ensure_ascii=False), flush=True)
    for limiter in ("local", "redis") if args.send_limiters == "both" else (args.send_limiters,):
        print(json.dumps(await send_rate(sends, limiter=limiter), ensure_ascii=False), flush=True)
        print(json.dumps(await send_rate(sends, storm=0.1, limiter=limiter), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
