"""The storage contract on SQLite and on PostgreSQL (issue #17): migrations, users, history numbers from a
per-user counter, pruning, /forget — and 8 concurrent writer processes × 500 casts of one user."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

import pytest

from bot.storage import Storage, load_migrations
from bot.storage.postgres import to_dollar
from bot.storage.urls import split_url

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
USER = "telegram:42"
# the history's columns as 0001 made them (a later migration may add some)
HISTORY_0001 = "id, user_key, seq, kind, command, inputs, options, view, context, created_at"


async def _cast(store: Storage, user: str = USER, n: int = 1) -> list[int]:
    return [
        await store.add_history(
            user, kind="cast", command="/cast", inputs={}, options={}, view="cast", context={}
        )
        for _ in range(n)
    ]


def test_each_dialect_takes_its_variant_where_the_sql_differs():
    lite = {m.version: m.name for m in load_migrations(dialect="sqlite")}
    pg = {m.version: m.name for m in load_migrations(dialect="postgresql")}
    assert lite.keys() == pg.keys()  # one history for both engines
    assert lite[1] == "0001_core.sql" and pg[1] == "0001_core.postgresql.sql"
    assert lite[2] == "0002_daily.sql" and pg[2] == "0002_daily.postgresql.sql"
    assert lite[4] == pg[4] == "0004_history_counters.sql"  # shared SQL: one file
    with pytest.raises(ValueError):
        load_migrations(dialect="mysql")


def test_placeholders_become_numbered_outside_quotes():
    assert to_dollar("SELECT ? , '?' , \"a?\" WHERE x = ?") == "SELECT $1 , '?' , \"a?\" WHERE x = $2"


def test_the_schema_parameter_is_ours_and_checked():
    dsn, schema, pool = split_url("postgresql://u@h:5432/db?schema=t_1&pool=3&sslmode=disable")
    assert (dsn, schema, pool) == ("postgresql://u@h:5432/db?sslmode=disable", "t_1", 3)
    with pytest.raises(ValueError):
        split_url("postgresql://u@h/db?schema=x;drop")


async def test_migrations_are_applied_once(store: Storage):
    latest = max(m.version for m in load_migrations(dialect=store.dialect))
    assert await store.schema_version() == latest
    assert await store.migrate() == []
    rows = await store.fetchall("SELECT version FROM schema_version ORDER BY version")
    assert [int(r[0]) for r in rows] == [m.version for m in load_migrations(dialect=store.dialect)]
    # 0006 (next_due_at, the daily planner) and 0007 (the webhook ledger) both applied on a fresh database
    assert {6, 7} <= {int(r[0]) for r in rows}
    await store.fetchall("SELECT next_due_at, next_local_date FROM subscriptions")
    await store.fetchall("SELECT * FROM webhook_updates")


async def test_users_round_trip(store: Storage):
    first = await store.touch_user(USER, "telegram", "42", "Ann")
    assert (first.display_name, first.options, first.birth) == ("Ann", {}, None)
    again = await store.touch_user(USER, "telegram", "42", None)  # None keeps the name
    assert again.display_name == "Ann"
    changed = await store.update_user(
        USER, lang="ko", tz="Asia/Seoul", longitude=126.98, latitude=37.57, options={"b": 1, "a": [2]}
    )
    assert (changed.lang, changed.longitude, changed.latitude) == ("ko", 126.98, 37.57)
    assert list(changed.options) == ["b", "a"]  # key order is display order
    cleared = await store.update_user(USER, longitude=None, place_name={"name": "Seoul"})
    assert cleared.longitude is None and cleared.place_name == {"name": "Seoul"}
    assert await store.get_user(USER) == cleared
    with pytest.raises(KeyError):
        await store.update_user("telegram:nobody", lang="ko")


async def test_history_numbers_are_per_user_and_never_reused(store: Storage):
    assert await _cast(store, n=3) == [1, 2, 3]
    assert await _cast(store, "telegram:7") == [1]
    entry = await store.get_history(USER, 2)
    assert entry is not None and (entry.seq, entry.context, entry.engine, entry.summary) == (
        2,
        {},
        None,
        None,
    )
    assert await store.prune_history(USER, keep=1) == 2
    assert [e.seq for e in await store.list_history(USER)] == [3]
    assert await _cast(store) == [4]  # pruning keeps the counter
    assert [e.seq for e in await store.list_history(USER, before=4)] == [3]


async def test_forget_removes_the_counter_too(store: Storage):
    await store.touch_user(USER, "telegram", "42")
    await _cast(store, n=2)
    await _cast(store, "telegram:7")
    assert "history_counters" in await store.user_tables()
    deleted = await store.forget(USER)
    assert deleted["history"] == 2 and deleted["history_counters"] == 1 and deleted["users"] == 1
    assert await store.count_history(USER) == 0 and await store.get_user(USER) is None
    assert await _cast(store) == [1]  # a forgotten user starts again from 1
    assert await _cast(store, "telegram:7") == [2]  # the other user is untouched


async def test_the_counter_migration_continues_existing_history(target: str):
    """A database from before 0004: its users' next numbers follow their highest one."""
    store = await Storage.open(target, migrate=False)
    try:
        migrations = load_migrations(dialect=store.dialect)
        await store.migrate([m for m in migrations if m.version < 4])
        for seq in (1, 2, 5):
            await store.execute(
                "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at)"
                " VALUES (?, ?, 'cast', '/cast', '{}', '{}', 'cast', '{}', '2026-01-01T00:00:00+00:00')",
                (USER, seq),
            )
        assert await store.migrate() == [m.version for m in migrations if m.version >= 4]
        assert await _cast(store) == [6]
    finally:
        await store.close()


