"""Benchmark: rendering the first page of a reply (``bot.views.render``) for Telegram (issue #18).

Run: ``.venv/bin/python bench/render.py [--rounds 7] [--n 400] [--channel telegram] [--json]`` (``--profile``:
cProfile of the renders instead, top functions by own time).

The replies are those ``bench/bot.py`` sends: ``/cast now``, ``/liuyao`` and ``/shensha``, each in ``ko`` and
``lzh``, built through ``bot.commands.dispatch`` on a temporary database and a fixed clock (2024-02-04 03:30
UTC = 12:30 in Seoul). Each row is the CPU time of this thread (``time.thread_time``) per render of
``render(reply, "telegram", page=first_page(reply.view))``, the median over rounds of ``--n`` renders (min and
max in brackets), with the process's caches warm, as in a bot that has answered a few commands: every reply
of one kind is another number and time of the same 課 / hour (what 150 users asking within the hour get).
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]  # bench/calendar.py
sys.path.insert(0, str(_HERE.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import cProfile  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402

from bot.commands import Incoming, Reply, dispatch  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.context import create_context  # noqa: E402
from bot.views import CHANNELS, first_page, render  # noqa: E402
from tests.fakes.clock import ManualClock  # noqa: E402

INSTANT = datetime(2024, 2, 4, 3, 30, tzinfo=UTC)
COMMANDS = ("/cast now", "/liuyao", "/shensha")
LANGS = {"ko": "ko", "lzh": "zh-hant"}
REPLIES_PER_CASE = 8  # different numbers and minutes within one 時辰


async def _replies() -> dict[tuple[str, str], list[Reply]]:
    out: dict[tuple[str, str], list[Reply]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock(INSTANT)
        ctx = await create_context(
            Settings(db_path=str(Path(tmp) / "b.db"), lang="ko", tz="Asia/Seoul"), clock
        )
        try:
            for i in range(REPLIES_PER_CASE):
                clock.set(INSTANT + timedelta(minutes=5 * i))
                for lang, hint in LANGS.items():
                    for text in COMMANDS:
                        user = f"{lang}-{i}"
                        reply = await dispatch(Incoming("telegram", user, user, text, lang_hint=hint), ctx)
                        assert reply.view != "error", reply
                        out.setdefault((text, lang), []).append(reply)
        finally:
            await ctx.close()
    return out


def _time(replies: list[Reply], n: int, channel: str) -> float:
    """CPU µs of this thread per render."""
    start = time.thread_time()
    for i in range(n):
        reply = replies[i % len(replies)]
        render(reply, channel, page=first_page(reply.view))
    return (time.thread_time() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--channel", choices=CHANNELS, default="telegram")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    cases = asyncio.run(_replies())
    for replies in cases.values():  # warm: templates compiled, caches filled
        _time(replies, 2 * len(replies), args.channel)
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for replies in cases.values():
            _time(replies, args.n, args.channel)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(40)
        return
    figures: dict[str, dict[str, float]] = {}
    for (text, lang), replies in cases.items():
        rounds = [_time(replies, args.n, args.channel) for _ in range(args.rounds)]
        figures[f"{text} {lang}"] = {
            "median_us": round(statistics.median(rounds), 1),
            "min_us": round(min(rounds), 1),
            "max_us": round(max(rounds), 1),
        }
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
        return
    for name, row in figures.items():
        print(f"{name:<16} {row['median_us']:8.1f} µs/render  [{row['min_us']:.1f} – {row['max_us']:.1f}]")


if __name__ == "__main__":
    main()
