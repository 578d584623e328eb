"""One sender per platform: escape, split, pace, and handle the platform's errors.

Telegram (:class:`TelegramSender`, python-telegram-bot ``Bot``)
    - Text is Telegram HTML (``parse_mode=HTML``) as rendered by the autoescaped templates;
      :meth:`TelegramSender.send_plain` escapes plain text first.
    - :func:`split_telegram_html` splits at line boundaries so each part has at most 4096 *visible*
      characters (entities parsed, counted in UTF-16 code units as Telegram does), never inside a tag or an
      entity; tags open at a split are closed at the end of the part and reopened (with their attributes)
      at the start of the next. A single line longer than the limit is cut at a space, else anywhere
      between characters.
    - Pacing: overall ``overall_rate`` msg/s (default 28, under Telegram's 30) as a sliding window like the
      platform's own rule (:class:`bot.limits.Window`: at most 28 sends in any second whatever the delays, a
      burst of 28 after a quiet moment): a send counts until its request ended (its slot is settled however
      the request ends, or when it is not made), and no slot is granted while 28 are unsettled; a request
      leaving more than ``max_late`` after its slot (the mark's commit) marks its slot in flight from then
      (:meth:`bot.limits.Limiter.depart`); per chat 1 msg/s with a burst of ``per_chat_burst`` (default 3, so a
      split reply is not held back), per group 20 msg/min (a burst of 20). A token bucket with a burst of one
      second (python-telegram-bot's ``AIORateLimiter``, an ``aiolimiter.AsyncLimiter(30, 1)``) lets twice the rate into one second
      after a quiet spell, which the platform's window answers with 429; the window does not. A burst of 1
      held every reply behind the one before it: at 20 commands/s (Poisson) the p99 wait was ~240 ms (issue
      #18). A send with ``before_request`` (a daily reading, marked ``sending`` just before its request) is
      also spaced one at a time at ``overall_rate`` with no burst (budget ``telegram:marked``: with Redis,
      across every process), so a crash strands at most about one marked reading.
      The parts of one reply to one chat are sent in order (a lock per chat).
      These budgets are the bot's one rate limiter (:mod:`bot.limits`: in this process, or
      shared by every process through Redis when ``SIKPAN_REDIS_URL`` is set). python-telegram-bot's ``AIORateLimiter`` (its
      ``rate-limiter`` extra) is not installed: it throttles single requests without knowing that the parts
      of a reply belong together, and its own 429 retry (``max_retries=0`` by default) would sit beside the
      RetryAfter policy below. The daily scheduler's fan-out goes through this same sender and buckets.
    - ``RetryAfter`` (429): wait the server's ``retry_after`` (int seconds or ``timedelta``), then retry the
      same part, at most ``max_attempts`` attempts in all. ``Forbidden`` (403: blocked, kicked,
      deactivated) and ``BadRequest`` "chat not found": report through ``on_blocked(platform, chat_id,
      reason)`` and never retry. ``ChatMigrated``: report through ``on_migrated(platform, old, new)`` and
      resend to the new id. Other ``BadRequest``: a bug — logged with context, not retried.
      ``TimedOut``/``NetworkError``: retried with exponential backoff **only when Telegram provably did not
      perform the request** (:func:`request_not_sent`: no connection, or an ``ok: false`` answer); a read
      timeout or a lost answer after the request was written is ``uncertain`` and never resent (at most
      once). Every reply that does not arrive is counted in ``dropped`` and logged at ERROR.

Discord: the sender is :class:`bot.discord.sender.DiscordSender` (discord.py); its text is split here
    (:func:`split_discord`, :func:`split_embed_descriptions`), free of the chat library.

Both senders return a :class:`SendOutcome`. Callbacks may be plain functions or coroutines.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import inspect
import logging
import re
import warnings
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from bot import metrics
from bot.bounded import BoundedCache
from bot.limits import Limiter, LocalLimiter, Rate, Slot, TokenBucket, Window  # noqa: F401 - TokenBucket re-exported
from bot.sanitize import clean

log = logging.getLogger(__name__)

TELEGRAM_TEXT_LIMIT = 4096
TELEGRAM_CAPTION_LIMIT = 1024  # a photo's caption, visible characters after entity parsing
DISCORD_CONTENT_LIMIT = 2000
DISCORD_EMBED_DESCRIPTION_LIMIT = 4096
DISCORD_EMBEDS_PER_MESSAGE = 10
DISCORD_EMBED_TOTAL_LIMIT = 6000

BlockedCallback = Callable[[str, str, str], Awaitable[None] | None]
MigratedCallback = Callable[[str, str, str], Awaitable[None] | None]


@dataclass(frozen=True)
class SendOutcome:
    """Result of one logical send (all its parts)."""

    ok: bool
    parts: int  # parts delivered
    message_ids: tuple[int, ...] = ()
    error: str | None = None  # "forbidden" | "chat_not_found" | "bad_request" | "gave_up" | "expired"
    chat_id: str | None = None  # final chat id (differs after a group migration)


# ---------------------------------------------------------------------------------------------- helpers
def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (how Telegram counts; astral characters count 2)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2  # a lone surrogate counts 1, never raises


async def _call_back(callback: BlockedCallback | None, *args: str) -> None:
    """Tell a callback (plain function or coroutine function); its errors are the delivery's errors."""
    if callback is None:
        return
    result = callback(*args)
    if inspect.isawaitable(result):
        await result


