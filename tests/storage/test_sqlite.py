"""The SQLite dialect on aiosqlite (``bot/storage/sqlite.py``): durable commits by SQLite's own
``synchronous=FULL`` in WAL mode (``durable=False`` the one exception, for its transaction only), statements
off the event loop's thread, reads on a connection of their own that never wait for a write, and no
coroutine's statement ever inside another coroutine's transaction."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bot.storage import Storage
from bot.storage.sqlite import SqliteBackend

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FULL, NORMAL = 2, 1  # PRAGMA synchronous


async def _pragma(backend: SqliteBackend, name: str) -> object:
    rows = await backend.db.execute_fetchall(f"PRAGMA {name}")
    return next(iter(rows))[0]


async def _backend(tmp_path: Path) -> tuple[Storage, SqliteBackend]:
    storage = await Storage.open(tmp_path / "s.db")
    assert isinstance(storage.backend, SqliteBackend)
    return storage, storage.backend


async def test_commits_sync_the_wal_full(tmp_path) -> None:
    """WAL mode, ``synchronous=FULL``: SQLite syncs the log at every COMMIT, before the write returns."""
    storage, backend = await _backend(tmp_path)
    try:
        assert str(await _pragma(backend, "journal_mode")).lower() == "wal"
        assert await _pragma(backend, "synchronous") == FULL
        assert await _pragma(backend, "busy_timeout") == 10_000
        assert await _pragma(backend, "foreign_keys") == 1 and await _pragma(backend, "secure_delete") == 1
        seq = await storage.add_history(
            "telegram:1", kind="cast", command="/cast", inputs={}, options={}, view="cast", context={}
        )
        # committed when it returned: another connection (another process's) sees it
        other = sqlite3.connect(tmp_path / "s.db")
        try:
            assert other.execute("SELECT seq FROM history").fetchall() == [(seq,)]
        finally:
            other.close()
        assert await _pragma(backend, "synchronous") == FULL
    finally:
        await storage.close()


async def test_a_non_durable_transaction_alone_commits_without_the_sync(tmp_path) -> None:
    """``durable=False``: ``synchronous=NORMAL`` inside that transaction only — restored after it commits,
    after it raises (rolled back), and after its coroutine is cancelled midway."""
    storage, backend = await _backend(tmp_path)
    try:
        async with storage.transaction(durable=False) as tx:
            assert await _pragma(backend, "synchronous") == NORMAL
            await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('a', 1)")
        assert await _pragma(backend, "synchronous") == FULL
        with pytest.raises(RuntimeError):
            async with storage.transaction(durable=False) as tx:
                await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('b', 1)")
                raise RuntimeError("rolled back")
        assert await _pragma(backend, "synchronous") == FULL
        inside = asyncio.Event()

        async def cancelled() -> None:
            async with storage.transaction(durable=False) as tx:
                await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('c', 1)")
                inside.set()
                await asyncio.sleep(60)

        task = asyncio.create_task(cancelled())
        await inside.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await _pragma(backend, "synchronous") == FULL
        async with storage.transaction() as tx:  # durable again, and no transaction was left open
            assert await _pragma(backend, "synchronous") == FULL
            await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('d', 1)")
        rows = await storage.fetchall("SELECT user_key FROM history_counters ORDER BY user_key")
        assert [r[0] for r in rows] == ["a", "d"]
    finally:
        await storage.close()


async def test_statements_run_off_the_event_loops_thread(tmp_path) -> None:
    """A slow statement (a slow disk, say) holds aiosqlite's thread; the event loop serves others
    meanwhile."""
    storage, backend = await _backend(tmp_path)
    threads: list[str] = []

    def slow() -> int:
        threads.append(threading.current_thread().name)
        time.sleep(0.3)
        return 1

    try:
        assert backend.reader is not None  # the read below runs there
        await backend.reader.create_function("slow", 0, slow)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        row = await storage.fetchone("SELECT slow()")
        task.cancel()
        assert row is not None and row[0] == 1
        assert threads and threads[0] != threading.current_thread().name
        assert ticks >= 10  # the loop ran on while the statement slept
    finally:
        await storage.close()


async def test_a_statement_waits_for_another_coroutines_open_transaction(tmp_path) -> None:
    """A caller of ``transaction()`` that awaits inside its block: a write of its own from another coroutine
    runs after that transaction, never inside it (not rolled back with it); a read answers at once from the
    committed state, never seeing the open transaction's rows."""
    storage = await Storage.open(tmp_path / "s.db")
    inside = asyncio.Event()
    leave = asyncio.Event()

    async def holder() -> None:
        with pytest.raises(RuntimeError):
            async with storage.transaction() as tx:
                await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('held', 1)")
                inside.set()
                await leave.wait()
                raise RuntimeError("rolled back")

    task = asyncio.create_task(holder())
    await inside.wait()
    read = asyncio.create_task(storage.fetchall("SELECT user_key FROM history_counters"))
    write = asyncio.create_task(
        storage.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('own', 1)")
    )
    await asyncio.sleep(0.05)
    assert read.done() and [r[0] for r in read.result()] == []  # never saw 'held'
    assert not write.done()  # waits for the transaction
    leave.set()
    await task
    assert await write == 1
    rows = await storage.fetchall("SELECT user_key FROM history_counters")
    assert [r[0] for r in rows] == ["own"]  # the statement was not rolled back with the transaction
    await storage.close()


