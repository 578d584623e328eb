"""The set-based claim (``DailyStore.claim_due``, issue 18) on SQLite and PostgreSQL: rows grouped by their
schedule, one ``INSERT … SELECT … RETURNING`` per (date, due), one ``UPDATE`` per next due, ids in chunks.
Checked row by row against the schedule rules of ``bot.schedule_time`` applied to each subscription alone:
every due row claimed once (or skipped once when past the grace window), none twice, none left out, a day
that has a delivery row already never claimed again, and every row's ``next_due_at`` advanced as its own
schedule says — across zones with whole, half and 45-minute offsets, days missed while nothing ran, and
batches and chunks smaller than the groups."""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest

import bot.storage
from bot.schedule_time import due_after, latest_due
from bot.storage import DailyStore, Storage, Subscription, utc_iso
from bot.storage.sqlite import SqliteBackend
from bot.zones import zone

ZONES = ("Asia/Seoul", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "UTC", "Pacific/Auckland")
WRITTEN = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)  # a day after the subscriptions were written
GRACE = timedelta(hours=2)


def expected(sub: Subscription, now: datetime) -> tuple[str, str, datetime, datetime]:
    """(local date, status, due claimed for, next due) of one subscription claimed alone at ``now``."""
    d, due = sub.next_local_date, sub.next_due_at
    assert d is not None and due is not None
    latest_d, latest = latest_due(sub.at_time, zone(sub.tz), now)
    if latest > due and latest_d > d:
        d, due = latest_d, latest
    nd, ndue = due_after(sub.at_time, zone(sub.tz), d, due, now)
    return d.isoformat(), "skipped" if now - due > GRACE else "claimed", due, ndue


async def _subscribe(daily: DailyStore, n: int, rng: random.Random) -> list[Subscription]:
    subs = []
    for i in range(n):
        # a few wall times only, so that many rows share a group (and groups exceed the chunk)
        at = time(rng.choice((0, 7, 9, 10, 11, 23)), rng.choice((0, 30)))
        written = WRITTEN - timedelta(days=3) if i % 9 == 0 else WRITTEN  # 1 in 9: days missed since
        subs.append(
            await daily.subscribe(
                platform="telegram",
                chat_id=str(100 + i),
                chat_kind="private",
                user_key=f"telegram:{100 + i}",
                at_time=at,
                tz=ZONES[i % len(ZONES)],
                lang="ko",
                kind=None,
                options={},
                now=written,
            )
        )
    return subs


