"""The storage suite runs on both engines: SQLite (a temp file) and PostgreSQL (a fresh schema per test)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from bot.storage import Storage
from tests.servers import DIALECTS, database


@pytest.fixture(params=DIALECTS)
def target(request, tmp_path) -> Iterator[str]:
    with database(request.param, str(tmp_path / "store.db")) as where:
        yield where


@pytest.fixture
async def store(target: str) -> AsyncIterator[Storage]:
    storage = await Storage.open(target)
    try:
        yield storage
    finally:
        await storage.close()
