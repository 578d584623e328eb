"""``sikpan export PATH`` / ``sikpan import PATH``: the whole database as one portable file
(:mod:`bot.storage.portable`), so a deployment moves between SQLite and PostgreSQL in two commands:

    SIKPAN_DB=sikpan.db sikpan export sikpan.jsonl.gz
    SIKPAN_DB=postgresql://… sikpan import sikpan.jsonl.gz

``--db`` names the database instead of ``SIKPAN_DB``. Stop the bot before an export meant for a move (an
export is one consistent snapshot; what the bot writes after it stays behind)."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

from bot.cli.common import UsageError
from bot.cli.settings import operator_settings
from bot.config import redact
from bot.i18n import N_, gettext
from bot.storage import Storage
from bot.storage.portable import Moved, PortableError, export, import_
from bot.storage.urls import is_postgres_url, redact_url


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name, help_text, path_help in (
        (
            "export",
            N_("write the whole database to a portable file"),
            N_("the file to write (must not exist)"),
        ),
        ("import", N_("load a file written by export into a new database"), N_("the file written by export")),
    ):
        parser = subparsers.add_parser(name, help=help_text)
        parser.add_argument("path", metavar="PATH", help=path_help)
        parser.add_argument(
            "--db",
            default=None,
            help=N_("the database (a SQLite file or a postgresql:// URL; default SIKPAN_DB)"),
        )
        parser.add_argument(
            "--env-file", default=None, help=N_("read settings from this .env file (default ./.env)")
        )
        if name == "export":
            parser.add_argument(
                "--user",
                default=None,
                metavar="KEY",
                help=N_("only this user's data (platform:id, e.g. telegram:123), as /export gives it"),
            )
        parser.set_defaults(func=handler, export=name == "export")


async def _run(target: str, job: Callable[[Storage], Awaitable[Moved]], migrate: bool) -> Moved:
    storage = await Storage.open(target, migrate=migrate)
    try:
        return await job(storage)
    finally:
        await storage.close()


def handler(args: argparse.Namespace) -> int:
    settings = operator_settings(args.env_file)
    target = args.db or settings.db_path
    shown = redact_url(target)
    path = Path(args.path)
    if args.export and not is_postgres_url(target) and not Path(target).exists():
        raise UsageError(N_("cli.backup.no_database"), path=target)
    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OSError)
    if is_postgres_url(target):
        import asyncpg

        errors = (*errors, asyncpg.PostgresError)
    try:
        if args.export:
            # the source is migrated first: the file is in this sikpan's schema
            moved = asyncio.run(_run(target, lambda s: export(s, path, args.user), migrate=True))
            if args.user is not None and moved.total == 0:
                path.unlink(missing_ok=True)
                raise UsageError(N_("cli.export.no_user"), user=args.user)
        else:
            moved = asyncio.run(_run(target, lambda s: import_(s, path), migrate=False))
    except PortableError as err:
        if args.export and err.code != "cli.export.exists":
            path.unlink(missing_ok=True)
        raise UsageError(err.code, **err.params) from None
    except errors as err:
        if args.export:
            path.unlink(missing_ok=True)
        raise UsageError(
            N_("bot.error.db_open"), path=shown, detail=redact(str(err), settings.secrets)
        ) from None
    code = N_("cli.export.done") if args.export else N_("cli.import.done")
    print(
        gettext(
            settings.lang,
            code,
            path=str(path),
            target=shown,
            rows=moved.total,
            tables=len(moved.rows),
            schema=moved.schema,
        )
    )
    return 0
