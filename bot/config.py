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
``SIKPAN_REDIS_URL``         unset                                       Redis: shared send budgets
                                                                         (``bot.limits``), the daily readings'
                                                                         job queue (``bot.queue``, role
                                                                         ``worker``), webhook update ids,
                                                                         /healthz (``?prefix=`` optional)
``SIKPAN_LANG``              ``ko``                                      default language (``ko`` | ``lzh``)
``SIKPAN_TZ``                ``Asia/Seoul``                              default IANA zone of new users
``SIKPAN_ENV_FILE``          ``.env``                                    where to read the optional ``.env``
``SIKPAN_HISTORY_LIMIT``     unset (keep every cast)                     casts kept per user (the newest N)
``SIKPAN_START_ATTEMPTS``    ``5``                                       adapter start attempts before exit 1
``SIKPAN_ROLE``              ``all``                                     what ``sikpan run`` runs (``--role``):
                                                                         all | telegram | discord | scheduler |
                                                                         worker | webhook (``bot.app.ROLES``)
``TELEGRAM_WEBHOOK_URL``     unset (long polling)                        public HTTPS URL Telegram posts to;
                                                                         set: the webhook app (``bot.web``)
``TELEGRAM_WEBHOOK_SECRET``  unset (required with a webhook URL)         ``X-Telegram-Bot-Api-Secret-Token``
                                                                         (1–256 of ``A-Z a-z 0-9 _ -``)
``TELEGRAM_WEBHOOK_LISTEN``  ``0.0.0.0``                                 address the webhook app listens on
``TELEGRAM_WEBHOOK_PORT``    ``8443``                                    its port (``/healthz``, ``/metrics`` too)
``TELEGRAM_WEBHOOK_PATH``    ``telegram``                                its path for the updates
``TELEGRAM_SEND_RATE``       ``28``                                      messages per second, all chats together
``SIKPAN_KEEP_DELIVERIES``   ``35``                                      days a finished daily delivery row is kept
                                                                         (``0``: forever; docs/deploy.md)
``SIKPAN_METRICS_PORT``      unset (no listener)                         ``/metrics`` and ``/healthz`` of any
                                                                         role on this port (``bot.monitor``)
``SIKPAN_METRICS_LISTEN``    ``127.0.0.1``                               the address that listener binds
``SIKPAN_LOG_FORMAT``        ``text``                                    ``json``: one JSON object a line,
                                                                         with update/job/delivery ids
                                                                         (``bot.logs``)
