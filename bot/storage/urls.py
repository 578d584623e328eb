"""``SIKPAN_DB`` as a URL: a ``postgresql://`` URL selects PostgreSQL (anything else is a SQLite file).
Pure string work, importable without asyncpg (the CLI uses it before deciding what to load)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def is_postgres_url(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://"))


def split_url(url: str, pool_max: int = 10) -> tuple[str, str | None, int]:
    """(the DSN for asyncpg, the schema or None, the pool size) from a ``SIKPAN_DB`` URL."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    schema = query.pop("schema", None)
    pool = int(query.pop("pool", pool_max))
    if schema is not None and not SCHEMA_RE.match(schema):
        raise ValueError(f"schema name must match {SCHEMA_RE.pattern}: {schema!r}")
    return urlunsplit(parts._replace(query=urlencode(query))), schema, pool


def redact_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
