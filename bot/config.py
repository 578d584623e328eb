"""Configuration from the environment and an optional ``.env`` file, plus token redaction for logs.

Variables (the environment wins over ``.env``; an empty value counts as unset):

===========================  ==========================================  ==========================================
variable                     default                                     meaning
===========================  ==========================================  ==========================================
``TELEGRAM_BOT_TOKEN``       unset                                       starts the Telegram adapter when set
``TELEGRAM_API_BASE_URL``    ``https://api.telegram.org/bot``            prefix the token is appended to
``DISCORD_BOT_TOKEN``        unset                                       starts the Discord adapter when set
``DISCORD_API_BASE_URL``     ``https://discord.com/api/v10``             REST base (``discord.http.Route.BASE``)
``DISCORD_GATEWAY_URL``      ``wss://gateway.discord.gg/``               gateway (``DiscordWebSocket.DEFAULT_GATEWAY``)
``SIKPAN_DB``                ``sikpan.db``                               SQLite file (WAL mode), or a
                                                                         ``postgresql://user@host/db`` URL
                                                                         (``?schema=`` ``&pool=`` optional)
``SIKPAN_REDIS_URL``         unset                                       Redis for shared limits (#17, later)
``SIKPAN_LANG``              ``ko``                                      default language (``ko`` | ``lzh``)
``SIKPAN_TZ``                ``Asia/Seoul``                              default IANA zone of new users
``SIKPAN_ENV_FILE``          ``.env``                                    where to read the optional ``.env``
``SIKPAN_HISTORY_LIMIT``     unset (keep every cast)                     casts kept per user (the newest N)
``SIKPAN_START_ATTEMPTS``    ``5``                                       adapter start attempts before exit 1
===========================  ==========================================  ==========================================

The ``.env`` file is read by python-dotenv. Tokens never reach logs: :func:`install_redaction` (the one
redaction of the bot, used by ``sikpan run`` and by each adapter factory) runs every log record through a
:class:`RedactingFilter` when it is created, which replaces each configured secret (and anything shaped like a
Telegram or Discord token) with ``[REDACTED]``; ``repr(Settings)`` hides the tokens too.
"""

from __future__ import annotations

import io
import logging
import os
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

from bot.i18n import DEFAULT_LANG, N_, normalize_lang
from bot.sanitize import bounded
from bot.startup import START_ATTEMPTS
from bot.zones import zone_or_none

DEFAULT_TELEGRAM_API_BASE_URL = "https://api.telegram.org/bot"
DEFAULT_DISCORD_API_BASE_URL = "https://discord.com/api/v10"
DEFAULT_DISCORD_GATEWAY_URL = "wss://gateway.discord.gg/"
DEFAULT_DB = "sikpan.db"
DEFAULT_TZ = "Asia/Seoul"
REDACTED = "[REDACTED]"


class ConfigError(ValueError):
    """A configuration value that cannot be used; ``code`` is a message id of the bot catalog."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Settings:
    telegram_token: str | None = field(default=None, repr=False)
    telegram_api_base_url: str = DEFAULT_TELEGRAM_API_BASE_URL
    discord_token: str | None = field(default=None, repr=False)
    discord_api_base_url: str = DEFAULT_DISCORD_API_BASE_URL
    discord_gateway_url: str = DEFAULT_DISCORD_GATEWAY_URL
    db_path: str = DEFAULT_DB  # a SQLite path or a postgresql:// URL (bot.storage.urls)
    redis_url: str | None = field(default=None, repr=False)  # may carry a password
    lang: str = DEFAULT_LANG
    tz: str = DEFAULT_TZ
    history_limit: int | None = None  # casts kept per user (newest first); None keeps all
    start_attempts: int = START_ATTEMPTS  # adapter start attempts (back-off between) before exit 1

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(s for s in (self.telegram_token, self.discord_token) if s)

    @property
    def has_tokens(self) -> bool:
        return bool(self.secrets)


def parse_dotenv(text: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (optional ``export``, quotes, ``#`` comments) into a dict, by python-dotenv
    (no ``${VAR}`` interpolation: a ``$`` in a token stays as written; lines it cannot parse are skipped)."""
    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    return {k: v for k, v in values.items() if v is not None}


