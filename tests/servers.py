"""The real database servers of the tests: PostgreSQL at ``SIKPAN_TEST_PG`` (default the project machines'
127.0.0.1:5432, trust auth, database ``test``) and Redis at ``SIKPAN_TEST_REDIS`` (default 127.0.0.1:6379).

Without a server the tests that need it skip with the reason — except in CI (``CI=true``), where a missing
server is a failure: CI must never pass by skipping them (issue #17).
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest

PG_URL = os.environ.get("SIKPAN_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("SIKPAN_TEST_REDIS", "redis://127.0.0.1:6379/0")


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


@pytest.fixture(params=DIALECTS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """``SIKPAN_DB`` of a test run once per engine: a SQLite file, a fresh PostgreSQL schema (import the
    fixture into a suite's conftest)."""
    with database(request.param, str(tmp_path / "db.sqlite")) as where:
        yield where


@pytest.fixture
async def store(target: str) -> AsyncIterator[Any]:
    """The :class:`bot.storage.Storage` on ``target``, open for the test."""
    from bot.storage import Storage

    storage = await Storage.open(target)
    try:
        yield storage
    finally:
        await storage.close()


@cache
def redis_unavailable() -> str | None:
    """None when Redis answers (and the ``redis`` extra is installed), else why not."""
    try:
        import arq  # noqa: F401
        import redis.asyncio as aioredis
        from redis.exceptions import RedisError
    except ImportError:
        return "the redis extra is not installed (pip install -e '.[redis]')"

    async def probe() -> None:
        client = aioredis.Redis.from_url(REDIS_URL, socket_connect_timeout=3, socket_timeout=3)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        _run(probe)
    except (OSError, RedisError) as err:
        return f"no Redis at {REDIS_URL}: {err}"
    return None


def require_redis() -> None:
    reason = redis_unavailable()
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"CI=true but the Redis tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def flush_prefix(url: str, prefix: str) -> int:
    """Delete every key of the server that contains ``prefix`` (ours, and arq's ``arq:job:<prefix>…``)."""
    import redis.asyncio as aioredis

    async def flush() -> int:
        client = aioredis.Redis.from_url(url)
        try:
            keys = [k async for k in client.scan_iter(match=f"*{prefix}*", count=1000)]
            if keys:
                await client.delete(*keys)
            return len(keys)
        finally:
            await client.aclose()

    return int(_run(flush))


@contextmanager
def fresh_redis_url(base: str | None = None) -> Iterator[str]:
    """``SIKPAN_REDIS_URL`` with a key prefix of its own (``?prefix=``, bot.limits): the test's keys only,
    deleted afterwards."""
    url = base or REDIS_URL
    if base is None:
        require_redis()
    prefix = "t" + uuid.uuid4().hex[:12] + ":"
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}prefix={prefix}"
    finally:
        from redis.exceptions import RedisError

        try:
            flush_prefix(url, prefix)
        except (OSError, RedisError):
            pass  # a private server the test stopped
