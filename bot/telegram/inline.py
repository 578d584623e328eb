"""Telegram inline mode (issue #34 item 1): ``@bot 庚辰 8`` typed in any chat answers ``answerInlineQuery`` with
results the user can post there — the chart picture with its short reading as caption, and the reading as
text.

- Handlers: an ``InlineQueryHandler`` (:meth:`InlineMode.on_query`) and a ``ChosenInlineResultHandler``
  (:meth:`InlineMode.on_chosen`: counted by command and kind, ``sikpan_inline_chosen``; Telegram sends it only
  when BotFather's ``/setinlinefeedback`` is on) on the adapter's ``Application`` (``bot.telegram.add_handlers``).
- The line: :func:`bot.commands.inline.cast` reads the query as a command line (``庚辰 8`` → ``/cast 庚辰 8``,
  ``육효`` → ``/liuyao``, ``신살 甲子`` → ``/shensha 甲子``) and runs it with the command's own parser as an
  anonymous request: only a cast anyone may see, none of the caller's saved settings but the language (no
  zone, place, options, birth data), nothing stored (no history row, no number). The presentation is the one
  of a first reply (:func:`bot.presentation.present`, the command's first page) without buttons.
- Results: a photo (``InlineQueryResultCachedPhoto``: the picture, caption = the reading when it fits 1,024
  characters, else its head) and an article (``InlineQueryResultArticle``: the first page as Telegram HTML).
  An empty line gets a help article (what to type, four examples); a line that casts nothing (an unknown
  word, a bad 局, a command whose answer is private) gets an article saying why, and the help.
- Every answer has a button above its results (``InlineQueryResultsButton``: "open a chat with me", localized)
  that opens a private chat with the bot by ``/start inline`` (:data:`bot.features.help.command.INLINE_START`):
  the welcome and the commands, where every command (and a saved place, birth, history) is at hand.
- ``is_personal`` is always set (the answer is in the asker's language); ``cache_time``: :data:`FIXED_CACHE`
  for a line that always casts the same chart (``庚辰 8``, ``신살 甲子``), :data:`MOMENT_CACHE` for one cast for
  the moment or by chance (``now``, ``육효``: the command read the clock) or answered without its picture.

Why a cached ``file_id`` and not a URL: the Bot API's ``InlineQueryResultPhoto`` takes a ``photo_url`` that must
be a **JPEG** (our pictures are PNG) at a public HTTPS address Telegram's servers fetch, plus a
``thumbnail_url`` — only the webhook role has a web server, and polling deployments (the default) have no
public address at all. ``InlineQueryResultCachedPhoto`` takes the ``file_id`` Telegram gave the bot for a
photo it sent, in any role. So a picture this process has sent before goes as that ``file_id``
(:meth:`bot.telegram.sender.TelegramSender.photo_id`: every reply's picture is remembered), and a new one is
uploaded once to the operator's cache chat (``TELEGRAM_INLINE_CACHE_CHAT``: a private channel or group with
the bot in it) through the sender (paced like any send, 20 a minute in a group), waiting at most
:data:`UPLOAD_WAIT` seconds — a picture not there in time is answered with the text alone (short cache), its
upload finishing for the next query. Without a cache chat the answer has a photo only for a picture sent
before (e.g. the same ``/cast 庚辰 8`` in some chat). A ``file_id`` Telegram refuses is forgotten and the query
answered again without the photo.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from telegram import (
    InlineQuery,
    InlineQueryResult,
    InlineQueryResultArticle,
    InlineQueryResultCachedPhoto,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from bot import logs, metrics
from bot.admission import Verdict
from bot.commands import Incoming, Reply, lookup, resolve_lang
from bot.commands.inline import InlineCast, cast
from bot.context import AppContext
from bot.features.help.command import INLINE_START
from bot.i18n import gettext
from bot.presentation import fit_page, present
from bot.telegram.sender import NO_PREVIEW, TelegramSender
from bot.views import first_page, render, view_title

log = logging.getLogger(__name__)

FIXED_CACHE = 300  # seconds Telegram may keep the answer of a line that always casts the same chart
MOMENT_CACHE = 10  # … of a line cast for the moment or by chance, or answered without its picture
UPLOAD_WAIT = 2.0  # seconds an answer waits for its picture's upload to the cache chat
MAX_UPLOADS = 4  # uploads in flight at once; a picture beyond them is answered without
UPLOAD_REST = 60.0  # seconds without uploads after one failed (a cache chat that refuses the bot)
DESCRIPTION_LIMIT = 120  # characters of a result's description line
# the kinds of result, the first part of a result id ("p:cast:<key>"): what chosen_inline_result counts
PHOTO, TEXT, HELP, PROBLEM = "p", "t", "h", "x"
KINDS = {PHOTO: "photo", TEXT: "text", HELP: "help", PROBLEM: "problem"}


@dataclass(frozen=True)
class Answer:
    """What one inline query is answered with."""

    results: tuple[InlineQueryResult, ...]
    cache_time: int
    outcome: str  # cast | help | problem | refused (metrics)
    pictures: tuple[bytes, ...] = ()  # the pictures its photo results send by file_id
    # the button above the results: open a private chat with the bot (``/start inline``), or None
    button: InlineQueryResultsButton | None = None


def open_button(lang: str) -> InlineQueryResultsButton:
    """The button Telegram shows above the results: a private chat with the bot, opened by ``/start``
    with :data:`~bot.features.help.command.INLINE_START` (its welcome, the commands listed)."""
    return InlineQueryResultsButton(gettext(lang, "chat.inline.open"), start_parameter=INLINE_START)


def result_id(kind: str, command: str, *parts: str) -> str:
    """A result's id: ``kind:command:key`` (1–64 bytes; ``key`` a digest of what the result shows)."""
    key = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return f"{kind}:{command[:32]}:{key}"


