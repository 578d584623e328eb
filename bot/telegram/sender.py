"""Telegram's sender (:class:`TelegramSender`) on python-telegram-bot's public ``Bot`` methods, and the
scheduler's :class:`TelegramTransport` (daily readings through the same sender).

The platform-neutral parts (splitting Telegram HTML, :class:`~bot.sending.SendOutcome`, the callbacks) are
in :mod:`bot.sending`; the policy is described there (pacing, 429, 403, migrations, at most once). Every
request is one of ``Bot``'s typed methods (``send_message``, ``send_photo``): PTB builds the request, raises
its own errors (``RetryAfter``, ``ChatMigrated``, ``Forbidden``, ``BadRequest``, ``InvalidToken``,
``TimedOut``/``NetworkError`` with the HTTP library's exception as the cause) and answers a ``Message``.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import time
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import aiohttp
import httpx
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    LinkPreviewOptions,
    Message,
    ReplyParameters,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from bot import metrics
from bot.bounded import BoundedCache
from bot.config import install_redaction
from bot.limits import Limiter, LocalLimiter, Rate, Slot, Window, limiter_of
from bot.sanitize import clean
from bot.sending import (
    TELEGRAM_CAPTION_LIMIT,
    TELEGRAM_TEXT_LIMIT,
    BeforeRequest,
    BlockedCallback,
    MigratedCallback,
    SendOutcome,
    call_back,
    fit_caption,
    split_telegram_html,
)
from bot.startup import start_with_retries
from bot.telegram.aiohttprequest import AiohttpRequest

if TYPE_CHECKING:
    from telegram import InlineKeyboardMarkup

    from bot.context import AppContext

log = logging.getLogger(__name__)

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)  # no link previews under a reply
_UNPACED = Slot(0.0)  # the slot of a send with pacing off (nothing to settle)


def request_not_sent(exc: BaseException) -> bool:
    """True only when Telegram provably did not perform the request (so resending cannot duplicate).

    python-telegram-bot raises ``NetworkError``/``TimedOut`` in two ways:

    - from a transport error (``raise TimedOut from err`` with the HTTP library's exception as the cause):
      only a connection that could not be made or a request that never got a connection from the pool was
      not sent — aiohttp's ``ClientConnectorError`` and ``ConnectionTimeoutError`` (the bot's transport,
      :class:`bot.telegram.aiohttprequest.AiohttpRequest`), httpx's ``ConnectError``, ``ConnectTimeout`` and
      ``PoolTimeout`` (PTB's default ``HTTPXRequest``). A read or write timeout or a connection dropped after
      the request was written may have been accepted: *maybe sent*.
    - from an HTTP answer whose JSON envelope says ``"ok": false`` (no cause): the Bot API refused the
      method (e.g. a 429 without ``retry_after``, a 500 with an error description), so it did not send.
      An answer whose body is not the Bot API's JSON (a proxy's 502 page: the cause is the parse error)
      proves nothing: maybe sent.
    """
    cause = exc.__cause__
    if cause is None:
        return True  # the Bot API answered with an error envelope
    if isinstance(cause, TelegramError):
        return False  # an unparsable answer (a proxy's error page)
    return isinstance(
        cause,
        aiohttp.ClientConnectorError
        | aiohttp.ConnectionTimeoutError
        | httpx.ConnectError
        | httpx.ConnectTimeout
        | httpx.PoolTimeout,
    )


@dataclass
class Ticket:
    """A reply handed to a chat's queue (:meth:`TelegramSender.reply`): when it was queued, whether its send
    waits (for the chat's lock — another reply ahead — or a budget, a 429, a back-off), and whether its request
    is in flight (a stop cancels what is not)."""

    queued_at: float
    waiting: asyncio.Event = field(default_factory=asyncio.Event)
    in_flight: bool = False

    def wait(self) -> None:
        """The send is about to wait: whoever handed the reply over need not wait with it."""
        self.waiting.set()


OnDone = Callable[[SendOutcome], None]


def retry_after_seconds(value: int | float | timedelta | None) -> float:
    """The server's retry_after as seconds, whether PTB gives an int or a ``timedelta``."""
    if value is None:
        return 1.0
    if isinstance(value, timedelta):
        return max(0.0, value.total_seconds())
    return max(0.0, float(value))


def _reply_to(message_id: int | None) -> ReplyParameters | None:
    """``reply_parameters`` of a reply to ``message_id`` (sent even when that message is gone), or None."""
    if message_id is None:
        return None
    return ReplyParameters(message_id, allow_sending_without_reply=True)


class TelegramSender:
    """Sends Telegram HTML through a python-telegram-bot ``Bot`` with splitting, pacing and error policy
    (:mod:`bot.sending`'s module docstring)."""

    platform = "telegram"

    def __init__(
        self,
        bot: Bot,
        *,
        on_blocked: BlockedCallback | None = None,
        on_migrated: MigratedCallback | None = None,
        overall_rate: float = 28.0,
        max_late: float = 0.03,
        per_chat_rate: float = 1.0,
        per_chat_burst: int = 3,
        group_per_minute: float = 20.0,
        max_attempts: int = 5,
        backoff: float = 0.5,
        limit: int = TELEGRAM_TEXT_LIMIT,
        pace: bool = True,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        limiter: Limiter | None = None,
    ) -> None:
        self.bot = bot
        self.on_blocked = on_blocked
        self.on_migrated = on_migrated
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.limit = limit
        self.caption_limit = TELEGRAM_CAPTION_LIMIT
        self.pace = pace
        self._sleep = sleep
        # the budgets (bot.limits): in this process, or shared by every process through Redis.
        # Overall: a sliding window like the platform's own rule (bot.limits.Window.of_rate: 28/s → at most 28
        # in any second, each counted until its request ended), so a second's worth may go at once after a quiet
        # spell, never more. Sends that mark a delivery before their request (``before_request``: the daily
        # readings) are also spaced one at a time at the overall rate, without the burst: a kill -9 then finds
        # at most about one reading marked ``sending`` whose request had not yet left (docs/reliability.md).
        self.limiter: Limiter = limiter if limiter is not None else LocalLimiter(sleep=sleep)
        self._overall = Window.of_rate(overall_rate)
        self._marked_rate = Rate(overall_rate, 1.0, 1.0)
        self.max_late = max_late
        self.late_slots = 0  # marked slots given up for being woken late, and requests that left late
        self._chat_rate = Rate(per_chat_rate, 1.0, per_chat_burst)
        self._group_rate = Rate(group_per_minute, 60.0, group_per_minute)
        self._chat_locks: dict[str, asyncio.Lock] = {}
        self.retry_waits: list[float] = []  # every RetryAfter wait honoured (for tests and metrics)
        self.max_idle_chats = 10_000  # per-chat state kept before idle chats are pruned
        self.dropped: Counter[str] = Counter()  # replies not delivered, by reason (logged at ERROR)
        # a picture sent before is sent again as the file_id Telegram gave it, not uploaded (see ``send``)
        self.max_photo_ids = 4096  # pictures remembered (≈ 130 bytes each), the least recently sent dropped
        self._photo_ids: BoundedCache[bytes, str] = BoundedCache(
            lambda: self.max_photo_ids
        )  # PNG SHA-256 → file_id
        self._digests: dict[int, tuple[bytes, bytes]] = {}  # id(picture) → (the picture, its SHA-256)
        self.photo_reuses = 0  # photos sent by file_id (for tests and metrics)
        self.photo_refused = 0  # file_ids Telegram refused (the bytes were uploaded instead)
        # replies queued per chat (``reply``): at most ``max_pending`` wait in one chat, none older than
        # ``max_age`` seconds is sent; a stop waits ``drain_timeout`` seconds for them (``drain``)
        self.max_pending = 10
        self.max_age = 60.0
        self.drain_timeout = 3.0
        self.park_after = 0.2  # seconds a reply's caller waits for a shared (Redis) budget before it goes
        self._clock: Callable[[], float] = time.monotonic
        self._pending: dict[str, int] = {}  # chat → replies queued (sending or waiting)
        self._queued: dict[asyncio.Task[SendOutcome], Ticket] = {}

    def _digest(self, photo: bytes) -> bytes:
        """The SHA-256 of a picture, remembered for the last few picture objects sent (``bot.pictures`` hands
        out the same ``bytes`` object for a picture it has cached: matched by identity, never by content)."""
        entry = self._digests.get(id(photo))
        if entry is not None and entry[0] is photo:
            return entry[1]
        digest = hashlib.sha256(photo).digest()
        if len(self._digests) >= 64:  # the references kept: a few pictures, which bot.pictures keeps anyway
            self._digests.clear()
        self._digests[id(photo)] = (photo, digest)
        return digest

    def _remember_photo(self, digest: bytes, result: Message) -> None:
        """Keep the file_id of an uploaded picture (the largest of the sizes Telegram made of it)."""
        if result.photo:
            self._photo_ids.keep(digest, result.photo[-1].file_id)

    def photo_id(self, photo: bytes) -> str | None:
        """The ``file_id`` Telegram answered the last upload of this picture with (None: not sent by this
        sender, or forgotten): the picture sent again without its bytes, e.g. as an inline answer's photo."""
        return self._photo_ids.find(self._digest(photo))

    def forget_photo(self, photo: bytes) -> None:
        """Forget the ``file_id`` of a picture (Telegram refused it): the next send uploads the bytes."""
        self._photo_ids.pop(self._digest(photo), None)

    def _dropped(self, outcome: SendOutcome, detail: str) -> SendOutcome:
        """Count and log (ERROR) a reply that did not reach the chat."""
        self.dropped[outcome.error or "failed"] += 1
        log.error("telegram: reply to chat %s dropped (%s): %s", outcome.chat_id, outcome.error, detail)
        return outcome

    def _prune(self) -> None:
        """Forget the state of idle chats (unlocked, budgets full again) so memory stays bounded."""
        for chat, lock in list(self._chat_locks.items()):
            if lock.locked():
                continue
            if self.limiter.forget_if_full([f"telegram:chat:{chat}", f"telegram:group:{chat}"]):
                del self._chat_locks[chat]

    async def _pace(
        self, chat: str, chat_kind: str, marked: bool = False, ticket: Ticket | None = None
    ) -> Slot:
        """Wait for every budget of this send; its overall slot (to be settled however the send goes on).
        Each budget is taken at once when its next slot is now (:meth:`bot.limits.Limiter.acquire_now`, no
        coroutine), else waited for — the same slots, in the same order, as awaiting every ``acquire``."""
        if marked:  # half an interval at most: two marks never closer than that
            await self._on_time(
                "telegram:marked", self._marked_rate, min(self.max_late, self._marked_rate.interval / 2)
            )
        key = "telegram:chat:" + chat
        await self._take(key, self._chat_rate, ticket)
        if chat_kind != "private":
            await self._take("telegram:group:" + chat, self._group_rate, ticket)
        return await self._take("telegram:all", self._overall, ticket)

    async def _take(self, key: str, budget: Rate | Window, ticket: Ticket | None) -> Slot:
        """A slot of one budget: at once when its next slot is now (no coroutine), else awaited. A queued
        reply (``ticket``) that waits lets its caller go: at once when the budget is this process's (the slot
        is known to be later), after ``park_after`` seconds when every reservation is a call to Redis (the
        answer may well be "now")."""
        limiter = self.limiter
        slot = limiter.acquire_now(key, budget)
        if slot is not None:
            return slot
        if ticket is None:
            return await limiter.acquire(key, budget)
        if isinstance(limiter, LocalLimiter):
            ticket.wait()
            return await limiter.acquire(key, budget)
        timer = asyncio.get_running_loop().call_later(self.park_after, ticket.wait)
        try:
            return await limiter.acquire(key, budget)
        finally:
            timer.cancel()

    async def _on_time(self, key: str, budget: Rate, max_late: float) -> Slot:
        """A slot of a :class:`Rate` this process woke up for in time (within ``max_late``): one it woke too
        late for (a busy loop) is given up and a new one taken, so the marked sends waiting during a stall are
        not marked ``sending`` together after it (a kill -9 would strand them all). (The overall window needs
        no such re-check: a late wake-up only delays an arrival, and the window counts every slot until its
        request ended.)"""
        while True:
            slot = await self.limiter.acquire(key, budget)
            if self.limiter.now() - slot.at <= max_late:
                return slot
            self.late_slots += 1

    async def _ready(self, slot: Slot, before_request: BeforeRequest | None) -> bool:
        """Between the overall slot and its request: ``before_request`` (False: the send is not made), and a
        request leaving more than ``max_late`` after its slot (a slow commit, a busy loop) marks the slot in
        flight from now (:meth:`bot.limits.Limiter.depart`: the window's bound on a request's duration counts
        from when it leaves). A slot that will not be used (False, an exception, a cancellation) is settled."""
        ready = False
        try:
            if before_request is not None and not await before_request():
                return False
            if self.pace and self.limiter.now() - slot.at > self.max_late:
                self.late_slots += 1
                await self.limiter.depart(slot)
            ready = True
            return True
        finally:
            if not ready:
                await self.limiter.settle(slot)

    async def _settle(self, slot: Slot) -> None:
        """The request of an overall slot has ended (however it ended): the window counts it from now."""
        if slot is not _UNPACED and not self.limiter.settle_now(slot):
            await self.limiter.settle(slot)

    async def reply(
        self,
        chat_id: int | str,
        text: str,
        *,
        chat_kind: str = "private",
        reply_to_message_id: int | None = None,
        reply_markup: InlineKeyboardMarkup | None = None,
        photo: bytes | None = None,
        caption: str | None = None,
        filename: str = "chart.png",
        on_done: OnDone | None = None,
        held: bool = False,
        document: bool = False,
    ) -> SendOutcome | None:
        """A reply to an update, through the chat's queue: the update's handler never waits for a budget.

        The send (:meth:`send`) runs as a task of this sender; this returns its outcome when it finished
        without waiting, and None as soon as it has to wait — for the chat's lock (another reply to the chat
        is being sent), a budget (1/s per chat, 20/min per group, the overall window), a 429 — so the
        update's handler returns and frees its place among the ``concurrent_updates`` PTB handles at once (a
        busy group never holds the intake); ``on_done`` gets the outcome when the send ends. A chat holds at
        most ``max_pending`` queued replies (one more is dropped: ``queue_full``), and a reply whose turn
        comes more than ``max_age`` seconds after it was queued is dropped (``stale``): both counted in
        ``dropped`` and in ``sikpan_sends_total``, logged at ERROR. A stop sends what it can within
        ``drain_timeout`` seconds (:meth:`drain`). ``held``: the place was taken by :meth:`hold` before the
        reply was made."""
        chat = str(chat_id)
        if not held and not self.hold(chat):
            return SendOutcome(False, 0, (), "queue_full", chat)
        ticket = Ticket(self._clock())

        async def send() -> SendOutcome:
            return await self.send(
                chat_id,
                text,
                chat_kind=chat_kind,
                reply_to_message_id=reply_to_message_id,
                reply_markup=reply_markup,
                photo=photo,
                caption=caption,
                filename=filename,
                ticket=ticket,
                document=document,
            )

        task = asyncio.create_task(send())
        self._queued[task] = ticket

        def done(finished: asyncio.Task[SendOutcome]) -> None:
            del self._queued[finished]
            self.release(chat)
            if finished.cancelled():  # a stop (counted by ``drain``)
                outcome = SendOutcome(False, 0, (), "not_sent_at_stop", chat)
            elif (error := finished.exception()) is not None:
                if ticket.waiting.is_set():  # nobody awaits it any more: the delivery's outer boundary
                    log.error("telegram: a queued reply to chat %s failed: %r", chat, error, exc_info=error)
                outcome = SendOutcome(False, 0, (), "failed", chat)
            else:
                outcome = finished.result()
            if on_done is not None:
                on_done(outcome)

        task.add_done_callback(done)
        if not task.done():
            waiting = asyncio.ensure_future(ticket.waiting.wait())
            try:
                await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting.cancel()
        if task.done():
            ticket.waiting.clear()  # the caller takes the outcome (or the error) itself
            return task.result()
        return None

    def hold(self, chat_id: int | str, *, always: bool = False) -> bool:
        """Take a place in the chat's queue before the work for a reply starts (:meth:`reply` with ``held``;
        :meth:`release` if no reply follows): False — and the reply counted as dropped, ``queue_full`` — when
        ``max_pending`` replies already wait there, so a flooded chat costs no chart nobody could be sent.
        ``always``: one place beyond the bound (the one "slow down" of a flood, admission's ``WARN``)."""
        chat = str(chat_id)
        if not always and self._pending.get(chat, 0) >= self.max_pending:
            self._dropped(
                SendOutcome(False, 0, (), "queue_full", chat), f"{self.max_pending} replies already queued"
            )
            metrics.sent(self.platform, "queue_full")
            return False
        self._pending[chat] = self._pending.get(chat, 0) + 1
        return True

    @staticmethod
    def keyboard(rows: Sequence[Sequence[tuple[str, str]]]) -> InlineKeyboardMarkup | None:
        """The inline keyboard of rows of (label, callback data) buttons; None for none (the scheduler's
        readings carry their page buttons so, without importing the chat library)."""
        if not any(rows):
            return None
        return InlineKeyboardMarkup(
            [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows if row]
        )

    def release(self, chat_id: int | str) -> None:
        """Give back a place :meth:`hold` took for a reply that is not made."""
        chat = str(chat_id)
        left = self._pending.pop(chat, 1) - 1
        if left > 0:
            self._pending[chat] = left

    def queued(self) -> int:
        """Replies queued (being sent, or waiting in their chat's queue)."""
        return len(self._queued)

    async def drain(self, timeout: float | None = None, grace: float = 1.0) -> int:
        """At a stop: wait at most ``timeout`` seconds (default ``drain_timeout``) for the queued replies;
        then those whose request has not left are cancelled and recorded as not sent (``not_sent_at_stop``;
        nothing was sent, nothing is retried: the update was handled), and those whose request is in flight
        get ``grace`` seconds more, then are cut (``uncertain``: maybe sent). Returns the replies not sent."""
        tasks = set(self._queued)
        if not tasks:
            return 0
        wait = self.drain_timeout if timeout is None else timeout
        _, left = await asyncio.wait(tasks, timeout=wait)
        waiting = {task for task in left if not self._queued[task].in_flight}
        for task in waiting:
            task.cancel()
        flying = left - waiting
        cut: set[asyncio.Task[SendOutcome]] = set()
        if flying:
            _, cut = await asyncio.wait(flying, timeout=grace)
            for task in cut:
                task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        for reason, count in (("not_sent_at_stop", len(waiting)), ("uncertain", len(cut))):
            if count:
                self.dropped[reason] += count
                for _ in range(count):
                    metrics.sent(self.platform, reason)
                log.error("telegram: %d queued replies %s after a %.1fs drain", count, reason, wait)
        return len(waiting) + len(cut)

    async def send_plain(self, chat_id: int | str, text: str, **kwargs: Any) -> SendOutcome:
        """Send plain text (escaped for HTML first)."""
        return await self.send(chat_id, html.escape(text, quote=False), **kwargs)

    @metrics.counts_sends
    async def send(
        self,
        chat_id: int | str,
        text: str,
        *,
        chat_kind: str = "private",
        reply_to_message_id: int | None = None,
        reply_markup: InlineKeyboardMarkup | None = None,
        before_request: BeforeRequest | None = None,
        photo: bytes | None = None,
        caption: str | None = None,
        filename: str = "chart.png",
        ticket: Ticket | None = None,
        document: bool = False,
    ) -> SendOutcome:
        """Split ``text`` (Telegram HTML) and send each part in order; see the module docstring.

        With ``photo`` (PNG bytes) the first request is a ``sendPhoto`` (a multipart upload through PTB's
        ``InputFile``; a picture this sender has sent before goes as the ``file_id`` Telegram answered the
        upload with — no bytes uploaded, Telegram's documented way to send a file again — and, should Telegram
        refuse that id with a 400, as an upload after all) whose caption is ``caption``, or — when ``caption`` is None — the first part of
        ``text`` split at the caption limit (1,024 visible characters); the rest of ``text`` follows as
        messages. A photo and its caption are one request; the keyboard goes with the last part, as for text.

        ``document``: ``photo`` is a file (``filename``) sent as a ``sendDocument`` instead — the same caption
        rules, always uploaded (a user's own file is never sent again by ``file_id``).

        ``before_request`` is awaited once, after pacing and immediately before the first request; when it
        returns False nothing is sent (outcome ``not_attempted``).

        ``ticket``: a reply of the chat's queue (:meth:`reply`), told when the send is about to wait and when
        its request is in flight; dropped (``stale``) when its turn comes after ``max_age`` seconds.
        """
        parts = split_telegram_html(clean(text), self.limit)  # no lone surrogates/controls on the wire
        photo_caption: str | None = None
        if photo is not None:
            if caption is None:  # the text's head is the caption, the rest follows
                head = split_telegram_html(clean(text), self.caption_limit)
                photo_caption = head[0] if head else ""
                parts = split_telegram_html("\n".join(head[1:]), self.limit) if len(head) > 1 else []
            else:
                photo_caption = fit_caption(clean(caption), self.caption_limit)
            parts = [photo_caption, *parts]
        digest = self._digest(photo) if photo is not None and not document else b""
        chat = str(chat_id)
        if len(self._chat_locks) > self.max_idle_chats:
            self._prune()
        lock = self._chat_locks.get(chat)
        if lock is None:
            lock = self._chat_locks[chat] = asyncio.Lock()
        sent_ids: list[int] = []
        if ticket is not None and lock.locked():
            ticket.wait()
        async with lock:
            if ticket is not None and self._clock() - ticket.queued_at > self.max_age:
                return self._dropped(
                    SendOutcome(False, 0, (), "stale", chat),
                    f"its turn came {self._clock() - ticket.queued_at:.0f}s after it was queued",
                )
            for index, part in enumerate(parts):
                attempt = 0
                while True:
                    attempt += 1
                    reused: str | None = None  # the file_id this attempt sends instead of the bytes
                    markup = reply_markup if index == len(parts) - 1 else None
                    upload = photo is not None and index == 0
                    if upload and not document:
                        reused = self._photo_ids.find(digest)  # recently sent: kept longest
                    slot = (
                        await self._pace(
                            chat, chat_kind, marked=before_request is not None and index == 0, ticket=ticket
                        )
                        if self.pace
                        else _UNPACED
                    )
                    first = before_request if index == 0 and attempt == 1 else None
                    # the common case needs no coroutine: nothing to ask first, the request leaves on time
                    if (
                        first is not None or (self.pace and self.limiter.now() - slot.at > self.max_late)
                    ) and (not await self._ready(slot, first)):
                        return SendOutcome(False, 0, (), "not_attempted", chat)
                    if ticket is not None:
                        ticket.in_flight = True
                    try:
                        try:
                            if upload and document:
                                assert photo is not None
                                result: Message = await self.bot.send_document(
                                    chat_id,
                                    InputFile(photo, filename=filename),
                                    caption=part or None,
                                    parse_mode=ParseMode.HTML,
                                    reply_parameters=_reply_to(reply_to_message_id),
                                    reply_markup=markup,
                                )
                            elif upload:
                                assert photo is not None
                                result = await self.bot.send_photo(
                                    chat_id,
                                    reused or photo,
                                    caption=part or None,
                                    parse_mode=ParseMode.HTML,
                                    reply_parameters=_reply_to(reply_to_message_id),
                                    reply_markup=markup,
                                    filename=None if reused else filename,
                                )
                            else:
                                result = await self.bot.send_message(
                                    chat_id,
                                    part,
                                    parse_mode=ParseMode.HTML,
                                    link_preview_options=NO_PREVIEW,
                                    reply_parameters=_reply_to(reply_to_message_id if index == 0 else None),
                                    reply_markup=markup,
                                )
                        finally:
                            await self._settle(slot)
                            if ticket is not None:  # its slot settled: a stop may cut it from here on
                                ticket.in_flight = False
                        if upload and not document:
                            if reused is None:
                                self._remember_photo(digest, result)
                            else:
                                self.photo_reuses += 1
                        sent_ids.append(result.message_id)
                        break
                    except RetryAfter as exc:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            wait = retry_after_seconds(exc.retry_after)
                        if attempt >= self.max_attempts:
                            return self._dropped(
                                SendOutcome(False, len(sent_ids), tuple(sent_ids), "gave_up", chat),
                                f"still 429 after {attempt} attempts",
                            )
                        log.info("telegram: 429 for chat %s, waiting %.1fs as told", chat, wait)
                        metrics.rate_limited(self.platform, wait)
                        self.retry_waits.append(wait)
                        if ticket is not None:
                            ticket.wait()
                        await self._sleep(wait)
                    except ChatMigrated as exc:
                        new_id = exc.new_chat_id
                        log.info("telegram: chat %s migrated to %s", chat, new_id)
                        await call_back(self.on_migrated, self.platform, chat, str(new_id))
                        chat_id, chat = new_id, str(new_id)
                        if attempt >= self.max_attempts:
                            return SendOutcome(False, len(sent_ids), tuple(sent_ids), "gave_up", chat)
                    except Forbidden as exc:
                        log.info("telegram: chat %s refuses messages (%s)", chat, exc.message)
                        await call_back(self.on_blocked, self.platform, chat, exc.message)
                        return SendOutcome(False, len(sent_ids), tuple(sent_ids), "forbidden", chat)
                    except BadRequest as exc:
                        if "chat not found" in exc.message.lower():
                            await call_back(self.on_blocked, self.platform, chat, exc.message)
                            return SendOutcome(False, len(sent_ids), tuple(sent_ids), "chat_not_found", chat)
                        if reused is not None:  # a file_id Telegram no longer takes: the bytes are uploaded
                            log.info(
                                "telegram: file_id refused for chat %s (%s), uploading", chat, exc.message
                            )
                            self._photo_ids.pop(digest, None)
                            self.photo_refused += 1
                            continue
                        return self._dropped(
                            SendOutcome(False, len(sent_ids), tuple(sent_ids), "bad_request", chat),
                            f"bad request for part {index + 1}/{len(parts)} ({len(part)} chars): {exc.message}",
                        )
                    except NetworkError as exc:  # includes TimedOut
                        if not request_not_sent(exc):
                            # the request may have reached Telegram (a read timeout, a lost response, a 5xx):
                            # maybe delivered, so never sent again (at most once)
                            return self._dropped(
                                SendOutcome(False, len(sent_ids), tuple(sent_ids), "uncertain", chat),
                                f"maybe delivered, not resent: {exc.message}",
                            )
                        if attempt >= self.max_attempts:
                            return self._dropped(
                                SendOutcome(False, len(sent_ids), tuple(sent_ids), "gave_up", chat),
                                f"not sent after {attempt} attempts: {exc.message}",
                            )
                        if ticket is not None:
                            ticket.wait()
                        await self._sleep(self.backoff * 2 ** (attempt - 1))
                    except InvalidToken as exc:  # 401/404: the token was revoked (or the API URL is wrong)
                        return self._dropped(
                            SendOutcome(False, len(sent_ids), tuple(sent_ids), "invalid_token", chat),
                            f"the token was refused: {exc.message}",
                        )
                    except TelegramError as exc:  # Conflict and other replies we have no rule for
                        return self._dropped(
                            SendOutcome(False, len(sent_ids), tuple(sent_ids), "failed", chat),
                            f"{type(exc).__name__}: {exc.message}",
                        )
        return SendOutcome(True, len(sent_ids), tuple(sent_ids), None, chat)


def telegram_request(pool: int = 64) -> AiohttpRequest:
    """The bot's transport (:class:`bot.telegram.aiohttprequest.AiohttpRequest`, PTB's ``BaseRequest`` on
    aiohttp): ``pool`` connections (a reply waits at most 30 s for one, then ``TimedOut``: provably not
    sent, :func:`request_not_sent`), connect 5 s, read 10 s, write (uploads) 20 s."""
    return AiohttpRequest(pool, pool_timeout=30.0, connect_timeout=5.0, read_timeout=10.0, write_timeout=20.0)


async def start_telegram(
    initialize: Callable[[], Awaitable[Any]],
    close: Callable[[], Awaitable[Any]],
    *,
    attempts: int,
    stop: asyncio.Event | None = None,
) -> None:
    """A python-telegram-bot ``initialize`` (``getMe``) through :func:`bot.startup.start_with_retries`: retried on network
    errors (502, unreachable API), at once fatal on a refused token; ``close`` runs when it fails, since PTB
    leaves the HTTP sessions of a failed ``initialize`` open. The chat adapter and the send-only workers."""
    try:
        await start_with_retries(
            initialize,
            platform="telegram",
            retry_on=(NetworkError,),
            fatal=(InvalidToken,),
            attempts=attempts,
            stop=stop,
        )
    except BaseException:
        await close()
        raise


async def start_sender(ctx: AppContext, on_migrated: MigratedCallback) -> Bot:
    """The sender of a process that sends without running the adapter (the worker role; a ``scheduler``
    role without Redis): a ``Bot`` on the configured API, initialized (``getMe``, retried as at the adapter's
    start), and ``ctx.telegram_sender`` on it with the process's budgets. Returns the ``Bot`` (``await
    bot.shutdown()`` at the end)."""
    token = ctx.settings.telegram_token
    assert token  # the caller checked
    install_redaction([token])
    request = telegram_request()
    bot = Bot(token, base_url=ctx.settings.telegram_api_base_url, request=request)
    await start_telegram(bot.initialize, request.shutdown, attempts=ctx.settings.start_attempts)
    ctx.telegram_sender = TelegramSender(
        bot, on_migrated=on_migrated, limiter=limiter_of(ctx), overall_rate=ctx.settings.telegram_send_rate
    )
    return bot


__all__ = [
    "NO_PREVIEW",
    "TelegramSender",
    "Ticket",
    "request_not_sent",
    "retry_after_seconds",
    "start_sender",
    "telegram_request",
]
