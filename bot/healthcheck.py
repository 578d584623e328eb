"""``python -m bot.healthcheck``: the Docker ``HEALTHCHECK`` of every role (exit 0 healthy, 1 not).

- A process that serves the Telegram webhook (``SIKPAN_ROLE=webhook``, or ``all``/``telegram`` with
  ``TELEGRAM_WEBHOOK_URL`` set), or any role with ``SIKPAN_METRICS_PORT`` set: ``GET /readyz`` of its
  metrics listener (:mod:`bot.monitor`: the database and Redis answer, and the heartbeats of its scheduler
  or queue worker are fresh; 503 while it stops or drains) must answer 200, on ``SIKPAN_METRICS_LISTEN`` —
  ``127.0.0.1`` when that is a wildcard address — and ``SIKPAN_METRICS_PORT`` (a webhook process's
  default: 9100, ``Settings.monitor_port``).
- Otherwise: the database answers a ``SELECT 1`` (SQLite: opened read-only, never created; PostgreSQL: one
  connection) — cheap, and what every role needs (but not Redis, nor whether the process still runs).

Settings come from the environment (and ``.env``) exactly as ``sikpan run`` reads them.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import urllib.error
import urllib.request
from pathlib import Path

from bot.config import ConfigError, Settings, load_settings
from bot.storage.urls import is_postgres_url, split_url

TIMEOUT = 5.0


WILDCARDS = ("0.0.0.0", "::", "")


def check_healthz(host: str, port: int, path: str = "/readyz") -> bool:
    """``GET http://host:port/readyz`` (or ``path``) answers 200."""
    host = "127.0.0.1" if host in WILDCARDS else host
    url = f"http://[{host}]:{port}{path}" if ":" in host else f"http://{host}:{port}{path}"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:  # noqa: S310 - our own listener, from the settings
            return int(response.status) == 200
    except (urllib.error.URLError, OSError):
        return False


def check_database(settings: Settings) -> bool:
    target = settings.db_path
    if is_postgres_url(target):
        import asyncpg

        async def probe() -> None:
            dsn, _, _ = split_url(target, 1)
            con = await asyncpg.connect(dsn, timeout=TIMEOUT)
            try:
                await con.fetchval("SELECT 1")
            finally:
                await con.close()

        try:
            asyncio.run(probe())
        except (OSError, ValueError, asyncpg.PostgresError, asyncpg.InterfaceError):
            return False
        return True
    if not Path(target).is_file():
        return False
    try:
        con = sqlite3.connect(f"file:{target}?mode=ro", uri=True, timeout=TIMEOUT)
        try:
            con.execute("SELECT 1").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return True


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError:
        return 1
    port = settings.monitor_port
    if port is not None:
        host = "127.0.0.1" if settings.monitor_on_webhook else settings.metrics_listen
        healthy = check_healthz(host, port)
    else:
        healthy = check_database(settings)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
