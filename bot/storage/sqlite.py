"""The SQLite dialect (the embedded default): aiosqlite, two connections per process — the writer, and a
reader for the statements that only read (``SELECT …``).

- aiosqlite runs every statement on its connection's own thread; the event loop awaits the answer and serves
  other chats meanwhile (a slow disk holds that thread, not the loop). A read goes to the reader (its own
  thread, ``query_only``), so it never waits behind a write's sync: in WAL mode it reads the last committed
  state — every write that returned, none half done. Without WAL (``:memory:``) the writer reads too.
- WAL mode with ``synchronous=FULL``: SQLite syncs the write-ahead log at every COMMIT (and the log's
  directory when it creates it), so a write that returned (a :meth:`~SqliteBackend.transaction` block,
  :meth:`~SqliteBackend.execute`, an ``INSERT … RETURNING`` read with ``fetchone``) survives a crash of the
  process and a power loss. Checkpoints sync the log and the database themselves.
  ``transaction(durable=False)`` commits under ``synchronous=NORMAL`` (set for that transaction only): its
  COMMIT survives a crash of the process, and a power loss may roll it back whole — for a transaction nothing
  outside the database acts on before a later durable one (a daily claim: the send waits for the durable
  ``claimed`` → ``sending`` commit, whose sync of the log covers every frame before it, the claim's included).
- Coroutines of one process never interleave inside a transaction: an ``asyncio.Lock`` is held from
  ``BEGIN IMMEDIATE`` to ``COMMIT``/``ROLLBACK``, and a statement of its own on the writer
  (:meth:`~SqliteBackend.execute`, a ``fetchone``/``fetchall`` that is not a ``SELECT``: autocommit) takes it
  too, so it never runs inside another coroutine's open transaction. A transaction's end is queued on the
  connection's thread before the lock is released, so even a cancelled one ends before the next begins.
- Other processes on the same file wait for the write lock through ``busy_timeout`` (SQLite's own lock).
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.storage.backend import Params, Row, TableInfo, Tx

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 10_000
WAL_AUTOCHECKPOINT_PAGES = 10_000  # ≈ 40 MB of write-ahead log between checkpoints

# the writer's settings, in order (journal_mode first: synchronous=FULL is what makes a WAL commit durable)
PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
    # checkpoint every ~40 MB of log rather than SQLite's 4 MB: the daily claims rewrite pages scattered over
    # the subscriptions table minute after minute, and a page written many times between two checkpoints is
    # copied once (measured: half the wall time of a day's claims, issue 18)
    f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}",
    "PRAGMA foreign_keys=ON",
    "PRAGMA secure_delete=ON",  # deleted rows are zeroed, not left in free pages
)
# the reader's: a statement that would write fails there rather than commit outside the writer's lock
READER_PRAGMAS = (f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}", "PRAGMA query_only=ON")
# the checkpointer's (after /forget): no busy wait — a TRUNCATE checkpoint that waits for a reader holds the
# write lock while it waits (every writer would wait with it); busy, it is tried again a moment later
CHECKPOINT_PRAGMAS = ("PRAGMA busy_timeout=0",)
WIPE_FIRST_RETRY = 0.05  # seconds before the first retry of a busy checkpoint, doubled up to WIPE_MAX_RETRY
WIPE_MAX_RETRY = 1.0


async def _pragma(db: aiosqlite.Connection, pragma: str) -> None:
    """Run a setting, again while the database is busy: connections opening one file at once (the processes of
    one deployment starting together) may each find ``journal_mode=WAL`` busy, and SQLite answers that at once,
    without its busy handler, where waiting could deadlock (two readers both asking for the write lock)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            await db.execute(pragma)
            return
        except sqlite3.OperationalError as err:
            if err.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
        await asyncio.sleep(0.01)


