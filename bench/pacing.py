"""Benchmark (arithmetic, no network): the latency floor that a send window puts under Poisson arrivals.

Run: ``.venv/bin/python bench/pacing.py [--rate 20] [--sends 200000] [--json]``

Issue #18 asks for p99 ≤ 50 ms from update to reply at 20 commands/s under production pacing, and issue #17
for at most 30 sends in any second with no 429. This prints, for Poisson arrivals at ``--rate`` sends per
second, the 99th percentile and the share over 50 ms of the time a send waits for its slot:

* ``any pacer, 30 in any 1 s``: the best any pacer can do that keeps Telegram's 30 arrivals in any second —
  greedy first-come first-served (``slot_i = max(arrival_i, slot_{i-30} + 1 s)``), requests of no duration.
  Greedy FIFO is optimal here: no schedule that keeps the cap gives any send an earlier slot. This is a
  floor for every implementation, ours or another's.
* ``sikpan``: the production window (``Window.of_rate(28)``: 28 in any second, a slot counted until its
  request ended, no grant while 28 are in flight) — the real :class:`bot.limits.SlidingWindow` on a virtual
  clock, each request lasting ``--request-ms`` (a few ms against the local fake; ~50–150 ms to Telegram).

The figures are exact for the model (a discrete-event simulation, seeded); they do not depend on the
machine. The bot's own latency (``bench/bot.py``) adds to them.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import argparse  # noqa: E402
import heapq  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402

from bot.limits import SlidingWindow, Window  # noqa: E402


def arrivals(rate: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    t, out = 0.0, []
    for _ in range(n):
        t += rng.expovariate(rate)
        out.append(t)
    return out


def greedy_waits(times: list[float], count: int, seconds: float) -> list[float]:
    """First-come first-served with at most ``count`` slots in any ``seconds`` (counted at the slot)."""
    slots: list[float] = []
    for i, t in enumerate(times):
        slots.append(max(t, slots[i - count] + seconds) if i >= count else t)
    return [s - t for s, t in zip(slots, times, strict=True)]


def window_waits(times: list[float], window: Window, request: float) -> list[float]:
    """The waits :class:`SlidingWindow` gives, each request settled ``request`` seconds after its slot."""
    clock = [0.0]
    win = SlidingWindow(window.count, window.seconds, max_flight=window.max_flight, clock=lambda: clock[0])
    events: list[tuple[float, int, str, int]] = [(t, i, "ask", i) for i, t in enumerate(times)]
    heapq.heapify(events)
    waits = [0.0] * len(times)
    order = len(times)
    while events:
        at, _, kind, who = heapq.heappop(events)
        clock[0] = at
        if kind == "settle":
            win.settle(who)
            continue
        reservation = win.reserve()
        if not reservation.granted:
            order += 1
            heapq.heappush(events, (at + reservation.wait, order, "ask", who))
            continue
        slot = at + reservation.wait
        waits[who] = slot - times[who]
        assert reservation.member is not None
        order += 1
        heapq.heappush(events, (slot + request, order, "settle", int(reservation.member)))
    return waits


def summary(waits: list[float]) -> dict[str, float]:
    ordered = sorted(waits)
    n = len(ordered)
    return {
        "p50_ms": round(ordered[n // 2] * 1000, 1),
        "p99_ms": round(ordered[int(0.99 * n)] * 1000, 1),
        "over_50ms": round(sum(1 for w in ordered if w > 0.05) / n, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=20.0, help="Poisson arrivals per second")
    parser.add_argument("--sends", type=int, default=200_000)
    parser.add_argument("--request-ms", type=float, nargs="*", default=[3.0, 50.0, 100.0])
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument(
        "--runs", type=int, default=300, help="short schedules for the spread of a run's p99 (0: none)"
    )
    parser.add_argument(
        "--run-sends", type=int, default=600, help="sends per short schedule (bench/bot.py: 600)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    times = arrivals(args.rate, args.sends, args.seed)
    rows: list[dict[str, object]] = [
        {"pacer": "any pacer, 30 in any 1 s", **summary(greedy_waits(times, 30, 1.0))}
    ]
    production = Window.of_rate(28)
    for ms in args.request_ms:
        rows.append(
            {
                "pacer": f"sikpan, {production.count} in any {production.seconds:g} s, requests {ms:g} ms",
                **summary(window_waits(times, production, ms / 1000)),
            }
        )
    spread: dict[str, float] = {}
    if args.runs:
        # bench/bot.py measures one seeded schedule of 600 commands: how its p99 varies with the schedule
        # (the production window, 3 ms requests)
        p99s = sorted(
            summary(window_waits(arrivals(args.rate, args.run_sends, seed), production, 0.003))["p99_ms"]
            for seed in range(args.runs)
        )
        spread = {
            "runs": args.runs,
            "run_sends": args.run_sends,
            "median_p99_ms": p99s[len(p99s) // 2],
            "share_p99_within_50ms": round(sum(1 for p in p99s if p <= 50) / len(p99s), 3),
        }
    if args.json:
        print(json.dumps({"rate": args.rate, "sends": args.sends, "rows": rows, "spread": spread}))
        return
    print(f"Poisson {args.rate:g} sends/s, {args.sends} sends: wait for a slot")
    for row in rows:
        print(
            f"  {row['pacer']:<48} p50 {row['p50_ms']:>6} ms  p99 {row['p99_ms']:>6} ms  >50 ms {row['over_50ms']:.2%}"
        )
    if spread:
        print(
            f"  the production window over {spread['runs']} schedules of {spread['run_sends']} sends: median p99"
            f" {spread['median_p99_ms']} ms, p99 ≤ 50 ms in {spread['share_p99_within_50ms']:.0%} of them"
        )


if __name__ == "__main__":
    main()
