"""Shared pieces of the benchmarks: reproducible random instants and the median cost of a call."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from typing import Any


def random_instants(n: int, tz: tzinfo, first_year: int, last_year: int, seed: int = 2024) -> list[datetime]:
    """``n`` instants to the second, uniform from 1 Jan ``first_year`` to 31 Dec ``last_year`` (UTC), shown in ``tz``."""
    rng = random.Random(seed)
    lo = datetime(first_year, 1, 1, tzinfo=UTC).timestamp()
    hi = datetime(last_year, 12, 31, tzinfo=UTC).timestamp()
    return [datetime.fromtimestamp(round(rng.uniform(lo, hi)), tz) for _ in range(n)]


def per_call(
    fn: Callable[[Any], object],
    items: list[Any],
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median over ``rounds`` of (time for all items) / count, in microseconds, after a warm-up of 20 calls.

    ``clock``: wall time by default; ``time.process_time`` counts this process's CPU time only, which holds
    on a machine shared with other work (bench/all.py)."""
    for item in items[:20]:
        fn(item)
    samples = []
    for _ in range(rounds):
        start = clock()
        for item in items:
            fn(item)
        samples.append((clock() - start) / len(items) * 1e6)
    return statistics.median(samples)
