"""One sender per platform: escape, split, pace, and handle the platform's errors. This module holds what
is not tied to a chat library (splitting, :class:`SendOutcome`, the callbacks); the Telegram sender is
:class:`bot.telegram.sender.TelegramSender` (python-telegram-bot's ``Bot`` methods).

Telegram (:class:`bot.telegram.sender.TelegramSender`, python-telegram-bot ``Bot``)
    - Text is Telegram HTML (``parse_mode=HTML``) as rendered by the autoescaped templates;
      ``TelegramSender.send_plain`` escapes plain text first.
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
      perform the request** (``bot.telegram.sender.request_not_sent``: no connection, or an ``ok: false``
      answer); a read
      timeout or a lost answer after the request was written is ``uncertain`` and never resent (at most
      once). Every reply that does not arrive is counted in ``dropped`` and logged at ERROR.

Discord: the sender is :class:`bot.discord.sender.DiscordSender` (discord.py); its text is split here
    (:func:`split_discord`, :func:`split_embed_descriptions`), free of the chat library.

Both senders return a :class:`SendOutcome`. Callbacks may be plain functions or coroutines.
"""

from __future__ import annotations

import html
import inspect
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.limits import TokenBucket  # noqa: F401 - re-exported

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


async def call_back(callback: BlockedCallback | None, *args: str) -> None:
    """Tell a callback (plain function or coroutine function); its errors are the delivery's errors."""
    if callback is None:
        return
    result = callback(*args)
    if inspect.isawaitable(result):
        await result


BeforeRequest = Callable[[], Awaitable[bool]]


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