async def test_batched_claims_match_each_row_claimed_alone(store: Storage, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(bot.storage, "CLAIM_CHUNK", 4)  # several statements per group
    daily = DailyStore(store)
    subs = await _subscribe(daily, 240, random.Random(18))
    due_now = {s.id: s for s in subs if s.next_due_at is not None and s.next_due_at <= NOW}
    assert len(due_now) > 100
    # a day that has its delivery row already (sent by another scheduler) is not claimed again
    taken = sorted(due_now)[::10]
    for sid in taken:
        sub = due_now[sid]
        d, _, due, _ = expected(sub, NOW)
        await store.execute(
            "INSERT INTO deliveries (subscription_id, user_key, local_date, due_at, status, claimed_at)"
            " VALUES (?, ?, ?, ?, 'sent', ?)",
            (sid, sub.user_key, d, utc_iso(due), utc_iso(NOW)),
        )
    claimed: list[tuple[int, Subscription]] = []
    skipped: list[Subscription] = []
    while True:  # batches smaller than a group
        c, s = await daily.claim_due(NOW, "me", ["telegram"], GRACE, limit=23)
        claimed += c
        skipped += s
        if not c and not s:
            row = await store.fetchone(
                "SELECT COUNT(*) FROM subscriptions WHERE active = 1 AND next_due_at <= ?", (utc_iso(NOW),)
            )
            if int(row[0]) == 0:
                break
    want = {sid: expected(sub, NOW) for sid, sub in due_now.items()}
    got_claimed = Counter(sub.id for _, sub in claimed)
    got_skipped = Counter(sub.id for sub in skipped)
    assert max(got_claimed.values()) == 1 and (not got_skipped or max(got_skipped.values()) == 1)
    assert set(got_claimed) == {sid for sid, w in want.items() if w[1] == "claimed" and sid not in taken}
    assert set(got_skipped) == {sid for sid, w in want.items() if w[1] == "skipped" and sid not in taken}
    assert got_claimed and got_skipped  # both paths ran
    assert any(sid % 9 == 0 for sid in got_claimed) or any(sid % 9 == 0 for sid in got_skipped)
    # what each claimed subscription carries, and each delivery row
    for delivery_id, sub in claimed:
        d, _, due, _ = want[sub.id]
        assert (sub.next_local_date.isoformat(), sub.next_due_at) == (d, due)
        row = await store.fetchone(
            "SELECT subscription_id, local_date, status, claimed_by FROM deliveries WHERE id = ?",
            (delivery_id,),
        )
        assert (int(row[0]), row[1], row[2], row[3]) == (sub.id, d, "claimed", "me")
    rows = await store.fetchall("SELECT subscription_id, local_date, status FROM deliveries")
    assert Counter((int(r[0]), r[1]) for r in rows).most_common(1)[0][1] == 1  # one row per day
    assert {int(r[0]): r[2] for r in rows} == {
        sid: ("sent" if sid in taken else want[sid][1]) for sid in due_now
    }
    # every row advanced by its own schedule (the ones whose day was taken too), the others untouched
    for sub in subs:
        after = await daily.get(sub.id)
        assert after is not None
        if sub.id in due_now:
            assert after.next_due_at == want[sub.id][3], (sub.tz, sub.at_time)
            assert after.next_due_at > NOW
        else:
            assert after.next_due_at == sub.next_due_at


async def test_a_claim_waits_for_no_sync_and_the_next_durable_write_covers_it(tmp_path, monkeypatch):
    """The claim commits without waiting for the disk (``durable=False``: ``synchronous=NORMAL`` for its
    transaction only, bot/storage/sqlite.py); the next durable write (``synchronous=FULL``) syncs the
    write-ahead log, which covers every commit before it, the claim's included; a failed non-durable
    transaction rolls back and leaves the connection usable, and durable again."""
    store = await Storage.open(tmp_path / "durable.db")
    backend = store.backend
    assert isinstance(backend, SqliteBackend)
    modes: list[tuple[bool, int]] = []  # (durable asked, PRAGMA synchronous inside the transaction)
    real = backend.transaction

    @asynccontextmanager
    async def spy(durable: bool = True) -> AsyncIterator[Any]:
        async with real(durable) as tx:
            modes.append((durable, (await tx.fetchone("PRAGMA synchronous"))[0]))
            yield tx

    monkeypatch.setattr(backend, "transaction", spy)
    try:
        daily = DailyStore(store)
        await _subscribe(daily, 5, random.Random(1))
        modes.clear()
        claimed = await daily.claim_due(NOW, "me", ["telegram"], GRACE)
        assert claimed
        assert modes == [(False, 1)]  # the claim did not wait for the disk
        other = sqlite3.connect(tmp_path / "durable.db")
        try:  # … yet it is committed: another process sees it
            seen = other.execute("SELECT id, status FROM deliveries ORDER BY id").fetchall()
            assert seen and seen == [
                tuple(r) for r in await store.fetchall("SELECT id, status FROM deliveries ORDER BY id")
            ]
        finally:
            other.close()
        with pytest.raises(RuntimeError):
            async with store.transaction(durable=False) as tx:
                await tx.execute("UPDATE subscriptions SET active = 0")
                raise RuntimeError("rolled back")
        async with store.transaction() as tx:  # durable: SQLite syncs the log at its COMMIT
            await tx.execute("UPDATE subscriptions SET active = active WHERE id = -1")
        assert modes[1:] == [(False, 1), (True, 2)]
        assert (await store.fetchone("SELECT COUNT(*) FROM subscriptions WHERE active = 0"))[0] == 0
    finally:
        await store.close()
