"""Storage: WAL, migrations, history and exact re-render, /forget, restart, concurrency, crash safety."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from bot.app import create_context
from bot.commands import Incoming, dispatch
from bot.config import Settings
from bot.storage import Migration, Storage, load_migrations, split_sql
from bot.views import CHANNELS, render


def test_shipped_migrations_are_ordered_and_named():
    migrations = load_migrations()
    assert migrations[0].version == 1 and migrations[0].name == "0001_core.sql"
    versions = [m.version for m in migrations]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)


def test_split_sql_keeps_triggers_whole():
    script = "CREATE TABLE a (x);\n-- note\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n  SELECT 1;\nEND;\n"
    assert len(split_sql(script)) == 2


async def test_wal_and_idempotent_migrations(db_path):
    storage = await Storage.open(db_path)
    try:
        row = await storage.fetchone("PRAGMA journal_mode")
        assert row[0] == "wal"
        latest = max(m.version for m in load_migrations())
        assert await storage.schema_version() == latest
        assert await storage.migrate() == []  # again: nothing to do
        rows = await storage.fetchall("SELECT version FROM schema_version ORDER BY version")
        assert [r[0] for r in rows] == [m.version for m in load_migrations()]
    finally:
        await storage.close()
    again = await Storage.open(db_path)  # reopening migrates nothing and keeps the version rows
    try:
        assert await again.migrate() == []
        assert await again.schema_version() == latest
    finally:
        await again.close()


async def test_a_failing_migration_leaves_no_trace(db_path):
    storage = await Storage.open(db_path)
    try:
        before = await storage.schema_version()
        bad = Migration(9001, "9001_bad.sql", "CREATE TABLE half (x);\nINSERT INTO nowhere VALUES (1);\n")
        with pytest.raises(sqlite3.OperationalError):
            await storage.migrate([bad])
        assert await storage.schema_version() == before
        assert await storage.fetchone("SELECT name FROM sqlite_master WHERE name = 'half'") is None
    finally:
        await storage.close()


async def test_history_numbers_per_user_and_show_rerenders_exactly(say):
    first = await say("/cast 庚辰 8")
    second = await say("/cast 2026-11-29 23:10")
    other = await say("/cast 辛巳 1", user="someone-else")
    assert (first.context["no"], second.context["no"], other.context["no"]) == (1, 2, 1)
    for original in (first, second):
        shown = await say(f"/show {original.context['no']}")
        assert shown.view == original.view
        assert dict(shown.context) == dict(original.context)
        for channel in CHANNELS:
            assert render(shown, channel) == render(original, channel)
    # Another user's number 2 does not exist for them, and number 1 is their own cast.
    assert (await say("/show 2", user="someone-else")).context["code"] == "bot.error.no_such_entry"
    mine = await say("/show 1", user="someone-else")
    assert mine.context["day"] == "辛巳"
    listing = await say("/history")
    assert [e["no"] for e in listing.context["entries"]] == [2, 1]
    assert listing.context["total"] == 2


async def test_history_pages(say):
    for _ in range(12):
        await say("/cast 庚辰 8")
    page = await say("/history")
    assert [e["no"] for e in page.context["entries"]] == list(range(12, 2, -1))
    assert page.context["next_before"] == 3
    rest = await say("/history 3")
    assert [e["no"] for e in rest.context["entries"]] == [2, 1]
    assert rest.context["next_before"] is None


async def test_restart_on_the_same_database_keeps_history(db_path, clock):
    settings = Settings(db_path=db_path, lang="ko")
    ctx = await create_context(settings, clock=clock)
    inc = Incoming("telegram", "42", "42", "/cast 庚辰 8")
    original = await dispatch(inc, ctx)
    await dispatch(Incoming("telegram", "42", "42", "/lang lzh"), ctx)
    await ctx.close()

    ctx2 = await create_context(settings, clock=clock)
    try:
        shown = await dispatch(Incoming("telegram", "42", "42", "/show 1"), ctx2)
        assert shown.lang == "lzh"  # settings survived too
        assert dict(shown.context) == dict(original.context)
        listing = await dispatch(Incoming("telegram", "42", "42", "/history"), ctx2)
        assert listing.context["total"] == 1
    finally:
        await ctx2.close()


async def test_forget_leaves_no_row_in_any_user_table(say, ctx):
    # A table another area's migration might add: the user_key convention makes /forget cover it.
    extra = Migration(
        9002,
        "9002_probe.sql",
        "CREATE TABLE probe_subscriptions (id INTEGER PRIMARY KEY, user_key TEXT NOT NULL, hhmm TEXT);\n",
    )
    await ctx.storage.migrate([extra])
    await say("/cast 庚辰 8")
    await say("/tz Asia/Tokyo")
    await say("/cast 庚辰 8", user="keep")
    await ctx.storage.execute(
        "INSERT INTO probe_subscriptions (user_key, hhmm) VALUES ('console:u1', '07:00')"
    )
    await ctx.storage.execute(
        "INSERT INTO probe_subscriptions (user_key, hhmm) VALUES ('console:keep', '08:00')"
    )

    r = await say("/forget yes")
    assert r.view == "forget" and r.context["casts"] == 1

    tables = await ctx.storage.user_tables()
    assert {"users", "history", "probe_subscriptions"} <= set(tables)
    for table in tables:
        row = await ctx.storage.fetchone(
            f'SELECT COUNT(*) FROM "{table}" WHERE user_key = ?', ("console:u1",)
        )
        assert row[0] == 0, table
        # nothing of the user anywhere, under any column
        rows = await ctx.storage.fetchall(f'SELECT * FROM "{table}"')
        assert all("console:u1" not in [str(v) for v in tuple(r)] for r in rows), table
    kept = await ctx.storage.fetchone(
        "SELECT COUNT(*) FROM probe_subscriptions WHERE user_key = 'console:keep'"
    )
    assert kept[0] == 1
    assert (await say("/history", user="keep")).context["total"] == 1
    # The user starts afresh: default zone and numbering from 1.
    assert (await say("/tz")).context["is_default"] is True


async def test_concurrent_users_are_isolated(ctx):
    users = [f"user{i}" for i in range(20)]

    async def session(user: str) -> list[int]:
        numbers = []
        for ju in (1, 2, 3, 4, 5):
            r = await dispatch(Incoming("telegram", user, user, f"/cast 庚辰 {ju}"), ctx)
            numbers.append(r.context["no"])
        return numbers

    results = await asyncio.gather(*(session(u) for u in users))
    assert all(nums == [1, 2, 3, 4, 5] for nums in results)
    for user in users:
        listing = await dispatch(Incoming("telegram", user, user, "/history"), ctx)
        assert [e["no"] for e in listing.context["entries"]] == [5, 4, 3, 2, 1]
        entries = await ctx.storage.list_history(f"telegram:{user}")
        assert {e.command for e in entries} == {f"/cast 庚辰 {ju}" for ju in (1, 2, 3, 4, 5)}


def test_a_committed_cast_survives_a_crash(db_path):
    """A process that records a cast and dies at once (os._exit, no close) loses nothing."""
    script = textwrap.dedent(
        f"""
        import asyncio, os
        from bot.storage import Storage

        async def main():
            s = await Storage.open({db_path!r})
            n = await s.add_history("telegram:7", kind="cast", command="/cast 庚辰 8", inputs={{}},
                                    options={{}}, view="cast", context={{"day": "庚辰"}})
            print(n, flush=True)
            os._exit(0)

        asyncio.run(main())
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "1", out.stderr

    async def check() -> None:
        s = await Storage.open(db_path)
        try:
            entry = await s.get_history("telegram:7", 1)
            assert entry is not None and entry.context == {"day": "庚辰"}
        finally:
            await s.close()

    asyncio.run(check())


