"""Benchmark: the bot's resident memory (RSS) over many mixed commands (issue 36 item 7).

Run: ``.venv/bin/python bench/memory.py [--commands 20000] [--users 2000] [--seed 1] [--json]
[--tracemalloc 25]``. Prints the RSS (``VmRSS`` of ``/proc/self/status``) before the first command and at
1,000, 5,000, 10,000 and 20,000 commands (the marks up to ``--commands``), and at the end the hit rates of the
byte-bounded caches (``bot.bounded``) and the peak (``VmHWM``).

One process, as ``sikpan run`` would hold it: a context on a fresh SQLite file in a temporary directory,
``--users`` Telegram users (half ``ko``, half ``zh-hant``), each command through ``bot.commands.dispatch``
and the Telegram presentation (``bot.presentation.present``: its text, its buttons and — for ``/cast``,
``/liuyao`` and ``/qizheng`` — its picture drawn, as the adapter sends it). The mix, drawn from a seeded RNG:
``/cast`` at a random minute of 2020–2030 (many distinct charts and pictures), ``/cast now``, ``/liuyao``
(coins tossed) and ``/liuyao`` with six given lines, ``/shensha`` of a random 干支 day, ``/qizheng`` of a
random birth minute in one of a few cities, ``/show N`` and ``/history`` of the user's own casts, ``/help``.
The clock is the wall clock (``/cast now`` moves with it). ``--tracemalloc N`` also prints the N source
lines that hold the most memory at the end, and the N that grew most since 1,000 commands (slower: how the
caches were found).
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
import json  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from datetime import datetime, timedelta  # noqa: E402
from typing import Any  # noqa: E402

from bot.bounded import caches  # noqa: E402
from bot.commands import dispatch  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.context import create_context  # noqa: E402
from bot.features.base import Incoming  # noqa: E402
from bot.presentation import present  # noqa: E402

MARKS = (1_000, 5_000, 10_000, 20_000)
STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
CITIES = ("서울", "부산", "北京", "上海", "東京")


def rss_mb(field: str = "VmRSS") -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def command_line(rng: random.Random, casts: int) -> str:
    """One command of the mix (``casts``: how many casts the user has, for ``/show``)."""
    roll = rng.random()
    if roll < 0.30:
        at = datetime(2020, 1, 1) + timedelta(minutes=rng.randrange(11 * 365 * 24 * 60))
        return f"/cast {at:%Y-%m-%d %H:%M}"
    if roll < 0.38:
        return "/cast now"
    if roll < 0.50:
        return "/liuyao"
    if roll < 0.56:
        return "/liuyao " + "".join(rng.choice("6789") for _ in range(6))
    if roll < 0.68:
        sexagenary = rng.randrange(60)
        return f"/shensha {STEMS[sexagenary % 10]}{BRANCHES[sexagenary % 12]}"
    if roll < 0.80:
        born = datetime(1950, 1, 1) + timedelta(minutes=rng.randrange(60 * 365 * 24 * 60))
        return f"/qizheng {born:%Y-%m-%d %H:%M} {rng.choice(CITIES)}"
    if roll < 0.92 and casts:
        return f"/show {rng.randrange(1, casts + 1)}"
    if roll < 0.96:
        return "/history"
    return "/help"


async def run(commands: int, users: int, seed: int, top: int) -> dict[str, Any]:
    rng = random.Random(seed)
    casts = [0] * users
    figures: dict[str, Any] = {"commands": commands, "users": users, "seed": seed, "rss_mb": {}}
    with tempfile.TemporaryDirectory() as tmp:
        ctx = await create_context(Settings(db_path=f"{tmp}/memory.db", lang="ko", tz="Asia/Seoul"))
        try:
            figures["rss_mb"]["0"] = round(rss_mb(), 1)
            first: tracemalloc.Snapshot | None = None
            started = time.perf_counter()
            for n in range(1, commands + 1):
                user = rng.randrange(users)
                text = command_line(rng, casts[user])
                incoming = Incoming(
                    platform="telegram",
                    chat_id=str(10_000 + user),
                    user_id=str(10_000 + user),
                    text=text,
                    lang_hint="ko" if user % 2 else "zh-hant",
                    display_name=f"user {user}",
                )
                reply = await dispatch(incoming, ctx)
                present(reply, "telegram", incoming.user_id)
                if isinstance(reply.context.get("no"), int):
                    casts[user] = max(casts[user], int(reply.context["no"]))
                if top and n == MARKS[0]:
                    first = tracemalloc.take_snapshot()
                if n in MARKS or n == commands:
                    figures["rss_mb"][str(n)] = round(rss_mb(), 1)
                    print(f"{n:>6} commands: RSS {rss_mb():6.1f} MB ({time.perf_counter() - started:.0f} s)")
            figures["seconds"] = round(time.perf_counter() - started, 1)
            figures["peak_rss_mb"] = round(rss_mb("VmHWM"), 1)
            figures["caches"] = {
                name: {
                    "entries": len(cache),
                    "bytes": cache.size,
                    "limit_bytes": cache.max_bytes,
                    "hit_rate": round(cache.hits / max(1, cache.hits + cache.misses), 3),
                }
                for name, cache in sorted(caches().items())
            }
            if top:
                snapshot = tracemalloc.take_snapshot()
                figures["top"] = [
                    f"{stat.size / 1024:.0f} KiB {stat.count} blocks {stat.traceback[0]}"
                    for stat in snapshot.statistics("lineno")[:top]
                ]
                if first is not None:
                    figures["growth_since_1000"] = [
                        f"{stat.size_diff / 1024:+.0f} KiB {stat.traceback[0]}"
                        for stat in snapshot.compare_to(first, "lineno")[:top]
                    ]
        finally:
            await ctx.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=20_000)
    parser.add_argument("--users", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="N", help="print the N biggest lines")
    parser.add_argument("--json", action="store_true", help="one line of JSON at the end")
    args = parser.parse_args()
    if args.tracemalloc:
        tracemalloc.start()
    figures = asyncio.run(run(args.commands, args.users, args.seed, args.tracemalloc))
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
        return
    print(f"peak RSS {figures['peak_rss_mb']} MB; {figures['seconds']} s")
    for name, cache in figures["caches"].items():
        print(f"  {name}: {cache}")
    for line in figures.get("top", []):
        print("  " + line)
    if "growth_since_1000" in figures:
        print("grown since 1,000 commands:")
        for line in figures["growth_since_1000"]:
            print("  " + line)


if __name__ == "__main__":
    main()
