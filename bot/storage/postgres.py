"""The PostgreSQL dialect, chosen when ``SIKPAN_DB`` is a ``postgresql://`` URL: asyncpg with a pool.

- SQL arrives with ``?`` placeholders (the storage's one spelling) and is rewritten once per statement to
  asyncpg's ``$1, $2 …``.
- ``?schema=NAME`` in the URL (an addition of ours, removed before connecting) puts every table in that
  schema (created when missing) through ``search_path``: the tests give each test a fresh one.
- Migrations are serialized across processes with a transaction-scoped advisory lock.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any

import asyncpg

from bot.storage.backend import Params, Row, TableInfo, Tx
from bot.storage.urls import redact_url, split_url

POOL_MAX = 10


class DatabaseUnavailable(OSError):
    """The PostgreSQL server refused us or the URL is wrong (an OSError, like a refused connection, so the
    callers' one ``except (sqlite3.Error, OSError)`` reports it as a database that cannot be opened)."""


@lru_cache(maxsize=512)
def to_dollar(sql: str) -> str:
    """``?`` placeholders outside quoted text → ``$1, $2 …``."""
    out: list[str] = []
    n = 0
    quote: str | None = None
    for ch in sql:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            n += 1
            out.append(f"${n}")
            continue
        out.append(ch)
    return "".join(out)


def _count(status: str) -> int:
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PgTx:
    def __init__(self, con: Any) -> None:
        self.con = con

    async def execute(self, sql: str, params: Params = ()) -> int:
        return _count(await self.con.execute(to_dollar(sql), *params))

    async def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        await self.con.executemany(to_dollar(sql), rows)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return list(await self.con.fetch(to_dollar(sql), *params))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        return await self.con.fetchrow(to_dollar(sql), *params)


class PgBackend:
    dialect = "postgresql"
    skip_locked = " FOR UPDATE SKIP LOCKED"  # concurrent takers pass over rows another one holds

    multi_scheduler = True  # schedulers of many processes claim side by side (SKIP LOCKED, heartbeats)

    # the counter's upsert locks the user's counter row until the statement commits: concurrent writers of one
    # user get distinct, consecutive numbers
    insert_history = (
        "WITH counter AS (INSERT INTO history_counters (user_key, last_seq) VALUES (?, 1)"
        " ON CONFLICT (user_key) DO UPDATE SET last_seq = history_counters.last_seq + 1"
        " RETURNING user_key, last_seq)"
        " INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at, engine,"
        " summary) SELECT counter.user_key, counter.last_seq, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM counter RETURNING seq"
    )

    def try_lead(self, platforms: Sequence[str]) -> bool:
        return True

    def resign(self) -> None:
        return None

    def __init__(self, pool: Any, url: str) -> None:
        self.pool = pool
        self.target = redact_url(url)

    @classmethod
    async def open(cls, url: str) -> PgBackend:
        """Connect (and create ``?schema=``); a server that refuses, or a bad URL, is :class:`DatabaseUnavailable`."""
        try:
            dsn, schema, size = split_url(url, POOL_MAX)
            settings: dict[str, str] = {}
            if schema is not None:
                con = await asyncpg.connect(dsn)
                try:
                    await con.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                except asyncpg.UniqueViolationError:
                    pass  # created by a concurrent process a moment ago
                finally:
                    await con.close()
                settings["search_path"] = schema
            pool = await asyncpg.create_pool(dsn, min_size=1, max_size=size, server_settings=settings)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as err:
            raise DatabaseUnavailable(f"{type(err).__name__}: {err}") from err
        return cls(pool, url)

    @asynccontextmanager
    async def transaction(self, durable: bool = True) -> AsyncIterator[PgTx]:
        """``durable=False``: ``synchronous_commit = off`` for this transaction only (the server may lose it
        in a crash of its own, never half of it; a later durable commit flushes the WAL up to it)."""
        async with self.pool.acquire() as con, con.transaction():
            if not durable:
                await con.execute("SET LOCAL synchronous_commit = off")
            yield PgTx(con)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return list(await self.pool.fetch(to_dollar(sql), *params))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        return await self.pool.fetchrow(to_dollar(sql), *params)

    async def execute(self, sql: str, params: Params = ()) -> int:
        return _count(await self.pool.execute(to_dollar(sql), *params))

    async def lock_migrations(self, tx: Tx) -> None:
        await tx.fetchall("SELECT pg_advisory_xact_lock(hashtext(current_schema()))")

    async def user_tables(self, tx: Tx) -> list[str]:
        rows = await tx.fetchall(
            "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND column_name = 'user_key' ORDER BY table_name"
        )
        return [str(r[0]) for r in rows]

    async def tables(self, tx: Tx) -> list[TableInfo]:
        cols = await tx.fetchall(
            "SELECT table_name, column_name, is_identity FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        )
        keys = await tx.fetchall(
            "SELECT k.table_name, k.column_name FROM information_schema.table_constraints c"
            " JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name"
            " AND k.constraint_schema = c.constraint_schema AND k.table_name = c.table_name"
            " WHERE c.constraint_schema = current_schema() AND c.constraint_type = 'PRIMARY KEY'"
            " ORDER BY k.table_name, k.ordinal_position"
        )
        refs = await tx.fetchall(
            "SELECT c.table_name, u.table_name FROM information_schema.table_constraints c"
            " JOIN information_schema.constraint_table_usage u ON u.constraint_name = c.constraint_name"
            " AND u.constraint_schema = c.constraint_schema"
            " WHERE c.constraint_schema = current_schema() AND c.constraint_type = 'FOREIGN KEY'"
        )
        names = sorted({str(r[0]) for r in cols})
        return [
            TableInfo(
                name,
                tuple(str(r[1]) for r in cols if r[0] == name),
                tuple(str(r[1]) for r in keys if r[0] == name),
                frozenset(str(r[1]) for r in refs if r[0] == name),
                next((str(r[1]) for r in cols if r[0] == name and r[2] == "YES"), None),
            )
            for name in names
        ]

    async def after_import(self, tx: Tx, table: TableInfo) -> None:
        if table.identity is not None:
            await tx.fetchone(
                f'SELECT setval(pg_get_serial_sequence(?, ?), COALESCE(MAX("{table.identity}"), 0) + 1, false)'
                f' FROM "{table.name}"',
                (f'"{table.name}"', table.identity),
            )

    async def before_forget(self, tx: Tx) -> None:
        return None  # the only foreign key cascades

    async def after_forget(self) -> None:
        return None  # dead tuples go with autovacuum; the server's files are the operator's (docs/deploy.md)

    async def close(self) -> None:
        await self.pool.close()