``DISCORD_SHARD_COUNT``      unset (Discord's recommendation)            total shards of the bot
``DISCORD_SHARD_IDS``        unset (every shard)                         this process's shards, ``0,1`` or ``0-3``
``DISCORD_SYNC_COMMANDS``    on for the process that runs shard 0        sync the slash commands at start (0/1)
``SIKPAN_DB_PASSWORD``       unset                                       the PostgreSQL password, put into the
                                                                         ``SIKPAN_DB`` URL (URL-encoded here)
``SIKPAN_BUTTON_SECRET``     unset (a key kept in the database)          keys the buttons' seals (``bot.seal``)
``SIKPAN_SQLITE_SHARED``     ``0``                                       1: every process of this deployment
                                                                         opens this one SQLite file (one host),
                                                                         so Redis may be used with it
``TELEGRAM_REPLACE_WEBHOOK`` ``0``                                       1: polling deletes a webhook that is set
                                                                         (0: it refuses to start)
===========================  ==========================================  ==========================================

The webhook's ``setWebhook`` options: ``TELEGRAM_WEBHOOK_MAX_CONNECTIONS`` (1–100; unset: Telegram's 40),
``TELEGRAM_WEBHOOK_IP_ADDRESS`` (the address Telegram sends to instead of the URL's DNS answer) and
``TELEGRAM_WEBHOOK_DROP_PENDING`` (``1``: the updates waiting at Telegram are dropped when the webhook is set).
``TELEGRAM_INLINE_CACHE_CHAT`` (a chat id, ``-100…``; unset by default) is the chat the inline mode uploads its
pictures to, for the ``file_id`` a photo result needs (``bot/telegram/inline.py``, docs/adapters.md).

Secrets may come from files instead (Docker secrets): ``<NAME>_FILE`` names a file whose content (trimmed) is
the value, for ``TELEGRAM_BOT_TOKEN``, ``DISCORD_BOT_TOKEN``, ``TELEGRAM_WEBHOOK_SECRET``, ``SIKPAN_DB``,
``SIKPAN_DB_PASSWORD``, ``SIKPAN_REDIS_URL`` and ``SIKPAN_BUTTON_SECRET`` (:data:`FILE_VARIABLES`; both set:
refused). A URL setting that cannot work (``SIKPAN_REDIS_URL=http://…``, ``TELEGRAM_API_BASE_URL`` without
``/bot``, a port that is no number) is refused with one line (:class:`ConfigError`) before anything starts;
a ``SIKPAN_*``, ``TELEGRAM_*`` or ``DISCORD_*`` variable that is none of these is named with the nearest
known name (:func:`unknown_variables`).

The ``.env`` file is read by python-dotenv. Secrets never reach logs or output: :func:`install_redaction`
(the one redaction of the bot, used by ``sikpan run`` and by each adapter factory) runs every log record
through a :class:`RedactingFilter` when it is created, which replaces each configured secret (tokens, the
database's and Redis' passwords, the button secret), anything shaped like a Telegram or Discord token, and the
password of any ``scheme://user:password@`` URL with ``[REDACTED]``; the CLI passes every line it prints
through :func:`redact` too; ``repr(Settings)`` hides the secrets.
"""

from __future__ import annotations

import difflib
import io
import ipaddress
import logging
import os
import re
import sys
import traceback
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, overload
from urllib.parse import quote, unquote, urlsplit, urlunsplit

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
DEFAULT_WEBHOOK_LISTEN = "0.0.0.0"
DEFAULT_WEBHOOK_PORT = 8443
DEFAULT_WEBHOOK_PATH = "telegram"
DEFAULT_METRICS_LISTEN = "127.0.0.1"  # a laptop's ``sikpan run`` exposes nothing to the network
# a delivery row answers "was today's reading sent?" (the claim's UNIQUE key) and /daily's last status: a
# finished one is only history after its day; five weeks keep a month of them to look into (docs/deploy.md)
KEEP_DELIVERIES_DAYS = 35
# a process that serves the webhook serves /metrics and /healthz here unless SIKPAN_METRICS_PORT says
# otherwise: never on the public webhook listener unless that port is named explicitly
DEFAULT_WEBHOOK_METRICS_PORT = 9100
DEFAULT_TELEGRAM_SEND_RATE = 28.0  # Telegram's ~30 messages/second to different chats, with a margin
REDACTED = "[REDACTED]"
LOG_FORMATS = ("text", "json")  # SIKPAN_LOG_FORMAT (bot.logs)
ROLES = ("all", "telegram", "discord", "scheduler", "worker", "webhook")
# the settings that may be read from a file named by ``<NAME>_FILE`` (Docker secrets)
FILE_VARIABLES = (
    "TELEGRAM_BOT_TOKEN",
    "DISCORD_BOT_TOKEN",
    "TELEGRAM_WEBHOOK_SECRET",
    "SIKPAN_DB",
    "SIKPAN_DB_PASSWORD",
    "SIKPAN_REDIS_URL",
    "SIKPAN_BUTTON_SECRET",
)
# every variable of ours (the table above, and SIKPAN_UVLOOP of ``sikpan run``): any other SIKPAN_*,
# TELEGRAM_* or DISCORD_* variable is a typo (or a setting of another program) and is named at start
KNOWN_VARIABLES = (
    *FILE_VARIABLES,
    *(f"{name}_FILE" for name in FILE_VARIABLES),
    "TELEGRAM_API_BASE_URL",
    "DISCORD_API_BASE_URL",
    "DISCORD_GATEWAY_URL",
    "SIKPAN_LANG",
    "SIKPAN_TZ",
    "SIKPAN_ENV_FILE",
    "SIKPAN_HISTORY_LIMIT",
    "SIKPAN_START_ATTEMPTS",
    "SIKPAN_ROLE",
    "SIKPAN_UVLOOP",
    "SIKPAN_SQLITE_SHARED",
    "TELEGRAM_WEBHOOK_URL",
    "TELEGRAM_WEBHOOK_MAX_CONNECTIONS",
    "TELEGRAM_WEBHOOK_IP_ADDRESS",
    "TELEGRAM_WEBHOOK_DROP_PENDING",
    "TELEGRAM_WEBHOOK_LISTEN",
    "TELEGRAM_WEBHOOK_PORT",
    "TELEGRAM_WEBHOOK_PATH",
    "TELEGRAM_REPLACE_WEBHOOK",
    "TELEGRAM_SEND_RATE",
    "TELEGRAM_INLINE_CACHE_CHAT",
    "SIKPAN_METRICS_PORT",
    "SIKPAN_METRICS_LISTEN",
    "DISCORD_SHARD_COUNT",
    "DISCORD_SHARD_IDS",
    "DISCORD_SYNC_COMMANDS",
    "SIKPAN_KEEP_DELIVERIES",  # days a finished daily delivery row is kept (bot.daily retention, main)
    "SIKPAN_LOG_FORMAT",  # text | json (bot.logs, main)
    # read by others: docker-compose.yml (the number of workers) and the test suite (its servers)
    "SIKPAN_WORKERS",
    "SIKPAN_TEST_PG",
    "SIKPAN_TEST_REDIS",
)
_OURS = re.compile(r"^(SIKPAN|TELEGRAM|DISCORD)_[A-Z0-9_]+$")
# what other programs call a setting of ours (difflib would not find these by spelling)
_OTHER_NAMES = {
    "DATABASE_URL": "SIKPAN_DB",
    "DB": "SIKPAN_DB",
    "REDIS": "SIKPAN_REDIS_URL",
    "TOKEN": "_BOT_TOKEN",
}
_SECRET_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,256}")  # what setWebhook accepts as secret_token


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
    keep_deliveries_days: int = KEEP_DELIVERIES_DAYS  # finished delivery rows older than this go; 0 keeps all
    start_attempts: int = START_ATTEMPTS  # adapter start attempts (back-off between) before exit 1
    role: str = "all"  # SIKPAN_ROLE; ``sikpan run --role`` overrides it
    telegram_webhook_url: str | None = None  # set: updates arrive by webhook (bot.web), not long polling
    telegram_webhook_secret: str | None = field(default=None, repr=False)
    telegram_webhook_listen: str = DEFAULT_WEBHOOK_LISTEN
    telegram_webhook_port: int = DEFAULT_WEBHOOK_PORT
    telegram_webhook_path: str = DEFAULT_WEBHOOK_PATH
    # setWebhook's own options: simultaneous HTTPS connections Telegram opens (1–100; None: Telegram's 40), the
    # fixed IP address it sends to (None: the URL's DNS), and whether pending updates are dropped at setWebhook
    telegram_webhook_max_connections: int | None = None
    telegram_webhook_ip_address: str | None = None
    telegram_webhook_drop_pending: bool = False
    telegram_send_rate: float = DEFAULT_TELEGRAM_SEND_RATE
    # the chat the inline mode uploads pictures to, for the file_id its photo results need (None: a photo
    # result only for a picture this process has sent before)
    telegram_inline_cache_chat: int | None = None
    discord_shard_count: int | None = None  # None: as many as Discord recommends (GET /gateway/bot)
    discord_shard_ids: tuple[int, ...] | None = None  # None: every shard in this process
    discord_sync_commands: bool | None = None  # None: the process that runs shard 0 syncs
    metrics_port: int | None = None  # set: /metrics and /healthz on this port, any role (bot.monitor)
    metrics_listen: str = DEFAULT_METRICS_LISTEN
    log_format: str = "text"  # SIKPAN_LOG_FORMAT: text | json (bot.logs)
    button_secret: str | None = field(default=None, repr=False)  # None: the database's own key (bot.seal)
    sqlite_shared: bool = False  # SIKPAN_SQLITE_SHARED: every process opens this one SQLite file
    telegram_replace_webhook: bool = False  # polling may delete a webhook that is set

    def __repr__(self) -> str:  # the database URL may carry a password
        shown = ", ".join(
            f"{f.name}={redact_url(getattr(self, f.name)) if f.name == 'db_path' else getattr(self, f.name)!r}"
            for f in self.__dataclass_fields__.values()
            if f.repr
        )
        return f"Settings({shown})"

    @property
    def secrets(self) -> tuple[str, ...]:
        values = (
            self.telegram_token,
            self.discord_token,
            self.telegram_webhook_secret,
            self.button_secret,
            url_password(self.db_path),
            url_password(self.redis_url),
        )
        return tuple(s for s in values if s)

    @property
    def webhook(self) -> bool:
        """Telegram updates come by webhook (``TELEGRAM_WEBHOOK_URL`` is set)."""
        return bool(self.telegram_webhook_url)

    @property
    def serves_webhook(self) -> bool:
        """This process's role runs the Telegram webhook app."""
        return self.role == "webhook" or (
            self.webhook and bool(self.telegram_token) and self.role in ("all", "telegram")
        )

    @property
    def monitor_port(self) -> int | None:
        """The port of ``/metrics`` and ``/healthz`` (:mod:`bot.monitor`): ``SIKPAN_METRICS_PORT``; unset, a
        process serving the webhook still gets a listener of its own on :data:`DEFAULT_WEBHOOK_METRICS_PORT`
        (on ``SIKPAN_METRICS_LISTEN``, default ``127.0.0.1``) — the public webhook listener serves only the
        updates' path — and any other role none. ``SIKPAN_METRICS_PORT`` equal to ``TELEGRAM_WEBHOOK_PORT``
        puts them back on the webhook's listener (chosen explicitly, never by default)."""
        if self.metrics_port is not None:
            return self.metrics_port
        return DEFAULT_WEBHOOK_METRICS_PORT if self.serves_webhook else None

    @property
    def monitor_on_webhook(self) -> bool:
        """``/metrics`` and ``/healthz`` are served by the webhook's own listener (explicitly asked for)."""
        return self.serves_webhook and self.monitor_port == self.telegram_webhook_port

    @property
    def has_tokens(self) -> bool:
        return bool(self.telegram_token or self.discord_token or self.telegram_webhook_secret)

    @property
    def shared_database(self) -> bool:
        """Every process of the deployment reads and writes this database: PostgreSQL, or a SQLite file the
        operator declares shared (``SIKPAN_SQLITE_SHARED=1``: the processes run on one host)."""
        return self.db_path.startswith(("postgresql://", "postgres://")) or self.sqlite_shared


def url_password(url: str | None) -> str | None:
    """The password of a ``scheme://user:password@host`` URL (as written, and decoded), or None."""
    if not url or "://" not in url:
        return None
    try:
        password = urlsplit(url).password
    except ValueError:
        return None
    return password or None


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (any text: a SQLite path comes back as it is)."""
    return _URL_PASSWORD.sub(r"\1***@", url)


def with_password(url: str, password: str) -> str:
    """``url`` with ``password`` (URL-encoded: any character may be in it) as the password of its user."""
    parts = urlsplit(url)
    user = parts.username or ""
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{quote(unquote(user), safe='')}:{quote(password, safe='')}@{host}"
    return urlunsplit(parts._replace(netloc=netloc))


def unknown_variables(names: Iterable[str]) -> list[tuple[str, str | None]]:
    """The ``SIKPAN_*``, ``TELEGRAM_*`` and ``DISCORD_*`` names among ``names`` that are none of ours, each with
    the nearest known name (difflib), or None when none is near."""
    unknown: list[tuple[str, str | None]] = []
    for name in sorted(set(names)):
        if not _OURS.match(name) or name in KNOWN_VARIABLES:
            continue
        head, _, tail = name.partition("_")
        near: str | None = None
        other = _OTHER_NAMES.get(tail)
        if other is not None:
            near = other if other.startswith("SIKPAN") else head + other
            near = near if near in KNOWN_VARIABLES else None
        if near is None:  # the names after the shared prefix compared (``SIKPAN_`` alone makes all look near)
            tails = {k.partition("_")[2]: k for k in KNOWN_VARIABLES if k.startswith(head + "_")}
            close = difflib.get_close_matches(tail, list(tails), n=1, cutoff=0.6)
            near = tails[close[0]] if close else None
        unknown.append((name, near))
    return unknown


def parse_dotenv(text: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (optional ``export``, quotes, ``#`` comments) into a dict, by python-dotenv
    (no ``${VAR}`` interpolation: a ``$`` in a token stays as written; lines it cannot parse are skipped)."""
    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    return {k: v for k, v in values.items() if v is not None}


def setting_names(environ: Mapping[str, str] | None = None, env_file: str | Path | None = None) -> list[str]:
    """The names set in ``environ`` (default ``os.environ``) and in the ``.env`` file (for
    :func:`unknown_variables`)."""
    env = dict(os.environ if environ is None else environ)
    return sorted(_merged(env, env_file))


def _merged(env: Mapping[str, str], env_file: str | Path | None) -> dict[str, str]:
    path = Path(env_file if env_file is not None else env.get("SIKPAN_ENV_FILE") or ".env")
    merged: dict[str, str] = {}
    if path.is_file():
        merged.update(parse_dotenv(path.read_text(encoding="utf-8")))
    merged.update({k: v for k, v in env.items() if v != ""})
    return merged


def _read_files(merged: dict[str, str]) -> None:
    """``<NAME>_FILE`` → ``<NAME>``: the file's content, trimmed (one line, as Docker secrets are)."""
    for name in FILE_VARIABLES:
        file_name = merged.get(f"{name}_FILE", "").strip()
        if not file_name:
            continue
        if merged.get(name, "").strip():
            raise ConfigError(
                N_("bot.error.config_file_both"), f"set {name} or {name}_FILE, not both", name=name
            )
        try:
            merged[name] = Path(file_name).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as err:
            detail = err.strerror if isinstance(err, OSError) and err.strerror else type(err).__name__
            raise ConfigError(
                N_("bot.error.config_file"),
                f"{name}_FILE cannot be read: {bounded(file_name, 120)!r} ({detail})",
                name=f"{name}_FILE",
                path=bounded(file_name, 120),
                detail=detail,
            ) from None
        if not merged[name]:
            raise ConfigError(
                N_("bot.error.config_file_empty"),
                f"{name}_FILE names an empty file: {bounded(file_name, 120)!r}",
                name=f"{name}_FILE",
                path=bounded(file_name, 120),
            )


def load_settings(environ: Mapping[str, str] | None = None, env_file: str | Path | None = None) -> Settings:
    """Settings from ``environ`` (default ``os.environ``) over the optional ``.env`` file."""
    env = dict(os.environ if environ is None else environ)
    merged = _merged(env, env_file)
    _read_files(merged)

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
    attempts = _whole(get, "SIKPAN_START_ATTEMPTS", 1, 999, START_ATTEMPTS)
    webhook = _webhook_settings(get)
    shards = _shard_settings(get)
    rate_raw = get("TELEGRAM_SEND_RATE")
    rate = DEFAULT_TELEGRAM_SEND_RATE
    if rate_raw is not None:
        try:
            rate = float(rate_raw)
        except ValueError:
            rate = -1.0
        if not 0 < rate <= 10_000:
            raise ConfigError(
                N_("bot.error.config_number"),
                f"TELEGRAM_SEND_RATE must be a positive number: {bounded(rate_raw, 64)!r}",
                name="TELEGRAM_SEND_RATE",
                value=bounded(rate_raw, 64),
            )
    cache_chat_raw = get("TELEGRAM_INLINE_CACHE_CHAT")
    if cache_chat_raw is not None and not re.fullmatch(r"-?[0-9]{1,20}", cache_chat_raw.strip()):
        raise ConfigError(
            N_("bot.error.config_number"),
            f"TELEGRAM_INLINE_CACHE_CHAT must be a chat id: {bounded(cache_chat_raw, 64)!r}",
            name="TELEGRAM_INLINE_CACHE_CHAT",
            value=bounded(cache_chat_raw, 64),
        )
    keep = _whole(get, "SIKPAN_KEEP_DELIVERIES", 0, 999_999, KEEP_DELIVERIES_DAYS)
    role = (get("SIKPAN_ROLE", "all") or "all").lower()
    if role not in ROLES:
        raise ConfigError(
            N_("bot.error.config_role"),
            f"SIKPAN_ROLE must be one of {', '.join(ROLES)}: {bounded(role, 64)!r}",
            value=bounded(role, 64),
            roles=", ".join(ROLES),
        )
    metrics_port = _port(get, "SIKPAN_METRICS_PORT", None)
    log_format = (get("SIKPAN_LOG_FORMAT", "text") or "text").lower()
    if log_format not in LOG_FORMATS:
        raise ConfigError(
            N_("bot.error.config_choice"),
            f"SIKPAN_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}: {bounded(log_format, 64)!r}",
            name="SIKPAN_LOG_FORMAT",
            value=bounded(log_format, 64),
            choices=", ".join(LOG_FORMATS),
        )
    urls = _url_settings(get)
    return Settings(
        log_format=log_format,
        **urls,
        button_secret=get("SIKPAN_BUTTON_SECRET"),
        sqlite_shared=bool(_flag(get, "SIKPAN_SQLITE_SHARED")),
        telegram_replace_webhook=bool(_flag(get, "TELEGRAM_REPLACE_WEBHOOK")),
        **webhook,
        **shards,
        metrics_port=metrics_port,
        metrics_listen=get("SIKPAN_METRICS_LISTEN", DEFAULT_METRICS_LISTEN) or DEFAULT_METRICS_LISTEN,
        role=role,
        telegram_send_rate=rate,
        telegram_inline_cache_chat=int(cache_chat_raw) if cache_chat_raw is not None else None,
        history_limit=int(limit_raw) or None if limit_raw is not None else None,
        keep_deliveries_days=keep,
        start_attempts=attempts,
        telegram_token=get("TELEGRAM_BOT_TOKEN"),
        discord_token=get("DISCORD_BOT_TOKEN"),
        lang=lang,
        tz=tz,
    )


# the password of a ``scheme://user:password@`` URL (the user part may be empty: ``redis://:pw@host``)
_URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^@\s]*@")


