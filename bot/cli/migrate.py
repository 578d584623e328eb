"""``sikpan migrate``: apply the pending migrations of the database named by ``SIKPAN_DB`` (SQLite or
PostgreSQL) and say which; ``sikpan run`` does the same at start, this runs it alone (e.g. before a rolling
deployment of several workers)."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3

from bot.cli.common import UsageError
from bot.config import ConfigError, load_settings, redact
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


def handler(args: argparse.Namespace) -> int:
    try:
        settings = load_settings(env_file=args.env_file)
    except ConfigError as err:
        raise UsageError(err.code, **err.params) from None
    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OSError)
    if is_postgres_url(settings.db_path):
        import asyncpg

        errors = (*errors, asyncpg.PostgresError)
    try:
        applied, version = asyncio.run(migrate(settings.db_path))
    except errors as err:
        raise UsageError(
            N_("bot.error.db_open"), path=settings.db_path, detail=redact(str(err), settings.secrets)
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
