"""The whole database as one portable file, read and written by either dialect (``sikpan export`` /
``sikpan import``, docs/deploy.md "Moving from SQLite to PostgreSQL").

The file is JSON Lines (UTF-8; gzip when its name ends in ``.gz``):

- line 1, the header: ``{"sikpan_export": 1, "schema": N, "dialect": …, "created_at": …}`` — ``schema`` is
  the last migration applied to the source (the rows are in that migration's shape);
- per table: ``{"table": NAME, "columns": [...]}``, then one JSON array per row, in the key's order;
- last: ``{"end": {NAME: rows, …}}`` — a file cut short (a full disk, a lost copy) lacks it and is refused.

One user's data (``sikpan export --user KEY``, the chat's ``/export``) is the same file with ``"user": KEY``
in its header and, of every table with a ``user_key`` column (the /forget convention), that user's rows:
it reads back with ``sikpan import`` into a new database like a whole one.

Every table of the schema is carried (users, settings, history with the per-user counters, subscriptions
and their deliveries, the webhook ledger …) but ``schema_version`` (the header's ``schema``) and
``schedulers`` (the heartbeats of processes running on the source; a new database starts with none).

An import goes into a new database (or one whose tables are all empty at the file's schema): it applies
the migrations up to the file's ``schema``, inserts every row with its own numbers in one transaction
(parents before the tables that reference them, each table's numbering moved past its rows), then applies
the migrations that came after, so a file from an older sikpan is carried forward like its database.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from bot.i18n import N_
from bot.storage import Storage, load_migrations
from bot.storage.backend import TableInfo, Tx

FORMAT = 1
SKIPPED = frozenset({"schema_version", "schedulers"})
PAGE = 1000  # rows read (and inserted) at a time


class PortableError(ValueError):
    """The file or the target database cannot take part in the move; ``code`` is a message id."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Moved:
    schema: int
    rows: Mapping[str, int]  # per table

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def _writer(path: Path) -> IO[str]:
    """A new file (``FileExistsError`` if there is one)."""
    if path.suffix == ".gz":
        return gzip.open(path, "xt", encoding="utf-8")
    return path.open("x", encoding="utf-8")