def _bad_url(name: str, value: str, expected: str) -> ConfigError:
    shown = bounded(redact(value), 120)
    return ConfigError(
        N_("bot.error.config_url"),
        f"{name} must be a URL like {expected}: {shown!r}",
        name=name,
        value=shown,
        expected=expected,
    )


def _check_url(name: str, value: str, schemes: tuple[str, ...], expected: str) -> None:
    """``ConfigError`` unless ``value`` is a URL of one of ``schemes`` with a host and a numeric port."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port that is no number (or out of range)
    except ValueError:
        raise _bad_url(name, value, expected) from None
    if parts.scheme.lower() not in schemes or not (parts.hostname or parts.scheme == "unix"):
        raise _bad_url(name, value, expected)


def _url_settings(get: Any) -> dict[str, Any]:
    """The URL settings, each checked before anything starts: one line naming the variable, never a
    traceback (``SIKPAN_REDIS_URL=http://…``) or a late failure (a Telegram base URL without ``/bot``)."""
    telegram = get("TELEGRAM_API_BASE_URL", DEFAULT_TELEGRAM_API_BASE_URL) or DEFAULT_TELEGRAM_API_BASE_URL
    expected = "https://api.telegram.org/bot"
    _check_url("TELEGRAM_API_BASE_URL", telegram, ("http", "https"), expected)
    if "{token}" not in telegram and not urlsplit(telegram).path.rstrip().endswith("/bot"):
        raise _bad_url("TELEGRAM_API_BASE_URL", telegram, expected)  # the token is appended to it
    discord = get("DISCORD_API_BASE_URL", DEFAULT_DISCORD_API_BASE_URL) or DEFAULT_DISCORD_API_BASE_URL
    _check_url("DISCORD_API_BASE_URL", discord, ("http", "https"), DEFAULT_DISCORD_API_BASE_URL)
    gateway = get("DISCORD_GATEWAY_URL", DEFAULT_DISCORD_GATEWAY_URL) or DEFAULT_DISCORD_GATEWAY_URL
    _check_url("DISCORD_GATEWAY_URL", gateway, ("ws", "wss"), DEFAULT_DISCORD_GATEWAY_URL)
    redis_url = get("SIKPAN_REDIS_URL")
    if redis_url is not None:
        _check_url("SIKPAN_REDIS_URL", redis_url, ("redis", "rediss", "unix"), "redis://host:6379/0")
    db = get("SIKPAN_DB", DEFAULT_DB) or DEFAULT_DB
    if "://" in db:  # a URL: PostgreSQL's (a SQLite file is a path)
        _check_url("SIKPAN_DB", db, ("postgresql", "postgres"), "postgresql://user@host:5432/db")
    password = get("SIKPAN_DB_PASSWORD")
    if password is not None:
        if "://" not in db:
            raise ConfigError(
                N_("bot.error.config_db_password"),
                "SIKPAN_DB_PASSWORD is set but SIKPAN_DB is no postgresql:// URL",
            )
        db = with_password(db, password)
    return {
        "telegram_api_base_url": telegram,
        "discord_api_base_url": discord,
        "discord_gateway_url": gateway,
        "redis_url": redis_url,
        "db_path": db,
    }


def _flag(get: Any, name: str) -> bool | None:
    raw = get(name)
    if raw is None:
        return None
    value = raw.lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ConfigError(
        N_("bot.error.config_flag"), f"{name} must be 1 or 0: {bounded(raw, 64)!r}", name=name,
        value=bounded(raw, 64),
    )  # fmt: skip


def _port(get: Any, name: str, default: int | None) -> int | None:
    """A TCP port (1-65535) from ``name``, ``default`` when unset."""
    return _whole(get, name, 1, 65535, default)


@overload
def _whole(get: Any, name: str, low: int, high: int, default: int) -> int: ...
@overload
def _whole(get: Any, name: str, low: int, high: int, default: None) -> int | None: ...
def _whole(get: Any, name: str, low: int, high: int, default: int | None) -> int | None:
    """A whole number from ``low`` to ``high`` (ASCII digits) from ``name``, ``default`` when unset; anything
    else is ``bot.error.config_number`` (the one check of every numeric variable)."""
    raw = get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= len(str(high)) and low <= int(raw) <= high):
        raise ConfigError(
            N_("bot.error.config_number"),
            f"{name} must be a whole number from {low} to {high}: {bounded(raw, 64)!r}",
            name=name,
            value=bounded(raw, 64),
        )
    return int(raw)


