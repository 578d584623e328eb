"""``sikpan run --role …`` and the webhook settings: which parts each role runs, what it refuses, and the
webhook switched on by ``.env`` alone (it used to read os.environ only, so ``.env`` silently polled)."""

from __future__ import annotations

import asyncio
import functools
import os
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

import bot.app as app
from bot.config import ROLES, ConfigError, Settings, load_settings
from bot.i18n import gettext
from bot.telegram import webhook_options
from tests.webhook.conftest import SECRET, free_port

TOKEN = "7012345678:AAHfake-TelegramToken_for-tests-0123456"
REDIS = "redis://127.0.0.1:6379/0"


def test_dotenv_alone_switches_telegram_to_the_webhook(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"TELEGRAM_BOT_TOKEN={TOKEN}\n"
        "TELEGRAM_WEBHOOK_URL=https://bot.example.org/hook\n"
        f"TELEGRAM_WEBHOOK_SECRET={SECRET}\n"
        "TELEGRAM_WEBHOOK_PORT=9443\n"
        "TELEGRAM_WEBHOOK_PATH=/tg/\n",
        encoding="utf-8",
    )
    settings = load_settings({}, env_file=env_file)  # nothing in the environment
    assert webhook_options(settings) == {
        "listen": "0.0.0.0",
        "port": 9443,
        "url_path": "tg",
        "webhook_url": "https://bot.example.org/hook",
        "secret_token": SECRET,
    }
    assert SECRET not in repr(settings) and SECRET in settings.secrets  # redacted from logs like tokens
    assert webhook_options(load_settings({}, env_file=tmp_path / "none.env")) is None  # polling


