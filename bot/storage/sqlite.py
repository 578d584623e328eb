"""The SQLite dialect (the embedded default): the standard library's ``sqlite3`` called on the event loop.

- One connection per process in WAL mode with ``synchronous=FULL``: a transaction that returned from COMMIT
  survives a crash (and a power loss). ``transaction(durable=False)`` commits with ``synchronous=NORMAL``
  (no fsync): it survives a crash of the process, and a power loss may roll it back — for a transaction
  nothing outside the database acts on before a later durable one (a daily claim: the send waits for the
  durable ``claimed`` → ``sending`` commit, which syncs the write-ahead log up to it, claim included).
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
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from bot.storage.backend import Params, Row, Tx

BUSY_TIMEOUT_MS = 10_000
WAL_AUTOCHECKPOINT_PAGES = 10_000  # ≈ 40 MB of write-ahead log between checkpoints


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

    def __init__(self, con: sqlite3.Connection, path: str) -> None:
        self.con = con
        self.target = path
        self.lock = asyncio.Lock()
        self.tx = SqliteTx(con)
        self._lead_fds: list[int] = []

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
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=FULL")
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
        return cls(con, str(path))

    @asynccontextmanager
    async def transaction(self, durable: bool = True) -> AsyncIterator[SqliteTx]:
        async with self.lock:
            if not durable:
                self.con.execute("PRAGMA synchronous=NORMAL")
            try:
                self.con.execute(
                    "BEGIN IMMEDIATE"
                )  # the write lock first: no upgrade deadlock between processes
                try:
                    yield self.tx
                except BaseException:
                    self.con.execute("ROLLBACK")
                    raise
                else:
                    self.con.execute("COMMIT")
            finally:
                if not durable:
                    self.con.execute("PRAGMA synchronous=FULL")

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        async with self.lock:
            return self.con.execute(sql, params).fetchall()

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        async with self.lock:
            return self.con.execute(sql, params).fetchone()

    async def execute(self, sql: str, params: Params = ()) -> int:
        async with self.lock:
            return self.con.execute(sql, params).rowcount

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
        async with self.lock:
            self.con.close()