BeforeRequest = Callable[[], Awaitable[bool]]


class NotSent(Exception):
    """The cause a transport gives its ``TimedOut``/``NetworkError`` for a request that provably never left:
    no connection could be made (``bot.telegram.wire``: refused, unreachable, DNS, the TLS handshake, the
    connect timeout). :func:`request_not_sent` reads it."""


def request_not_sent(exc: BaseException) -> bool:
    """True only when Telegram provably did not perform the request (so resending cannot duplicate).

    python-telegram-bot raises ``NetworkError``/``TimedOut`` in two ways:

    - from a transport error (``raise TimedOut from err`` with the HTTP library's exception as the cause):
      only a connection that could not be made or a request that never got a connection from the pool was
      not sent — :class:`NotSent` (our transport's own connections, ``bot.telegram.wire``), aiohttp's
      ``ClientConnectorError`` and ``ConnectionTimeoutError`` (its uploads and proxies), httpx's ``ConnectError``, ``ConnectTimeout`` and ``PoolTimeout`` (PTB's
      default). A read or write timeout or a connection dropped after the request was written may have been
      accepted: *maybe sent*.
    - from an HTTP answer whose JSON envelope says ``"ok": false`` (no cause): the Bot API refused the
      method (e.g. a 429 without ``retry_after``, a 500 with an error description), so it did not send.
      An answer whose body is not the Bot API's JSON (a proxy's 502 page: the cause is the parse error)
      proves nothing: maybe sent.
    """
    import aiohttp
    import httpx
    from telegram.error import TelegramError

    cause = exc.__cause__
    if cause is None:
        return True  # the Bot API answered with an error envelope
    if isinstance(cause, TelegramError):
        return False  # an unparsable answer (a proxy's error page)
    return isinstance(
        cause,
        NotSent
        | aiohttp.ClientConnectorError
        | aiohttp.ConnectionTimeoutError
        | httpx.ConnectError
        | httpx.ConnectTimeout
        | httpx.PoolTimeout,
    )


def retry_after_seconds(value: int | float | timedelta | None) -> float:
    """The server's retry_after as seconds, whether PTB gives an int or a ``timedelta``."""
    if value is None:
        return 1.0
    if isinstance(value, timedelta):
        return max(0.0, value.total_seconds())
    return max(0.0, float(value))


NO_PREVIEW = {"is_disabled": True}  # LinkPreviewOptions: no link previews under a reply
# ``parse_mode`` as the plain string python-telegram-bot's ``ParseMode.HTML`` stands for (the request layer
# sends plain values as they are; an enum member goes through PTB's ``RequestParameter`` first)
HTML_MODE = "HTML"
_UNPACED = Slot(0.0)  # the slot of a send with pacing off (nothing to settle)


def _reply_to(message_id: int | None) -> dict[str, Any] | None:
    """``reply_parameters`` of a reply to ``message_id`` (sent even when that message is gone), or None."""
    if message_id is None:
        return None
    return {"message_id": message_id, "allow_sending_without_reply": True}


