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
===========================  ==========================================  ==========================================

The webhook's ``setWebhook`` options: ``TELEGRAM_WEBHOOK_MAX_CONNECTIONS`` (1–100; unset: Telegram's 40),
``TELEGRAM_WEBHOOK_IP_ADDRESS`` (the address Telegram sends to instead of the URL's DNS answer) and
``TELEGRAM_WEBHOOK_DROP_PENDING`` (``1``: the updates waiting at Telegram are dropped when the webhook is set).

The ``.env`` file is read by python-dotenv. Tokens never reach logs: :func:`install_redaction` (the one
redaction of the bot, used by ``sikpan run`` and by each adapter factory) runs every log record through a
:class:`RedactingFilter` when it is created, which replaces each configured secret (and anything shaped like a
Telegram or Discord token) with ``[REDACTED]``; ``repr(Settings)`` hides the tokens too.
"""

from __future__ import annotations

import io
import ipaddress
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
    discord_shard_count: int | None = None  # None: as many as Discord recommends (GET /gateway/bot)
    discord_shard_ids: tuple[int, ...] | None = None  # None: every shard in this process
    discord_sync_commands: bool | None = None  # None: the process that runs shard 0 syncs
    metrics_port: int | None = None  # set: /metrics and /healthz on this port, any role (bot.monitor)
    metrics_listen: str = DEFAULT_METRICS_LISTEN
    log_format: str = "text"  # SIKPAN_LOG_FORMAT: text | json (bot.logs)

    @property
    def secrets(self) -> tuple[str, ...]:
        values = (self.telegram_token, self.discord_token, self.telegram_webhook_secret)
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
    keep_raw = get("SIKPAN_KEEP_DELIVERIES")
    if keep_raw is not None and not (keep_raw.isascii() and keep_raw.isdigit() and len(keep_raw) <= 6):
        raise ConfigError(
            N_("bot.error.config_number"),
            f"SIKPAN_KEEP_DELIVERIES must be a whole number of days: {bounded(keep_raw, 64)!r}",
            name="SIKPAN_KEEP_DELIVERIES",
            value=bounded(keep_raw, 64),
        )
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
    return Settings(
        log_format=log_format,
        **webhook,
        **shards,
        metrics_port=metrics_port,
        metrics_listen=get("SIKPAN_METRICS_LISTEN", DEFAULT_METRICS_LISTEN) or DEFAULT_METRICS_LISTEN,
        role=role,
        telegram_send_rate=rate,
        history_limit=int(limit_raw) or None if limit_raw is not None else None,
        keep_deliveries_days=int(keep_raw) if keep_raw is not None else KEEP_DELIVERIES_DAYS,
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
    raw = get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit() and 0 < int(raw[:6]) < 65536):
        raise ConfigError(
            N_("bot.error.config_number"),
            f"{name} must be a port number (1-65535): {bounded(raw, 64)!r}",
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
    connections_raw = get("TELEGRAM_WEBHOOK_MAX_CONNECTIONS")
    connections: int | None = None
    if connections_raw is not None:
        if not (connections_raw.isascii() and connections_raw.isdigit() and 1 <= int(connections_raw) <= 100):
            raise ConfigError(
                N_("bot.error.config_number"),
                f"TELEGRAM_WEBHOOK_MAX_CONNECTIONS must be 1-100: {bounded(connections_raw, 64)!r}",
                name="TELEGRAM_WEBHOOK_MAX_CONNECTIONS",
                value=bounded(connections_raw, 64),
            )
        connections = int(connections_raw)
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
    count_raw = get("DISCORD_SHARD_COUNT")
    ids_raw = get("DISCORD_SHARD_IDS")
    count: int | None = None
    if count_raw is not None:
        if not (count_raw.isascii() and count_raw.isdigit() and 0 < int(count_raw[:6]) <= 100_000):
            raise ConfigError(
                N_("bot.error.config_number"),
                f"DISCORD_SHARD_COUNT must be a whole number from 1: {bounded(count_raw, 64)!r}",
                name="DISCORD_SHARD_COUNT",
                value=bounded(count_raw, 64),
            )
        count = int(count_raw)
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