@pytest.mark.parametrize(
    "env, code",
    [
        ({"TELEGRAM_WEBHOOK_URL": "https://x.example/hook"}, "bot.error.config_webhook_secret_missing"),
        (
            {"TELEGRAM_WEBHOOK_URL": "ftp://x", "TELEGRAM_WEBHOOK_SECRET": "abc"},
            "bot.error.config_webhook_url",
        ),
        ({"TELEGRAM_WEBHOOK_SECRET": "has space"}, "bot.error.config_webhook_secret"),
        ({"TELEGRAM_WEBHOOK_SECRET": "x" * 257}, "bot.error.config_webhook_secret"),
        ({"TELEGRAM_WEBHOOK_PORT": "70000"}, "bot.error.config_number"),
        ({"TELEGRAM_SEND_RATE": "fast"}, "bot.error.config_number"),
        ({"SIKPAN_ROLE": "janitor"}, "bot.error.config_role"),
        ({"DISCORD_SHARD_IDS": "0,1"}, "bot.error.config_shards"),  # ids without a count
        ({"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "1-2"}, "bot.error.config_shards"),
        ({"DISCORD_SYNC_COMMANDS": "maybe"}, "bot.error.config_flag"),
        ({"SIKPAN_METRICS_PORT": "0"}, "bot.error.config_number"),
        ({"SIKPAN_METRICS_PORT": "9100x"}, "bot.error.config_number"),
        ({"TELEGRAM_WEBHOOK_MAX_CONNECTIONS": "0"}, "bot.error.config_number"),  # Telegram takes 1-100
        ({"TELEGRAM_WEBHOOK_MAX_CONNECTIONS": "101"}, "bot.error.config_number"),
        (
            {"TELEGRAM_WEBHOOK_IP_ADDRESS": "bot.example.org"},
            "bot.error.config_number",
        ),  # an address, no name
        ({"TELEGRAM_WEBHOOK_DROP_PENDING": "sometimes"}, "bot.error.config_flag"),
        # one check of every whole-number variable (bot.config._whole): signs, digits outside ASCII, range
        ({"SIKPAN_START_ATTEMPTS": "0"}, "bot.error.config_number"),
        ({"SIKPAN_START_ATTEMPTS": "five"}, "bot.error.config_number"),
        ({"SIKPAN_KEEP_DELIVERIES": "-1"}, "bot.error.config_number"),
        ({"SIKPAN_KEEP_DELIVERIES": "３５"}, "bot.error.config_number"),  # full-width digits
        ({"DISCORD_SHARD_COUNT": "0"}, "bot.error.config_number"),
        ({"TELEGRAM_WEBHOOK_PORT": "0080000"}, "bot.error.config_number"),
    ],
)
def test_bad_deployment_settings_are_refused_in_both_languages(tmp_path, env, code):
    with pytest.raises(ConfigError) as err:
        load_settings(env, env_file=tmp_path / "none.env")
    assert err.value.code == code
    for lang in ("ko", "lzh"):
        text = gettext(lang, code, **err.value.params)
        assert text != code and "{" not in text


def test_shard_settings(tmp_path):
    s = load_settings(
        {"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "0, 2-3", "DISCORD_SYNC_COMMANDS": "off"},
        env_file=tmp_path / "none.env",
    )
    assert (s.discord_shard_count, s.discord_shard_ids, s.discord_sync_commands) == (4, (0, 2, 3), False)


def test_metrics_listener_is_off_by_default_and_local_when_on(tmp_path):
    assert load_settings({}, env_file=tmp_path / "none.env").metrics_port is None
    on = load_settings({"SIKPAN_METRICS_PORT": "9100"}, env_file=tmp_path / "none.env")
    assert (on.metrics_port, on.metrics_listen) == (9100, "127.0.0.1")
    env_file = tmp_path / ".env"
    env_file.write_text("SIKPAN_METRICS_PORT=9101\nSIKPAN_METRICS_LISTEN=0.0.0.0\n", encoding="utf-8")
    from_file = load_settings({}, env_file=env_file)
    assert (from_file.metrics_port, from_file.metrics_listen) == (9101, "0.0.0.0")


def _settings(**kw) -> Settings:
    return Settings(db_path="x.db", sqlite_shared=True, **kw)


WEBHOOK = {
    "telegram_token": TOKEN,
    "telegram_webhook_url": "https://bot.example.org/hook",
    "telegram_webhook_secret": SECRET,
}


@pytest.mark.parametrize(
    "role, settings, runners",
    [
        ("all", {}, set()),  # the console
        ("all", {"telegram_token": TOKEN, "discord_token": "d"}, {"telegram", "discord", "scheduler"}),
        ("telegram", {"telegram_token": TOKEN, "discord_token": "d"}, {"telegram"}),
        ("discord", {"telegram_token": TOKEN, "discord_token": "d"}, {"discord"}),
        (
            "scheduler",
            {"telegram_token": TOKEN, "discord_token": "d"},
            {"telegram-sender", "discord-sender", "scheduler"},
        ),  # fmt: skip
        ("webhook", WEBHOOK, {"metrics", "telegram"}),  # monitoring on a port of its own by default
        # with Redis: the scheduler queues the Telegram readings (no client), the workers send them, the
        # Discord readings are scheduled where the Discord client runs, and role all works the queue too
        ("scheduler", {"telegram_token": TOKEN, "discord_token": "d", "redis_url": REDIS}, {"scheduler"}),
        ("worker", {"telegram_token": TOKEN, "redis_url": REDIS}, {"worker"}),
        ("discord", {"discord_token": "d", "redis_url": REDIS}, {"discord", "scheduler"}),
        ("all", {"telegram_token": TOKEN, "redis_url": REDIS}, {"telegram", "scheduler", "worker"}),
        ("all", {"discord_token": "d", "redis_url": REDIS}, {"discord", "scheduler"}),
    ],
)
def test_each_role_runs_its_parts(role, settings, runners):
    plan = app.plan(_settings(role=role, **settings))
    assert set(plan.runners) == runners
    assert plan.console == (runners == set())
    assert set(ROLES) == set(app.ROLES)


@pytest.mark.parametrize(
    "role, settings, discord",
    [
        ("all", {"telegram_token": TOKEN, "discord_token": "d"}, True),
        ("all", {"telegram_token": TOKEN}, False),
        ("scheduler", {"telegram_token": TOKEN, "discord_token": "d"}, True),  # its send-only client
        ("scheduler", {"discord_token": "d"}, True),
        ("scheduler", {"telegram_token": TOKEN, "discord_token": "d", "redis_url": REDIS}, False),
        ("discord", {"discord_token": "d", "redis_url": REDIS}, True),
    ],
)
def test_the_scheduler_sends_through_discord_where_its_client_runs(role, settings, discord):
    """The scheduler imports no adapter: bot.app hands it the Discord transport where a Discord client runs."""
    from bot.discord.transport import DiscordTransport

    runner = app.plan(_settings(role=role, **settings)).runners["scheduler"]
    assert isinstance(runner, functools.partial) and runner.func is app.run_scheduler
    assert (DiscordTransport in runner.keywords["transports"]) is discord


@pytest.mark.parametrize(
    "role, settings, needs",
    [
        ("telegram", {}, "TELEGRAM_BOT_TOKEN"),
        ("discord", {"telegram_token": TOKEN}, "DISCORD_BOT_TOKEN"),
        ("webhook", {"telegram_token": TOKEN}, "TELEGRAM_WEBHOOK_URL"),
        ("scheduler", {}, "TELEGRAM_BOT_TOKEN / DISCORD_BOT_TOKEN"),
        ("worker", {"telegram_token": TOKEN}, "SIKPAN_REDIS_URL"),
        ("worker", {"redis_url": REDIS}, "TELEGRAM_BOT_TOKEN"),
        ("scheduler", {"discord_token": "d", "redis_url": REDIS}, "TELEGRAM_BOT_TOKEN"),
    ],
)
def test_a_role_without_what_it_needs_is_refused(role, settings, needs):
    with pytest.raises(app.RoleError) as err:
        app.plan(_settings(role=role, **settings))
    assert err.value.params["what"] == needs


@pytest.mark.parametrize(
    "role, settings",
    [
        ("all", {}),  # the console, watched too
        ("scheduler", {"telegram_token": TOKEN, "redis_url": REDIS}),
        ("worker", {"telegram_token": TOKEN, "redis_url": REDIS}),
        ("discord", {"discord_token": "d"}),
        ("telegram", {"telegram_token": TOKEN}),  # polling
        ("webhook", {**WEBHOOK, "telegram_webhook_port": 8443}),  # its own port besides the webhook's
    ],
)
def test_a_metrics_port_adds_the_listener_first_to_any_role(role, settings):
    # (a webhook has one by default: "without" is then its monitoring on the webhook's port, named)
    on_webhook = {"metrics_port": 8443} if role == "webhook" else {}
    without = app.plan(_settings(role=role, **settings, **on_webhook))
    parts = app.plan(_settings(role=role, metrics_port=9100, **settings))
    assert list(parts.runners) == ["metrics", *without.runners]  # first: metrics on before any send
    assert parts.critical == without.critical | {"metrics"}  # a listener that cannot bind stops the role
    assert parts.adapters == without.adapters and parts.console == without.console


def test_the_webhook_port_already_serves_metrics():
    same = _settings(role="webhook", metrics_port=8443, telegram_webhook_port=8443, **WEBHOOK)
    assert set(app.plan(same).runners) == {"telegram"}
    also = _settings(role="all", metrics_port=8443, telegram_webhook_port=8443, **WEBHOOK)
    assert "metrics" not in app.plan(also).runners


def test_the_webhook_without_its_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # "not installed"
    monkeypatch.delitem(sys.modules, "bot.web", raising=False)
    monkeypatch.delitem(sys.modules, "bot.monitor", raising=False)
    with pytest.raises(app.MissingExtra) as err:
        app.plan(_settings(role="webhook", **WEBHOOK))
    assert err.value.extra == "webhook"
    with pytest.raises(app.MissingExtra) as err:  # the metrics listener of any role needs it too
        app.plan(_settings(role="worker", telegram_token=TOKEN, redis_url=REDIS, metrics_port=9100))
    assert err.value.extra == "webhook" and err.value.platform == "metrics listener"


def _sikpan(args: list[str], env: dict[str, str], **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], env=env, capture_output=True, text=True, timeout=60, **kw
    )


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_sikpan_run_refuses_a_role_with_one_localized_line_and_exit_2(tmp_path, lang):
    env = {**os.environ, "SIKPAN_ENV_FILE": str(tmp_path / "none.env"), "SIKPAN_LANG": lang,
           "SIKPAN_DB": str(tmp_path / "db.sqlite"), "TELEGRAM_BOT_TOKEN": TOKEN}  # fmt: skip
    worker = _sikpan(["run", "--role", "worker"], env)
    assert worker.returncode == 2
    assert "SIKPAN_REDIS_URL" in worker.stderr and "Traceback" not in worker.stderr
    assert worker.stderr.strip().count("\n") == 0
    assert worker.stderr.strip() == gettext(
        lang, "bot.error.role_needs", role="worker", what="SIKPAN_REDIS_URL"
    )
    hook = _sikpan(["run", "--role", "webhook"], env)
    assert hook.returncode == 2 and "TELEGRAM_WEBHOOK_URL" in hook.stderr
    env_file = tmp_path / ".env"
    env_file.write_text("TELEGRAM_WEBHOOK_URL=https://bot.example.org/hook\n", encoding="utf-8")
    no_secret = _sikpan(["run"], {**env, "SIKPAN_ENV_FILE": str(env_file)})
    assert no_secret.returncode == 2
    assert no_secret.stderr.strip() == gettext(lang, "bot.error.config_webhook_secret_missing")
    assert not Path(tmp_path / "db.sqlite").exists()  # refused before anything was opened


async def test_sikpan_run_with_only_a_dotenv_serves_the_webhook_and_stops_on_sigterm(tg, tmp_path):
    port, monitor = free_port(), free_port()
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"TELEGRAM_BOT_TOKEN={tg.token}\nTELEGRAM_API_BASE_URL={tg.base_url}\n"
        f"TELEGRAM_WEBHOOK_URL=https://bot.example.org/hook\nTELEGRAM_WEBHOOK_SECRET={SECRET}\n"
        f"TELEGRAM_WEBHOOK_LISTEN=127.0.0.1\nTELEGRAM_WEBHOOK_PORT={port}\n"
        f"SIKPAN_DB={tmp_path / 'db.sqlite'}\nSIKPAN_METRICS_PORT={monitor}\n"
        "TELEGRAM_WEBHOOK_MAX_CONNECTIONS=80\nTELEGRAM_WEBHOOK_IP_ADDRESS=203.0.113.7\n"
        "TELEGRAM_WEBHOOK_DROP_PENDING=1\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "SIKPAN_", "DISCORD_"))}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", "--env-file", str(env_file), env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await tg.wait_for("setWebhook", timeout=30)
        assert tg.webhook["secret_token"] == SECRET
        # setWebhook's own options, as the settings give them (issue #35 item 4)
        assert int(tg.webhook["max_connections"]) == 80 and tg.webhook["ip_address"] == "203.0.113.7"
        assert str(tg.webhook["drop_pending_updates"]).lower() == "true"
        async with aiohttp.ClientSession() as http:
            for _ in range(200):
                try:
                    async with http.get(f"http://127.0.0.1:{monitor}/healthz") as r:
                        if r.status == 200:
                            break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.05)
            async with http.post(
                f"http://127.0.0.1:{port}/telegram",
                json=tg.make_update("/start", chat_id=51),
                headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
            ) as r:
                assert r.status == 200
        assert len(tg.sent_to(51)) == 1
        assert not [c for c in tg.calls if c.method == "getUpdates"]  # no polling
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert SECRET not in err.decode() and tg.token.split(":")[1] not in err.decode()