async def telegram_call(
    bot: Any,
    endpoint: str,
    params: Mapping[str, Any],
    *,
    request: Any = None,
    read_timeout: float | None = None,
    sent_id: bool = False,
) -> Any:
    """One Bot API method (``endpoint``: ``sendMessage`` …) of ``bot`` (a python-telegram-bot ``Bot``) through
    its request layer; returns the answer's ``result`` as JSON (for a sent message: a dict with ``message_id``
    …), never a PTB object.

    The errors are PTB's own — ``RetryAfter``, ``ChatMigrated``, ``Forbidden``, ``BadRequest``,
    ``InvalidToken``, ``TimedOut`` / ``NetworkError`` with the transport's cause (:func:`request_not_sent`) —
    but the answer is not turned into a ``Message`` (``Message.de_json``: a tenth of the event loop's time per
    command, issue #18) nor the arguments through ``Bot``'s default and argument plumbing. ``params`` are the
    method's Bot API parameters (None: left out); a value may be a PTB object (a keyboard, an ``InputFile``
    to upload, an ``InputMedia``) as ``Bot`` would take it. On the bot's own transport
    (:class:`bot.telegram.request.AiohttpRequest`, which has ``api_call``) the body is built and the answer
    read in one step, without PTB's ``RequestData``/``BaseRequest.post`` layers; on any other
    ``BaseRequest`` (PTB's httpx) the request is built as ``Bot._do_post`` builds it and goes through
    ``post``. Either way the wire is the one ``Bot.send_message`` makes (``tests/adapters/test_sending.py``
    compares them). ``request``: another ``BaseRequest`` than the bot's (``getUpdates`` has its own
    connection), with ``read_timeout`` instead of its default (a long poll's hold plus the default, as
    ``Bot.get_updates``). ``sent_id``: only the sent Message's ``message_id`` is needed — the bot's transport
    may then answer ``{"message_id": …}`` without reading the rest of the Message
    (:func:`bot.telegram.request.api_answer`); another transport answers the whole result."""
    via = bot.request if request is None else request
    url = f"{bot.base_url}/{endpoint}"
    api_call = getattr(via, "api_call", None)
    if api_call is not None:
        options: dict[str, Any] = {}
        if read_timeout is not None:
            options["read_timeout"] = read_timeout
        if sent_id:
            options["sent_id"] = True
        return await api_call(url, params, **options)
    from telegram.request import RequestData
    from telegram.request._requestparameter import RequestParameter

    data = RequestData([RequestParameter.from_input(k, v) for k, v in params.items() if v is not None])
    if read_timeout is None:
        return await via.post(url, request_data=data)
    return await via.post(url, request_data=data, read_timeout=read_timeout)


# ---------------------------------------------------------------------------------------------- Telegram HTML
_HTML_TOKEN = re.compile(
    r"(?P<tag><(?P<close>/)?(?P<name>[a-zA-Z][a-zA-Z0-9-]*)(?P<attrs>(?:\s[^<>]*)?)>)"
    r"|(?P<entity>&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z]+);)"
    r"|(?P<text>[^<&\n]+)"
    r"|(?P<char>[\s\S])"
)


@dataclass(frozen=True)
class _Atom:
    raw: str
    width: int  # visible width in UTF-16 units (0 for tags)
    kind: str  # "open" | "close" | "char" | "text" (a run of characters, cut into chars only if needed)
    name: str = ""


def _atoms(text: str) -> list[_Atom]:
    atoms: list[_Atom] = []
    for m in _HTML_TOKEN.finditer(text):
        if m.group("tag"):
            kind = "close" if m.group("close") else "open"
            atoms.append(_Atom(m.group("tag"), 0, kind, m.group("name").lower()))
        elif m.group("entity"):
            atoms.append(_Atom(m.group("entity"), utf16_len(html.unescape(m.group("entity"))), "char"))
        elif m.group("text"):
            atoms.append(_Atom(m.group("text"), utf16_len(m.group("text")), "text"))
        else:
            ch = m.group("char")
            atoms.append(_Atom(ch, utf16_len(ch), "char"))
    return atoms


def _lines(atoms: list[_Atom]) -> list[list[_Atom]]:
    lines: list[list[_Atom]] = [[]]
    for atom in atoms:
        lines[-1].append(atom)
        if atom.kind == "char" and atom.raw == "\n":
            lines.append([])
    return [line for line in lines if line]


def _width(atoms: Sequence[_Atom]) -> int:
    return sum(a.width for a in atoms)


