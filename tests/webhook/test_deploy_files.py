"""Dockerfile, docker-compose.yml and ``python -m bot.healthcheck`` for the multi-process layout (Docker
cannot run here: check what the files promise, and run the health check itself)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.webhook.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_dockerfile_exposes_the_webhook_and_checks_health_in_the_dependency_layer_order():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^EXPOSE 8443$", text, re.M)
    assert re.search(r'^HEALTHCHECK .*CMD \["python", "-m", "bot.healthcheck"\]$', text, re.M)
    deps = text.index("pip install -r /tmp/requirements.txt")
    assert deps < text.index("COPY bot ./bot")  # the code does not invalidate the dependency layer
    for extra in ("telegram", "discord", "postgres", "webhook", "redis"):
        assert f"extras['{extra}']" in text[:deps]


def _service(text: str, name: str) -> str:
    m = re.search(rf"^  {name}:.*?(?=^  \S|^\S|\Z)", text, re.M | re.S)
    assert m, name
    return m.group(0)


def test_compose_scale_profile_has_the_servers_one_scheduler_workers_and_two_webhooks():
    text = (ROOT / "docker-compose.yml").read_text()
    assert "profiles" not in _service(text, "bot")  # `docker compose up` is still the one SQLite process
    for name in ("postgres", "redis", "migrate", "scheduler", "worker"):
        assert "profiles: [scale]" in _service(text, name), name
    # each platform in a profile of its own (issue #35 item 4): one left out starts nothing
    assert "profiles: [telegram]" in _service(text, "webhook") and "profiles: [telegram]" in _service(
        text, "caddy"
    )
    assert "profiles: [discord]" in _service(text, "discord")
    assert "SIKPAN_ROLE: scheduler" in _service(text, "scheduler")
    assert "replicas" not in _service(text, "scheduler")
    worker = _service(text, "worker")
    assert "SIKPAN_ROLE: worker" in worker and "replicas: ${SIKPAN_WORKERS:-2}" in worker
    webhook = _service(text, "webhook")
    assert "SIKPAN_ROLE: webhook" in webhook and "replicas: 2" in webhook and '"8443"' in webhook
    # the password never in the URL unencoded (issue 36): the bot URL-encodes SIKPAN_DB_PASSWORD into it
    assert (
        "SIKPAN_DB: postgresql://sikpan@postgres:5432/sikpan" in text and ":${POSTGRES_PASSWORD}@" not in text
    )
    assert "SIKPAN_DB_PASSWORD_FILE: /run/secrets/db_password" in text  # a secret file, never a variable
    assert "SIKPAN_REDIS_URL: redis://redis:6379/0" in text
    assert 'command: ["migrate"]' in _service(text, "migrate")
    import yaml

    services = yaml.safe_load(text)["services"]  # the shared settings come through YAML merge keys
    for name in (
        "scheduler",
        "worker",
        "discord",
        "webhook",
    ):  # /metrics and /readyz on 9100, asked by the check
        service = services[name]
        assert service["environment"]["SIKPAN_METRICS_PORT"] == "9100", name
        assert service["environment"]["SIKPAN_METRICS_LISTEN"] == "0.0.0.0", name
        assert "9100" in service["expose"], name
        assert service["healthcheck"]["test"] == ["CMD", "python", "-m", "bot.healthcheck"], name
    assert re.search(r"^EXPOSE 9100$", (ROOT / "Dockerfile").read_text(), re.M)


def _healthcheck(env: dict[str, str]) -> int:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "SIKPAN_", "DISCORD_"))}
    done = subprocess.run(
        [sys.executable, "-m", "bot.healthcheck"],
        env={**base, "SIKPAN_ENV_FILE": "/nonexistent", **env},
        capture_output=True,
        timeout=30,
    )
    return done.returncode


def test_healthcheck_of_a_non_webhook_role_asks_the_database(tmp_path):
    import sqlite3

    db = tmp_path / "db.sqlite"
    assert _healthcheck({"SIKPAN_DB": str(db), "SIKPAN_ROLE": "scheduler"}) == 1  # no database yet
    assert not db.exists()  # never created by the check
    sqlite3.connect(db).close()
    assert _healthcheck({"SIKPAN_DB": str(db), "SIKPAN_ROLE": "scheduler"}) == 0


async def test_healthcheck_of_the_webhook_role_asks_healthz(tg, tmp_path):
    from tests.webhook.conftest import webhook, webhook_settings

    port = free_port()
    settings = webhook_settings(tg, str(tmp_path / "hook.db"), port)
    env = {
        "SIKPAN_METRICS_PORT": str(settings.metrics_port),  # the check asks the monitoring listener
        "SIKPAN_ROLE": "webhook",
        "TELEGRAM_BOT_TOKEN": tg.token,
        "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/hook",
        "TELEGRAM_WEBHOOK_SECRET": "s3cret-Value_1",
        "TELEGRAM_WEBHOOK_PORT": str(port),
        "SIKPAN_DB": str(tmp_path / "hook.db"),
    }
    import asyncio

    assert await asyncio.to_thread(_healthcheck, env) == 1  # nothing listens
    async with webhook(settings):
        assert await asyncio.to_thread(_healthcheck, env) == 0


async def test_healthcheck_of_a_role_with_a_metrics_port_asks_its_healthz(tmp_path):
    """A scheduler with ``SIKPAN_METRICS_PORT``: the check is its listener's /healthz, not the database file
    alone — nothing listening is unhealthy although the database is there."""
    import asyncio
    import sqlite3

    from bot.config import Settings
    from bot.context import create_context
    from bot.monitor import run_monitor

    db = tmp_path / "db.sqlite"
    sqlite3.connect(db).close()
    port = free_port()
    env = {"SIKPAN_DB": str(db), "SIKPAN_ROLE": "scheduler", "SIKPAN_METRICS_PORT": str(port)}
    assert await asyncio.to_thread(_healthcheck, env) == 1  # nothing listens
    ctx = await create_context(Settings(db_path=str(db), role="scheduler", metrics_port=port))
    stop = asyncio.Event()
    task = asyncio.create_task(run_monitor(ctx, stop))
    try:
        for _ in range(100):
            if await asyncio.to_thread(_healthcheck, env) == 0:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the metrics listener's /healthz never answered 200")
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await ctx.close()
    assert await asyncio.to_thread(_healthcheck, env) == 1  # stopped: nothing listens again