def load_settings(environ: Mapping[str, str] | None = None, env_file: str | Path | None = None) -> Settings:
    """Settings from ``environ`` (default ``os.environ``) over the optional ``.env`` file."""
    env = dict(os.environ if environ is None else environ)
    path = Path(env_file if env_file is not None else env.get("SIKPAN_ENV_FILE") or ".env")
    merged: dict[str, str] = {}
    if path.is_file():
        merged.update(parse_dotenv(path.read_text(encoding="utf-8")))
    merged.update({k: v for k, v in env.items() if v != ""})

    def get(name: str, default: str | None = None) -> str | None:
        value = merged.get(name, "").strip()
        return value or default

    lang_raw = get("SIKPAN_LANG")
    lang = normalize_lang(lang_raw) if lang_raw else DEFAULT_LANG
    if lang is None:
        raise ConfigError(
            N_("bot.error.config_lang"),
            f"SIKPAN_LANG must be ko or lzh, not {bounded(lang_raw, 64)!r}",
            value=bounded(lang_raw, 64),
        )
    tz = get("SIKPAN_TZ", DEFAULT_TZ) or DEFAULT_TZ
    if zone_or_none(tz) is None:  # never raises (``America``, 5,000 characters …): one localized line
        shown = bounded(tz, 64)
        raise ConfigError("bot.error.config_tz", f"SIKPAN_TZ is not an IANA zone: {shown!r}", value=shown)
    limit_raw = get("SIKPAN_HISTORY_LIMIT")
    if limit_raw is not None and not (limit_raw.isascii() and limit_raw.isdigit() and len(limit_raw) <= 9):
        raise ConfigError(
            "bot.error.config_history_limit",
            f"SIKPAN_HISTORY_LIMIT must be a whole number: {bounded(limit_raw, 64)!r}",
            value=bounded(limit_raw, 64),
        )
    attempts_raw = get("SIKPAN_START_ATTEMPTS")
    attempts = START_ATTEMPTS
    if (
        attempts_raw is not None
        and attempts_raw.isascii()
        and attempts_raw.isdigit()
        and len(attempts_raw) < 4
    ):
        attempts = max(1, int(attempts_raw))
    return Settings(
        history_limit=int(limit_raw) or None if limit_raw is not None else None,
        start_attempts=attempts,
        telegram_token=get("TELEGRAM_BOT_TOKEN"),
        telegram_api_base_url=get("TELEGRAM_API_BASE_URL", DEFAULT_TELEGRAM_API_BASE_URL)
        or DEFAULT_TELEGRAM_API_BASE_URL,
        discord_token=get("DISCORD_BOT_TOKEN"),
        discord_api_base_url=get("DISCORD_API_BASE_URL", DEFAULT_DISCORD_API_BASE_URL)
        or DEFAULT_DISCORD_API_BASE_URL,
        discord_gateway_url=get("DISCORD_GATEWAY_URL", DEFAULT_DISCORD_GATEWAY_URL)
        or DEFAULT_DISCORD_GATEWAY_URL,
        db_path=get("SIKPAN_DB", DEFAULT_DB) or DEFAULT_DB,
        redis_url=get("SIKPAN_REDIS_URL") or None,
        lang=lang,
        tz=tz,
    )


# Shapes of tokens, redacted even when they are not the configured ones (e.g. a token in a URL).
_TOKEN_PATTERNS = (
    re.compile(r"\b\d{6,12}:[A-Za-z0-9_-]{30,}\b"),  # Telegram bot token
    re.compile(r"\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}\b"),  # Discord bot token
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every secret and token-shaped substring replaced by ``[REDACTED]``."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


class RedactingFilter(logging.Filter):
    """Rewrites a record's message (arguments and traceback included) without the secrets.

    ``secrets`` is read at each record, so the process-wide filter sees tokens registered later.
    """

    def __init__(self, secrets: Collection[str] = ()) -> None:
        super().__init__()
        self.secrets = secrets if isinstance(secrets, set) else tuple(s for s in secrets if s)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError, KeyError):  # a broken format string: keep the raw template
            message = str(record.msg)
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg = redact(message, self.secrets)
        record.args = None
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


# The one redaction of the process: every secret ever configured, applied to each log record when it is
# created (by a log-record factory), so every logger and every handler — also ones added later, such as a
# test's capture handler — only ever sees redacted text.
_SECRETS: set[str] = set()
_FILTER = RedactingFilter(_SECRETS)
_installed = False


def _secret_parts(secret: str) -> list[str]:
    """A secret and, for a Telegram token ``123:ABC…``, its secret half alone."""
    parts = [secret]
    if ":" in secret and len(secret.split(":", 1)[1]) >= 6:
        parts.append(secret.split(":", 1)[1])
    return parts


def install_redaction(secrets: Settings | Iterable[str | None]) -> RedactingFilter:
    """Register tokens (a :class:`Settings`' or given ones) and make sure no log record ever carries them.

    Installs, once per process, a log-record factory that runs every new record through the redacting
    filter; also quiets ``httpx``'s per-request INFO lines, whose URLs contain the Telegram token.
    """
    global _installed
    values = secrets.secrets if isinstance(secrets, Settings) else tuple(secrets)
    for secret in values:
        if secret and len(secret) >= 6:
            _SECRETS.update(_secret_parts(secret))
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if not _installed:
        _installed = True
        original = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = original(*args, **kwargs)
            _FILTER.filter(record)
            return record

        logging.setLogRecordFactory(factory)
    return _FILTER