def _cut_long_line(line: list[_Atom], limit: int) -> list[list[_Atom]]:
    """Cut one over-long line into pieces of at most ``limit`` visible units, preferring spaces."""
    line = [
        char
        for atom in line
        for char in ([_Atom(ch, utf16_len(ch), "char") for ch in atom.raw] if atom.kind == "text" else [atom])
    ]
    pieces: list[list[_Atom]] = []
    current: list[_Atom] = []
    width = 0
    last_space = -1
    for atom in line:
        if width + atom.width > limit and current:
            if last_space > 0:
                pieces.append(current[: last_space + 1])
                current = current[last_space + 1 :]
            else:
                pieces.append(current)
                current = []
            width = _width(current)
            last_space = -1
            for i, a in enumerate(current):
                if a.kind == "char" and a.raw in (" ", "\t"):
                    last_space = i
        current.append(atom)
        width += atom.width
        if atom.kind == "char" and atom.raw in (" ", "\t"):
            last_space = len(current) - 1
    if current:
        pieces.append(current)
    return pieces


def split_telegram_html(text: str, limit: int = TELEGRAM_TEXT_LIMIT) -> list[str]:
    """Split Telegram HTML into parts of at most ``limit`` visible characters each, at line boundaries.

    Tags open at a split point are closed at the end of the part and reopened at the start of the next,
    so every part is valid HTML on its own. Parts without visible text are dropped.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    if utf16_len(text) <= limit:  # markup only adds length: the visible text fits too
        return [text] if _strip_tags(text).strip() else []
    lines: list[list[_Atom]] = []
    for line in _lines(_atoms(text)):
        lines.extend(_cut_long_line(line, limit) if _width(line) > limit else [line])

    parts: list[str] = []
    stack: list[_Atom] = []  # open tags at the current position
    buf: list[str] = []
    width = 0

    def flush() -> None:
        nonlocal buf, width
        body = "".join(buf) + "".join(f"</{a.name}>" for a in reversed(stack))
        if width and body_has_text(buf):
            parts.append(body.strip("\n") if not stack else body)
        buf = ["".join(a.raw for a in stack)]
        width = 0

    def body_has_text(chunks: list[str]) -> bool:
        return any(c.strip() for c in _strip_tags("".join(chunks)))

    buf = []
    previous: tuple[int, int, list[_Atom]] | None = None  # (buf index, width before, atoms) of the last line
    for line in lines:
        line_width = _width(line)
        if width and width + line_width > limit:
            carried: list[_Atom] | None = None
            if (
                previous is not None
                and previous[1] > 0  # there is text before the heading in this part
                and _is_heading(previous[2])
                and _width(previous[2]) + line_width <= limit
            ):
                # a heading never ends a part: it moves on with the text it heads
                start, before, carried = previous
                del buf[start:]
                width = before
            flush()
            if carried is not None:
                buf.extend(a.raw for a in carried)
                width += _width(carried)
        previous = (len(buf), width, line)
        for atom in line:
            buf.append(atom.raw)
            if atom.kind == "open":
                stack.append(atom)
            elif atom.kind == "close":
                for i in range(len(stack) - 1, -1, -1):
                    if stack[i].name == atom.name:
                        del stack[i]
                        break
        width += line_width
    if width:
        flush()
    return parts


def _is_heading(line: Sequence[_Atom]) -> bool:
    """A line that is one bold run (``<b>삼전</b>``): a section heading of a rendered reply."""
    kinds = [a for a in line if not (a.kind == "char" and a.raw == "\n")]
    return (
        len(kinds) >= 3
        and kinds[0].kind == "open"
        and kinds[0].name == "b"
        and kinds[-1].kind == "close"
        and kinds[-1].name == "b"
        and all(a.kind in ("text", "char") for a in kinds[1:-1])
    )


def visible_len(text: str) -> int:
    """Visible length of Telegram HTML (tags dropped, entities read), in UTF-16 code units."""
    return utf16_len(_strip_tags(text))


def fit_caption(text: str, limit: int = TELEGRAM_CAPTION_LIMIT) -> str:
    """``text`` if it fits a caption, else its first part (cut at a line, tags closed)."""
    parts = split_telegram_html(text, limit)
    return parts[0] if parts else ""


_TAG = re.compile(r"<[^<>]*>")


def _strip_tags(text: str) -> str:
    return html.unescape(_TAG.sub("", text))


# ---------------------------------------------------------------------------------------------- Discord text
_FENCE = re.compile(r"^\s*```")


def split_discord(text: str, limit: int = DISCORD_CONTENT_LIMIT) -> list[str]:
    """Split Discord markdown at line boundaries into parts of at most ``limit`` characters.

    A ``` code block cut by a split is closed at the end of the part and reopened (same fence line) at the
    start of the next. Lines longer than the room left are cut at a space, else anywhere.
    """
    if limit < 20:
        raise ValueError("limit too small")
    parts: list[str] = []
    current = ""
    fence: str | None = None  # the opening fence line while inside a code block

    def room() -> int:
        return limit - (4 if fence is not None else 0)  # reserve "\n```"

    def flush() -> None:
        nonlocal current
        body = current.rstrip("\n")
        if fence is not None:
            body += "\n```"
        if body.strip() and body.strip() != "```":
            parts.append(body)
        current = (fence + "\n") if fence is not None else ""

    for line in text.splitlines(keepends=True):
        pending = line
        while pending:
            if len(current) + len(pending) <= room():
                current += pending
                pending = ""
                break
            if current.strip() and current != (fence + "\n" if fence else ""):
                head = _trailing_heading(current) if fence is None else None
                if head is not None and len(head) + len(pending) <= room():
                    # a heading never ends a part: it moves on with the text it heads
                    current = current[: len(current) - len(head)]
                    pending = head + pending
                flush()
                continue
            # the line alone does not fit: cut it
            space = room() - len(current)
            cut = pending.rfind(" ", 0, space)
            cut = cut + 1 if cut > 0 else space
            current += pending[:cut]
            pending = pending[cut:]
            flush()
        if _FENCE.match(line):
            fence = None if fence is not None else line.rstrip("\n")
    if current.strip() and current != ((fence + "\n") if fence else ""):
        fence_before = fence
        flush()
        fence = fence_before
    return parts