async def test_a_transaction_cancelled_while_its_statement_runs_ends_before_the_next(tmp_path) -> None:
    """Cancelled while its statement is on aiosqlite's thread: the statement still runs there, then the
    ROLLBACK queued behind it; the next transaction begins on a clean connection."""
    storage, backend = await _backend(tmp_path)
    started = threading.Event()

    def slow() -> int:
        started.set()
        time.sleep(0.2)
        return 1

    try:
        await backend.db.create_function("slow", 0, slow)

        async def write() -> None:
            async with storage.transaction() as tx:
                await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('gone', slow())")

        task = asyncio.create_task(write())
        await asyncio.to_thread(started.wait, 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        async with storage.transaction() as tx:
            await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('kept', 1)")
        rows = await storage.fetchall("SELECT user_key FROM history_counters")
        assert [r[0] for r in rows] == ["kept"]
    finally:
        await storage.close()


async def test_a_read_does_not_wait_for_a_write_in_flight(tmp_path) -> None:
    """A write holds the writer's thread (a slow disk's sync, say); a read meanwhile answers at once, from the
    state before it, on the reader — which refuses to write (``query_only``)."""
    storage, backend = await _backend(tmp_path)
    started, gate = threading.Event(), threading.Event()

    def held() -> int:
        started.set()
        gate.wait(5)
        return 1

    try:
        await storage.touch_user("telegram:1", "telegram", "1", "Ann")
        await backend.db.create_function("held", 0, held)
        write = asyncio.create_task(
            storage.execute("UPDATE users SET lang = 'ko' WHERE user_key = 'telegram:1' AND held() = 1")
        )
        await asyncio.to_thread(started.wait, 5)
        user = await asyncio.wait_for(storage.get_user("telegram:1"), 1)
        assert user is not None and user.display_name == "Ann" and user.lang is None
        assert not write.done()
        gate.set()
        assert await asyncio.wait_for(write, 5) == 1
        user = await storage.get_user("telegram:1")  # the write returned: the reader sees it
        assert user is not None and user.lang == "ko"
        assert backend.reader is not None
        with pytest.raises(sqlite3.OperationalError):
            await backend.reader.execute("DELETE FROM users")
        assert await storage.get_user("telegram:1") is not None
    finally:
        gate.set()
        await storage.close()


async def test_in_memory_the_writer_reads_too() -> None:
    """``:memory:`` has no WAL (and a second connection would be another database): one connection."""
    storage = await Storage.open(":memory:")
    try:
        assert isinstance(storage.backend, SqliteBackend) and storage.backend.reader is None
        await storage.touch_user("telegram:1", "telegram", "1", "Ann")
        user = await storage.get_user("telegram:1")
        assert user is not None and user.display_name == "Ann"
    finally:
        await storage.close()


async def test_a_failed_begin_leaves_the_connection_usable(tmp_path) -> None:
    """Another process holds the write lock past ``busy_timeout``: BEGIN fails, nothing is left open."""
    storage, backend = await _backend(tmp_path)
    other = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    try:
        await backend.db.execute("PRAGMA busy_timeout=50")
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError):
            async with storage.transaction() as tx:
                await tx.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('no', 1)")
        other.execute("ROLLBACK")
        assert (
            await storage.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('yes', 1)") == 1
        )
        assert [r[0] for r in await storage.fetchall("SELECT user_key FROM history_counters")] == ["yes"]
    finally:
        other.close()
        await storage.close()


