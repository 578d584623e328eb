"""Which database errors are a lost connection (issue 36 item 3): the server restarting, a network cut, a
backend terminated (``pg_terminate_backend``), a pool that cannot connect yet. These heal by themselves in
seconds, so whoever meets one retries with back-off instead of giving up on a delivery, or on starting.

Everything else (a constraint, a syntax error, a wrong password, a damaged SQLite file) is not retried here.
asyncpg is looked up only if it was imported (the ``postgres`` extra; SQLite never raises these).
"""

from __future__ import annotations

import sys

# SQLSTATE of a server that is going away or not ready yet: admin shutdown (pg_terminate_backend), crash
# shutdown, cannot connect now (starting, recovering), too many connections
_TRANSIENT_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300"})


def connection_lost(err: BaseException) -> bool:
    """True when ``err`` (or what it wraps) says the database connection was lost or could not be made."""
    for _ in range(
        8
    ):  # an error wrapped in ours (``DatabaseUnavailable`` is an OSError): judged by its cause
        if not isinstance(err, OSError) or err.__cause__ is None:
            return _lost(err)
        err = err.__cause__
    return False


def _lost(err: BaseException) -> bool:
    if isinstance(err, OSError):  # refused, reset, unreachable, a connect timeout (TimeoutError)
        return True
    asyncpg = sys.modules.get("asyncpg")
    if asyncpg is None:
        return False
    if isinstance(err, asyncpg.PostgresConnectionError):  # SQLSTATE class 08: the connection does not exist …
        return True
    if isinstance(err, asyncpg.PostgresError):
        return getattr(err, "sqlstate", None) in _TRANSIENT_SQLSTATES
    if isinstance(err, asyncpg.InterfaceError):  # "the connection is closed", a pool being reset
        return "closed" in str(err) or "connection" in str(err).lower()
    return False


def database_errors() -> tuple[type[BaseException], ...]:
    """The classes a database call may raise when its connection is lost (for an ``except`` that then asks
    :func:`connection_lost` and re-raises the rest): ``OSError``, and asyncpg's errors once it is imported."""
    asyncpg = sys.modules.get("asyncpg")
    if asyncpg is None:
        return (OSError,)
    return (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)


__all__ = ["connection_lost", "database_errors"]
