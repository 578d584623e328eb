"""The SQLite dialect (the embedded default): the standard library's ``sqlite3`` called on the event loop.

- One connection per process in WAL mode. A write that returned (a :meth:`~SqliteBackend.transaction` block,
  :meth:`~SqliteBackend.execute`) survives a crash and a power loss, as with ``synchronous=FULL`` — but its
  sync does not hold the event loop when the disk is slow (#18: 0.2 ms a commit on a quiet disk, 6–7 ms
  measured on a shared one, every other chat waiting): COMMIT runs with ``synchronous=NORMAL`` (the WAL frames
  are written, not synced) and the writer then waits for one sync of the ``-wal`` file that began after its
  COMMIT and covers every commit made before it (*group commit*: concurrent commands share one sync).
- The sync is what SQLite's ``synchronous=FULL`` makes of its WAL: ``fdatasync`` where the platform has it
  (Linux; ``fsync`` elsewhere) — the frames and the file's size, which is all WAL recovery reads; not the
  modification time — of the WAL file SQLite writes: one descriptor, opened at the first sync and kept while
  the connection is open (the WAL is the same file as long as this connection is open: a checkpoint, even
  ``TRUNCATE``, keeps it; SQLite deletes it only when the last connection closes, and this one holds it),
  with the WAL's directory synced once when the descriptor is opened (SQLite syncs the directory of a WAL it
  created at its first sync). A kept descriptor also sees every write-back error of the file.
- While syncs are fast (a moving average of those made on the loop under :data:`INLINE_SYNC_MAX`) the sync is
  made on the loop: a thread hop costs more (≈ 0.11–0.16 ms of CPU a write, ``bench/storage.py sync``; and the
  writer resumes only once the loop's thread lets the worker have the GIL: 1.5–2.4 ms median measured in
  ``bench/bot.py``, against 0.4–0.7 ms for the sync on the loop, issue 18) than such a sync blocks. Once they are
  slow, on a worker thread, so the loop goes on serving other chats; one sync every
  :data:`PROBE_INTERVAL` seconds is then still made on the loop to measure the disk again (a sync on the
  thread cannot be timed alone: its end waits for the GIL), and a fast probe brings the syncs back. A crash
  before the sync may lose only writes whose callers had not returned yet. Checkpoints sync the WAL and the
  database themselves (``NORMAL`` in WAL mode).
  ``transaction(durable=False)`` skips that wait: its COMMIT survives a crash of the process, and a power loss
  may roll it back — for a transaction nothing outside the database acts on before a later durable one (a
  daily claim: the send waits for the durable ``claimed`` → ``sending`` commit, whose sync of the WAL covers
  every frame before it, claim included).
- No thread hop per statement (#18): a statement costs microseconds, so it runs on the loop; every
  transaction is short and synchronous between ``BEGIN IMMEDIATE`` and ``COMMIT`` (the storage never awaits
  anything else inside one), so coroutines of one process never interleave inside a transaction. An
  ``asyncio.Lock`` still guards the connection for callers of :meth:`transaction` that do await: a statement
  of its own (:meth:`~SqliteBackend.fetchone`, ``fetchall``, ``execute``) waits for it only while such a
  transaction is open, and a read (a statement that changed nothing) never waits for a sync.
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
from functools import partial
from pathlib import Path

from bot.storage.backend import Params, Row, Tx

BUSY_TIMEOUT_MS = 10_000
WAL_AUTOCHECKPOINT_PAGES = 10_000  # ≈ 40 MB of write-ahead log between checkpoints
# a sync of the WAL is made on the event loop while the moving average of the durations of those made there is
# below this many seconds (cheaper than the thread hop, and the writer resumes sooner); above it, on the worker
# thread (the loop serves others meanwhile)
INLINE_SYNC_MAX = 0.002
# while syncs go to the thread, one sync per this many seconds is made on the loop to measure the disk again
PROBE_INTERVAL = 1.0


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
        "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at, kept)"
        " VALUES (?1, COALESCE((SELECT last_seq FROM history_counters WHERE user_key = ?1), 0) + 1,"
        " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING seq"
    )

    def __init__(self, con: sqlite3.Connection, path: str, wal: str | None = None) -> None:
        self.con = con
        self.target = path
        self.lock = asyncio.Lock()
        self.tx = SqliteTx(con)
        self._lead_fds: list[int] = []
        # group commit (see the module's docstring): None when the database has no WAL file (":memory:")
        self._wal = wal
        self._wal_fd: int | None = None  # the WAL's descriptor, opened at the first sync (_descriptor)
        self._commits = 0  # writes committed on this connection
        self._synced = 0  # of which this many are known synced to disk
        self._sync: asyncio.Future[None] | None = None  # the sync in flight on the worker thread
        self._syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-sync") if wal else None
        self.syncs = 0  # syncs made (tests, benchmarks: commits / syncs is the group size)
        self.thread_syncs = 0  # of which on the worker thread
        self.sync_seconds = 0.0  # moving average of the durations of the syncs made on the loop
        self.inline_sync_max = INLINE_SYNC_MAX
        self.probe_interval = PROBE_INTERVAL
        self._probed = 0.0  # perf_counter() when the last sync on the loop ended

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

    def _descriptor(self) -> int | None:
        """The WAL's descriptor, kept from the first sync on (None while there is no WAL file: nothing was
        written to one yet). Opened after a commit of this connection, so it is the file SQLite writes."""
        if self._wal_fd is None:
            assert self._wal is not None
            try:
                self._wal_fd = os.open(self._wal, os.O_RDONLY)
            except FileNotFoundError:
                return None
            # and its name, should SQLite have just created it (as SQLite syncs a new WAL's directory)
            _fsync_path(os.path.dirname(os.path.abspath(self._wal)))
        return self._wal_fd

    async def _durable(self, commit: int) -> None:
        """Until write number ``commit`` is on disk: a sync of the WAL that started after it was committed
        (one in flight started before it covers only the earlier ones, so this waits for the next)."""
        while self._synced < commit and self._syncer is not None:
            fd = self._descriptor()
            if fd is None:
                return
            began = time.perf_counter()
            fast = self.sync_seconds < self.inline_sync_max
            if fast or began - self._probed >= self.probe_interval:
                # on the loop (the disk is fast, or a probe is due): it covers every commit made so far
                upto = self._commits
                _fsync(fd)
                self._probed = time.perf_counter()
                took = self._probed - began
                # a probe measures the disk afresh; fast ones make a moving average (one slow sync is no trend)
                self.sync_seconds = 0.8 * self.sync_seconds + 0.2 * took if fast else took
                self._synced_to(upto)
                return
            if self._sync is None or self._sync.done():  # done, its callback not run yet: a new one
                self._sync = asyncio.get_running_loop().run_in_executor(self._syncer, _fsync, fd)
                self._sync.add_done_callback(partial(self._thread_synced, self._commits))
            await asyncio.shield(self._sync)

    def _thread_synced(self, upto: int, done: asyncio.Future[None]) -> None:
        if self._sync is done:
            self._sync = None
        if not done.cancelled() and done.exception() is None:  # a failed sync fails its waiters' writes
            self.thread_syncs += 1
            self._synced_to(upto)

    def _synced_to(self, upto: int) -> None:
        self.syncs += 1
        self._synced = max(self._synced, upto)

    async def _transaction_ended(self) -> None:
        """Return once the transaction open on the connection — another coroutine's, awaiting inside its
        :meth:`transaction` block — has ended: a statement of its own must not run inside it."""
        async with self.lock:
            pass

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

    # A statement of its own runs at once (it is its own transaction: autocommit) unless another coroutine's
    # transaction is open; nothing awaits between that check, the statement and its result, so none interleaves.

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        if self.con.in_transaction:
            await self._transaction_ended()
        before = self.con.total_changes
        rows = self.con.execute(sql, params).fetchall()
        if self.con.total_changes != before:  # … RETURNING wrote: durable before it returns
            await self._durable(self._committed())
        return rows

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        if self.con.in_transaction:
            await self._transaction_ended()
        before = self.con.total_changes
        row = self.con.execute(sql, params).fetchone()
        if self.con.total_changes != before:  # e.g. INSERT … RETURNING
            await self._durable(self._committed())
        return row

    async def execute(self, sql: str, params: Params = ()) -> int:
        if self.con.in_transaction:
            await self._transaction_ended()
        count = self.con.execute(sql, params).rowcount
        await self._durable(self._committed())  # a statement of its own: committed (autocommit), DDL included
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
            self.con.close()  # the last connection to the file checkpoints and deletes the WAL
        if self._syncer is not None:
            self._syncer.shutdown(wait=True)  # a sync still queued there uses the descriptor
        if self._wal_fd is not None:
            os.close(self._wal_fd)
            self._wal_fd = None


def _fsync(fd: int) -> None:
    """Sync a file's written data to disk — the WAL: every frame written before this call, and its size."""
    _datasync(fd)


# SQLite's own sync of a file (``full_fsync`` in os_unix.c): fdatasync where there is one
_datasync = getattr(os, "fdatasync", os.fsync)


def _fsync_path(path: str) -> None:
    """``fsync`` a file or directory by its path (a directory: its entries — a file created in it keeps its name
    after a power loss)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
