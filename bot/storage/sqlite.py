"""The SQLite dialect (the embedded default): the standard library's ``sqlite3`` called on the event loop.

- One connection per process in WAL mode. A write that returned (a :meth:`~SqliteBackend.transaction` block,
  :meth:`~SqliteBackend.execute`) survives a crash and a power loss, as with ``synchronous=FULL`` — but its
  ``fsync`` does not hold the event loop when the disk is slow (#18: 0.2 ms a commit on a quiet disk, 6–7 ms
  measured on a shared one, every other chat waiting): COMMIT runs with ``synchronous=NORMAL`` (the WAL frames
  are written, not synced) and the writer then waits for one ``fsync`` of the ``-wal`` file that began after
  its COMMIT and covers every commit made before it (*group commit*: concurrent commands share one sync).
  While syncs are fast (a moving average under :data:`INLINE_SYNC_MAX`) the sync is made on the loop — a thread
  hop costs more CPU (≈ 0.1–0.25 ms) than such a sync blocks; once they are slow, on a worker thread, so the
  loop goes on serving other chats. A crash before the sync may lose only writes whose callers had not
  returned yet. Checkpoints sync the WAL and the database themselves (``NORMAL`` in WAL mode).
  ``transaction(durable=False)`` skips that wait: its COMMIT survives a crash of the process, and a power loss
  may roll it back — for a transaction nothing outside the database acts on before a later durable one (a
  daily claim: the send waits for the durable ``claimed`` → ``sending`` commit, whose sync of the WAL covers
  every frame before it, claim included).
- No thread hop per statement (#18): a statement costs microseconds, so it runs on the loop; every
  transaction is short and synchronous between ``BEGIN IMMEDIATE`` and ``COMMIT`` (the storage never awaits
  anything else inside one), so coroutines of one process never interleave inside a transaction. An
  ``asyncio.Lock`` still guards the connection for callers of :meth:`transaction` that do await.
- Other processes on the same file wait for the write lock through ``busy_timeout`` (SQLite's own lock).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path

from bot.storage.backend import Params, Row, Tx

BUSY_TIMEOUT_MS = 10_000
WAL_AUTOCHECKPOINT_PAGES = 10_000  # ≈ 40 MB of write-ahead log between checkpoints
# a sync of the WAL is made on the event loop while the moving average of their durations is below this many
# seconds (cheaper than the thread hop); above it, on the worker thread (the loop serves others meanwhile)
INLINE_SYNC_MAX = 0.0005


class SqliteTx:
    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    async def execute(self, sql: str, params: Params = ()) -> int:
        return self.con.execute(sql, params).rowcount

    async def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        self.con.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return self.con.execute(sql, params).fetchall()

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        return self.con.execute(sql, params).fetchone()


class SqliteBackend:
    dialect = "sqlite"
    skip_locked = ""  # one writer at a time: BEGIN IMMEDIATE holds the database

    multi_scheduler = False  # one scheduler per database file and platform, elected by lock files (try_lead)

    # the number after the user's counter; the trigger of migration 0009 moves the counter on. One statement
    # committed on its own: SQLite takes the write lock as a writing statement starts, before the subquery.
    insert_history = (
        "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at)"
        " VALUES (?1, COALESCE((SELECT last_seq FROM history_counters WHERE user_key = ?1), 0) + 1,"
        " ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING seq"
    )

    def __init__(self, con: sqlite3.Connection, path: str, wal: str | None = None) -> None:
        self.con = con
        self.target = path
        self.lock = asyncio.Lock()
        self.tx = SqliteTx(con)
        self._lead_fds: list[int] = []
        # group commit (see the module's docstring): None when the database has no WAL file (":memory:")
        self._wal = wal
        self._commits = 0  # writes committed on this connection
        self._synced = 0  # of which this many are known synced to disk
        self._sync: asyncio.Future[None] | None = None  # the fsync in flight
        self._syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-sync") if wal else None
        self.syncs = 0  # fsyncs made (tests, benchmarks: commits / syncs is the group size)
        self.sync_seconds = 0.0  # moving average of the syncs' durations (decides inline or on the thread)
        self.inline_sync_max = INLINE_SYNC_MAX

    def try_lead(self, platforms: Sequence[str]) -> bool:
        """Hold ``<db>.scheduler-<platform>.lock`` (``flock``) of every platform given, or none: one scheduler
        per database and platform across processes (a Telegram process and a Discord process both schedule).
        The kernel releases the locks when their holder exits, even by ``kill -9``, so the next one takes over
        at once — and, being the only one for its platforms, may take over every row of theirs left claimed."""
        if self._lead_fds:
            return True
        fds: list[int] = []
        for platform in sorted(set(platforms)):
            fd = os.open(f"{self.target}.scheduler-{platform}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                for held in fds:
                    os.close(held)
                return False
            fds.append(fd)
        self._lead_fds = fds
        return True

    def resign(self) -> None:
        fds, self._lead_fds = self._lead_fds, []
        for fd in fds:
            os.close(fd)  # closing the descriptor releases the flock

    @classmethod
    def open(cls, path: str | Path) -> SqliteBackend:
        # autocommit (explicit BEGIN/COMMIT); the connection may be closed from another thread at exit
        con = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        try:
            con.row_factory = sqlite3.Row
            mode = str(con.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower()
            # WAL: COMMIT writes the frames, the group commit syncs them (_durable); else SQLite syncs itself
            con.execute("PRAGMA synchronous=NORMAL" if mode == "wal" else "PRAGMA synchronous=FULL")
            con.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            # checkpoint every ~40 MB of log rather than SQLite's 4 MB: the daily claims rewrite pages scattered
            # over the subscriptions table minute after minute, and a page written many times between two
            # checkpoints is copied once (measured: half the wall time of a day's claims, issue 18)
            con.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
            con.execute("PRAGMA foreign_keys=ON")
            con.execute("PRAGMA secure_delete=ON")  # deleted rows are zeroed, not left in free pages
        except BaseException:
            con.close()
            raise
        return cls(con, str(path), f"{path}-wal" if mode == "wal" else None)

    def _committed(self) -> int:
        self._commits += 1
        return self._commits

    async def _durable(self, commit: int) -> None:
        """Until write number ``commit`` is on disk: an fsync of the WAL that started after it was committed
        (one in flight started before it covers only the earlier ones, so this waits for the next)."""
        while self._synced < commit and self._syncer is not None:
            if self.sync_seconds < self.inline_sync_max:
                self._synced_to(self._commits, _timed_fsync(self._wal))  # on the loop: the disk is fast
                return
            if self._sync is None or self._sync.done():
                self._sync = asyncio.ensure_future(self._sync_wal())
            await asyncio.shield(self._sync)

    async def _sync_wal(self) -> None:
        upto = self._commits
        assert self._syncer is not None
        took = await asyncio.get_running_loop().run_in_executor(self._syncer, _timed_fsync, self._wal)
        self._synced_to(upto, took)

    def _synced_to(self, upto: int, took: float) -> None:
        self.syncs += 1
        self._synced = max(self._synced, upto)
        self.sync_seconds = 0.8 * self.sync_seconds + 0.2 * took

    @asynccontextmanager
    async def transaction(self, durable: bool = True) -> AsyncIterator[SqliteTx]:
        async with self.lock:
            self.con.execute("BEGIN IMMEDIATE")  # the write lock first: no upgrade deadlock between processes
            try:
                yield self.tx
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            else:
                self.con.execute("COMMIT")
                commit = self._committed()
        if durable:
            await self._durable(commit)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        async with self.lock:
            before = self.con.total_changes
            rows = self.con.execute(sql, params).fetchall()
            commit = self._committed() if self.con.total_changes != before else 0  # … RETURNING wrote
        await self._durable(commit)
        return rows

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        async with self.lock:
            before = self.con.total_changes
            row = self.con.execute(sql, params).fetchone()
            commit = self._committed() if self.con.total_changes != before else 0  # e.g. INSERT … RETURNING
        await self._durable(commit)
        return row

    async def execute(self, sql: str, params: Params = ()) -> int:
        async with self.lock:
            count = self.con.execute(sql, params).rowcount
            commit = self._committed()  # a statement of its own: committed (autocommit), DDL included
        await self._durable(commit)
        return count

    async def lock_migrations(self, tx: Tx) -> None:
        return None  # BEGIN IMMEDIATE already holds the database's write lock

    async def user_tables(self, tx: Tx) -> list[str]:
        names = [
            r[0]
            for r in await tx.fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        tables = []
        for name in names:
            cols = {r[1] for r in await tx.fetchall(f'PRAGMA table_info("{name}")')}
            if "user_key" in cols:
                tables.append(name)
        return tables

    async def before_forget(self, tx: Tx) -> None:
        await tx.execute("PRAGMA defer_foreign_keys = ON")

    async def after_forget(self) -> None:
        # The deleted rows still sit in the -wal file until a checkpoint: copy the WAL into the database
        # (where secure_delete zeroed them) and truncate it to zero bytes.
        async with self.lock:
            self.con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def backup(self, dest: str | Path) -> None:
        """A consistent copy through SQLite's online backup API (a plain file copy can miss the WAL)."""
        out = sqlite3.connect(str(dest))
        try:
            self.con.backup(out)
        finally:
            out.close()

    async def close(self) -> None:
        self.resign()
        await self._durable(self._commits)
        async with self.lock:
            self.con.close()
        if self._syncer is not None:
            self._syncer.shutdown(wait=True)


def _timed_fsync(path: str | None) -> float:
    """:func:`_fsync` of ``path``; returns how long it took (seconds)."""
    assert path is not None
    began = time.perf_counter()
    _fsync(path)
    return time.perf_counter() - began


def _fsync(path: str) -> None:
    """Sync a file's written data to disk (the WAL: every frame written before this call)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:  # no WAL (yet, or checkpointed away on close): nothing to sync
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