def _webhook_settings(get: Any) -> dict[str, Any]:
    """``TELEGRAM_WEBHOOK_*``: a URL needs a secret (an open webhook lets anyone post updates as Telegram)."""
    url = get("TELEGRAM_WEBHOOK_URL")
    secret = get("TELEGRAM_WEBHOOK_SECRET")
    if url is not None and not url.lower().startswith(("https://", "http://")):
        raise ConfigError(
            N_("bot.error.config_webhook_url"),
            f"TELEGRAM_WEBHOOK_URL must be an https:// URL: {bounded(url, 120)!r}",
            value=bounded(url, 120),
        )
    if url is not None and secret is None:
        raise ConfigError(
            N_("bot.error.config_webhook_secret_missing"),
            "TELEGRAM_WEBHOOK_URL is set but TELEGRAM_WEBHOOK_SECRET is not: a webhook needs a secret",
        )
    if secret is not None and not _SECRET_TOKEN.fullmatch(secret):
        raise ConfigError(
            N_("bot.error.config_webhook_secret"),
            "TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ -",
            length=len(secret),
        )
    port = _port(get, "TELEGRAM_WEBHOOK_PORT", DEFAULT_WEBHOOK_PORT)
    connections = _whole(get, "TELEGRAM_WEBHOOK_MAX_CONNECTIONS", 1, 100, None)  # what Telegram takes
    address = get("TELEGRAM_WEBHOOK_IP_ADDRESS")
    if address is not None:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise ConfigError(
                N_("bot.error.config_number"),
                f"TELEGRAM_WEBHOOK_IP_ADDRESS must be an IPv4 or IPv6 address: {bounded(address, 64)!r}",
                name="TELEGRAM_WEBHOOK_IP_ADDRESS",
                value=bounded(address, 64),
            ) from None
    return {
        "telegram_webhook_max_connections": connections,
        "telegram_webhook_ip_address": address,
        "telegram_webhook_drop_pending": bool(_flag(get, "TELEGRAM_WEBHOOK_DROP_PENDING")),
        "telegram_webhook_url": url,
        "telegram_webhook_secret": secret,
        "telegram_webhook_listen": get("TELEGRAM_WEBHOOK_LISTEN", DEFAULT_WEBHOOK_LISTEN)
        or DEFAULT_WEBHOOK_LISTEN,
        "telegram_webhook_port": port,
        "telegram_webhook_path": (get("TELEGRAM_WEBHOOK_PATH") or DEFAULT_WEBHOOK_PATH).strip("/")
        or DEFAULT_WEBHOOK_PATH,
    }


