"""The application context every command and service reads: settings, storage, clock, and the few
per-process services the adapters and the scheduler share (typed fields, one each).

This module depends only on :mod:`bot.config`, :mod:`bot.storage`, :mod:`bot.admission`, :mod:`bot.limits`,
:mod:`bot.seal` and :mod:`bot.sending` (none of which imports a chat library or this module), so the command layer, the
adapters and the scheduler can all import it without importing each other (``bot.app`` starts them). What
the adapters and the scheduler put here is described by small protocols, not by their classes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from bot.admission import Admission
from bot.config import Settings
from bot.limits import Limiter
from bot.seal import ButtonSeal
from bot.sending import BeforeRequest, SendOutcome
from bot.storage import Storage

# fn(platform, chat_id, reason) / fn(platform, old_id, new_id), sync or async
Callback = Callable[..., Any]


class Clock(Protocol):
    async def now(self) -> datetime:
        """The current instant, timezone-aware UTC."""
        ...

    async def sleep_until(self, instant: datetime) -> None:
        """Return once ``now()`` has reached ``instant``."""
        ...


class SystemClock:
    """The wall clock. ``sleep_until`` naps at most ``max_nap`` seconds at a time, re-reading the clock,
    so that a wall-clock jump (NTP, suspend) is noticed."""

    max_nap = 30.0

    async def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(self, instant: datetime) -> None:
        while True:
            now = await self.now()
            if now >= instant:
                return
            await asyncio.sleep(min((instant - now).total_seconds(), self.max_nap))


class TelegramApplication(Protocol):
    """What the scheduler reads of the running python-telegram-bot ``Application``."""

    @property
    def running(self) -> bool: ...

    @property
    def bot_data(self) -> Any: ...


class TelegramSending(Protocol):
    """What the scheduler uses of the Telegram sender (:class:`bot.telegram.sender.TelegramSender`)."""

    def send(
        self,
        chat_id: int | str,
        text: str,
        *,
        chat_kind: str = ...,
        reply_markup: Any = ...,
        before_request: BeforeRequest | None = ...,
        photo: bytes | None = ...,
        caption: str | None = ...,
        filename: str = ...,
    ) -> Awaitable[SendOutcome]: ...

    def keyboard(self, rows: Sequence[Sequence[tuple[str, str]]]) -> Any: ...  # (label, data) → the markup


class DiscordMessenger(Protocol):
    """What the scheduler's Discord transport calls of the adapter's sender
    (:class:`bot.discord.sender.DiscordSender`)."""

    def send(
        self,
        target: Any,
        text: str,
        *,
        target_id: str | None = None,
        before_request: BeforeRequest | None = None,
        view: Any = None,
        file: bytes | None = None,
        filename: str = ...,
        description: str | None = None,
    ) -> Awaitable[SendOutcome]: ...

    def buttons(self, rows: Sequence[Sequence[tuple[str, str]]]) -> Any: ...  # (label, data) → a ui.View


class DiscordClient(Protocol):
    """What the scheduler reads of the running discord.py client."""

    def is_ready(self) -> bool: ...

    def get_partial_messageable(self, id: int) -> Any: ...  # noqa: A002 - discord.py's parameter name


class DailyNotifier(Protocol):
    """What the commands read of the daily scheduler (:class:`bot.scheduler.DailyScheduler`): a subscription
    was written, look at the due rows now."""

    def notify(self, sub_id: int | None = None) -> None: ...


@dataclass
class Heartbeat:
    """A part of this process that writes a heartbeat row (table ``schedulers``: a scheduler run, a queue
    worker): readiness (:mod:`bot.monitor`, ``/readyz``) reads the row back by ``token`` and fails when it
    is older than ``every`` × :data:`HEARTBEAT_MISSED`."""

    token: str
    every: float  # seconds between two writes
    since: float = field(default_factory=time.monotonic)  # registered (a row not written yet is no fault)


@dataclass(frozen=True)
class LoopBeat:
    """A loop of this process that shows it still turns, without a database row (the Telegram long poll):
    ``/readyz`` fails while ``last()`` — the ``time.monotonic()`` of its last turn — is older than ``limit``
    seconds (a poller stuck inside a request keeps the process alive but deaf)."""

    last: Callable[[], float]
    limit: float


HEARTBEAT_MISSED = 3  # heartbeats missed in a row before the part counts as stuck (not ready)


@dataclass
class AppContext:
    settings: Settings
    storage: Storage
    clock: Clock = field(default_factory=SystemClock)
    # the one admission gate of the process (bot.admission): every adapter checks it before any work
    admission: Admission = field(default_factory=Admission)
    # set by the adapters when they are built (bot.telegram.build_application, bot.discord.build_client)
    telegram_sender: TelegramSending | None = None
    telegram_application: TelegramApplication | None = None
    discord_sender: DiscordMessenger | None = None
    discord_client: DiscordClient | None = None
    # the send budgets of the process (bot.limits.limiter_of: in-process, or shared through Redis)
    limiter: Limiter | None = None
    # told by the senders when a chat blocks the bot / a group migrates (the scheduler subscribes)
    on_blocked: list[Callback] = field(default_factory=list)
    on_migrated: list[Callback] = field(default_factory=list)
    # the daily scheduler (bot.scheduler.DailyScheduler, which imports this module; the scheduler reads its
    # own class back with bot.scheduler.scheduler_of)
    daily_scheduler: DailyNotifier | None = None
    # the Telegram webhook's state (bot.web.WebhookState, which imports this module), set by bot.web
    webhook_state: object | None = None
    # the heartbeats this process writes, by part (``scheduler``, ``worker``): ``/readyz`` reads them back
    heartbeats: dict[str, Heartbeat] = field(default_factory=dict)
    # seals every button's data (bot.seal): keyed by SIKPAN_BUTTON_SECRET or the database's own key
    buttons: ButtonSeal = field(default_factory=ButtonSeal.random)
    # the loops that show they turn (``telegram_polling``): ``/readyz`` reads them too
    loops: dict[str, LoopBeat] = field(default_factory=dict)

    async def close(self) -> None:
        await self.storage.close()


async def create_context(settings: Settings, clock: Clock | None = None) -> AppContext:
    """Open (and migrate) the database named by the settings; the buttons' key is ``SIKPAN_BUTTON_SECRET``
    or the one the database keeps (generated once, shared by every process on it)."""
    storage = await Storage.open(settings.db_path)
    try:
        secret = settings.button_secret or await storage.server_secret("buttons")
    except BaseException:
        await storage.close()
        raise
    return AppContext(
        settings=settings,
        storage=storage,
        clock=clock or SystemClock(),
        buttons=ButtonSeal.from_secret(secret),
    )
