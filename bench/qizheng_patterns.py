"""Base rates of the 《八格賦》 clauses: how often each computable clause holds over random births.

Run: ``.venv/bin/python bench/qizheng_patterns.py [-n 2000] [--seed 16] [--markdown]``.

Births are drawn uniformly in time over 1900-01-01 … 2100-12-31 UTC, at random east longitudes, at the
latitudes below in turn (the default options do not use the latitude; they are varied so that options which do,
and the 時辰 by apparent solar time at each longitude, see a spread of places). Every clause with ``status`` yes
is counted; a clause holding for more than half of the births is flagged, and docs/qizheng.md lists the table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.qizheng import patterns  # noqa: E402
from engine.qizheng.chart import chart_at  # noqa: E402
from engine.qizheng.patterns import evaluate_all  # noqa: E402

LATITUDES = (-33.9, 0.0, 23.1, 37.57, 51.5, 59.9)


def births(n: int, seed: int) -> list[tuple[datetime, float, float]]:
    rng = random.Random(seed)
    start = datetime(1900, 1, 1, tzinfo=UTC)
    span = (datetime(2100, 12, 31, tzinfo=UTC) - start).total_seconds()
    return [
        (
            start + timedelta(seconds=rng.uniform(0, span)),
            rng.uniform(-180.0, 180.0),
            LATITUDES[i % len(LATITUDES)],
        )
        for i in range(n)
    ]


def base_rates(n: int, seed: int) -> tuple[dict[str, float], float]:
    held: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    t0 = time.perf_counter()
    for at, lon, lat in births(n, seed):
        for r in evaluate_all(chart_at(at, lon, lat)):
            if r.holds is not None:
                decided[r.pattern.id] += 1
                held[r.pattern.id] += bool(r.holds)
    elapsed = time.perf_counter() - t0
    return {pid: held[pid] / decided[pid] for pid in decided}, elapsed / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--markdown", action="store_true", help="one markdown table row per clause")
    args = ap.parse_args()
    rates, per_chart = base_rates(args.n, args.seed)
    by_id = {p.id: p for p in patterns()}
    print(
        f"{args.n} births 1900–2100, latitudes {LATITUDES}, seed {args.seed}; {per_chart * 1000:.1f} ms/chart"
    )
    if args.markdown:
        print("| clause | ge | holds | note |")
        print("|---|---|---|---|")
    for pid in sorted(rates):
        p = by_id[pid]
        flag = "broad" if p.broad else ("> 50 %" if rates[pid] > 0.5 else "")
        if args.markdown:
            print(f"| {pid} {p.quote[:18]} | {p.ge} | {rates[pid] * 100:.1f} % | {flag} |")
        else:
            print(f"{pid:7} {p.ge} {rates[pid] * 100:6.1f} %  {flag}")


if __name__ == "__main__":
    main()