_MD_HEADING = re.compile(r"(?:^|\n)(\*\*[^*\n]+\*\*\n)$")


def _trailing_heading(current: str) -> str | None:
    """The last line of ``current`` if it is a bold heading (``**삼전**``) with other text before it."""
    m = _MD_HEADING.search(current)
    if m is None or not current[: m.start(1)].strip():
        return None
    return m.group(1)


def split_embed_descriptions(text: str) -> list[list[str]]:
    """Pack text into messages of embed descriptions: each ≤ 4096, ≤ 10 per message, ≤ 6000 per message."""
    chunks = split_discord(text, DISCORD_EMBED_DESCRIPTION_LIMIT)
    messages: list[list[str]] = []
    for chunk in chunks:
        pieces = [chunk] if len(chunk) <= DISCORD_EMBED_TOTAL_LIMIT else split_discord(chunk, 3000)
        for piece in pieces:
            if (
                messages
                and len(messages[-1]) < DISCORD_EMBEDS_PER_MESSAGE
                and sum(map(len, messages[-1])) + len(piece) <= DISCORD_EMBED_TOTAL_LIMIT
            ):
                messages[-1].append(piece)
            else:
                messages.append([piece])
    return messages


# ---------------------------------------------------------------------------------------------- Telegram
class TelegramSender:
    """Sends Telegram HTML through a python-telegram-bot ``Bot`` with splitting, pacing and error policy."""

    platform = "telegram"

    def __init__(
        self,
        bot: Any,
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

    def _remember_photo(self, digest: bytes, result: Any) -> None:
        """Keep the file_id of an uploaded picture (the largest of the sizes Telegram made of it)."""
        sizes = result.get("photo") if isinstance(result, dict) else None
        file_id = sizes[-1].get("file_id") if isinstance(sizes, list) and sizes else None
        if not isinstance(file_id, str) or not file_id:
            return
        self._photo_ids.keep(digest, file_id)

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

    async def _pace(self, chat: str, chat_kind: str, marked: bool = False) -> Slot:
        """Wait for every budget of this send; its overall slot (to be settled however the send goes on).
        Each budget is taken at once when its next slot is now (:meth:`bot.limits.Limiter.acquire_now`, no
        coroutine), else waited for — the same slots, in the same order, as awaiting every ``acquire``."""
        if marked:  # half an interval at most: two marks never closer than that
            await self._on_time(
                "telegram:marked", self._marked_rate, min(self.max_late, self._marked_rate.interval / 2)
            )
        limiter = self.limiter
        key = "telegram:chat:" + chat
        if limiter.acquire_now(key, self._chat_rate) is None:
            await limiter.acquire(key, self._chat_rate)
        if chat_kind != "private":
            key = "telegram:group:" + chat
            if limiter.acquire_now(key, self._group_rate) is None:
                await limiter.acquire(key, self._group_rate)
        slot = limiter.acquire_now("telegram:all", self._overall)
        return slot if slot is not None else await limiter.acquire("telegram:all", self._overall)

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
        reply_markup: Any = None,
        before_request: BeforeRequest | None = None,
        photo: bytes | None = None,
        caption: str | None = None,
        filename: str = "chart.png",
    ) -> SendOutcome:
        """Split ``text`` (Telegram HTML) and send each part in order; see the module docstring.

        With ``photo`` (PNG bytes) the first request is a ``sendPhoto`` (a multipart upload through PTB's
        ``InputFile``; a picture this sender has sent before goes as the ``file_id`` Telegram answered the
        upload with — no bytes uploaded, Telegram's documented way to send a file again — and, should Telegram
        refuse that id with a 400, as an upload after all) whose caption is ``caption``, or — when ``caption`` is None — the first part of
        ``text`` split at the caption limit (1,024 visible characters); the rest of ``text`` follows as
        messages. A photo and its caption are one request; the keyboard goes with the last part, as for text.

        ``before_request`` is awaited once, after pacing and immediately before the first request; when it
        returns False nothing is sent (outcome ``not_attempted``).
        """
        from telegram import InputFile
        from telegram.error import (
            BadRequest,
            ChatMigrated,
            Forbidden,
            InvalidToken,
            NetworkError,
            RetryAfter,
            TelegramError,
        )

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
        digest = self._digest(photo) if photo is not None else b""
        chat = str(chat_id)
        if len(self._chat_locks) > self.max_idle_chats:
            self._prune()
        lock = self._chat_locks.get(chat)
        if lock is None:
            lock = self._chat_locks[chat] = asyncio.Lock()
        sent_ids: list[int] = []
        async with lock:
            for index, part in enumerate(parts):
                attempt = 0
                while True:
                    attempt += 1
                    reused: str | None = None  # the file_id this attempt sends instead of the bytes
                    params: dict[str, Any]
                    # made before the slot: from the slot to the request's end nothing but the request
                    if photo is not None and index == 0:
                        reused = self._photo_ids.find(digest)  # recently sent: kept longest
                        params = {
                            "chat_id": chat_id,
                            "photo": reused or InputFile(photo, filename=filename),
                            "caption": part or None,
                            "parse_mode": HTML_MODE,
                            "reply_parameters": _reply_to(reply_to_message_id),
                        }
                        method = "sendPhoto"
                    else:
                        params = {
                            "chat_id": chat_id,
                            "text": part,
                            "parse_mode": HTML_MODE,
                            "link_preview_options": NO_PREVIEW,
                            "reply_parameters": _reply_to(reply_to_message_id if index == 0 else None),
                        }
                        method = "sendMessage"
                    params["reply_markup"] = reply_markup if index == len(parts) - 1 else None
                    slot = (
                        await self._pace(chat, chat_kind, marked=before_request is not None and index == 0)
                        if self.pace
                        else _UNPACED
                    )
                    first = before_request if index == 0 and attempt == 1 else None
                    # the common case needs no coroutine: nothing to ask first, the request leaves on time
                    if (
                        first is not None or (self.pace and self.limiter.now() - slot.at > self.max_late)
                    ) and (not await self._ready(slot, first)):
                        return SendOutcome(False, 0, (), "not_attempted", chat)
                    try:
                        try:
                            # the answer's message_id is all that is read of it, unless an upload's
                            # file_id is to be kept (the photo sizes)
                            result = await telegram_call(
                                self.bot,
                                method,
                                params,
                                sent_id=method == "sendMessage" or reused is not None,
                            )
                        finally:
                            await self._settle(slot)
                        if method == "sendPhoto":
                            if reused is None:
                                self._remember_photo(digest, result)
                            else:
                                self.photo_reuses += 1
                        sent_ids.append(int(result["message_id"]))
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
                        await self._sleep(wait)
                    except ChatMigrated as exc:
                        new_id = exc.new_chat_id
                        log.info("telegram: chat %s migrated to %s", chat, new_id)
                        await _call_back(self.on_migrated, self.platform, chat, str(new_id))
                        chat_id, chat = new_id, str(new_id)
                        if attempt >= self.max_attempts:
                            return SendOutcome(False, len(sent_ids), tuple(sent_ids), "gave_up", chat)
                    except Forbidden as exc:
                        log.info("telegram: chat %s refuses messages (%s)", chat, exc.message)
                        await _call_back(self.on_blocked, self.platform, chat, exc.message)
                        return SendOutcome(False, len(sent_ids), tuple(sent_ids), "forbidden", chat)
                    except BadRequest as exc:
                        if "chat not found" in exc.message.lower():
                            await _call_back(self.on_blocked, self.platform, chat, exc.message)
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
