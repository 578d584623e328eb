"""Issue #35: the scheduler logs one INFO line per pass that claimed or skipped something, and nothing on the
passes that found nothing; a reading skipped past its grace window is counted in
``sikpan_dropped_total{what="reading_skipped"}``."""

from __future__ import annotations

import logging

from bot import metrics
from tests.daily.conftest import FakeTransport, move, running_scheduler, utc


def info_lines(caplog) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.getMessage() for r in caplog.records if r.name == "bot.scheduler" and r.levelno == logging.INFO]


async def test_one_info_line_per_pass_that_claimed(ctx, clock, say, caplog):
    await say("/daily 07:00")  # 07:00 KST = 22:00 UTC
    await say("/daily 07:00", user="u2")
    tr = FakeTransport()
    with caplog.at_level(logging.INFO, logger="bot.scheduler"):
        async with running_scheduler(ctx, transports={"telegram": tr}) as s:
            for minute in (55, 56, 57):  # idle passes
                await move(clock, s, utc(2026, 11, 29, 21, minute))
            assert info_lines(caplog) == []
            await move(clock, s, utc(2026, 11, 29, 22, 0))
            assert len(tr.sent) == 2
            await move(clock, s, utc(2026, 11, 29, 22, 1))  # idle again
    [line] = info_lines(caplog)
    assert line.startswith("daily: claimed 2 (telegram), skipped 0, queued 0")
    assert line.endswith("next due 2026-11-30T22:00:00+00:00")


async def test_a_skipped_reading_is_counted_as_dropped(ctx, clock, say, caplog):
    registry = metrics.enable()

    def skipped() -> float:
        return registry.get_sample_value("sikpan_dropped_total", {"what": "reading_skipped"}) or 0.0

    before = skipped()
    await say("/daily 07:00")
    clock.set(utc(2026, 11, 30, 0, 30))  # 2 h 30 min after 07:00 KST: past the 2 h grace
    with caplog.at_level(logging.INFO, logger="bot.scheduler"):
        async with running_scheduler(ctx, transports={"telegram": FakeTransport()}):
            pass
    assert skipped() - before == 1
    [line] = info_lines(caplog)
    assert line.startswith("daily: claimed 0 (telegram), skipped 1")
