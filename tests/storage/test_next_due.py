"""``next_due_at`` in the database (issue #17, migration 0006), on SQLite and PostgreSQL: computed when a
subscription is written, back-filled for rows of before the migration, advanced by the claiming transaction;
found by an indexed query, so a subscription written by one process is delivered by another.

Expected instants worked by hand: Korea is UTC+9 all year; 07:00 KST = 22:00 UTC the day before."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from bot.storage import DailyStore, Storage, load_migrations

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


async def _subscribe(daily: DailyStore, chat: str, at: time, tz: str, now: datetime):
    return await daily.subscribe(
        platform="telegram",
        chat_id=chat,
        chat_kind="private",
        user_key=f"telegram:{chat}",
        at_time=at,
        tz=tz,
        lang="ko",
        kind=None,
        options={},
        now=now,
    )


async def test_migration_0006_back_fills_existing_subscriptions(target: str):
    store = await Storage.open(target, migrate=False)
    try:
        migrations = load_migrations(dialect=store.dialect)
        await store.migrate([m for m in migrations if m.version < 6])
        for chat, at in (("early", "07:00"), ("late", "23:30")):
            await store.execute(
                "INSERT INTO subscriptions (platform, chat_id, chat_kind, user_key, at_time, tz, lang, kind,"
                " options, active, since, created_at, updated_at) VALUES ('telegram', ?, 'private', ?, ?,"
                " 'Asia/Seoul', 'ko', 'liuren', '{}', 1, '2020-01-01T00:00:00+00:00', '2020-01-01T00:00:00+00:00',"
                " '2020-01-01T00:00:00+00:00')",
                (chat, f"telegram:{chat}", at),
            )
        assert 6 in await store.migrate()  # Storage.migrate fills what the SQL cannot compute
        daily = DailyStore(store)
        now = datetime.now(UTC)
        for chat, hour, minute in (("early", 7, 0), ("late", 23, 30)):
            sub = await daily.for_chat("telegram", chat)
            assert sub is not None and sub.next_due_at is not None and sub.next_local_date is not None
            local = sub.next_due_at.astimezone(sub.zone)
            assert (local.hour, local.minute) == (hour, minute) and local.date() == sub.next_local_date
            # the latest due at or before now (within a day), or the next one: never further than a day
            assert abs(sub.next_due_at - now) <= timedelta(days=1)
    finally:
        await store.close()


async def test_written_claimed_and_advanced_by_the_database(store: Storage):
    daily = DailyStore(store)
    sub = await _subscribe(daily, "s1", time(7, 0), "Asia/Seoul", utc(2026, 11, 29, 21, 0))
    assert (sub.next_local_date.isoformat(), sub.next_due_at) == ("2026-11-30", utc(2026, 11, 29, 22, 0))
    assert await daily.earliest_due(["telegram"]) == utc(2026, 11, 29, 22, 0)
    assert await daily.earliest_due(["discord"]) is None
    # not due yet: nothing claimed
    assert await daily.claim_due(utc(2026, 11, 29, 21, 59), "me", ["telegram"], timedelta(hours=2)) == (
        [],
        [],
    )
    claimed, skipped = await daily.claim_due(utc(2026, 11, 29, 22, 0), "me", ["telegram"], timedelta(hours=2))
    assert skipped == [] and [s.next_due_at for _, s in claimed] == [utc(2026, 11, 29, 22, 0)]
    after = await daily.for_chat("telegram", "s1")
    assert after.next_due_at == utc(2026, 11, 30, 22, 0)  # advanced in the same transaction
    assert await daily.claim_due(utc(2026, 11, 29, 23, 0), "other", ["telegram"], timedelta(hours=2)) == (
        [],
        [],
    )
    # re-subscribing the same day after the delivery starts tomorrow (a day with a row is done)
    again = await _subscribe(daily, "s1", time(8, 0), "Asia/Seoul", utc(2026, 11, 29, 22, 30))
    assert again.next_due_at == utc(2026, 11, 30, 23, 0)


async def test_days_missed_while_nothing_ran_collapse_into_the_latest(store: Storage):
    daily = DailyStore(store)
    await _subscribe(daily, "s2", time(7, 0), "Asia/Seoul", utc(2026, 11, 29, 21, 0))
    # three days later, 07:30 KST: only today's reading counts (within the 2 h grace), once
    claimed, skipped = await daily.claim_due(utc(2026, 12, 2, 22, 30), "me", ["telegram"], timedelta(hours=2))
    assert skipped == [] and [(s.next_local_date.isoformat()) for _, s in claimed] == ["2026-12-03"]
    rows = await daily.deliveries()
    assert [(r.local_date.isoformat(), r.status) for r in rows] == [("2026-12-03", "claimed")]


async def test_new_york_dst_gap_is_kept_in_the_stored_due(store: Storage):
    daily = DailyStore(store)
    # 02:30 does not exist on 8 March 2026 in New York: due at 03:30 EDT = 07:30 UTC (bot.schedule_time)
    sub = await _subscribe(daily, "ny", time(2, 30), "America/New_York", utc(2026, 3, 8, 5, 0))
    assert sub.next_due_at == utc(2026, 3, 8, 7, 30)
    await daily.claim_due(utc(2026, 3, 8, 7, 30), "me", ["telegram"], timedelta(hours=2))
    assert (await daily.for_chat("telegram", "ny")).next_due_at == utc(2026, 3, 9, 6, 30)  # 02:30 EDT


async def test_a_subscription_written_by_one_process_is_delivered_by_another(target: str, tmp_path):
    """Process B (a scheduler, scheduler_proc.py) runs; then this process (A) writes a subscription: B finds
    it by ``next_due_at`` — no notify reaches B, and nothing polls ``updated_at``."""
    out = tmp_path / "sent.txt"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HERE / "scheduler_proc.py"),
        target,
        str(out),
        "60",
        cwd=ROOT,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await asyncio.sleep(1.5)  # B has started and sleeps: nothing of its platforms is due
        now = datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=1)
        storage = await Storage.open(target)
        try:
            await _subscribe(
                DailyStore(storage), "4242", time(now.hour, now.minute), "UTC", now - timedelta(days=1)
            )
        finally:
            await storage.close()
        for _ in range(300):
            if out.exists() and out.read_text():
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # a second send would show meanwhile
    finally:
        proc.terminate()
        _, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    lines = out.read_text().split("\n") if out.exists() else []
    assert Counter(line.split()[1] for line in lines if line) == Counter({"4242": 1})
    assert {line.split()[0] for line in lines if line} == {str(proc.pid)}  # sent by B, not by A
