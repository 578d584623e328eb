"""The storage suite runs on both engines: SQLite (a temp file) and PostgreSQL (a fresh schema per test)."""

from __future__ import annotations

from tests.servers import store, target

__all__ = ["store", "target"]  # the fixtures of tests.servers, one per engine