def parse_shard_ids(text: str) -> tuple[int, ...] | None:
    """``"0,1"``, ``"4-7"``, ``"0, 2-3"`` → sorted distinct ids; None when it is not such a list."""
    ids: set[int] = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d{1,5})\s*(?:-\s*(\d{1,5})\s*)?", part)
        if m is None:
            return None
        first, last = int(m.group(1)), int(m.group(2) or m.group(1))
        if last < first:
            return None
        ids.update(range(first, last + 1))
    return tuple(sorted(ids))


def _shard_settings(get: Any) -> dict[str, Any]:
    ids_raw = get("DISCORD_SHARD_IDS")
    count = _whole(get, "DISCORD_SHARD_COUNT", 1, 100_000, None)
    ids: tuple[int, ...] | None = None
    if ids_raw is not None:
        ids = parse_shard_ids(ids_raw)
        if ids is None or count is None or ids[-1] >= count:
            raise ConfigError(
                N_("bot.error.config_shards"),
                f"DISCORD_SHARD_IDS must list shards below DISCORD_SHARD_COUNT: {bounded(ids_raw, 64)!r}",
                value=bounded(ids_raw, 64),
                count=count if count is not None else "-",
            )
    return {
        "discord_shard_count": count,
        "discord_shard_ids": ids,
        "discord_sync_commands": _flag(get, "DISCORD_SYNC_COMMANDS"),
    }


