"""``sikpan run [--role ROLE]``: the parts of one role in one event loop (``bot.app.ROLES``); the default
role ``all`` runs every adapter whose token is set and the scheduler (the console chat when none).

Stops cleanly on SIGTERM/SIGINT (and at end of input on the console): the webhook role stops accepting,
finishes the updates in flight, then exits. The loop is uvloop's where it is installed (the ``telegram`` and
``discord`` extras bring it on Linux and macOS; issue #18: less CPU per command), else asyncio's own;
``SIKPAN_UVLOOP=0`` chooses asyncio's. The heap built at start is frozen out of the garbage collector's scans
(:func:`freeze_heap`, at start and once more a minute later: issue #18, the p99).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import logging
import os
import platform
import signal
import sqlite3
import sys
from collections.abc import Callable

from bot.cli.common import UsageError
from bot.cli.settings import operator_settings
from bot.config import ROLES, Settings, install_redaction, redact, redact_url
from bot.i18n import N_, gettext
from bot.logs import formatter
from bot.sanitize import bounded_params
from bot.startup import StartupError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("run", help=N_("run the bot (Telegram, Discord, or a console chat)"))
    parser.add_argument(
        "--env-file", default=None, help=N_("read settings from this .env file (default ./.env)")
    )
    parser.add_argument(
        "--role",
        default=None,
        choices=ROLES,
        help=N_(
            "what this process runs (default all, or SIKPAN_ROLE): all, telegram, discord, scheduler, worker, webhook"
        ),
    )
    parser.add_argument(
        "--replace-webhook",
        action="store_true",
        help=N_(
            "long polling: delete a Telegram webhook that is set (else refuse to start; TELEGRAM_REPLACE_WEBHOOK=1)"
        ),
    )
    parser.add_argument(
        "--log-level",
        default=None,
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help=N_("default INFO with a token, WARNING for the console chat"),
    )
    parser.set_defaults(func=handler)


def configure_logging(settings: Settings, level: str = "INFO") -> None:
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        # SIKPAN_LOG_FORMAT=json: one JSON object a line, with the update/job/delivery ids (bot.logs)
        handler.setFormatter(formatter(settings.log_format))
        root.addHandler(handler)
    root.setLevel(level)
    # Libraries log request URLs, which carry the Telegram token: redact everything that reaches a handler.
    install_redaction(settings)
    logging.getLogger("httpx").setLevel(logging.WARNING)


# After this long the tables and caches that commands build on first use (the solar terms of the year, the
# drawing's text runs, the rendered readings) are built too: they are frozen by a second freeze_heap.
FREEZE_AGAIN_AFTER = 60.0


def freeze_heap() -> None:
    """Every object alive now moved to the garbage collector's permanent generation (``gc.freeze``), after one
    full collection: the modules, tables and caches loaded so far are never scanned again. Called at start
    and once more FREEZE_AGAIN_AFTER seconds later (not periodically: the cycles among frozen objects are
    never collected — reference counting still frees the rest —, so a freeze keeps at most what was in
    flight at that moment).

    Issue #18, measured with ``bench/bot.py --rate 100 --pace off --trace`` (``bench/latency.py``): without
    it a full collection came every ~4 s, scanned ~130,000 objects, freed none, and held the event loop
    for 40–170 ms — every command in flight waited for it (the slowest 1 % spent 120 ms of their 210 ms in
    collections: most of the p99)."""
    gc.collect()
    gc.freeze()


async def main_async(settings: Settings) -> None:
    from bot.app import run  # the shell is loaded by this subcommand only

    freeze_heap()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    again = loop.call_later(FREEZE_AGAIN_AFTER, freeze_heap)
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await run(settings, stop)
    finally:
        again.cancel()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)


# Where uvloop is a dependency: the marker of pyproject.toml's ``uvloop`` requirement, evaluated here.
UVLOOP_PLATFORM = sys.platform != "win32" and platform.python_implementation() == "CPython"


def loop_factory(
    environ: dict[str, str] | None = None, *, uvloop_platform: bool = UVLOOP_PLATFORM
) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop factory where uvloop is a dependency (Linux, macOS: CPython) unless turned off
    (``SIKPAN_UVLOOP=0``), else None (asyncio's default loop)."""
    env = os.environ if environ is None else environ
    if env.get("SIKPAN_UVLOOP", "").strip().lower() in ("0", "false", "no", "off") or not uvloop_platform:
        return None
    import uvloop  # a dependency wherever ``uvloop_platform`` holds

    return uvloop.new_event_loop


def handler(args: argparse.Namespace) -> int:
    settings = operator_settings(args.env_file)
    if args.replace_webhook:
        settings = dataclasses.replace(settings, telegram_replace_webhook=True)
    if args.role is not None:
        settings = dataclasses.replace(settings, role=args.role)
    from bot.app import MissingExtra, RoleError, plan

    try:
        plan(settings)  # a token without its library, a role without its settings: say so, start nothing
    except MissingExtra as err:
        raise UsageError("bot.error.missing_extra", platform=err.platform, extra=err.extra) from None
    except RoleError as err:
        raise UsageError(err.code, **err.params) from None
    configure_logging(settings, args.log_level or ("INFO" if settings.has_tokens else "WARNING"))
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(main_async(settings))  # bot.app.run checks the database first (bot.startup)
    except StartupError as err:  # the database, or an adapter that could not start after its retries
        params = {k: redact(str(v), settings.secrets) for k, v in err.params.items()}
        line = gettext(settings.lang, err.code, **bounded_params(params, 200))
        print(redact(line, settings.secrets), file=sys.stderr)
        return err.status
    except (sqlite3.Error, OSError) as err:  # the database cannot be opened or migrated
        raise UsageError(
            N_("bot.error.db_open"),
            path=redact_url(settings.db_path),
            detail=redact(str(err), settings.secrets),
        ) from None
    return 0
