"""SQLite group commit (``bot/storage/sqlite.py``): a write returns only once a sync of the WAL that started
after its COMMIT has finished; concurrent writers share syncs; while syncs are fast they are made on the loop,
once they are slow on the worker thread (with a probe on the loop now and then); the sync is of the file SQLite
writes, through one kept descriptor; reads never wait for a sync."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time

import pytest

from bot.storage import Storage
from bot.storage import sqlite as sqlite_backend


def _ino(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[int, int], int, str]]:
    """Every sync made: ((device, inode) of the file synced, its size when the sync began, the thread)."""
    made: list[tuple[tuple[int, int], int, str]] = []
    real = sqlite_backend._fsync

    def spy(fd: int) -> None:
        st = os.fstat(fd)
        made.append(((st.st_dev, st.st_ino), st.st_size, threading.current_thread().name))
        real(fd)

    monkeypatch.setattr(sqlite_backend, "_fsync", spy)
    return made


async def test_a_write_returns_after_a_sync_that_covers_it(tmp_path, syncs) -> None:
    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    backend.inline_sync_max, backend.probe_interval = (
        0.0,
        60.0,
    )  # a slow disk: every sync on the worker thread
    assert str(backend.con.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"
    wal = f"{tmp_path / 's.db'}-wal"
    seq = await storage.add_history(
        "telegram:1", kind="cast", command="/cast now", inputs={}, options={}, view="cast", context={"a": 1}
    )
    assert seq == 1
    # the WAL held the new frames when the sync began (the sync came after the COMMIT), off the loop's thread
    assert syncs and syncs[-1][0] == _ino(wal)
    assert syncs[-1][1] == os.path.getsize(wal)
    assert syncs[-1][2] != threading.current_thread().name
    assert backend._synced == backend._commits
    await storage.close()


async def test_concurrent_writers_share_syncs_and_each_is_covered(tmp_path, syncs) -> None:
    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    backend.inline_sync_max, backend.probe_interval = (
        0.0,
        60.0,
    )  # syncs on the thread: writers meanwhile group
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

    def slow(fd: int) -> None:
        calls.append(1)
        started.set()
        gate.wait(5)

    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    monkeypatch.setattr(sqlite_backend, "_fsync", slow)
    backend.inline_sync_max = 0.0
    backend.probe_interval = 60.0  # no probe on the loop
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
    """The thread hop costs more than a fast sync blocks: inline while the average of the syncs made on the loop
    is under the bound; a disk that turns slow sends the syncs to the worker thread, with one probe on the loop
    per interval, and a fast probe brings them back once the disk is fast again."""
    threads: list[str] = []
    delay = [0.0]

    def timed(fd: int) -> None:
        threads.append(threading.current_thread().name)
        if delay[0]:
            time.sleep(delay[0])

    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    monkeypatch.setattr(sqlite_backend, "_fsync", timed)
    backend.sync_seconds = 0.0  # forget the real syncs of opening (the machine's disk may be slow)
    backend.probe_interval = 60.0  # no probe until the test asks for one
    thread_syncs = backend.thread_syncs  # opening's real syncs may have gone to the thread
    loop_thread = threading.current_thread().name

    async def write(i: int) -> None:
        await storage.execute("INSERT INTO history_counters (user_key, last_seq) VALUES (?, 1)", (f"k{i}",))

    for i in range(3):
        await write(i)
    assert threads == [loop_thread] * 3  # fast: on the loop
    delay[0] = 10 * backend.inline_sync_max  # the disk turns slow: one such sync moves the average over
    for i in range(3, 8):
        await write(i)
    assert threads[3] == loop_thread  # measured slow once on the loop …
    assert set(threads[4:]) == {"sqlite-sync_0"}  # … then on the thread, which does not move the average
    assert backend.sync_seconds > backend.inline_sync_max and backend.thread_syncs - thread_syncs == 4
    delay[0] = 0.0  # fast again: the next probe on the loop measures it
    backend.probe_interval = 0.05
    await asyncio.sleep(0.06)
    await write(8)
    assert threads[-1] == loop_thread and backend.sync_seconds < backend.inline_sync_max
    for i in range(9, 12):
        await write(i)
    assert threads[-3:] == [loop_thread] * 3
    assert backend._synced == backend._commits
    await storage.close()


async def test_a_slow_disk_is_probed_on_the_loop_once_per_interval(tmp_path, monkeypatch) -> None:
    """While syncs go to the thread, one per probe interval is still made on the loop (only those measure the
    disk: a sync on the thread ends when the loop lets the thread have the GIL)."""
    threads: list[str] = []

    def slow(fd: int) -> None:
        threads.append(threading.current_thread().name)
        time.sleep(0.003)

    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    monkeypatch.setattr(sqlite_backend, "_fsync", slow)
    backend.sync_seconds = 1.0  # known slow
    backend.probe_interval = 0.2
    loop_thread = threading.current_thread().name
    began = time.perf_counter()
    i = 0
    while time.perf_counter() - began < 0.7:
        await storage.execute("INSERT INTO history_counters (user_key, last_seq) VALUES (?, 1)", (f"k{i}",))
        i += 1
    on_loop = threads.count(loop_thread)
    assert (
        2 <= on_loop <= 5 and len(threads) - on_loop > 2 * on_loop
    )  # ≈ one probe per 0.2 s, the rest off it
    assert backend._synced == backend._commits
    await storage.close()


def _sqlite_wal_inodes(wal: str) -> set[tuple[int, int]]:
    """(device, inode) of every descriptor of this process open on ``wal`` (Linux: /proc/self/fd)."""
    found = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == wal:
                st = os.stat(f"/proc/self/fd/{name}")
                found.add((st.st_dev, st.st_ino))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
async def test_the_kept_descriptor_is_the_wal_sqlite_writes(tmp_path, syncs) -> None:
    """One descriptor, opened once: the file it syncs is the one SQLite writes its frames to — after another
    connection (another process's) wrote and closed, and after /forget's TRUNCATE checkpoint."""
    path = str(tmp_path / "s.db")
    wal = f"{path}-wal"
    storage = await Storage.open(path)
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    await storage.touch_user("telegram:1", "telegram", "1")
    fd = backend._wal_fd
    assert fd is not None and syncs[-1][0] == _ino(wal)
    assert _sqlite_wal_inodes(wal) == {_ino(wal)}  # SQLite's own descriptor and ours: one file
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('x', 1)")
    other.close()  # not the last connection: the WAL stays
    await storage.add_history(
        "telegram:1", kind="cast", command="/cast", inputs={}, options={}, view="cast", context={}
    )
    await storage.forget("telegram:1")  # PRAGMA wal_checkpoint(TRUNCATE): the WAL is emptied, not replaced
    size = os.path.getsize(wal)
    await storage.touch_user("telegram:2", "telegram", "2")
    assert os.path.getsize(wal) > size  # SQLite wrote into the file …
    assert syncs[-1][0] == _ino(wal) and syncs[-1][1] == os.path.getsize(wal)  # … that was synced, whole
    assert backend._wal_fd == fd and {s[0] for s in syncs} == {_ino(wal)}
    assert _sqlite_wal_inodes(wal) == {_ino(wal)}
    await storage.close()
    assert backend._wal_fd is None and not os.path.exists(wal)  # the last connection removed the WAL


def test_the_sync_is_sqlites_own(monkeypatch) -> None:
    """fdatasync where the platform has it (SQLite's ``full_fsync``), fsync elsewhere."""
    assert sqlite_backend._datasync is getattr(os, "fdatasync", os.fsync)


async def test_the_wal_directory_is_synced_once(tmp_path, monkeypatch) -> None:
    synced: list[str] = []
    real = sqlite_backend._fsync_path
    monkeypatch.setattr(sqlite_backend, "_fsync_path", lambda path: (synced.append(path), real(path)))
    storage = await Storage.open(tmp_path / "s.db")
    for i in range(3):
        await storage.touch_user(f"telegram:{i}", "telegram", str(i))
    assert synced == [str(tmp_path)]
    await storage.close()


async def test_reads_do_not_wait_for_a_sync_in_flight(tmp_path, monkeypatch) -> None:
    """A write waits for its sync on the thread; meanwhile a read of the same connection answers at once."""
    gate = threading.Event()
    started = threading.Event()

    def held(fd: int) -> None:
        started.set()
        gate.wait(5)

    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    await storage.touch_user("telegram:1", "telegram", "1", "Ann")
    monkeypatch.setattr(sqlite_backend, "_fsync", held)
    backend.sync_seconds, backend.probe_interval = 1.0, 60.0  # slow disk: syncs on the thread
    write = asyncio.create_task(storage.update_user("telegram:1", lang="ko"))
    await asyncio.to_thread(started.wait, 5)
    user = await asyncio.wait_for(storage.get_user("telegram:1"), 1)
    assert user is not None and user.display_name == "Ann"
    assert not write.done()  # the write still waits for the disk
    gate.set()
    assert (await asyncio.wait_for(write, 5)).lang == "ko"
    await storage.close()


async def test_a_statement_waits_for_another_coroutines_open_transaction(tmp_path) -> None:
    """A caller of ``transaction()`` that awaits inside its block: a statement of its own from another coroutine
    runs after that transaction, never inside it (it neither sees its rows early nor is rolled back with it)."""
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
    assert not read.done() and not write.done()  # both wait for the transaction
    leave.set()
    await task
    assert [r[0] for r in await read] == []  # ran after the rollback: never saw 'held'
    assert await write == 1
    rows = await storage.fetchall("SELECT user_key FROM history_counters")
    assert [r[0] for r in rows] == ["own"]  # the statement was not rolled back with the transaction
    await storage.close()


async def test_a_finished_sync_whose_callback_has_not_run_yet_is_not_waited_on_forever(
    tmp_path, monkeypatch
) -> None:
    """The thread's sync is done but its bookkeeping callback is still queued (another callback of the same loop
    turn runs first): a writer arriving then starts a sync of its own instead of awaiting the finished one again
    and again (awaiting a done future never yields to the loop)."""
    storage = await Storage.open(tmp_path / "s.db")
    backend = storage.backend
    assert isinstance(backend, sqlite_backend.SqliteBackend)
    backend.sync_seconds, backend.probe_interval = 1.0, 60.0  # syncs on the thread
    backend._probed = time.perf_counter()
    finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    finished.set_result(None)  # done, no callback ran
    backend._sync = finished
    shields = [0]
    real_shield = asyncio.shield

    def counted(fut: asyncio.Future[None]) -> asyncio.Future[None]:
        shields[0] += 1
        assert shields[0] < 100, "the writer spins on a finished sync"
        return real_shield(fut)

    monkeypatch.setattr(sqlite_backend.asyncio, "shield", counted)
    backend.con.execute("INSERT INTO history_counters (user_key, last_seq) VALUES ('a', 1)")
    commit = backend._committed()
    thread_syncs = backend.thread_syncs
    await asyncio.wait_for(backend._durable(commit), 5)
    assert backend._synced >= commit and backend.thread_syncs == thread_syncs + 1
    await storage.close()
