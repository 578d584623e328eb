"""Long run of the fault-and-abuse suite: many more fuzzed commands and kill -9 cycles than CI runs.

Run: ``.venv/bin/python bench/fuzz_long.py [--examples 100000] [--seed 1] [--kills 100] [--readings 600]``.

1. Fuzz (``tests/reliability/fuzz_core.py``): ``--examples`` generated command lines (hypothesis, seeded)
   through ``bot.commands.dispatch`` and the three renderers; prints the number of examples, of violations
   (internal errors, invalid Telegram HTML, over-long parts, live mentions, control/bidi characters,
   private data answered in a group) and the spread of answers.
2. Crashes (``tests/reliability/crash_harness.py``): ``--kills`` cycles of ``sikpan run`` as a subprocess
   against the fake Bot API, each killed with SIGKILL while it sends daily readings and answers casts, then
   one clean run; prints the delivery statuses, the most messages any chat received (at most once: 1), the
   uncertain readings that had never reached the server, and the acknowledged casts lost.
Nothing leaves 127.0.0.1. The figures of the last run are in docs/reliability.md.
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
import random  # noqa: E402
import signal  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from tests.fakes.telegram import FakeTelegram  # noqa: E402
from tests.reliability.crash_harness import TOKEN, audit, cycle, settle_run, subscribe  # noqa: E402
from tests.reliability.fuzz_core import fuzz  # noqa: E402


async def crashes(kills: int, readings: int, seed: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        db, log = f"{tmp}/crash.db", Path(tmp) / "stderr.log"
        async with FakeTelegram(token=TOKEN) as tg:
            await subscribe(db, readings)
            rng = random.Random(seed)
            ran = 0
            for _ in range(kills):
                ran += await cycle(tg, db, log, rng, signal.SIGKILL)
            during = audit(tg, db, readings, ran)
            await settle_run(tg, db, log, readings, timeout=max(60.0, readings / 20))
            final = audit(tg, db, readings, ran)
    return {
        "kill -9 cycles": ran,
        "readings": readings,
        "statuses after the kills": dict(during.statuses),
        "statuses at the end": dict(final.statuses),
        "most messages to one chat": max(final.received.values(), default=0),
        "uncertain, never reached the server": final.uncertain_never_requested,
        "casts acknowledged": final.acknowledged_casts,
        "acknowledged casts lost": final.lost_casts,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--readings", type=int, default=600)
    args = parser.parse_args()
    began = time.monotonic()
    tally = fuzz(args.examples, args.seed)
    print(
        f"fuzz: {tally.examples} examples in {time.monotonic() - began:.0f}s, {len(tally.violations)} violations"
    )
    for violation in tally.violations[:20]:
        print("  ", violation)
    answers = sum(n for view, n in tally.views.items() if "error" not in view)
    print(f"  answers {answers}, errors {tally.examples - answers}; top: {tally.views.most_common(8)}")
    if args.kills:
        began = time.monotonic()
        figures = asyncio.run(crashes(args.kills, args.readings, args.seed))
        print(f"crashes ({time.monotonic() - began:.0f}s):")
        for key, value in figures.items():
            print(f"  {key}: {value}")
    return 1 if tally.violations else 0


if __name__ == "__main__":
    sys.exit(main())
