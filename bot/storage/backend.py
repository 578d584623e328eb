"""What the storage needs of a database engine: one interface, one module per dialect (``sqlite``,
``postgresql``). SQL given to it uses ``?`` placeholders and the SQL both engines share (``ON CONFLICT``,
``RETURNING``); whatever differs between the engines lives in the dialect modules only."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

Row: TypeAlias = Any  # sqlite3.Row or asyncpg.Record: both index by column name and by position
Params: TypeAlias = Sequence[Any]


@dataclass(frozen=True)
class TableInfo:
    """One table of the schema as ``sikpan export`` / ``import`` see it (bot/storage/portable.py)."""

    name: str
    columns: tuple[str, ...]  # in the table's order
    key: tuple[str, ...]  # primary key columns (SQLite: ``rowid`` for a table without one)
    parents: frozenset[str]  # tables its foreign keys reference
    identity: str | None  # the column numbered by the engine (AUTOINCREMENT / IDENTITY), if any


class Tx(Protocol):
    """Statements inside one transaction."""

    async def execute(self, sql: str, params: Params = ()) -> int: ...

    async def executemany(self, sql: str, rows: Sequence[Params]) -> None: ...

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None: ...


class Backend(Protocol):
    dialect: str  # "sqlite" | "postgresql"
    skip_locked: str  # appended to a SELECT whose rows one transaction takes: "" or " FOR UPDATE SKIP LOCKED"
    target: str  # the file path, or the URL without its password

    multi_scheduler: bool  # True: schedulers of many processes run at once; False: one elected (try_lead)
    # one statement that records a cast under the user's next number and returns it (``seq``); parameters
    # (user_key, kind, command, inputs, options, view, context, created_at, engine, summary). The engines differ: SQLite has
    # no data-modifying CTE (it moves the counter on by a trigger, migration 0009), PostgreSQL has one.
    insert_history: str

    def try_lead(self, platforms: Sequence[str]) -> bool:
        """Become the one scheduler of these platforms' readings if the engine elects one (all or none);
        True when elected (or when the engine needs no election)."""

    def resign(self) -> None: ...

    def transaction(self, durable: bool = True) -> AbstractAsyncContextManager[Tx]:
        """One write transaction. ``durable=False``: its commit does not wait for the disk — a crash of the
        process never loses it, a crash of the machine (or of the database server) may roll it back whole;
        for transactions nothing outside the database acts on before a later durable commit."""

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None: ...

    async def execute(self, sql: str, params: Params = ()) -> int: ...

    async def lock_migrations(self, tx: Tx) -> None:
        """Serialize concurrent migrators (called first inside each migration's transaction)."""

    async def user_tables(self, tx: Tx) -> list[str]:
        """Every table of the schema with a ``user_key`` column."""

    async def tables(self, tx: Tx) -> list[TableInfo]:
        """Every table of the schema (the migrations' bookkeeping ``schema_version`` included), by name."""

    async def after_import(self, tx: Tx, table: TableInfo) -> None:
        """Move the table's numbering past the rows just imported with their own numbers."""

    async def before_forget(self, tx: Tx) -> None: ...

    async def after_forget(self) -> None:
        """Make deleted rows unrecoverable from the engine's files where the engine allows it."""

    async def close(self) -> None: ...