async def test_history_times_are_shown_in_the_users_zone(say):
    # The fake clock says 2024-02-04 03:30 UTC.
    await say("/cast 庚辰 8")
    assert (await say("/history")).context["entries"][0]["created_at"] == "2024-02-04 12:30"
    await say("/tz America/New_York")
    assert (await say("/history")).context["entries"][0]["created_at"] == "2024-02-03 22:30"


async def test_open_closes_the_connection_when_a_migration_fails(db_path, monkeypatch):
    import bot.storage as storage_module
    from bot.storage.sqlite import SqliteBackend

    closed: list[SqliteBackend] = []
    real_close = SqliteBackend.close

    async def spy(self: SqliteBackend) -> None:
        closed.append(self)
        await real_close(self)

    bad = [Migration(1, "0001_bad.sql", "CREATE TABLE x (;\n")]
    monkeypatch.setattr(
        storage_module, "load_migrations", lambda package="bot.migrations", dialect="sqlite": bad
    )
    monkeypatch.setattr(SqliteBackend, "close", spy)
    with pytest.raises(sqlite3.OperationalError):
        await Storage.open(db_path)
    assert len(closed) == 1
    reader = closed[0].reader
    assert reader is not None
    for connection in (
        closed[0].db,
        reader,
    ):  # both closed, not merely forgotten (aiosqlite: "Connection closed")
        with pytest.raises(ValueError):
            await connection.execute("SELECT 1")


@pytest.mark.parametrize(
    "command", ["/liuyao", "/shensha 甲子 寅", "/qizheng 1990-05-01 10:30 126.98 37.57 save"]
)
async def test_show_rerenders_every_kind_exactly(say, command):
    original = await say(command)
    assert original.view == command.split()[0][1:], original.context
    shown = await say(f"/show {original.context['no']}")
    assert dict(shown.context) == dict(original.context)
    for channel in CHANNELS:
        assert render(shown, channel) == render(original, channel)
