"""``sikpan backup PATH``: a consistent copy of the database while the bot runs.

- SQLite: SQLite's online backup API (a plain file copy can miss what is still in the ``-wal`` file).
- PostgreSQL: ``pg_dump --format=custom`` into PATH (restore with ``pg_restore``), the password passed in
  ``PGPASSWORD`` (never on a command line others can read), the ``?schema=`` of ``SIKPAN_DB`` as
  ``--schema``. Without ``pg_dump`` on the PATH it exits 1 saying what to run (the URL without its password).

A missing folder of PATH is created (and said so); an existing PATH is never overwritten."""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bot.cli.common import UsageError
from bot.cli.settings import operator_settings
from bot.config import Settings, redact, redact_url
from bot.i18n import N_, gettext
from bot.storage.urls import is_postgres_url, split_url

PG_DUMP_TIMEOUT = 6 * 3600.0  # seconds: a dump that takes longer is stuck


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


def pg_dump_command(url: str, dest: str) -> tuple[list[str], dict[str, str]]:
    """The ``pg_dump`` command line (no password in it) and the variables it needs (``PGPASSWORD``)."""
    dsn, schema, _pool = split_url(url)
    parts = urlsplit(dsn)
    password = parts.password
    host = parts.netloc.rpartition("@")[2]
    user = parts.username
    netloc = f"{user}@{host}" if user else host
    bare = urlunsplit(parts._replace(netloc=netloc))
    command = ["pg_dump", "--format=custom", f"--file={dest}", f"--dbname={bare}"]
    if schema is not None:
        command.append(f"--schema={schema}")
    env = {"PGPASSWORD": password} if password else {}
    return command, env


def backup_postgres(settings: Settings, dest: str) -> int:
    """``pg_dump`` of the database into ``dest``; without ``pg_dump``, exit 1 naming what to run."""
    lang = settings.lang
    command, extra = pg_dump_command(settings.db_path, dest)
    if shutil.which("pg_dump") is None:
        shown = " ".join(command)  # no password in it (the URL's goes in PGPASSWORD)
        print(gettext(lang, N_("cli.backup.no_pg_dump"), command=shown), file=sys.stderr)
        return 1
    try:
        done = subprocess.run(
            command,
            env={**os.environ, **extra},
            capture_output=True,
            text=True,
            timeout=PG_DUMP_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        Path(dest).unlink(missing_ok=True)
        raise UsageError(
            N_("cli.backup.failed"), path=dest, detail=redact(str(err), settings.secrets)
        ) from None
    if done.returncode != 0:
        Path(dest).unlink(missing_ok=True)
        detail = " ".join(done.stderr.split())[:300] or f"pg_dump exit {done.returncode}"
        raise UsageError(N_("cli.backup.failed"), path=dest, detail=redact(detail, settings.secrets))
    print(gettext(lang, N_("cli.backup.done"), source=redact_url(settings.db_path), path=dest))
    return 0


def handler(args: argparse.Namespace) -> int:
    settings = operator_settings(args.env_file)
    lang = settings.lang
    postgres = is_postgres_url(settings.db_path)
    if not postgres and not Path(settings.db_path).exists():
        raise UsageError(N_("cli.backup.no_database"), path=settings.db_path)
    if Path(args.path).exists():
        raise UsageError(N_("cli.backup.exists"), path=args.path)
    folder = Path(args.path).parent
    if not folder.exists():
        try:
            folder.mkdir(parents=True)
        except OSError as err:
            raise UsageError(
                N_("cli.backup.failed"), path=args.path, detail=err.strerror or type(err).__name__
            ) from None
        print(gettext(lang, N_("cli.backup.folder_created"), folder=str(folder)))
    if postgres:
        return backup_postgres(settings, args.path)
    try:
        backup_sqlite(settings.db_path, args.path)
    except (sqlite3.Error, OSError) as err:
        Path(args.path).unlink(missing_ok=True)
        raise UsageError(
            N_("cli.backup.failed"), path=args.path, detail=redact(str(err), settings.secrets)
        ) from None
    print(gettext(lang, N_("cli.backup.done"), source=settings.db_path, path=args.path), file=sys.stdout)
    return 0