async def test_every_write_that_returned_survives_kill_9(tmp_path) -> None:
    """A writer process prints each history number as its write returns and is killed (SIGKILL) midway: every
    number printed is in the database, whole (integrity_check), and the next writer carries on after it."""
    target = str(tmp_path / "crash.db")
    await (await Storage.open(target)).close()  # the schema
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HERE / "history_writer.py"),
        target,
        "telegram:1",
        "100000",
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    printed: list[int] = []
    while len(printed) < 200:
        line = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert line, "the writer ended early"
        printed.append(int(line))
    proc.send_signal(signal.SIGKILL)
    printed += [int(line) for line in (await proc.stdout.read()).split()]
    assert await proc.wait() == -signal.SIGKILL
    storage = await Storage.open(target)
    try:
        stored = [int(r[0]) for r in await storage.fetchall("SELECT seq FROM history ORDER BY seq")]
        assert printed == stored[: len(printed)]  # each returned write is there, in order, none missing
        assert (await storage.fetchone("PRAGMA integrity_check"))[0] == "ok"
        seq = await storage.add_history(
            "telegram:1", kind="cast", command="/cast", inputs={}, options={}, view="cast", context={}
        )
        assert seq == stored[-1] + 1
    finally:
        await storage.close()


# ---- start-up: the conversion of a fresh file to WAL (issue 36) -----------------------------------------


async def test_a_fresh_file_whose_write_lock_is_held_is_converted_once_it_is_released(tmp_path) -> None:
    """``PRAGMA journal_mode=WAL`` on a fresh (rollback-journal) file that another connection is writing —
    another process converting or migrating it at the same instant — answers "database is locked" at once,
    without SQLite's busy wait; the open tries it again until the lock is gone."""
    path = tmp_path / "fresh.db"
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("CREATE TABLE t (x)")
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO t VALUES (1)")
        asyncio.get_running_loop().call_later(0.3, other.execute, "COMMIT")
        began = time.monotonic()
        backend = await SqliteBackend.open(path)
        try:
            assert time.monotonic() - began >= 0.25  # it waited for the lock …
            assert str(await _pragma(backend, "journal_mode")).lower() == "wal"  # … and converted the file
        finally:
            await backend.close()
    finally:
        other.close()


async def test_200_simultaneous_starts_on_a_fresh_file_all_succeed(tmp_path) -> None:
    path = tmp_path / "fresh.db"
    opened = await asyncio.gather(*(Storage.open(path) for _ in range(200)), return_exceptions=True)
    try:
        assert [o for o in opened if isinstance(o, BaseException)] == []
    finally:
        for store in opened:
            if isinstance(store, Storage):
                await store.close()


def test_processes_started_together_on_a_fresh_file_all_open_it(tmp_path) -> None:
    path, at = str(tmp_path / "fresh.db"), time.time() + 3.0
    procs = [
        subprocess.Popen(
            [sys.executable, str(HERE / "opener.py"), path, str(at)],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(12)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 12, errors
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
