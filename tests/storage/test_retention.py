"""Issue #35 item 3: finished delivery rows are pruned by age (``SIKPAN_KEEP_DELIVERIES``, default 35 days),
on both engines, without ever sending a pruned day again."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from bot.config import KEEP_DELIVERIES_DAYS, load_settings
from bot.storage import DailyStore
from tests.subscriptions import subscribe_due

START = datetime(2026, 1, 1, 7, 30, tzinfo=UTC)
GRACE = timedelta(hours=2)


async def deliver_days(daily: DailyStore, days: int) -> list[int]:
    """Claim and finish ``days`` consecutive days of two chats' readings; the last day's stay ``claimed``."""
    ids = []
    for day in range(days):
        now = START + timedelta(days=day)
        claimed, _ = await daily.claim_due(now, "s1", ["telegram"], GRACE)
        assert len(claimed) == 2, day
        for delivery_id, _sub in claimed:
            ids.append(delivery_id)
            if day < days - 1:
                await daily.mark(delivery_id, "sent" if day % 7 else "failed", now)
    return ids


async def test_finished_rows_past_the_retention_go_and_the_rest_stay(store):
    daily = DailyStore(store)
    await subscribe_due(daily, ["1", "2"], START)
    await deliver_days(daily, 50)
    now = START + timedelta(days=49)
    assert len(await daily.deliveries()) == 100
    before = now - timedelta(days=KEEP_DELIVERIES_DAYS)
    pruned = 0
    while (n := await daily.prune_deliveries(before, limit=7)) > 0:  # batches
        pruned += n
    kept = await daily.deliveries()
    # claimed before now − 35 days: days 0..13 (day 14 was claimed exactly 35 days ago) went, 14..49 stayed
    assert pruned == 2 * 14 and len(kept) == 2 * 36
    assert min(d.local_date for d in kept).isoformat() == "2026-01-15"
    # a row still claimed stays whatever its age (recovery's), and each subscription's last row stays
    assert {d.status for d in kept if d.local_date.isoformat() == "2026-02-19"} == {"claimed"}
    assert await daily.prune_deliveries(now + timedelta(days=400)) == 2 * 35  # all but each last row
    last = await daily.deliveries()
    assert len(last) == 2 and {d.status for d in last} == {"claimed"}
    # the next day is claimed once, the pruned ones never again
    claimed, _ = await daily.claim_due(START + timedelta(days=50), "s1", ["telegram"], GRACE)
    assert len(claimed) == 2
    assert {d.local_date.isoformat() for d in await daily.deliveries()} == {"2026-02-19", "2026-02-20"}


def test_the_retention_is_configurable_and_checked():
    assert load_settings({}, env_file="/nonexistent").keep_deliveries_days == KEEP_DELIVERIES_DAYS == 35
    assert load_settings({"SIKPAN_KEEP_DELIVERIES": "0"}, env_file="/nonexistent").keep_deliveries_days == 0
    try:
        load_settings({"SIKPAN_KEEP_DELIVERIES": "a month"}, env_file="/nonexistent")
    except ValueError as err:
        assert "SIKPAN_KEEP_DELIVERIES" in str(err)
    else:
        raise AssertionError("a wrong value was taken")


async def test_the_scheduler_prunes_at_most_once_an_hour(tmp_path):
    from bot.config import Settings
    from bot.context import create_context
    from bot.scheduler import DailyScheduler

    ctx = await create_context(Settings(db_path=str(tmp_path / "bot.db"), keep_deliveries_days=10))
    try:
        daily = DailyStore(ctx.storage)
        await subscribe_due(daily, ["1", "2"], START)
        await deliver_days(daily, 20)
        scheduler = DailyScheduler(ctx, transports={})
        now = START + timedelta(days=19)
        assert await scheduler.prune(now) == 2 * 9  # days 0..8
        await ctx.storage.execute("UPDATE deliveries SET claimed_at = '2000-01-01T00:00:00Z'")
        assert await scheduler.prune(now + timedelta(minutes=59)) == 0  # not again within the hour
        kept = dataclasses.replace(ctx.settings, keep_deliveries_days=0)
        ctx.settings, settings = kept, ctx.settings
        assert await DailyScheduler(ctx, transports={}).prune(now + timedelta(days=1000)) == 0  # 0: forever
        ctx.settings = settings
        assert await scheduler.prune(now + timedelta(hours=1)) == 2 * 10  # all but each last row
    finally:
        await ctx.close()
