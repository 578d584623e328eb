"""Issue 36 items 5 and 6: secrets never printed, settings that cannot work refused before anything starts.

- Every error path of ``sikpan run``, ``migrate`` and ``backup`` with a password in a URL (the database's, Redis',
  a malformed one, one read from a ``*_FILE``, one with characters a URL must encode), run as the operator
  runs them (a subprocess, DEBUG logs): the password appears nowhere in stdout or stderr.
- ``*_FILE`` variables; ``SIKPAN_DB_PASSWORD`` URL-encoded into the URL (the compose file passes it so);
  unknown variables named with the nearest known one; malformed URLs one line, exit 2, no traceback; a role
  that uses Redis refuses a SQLite file of its own; polling refuses a webhook that is set unless told.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

import bot.app as app
from bot.config import ConfigError, Settings, load_settings, redact, unknown_variables
from bot.i18n import gettext
from bot.startup import StartupError
from bot.storage.urls import split_url
from tests.adapters.conftest import running, tg_settings
from tests.webhook.conftest import free_port

PASSWORD = "secret123"
ODD = "p@ss:w/rd#%?" + PASSWORD  # every character a URL must encode
TOKEN = "7012345678:AAHfake-TelegramToken_for-tests-0123456"


def _sikpan(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "SIKPAN_", "DISCORD_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        env={
            **base,
            "SIKPAN_ENV_FILE": "/nonexistent",
            "SIKPAN_LANG": "ko",
            "SIKPAN_START_ATTEMPTS": "1",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=90,
        cwd=cwd,
    )


def _error_paths(tmp_path: Path) -> list[tuple[list[str], dict[str, str]]]:
    dead = free_port()  # nothing listens there
    pg = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{dead}/sikpan"
    redis = f"redis://:{PASSWORD}@127.0.0.1:{dead}/0"
    url_file = tmp_path / "db_url"
    url_file.write_text(pg + "\n", encoding="utf-8")
    sqlite = str(tmp_path / "db.sqlite")
    api = f"http://127.0.0.1:{dead}/bot"
    return [
        (["run", "--log-level", "DEBUG"], {"SIKPAN_DB": pg}),  # the database refuses the connection
        (["migrate"], {"SIKPAN_DB": pg}),
        (["backup", str(tmp_path / "b" / "x.dump")], {"SIKPAN_DB": pg}),  # pg_dump fails to connect
        (["backup", "x.dump"], {"SIKPAN_DB": pg, "PATH": str(tmp_path / "no-bin")}),  # no pg_dump at all
        (["migrate"], {"SIKPAN_DB_FILE": str(url_file)}),
        (
            ["migrate"],
            {"SIKPAN_DB": f"postgresql://postgres@127.0.0.1:{dead}/sikpan", "SIKPAN_DB_PASSWORD": ODD},
        ),
        (["run"], {"SIKPAN_DB": f"postgresql://postgres:{PASSWORD}@127.0.0.1:{dead}/sikpan?pool=many"}),
        (["run"], {"SIKPAN_DB": f"postgresql://postgres:{PASSWORD}@127.0.0.1:port/sikpan"}),  # bad port
        (["run"], {"SIKPAN_REDIS_URL": f"http://u:{PASSWORD}@127.0.0.1:{dead}/0"}),  # malformed
        (["run", "--role", "worker"], {"SIKPAN_REDIS_URL": redis, "TELEGRAM_BOT_TOKEN": TOKEN}),  # SQLite
        (  # Redis down, the Bot API unreachable: the worker's start fails
            ["run", "--role", "worker", "--log-level", "DEBUG"],
            {
                "SIKPAN_REDIS_URL": redis,
                "TELEGRAM_BOT_TOKEN": TOKEN,
                "SIKPAN_DB": sqlite,
                "SIKPAN_SQLITE_SHARED": "1",
                "TELEGRAM_API_BASE_URL": api,
            },
        ),  # fmt: skip
        (["run"], {"TELEGRAM_API_BASE_URL": f"http://u:{PASSWORD}@127.0.0.1:{dead}"}),  # without /bot
        (["run"], {"SIKPAN_DB_FILE": str(tmp_path / "missing")}),
    ]


def test_no_error_path_prints_a_password(tmp_path):
    for args, env in _error_paths(tmp_path):
        done = _sikpan(args, env, tmp_path)
        output = done.stdout + done.stderr
        assert done.returncode != 0, (args, env, output)
        assert "Traceback" not in output, (args, output)
        for shown in (PASSWORD, quote(PASSWORD), quote(ODD, safe=""), ODD):
            assert shown not in output, (args, env, output)


def test_redact_hides_url_passwords_and_given_secrets():
    text = f"postgresql://u:{PASSWORD}@h:5432/db and redis://:{PASSWORD}@r/0 and {quote(ODD, safe='')}"
    shown = redact(text, [ODD])
    assert PASSWORD not in shown and "postgresql://u:***@h:5432/db" in shown and "redis://:***@r/0" in shown
    settings = load_settings({"SIKPAN_DB": f"postgresql://u:{PASSWORD}@h/db"}, env_file="/nonexistent")
    assert PASSWORD not in repr(settings) and PASSWORD in settings.secrets


def test_secrets_from_files(tmp_path):
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n", encoding="utf-8")
    password = tmp_path / "password"
    password.write_text(ODD, encoding="utf-8")
    env = {"TELEGRAM_BOT_TOKEN_FILE": str(token), "SIKPAN_DB": "postgresql://sikpan@db:5432/sikpan",
           "SIKPAN_DB_PASSWORD_FILE": str(password)}  # fmt: skip
    settings = load_settings(env, env_file="/nonexistent")
    assert settings.telegram_token == TOKEN
    dsn, _, _ = split_url(settings.db_path)
    from urllib.parse import urlsplit

    assert urlsplit(dsn).password is not None
    assert urlsplit(dsn).hostname == "db" and urlsplit(dsn).username == "sikpan"
    from urllib.parse import unquote

    assert unquote(urlsplit(dsn).password) == ODD  # URL-encoded in, the same password out
    with pytest.raises(ConfigError) as both:
        load_settings({**env, "TELEGRAM_BOT_TOKEN": TOKEN}, env_file="/nonexistent")
    assert both.value.code == "bot.error.config_file_both"
    with pytest.raises(ConfigError) as missing:
        load_settings({"DISCORD_BOT_TOKEN_FILE": str(tmp_path / "none")}, env_file="/nonexistent")
    assert (
        missing.value.code == "bot.error.config_file"
        and missing.value.params["name"] == "DISCORD_BOT_TOKEN_FILE"
    )


async def test_the_database_password_reaches_postgresql_url_encoded(tmp_path):
    """The test server trusts local users, so any password is accepted: what is checked is that a password
    full of URL characters leaves the URL parseable (host, port, database) and reaches the server."""
    from bot.storage import Storage
    from tests.servers import PG_URL, require_pg

    require_pg()
    settings = load_settings({"SIKPAN_DB": PG_URL, "SIKPAN_DB_PASSWORD": ODD}, env_file="/nonexistent")
    storage = await Storage.open(settings.db_path, migrate=False)
    try:
        assert await storage.fetchone("SELECT 1")
    finally:
        await storage.close()


def test_unknown_variables_are_named_with_the_nearest_known_name(tmp_path):
    assert unknown_variables(
        ["SIKPAN_DATABASE_URL", "TELEGRAM_BOT_TOKN", "SIKPAN_REDIS", "DISCORD_TOKEN", "SIKPAN_ZZZZ", "SIKPAN_DB",
         "HOME", "TELEGRAM_WEBHOOK_SECRET_FILE"]
    ) == [
        ("DISCORD_TOKEN", "DISCORD_BOT_TOKEN"),
        ("SIKPAN_DATABASE_URL", "SIKPAN_DB"),
        ("SIKPAN_REDIS", "SIKPAN_REDIS_URL"),
        ("SIKPAN_ZZZZ", None),
        ("TELEGRAM_BOT_TOKN", "TELEGRAM_BOT_TOKEN"),
    ]  # fmt: skip
    env_file = tmp_path / ".env"
    env_file.write_text("TELEGRAM_WEBHOK_URL=https://x.example/hook\n", encoding="utf-8")
    done = _sikpan(["migrate", "--env-file", str(env_file)], {"SIKPAN_DATABASE_URL": "x"}, tmp_path)
    assert done.returncode == 0
    lines = done.stderr.strip().splitlines()
    assert lines == [
        gettext("ko", "bot.warning.config_unknown_near", name="SIKPAN_DATABASE_URL", near="SIKPAN_DB"),
        gettext(
            "ko", "bot.warning.config_unknown_near", name="TELEGRAM_WEBHOK_URL", near="TELEGRAM_WEBHOOK_URL"
        ),
    ]


@pytest.mark.parametrize(
    "name, value",
    [
        ("SIKPAN_REDIS_URL", "http://127.0.0.1:6379/0"),
        ("SIKPAN_REDIS_URL", "redis://127.0.0.1:port/0"),
        ("TELEGRAM_API_BASE_URL", "http://127.0.0.1:8081"),  # the token would be glued to the port
        ("TELEGRAM_API_BASE_URL", "127.0.0.1:8081/bot"),
        ("DISCORD_API_BASE_URL", "discord.com/api/v10"),
        ("DISCORD_GATEWAY_URL", "https://gateway.discord.gg/"),
        ("SIKPAN_DB", "mysql://u@h/db"),
    ],
)
def test_a_malformed_url_is_one_line_and_exit_2(tmp_path, name, value):
    done = _sikpan(["run"], {name: value}, tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert name in line and line.startswith(
        gettext("ko", "bot.error.config_url").split("{")[0].strip() or name
    )
    assert not list(tmp_path.glob("*.db"))  # refused before anything was opened


@pytest.mark.parametrize("value", ["https://api.telegram.org/bot", "http://127.0.0.1:8081/bot",
                                   "https://api.telegram.org/bot{token}/test"])  # fmt: skip
def test_telegram_base_urls_that_work_are_accepted(value):
    assert (
        load_settings({"TELEGRAM_API_BASE_URL": value}, env_file="/nonexistent").telegram_api_base_url
        == value
    )


def test_a_role_that_uses_redis_refuses_a_sqlite_file_of_its_own(tmp_path):
    redis = "redis://127.0.0.1:6379/0"
    for role, extra in (("worker", {}), ("scheduler", {}), ("all", {}), ("telegram", {})):
        settings = Settings(db_path="sikpan.db", role=role, telegram_token=TOKEN, redis_url=redis, **extra)
        with pytest.raises(app.RoleError) as refused:
            app.plan(settings)
        assert refused.value.code == "bot.error.redis_needs_shared_db"
        app.plan(dataclasses.replace(settings, sqlite_shared=True))  # one host, one file: declared
        app.plan(dataclasses.replace(settings, db_path="postgresql://u@h/db"))
    app.plan(Settings(db_path="sikpan.db", redis_url=redis))  # the console chat uses no Redis
    done = _sikpan(
        ["run", "--role", "worker"], {"SIKPAN_REDIS_URL": redis, "TELEGRAM_BOT_TOKEN": TOKEN}, tmp_path
    )
    assert done.returncode == 2
    assert done.stderr.strip() == gettext(
        "ko", "bot.error.redis_needs_shared_db", role="worker", path="sikpan.db"
    )
    assert not (tmp_path / "sikpan.db").exists()


async def test_polling_refuses_a_webhook_that_is_set_unless_told_to_replace_it(tg, tmp_path):
    tg.webhook = {"url": "https://hook.example.org/tg", "secret_token": "s"}
    info = (await _get(tg, "getWebhookInfo"))["result"]
    assert info["url"] == "https://hook.example.org/tg" and info["pending_update_count"] == 0
    assert info["max_connections"] == 40 and info["has_custom_certificate"] is False
    settings = tg_settings(tg, str(tmp_path / "db.sqlite"))
    stop = asyncio.Event()
    with pytest.raises(StartupError) as refused:
        await asyncio.wait_for(app.run(dataclasses.replace(settings, role="telegram"), stop), 30)
    assert refused.value.code == "bot.error.webhook_active" and refused.value.status == 2
    assert refused.value.params == {"host": "hook.example.org"}
    assert tg.webhook is not None and not [c for c in tg.calls if c.method == "deleteWebhook"]
    assert not [c for c in tg.calls if c.method == "getUpdates"]
    told = dataclasses.replace(settings, telegram_replace_webhook=True)
    async with running(told, ready=tg):
        assert tg.webhook is None  # replaced: PTB's start_polling deleted it
    assert load_settings({"TELEGRAM_REPLACE_WEBHOOK": "1"}, env_file="/nonexistent").telegram_replace_webhook


async def _get(tg, method: str) -> dict:
    import aiohttp

    async with aiohttp.ClientSession() as http, http.post(f"{tg.base_url}{tg.token}/{method}") as response:
        return await response.json()


def test_an_uncaught_exception_is_printed_without_its_secrets(tmp_path):
    code = (
        "from bot.config import install_redaction\n"
        f"install_redaction(['{ODD}'])\n"
        f"raise RuntimeError('cannot reach postgresql://u:{PASSWORD}@h/db with {ODD}')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 1 and "RuntimeError: cannot reach postgresql://u:***@h/db" in done.stderr
    assert PASSWORD not in done.stderr and "Traceback" in done.stderr  # a bug still shows where it was


def test_every_variable_the_code_reads_is_a_known_name():
    """A setting added without adding its name to ``KNOWN_VARIABLES`` would be warned about as unknown."""
    import re

    from bot.config import KNOWN_VARIABLES

    root = Path(__file__).resolve().parents[2] / "bot"
    read = {
        name
        for path in root.rglob("*.py")
        for name in re.findall(
            r"[\"']((?:SIKPAN|TELEGRAM|DISCORD)_[A-Z0-9_]*[A-Z0-9])[\"']", path.read_text()
        )
    }
    assert read and not sorted(read - set(KNOWN_VARIABLES))