def _reader(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open("r", encoding="utf-8")


def _line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def in_order(tables: Sequence[TableInfo]) -> list[TableInfo]:
    """Parents before the tables whose foreign keys reference them; ``history_counters`` before ``history``
    (SQLite's trigger of migration 0009 raises a counter to the largest number inserted, never lowers it:
    a counter already past its user's last row, after a /history prune, must be in place first)."""
    by_name = {t.name: t for t in tables}
    done: list[TableInfo] = []
    seen: set[str] = set()

    def visit(table: TableInfo) -> None:
        if table.name in seen:
            return
        seen.add(table.name)
        for parent in sorted(table.parents):
            if parent in by_name:
                visit(by_name[parent])
        done.append(table)

    for table in sorted(tables, key=lambda t: (t.name != "history_counters", t.name)):
        visit(table)
    return done


async def export(storage: Storage, path: Path, user_key: str | None = None) -> Moved:
    """Write the database (or the rows of ``user_key``) to a new file ``path`` (refused if it exists);
    returns what was written."""
    try:
        out = _writer(path)
    except FileExistsError:
        raise PortableError(N_("cli.export.exists"), path=str(path)) from None
    with out:
        return await write(storage, out, user_key)


async def write(storage: Storage, out: IO[str], user_key: str | None = None) -> Moved:
    """Write the export to ``out``: every table, or — with ``user_key`` — that user's rows of every table
    with a ``user_key`` column (one snapshot either way)."""
    counts: dict[str, int] = {}
    async with storage.transaction() as tx:  # one snapshot of every table
        schema_row = await tx.fetchone("SELECT COALESCE(MAX(version), 0) FROM schema_version")
        schema = int(schema_row[0]) if schema_row else 0
        tables = [t for t in in_order(await storage.backend.tables(tx)) if t.name not in SKIPPED]
        if user_key is not None:
            tables = [t for t in tables if "user_key" in t.columns]
        header: dict[str, Any] = {
            "sikpan_export": FORMAT,
            "schema": schema,
            "dialect": storage.dialect,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if user_key is not None:
            header["user"] = user_key
        out.write(_line(header))
        for table in tables:
            out.write(_line({"table": table.name, "columns": list(table.columns)}))
            counts[table.name] = 0
            async for row in _pages(tx, table, user_key):
                out.write(_line(row))
                counts[table.name] += 1
        out.write(_line({"end": counts}))
    return Moved(schema, counts)


async def _pages(tx: Tx, table: TableInfo, user_key: str | None = None) -> AsyncIterator[list[Any]]:
    """The table's rows (as lists, in its columns' order; only ``user_key``'s when given), a page at a time
    in the key's order."""
    cols = ", ".join(f'"{c}"' for c in table.columns)
    key = ", ".join(f'"{k}"' if k != "rowid" else "rowid" for k in table.key)
    extra = [k for k in table.key if k not in table.columns]
    select = f'SELECT {cols}{"".join(", " + k for k in extra)} FROM "{table.name}"'
    positions = [
        (table.columns.index(k) if k in table.columns else len(table.columns) + extra.index(k))
        for k in table.key
    ]
    after: list[Any] | None = None
    while True:
        conditions, params = ([], []) if user_key is None else (["user_key = ?"], [user_key])
        if after is not None:
            conditions.append(f"({key}) > ({', '.join('?' for _ in after)})")
            params.extend(after)
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        rows = await tx.fetchall(f"{select}{where} ORDER BY {key} LIMIT ?", (*params, PAGE))
        for row in rows:
            yield [row[i] for i in range(len(table.columns))]
        if len(rows) < PAGE:
            return
        after = [rows[-1][i] for i in positions]


def _read(path: Path) -> Iterator[Any]:
    try:
        source = _reader(path)
    except FileNotFoundError:
        raise PortableError(N_("cli.import.missing"), path=str(path)) from None
    with source:
        for number, text in enumerate(source, 1):
            try:
                yield json.loads(text)
            except ValueError:
                raise PortableError(N_("cli.import.malformed"), path=str(path), line=number) from None


async def _is_empty(tx: Tx, tables: Sequence[TableInfo]) -> bool:
    for table in tables:
        if table.name != "schema_version" and await tx.fetchone(f'SELECT 1 FROM "{table.name}" LIMIT 1'):
            return False
    return True


async def import_(storage: Storage, path: Path) -> Moved:
    """Load a file written by :func:`export` into ``storage`` (opened with ``migrate=False``), then migrate
    it to this sikpan's schema. Nothing is kept of a refused or failed import (one transaction)."""
    lines = _read(path)
    header = next(lines, None)
    if not isinstance(header, dict) or header.get("sikpan_export") != FORMAT:
        raise PortableError(N_("cli.import.not_export"), path=str(path))
    schema = int(header["schema"])
    migrations = load_migrations(dialect=storage.dialect)
    if schema > max((m.version for m in migrations), default=0):
        raise PortableError(N_("cli.import.newer"), path=str(path), schema=schema)
    current = await storage.schema_version()
    if current > schema:
        raise PortableError(N_("cli.import.not_empty"), target=storage.path)
    await storage.migrate([m for m in migrations if m.version <= schema])
    counts: dict[str, int] = {}
    async with storage.transaction() as tx:
        by_name = {t.name: t for t in await storage.backend.tables(tx)}
        if not await _is_empty(tx, list(by_name.values())):
            raise PortableError(N_("cli.import.not_empty"), target=storage.path)
        table: TableInfo | None = None
        insert = ""
        batch: list[list[Any]] = []
        end: Any = None
        for item in lines:
            if isinstance(item, list):
                if table is None:
                    raise PortableError(N_("cli.import.malformed"), path=str(path), line=0)
                batch.append(item)
                counts[table.name] += 1
                if len(batch) >= PAGE:
                    await tx.executemany(insert, batch)
                    batch = []
                continue
            if table is not None and batch:
                await tx.executemany(insert, batch)
                batch = []
            if table is not None:
                await storage.backend.after_import(tx, table)
            if isinstance(item, dict) and "table" in item:
                name = str(item["table"])
                columns = tuple(str(c) for c in item["columns"])
                if name not in by_name or name in SKIPPED or not set(columns) <= set(by_name[name].columns):
                    raise PortableError(N_("cli.import.unknown_table"), path=str(path), table=name)
                table = by_name[name]
                counts[name] = 0
                names = ", ".join(f'"{c}"' for c in columns)
                marks = ", ".join("?" for _ in columns)
                insert = f'INSERT INTO "{name}" ({names}) VALUES ({marks})'
            elif isinstance(item, dict) and "end" in item:
                end = item["end"]
                table = None
                break
            else:
                raise PortableError(N_("cli.import.not_export"), path=str(path))
        if end != counts:  # cut short, or rows lost on the way: the transaction rolls back
            raise PortableError(N_("cli.import.truncated"), path=str(path))
    await storage.migrate()
    return Moved(schema, counts)
