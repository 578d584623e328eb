"""Start-up checks and retries: the process either serves or exits non-zero with one clear line.

- :func:`check_database` (before anything starts): the SQLite file opens, ``PRAGMA quick_check`` says
  ``ok`` and a write transaction can be taken (a probe table created and rolled back). A read-only or
  damaged database used to answer every command "try again later" (or crash later with exit 0).
- :func:`open_database`: the database connection is retried with back-off (``SIKPAN_START_ATTEMPTS``, logged)
  while the server cannot be reached, then the last error ends the process as before.
- :func:`start_with_retries`: an adapter's first contact with its platform (Telegram ``getMe``, Discord
  login) is retried with exponential back-off; errors that retrying cannot fix (a refused token) fail at
  once. When it cannot start, :class:`StartupError` ends ``sikpan run`` with exit status 1, so a
  supervisor (systemd, Docker ``restart:``) restarts it instead of a deaf process running forever.

Both raise :class:`StartupError` with a message id of the catalogs (``bot.error.db_check``,
``bot.error.adapter_start``) and its parameters; ``bot.cli.run`` prints it as one localized line and exits
with its ``status`` (2 for the database, as for other bad configuration; 1 for an adapter).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

from bot.faults import connection_lost, database_errors

log = logging.getLogger(__name__)

T = TypeVar("T")

START_ATTEMPTS: Final = 5  # default of SIKPAN_START_ATTEMPTS
FIRST_DELAY: Final = 1.0  # seconds before the second attempt; doubled each time
MAX_DELAY: Final = 30.0


class StartupError(Exception):
    """The process cannot serve; ``code`` is a message id of the catalogs, ``params`` fill it in.

    ``status`` is the exit status of ``sikpan run``: 2 for a database the operator must fix (like every
    other bad configuration), 1 for an adapter that could not start (a supervisor may restart it).
    """

    def __init__(self, code: str, *, status: int = 1, **params: Any) -> None:
        super().__init__(f"{code}: {params}")
        self.code = code
        self.status = status
        self.params = params


def check_database(path: str) -> None:
    """Raise :class:`StartupError` (``bot.error.db_check``) unless ``path`` is a sound, writable database.

    A ``postgresql://`` URL is checked by opening the storage (the server answers, the migrations apply).
    """
    if path.startswith(("postgresql://", "postgres://")):
        return
    try:
        con = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    except (sqlite3.Error, OSError) as err:
        raise StartupError(
            "bot.error.db_open", status=2, path=path, detail=" ".join(str(err).split())
        ) from None
    try:
        rows = con.execute("PRAGMA quick_check").fetchall()
        if [tuple(r) for r in rows] != [("ok",)]:
            detail = " ".join(str(rows[0][0]).split())[:160] if rows else "no answer"
            raise StartupError("bot.error.db_check", status=2, path=path, detail=f"quick_check: {detail}")
        con.execute("BEGIN IMMEDIATE")  # the write lock, then a real write that is rolled back
        try:
            con.execute("CREATE TABLE sikpan_write_probe (x INTEGER)")
        finally:
            con.execute("ROLLBACK")
    except (sqlite3.Error, OSError) as err:
        raise StartupError(
            "bot.error.db_check", status=2, path=path, detail=" ".join(str(err).split())
        ) from None
    finally:
        con.close()


async def pause(seconds: float, stop: asyncio.Event | None) -> None:
    """Wait ``seconds`` before the next attempt, or less when ``stop`` is set meanwhile."""
    if stop is None:
        await asyncio.sleep(seconds)
        return
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        pass


async def start_with_retries(
    start: Callable[[], Awaitable[T]],
    *,
    platform: str,
    retry_on: tuple[type[BaseException], ...],
    fatal: tuple[type[BaseException], ...] = (),
    attempts: int = START_ATTEMPTS,
    first_delay: float = FIRST_DELAY,
    max_delay: float = MAX_DELAY,
    stop: asyncio.Event | None = None,
) -> T:
    """``await start()``, retried on ``retry_on`` with back-off; :class:`StartupError` when it cannot.

    ``fatal`` errors (checked first) are not retried. A set ``stop`` ends the waiting early.
    """
    delay = first_delay
    for attempt in range(1, max(1, attempts) + 1):
        try:
            return await start()
        except fatal as err:
            raise StartupError(
                "bot.error.adapter_start", platform=platform, attempts=attempt, detail=_describe(err)
            ) from err
        except retry_on as err:
            if attempt >= attempts or (stop is not None and stop.is_set()):
                raise StartupError(
                    "bot.error.adapter_start", platform=platform, attempts=attempt, detail=_describe(err)
                ) from err
            log.warning(
                "%s: start attempt %d of %d failed (%s); again in %.1fs",
                platform,
                attempt,
                attempts,
                _describe(err),
                delay,
            )
            await pause(delay, stop)
            delay = min(max_delay, delay * 2)
    raise AssertionError("unreachable")  # pragma: no cover


async def open_database(
    open_: Callable[[], Awaitable[T]],
    *,
    attempts: int = START_ATTEMPTS,
    first_delay: float = FIRST_DELAY,
    max_delay: float = MAX_DELAY,
    stop: asyncio.Event | None = None,
) -> T:
    """``await open_()`` (the storage: connect and migrate), retried with back-off while the database
    connection cannot be made (:func:`bot.faults.connection_lost`: refused, reset, a server starting
    or shutting down) — a worker or an adapter started a moment before PostgreSQL comes up waits for it
    instead of exiting at once. Each failed attempt is logged; after ``attempts`` (``SIKPAN_START_ATTEMPTS``)
    the last error is raised as it came (``sikpan run`` then prints one line and exits 2). Other errors (a
    wrong password, a damaged file) are raised at once."""
    delay = first_delay
    attempt = 1
    while True:
        try:
            return await open_()
        except database_errors() as err:
            if not connection_lost(err) or attempt >= attempts or (stop is not None and stop.is_set()):
                raise
            log.warning(
                "database: attempt %d of %d to connect failed (%s); again in %.1fs",
                attempt,
                attempts,
                _describe(err),
                delay,
            )
        await pause(delay, stop)
        delay = min(max_delay, delay * 2)
        attempt += 1


def _describe(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__  # one line
    return f"{type(err).__name__}: {text}"[:200]


__all__ = ["START_ATTEMPTS", "StartupError", "check_database", "open_database", "start_with_retries"]
