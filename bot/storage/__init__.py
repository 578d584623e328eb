"""Durable state: users and settings, cast history, daily subscriptions and deliveries (:class:`DailyStore`),
migrations. Every SQL statement of the bot is in this package.

- Two engines behind one interface (:mod:`bot.storage.backend`): SQLite, the embedded default
  (:mod:`bot.storage.sqlite`), and PostgreSQL when ``SIKPAN_DB`` is a ``postgresql://`` URL
  (:mod:`bot.storage.postgres`, asyncpg with a pool). SQL here is the SQL both engines share, with ``?``
  placeholders; what differs lives in the dialect modules.
- Migrations: one history for both engines. Every ``bot/migrations/NNNN_name.sql`` is applied once, in order
  of NNNN, each inside one transaction together with its row in ``schema_version`` (so a failed migration
  leaves no trace); ``NNNN_name.postgresql.sql`` (or ``.sqlite.sql``) replaces it on that engine where the
  SQL differs. Running them again is a no-op.
- History numbers come from a per-user counter (``history_counters``) moved on atomically with the insert of
  the row, in one statement (``Backend.insert_history``: PostgreSQL's upsert in a data-modifying CTE, SQLite's
  trigger of migration 0009), never ``MAX(seq) + 1``: concurrent writers of one user get distinct,
  consecutive numbers, and pruning never makes a number come back.
- History keeps inputs, not renderings (migration 0012, issue 31): a row holds a cast's inputs, options,
  the engine version that cast it (``engine``) and ``/history``'s line of it (``summary``); its command casts
  it again to show it (``bot.features.common.replay``). A row stored before 0012 (``engine`` NULL) holds the
  view model it was answered with (``context``) and is shown as it is; 0012 put the members that 0011 had
  stored apart (the ``kept`` table, now gone) back into those contexts (:func:`inline_kept`).
- **Convention for other migrations:** every table that stores data of a user has a ``user_key`` column
  (``"platform:user_id"``, see :attr:`bot.commands.Incoming.user_key`). :meth:`Storage.forget` deletes the
  user's rows from every table that has such a column, whatever migration created it.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from importlib import resources
from pathlib import Path
from sys import intern
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo

from bot import jsonio
from bot.schedule_time import due_after, latest_due, pending_due
from bot.storage.backend import Backend, Params, Row, Tx
from bot.storage.sqlite import SqliteBackend
from bot.storage.urls import is_postgres_url
from bot.zones import zone

MIGRATION_RE = re.compile(r"^(\d{4})_[A-Za-z0-9_]+?(?:\.(sqlite|postgresql))?\.sql$")
DIALECTS = ("sqlite", "postgresql")
_UNSET: Any = object()


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


@dataclass(frozen=True)
class UserSettings:
    user_key: str
    platform: str
    user_id: str
    display_name: str | None = None
    lang: str | None = None
    tz: str | None = None
    longitude: float | None = None
    latitude: float | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    place_name: Mapping[str, Any] | None = None  # {"name", "ko", "zh"} of a city chosen by name
    birth: Mapping[str, Any] | None = None  # saved only with the user's consent (/qizheng … save)


@dataclass(frozen=True)
class HistoryEntry:
    seq: int
    kind: str
    command: str
    inputs: Mapping[str, Any]
    options: Mapping[str, Any]
    view: str
    context: Mapping[str, Any]  # a row stored before migration 0012: the view model as answered; else {}
    created_at: str
    engine: str | None = None  # the engine version that cast it (None: stored before migration 0012)
    summary: Mapping[str, Any] | None = None  # /history's line of it (None: stored before migration 0012)


def load_migrations(package: str = "bot.migrations", dialect: str = "sqlite") -> list[Migration]:
    """Every ``NNNN_*.sql`` of the package for ``dialect``, ordered by version.

    ``NNNN_name.<dialect>.sql`` replaces ``NNNN_name.sql`` on that engine; two files of one version for the
    same engine are an error.
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}")
    generic: dict[int, Migration] = {}
    special: dict[int, Migration] = {}
    for entry in resources.files(package).iterdir():
        m = MIGRATION_RE.match(entry.name)
        if not m:
            continue
        if m.group(2) not in (None, dialect):
            continue
        found = generic if m.group(2) is None else special
        version = int(m.group(1))
        if version in found:
            raise RuntimeError(f"two migrations with version {version}: {found[version].name}, {entry.name}")
        found[version] = Migration(version, entry.name, entry.read_text(encoding="utf-8"))
    merged = {**generic, **special}
    return [merged[v] for v in sorted(merged)]


def split_sql(script: str) -> list[str]:
    """A script into complete statements (``sqlite3.complete_statement`` decides where one ends)."""
    statements: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            stmt = buf.strip()
            if stmt.strip(";").strip():
                statements.append(stmt)
            buf = ""
    if buf.strip() and not all(ln.strip().startswith("--") or not ln.strip() for ln in buf.splitlines()):
        raise ValueError(f"incomplete SQL statement at the end of a migration: {buf.strip()[:60]!r}")
    return statements


def _loads_or_none(raw: str | None) -> Mapping[str, Any] | None:
    """A JSON column that may be NULL."""
    return jsonio.loads(raw) if raw else None


