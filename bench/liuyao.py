"""Benchmark: cost of one 六爻 cast, ours next to ichingshifa (same run).

Run: ``.venv/bin/python bench/liuyao.py [--quick]``. ichingshifa comes from the ``bench`` extra
(``pip install -e '.[bench]'``; its wheel omits its own dependencies ``ephem`` and ``cn2an``, install them
too); if it cannot be imported it is reported and skipped.

Rows (median over rounds of (time for all inputs) / count, microseconds per cast):

- ``sikpan cast_coins``: three coins × six lines from ``secrets`` (tosses recorded).
- ``sikpan cast+build``: ``cast_coins()`` then ``build(cast, month, day, use)`` — the full chart with 變卦,
  伏神, 六神, 旬空/月破/旺衰/日辰 and all seed-000 judgments; inputs vary over random days, months and 用神.
- ``sikpan cast+build, cold``: the same with the per-branch condition cache cleared before each cast.
- ``sikpan cast+build+to_json``: what ``sikpan liuyao --json`` computes.
- ``ichingshifa bookgua+decode_two_gua``: the peer's yarrow cast and its decode of 本卦 and 之卦 for a day
  (no judgments; it has none).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.core.cycle import Branch, GanZhi  # noqa: E402
from engine.liuyao import build, cast_coins  # noqa: E402
from engine.liuyao import chart as chart_module  # noqa: E402

USES = (None, "父母", "兄弟", "子孫", "妻財", "官鬼")


def inputs(n: int, seed: int = 5) -> list[tuple[Branch, GanZhi, str | None]]:
    rng = random.Random(seed)
    return [(Branch(rng.randrange(12)), GanZhi.of(rng.randrange(60)), rng.choice(USES)) for _ in range(n)]


def peer_caster(next_input: Callable[[], tuple[Branch, GanZhi, str | None]]) -> Callable[[], object]:
    """ichingshifa's cast and decode of one chart (``bookgua`` + ``decode_two_gua``, the day from
    ``next_input``); ImportError when the peer is not installed (the ``bench`` extra)."""
    from ichingshifa import ichingshifa as peer_module

    peer = peer_module.Iching()

    def peer_cast() -> object:
        _, day, _ = next_input()
        digits = peer.bookgua()
        ben = digits.replace("9", "7").replace("6", "8")
        zhi = digits.replace("9", "8").replace("6", "7")
        return peer.decode_two_gua(ben, zhi, day.chars)

    return peer_cast


def measure(fn: Callable[[], object], count: int, rounds: int) -> float:
    """Median µs per call over ``rounds`` rounds of ``count`` calls."""
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(count):
            fn()
        per.append((time.perf_counter() - t0) / count * 1e6)
    return statistics.median(per)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n, rounds = (500, 3) if args.quick else (5000, 7)
    data = inputs(n)
    it = iter(())

    def next_input() -> tuple[Branch, GanZhi, str | None]:
        nonlocal it
        try:
            return next(it)
        except StopIteration:
            it = iter(data)
            return next(it)

    def coins() -> object:
        return cast_coins()

    def cast_build() -> object:
        month, day, use = next_input()
        return build(cast_coins(), month, day, use=use)

    def cast_build_cold() -> object:
        chart_module.condition.cache_clear()
        month, day, use = next_input()
        return build(cast_coins(), month, day, use=use)

    def cast_build_json() -> object:
        month, day, use = next_input()
        return build(cast_coins(), month, day, use=use).to_json()

    cast_build()  # load the table and data files once
    rows = [
        ("sikpan cast_coins", measure(coins, n, rounds)),
        ("sikpan cast+build", measure(cast_build, n, rounds)),
        ("sikpan cast+build, cold", measure(cast_build_cold, n, rounds)),
        ("sikpan cast+build+to_json", measure(cast_build_json, n, rounds)),
    ]
    try:
        peer_cast = peer_caster(next_input)
        peer_cast()
        peer_n = max(50, n // 10)
        rows.append(("ichingshifa bookgua+decode_two_gua", measure(peer_cast, peer_n, rounds)))
    except Exception as err:  # noqa: BLE001 - report any import/runtime failure of the peer
        rows.append((f"ichingshifa: unavailable ({type(err).__name__}: {err})", float("nan")))

    width = max(len(name) for name, _ in rows)
    print(f"{'case':<{width}}  µs/cast")
    for name, us in rows:
        print(f"{name:<{width}}  {us:8.1f}")


if __name__ == "__main__":
    main()
