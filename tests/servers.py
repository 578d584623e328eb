"""The real database servers of the tests: PostgreSQL at ``SIKPAN_TEST_PG`` (default the project machines'
127.0.0.1:5432, trust auth, database ``test``).

Without a server the tests that need it skip with the reason — except in CI (``CI=true``), where a missing
server is a failure: CI must never pass by skipping them (issue #17).
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import pytest

PG_URL = os.environ.get("SIKPAN_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def _run(coro_factory):  # type: ignore[no-untyped-def]
    """Run a coroutine to completion on a private loop in a thread (safe inside a running loop too)."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coro_factory())
        except BaseException as err:  # noqa: BLE001 - handed to the caller
            box["error"] = err

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


@cache
def pg_unavailable() -> str | None:
    """None when PostgreSQL answers, else why not."""
    try:
        import asyncpg
    except ImportError:
        return "asyncpg is not installed (pip install -e '.[postgres]')"

    async def probe() -> None:
        con = await asyncpg.connect(PG_URL, timeout=3)
        await con.close()

    try:
        _run(probe)
    except (TimeoutError, OSError, asyncpg.PostgresError) as err:
        return f"no PostgreSQL at {PG_URL}: {err}"
    return None


def require_pg() -> None:
    reason = pg_unavailable()
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"CI=true but the PostgreSQL tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def drop_schema(schema: str) -> None:
    import asyncpg

    async def drop() -> None:
        con = await asyncpg.connect(PG_URL)
        try:
            await con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        finally:
            await con.close()

    _run(drop)


@contextmanager
def fresh_pg_url() -> Iterator[str]:
    """A URL whose tables live in a new random schema (created by the storage), dropped afterwards."""
    require_pg()
    schema = "t_" + uuid.uuid4().hex[:16]
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}schema={schema}"
    finally:
        drop_schema(schema)


@contextmanager
def database(dialect: str, sqlite_path: str) -> Iterator[str]:
    """What ``SIKPAN_DB`` would be for a test on ``dialect``."""
    if dialect == "sqlite":
        yield sqlite_path
    else:
        with fresh_pg_url() as url:
            yield url


DIALECTS = ("sqlite", "postgresql")