def description_of(text: str, skip: int = 1) -> str:
    """A result's one-line description: the lines of a plain-text reply after its title, joined."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    shown = " · ".join(lines[skip : skip + 2]) or " ".join(lines)
    return shown if len(shown) <= DESCRIPTION_LIMIT else shown[: DESCRIPTION_LIMIT - 1] + "…"


class InlineMode:
    """Answers inline queries for one adapter (its context and sender)."""

    def __init__(self, ctx: AppContext, sender: TelegramSender) -> None:
        self.ctx = ctx
        self.sender = sender
        self.cache_chat = ctx.settings.telegram_inline_cache_chat
        self._uploads: dict[bytes, asyncio.Task[str | None]] = {}  # PNG SHA-256 → its upload in flight
        self._rest_until = 0.0  # monotonic time before which nothing is uploaded (after a failure)

    async def on_query(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The ``InlineQueryHandler``'s callback: answer the query (or, in a flood, not)."""
        query = update.inline_query
        if query is None:
            return
        with logs.ids(update=update.update_id):
            found = await self.answer_for(query, context.bot.username)
            if found is None:
                metrics.inline_query("refused")
                return
            await self.send(query, found)

    async def on_chosen(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The ``ChosenInlineResultHandler``'s callback: a result a user posted, counted by command and kind
        (nothing of the user or the line is kept)."""
        chosen = update.chosen_inline_result
        if chosen is None:
            return
        kind, _, rest = chosen.result_id.partition(":")
        command = rest.partition(":")[0]
        spec = lookup(command)
        metrics.inline_chosen(spec.name if spec is not None else "other", KINDS.get(kind, "other"))

    async def answer_for(self, query: InlineQuery, username: str) -> Answer | None:
        """The answer to ``query`` (None: refused silently, a flood already warned)."""
        user = query.from_user
        incoming = Incoming(
            platform="telegram",
            chat_id=str(user.id),  # an inline query has no chat: the asker's own is its admission bucket
            user_id=str(user.id),
            text="",
            lang_hint=user.language_code,
            chat_kind="inline",
            anonymous=True,
        )
        verdict = self.ctx.admission.check(incoming.user_key, incoming.chat_key)
        if verdict is Verdict.DROP:
            return None
        if verdict is Verdict.WARN:
            lang = await resolve_lang(incoming, self.ctx)
            notice = gettext(lang, "bot.error.slow_down")
            title = gettext(lang, "chat.inline.problem.title")
            escaped = html.escape(notice, quote=False)
            article = self.article(result_id(PROBLEM, "-", lang), title, notice, escaped)
            return Answer((article,), 0, "refused", button=open_button(lang))
        found = await cast(query.query, incoming, self.ctx)
        if found is None:
            lang = await resolve_lang(incoming, self.ctx)
            return Answer((self.help(lang, username),), FIXED_CACHE, "help", button=open_button(lang))
        if found.reply.view in ("error", "choose"):
            answer = self.problem(found, username)
        else:
            answer = await self.cast_answer(found)
        return replace(answer, button=open_button(found.reply.lang))

    async def cast_answer(self, found: InlineCast) -> Answer:
        """A cast's photo (when its picture has a file_id in time) and its article."""
        reply = found.reply
        lang = reply.lang
        page = first_page(reply.view)
        shown = present(reply, "telegram", "", page)  # no number: no buttons
        body = shown.text or shown.caption or ""
        plain = present(reply, "console", "", page, picture=False).text
        title = view_title(lang, reply.view)
        description = description_of(plain)
        results: list[InlineQueryResult] = []
        pictures: tuple[bytes, ...] = ()
        complete = True
        if shown.picture is not None:
            file_id = await self.photo_id(shown.picture)
            if file_id is not None:
                results.append(
                    InlineQueryResultCachedPhoto(
                        result_id(PHOTO, found.command, found.line, lang, body),
                        file_id,
                        title=gettext(lang, "chat.inline.as_picture", title=title),
                        description=description,
                        caption=shown.caption,
                        parse_mode=ParseMode.HTML,
                    )
                )
                pictures = (shown.picture,)
            else:
                complete = False
        results.append(
            self.article(
                result_id(TEXT, found.command, found.line, lang, body),
                gettext(lang, "chat.inline.as_text", title=title),
                description,
                fit_page(body, lang),
            )
        )
        fixed = complete and not found.moment
        return Answer(tuple(results), FIXED_CACHE if fixed else MOMENT_CACHE, "cast", pictures)

    def problem(self, found: InlineCast, username: str) -> Answer:
        """A line that casts nothing: why (the command's own error, or the closest words), and the help."""
        reply = found.reply
        lang = reply.lang
        why = render(reply, "telegram")
        article = self.article(
            result_id(PROBLEM, found.command, found.line, lang),
            gettext(lang, "chat.inline.problem.title"),
            description_of(present(reply, "console", picture=False).text, skip=0),
            why + "\n\n" + self.help_text(lang, username),
        )
        cache = MOMENT_CACHE if found.moment else FIXED_CACHE
        return Answer((article, self.help(lang, username)), cache, "problem")

    def help(self, lang: str, username: str) -> InlineQueryResultArticle:
        """The help article: what to type after ``@bot``, with four examples."""
        return self.article(
            result_id(HELP, "help", lang),
            gettext(lang, "chat.inline.help.title"),
            gettext(lang, "chat.inline.help.description"),
            self.help_text(lang, username),
        )

    @staticmethod
    def help_text(lang: str, username: str) -> str:
        return render(Reply("inline_help", lang, {"bot": username}), "telegram")

    @staticmethod
    def article(id_: str, title: str, description: str, text: str) -> InlineQueryResultArticle:
        """A text result: posting it sends ``text`` (Telegram HTML) into the chat."""
        return InlineQueryResultArticle(
            id_,
            title,
            InputTextMessageContent(text, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW),
            description=description,
        )

    async def send(self, query: InlineQuery, found: Answer) -> None:
        """``answerInlineQuery`` (``is_personal``: the answer is in the asker's language). Should Telegram
        refuse an answer with photos (a ``file_id`` it no longer takes), their ids are forgotten and the query
        is answered with the text results alone."""
        results: Sequence[InlineQueryResult] = found.results
        outcome = found.outcome
        for attempt in (1, 2):
            try:
                await query.answer(
                    results, cache_time=found.cache_time, is_personal=True, button=found.button
                )
                break
            except BadRequest as exc:
                photos = [r for r in results if isinstance(r, InlineQueryResultCachedPhoto)]
                if attempt == 1 and photos:
                    log.info("telegram: inline answer with a photo refused (%s); answering without", exc)
                    for picture in found.pictures:
                        self.sender.forget_photo(picture)
                    results = [r for r in results if not isinstance(r, InlineQueryResultCachedPhoto)]
                    continue
                log.warning("telegram: inline answer refused: %s", exc.message)
                outcome = "failed"
                break
            except TelegramError as exc:  # a query answered too late, a network error: nothing to retry
                log.info("telegram: inline query not answered: %s", exc)
                outcome = "failed"
                break
        metrics.inline_query(outcome)

    async def photo_id(self, png: bytes) -> str | None:
        """The picture's ``file_id``: known from an earlier send, else uploaded to the cache chat (waiting at
        most :data:`UPLOAD_WAIT` seconds; the upload goes on for the next query); None without one."""
        known = self.sender.photo_id(png)
        if known is not None or self.cache_chat is None:
            return known
        digest = hashlib.sha256(png).digest()
        task = self._uploads.get(digest)
        if task is None:
            if len(self._uploads) >= MAX_UPLOADS or time.monotonic() < self._rest_until:
                return None
            task = asyncio.get_running_loop().create_task(self.upload(png, self.cache_chat))
            self._uploads[digest] = task
            task.add_done_callback(lambda _: self._uploads.pop(digest, None))
        done, _ = await asyncio.wait({task}, timeout=UPLOAD_WAIT)
        return task.result() if task in done else None

    async def upload(self, png: bytes, chat_id: int) -> str | None:
        """Send the picture to the cache chat (no caption); the ``file_id`` Telegram gave it."""
        outcome = await self.sender.send(
            chat_id, "", photo=png, caption="", chat_kind="private" if chat_id > 0 else "group"
        )
        if not outcome.ok:
            log.warning("telegram: inline picture not uploaded to chat %s (%s)", chat_id, outcome.error)
            self._rest_until = time.monotonic() + UPLOAD_REST
            return None
        return self.sender.photo_id(png)


__all__ = [
    "FIXED_CACHE",
    "MOMENT_CACHE",
    "Answer",
    "InlineMode",
    "description_of",
    "open_button",
    "result_id",
]
