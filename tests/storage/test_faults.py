"""Which database errors are a lost connection (bot.faults, issue 36 item 3): retried with back-off by the
queue workers, the scheduler and the start-up; everything else is not."""

from __future__ import annotations

import sqlite3

import asyncpg
import pytest

from bot.faults import connection_lost, database_errors
from bot.storage.postgres import DatabaseUnavailable


def wrapped(cause: BaseException) -> DatabaseUnavailable:
    try:
        raise DatabaseUnavailable(str(cause)) from cause
    except DatabaseUnavailable as err:
        return err


@pytest.mark.parametrize(
    "err",
    [
        ConnectionRefusedError(111, "Connection refused"),
        ConnectionResetError(104, "Connection reset by peer"),
        TimeoutError(),
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.AdminShutdownError(
            "terminating connection due to administrator command"
        ),  # pg_terminate_backend
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        asyncpg.InterfaceError("connection is closed"),
        wrapped(asyncpg.CannotConnectNowError("the database system is shutting down")),
    ],
)
def test_a_lost_or_refused_connection_is_retried(err: BaseException) -> None:
    assert connection_lost(err)
    assert isinstance(err, database_errors())


@pytest.mark.parametrize(
    "err",
    [
        asyncpg.UniqueViolationError("duplicate key value violates unique constraint"),
        asyncpg.PostgresSyntaxError("syntax error at or near"),
        wrapped(asyncpg.InvalidPasswordError('password authentication failed for user "postgres"')),
        wrapped(asyncpg.InvalidCatalogNameError('database "nope" does not exist')),
        sqlite3.OperationalError("database is locked"),
        ValueError("bad"),
    ],
)
def test_any_other_error_is_not(err: BaseException) -> None:
    assert not connection_lost(err)
