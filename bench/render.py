"""Benchmark: rendering the first page of a reply (``bot.views.render``) for Telegram (issue #18).

Run: ``.venv/bin/python bench/render.py [--rounds 7] [--n 400] [--channel telegram] [--json]`` (``--profile``:
cProfile of the renders instead, top functions by own time).

``--dispatch``: the command and the view path instead — per command kind and language, the CPU of this thread
per ``dispatch`` with the storage's own calls taken out (``get_user``, ``touch_user``, ``add_history``,
``prune_history``: ``bench/storage.py`` measures those) and per render of the reply's first page right after it,
each command another user and another time of the same hour (``--n`` commands a round, the median of
``--rounds``, min and max in brackets); ``/liuyao`` casts coins, so each is another chart (the share of its
line rows found in ``bot.views.rendered_rows``' cache is printed after the rows).

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
from typing import Any  # noqa: E402

from bot.commands import Incoming, Reply, dispatch  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.context import create_context  # noqa: E402
from bot.views import CHANNELS, first_page, render, row_cache_stats  # noqa: E402
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


async def _dispatch_rounds(n: int, rounds: int, channel: str) -> dict[str, dict[str, float]]:
    """CPU µs of this thread per ``dispatch`` (storage calls taken out) and per render after it."""
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        clock = ManualClock(INSTANT)
        ctx = await create_context(
            Settings(db_path=str(Path(tmp) / "b.db"), lang="ko", tz="Asia/Seoul"), clock
        )
        storage_cpu = [0.0]
        for name in ("get_user", "touch_user", "add_history", "prune_history"):
            call = getattr(ctx.storage, name)

            async def timed(*args: Any, _call: Any = call, **kwargs: Any) -> Any:
                started = time.thread_time()
                try:
                    return await _call(*args, **kwargs)
                finally:
                    storage_cpu[0] += time.thread_time() - started

            setattr(ctx.storage, name, timed)
        try:
            for text in COMMANDS:
                for lang, hint in LANGS.items():
                    dispatch_us: list[float] = []
                    render_us: list[float] = []
                    for round_no in range(rounds + 1):  # the first round warms the caches, not counted
                        spent = rendered = 0.0
                        storage_cpu[0] = 0.0
                        for i in range(n):
                            clock.set(INSTANT + timedelta(seconds=(7 * i) % 1500))  # within one 時辰
                            user = f"{lang}-{i % 150}"
                            started = time.thread_time()
                            reply = await dispatch(
                                Incoming("telegram", user, user, text, lang_hint=hint), ctx
                            )
                            middle = time.thread_time()
                            render(reply, channel, page=first_page(reply.view))
                            rendered += time.thread_time() - middle
                            spent += middle - started
                            assert reply.view != "error", reply
                        if round_no:
                            dispatch_us.append((spent - storage_cpu[0]) / n * 1e6)
                            render_us.append(rendered / n * 1e6)
                    figures[f"{text} {lang}"] = {
                        "dispatch_us": round(statistics.median(dispatch_us), 1),
                        "dispatch_min_us": round(min(dispatch_us), 1),
                        "dispatch_max_us": round(max(dispatch_us), 1),
                        "render_us": round(statistics.median(render_us), 1),
                        "render_min_us": round(min(render_us), 1),
                        "render_max_us": round(max(render_us), 1),
                    }
        finally:
            await ctx.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--channel", choices=CHANNELS, default="telegram")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--dispatch", action="store_true", help="dispatch (storage calls out) and render")
    args = parser.parse_args()
    if args.dispatch:
        rows = asyncio.run(_dispatch_rounds(min(args.n, 150), args.rounds, args.channel))
        if args.json:
            print(json.dumps(rows, ensure_ascii=False))
            return
        for name, row in rows.items():
            print(
                f"{name:<16} dispatch {row['dispatch_us']:7.1f} µs [{row['dispatch_min_us']:.1f} – "
                f"{row['dispatch_max_us']:.1f}]   render {row['render_us']:6.1f} µs [{row['render_min_us']:.1f} – "
                f"{row['render_max_us']:.1f}]"
            )
        mean = statistics.mean(row["dispatch_us"] + row["render_us"] for row in rows.values())
        print(f"mean of the kinds: {mean:.1f} µs a command (dispatch + render)")
        hits, misses = row_cache_stats["hit"], row_cache_stats["miss"]
        if hits + misses:  # the /liuyao line rows (bot.views.rendered_rows), warm-up rounds included
            print(f"/liuyao line rows from the cache: {hits / (hits + misses):.0%} of {hits + misses}")
        return
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