async def _cast_as_at_0008(store: Storage, user: str) -> int:
    """A cast recorded as ``add_history`` did up to migration 0008: the counter's upsert, then the row."""
    async with store.transaction() as tx:
        row = await tx.fetchone(
            "INSERT INTO history_counters (user_key, last_seq) VALUES (?, 1)"
            " ON CONFLICT(user_key) DO UPDATE SET last_seq = history_counters.last_seq + 1 RETURNING last_seq",
            (user,),
        )
        assert row is not None
        await tx.execute(
            "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at)"
            " VALUES (?, ?, 'cast', '/cast', '{}', '{}', 'cast', ?, '2026-01-01T00:00:00+00:00')",
            (user, int(row[0]), f'{{"n":{int(row[0])}}}'),
        )
    return int(row[0])


async def test_the_one_statement_migration_keeps_every_row_and_number(target: str):
    """A database made at 0008 (casts recorded the 0008 way, one user pruned) upgraded by 0009: every history
    row and counter is kept as it was, and each user's next cast follows the counter, also once pruning left
    no row of the user: no number comes back."""
    store = await Storage.open(target, migrate=False)
    try:
        migrations = load_migrations(dialect=store.dialect)
        await store.migrate([m for m in migrations if m.version <= 8])
        assert [await _cast_as_at_0008(store, USER) for _ in range(5)] == [1, 2, 3, 4, 5]
        assert [await _cast_as_at_0008(store, "telegram:7") for _ in range(3)] == [1, 2, 3]
        assert await store.prune_history(USER, keep=2) == 3  # rows 4, 5 left; the counter stays at 5

        async def snapshot() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
            rows = await store.fetchall(f"SELECT {HISTORY_0001} FROM history ORDER BY user_key, seq")
            counters = await store.fetchall("SELECT * FROM history_counters ORDER BY user_key")
            return [tuple(r) for r in rows], [tuple(r) for r in counters]

        before = await snapshot()
        assert sorted((r[1], r[2]) for r in before[0]) == [  # (user_key, seq)
            (USER, 4),
            (USER, 5),
            *(("telegram:7", n) for n in (1, 2, 3)),
        ]
        assert before[1] == [(USER, 5), ("telegram:7", 3)]
        assert await store.migrate() == [m.version for m in migrations if m.version >= 9]
        assert await snapshot() == before
        assert await _cast(store) == [6]
        # no row of the user left: the counter still says 6
        assert await store.prune_history(USER, keep=0) == 3
        assert await _cast(store, n=2) == [7, 8]
        assert await _cast(store, "telegram:7") == [4]
        assert await _cast(store, "telegram:new") == [1]
        counters = await store.fetchall("SELECT user_key, last_seq FROM history_counters ORDER BY user_key")
        assert [tuple(c) for c in counters] == [(USER, 8), ("telegram:7", 4), ("telegram:new", 1)]
        entry = await store.get_history(USER, 8)
        assert entry is not None and (entry.kind, entry.context) == ("cast", {})
    finally:
        await store.close()


# ``Backend.insert_history`` from 0009 to 0010, before the ``kept`` column: how a cast was recorded then
INSERT_HISTORY_0010 = {
    "sqlite": "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at)"
    " VALUES (?1, COALESCE((SELECT last_seq FROM history_counters WHERE user_key = ?1), 0) + 1,"
    " ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING seq",
    "postgresql": "WITH counter AS (INSERT INTO history_counters (user_key, last_seq) VALUES (?, 1)"
    " ON CONFLICT (user_key) DO UPDATE SET last_seq = history_counters.last_seq + 1"
    " RETURNING user_key, last_seq)"
    " INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at)"
    " SELECT counter.user_key, counter.last_seq, ?, ?, ?, ?, ?, ?, ? FROM counter RETURNING seq",
}