# Shapes of tokens, redacted even when they are not the configured ones (e.g. a token in a URL).
_TOKEN_PATTERNS = (
    re.compile(r"\b\d{6,12}:[A-Za-z0-9_-]{30,}\b"),  # Telegram bot token
    re.compile(r"\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}\b"),  # Discord bot token
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every secret (also as it appears URL-encoded), token-shaped substring and URL password
    replaced by ``[REDACTED]`` (a URL's password by ``***``)."""
    text = _URL_PASSWORD.sub(r"\1***@", text)
    given = [s for s in secrets if s and len(s) >= 4]  # shorter: a URL's is caught by its shape above
    values = set(given) | {quote(s, safe="") for s in given}
    for secret in sorted(values, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def redact_known(text: str) -> str:
    """``text`` without any secret registered with :func:`install_redaction` (what the CLI prints)."""
    return redact(text, _SECRETS)


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
    filter and a ``sys.excepthook`` that redacts the traceback of an exception nothing caught (a bug: its
    text may hold a URL or a token); also quiets ``httpx``'s per-request INFO lines, whose URLs contain the
    Telegram token.
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

        def excepthook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
            sys.stderr.write(redact_known("".join(traceback.format_exception(kind, value, tb))))

        sys.excepthook = excepthook
    return _FILTER
