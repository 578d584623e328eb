"""``sikpan migrate``: apply the pending migrations of the database named by ``SIKPAN_DB`` (SQLite or
PostgreSQL) and say which; ``sikpan run`` does the same at start, this runs it alone (e.g. before a rolling
deployment of several workers). It first names its target — the SQLite file's absolute path (and that it is a
new file, when it is: run from the wrong directory, ``./sikpan.db`` would be created), or the PostgreSQL URL
without its password — so the operator sees what was migrated."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
from pathlib import Path

from bot.cli.common import UsageError
from bot.cli.settings import operator_settings
from bot.config import redact, redact_url
from bot.i18n import N_, gettext
from bot.storage.urls import is_postgres_url


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("migrate", help=N_("apply the database migrations that are pending"))
    parser.add_argument(
        "--env-file", default=None, help=N_("read settings from this .env file (default ./.env)")
    )
    parser.set_defaults(func=handler)


async def migrate(target: str) -> tuple[list[int], int]:
    from bot.storage import Storage

    storage = await Storage.open(target, migrate=False)
    try:
        applied = await storage.migrate()
        return applied, await storage.schema_version()
    finally:
        await storage.close()


def target_line(db: str, lang: str) -> str:
    """The line naming the database ``sikpan migrate`` works on (no password; a new SQLite file said so)."""
    if is_postgres_url(db):
        return gettext(lang, N_("cli.migrate.target"), target=redact_url(db))
    path = Path(db).resolve()
    if db != ":memory:" and not path.exists():
        return gettext(lang, N_("cli.migrate.target_new"), target=str(path))
    return gettext(lang, N_("cli.migrate.target"), target=str(path))


def handler(args: argparse.Namespace) -> int:
    settings = operator_settings(args.env_file)
    print(target_line(settings.db_path, settings.lang))
    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OSError)
    if is_postgres_url(settings.db_path):
        import asyncpg

        errors = (*errors, asyncpg.PostgresError)
    try:
        applied, version = asyncio.run(migrate(settings.db_path))
    except errors as err:
        raise UsageError(
            N_("bot.error.db_open"),
            path=redact_url(settings.db_path),
            detail=redact(str(err), settings.secrets),
        ) from None
    if applied:
        print(
            gettext(
                settings.lang, N_("cli.migrate.done"), versions=", ".join(map(str, applied)), version=version
            )
        )
    else:
        print(gettext(settings.lang, N_("cli.migrate.current"), version=version))
    return 0