async def _cast_as_at_0010(store: Storage, user: str = USER, n: int = 1, context: str = "{}") -> list[int]:
    """Casts recorded as ``add_history`` did at 0009 and 0010 (one statement, the whole context inline)."""
    got = []
    for _ in range(n):
        row = await store.fetchone(
            INSERT_HISTORY_0010[store.dialect],
            (user, "cast", "/cast", "{}", "{}", "cast", context, "2026-01-01T00:00:00+00:00"),
        )
        assert row is not None
        got.append(int(row[0]))
    return got


async def _history_indexes(store: Storage) -> list[tuple[str, str]]:
    """(name, definition) of every index on the history table (the engine's catalogue)."""
    if store.dialect == "sqlite":
        rows = await store.fetchall(
            "SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'index' AND tbl_name = 'history'"
            " ORDER BY name"
        )
    else:
        rows = await store.fetchall(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
            " AND tablename = 'history' ORDER BY indexname"
        )
    return [(str(r[0]), str(r[1])) for r in rows]


async def test_the_one_index_migration_keeps_every_row_number_and_uniqueness(target: str):
    """A database at 0009 (casts recorded, one user pruned) upgraded by 0010: the second index on (user_key,
    seq) goes, every row and counter stays as it was, numbers go on from the counters, and a number still
    cannot be stored twice for one user (the unique index is left)."""
    import asyncpg

    store = await Storage.open(target, migrate=False)
    try:
        migrations = load_migrations(dialect=store.dialect)
        await store.migrate([m for m in migrations if m.version <= 9])
        assert await _cast_as_at_0010(store, n=4) == [1, 2, 3, 4]
        assert await _cast_as_at_0010(store, "telegram:7", n=2) == [1, 2]
        assert await store.prune_history(USER, keep=1) == 3
        indexes_before = await _history_indexes(store)
        assert "history_user" in {name for name, _ in indexes_before}

        async def snapshot() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
            rows = await store.fetchall(f"SELECT {HISTORY_0001} FROM history ORDER BY user_key, seq")
            counters = await store.fetchall("SELECT * FROM history_counters ORDER BY user_key")
            return [tuple(r) for r in rows], [tuple(r) for r in counters]

        before = await snapshot()
        assert await store.migrate() == [m.version for m in migrations if m.version >= 10]
        assert await snapshot() == before
        # that index alone is gone; the unique one (and PostgreSQL's primary key) stay
        assert await _history_indexes(store) == [ix for ix in indexes_before if ix[0] != "history_user"]
        with pytest.raises((sqlite3.IntegrityError, asyncpg.UniqueViolationError)):
            await store.execute(
                "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at)"
                " VALUES (?, 4, 'cast', '/cast', '{}', '{}', 'cast', '{}', '2026-01-01T00:00:00+00:00')",
                (USER,),
            )
        assert await _cast(store, n=2) == [5, 6]
        assert await _cast(store, "telegram:7") == [3]
        assert [e.seq for e in await store.list_history(USER)] == [6, 5, 4]
        assert [e.seq for e in await store.list_history(USER, limit=1, before=6)] == [5]
        assert await store.count_history(USER) == 3 and await store.get_history(USER, 4) is not None
        assert await store.prune_history(USER, keep=2) == 1
        assert [e.seq for e in await store.list_history(USER)] == [6, 5]
    finally:
        await store.close()


async def test_concurrent_migrators_apply_each_migration_once(target: str):
    stores = await asyncio.gather(*(Storage.open(target, migrate=False) for _ in range(4)))
    try:
        applied = await asyncio.gather(*(s.migrate() for s in stores))
        versions = [m.version for m in load_migrations(dialect=stores[0].dialect)]
        assert sorted(v for a in applied for v in a) == versions
    finally:
        for s in stores:
            await s.close()


async def test_eight_processes_write_500_casts_each_for_one_user(store: Storage, target: str):
    """8 connections (one per process) × 500 history writes for one user → numbers 1 … 4000, no error."""
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            str(HERE / "history_writer.py"),
            target,
            USER,
            "500",
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(8)
    ]
    outputs = await asyncio.wait_for(asyncio.gather(*(p.communicate() for p in procs)), timeout=300)
    for proc, (_, err) in zip(procs, outputs):
        assert proc.returncode == 0, err.decode()
    got = [int(line) for out, _ in outputs for line in out.split()]
    assert sorted(got) == list(range(1, 4001))
    for out, _ in outputs:  # each process saw its own numbers increase
        mine = [int(line) for line in out.split()]
        assert mine == sorted(mine) and len(mine) == 500
    rows = await store.fetchall("SELECT seq FROM history WHERE user_key = ? ORDER BY seq", (USER,))
    assert [int(r[0]) for r in rows] == list(range(1, 4001))
