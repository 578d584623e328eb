"""Long polling of the Bot API (``getUpdates``) without python-telegram-bot's ``Updater`` (issue #18).

:class:`Poller` asks ``getUpdates`` (``offset``, ``timeout``, ``allowed_updates``) through the request object
it is given (``build_application`` gives ``getUpdates`` its own connection), reads each update as a
:class:`bot.telegram.updates.Update` and hands it to ``process`` as a task of its own, at most
``concurrency`` at a time (the poll waits for a free slot: back-pressure instead of an unbounded queue).

Offsets, as PTB's ``Updater`` keeps them: an update is *confirmed* — Telegram forgets it — by the next
``getUpdates`` whose ``offset`` is past it (the Bot API: "An update is considered confirmed as soon as
getUpdates is called with an offset higher than its update_id"), so every poll asks from the last id + 1.
On stop the poll in flight is cut, the updates taken are handled to the end, and — when updates were
taken since Telegram last answered a poll — one more ``getUpdates`` with that offset and ``timeout`` 0
confirms them, so a restart does not get them again (PTB's ``Updater.stop`` does the same call, but before
its handlers have finished).

Errors of a poll:

- 401 (``InvalidToken``: the token was revoked) ends :meth:`Poller.run` with the error, logged;
- 409 (``Conflict``): another process polls with this token (Telegram answers the *older* of two long polls
  with "terminated by other getUpdates request", tdlib/telegram-bot-api ``Client::abort_long_poll``) or a
  webhook is set — logged as such and retried with back-off. That back-off is remembered across the polls
  that succeed in between (reset only after :data:`CONFLICT_QUIET` seconds without a conflict): each
  instance's poll ends the other's, so a back-off reset by every success would have two instances take
  turns every second or two; remembered, it grows to 30 s and one instance polls while the other waits;
- 429 waits ``retry_after`` (+0.5 s, as PTB); network errors, timeouts and 5xx are retried with back-off:
  1 s, then ×1.5 up to 30 s, back to none after a poll that succeeds (PTB's ``network_retry_loop``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from telegram.error import Conflict, InvalidToken, RetryAfter, TelegramError

from bot.sending import retry_after_seconds, telegram_call
from bot.telegram.updates import ALLOWED_UPDATES, Update, parse_update

log = logging.getLogger(__name__)

FIRST_BACKOFF: Final = 1.0
MAX_BACKOFF: Final = 30.0
CONFLICT_QUIET: Final = 120.0  # seconds without a 409 after which the conflict back-off starts again at 1 s


def next_backoff(delay: float) -> float:
    """The wait after another failed poll: 1 s first, then ×1.5 up to 30 s."""
    return FIRST_BACKOFF if delay <= 0 else min(MAX_BACKOFF, delay * 1.5)


class _Stopped(Exception):
    """Stop was set while a request was in flight (the request is cancelled)."""


class Poller:
    """``getUpdates`` in a loop; see the module docstring."""

    def __init__(
        self,
        bot: Any,
        request: Any,
        process: Callable[[Update], Awaitable[None]],
        *,
        timeout: int = 10,
        concurrency: int = 256,
    ) -> None:
        self.bot = bot
        self.request = request
        self.process = process
        self.timeout = timeout
        self.offset = 0  # the next update to take: every id below it has been taken
        self.answered_offset = 0  # the offset of the last poll Telegram answered: ids below it are confirmed
        self.conflicts = 0  # 409 answers so far
        self.conflict_delay = 0.0  # the back-off after the last 409 (see the module docstring)
        self._last_conflict = -CONFLICT_QUIET
        self._slots = asyncio.Semaphore(concurrency)
        self._tasks: set[asyncio.Task[None]] = set()
        self._request: asyncio.Task[Any] | None = None  # the task awaiting a request (cut when stop is set)
        self._cutting = False  # _cut cancelled that task

    async def run(self, stop: asyncio.Event) -> None:
        """Poll until ``stop`` is set, then drain and confirm (module docstring). Raises ``InvalidToken``."""
        stopped = asyncio.ensure_future(stop.wait())
        stopped.add_done_callback(self._cut)  # the request in flight is cancelled once stop is set
        try:
            await self._loop(stopped)
        finally:
            stopped.remove_done_callback(self._cut)
            stopped.cancel()
            if self._tasks:
                await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._confirm()

    def _cut(self, _stopped: asyncio.Future[Any]) -> None:
        if self._request is not None and not self._cutting:
            self._cutting = True
            self._request.cancel()

    async def _call(self, method: str, params: dict[str, Any], stopped: asyncio.Future[Any]) -> Any:
        """One request on the polling connection; :class:`_Stopped` (the request cancelled) once stop is set.
        The request is awaited in this task (no task per poll, issue #18); ``stop`` cuts it by cancelling
        this task (:meth:`_cut`), and that cancellation — told from one of the task itself by
        ``Task.uncancel`` — becomes :class:`_Stopped`."""
        if stopped.done():
            raise _Stopped
        read = (self.request.read_timeout or 0) + int(params.get("timeout") or 0)
        task = self._request = asyncio.current_task()
        try:
            return await telegram_call(self.bot, method, params, request=self.request, read_timeout=read)
        except asyncio.CancelledError:
            if self._cutting and task is not None and task.uncancel() == 0:
                raise _Stopped from None  # cut by stop, and this task not cancelled besides
            raise
        finally:
            self._request = None
            self._cutting = False

    async def _loop(self, stopped: asyncio.Future[Any]) -> None:
        delay = 0.0
        webhook_deleted = False
        while not stopped.done():
            if delay:
                await asyncio.wait((stopped,), timeout=delay)
                if stopped.done():
                    return
            try:
                if not webhook_deleted:  # as PTB's Updater: polling means no webhook (pending updates kept)
                    await self._call("deleteWebhook", {}, stopped)
                    webhook_deleted = True
                offset = self.offset
                params = {"timeout": self.timeout, "allowed_updates": ALLOWED_UPDATES}
                if offset:
                    params["offset"] = offset
                updates = await self._call("getUpdates", params, stopped)
            except _Stopped:
                return
            except InvalidToken as exc:
                log.error("telegram: the Bot API refused the token (%s): revoked? Polling ends", exc.message)
                raise
            except RetryAfter as exc:
                delay = retry_after_seconds(exc.retry_after) + 0.5
                log.warning("telegram: getUpdates flood-limited; again in %.1fs", delay)
            except Conflict as exc:
                self.conflicts += 1
                now = asyncio.get_running_loop().time()
                if now - self._last_conflict > CONFLICT_QUIET:
                    self.conflict_delay = 0.0
                self._last_conflict = now
                delay = self.conflict_delay = next_backoff(self.conflict_delay)
                log.warning(
                    "telegram: getUpdates conflict (%s): another instance is polling with this token, or a "
                    "webhook is set; again in %.1fs",
                    exc.message,
                    delay,
                )
            except TelegramError as exc:  # network errors, timeouts, 5xx (PTB's NetworkError), other answers
                delay = next_backoff(delay)
                log.warning(
                    "telegram: getUpdates failed (%s: %s); again in %.1fs", type(exc).__name__, exc, delay
                )
            else:
                delay = 0.0
                self.answered_offset = offset
                await self._take(updates)

    async def _take(self, updates: Any) -> None:
        if type(updates) is not list:
            log.warning(
                "telegram: getUpdates answered %s, not a list of updates; ignored", type(updates).__name__
            )
            return
        for raw in updates:
            update_id = raw.get("update_id") if type(raw) is dict else None
            if type(update_id) is not int:
                log.warning("telegram: getUpdates gave an update without an update_id; ignored")
                continue
            if update_id < self.offset:  # taken already (Telegram never sends it twice past an offset)
                continue
            self.offset = update_id + 1
            update = parse_update(raw)
            if update is None:
                continue
            await self._slots.acquire()
            task = asyncio.create_task(self._run(update), name=f"telegram-update-{update_id}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, update: Update) -> None:
        try:
            await self.process(update)
        finally:
            self._slots.release()

    async def _confirm(self) -> None:
        """The last ``getUpdates`` (``timeout`` 0) confirming the updates taken since Telegram last answered."""
        if self.offset <= self.answered_offset:
            return
        params = {"offset": self.offset, "timeout": 0, "limit": 1, "allowed_updates": ALLOWED_UPDATES}
        try:
            await telegram_call(self.bot, "getUpdates", params, request=self.request)
        except TelegramError as exc:
            log.warning(
                "telegram: the updates taken up to %d could not be confirmed (%s); a restart gets them again",
                self.offset - 1,
                exc,
            )
        else:
            self.answered_offset = self.offset


__all__ = ["Poller", "next_backoff"]
