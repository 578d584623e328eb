"""SQLite group commit (``bot/storage/sqlite.py``): a write returns only once an fsync of the WAL that started
after its COMMIT has finished; concurrent writers share syncs; while syncs are fast they are made on the loop,
once they are slow on the worker thread."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import pytest

from bot.storage import Storage
from bot.storage import sqlite as sqlite_backend


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, str]]:
    """Every fsync made: (path, the WAL's size when it began, the thread it ran on)."""
    made: list[tuple[str, int, str]] = []
    real = sqlite_backend._fsync

    def spy(path: str) -> None:
        made.append((path, os.path.getsize(path), threading.current_thread().name))
        real(path)

    monkeypatch.setattr(sqlite_backend, "_fsync", spy)
    return made


async def test_a_write_returns_after_a_sync_that_covers_it(tmp_path, syncs) -> None:
    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    backend.inline_sync_max = 0.0  # a slow disk: every sync on the worker thread
    assert str(backend.con.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"
    wal = f"{tmp_path / 's.db'}-wal"
    seq = await storage.add_history(
        "telegram:1", kind="cast", command="/cast now", inputs={}, options={}, view="cast", context={"a": 1}
    )
    assert seq == 1
    # the WAL held the new frames when the sync began (the sync came after the COMMIT), off the loop's thread
    assert syncs and syncs[-1][0] == wal
    assert syncs[-1][1] == os.path.getsize(wal)
    assert syncs[-1][2] != threading.current_thread().name
    assert backend._synced == backend._commits
    await storage.close()


async def test_concurrent_writers_share_syncs_and_each_is_covered(tmp_path, syncs) -> None:
    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    backend.inline_sync_max = 0.0  # syncs on the worker thread: the writers meanwhile commit and group
    before = backend.syncs
    returned: list[tuple[int, int]] = []  # (its commit number, synced count when it returned)

    async def write(i: int) -> None:
        await storage.add_history(
            f"telegram:{i}",
            kind="cast",
            command="/cast",
            inputs={},
            options={},
            view="cast",
            context={"i": i},
        )
        returned.append((backend._commits, backend._synced))

    n = 40
    await asyncio.gather(*(write(i) for i in range(n)))
    made = backend.syncs - before
    assert 1 <= made < n  # grouped: fewer syncs than writes
    # every writer returned once the syncs had covered at least as many commits as had been made by then
    assert all(synced >= 1 for _, synced in returned)
    assert backend._synced == backend._commits
    rows = await storage.fetchall("SELECT COUNT(*) FROM history")
    assert rows[0][0] == n
    await storage.close()


async def test_a_write_waits_for_the_sync_it_needs(tmp_path, monkeypatch) -> None:
    """A sync that began before a commit does not count for it: the writer waits for the next one."""
    gate = threading.Event()
    started = threading.Event()
    calls: list[int] = []

    def slow(path: str) -> None:
        calls.append(1)
        started.set()
        gate.wait(5)

    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    monkeypatch.setattr(sqlite_backend, "_fsync", slow)
    backend.inline_sync_max = 0.0
    first = asyncio.create_task(
        storage.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('a', 1)")
    )
    await asyncio.to_thread(started.wait, 5)  # the first sync is in flight
    second = asyncio.create_task(
        storage.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('b', 1)")
    )
    await asyncio.sleep(0.05)
    assert not first.done() and not second.done()
    gate.set()
    await asyncio.wait_for(asyncio.gather(first, second), 5)
    assert len(calls) == 2  # the second write needed a sync of its own, begun after its commit
    await storage.close()


async def test_reads_make_no_sync(tmp_path, syncs) -> None:
    storage = await Storage.open(tmp_path / "s.db")
    syncs.clear()
    await storage.fetchall("SELECT * FROM history")
    await storage.fetchone("SELECT COUNT(*) FROM history")
    assert syncs == []
    await storage.close()


async def test_a_write_through_fetchone_waits_for_its_sync(tmp_path, syncs) -> None:
    """``INSERT … RETURNING`` read with fetchone/fetchall (``touch_user``) is a write: synced before it returns."""
    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    syncs.clear()
    await storage.touch_user("telegram:5", "telegram", "5", "Tester")
    assert len(syncs) == 1 and backend._synced == backend._commits
    rows = await storage.fetchall(
        "INSERT INTO history_counters (user_key, last_seq) VALUES ('z', 1) RETURNING last_seq"
    )
    assert rows[0][0] == 1 and len(syncs) == 2 and backend._synced == backend._commits
    await storage.close()


async def test_fast_syncs_are_made_on_the_loop_slow_ones_on_the_thread(tmp_path, monkeypatch) -> None:
    """The thread hop costs more CPU than a fast sync blocks: inline while the average is under the bound;
    a disk that turns slow sends the syncs to the worker thread, and back once it is fast again."""
    threads: list[str] = []
    delay = [0.0]

    def timed(path: str) -> None:
        threads.append(threading.current_thread().name)
        if delay[0]:
            time.sleep(delay[0])

    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    monkeypatch.setattr(sqlite_backend, "_fsync", timed)
    backend.sync_seconds = 0.0  # forget the real syncs of opening (the machine's disk may be slow)
    loop_thread = threading.current_thread().name

    async def write(i: int) -> None:
        await storage.execute("INSERT INTO history_counters (user_key, last_seq) VALUES (?, 1)", (f"k{i}",))

    for i in range(3):
        await write(i)
    assert threads == [loop_thread] * 3  # fast: on the loop
    delay[0] = 0.01  # the disk turns slow (10 ms a sync)
    for i in range(3, 8):
        await write(i)
    assert threads[3] == loop_thread and threads[-1] != loop_thread  # measured slow once, then the thread
    assert backend.sync_seconds > backend.inline_sync_max
    delay[0] = 0.0
    for i in range(8, 40):
        await write(i)
    assert threads[-1] == loop_thread  # fast again: back on the loop
    assert backend._synced == backend._commits
    await storage.close()
