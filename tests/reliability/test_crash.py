"""kill -9 and SIGTERM during deliveries and writes: ``sikpan run`` as a subprocess, the fake Bot API here.

#12.4 a crash or a stop never turns a reading that was never tried into ``uncertain``: the row is marked
``sending`` only immediately before its request (after pacing), so a reading queued behind the pacer stays
``claimed`` and is sent after the restart. At most once: no chat ever receives its reading twice.
Durability: every cast whose reply reached the user is in the history after any number of kills.
"""

from __future__ import annotations

import random
import signal

import pytest

from tests.fakes.telegram import FakeTelegram
from tests.reliability.crash_harness import TOKEN, audit, cycle, settle_run, subscribe

KILLS = 20
READINGS = 300


@pytest.fixture
async def tg():
    async with FakeTelegram(token=TOKEN) as fake:
        yield fake


async def test_kill_9_cycles_never_send_twice_never_lose_a_cast_and_strand_nothing(tg, tmp_path):
    db, log = str(tmp_path / "crash.db"), tmp_path / "stderr.log"
    await subscribe(db, READINGS)
    rng = random.Random(12)
    ran = 0
    for _ in range(KILLS):
        ran += await cycle(tg, db, log, rng, signal.SIGKILL)
    assert ran == KILLS, log.read_text()[-2000:]
    during = audit(tg, db, READINGS, ran)
    await settle_run(tg, db, log, READINGS)
    final = audit(tg, db, READINGS, ran)
    assert final.lost_casts == 0 and final.acknowledged_casts >= KILLS // 2, final
    assert max(final.received.values()) == 1, final.received.most_common(3)  # at most once, per chat
    assert sum(final.statuses.values()) == READINGS and final.claimed == 0, final.statuses
    assert final.statuses["sent"] + final.statuses["uncertain"] == READINGS, final.statuses
    # A kill lands between the ``sending`` commit and the request reaching the server at most once per
    # kill (the overall pacer lets one request through at a time); before the fix every queued row was
    # ``sending`` at once and nearly all uncertain rows had never been tried (915 of 924 in the issue).
    assert during.uncertain_never_requested <= ran, during
    assert final.uncertain_never_requested <= ran, final
    assert final.statuses["uncertain"] <= 2 * ran, final.statuses


async def test_sigterm_during_a_delivery_run_leaves_no_reading_unsent_that_was_never_tried(tg, tmp_path):
    db, log = str(tmp_path / "term.db"), tmp_path / "stderr.log"
    await subscribe(db, READINGS)
    rng = random.Random(7)
    for _ in range(2):
        assert await cycle(tg, db, log, rng, signal.SIGTERM, casts=1), log.read_text()[-2000:]
        after_stop = audit(tg, db, READINGS, 1)
        assert after_stop.uncertain_never_requested == 0, after_stop
        assert after_stop.statuses["claimed"] > 0  # queued readings wait, untried, for the next start
    await settle_run(tg, db, log, READINGS)
    final = audit(tg, db, READINGS, 2)
    assert final.uncertain_never_requested == 0 and final.claimed == 0, final
    assert set(final.statuses) <= {"sent", "uncertain"} and sum(final.statuses.values()) == READINGS
    assert max(final.received.values()) == 1
    assert len(final.received) >= final.statuses["sent"]  # every "sent" reading is there, once
