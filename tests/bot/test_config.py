"""Configuration from the environment and .env; tokens never reach logs or error output."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys

import pytest

from bot.config import (
    DEFAULT_DISCORD_API_BASE_URL,
    DEFAULT_DISCORD_GATEWAY_URL,
    DEFAULT_TELEGRAM_API_BASE_URL,
    REDACTED,
    ConfigError,
    RedactingFilter,
    install_redaction,
    load_settings,
    parse_dotenv,
    redact,
)

TG_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
DC_TOKEN = "MTA4NzY1NDMyMTA5ODc2NTQzMg.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"


def test_defaults(tmp_path):
    s = load_settings({}, env_file=tmp_path / "missing.env")
    assert s.telegram_token is None and s.discord_token is None and not s.has_tokens
    assert s.telegram_api_base_url == DEFAULT_TELEGRAM_API_BASE_URL == "https://api.telegram.org/bot"
    assert s.discord_api_base_url == DEFAULT_DISCORD_API_BASE_URL == "https://discord.com/api/v10"
    assert s.discord_gateway_url == DEFAULT_DISCORD_GATEWAY_URL == "wss://gateway.discord.gg/"
    assert (s.db_path, s.lang, s.tz) == ("sikpan.db", "ko", "Asia/Seoul")


def test_environment_wins_over_dotenv(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\n"
        f"export TELEGRAM_BOT_TOKEN='{TG_TOKEN}'\n"
        "TELEGRAM_API_BASE_URL=http://127.0.0.1:8081/bot  # local server\n"
        "SIKPAN_LANG=lzh\n"
        'SIKPAN_DB="/data/sikpan.db"\n'
        "SIKPAN_TZ=Asia/Shanghai\n",
        encoding="utf-8",
    )
    s = load_settings({"SIKPAN_TZ": "America/New_York", "DISCORD_BOT_TOKEN": DC_TOKEN}, env_file=env_file)
    assert s.telegram_token == TG_TOKEN and s.discord_token == DC_TOKEN
    assert s.telegram_api_base_url == "http://127.0.0.1:8081/bot"
    assert (s.lang, s.db_path, s.tz) == ("lzh", "/data/sikpan.db", "America/New_York")
    assert TG_TOKEN not in repr(s) and DC_TOKEN not in repr(s)


def test_empty_values_count_as_unset(tmp_path):
    s = load_settings({"TELEGRAM_BOT_TOKEN": "", "SIKPAN_DB": ""}, env_file=tmp_path / "none")
    assert s.telegram_token is None and s.db_path == "sikpan.db"


@pytest.mark.parametrize(
    ("name", "value", "code"),
    [("SIKPAN_LANG", "fr", "bot.error.config_lang"), ("SIKPAN_TZ", "Mars/Base", "bot.error.config_tz")],
)
def test_bad_values(tmp_path, name, value, code):
    with pytest.raises(ConfigError) as err:
        load_settings({name: value}, env_file=tmp_path / "none")
    assert err.value.code == code


def test_parse_dotenv_edge_cases():
    assert parse_dotenv("A=1\nB = 'two words'\n=bad\nnot a line\nC=x # c\nD=\"#not comment\"\n") == {
        "A": "1",
        "B": "two words",
        "C": "x",
        "D": "#not comment",
    }


def test_redact_configured_and_token_shaped_secrets():
    text = f"POST https://api.telegram.org/bot{TG_TOKEN}/getMe and {DC_TOKEN}"
    out = redact(text, [TG_TOKEN])
    assert TG_TOKEN not in out and DC_TOKEN not in out and out.count(REDACTED) == 2
    assert redact("secret-value-xyz in a message", ["secret-value-xyz"]) == f"{REDACTED} in a message"


def test_logging_filter_redacts_messages_arguments_and_tracebacks():
    stream = io.StringIO()
    logger = logging.getLogger("sikpan.test.redaction")
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        settings = load_settings({"TELEGRAM_BOT_TOKEN": "plain-secret-token"}, env_file="/nonexistent")
        install_redaction(settings)
        logger.warning("url %s", "https://x/botplain-secret-token/getUpdates")
        logger.warning("telegram token %s", TG_TOKEN)
        try:
            raise RuntimeError(f"failed with plain-secret-token and {TG_TOKEN}")
        except RuntimeError:
            logger.exception("boom")
        child = logging.getLogger("sikpan.test.redaction.child")  # records propagating to the handler
        child.error("child sees plain-secret-token")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    assert "plain-secret-token" not in out and TG_TOKEN not in out
    assert out.count(REDACTED) >= 5
    assert "RuntimeError" in out  # the traceback is still there, only the secret is gone


def test_filter_is_a_logging_filter():
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "token=%s", ("abc-secret",), None)
    assert RedactingFilter(["abc-secret"]).filter(record)
    assert record.getMessage() == f"token={REDACTED}"


def test_sikpan_run_bad_config_is_one_localized_line_without_the_token(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIKPAN_", "TELEGRAM_", "DISCORD_"))}
    env.update(SIKPAN_LANG="klingon", TELEGRAM_BOT_TOKEN=TG_TOKEN, SIKPAN_DB=str(tmp_path / "x.db"))
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and TG_TOKEN not in out.stderr + out.stdout
    assert "SIKPAN_LANG" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_sikpan_run_with_an_unusable_database_is_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIKPAN_", "TELEGRAM_", "DISCORD_"))}
    env.update(SIKPAN_DB=str(tmp_path / "no" / "such" / "dir" / "x.db"), SIKPAN_LANG="ko")
    out = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "x.db" in out.stderr


def test_a_handler_added_after_the_redaction_sees_only_redacted_records():
    """One redaction for the process: it works on the record itself, so later handlers are covered too."""
    install_redaction(["late-handler-secret-123"])
    stream = io.StringIO()
    logger = logging.getLogger("sikpan.test.redaction.late")
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        logger.warning("token late-handler-secret-123 and %s", TG_TOKEN)
    finally:
        logger.removeHandler(handler)
    assert "late-handler-secret-123" not in stream.getvalue() and TG_TOKEN not in stream.getvalue()
    assert stream.getvalue().count(REDACTED) == 2


def test_the_inline_cache_chat_is_a_chat_id(tmp_path):
    """TELEGRAM_INLINE_CACHE_CHAT (issue #34 item 1): unset by default, a chat id (``-100…``) when set, and
    anything else refused with one line naming the variable."""
    missing = tmp_path / "missing.env"
    assert load_settings({}, env_file=missing).telegram_inline_cache_chat is None
    chosen = load_settings({"TELEGRAM_INLINE_CACHE_CHAT": "-1001234567890"}, env_file=missing)
    assert chosen.telegram_inline_cache_chat == -1001234567890
    with pytest.raises(ConfigError) as err:
        load_settings({"TELEGRAM_INLINE_CACHE_CHAT": "@mychannel"}, env_file=missing)
    assert err.value.params["name"] == "TELEGRAM_INLINE_CACHE_CHAT"