# the columns of a user's row that make its UserSettings, in the order of its fields (read by position: one
# look-up per command, issue 18)
USER_COLUMNS = (
    "user_key, platform, user_id, display_name, lang, tz, longitude, latitude, options, place_name, birth"
)


# history entries as read
HISTORY_SELECT = (
    "SELECT seq, kind, command, inputs, options, view, context, created_at, engine, summary FROM history"
)
# a user's casts but the newest N (parameters: user_key, user_key, N)
PRUNE_HISTORY = (
    "DELETE FROM history WHERE user_key = ? AND seq <= ("
    " SELECT seq FROM history WHERE user_key = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)"
)


async def inline_kept(tx: Tx) -> None:
    """Migration 0012's step before its SQL drops the ``kept`` table: each history row that names a kept row
    (migration 0011) gets its context whole again — the kept members put back in their places (the row's text
    has ``null`` there), key order kept — as it was answered, and as rows stored before 0011 hold it."""
    rows = await tx.fetchall(
        "SELECT h.id, h.context, k.text FROM history AS h JOIN kept AS k ON k.digest = h.kept ORDER BY h.id"
    )
    whole: list[tuple[str, int]] = []
    for row_id, context, kept in rows:
        value = jsonio.loads(context)
        value.update(jsonio.loads(kept))  # each member in its place (the context names them all)
        whole.append((jsonio.dumps(value), int(row_id)))
    if whole:
        await tx.executemany("UPDATE history SET context = ? WHERE id = ?", whole)


# Python steps run inside a migration's transaction before its SQL, by the migration's name
BEFORE_SQL: Mapping[str, Callable[[Tx], Awaitable[None]]] = {"0012_history_inputs": inline_kept}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class JsonText(str):
    """A value already serialised by :func:`dumps`: stored as it is (a caller that also needs the value back
    as JSON makes one ``dumps``, not two)."""

    __slots__ = ()


def dumps(obj: Any) -> JsonText:
    """The storage's JSON of ``obj`` (compact, key order kept: it is display order)."""
    return JsonText(jsonio.dumps(obj))


def _dumps(obj: Any) -> str:
    return obj if isinstance(obj, JsonText) else dumps(obj)


