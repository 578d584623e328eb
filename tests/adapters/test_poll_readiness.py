"""Issue #35 item 4: a hung poller is not healthy. While PTB's ``Updater`` polls, each ``getUpdates`` that ends
marks the loop as turning (``ctx.loops``); ``/readyz``'s checks fail once none has ended for the long-poll
timeout plus ``POLL_STUCK_AFTER`` — so the default service's health check (``python -m bot.healthcheck``,
``/readyz``) catches a process that is alive but deaf."""

from __future__ import annotations

import asyncio

import bot.telegram as tgmod
from bot.monitor import process_health
from tests.adapters.conftest import running, tg_settings


async def test_readiness_fails_once_the_long_poll_stops_turning(tg, tmp_path, monkeypatch):
    # a 10 s long poll (the fake holds 1 s at most) + (-8.5) s: stuck after 1.5 s without a getUpdates ending
    monkeypatch.setattr(tgmod, "POLL_STUCK_AFTER", -8.5)
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        health = process_health(run.ctx, "all")
        assert tgmod.POLLING_LOOP in run.ctx.loops
        for _ in range(3):  # polling: ready, again and again
            healthy, report = await health.report(ready=True)
            assert healthy and report[tgmod.POLLING_LOOP] == "ok", report
            await asyncio.sleep(0.7)
        # the poller stops turning (PTB's updater ends, as after an error it does not survive): deaf
        await run.ctx.telegram_application.updater.stop()
        for _ in range(50):
            healthy, report = await health.report(ready=True)
            if not healthy:
                break
            await asyncio.sleep(0.1)
        assert not healthy and report[tgmod.POLLING_LOOP].startswith("down"), report
        assert report["database"] == "ok"  # the rest of the process is fine: only the poller is stuck