async def _connect(path: str, pragmas: Sequence[str]) -> tuple[aiosqlite.Connection, str]:
    """A connection in autocommit (explicit BEGIN/COMMIT) with these settings, and its journal mode."""
    db = await aiosqlite.connect(path, isolation_level=None)
    try:
        db.row_factory = sqlite3.Row
        for pragma in pragmas:
            await _pragma(db, pragma)
        mode = next(iter(await db.execute_fetchall("PRAGMA journal_mode")))[0]
    except BaseException:
        await db.close()
        raise
    return db, str(mode).lower()


def _reads(sql: str) -> bool:
    """A statement that only reads: a ``SELECT`` (the other reads here are PRAGMAs, run on the writer)."""
    return sql.lstrip()[:6].upper() == "SELECT"


class SqliteTx:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, params: Params = ()) -> int:
        return (await self.db.execute(sql, params)).rowcount

    async def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        await self.db.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return list(await self.db.execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        # every row, in one hop to the connection's thread (a cursor's fetchone is one more): the storage's
        # fetchone reads a row by its key, a count, or the row an INSERT … RETURNING wrote
        rows = await self.db.execute_fetchall(sql, params)
        return next(iter(rows), None)


class SqliteBackend:
    dialect = "sqlite"
    skip_locked = ""  # one writer at a time: BEGIN IMMEDIATE holds the database

    multi_scheduler = False  # one scheduler per database file and platform, elected by lock files (try_lead)

    # the number after the user's counter; the trigger of migration 0009 moves the counter on. One statement
    # committed on its own: SQLite takes the write lock as a writing statement starts, before the subquery.
    insert_history = (
        "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at, engine,"
        " summary) VALUES (?1, COALESCE((SELECT last_seq FROM history_counters WHERE user_key = ?1), 0) + 1,"
        " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING seq"
    )

    def __init__(
        self, db: aiosqlite.Connection, path: str, reader: aiosqlite.Connection | None = None
    ) -> None:
        self.db = db
        self.reader = reader  # None: the writer reads too (no WAL)
        self.target = path
        self.lock = asyncio.Lock()
        self.tx = SqliteTx(db)
        self._lead_fds: list[int] = []
        self._checkpointer: aiosqlite.Connection | None = None  # opened at the first /forget
        self._wiping: asyncio.Task[None] | None = None  # retries a busy checkpoint after /forget
        self.wipe_retries = 0  # checkpoints after /forget that found the log in use (tried again)

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
    async def open(cls, path: str | Path) -> SqliteBackend:
        db, mode = await _connect(str(path), PRAGMAS)
        try:
            # only WAL lets a reader read while the writer writes (and ":memory:" would be another database)
            reader = (await _connect(str(path), READER_PRAGMAS))[0] if mode == "wal" else None
        except BaseException:
            await db.close()
            raise
        return cls(db, str(path), reader)

    async def _rollback(self) -> None:
        """``ROLLBACK``, queued behind every statement of the transaction: it runs after them whatever happens
        to this coroutine meanwhile (cancelled, say, while a statement was on the thread)."""
        try:
            await self.db.execute("ROLLBACK")
        except sqlite3.OperationalError:
            pass  # no transaction open: its BEGIN failed (busy past busy_timeout), or its COMMIT went through

    @asynccontextmanager
    async def transaction(self, durable: bool = True) -> AsyncIterator[SqliteTx]:
        async with self.lock:
            try:
                if not durable:  # this transaction's COMMIT writes the log without syncing it
                    await self.db.execute("PRAGMA synchronous=NORMAL")
                # the write lock first: no upgrade deadlock between processes
                await self.db.execute("BEGIN IMMEDIATE")
                try:
                    yield self.tx
                    await self.db.execute("COMMIT")
                except BaseException:
                    await self._rollback()
                    raise
            finally:
                if not durable:  # queued before the lock is released: the next transaction is durable again
                    await self.db.execute("PRAGMA synchronous=FULL")

    # A statement of its own is its own transaction (autocommit): a read on the reader, at once; anything else
    # on the writer under the lock, never inside another coroutine's open transaction.

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        if self.reader is not None and _reads(sql):
            return list(await self.reader.execute_fetchall(sql, params))
        async with self.lock:
            return await self.tx.fetchall(sql, params)

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        if self.reader is not None and _reads(sql):
            return next(iter(await self.reader.execute_fetchall(sql, params)), None)
        async with self.lock:
            return await self.tx.fetchone(sql, params)

    async def execute(self, sql: str, params: Params = ()) -> int:
        async with self.lock:
            return await self.tx.execute(sql, params)

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

    async def tables(self, tx: Tx) -> list[TableInfo]:
        infos = []
        for name, sql in await tx.fetchall(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ):
            cols = await tx.fetchall(f'PRAGMA table_info("{name}")')
            key = tuple(str(c[1]) for c in sorted((c for c in cols if c[5]), key=lambda c: int(c[5])))
            parents = frozenset(str(r[2]) for r in await tx.fetchall(f'PRAGMA foreign_key_list("{name}")'))
            identity = key[0] if len(key) == 1 and "AUTOINCREMENT" in str(sql).upper() else None
            infos.append(
                TableInfo(str(name), tuple(str(c[1]) for c in cols), key or ("rowid",), parents, identity)
            )
        return infos

    async def after_import(self, tx: Tx, table: TableInfo) -> None:
        return None  # AUTOINCREMENT's counter (sqlite_sequence) follows the largest number inserted

    async def before_forget(self, tx: Tx) -> None:
        await tx.execute("PRAGMA defer_foreign_keys = ON")

    async def after_forget(self) -> None:
        """The deleted rows still sit in the ``-wal`` file until a checkpoint: copy the log into the database
        (where ``secure_delete`` zeroed them) and truncate it to zero bytes (``wal_checkpoint(TRUNCATE)``).

        On a connection of its own with no busy wait, never on the writer (whose lock every command's write
        needs) nor blocking: another connection reading the file (``sikpan backup``, a reader's snapshot) keeps
        the log in use, and SQLite then answers ``busy`` (the result's first column) — checked, and the
        checkpoint tried again in the background (:meth:`wiped`), 50 ms doubling to 1 s, until it truncates
        the log, i.e. until that reader ends. /forget answers meanwhile; other users' commands never wait."""
        if self.reader is None:
            return  # no WAL (":memory:" or a rollback journal): the delete wrote the database itself
        if await self._truncate_wal():
            return
        if self._wiping is None or self._wiping.done():
            self._wiping = asyncio.create_task(self._wipe_wal())

    async def _truncate_wal(self) -> bool:
        """One ``wal_checkpoint(TRUNCATE)`` on the checkpointer: True when the log is now empty."""
        if self._checkpointer is None:
            self._checkpointer = (await _connect(self.target, CHECKPOINT_PRAGMAS))[0]
        try:
            rows = await self._checkpointer.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.OperationalError as err:
            if err.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                return False
            raise
        busy = next(iter(rows))[0]
        return int(busy) == 0

    async def _wipe_wal(self) -> None:
        delay = WIPE_FIRST_RETRY
        while True:
            self.wipe_retries += 1
            await asyncio.sleep(delay)
            try:
                if await self._truncate_wal():
                    log.info(
                        "storage: the -wal file is truncated after /forget (%d tries)", self.wipe_retries
                    )
                    return
            except sqlite3.Error as err:  # a task's boundary: the database answered an error; try again
                log.warning("storage: the checkpoint after /forget failed (%s); trying again", err)
            delay = min(delay * 2, WIPE_MAX_RETRY)

    async def wiped(self) -> None:
        """Wait until the checkpoint after the last /forget has truncated the log (tests, ``close``)."""
        if self._wiping is not None:
            await asyncio.shield(self._wiping)

    async def close(self) -> None:
        self.resign()
        if self._wiping is not None and not self._wiping.done():
            self._wiping.cancel()
            log.warning(
                "storage: closing while the -wal file still holds rows /forget deleted (a reader holds it)"
            )
        if self._checkpointer is not None:
            await self._checkpointer.close()
        if self.reader is not None:
            await self.reader.close()
        async with self.lock:
            await self.db.close()  # the last connection to the file checkpoints and deletes the WAL
