"""What the database keeps per 10,000 daily subscribers (issue #35 item 3, docs/deploy.md "Retention"):
the bytes of the ``deliveries`` table per day of rows, on SQLite and (with ``--pg``) PostgreSQL, so the
retention (``SIKPAN_KEEP_DELIVERIES``) can be chosen against a disk.

    .venv/bin/python bench/retention.py [--users 10000] [--days 7] [--pg postgresql://postgres@127.0.0.1:5432/test]

Each user subscribes once; each day's readings are claimed (one set-based ``claim_due``) and marked sent, as
the scheduler does. Printed: rows, bytes of the table with its indexes, bytes per row, bytes per day for the
users, and for the default retention.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # the checkout, not bench/bot.py, is ``bot``

from bot.config import KEEP_DELIVERIES_DAYS  # noqa: E402
from bot.storage import DailyStore, Storage  # noqa: E402
from tests.subscriptions import subscribe_due  # noqa: E402

START = datetime(2026, 1, 1, 7, 30, tzinfo=UTC)


async def fill(storage: Storage, users: int, days: int) -> int:
    daily = DailyStore(storage)
    await subscribe_due(daily, (str(i) for i in range(users)), START)
    rows = 0
    for day in range(days):
        now = START + timedelta(days=day)
        claimed, _ = await daily.claim_due(now, "bench", ["telegram"], timedelta(hours=2), limit=users)
        async with storage.transaction() as tx:
            await tx.executemany(
                "UPDATE deliveries SET status = 'sent', finished_at = ? WHERE id = ?",
                [(now.isoformat(), delivery_id) for delivery_id, _ in claimed],
            )
        rows += len(claimed)
    return rows


async def size(storage: Storage) -> int:
    if storage.dialect == "postgresql":
        row = await storage.fetchone("SELECT pg_total_relation_size('deliveries')")
        return int(row[0])
    rows = await storage.fetchall("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'deliveries%'")
    return int(rows[0][0])


async def measure(target: str, users: int, days: int) -> tuple[int, int]:
    storage = await Storage.open(target)
    try:
        rows = await fill(storage, users, days)
        if storage.dialect == "postgresql":
            await storage.execute("VACUUM ANALYZE deliveries")
        return rows, await size(storage)
    finally:
        await storage.close()


def report(name: str, rows: int, total: int, users: int) -> None:
    per_row = total / rows
    per_day = per_row * users
    print(
        f"{name:10} {rows:>9,} rows {total / 1e6:8.1f} MB  {per_row:6.0f} B/row"
        f"  {per_day / 1e6:6.2f} MB/day for {users:,} users"
        f"  {per_day * KEEP_DELIVERIES_DAYS / 1e6:6.1f} MB at {KEEP_DELIVERIES_DAYS} days"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--pg", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows, total = await measure(str(Path(tmp) / "bench.db"), args.users, args.days)
        report("sqlite", rows, total, args.users)
    if args.pg:
        schema = "bench_" + uuid.uuid4().hex[:12]
        sep = "&" if "?" in args.pg else "?"
        try:
            rows, total = await measure(f"{args.pg}{sep}schema={schema}", args.users, args.days)
            report("postgresql", rows, total, args.users)
        finally:
            import asyncpg

            con = await asyncpg.connect(args.pg)
            await con.execute(f'DROP SCHEMA "{schema}" CASCADE')
            await con.close()


if __name__ == "__main__":
    asyncio.run(main())