class Storage:
    """The bot's database. Create with ``await Storage.open(path_or_url)``; ``await close()`` at the end."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    @property
    def dialect(self) -> str:
        return self.backend.dialect

    @property
    def path(self) -> str:
        """The SQLite file, or the PostgreSQL URL without its password."""
        return self.backend.target

    @classmethod
    async def open(cls, target: str | Path, migrate: bool = True) -> Storage:
        """``target``: a SQLite file path, or a ``postgresql://`` URL."""
        text = str(target)
        backend: Backend
        if is_postgres_url(text):
            from bot.storage.postgres import PgBackend  # asyncpg only when PostgreSQL is asked for

            backend = await PgBackend.open(text)
        else:
            backend = await SqliteBackend.open(text)
        storage = cls(backend)
        try:
            if migrate:
                await storage.migrate()
        except BaseException:
            await backend.close()  # never leave a connection behind
            raise
        return storage

    async def close(self) -> None:
        await self.backend.close()

    # ---- generic helpers (for other areas too) -------------------------------------------------------

    def transaction(self, durable: bool = True) -> AbstractAsyncContextManager[Tx]:
        """``async with storage.transaction() as tx:`` — one write transaction; ``tx.execute``,
        ``tx.executemany``, ``tx.fetchall``, ``tx.fetchone`` run inside it. ``durable=False``: see
        :meth:`bot.storage.backend.Backend.transaction` (a daily claim)."""
        return self.backend.transaction(durable)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        return await self.backend.fetchall(sql, params)

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        return await self.backend.fetchone(sql, params)

    async def execute(self, sql: str, params: Params = ()) -> int:
        """One statement in its own transaction; returns the number of changed rows."""
        return await self.backend.execute(sql, params)

    # ---- migrations -----------------------------------------------------------------------------------

    _VERSION_TABLE = (
        "CREATE TABLE IF NOT EXISTS schema_version ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )

    async def schema_version(self) -> int:
        async with self.transaction() as tx:
            await self.backend.lock_migrations(tx)
            await tx.execute(self._VERSION_TABLE)
            row = await tx.fetchone("SELECT COALESCE(MAX(version), 0) FROM schema_version")
        return int(row[0]) if row else 0

    async def migrate(self, migrations: Iterable[Migration] | None = None) -> list[int]:
        """Apply the pending migrations in order; returns the versions applied (empty when up to date)."""
        applied: list[int] = []
        todo = list(load_migrations(dialect=self.dialect) if migrations is None else migrations)
        for mig in todo:
            async with self.transaction() as tx:  # one per migration; also serializes concurrent processes
                await self.backend.lock_migrations(tx)
                await tx.execute(self._VERSION_TABLE)
                if await tx.fetchone("SELECT 1 FROM schema_version WHERE version = ?", (mig.version,)):
                    continue
                step = BEFORE_SQL.get(mig.name.split(".", 1)[0])
                if step is not None:  # data its SQL would lose, moved first (in the same transaction)
                    await step(tx)
                for stmt in split_sql(mig.sql):
                    await tx.execute(stmt)
                await tx.execute(
                    "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                    (mig.version, mig.name, _now()),
                )
                applied.append(mig.version)
        if migrations is None and 6 in applied:
            # 0006_next_due.sql adds the column; its values need the zone rules (Python)
            await DailyStore(self).fill_next_due(datetime.now(UTC))
        return applied

    # ---- users ----------------------------------------------------------------------------------------

    @staticmethod
    def _user(row: Row) -> UserSettings:
        """A row of :data:`USER_COLUMNS`."""
        key, platform, user_id, display_name, lang, tz, longitude, latitude, options, place_name, birth = row
        return UserSettings(
            key,
            platform,
            user_id,
            display_name,
            lang,
            tz,
            longitude,
            latitude,
            jsonio.loads(options) if options and options != "{}" else {},
            _loads_or_none(place_name),
            _loads_or_none(birth),
        )

    async def server_secret(self, name: str) -> str:
        """The server's secret ``name`` (migration 0013): generated and stored by the first process that asks,
        the same value for every process on this database afterwards."""
        fresh = secrets.token_urlsafe(32)
        await self.execute(
            "INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING", (name, fresh)
        )
        row = await self.fetchone("SELECT value FROM server_secrets WHERE name = ?", (name,))
        assert row is not None  # inserted just now, or by another process before
        return str(row[0])

    async def get_user(self, user_key: str) -> UserSettings | None:
        row = await self.backend.fetchone(
            f"SELECT {USER_COLUMNS} FROM users WHERE user_key = ?",  # noqa: S608 - fixed names
            (user_key,),
        )
        return self._user(row) if row else None

    async def touch_user(
        self, user_key: str, platform: str, user_id: str, display_name: str | None = None
    ) -> UserSettings:
        """The user's row, created with defaults on first contact (display name refreshed)."""
        now = _now()
        row = await self.fetchone(
            "INSERT INTO users (user_key, platform, user_id, display_name, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(user_key) DO UPDATE SET display_name = COALESCE(excluded.display_name,"
            f" users.display_name) RETURNING {USER_COLUMNS}",
            (user_key, platform, user_id, display_name, now, now),
        )
        assert row is not None
        return self._user(row)

    async def update_user(
        self,
        user_key: str,
        *,
        lang: str | None = _UNSET,
        tz: str | None = _UNSET,
        longitude: float | None = _UNSET,
        latitude: float | None = _UNSET,
        options: Mapping[str, Any] = _UNSET,
        place_name: Mapping[str, Any] | None = _UNSET,
        birth: Mapping[str, Any] | None = _UNSET,
    ) -> UserSettings:
        """Change some settings of an existing user (None clears a value)."""
        fields: dict[str, Any] = {}
        for name, value in (
            ("lang", lang),
            ("tz", tz),
            ("longitude", longitude),
            ("latitude", latitude),
        ):
            if value is not _UNSET:
                fields[name] = value
        if options is not _UNSET:
            fields["options"] = _dumps(dict(options))
        for name, obj in (("place_name", place_name), ("birth", birth)):
            if obj is not _UNSET:
                fields[name] = None if obj is None else _dumps(dict(obj))
        fields["updated_at"] = _now()
        sets = ", ".join(f"{name} = ?" for name in fields)
        row = await self.fetchone(
            f"UPDATE users SET {sets} WHERE user_key = ? RETURNING {USER_COLUMNS}",  # noqa: S608 - names are fixed
            (*fields.values(), user_key),
        )
        if row is None:
            raise KeyError(user_key)
        return self._user(row)

    # ---- history --------------------------------------------------------------------------------------

    async def add_history(
        self,
        user_key: str,
        *,
        kind: str,
        command: str,
        inputs: Mapping[str, Any] | JsonText,
        options: Mapping[str, Any] | JsonText,
        view: str,
        engine: str | None = None,
        summary: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | JsonText | None = None,
        created_at: str | None = None,
        keep: int | None = None,
    ) -> int:
        """Record one cast (each of ``inputs``, ``options`` a mapping or its :func:`dumps`); returns its number N
        for ``/show N``. Committed when this returns.

        ``engine``: the engine version that cast it (its command casts the row again to show it); ``summary``:
        ``/history``'s line of it. ``context``: the view model, as rows stored before migration 0012 hold it
        (``engine`` None; tests write such rows), else empty.

        ``keep``: then keep the user's newest ``keep`` casts, this one included (:meth:`prune_history`), in the
        same transaction: one commit and one sync per cast under ``SIKPAN_HISTORY_LIMIT`` too.

        One statement (``Backend.insert_history``, issue 18), committed on its own, not a transaction of two:
        the counter moves on and the row is written together or not at all."""
        params = (
            user_key,
            kind,
            command,
            _dumps(inputs),
            _dumps(options),
            view,
            _dumps(context) if context is not None else "{}",
            created_at or _now(),
            engine,
            _dumps(summary) if summary is not None else None,
        )
        if keep is None:
            row = await self.backend.fetchone(self.backend.insert_history, params)
        else:
            async with self.transaction() as tx:
                row = await tx.fetchone(self.backend.insert_history, params)
                await tx.execute(PRUNE_HISTORY, (user_key, user_key, max(0, keep)))
        assert row is not None
        return int(row[0])

    @staticmethod
    def _entry(row: Row) -> HistoryEntry:
        """A row of :data:`HISTORY_SELECT`."""
        seq, kind, command, inputs, options, view, context, created_at, engine, summary = row
        return HistoryEntry(
            seq=seq,
            kind=kind,
            command=command,
            inputs=jsonio.loads(inputs),
            options=jsonio.loads(options),
            view=view,
            context=jsonio.loads(context) if context != "{}" else {},
            created_at=created_at,
            engine=engine,
            summary=_loads_or_none(summary),
        )

    async def get_history(self, user_key: str, seq: int) -> HistoryEntry | None:
        row = await self.fetchone(
            f"{HISTORY_SELECT} WHERE user_key = ? AND seq = ?",  # noqa: S608 - fixed names
            (user_key, seq),
        )
        return self._entry(row) if row else None

    async def list_history(
        self, user_key: str, limit: int = 10, before: int | None = None
    ) -> list[HistoryEntry]:
        """The newest entries first (``before``: only numbers below it)."""
        rows = await self.fetchall(
            f"{HISTORY_SELECT} WHERE user_key = ? AND seq < ? ORDER BY seq DESC LIMIT ?",  # noqa: S608
            (user_key, before if before is not None else 2**62, limit),
        )
        return [self._entry(r) for r in rows]

    async def prune_history(self, user_key: str, keep: int) -> int:
        """Keep the user's newest ``keep`` casts (``SIKPAN_HISTORY_LIMIT``); returns how many were deleted.

        Numbers are never reused: the next cast still gets the highest number + 1.
        """
        return await self.execute(PRUNE_HISTORY, (user_key, user_key, max(0, keep)))

    async def count_history(self, user_key: str) -> int:
        row = await self.fetchone("SELECT COUNT(*) FROM history WHERE user_key = ?", (user_key,))
        return int(row[0]) if row else 0

    # ---- forget ---------------------------------------------------------------------------------------

    async def user_tables(self) -> list[str]:
        """Every table with a ``user_key`` column (the /forget convention)."""
        async with self.transaction() as tx:
            return await self.backend.user_tables(tx)

    async def forget(self, user_key: str) -> dict[str, int]:
        """Delete every row of the user from every table with a ``user_key`` column, in one transaction.

        Returns the number of rows deleted per table.
        """
        deleted: dict[str, int] = {}
        async with self.transaction() as tx:
            await self.backend.before_forget(tx)
            tables = await self.backend.user_tables(tx)
            # Child tables first, the users table last.
            for name in sorted(tables, key=lambda t: t == "users"):
                deleted[name] = await tx.execute(f'DELETE FROM "{name}" WHERE user_key = ?', (user_key,))
        await self.backend.after_forget()
        return deleted


# ---- daily readings ------------------------------------------------------------------------------------


def utc_iso(at: datetime) -> str:
    """An instant as stored: UTC, ISO 8601, whole seconds."""
    return at.astimezone(UTC).isoformat(timespec="seconds")


def parse_utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


# Most subscriptions share a few options texts and ``since`` stamps: parsed once each (a planning pass
# reads every active subscription, issue 18).
@lru_cache(maxsize=1024)
def _options(text: str) -> Mapping[str, Any]:
    """The options of a subscription, read-only: the subscriptions with the same options text share one."""
    return MappingProxyType(json.loads(text))


@lru_cache(maxsize=4096)
def _instant(text: str) -> datetime:
    return parse_utc(text)


# and a claim reads thousands of rows due at a few instants, wall times and dates
@lru_cache(maxsize=4096)
def _wall_time(text: str) -> time:
    hh, mm = text.split(":")
    return time(int(hh), int(mm))


@lru_cache(maxsize=4096)
def _day(text: str) -> date:
    return date.fromisoformat(text)


@dataclass(frozen=True, slots=True)
class Subscription:
    id: int
    platform: str
    chat_id: str
    chat_kind: str
    user_key: str
    at_time: time
    tz: str
    lang: str
    kind: str
    options: Mapping[str, Any]
    active: bool
    since: datetime
    disabled_reason: str | None = None
    next_due_at: datetime | None = None  # the next due not handled yet (migrations/0006_next_due.sql)
    next_local_date: date | None = None
    topic: str | None = None  # the 大六壬 topic read first (migrations/0014_daily_topic.sql), None: none

    @property
    def zone(self) -> ZoneInfo:
        return zone(self.tz)

    @staticmethod
    def from_row(row: Row) -> Subscription:
        return Subscription(
            id=int(row["id"]),
            platform=intern(row["platform"]),  # a few distinct values over thousands of rows: one copy each
            chat_id=row["chat_id"],
            chat_kind=intern(row["chat_kind"]),
            user_key=row["user_key"],
            at_time=_wall_time(row["at_time"]),
            tz=intern(row["tz"]),
            lang=intern(row["lang"]),
            kind=intern(row["kind"]),
            options=_options(row["options"] or "{}"),
            active=bool(row["active"]),
            since=_instant(row["since"]),
            disabled_reason=row["disabled_reason"],
            next_due_at=_instant(row["next_due_at"]) if row["next_due_at"] else None,
            next_local_date=_day(row["next_local_date"]) if row["next_local_date"] else None,
            topic=intern(row["topic"]) if row["topic"] else None,
        )


# what Subscription.from_row reads (a claim selects these only)
SUBSCRIPTION_COLUMNS = (
    "id, platform, chat_id, chat_kind, user_key, at_time, tz, lang, kind, options, active, since,"
    " disabled_reason, next_due_at, next_local_date, topic"
)
CLAIM_CHUNK = 1000  # subscription ids per statement of a claim (well under both engines' parameter limits)


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


@dataclass(frozen=True)
class Delivery:
    id: int
    subscription_id: int
    local_date: date
    due_at: datetime
    status: str
    attempts: int
    error: str | None


class DailyStore:
    """SQL for the daily readings' subscriptions and deliveries (``migrations/0002_daily.sql``) on a
    :class:`Storage`; the scheduler and ``/daily`` read and write them only through this class."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    # subscriptions
    async def subscribe(
        self,
        *,
        platform: str,
        chat_id: str,
        chat_kind: str,
        user_key: str,
        at_time: time,
        tz: str,
        lang: str,
        kind: str | None,
        options: Mapping[str, Any],
        now: datetime,
        topic: str | None = None,
    ) -> Subscription:
        """Create or update the chat's subscription (active from ``now``); keeps its kind and its topic unless
        given (``topic`` "": no topic any more)."""
        stamp = utc_iso(now)
        async with self.storage.transaction() as tx:
            row = await tx.fetchone(
                "INSERT INTO subscriptions (platform, chat_id, chat_kind, user_key, at_time, tz, lang, kind,"
                " options, active, since, created_at, updated_at, topic)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, NULLIF(?, ''))"
                " ON CONFLICT(platform, chat_id) DO UPDATE SET chat_kind = excluded.chat_kind,"
                " user_key = excluded.user_key, at_time = excluded.at_time, tz = excluded.tz,"
                " lang = excluded.lang, kind = COALESCE(?, subscriptions.kind), options = excluded.options,"
                " active = 1, since = excluded.since, disabled_reason = NULL, disabled_at = NULL,"
                " updated_at = excluded.updated_at,"
                " topic = NULLIF(COALESCE(?, subscriptions.topic, ''), '') RETURNING *",
                (
                    platform,
                    chat_id,
                    chat_kind,
                    user_key,
                    at_time.strftime("%H:%M"),
                    tz,
                    lang,
                    kind or "liuren",
                    json.dumps(dict(options), sort_keys=True, ensure_ascii=False),
                    stamp,
                    stamp,
                    stamp,
                    topic or "",
                    kind,
                    topic,
                ),
            )
            assert row is not None
            # the chat's delivery rows follow the subscription's owner (/forget of the owner removes both)
            await tx.execute(
                "UPDATE deliveries SET user_key = ? WHERE subscription_id = ? AND user_key != ?",
                (user_key, row["id"], user_key),
            )
            row = await self._set_next_due(tx, Subscription.from_row(row), now)
        return Subscription.from_row(row)

    @staticmethod
    async def _set_next_due(tx: Tx, sub: Subscription, now: datetime) -> Row:
        """Compute and store the subscription's next pending due (``bot.schedule_time.pending_due``)."""
        last = await tx.fetchone(
            "SELECT MAX(local_date) FROM deliveries WHERE subscription_id = ?", (sub.id,)
        )
        done = date.fromisoformat(last[0]) if last is not None and last[0] else None
        d, due = pending_due(sub.at_time, sub.zone, now, sub.since, done)
        row = await tx.fetchone(
            "UPDATE subscriptions SET next_due_at = ?, next_local_date = ? WHERE id = ? RETURNING *",
            (utc_iso(due), d.isoformat(), sub.id),
        )
        assert row is not None
        return row

    async def fill_next_due(self, now: datetime) -> int:
        """Back-fill ``next_due_at`` of active rows that have none (rows of before migration 0006, or written
        by an older binary); returns how many were filled."""
        if not await self.storage.fetchone(
            "SELECT 1 FROM subscriptions WHERE active = 1 AND next_due_at IS NULL LIMIT 1"
        ):
            return 0  # the usual case: no write transaction at all
        filled = 0
        while True:
            async with self.storage.transaction() as tx:
                rows = await tx.fetchall(
                    "SELECT * FROM subscriptions WHERE active = 1 AND next_due_at IS NULL ORDER BY id LIMIT 500"
                    + self.storage.backend.skip_locked
                )
                for row in rows:
                    await self._set_next_due(tx, Subscription.from_row(row), now)
            filled += len(rows)
            if len(rows) < 500:
                return filled

    async def for_chat(self, platform: str, chat_id: str) -> Subscription | None:
        row = await self.storage.fetchone(
            "SELECT * FROM subscriptions WHERE platform = ? AND chat_id = ?", (platform, chat_id)
        )
        return Subscription.from_row(row) if row else None

    async def get(self, sub_id: int) -> Subscription | None:
        row = await self.storage.fetchone("SELECT * FROM subscriptions WHERE id = ?", (sub_id,))
        return Subscription.from_row(row) if row else None

    async def set_kind(self, sub_id: int, kind: str, now: datetime) -> None:
        await self.storage.execute(
            "UPDATE subscriptions SET kind = ?, updated_at = ? WHERE id = ?", (kind, utc_iso(now), sub_id)
        )

    async def set_topic(self, sub_id: int, topic: str | None, now: datetime) -> None:
        """The subscription's topic (a 大六壬 topic by its 文言 name), or None: no topic."""
        await self.storage.execute(
            "UPDATE subscriptions SET topic = ?, updated_at = ? WHERE id = ?", (topic, utc_iso(now), sub_id)
        )

    async def disable(self, platform: str, chat_id: str, reason: str, now: datetime) -> list[int]:
        """Deactivate the chat's subscription (``/daily off`` or a refusing chat); returns the ids."""
        rows = await self.storage.fetchall(
            "UPDATE subscriptions SET active = 0, disabled_reason = ?, disabled_at = ?, updated_at = ?,"
            " next_due_at = NULL, next_local_date = NULL WHERE platform = ? AND chat_id = ? AND active = 1 RETURNING id",
            (reason[:200], utc_iso(now), utc_iso(now), platform, chat_id),
        )
        return [int(r[0]) for r in rows]

    async def migrate_chat(self, platform: str, old: str, new: str) -> None:
        await self.storage.execute(
            "UPDATE subscriptions SET chat_id = ?, updated_at = ? WHERE platform = ? AND chat_id = ? AND NOT"
            " EXISTS (SELECT 1 FROM subscriptions AS taken WHERE taken.platform = ? AND taken.chat_id = ?)",
            (new, _now(), platform, old, platform, new),
        )

    async def active(self) -> list[Subscription]:
        rows = await self.storage.fetchall("SELECT * FROM subscriptions WHERE active = 1 ORDER BY id")
        return [Subscription.from_row(r) for r in rows]

    # deliveries
    async def delivery(self, sub_id: int, local_date: date) -> Delivery | None:
        row = await self.storage.fetchone(
            "SELECT * FROM deliveries WHERE subscription_id = ? AND local_date = ?",
            (sub_id, local_date.isoformat()),
        )
        return self._delivery(row) if row else None

    async def prune_deliveries(self, before: datetime, limit: int = 5000) -> int:
        """Delete up to ``limit`` finished delivery rows claimed before ``before`` (retention,
        ``SIKPAN_KEEP_DELIVERIES``); returns how many. Rows still ``claimed`` or ``sending`` stay whatever
        their age: recovery decides on them (``uncertain`` is its final word). Each subscription's last row
        stays too: the next due day is computed from it (``_set_next_due``), so a pruned day is never
        claimed again."""
        return await self.storage.execute(
            "DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries AS d WHERE claimed_at < ?"
            " AND status NOT IN ('claimed', 'sending') AND local_date < (SELECT MAX(local_date) FROM deliveries"
            " WHERE subscription_id = d.subscription_id) ORDER BY id LIMIT ?)",
            (utc_iso(before), limit),
        )

    async def deliveries(self, sub_id: int | None = None) -> list[Delivery]:
        if sub_id is None:
            rows = await self.storage.fetchall("SELECT * FROM deliveries ORDER BY id")
        else:
            rows = await self.storage.fetchall(
                "SELECT * FROM deliveries WHERE subscription_id = ? ORDER BY id", (sub_id,)
            )
        return [self._delivery(r) for r in rows]

    @staticmethod
    def _delivery(row: Row) -> Delivery:
        return Delivery(
            id=int(row["id"]),
            subscription_id=int(row["subscription_id"]),
            local_date=date.fromisoformat(row["local_date"]),
            due_at=parse_utc(row["due_at"]),
            status=row["status"],
            attempts=int(row["attempts"]),
            error=row["error"],
        )

    async def claim_due(
        self,
        now: datetime,
        owner: str,
        platforms: Sequence[str],
        grace: timedelta,
        limit: int = 5000,
    ) -> tuple[list[tuple[int, Subscription]], list[Subscription]]:
        """Claim what is due: active subscriptions of ``platforms`` whose ``next_due_at <= now`` (the
        ``(platform, next_due_at)`` index), at most ``limit`` of them, in one transaction that inserts their
        delivery rows — ``claimed`` by ``owner``, or ``skipped`` when older than ``grace`` — and advances each
        ``next_due_at`` (``bot.schedule_time.due_after``).

        Set-based (issue 18): the rows are grouped by what their schedule depends on — (wall time, zone, local
        date, due) — and each group is one ``INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING`` (the rows
        won: a delivery row that exists already, the UNIQUE key, is not ours — never twice) and one
        ``UPDATE … WHERE id IN (…)``, the schedule arithmetic done once per group.

        PostgreSQL takes the rows ``FOR UPDATE SKIP LOCKED``: schedulers side by side claim disjoint rows.
        SQLite holds the database (``BEGIN IMMEDIATE``) and elects one scheduler anyway. The commit does not
        wait for the disk (``durable=False``, see the comment below): a day's claims are ~1,440 commits. Returns ((delivery id,
        subscription as claimed) of the rows won, by delivery id; the subscriptions whose day was skipped); the
        subscriptions carry the due they were claimed for in ``next_due_at`` / ``next_local_date``.
        """
        if not platforms:
            return [], []
        marks = ", ".join("?" * len(platforms))
        token = uuid.uuid4().hex
        stamp = utc_iso(now)
        claimed: list[tuple[int, Subscription]] = []
        skipped: list[Subscription] = []
        # not durable (no fsync of its own): nothing is sent before the row's durable ``claimed`` → ``sending``
        # commit (start_sending), which makes the claim durable too; a claim a power loss rolls back is claimed
        # again after the restart — never sent twice, and nothing outside the database saw it but a queued job
        # id, which finds no ``claimed`` row of its own or, the id reused, sends that row once
        async with self.storage.transaction(durable=False) as tx:
            rows = await tx.fetchall(
                f"SELECT {SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE active = 1 AND next_due_at <= ?"  # noqa: S608
                f" AND platform IN ({marks}) ORDER BY next_due_at, id LIMIT ?"
                + self.storage.backend.skip_locked,
                (stamp, *platforms, limit),
            )
            groups: dict[tuple[str, str, str, str], list[Subscription]] = {}
            for row in rows:
                key = (row["at_time"], row["tz"], row["next_local_date"], row["next_due_at"])
                groups.setdefault(key, []).append(Subscription.from_row(row))
            # the schedule arithmetic once per group; then one INSERT per (date, due, late) and one UPDATE per
            # next due, whatever the zones and wall times that share them
            inserts: dict[tuple[date, datetime, bool], dict[int, Subscription]] = {}
            advances: dict[tuple[date, datetime], list[int]] = {}
            for members in groups.values():
                first = members[0]
                d, due = first.next_local_date, first.next_due_at
                assert d is not None and due is not None
                after = due_after(first.at_time, first.zone, d, due, now)
                if after[1] <= now:  # the next due is past too (dues follow their dates): days were missed
                    latest_d, latest = latest_due(first.at_time, first.zone, now)
                    if latest > due and latest_d > d:  # missed while nothing ran: only the latest counts
                        d, due = latest_d, latest
                        members = [replace(sub, next_due_at=due, next_local_date=d) for sub in members]
                        after = due_after(first.at_time, first.zone, d, due, now)
                late = now - due > grace
                inserts.setdefault((d, due, late), {}).update((sub.id, sub) for sub in members)
                advances.setdefault(after, []).extend(sub.id for sub in members)
            for (d, due, late), by_id in inserts.items():
                ids = sorted(
                    by_id
                )  # one key order for every scheduler: concurrent claims wait, never deadlock
                for i in range(0, len(ids), CLAIM_CHUNK):
                    chunk = ids[i : i + CLAIM_CHUNK]
                    won = await tx.fetchall(
                        "INSERT INTO deliveries (subscription_id, user_key, local_date, due_at, status,"
                        " claimed_at, claim_token, claimed_by) SELECT id, user_key, ?, ?, ?, ?, ?, ?"
                        f" FROM subscriptions WHERE id IN ({_marks(chunk)}) ORDER BY id"  # noqa: S608
                        " ON CONFLICT DO NOTHING RETURNING id, subscription_id",
                        (
                            d.isoformat(),
                            utc_iso(due),
                            "skipped" if late else "claimed",
                            stamp,
                            token,
                            None if late else owner,
                            *chunk,
                        ),
                    )
                    if late:
                        skipped.extend(by_id[int(r[1])] for r in won)
                    else:
                        claimed.extend((int(r[0]), by_id[int(r[1])]) for r in won)
            for (nd, ndue), ids in advances.items():
                ids.sort()
                for i in range(0, len(ids), CLAIM_CHUNK):
                    chunk = ids[i : i + CLAIM_CHUNK]
                    await tx.execute(
                        "UPDATE subscriptions SET next_due_at = ?, next_local_date = ?"
                        f" WHERE id IN ({_marks(chunk)})",  # noqa: S608
                        (utc_iso(ndue), nd.isoformat(), *chunk),
                    )
        claimed.sort(key=lambda item: item[0])
        skipped.sort(key=lambda sub: sub.id)
        return claimed, skipped

    async def earliest_due(self, platforms: Sequence[str]) -> datetime | None:
        """The earliest ``next_due_at`` of the active subscriptions of ``platforms``: the first entry of one
        range of the ``(platform, next_due_at)`` index per platform (``migrations/0008_daily_due_index.sql``)."""
        found: list[str] = []
        for platform in platforms:
            row = await self.storage.fetchone(
                "SELECT next_due_at FROM subscriptions WHERE active = 1 AND platform = ?"
                " AND next_due_at IS NOT NULL ORDER BY next_due_at LIMIT 1",
                (platform,),
            )
            if row is not None and row[0]:
                found.append(row[0])
        return parse_utc(min(found)) if found else None

    async def claimed_by(self, owner: str, before: datetime | None = None) -> list[int]:
        """Ids of the rows ``owner`` holds that were never attempted (to hand to the queue again); ``before``:
        only rows claimed before that instant."""
        rows = await self.storage.fetchall(
            "SELECT id FROM deliveries WHERE status = 'claimed' AND claimed_by = ? AND claimed_at < ? ORDER BY id",
            (owner, utc_iso(before) if before is not None else "9999"),
        )
        return [int(r[0]) for r in rows]

    async def job(self, delivery_id: int) -> tuple[Delivery, Subscription] | None:
        """A delivery row and its subscription (what a queue worker needs to send it)."""
        row = await self.storage.fetchone("SELECT * FROM deliveries WHERE id = ?", (delivery_id,))
        if row is None:
            return None
        sub = await self.get(int(row["subscription_id"]))
        return (self._delivery(row), sub) if sub is not None else None

    async def mark(
        self,
        delivery_id: int,
        status: str,
        now: datetime,
        error: str | None = None,
        attempt: bool = False,
    ) -> None:
        finished = utc_iso(now) if status not in ("claimed", "sending") else None
        await self.storage.execute(
            "UPDATE deliveries SET status = ?, error = ?, finished_at = ?, attempts = attempts + ? WHERE id = ?",
            (status, error[:300] if error else None, finished, 1 if attempt else 0, delivery_id),
        )

    async def start_sending(self, delivery_id: int, owner: str, now: datetime, *, take: bool = False) -> bool:
        """``claimed`` → ``sending`` for the row's own scheduler only; False: not ours (any more), don't send.

        One conditional UPDATE: of two schedulers that both believe the row theirs, one alone gets True.
        ``take=True`` (a queue worker, :mod:`bot.queue`): whoever claimed the row, the first to move it from
        ``claimed`` wins and becomes its owner (so the row is recovered by age if that worker dies).
        """
        if take:
            changed = await self.storage.execute(
                "UPDATE deliveries SET status = 'sending', attempts = attempts + 1, error = NULL,"
                " claimed_by = ? WHERE id = ? AND status = 'claimed'",
                (owner, delivery_id),
            )
        else:
            changed = await self.storage.execute(
                "UPDATE deliveries SET status = 'sending', attempts = attempts + 1, error = NULL"
                " WHERE id = ? AND status = 'claimed' AND claimed_by = ?",
                (delivery_id, owner),
            )
        return changed == 1

    async def release_unsent(self, delivery_id: int, owner: str) -> bool:
        """``sending`` → ``claimed`` for a row ``owner`` moved to ``sending`` and knows it made no request for:
        its :meth:`start_sending` lost the connection before the answer (the UPDATE may have been committed),
        and no request followed. True when the row was released (it is sent as a claimed row again)."""
        changed = await self.storage.execute(
            "UPDATE deliveries SET status = 'claimed', attempts = attempts - 1"
            " WHERE id = ? AND status = 'sending' AND claimed_by = ?",
            (delivery_id, owner),
        )
        return changed == 1

    # schedulers (one row per running scheduler, see migrations/0005_daily_owners.sql)
    async def register(self, token: str, now: datetime) -> None:
        await self.storage.execute(
            "INSERT INTO schedulers (token, started_at, heartbeat_at) VALUES (?, ?, ?)"
            " ON CONFLICT(token) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
            (token, utc_iso(now), utc_iso(now)),
        )

    async def heartbeat(self, token: str, now: datetime) -> None:
        await self.register(token, now)

    async def unregister(self, token: str) -> None:
        """A scheduler leaves: its rows never attempted become free for the next one at once."""
        async with self.storage.transaction() as tx:
            await tx.execute(
                "UPDATE deliveries SET claimed_by = NULL WHERE claimed_by = ? AND status = 'claimed'",
                (token,),
            )
            await tx.execute("DELETE FROM schedulers WHERE token = ?", (token,))

    async def recover(
        self,
        now: datetime,
        owner: str,
        stale_before: datetime | None = None,
        platforms: Sequence[str] | None = None,
    ) -> tuple[int, list[tuple[int, int, date, datetime]]]:
        """Take over the rows of schedulers that are gone: their in-flight rows → ``uncertain`` (maybe
        delivered: never resent), their claimed rows become ``owner``'s; returns (the number made uncertain,
        the rows taken over).

        Gone: the row names no scheduler, or one whose heartbeat is older than ``stale_before`` (or that has
        no row). ``stale_before=None``: every other scheduler is gone (the caller holds the one-scheduler
        election of SQLite). ``platforms``: only rows of subscriptions on these platforms (the ones the caller
        can send to). The takeover is one UPDATE per status, so two recoverers never take one row.
        """
        if stale_before is None:
            alive, params = "claimed_by = ?", [owner]
        else:
            alive = "claimed_by IN (SELECT token FROM schedulers WHERE heartbeat_at >= ?)"
            params = [utc_iso(stale_before)]
        gone = f"(claimed_by IS NULL OR NOT ({alive}))"
        if platforms is not None:
            marks = ", ".join("?" * len(platforms)) or "NULL"
            gone += f" AND subscription_id IN (SELECT id FROM subscriptions WHERE platform IN ({marks}))"
            params = [*params, *platforms]
        lock = self.storage.backend.skip_locked
        async with self.storage.transaction() as tx:
            uncertain = len(
                await tx.fetchall(
                    "UPDATE deliveries SET status = 'uncertain', finished_at = ?,"
                    " error = 'the process stopped while sending' WHERE id IN (SELECT id FROM deliveries"
                    f" WHERE status = 'sending' AND {gone}{lock}) RETURNING id",  # noqa: S608
                    (utc_iso(now), *params),
                )
            )
            rows = await tx.fetchall(
                "UPDATE deliveries SET claimed_by = ? WHERE id IN (SELECT id FROM deliveries"
                f" WHERE status = 'claimed' AND {gone}{lock}) RETURNING id, subscription_id, local_date, due_at",  # noqa: S608
                (owner, *params),
            )
            if stale_before is not None:
                await tx.execute("DELETE FROM schedulers WHERE heartbeat_at < ?", (utc_iso(stale_before),))
        rows.sort(key=lambda r: int(r[0]))
        return uncertain, [(int(r[0]), int(r[1]), date.fromisoformat(r[2]), parse_utc(r[3])) for r in rows]
