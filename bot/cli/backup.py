"""``sikpan backup PATH``: a consistent copy of the SQLite database while the bot runs (SQLite's online
backup API: a plain file copy can miss what is still in the ``-wal`` file). For PostgreSQL it prints how to
take the dump with ``pg_dump`` (docs/deploy.md) and copies nothing."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from bot.cli.common import UsageError
from bot.config import ConfigError, load_settings, redact
from bot.i18n import N_, gettext
from bot.storage.urls import is_postgres_url, redact_url


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "backup", help=N_("copy the database consistently, even while the bot runs")
    )
    parser.add_argument("path", metavar="PATH", help=N_("the backup file to write (must not exist)"))
    parser.add_argument(
        "--env-file", default=None, help=N_("read settings from this .env file (default ./.env)")
    )
    parser.set_defaults(func=handler)


def backup_sqlite(source: str, dest: str) -> None:
    """Copy ``source`` to a new file ``dest`` through the backup API (a reader: the bot keeps writing)."""
    src = sqlite3.connect(f"file:{Path(source).resolve()}?mode=ro", uri=True, timeout=10.0)
    try:
        out = sqlite3.connect(dest)
        try:
            src.backup(out)
        finally:
            out.close()
    finally:
        src.close()


def handler(args: argparse.Namespace) -> int:
    try:
        settings = load_settings(env_file=args.env_file)
    except ConfigError as err:
        raise UsageError(err.code, **err.params) from None
    lang = settings.lang
    if is_postgres_url(settings.db_path):
        print(gettext(lang, N_("cli.backup.postgres"), url=redact_url(settings.db_path)))
        return 0
    if not Path(settings.db_path).exists():
        raise UsageError(N_("cli.backup.no_database"), path=settings.db_path)
    if Path(args.path).exists():
        raise UsageError(N_("cli.backup.exists"), path=args.path)
    try:
        backup_sqlite(settings.db_path, args.path)
    except (sqlite3.Error, OSError) as err:
        Path(args.path).unlink(missing_ok=True)
        raise UsageError(
            N_("cli.backup.failed"), path=args.path, detail=redact(str(err), settings.secrets)
        ) from None
    print(gettext(lang, N_("cli.backup.done"), source=settings.db_path, path=args.path), file=sys.stdout)
    return 0
