"""Benchmark: commands per second and latency through the fake Telegram server, 200 concurrent users.

Run: ``.venv/bin/python bench/bot.py [--users 200] [--per-user 5] [--paced-per-user 1] [--timeout 180]``.

Everything runs in one process on 127.0.0.1: the fake Bot API server (``tests/fakes/telegram.py``) and the
real python-telegram-bot ``Application`` built by ``bot.telegram.build_application`` (long polling, concurrent
updates, a temp SQLite database in WAL mode), so the figures include both sides of the HTTP traffic and the
fake's HTML validation. Each simulated user is a private chat that sends its commands one after the other
(the next one when the previous answer has arrived in full); all users run at once. The command mix per user
cycles through ``/start``, ``/shensha 甲子``, ``/cast now``, ``/history``, ``/cast 甲乙`` (bad input), in
Korean or Classical Chinese (half the users each, by ``language_code``).

Latency = from the moment the update is queued on the fake server until the bot's last message part for it
has been accepted by the fake server (getUpdates pickup + dispatch + storage + rendering + sending).

Two runs:
  * ``unpaced``: the sender's pacing off — what the stack itself can do;
  * ``paced``: the production sender (≈ 28 msg/s overall, 1 msg/s per chat with a burst of 3) — what a bot
    on the real Telegram may do; throughput is then bounded by Telegram's limits, not by sikpan.
Bounded: every run stops at ``--timeout`` seconds; nothing leaves the loopback interface.
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/ holds modules named like the standard library's (calendar.py): take it off the path first.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from bot.app import create_context  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.telegram import build_application, prepare  # noqa: E402
from tests.fakes.telegram import FakeTelegram  # noqa: E402

MIX = ("/start", "/shensha 甲子", "/cast now", "/history", "/cast 甲乙")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def run(users: int, per_user: int, pace: bool, timeout: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeTelegram(token="7000000001:AAbenchmark-token-not-a-real-one-000") as tg:
            settings = Settings(
                telegram_token=tg.token, telegram_api_base_url=tg.base_url, db_path=f"{tmp}/b.db"
            )
            ctx = await create_context(settings)
            app = build_application(ctx, tg.token, tg.base_url, pace=pace)
            adapter = app.bot_data["adapter"]
            latencies: list[float] = []
            parts = 0
            failures = 0
            async with app:
                await prepare(app)
                await app.start()
                assert app.updater is not None
                await app.updater.start_polling(poll_interval=0.0, timeout=10)

                async def user(i: int) -> None:
                    nonlocal parts, failures
                    chat = 10_000 + i
                    lang = "ko" if i % 2 else "zh-hant"
                    for n in range(per_user):
                        text = MIX[(i + n) % len(MIX)]
                        start = time.perf_counter()
                        update = tg.user_says(text, chat_id=chat, language_code=lang)
                        outcome = await adapter.wait_handled(update["update_id"], timeout)
                        latencies.append(time.perf_counter() - start)
                        if outcome is None or not outcome.ok:
                            failures += 1
                        else:
                            parts += outcome.parts

                began = time.perf_counter()
                try:
                    await asyncio.wait_for(asyncio.gather(*(user(i) for i in range(users))), timeout)
                    completed = True
                except TimeoutError:
                    completed = False
                elapsed = time.perf_counter() - began
                await app.updater.stop()
                await app.stop()
            await ctx.close()
    done = len(latencies)
    return {
        "completed": float(completed),
        "commands": float(done),
        "messages": float(parts),
        "failures": float(failures),
        "seconds": elapsed,
        "commands_per_s": done / elapsed if elapsed else 0.0,
        "messages_per_s": parts / elapsed if elapsed else 0.0,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "mean_ms": (statistics.fmean(latencies) * 1000) if latencies else float("nan"),
        "max_ms": (max(latencies) * 1000) if latencies else float("nan"),
    }


def report(name: str, users: int, r: dict[str, float]) -> None:
    status = "" if r["completed"] else "  (TIMED OUT: partial figures)"
    print(
        f"{name:8s} users={users} commands={int(r['commands'])} messages={int(r['messages'])} "
        f"failures={int(r['failures'])} in {r['seconds']:.2f}s{status}\n"
        f"         {r['commands_per_s']:.1f} commands/s ({r['messages_per_s']:.1f} messages/s); latency p50 "
        f"{r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms, mean {r['mean_ms']:.0f} ms, max {r['max_ms']:.0f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--per-user", type=int, default=5, help="commands per user in the unpaced run")
    parser.add_argument(
        "--paced-per-user", type=int, default=1, help="commands per user in the paced run (0: skip)"
    )
    parser.add_argument("--timeout", type=float, default=180.0, help="upper bound per run, seconds")
    args = parser.parse_args()
    report("unpaced", args.users, await run(args.users, args.per_user, False, args.timeout))
    if args.paced_per_user:
        report("paced", args.users, await run(args.users, args.paced_per_user, True, args.timeout))


if __name__ == "__main__":
    asyncio.run(main())
