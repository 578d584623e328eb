"""The console chat: the same commands on stdin/stdout, for ``sikpan run`` without any token.

Each input line is one command (``/cast now``; the leading ``/`` may be left out); the answer is the
``console`` rendering of the reply. A stored cast answers with its first page and a line naming the others
(``bot.features.base.pages_of``); typing a page's number or name (``2``, ``解``, ``풀이``, ``read``) then shows that page of
the same stored cast, read again from the history (:mod:`bot.commands.pages`); a topic's name (``재물``, ``求財``)
shows its first page read for that topic (issue 32), and so does any word naming a topic as ``/cast`` reads
it (``돈``, ``婚姻``, ``財``, ``천문``); a word close to the topics but naming none gets the closest. A question in
one's own words (「오늘 재물운 어때?」, 「今日出行吉否」) gets the reply of the command answering it
(:mod:`bot.features.question`: ``/cast now 재물``); a bare line whose first word names a command is that command
unless it is such a sentence (``console_question``). End of input (Ctrl-D), ``/quit`` or the stop event ends
the chat.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

from bot.commands import (
    Incoming,
    Reply,
    action_buttons,
    dispatch,
    lookup,
    pages,
    resolve_lang,
    split_command,
)
from bot.features.base import (
    Attachment,
    on_topic,
    page_topic,
    pages_of,
    topic_named,
    topic_pages,
    topic_unknown,
)
from bot.features.question import console_question
from bot.i18n import gettext
from bot.korean import is_syllable
from bot.msgids import msgid
from bot.presentation import Message, present

if TYPE_CHECKING:
    from bot.context import AppContext

PROMPT = "> "
QUIT_WORDS = frozenset({"/quit", "/exit", "/q", "/종료", "/끝", "/止"})


class LineSource(Protocol):
    async def readline(self) -> str | None:
        """The next line without its newline, or None at end of input."""
        ...


class FdLineSource:
    """Lines from a file descriptor, read without blocking the event loop.

    Uses ``loop.add_reader`` (pipes and terminals on Unix) and falls back to a daemon thread, so a pending
    read never keeps the process alive after stop.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.buffer = b""
        self.started = False
        self.eof = False

    def _feed(self, data: bytes) -> None:
        if not data:
            if self.buffer:
                self.queue.put_nowait(self.buffer.decode("utf-8", "replace"))
                self.buffer = b""
            self.queue.put_nowait(None)
            self.eof = True
            return
        self.buffer += data
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            self.queue.put_nowait(line.rstrip(b"\r").decode("utf-8", "replace"))

    def _start(self) -> None:
        self.started = True
        loop = asyncio.get_running_loop()
        # The descriptor stays blocking: on a terminal stdin and stdout usually share one open file
        # description, and O_NONBLOCK there would make large writes to stdout fail with EAGAIN. One
        # os.read per readiness notification never blocks.
        try:
            loop.add_reader(self.fd, self._on_readable, loop)
        except (OSError, NotImplementedError, ValueError):
            threading.Thread(target=self._thread, args=(loop,), daemon=True).start()

    def _on_readable(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(self.fd)
        self._feed(data)

    def _thread(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            loop.call_soon_threadsafe(self._feed, data)
            if not data:
                return

    async def readline(self) -> str | None:
        if not self.started:
            self._start()
        if self.eof and self.queue.empty():
            return None
        return await self.queue.get()

    def close(self) -> None:
        if self.started:
            with contextlib.suppress(RuntimeError, ValueError, OSError):  # no loop any more, or fd closed
                asyncio.get_running_loop().remove_reader(self.fd)


def console_incoming(text: str) -> Incoming:
    line = text.strip()
    if line and line[0] not in "/／":
        line = "/" + line
    return Incoming(
        platform="console",
        chat_id="local",
        user_id="local",
        text=line,
        lang_hint=os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG"),
        chat_kind="private",
        user_is_admin=True,
        display_name=None,
    )


class ConsoleSession:
    """One console chat: remembers which stored cast was shown last (its number), so that a page's number
    or name shows that page of it."""

    def __init__(self, ctx: AppContext, files_dir: Path | None = None) -> None:
        self.ctx = ctx
        self.last: tuple[int, str] | None = None  # (history number, view) of the last stored cast shown
        self.files_dir = files_dir  # where a reply's files (/export) are written; None: the working directory
        self.shared: str | None = None  # the share token of that cast, when it was a shared reading
        self.page: str | None = None  # the page of it shown last (a topic page, or a page read for a topic)

    def page_named(self, line: str) -> str | None:
        if self.last is None:
            return None
        word = line.strip().lower()
        choices = pages_of(self.last[1])
        in_view = page_topic(self.last[1], self.page)[1]  # the topic the user turned to, if any (issue 32)
        if word.isdigit() and 1 <= int(word) <= len(choices):
            return on_topic(self.last[1], choices[int(word) - 1], in_view)
        for page in choices:
            label = gettext(self.ctx.settings.lang, msgid("chat.page", f"{self.last[1]}.{page}"))
            names = {page, *label.lower().split()}
            for lang in ("ko", "lzh"):
                names.update(gettext(lang, msgid("chat.page", f"{self.last[1]}.{page}")).lower().split())
            if word in names:
                return on_topic(self.last[1], page, in_view)
        for topic in topic_pages(self.last[1]):  # issue 32: a topic's name reads the same cast for it
            if word in {gettext(lang, topic.label_msgid).lower() for lang in ("ko", "lzh")}:
                return topic.name
        if self.names_command(console_incoming(line)):
            return None  # a command typed without its /
        # any word naming a topic (돈, 婚姻, 財) or a 類神 heading (천문), read as /cast reads it
        return topic_named(self.last[1], line.strip())

    async def answer(self, line: str) -> str:
        """The console text answering one input line: a page of the cast shown last (its number or name), a
        command (with or without its ``/``), a question in one's own words (the command answering it:
        ``bot.features.question``), else — a bare word that names no command — the one-line hint,
        as a private chat answers plain text (never an echo of it as an unknown command)."""
        page = self.page_named(line)
        # a question in one's own words (「오늘 재물운 어때?」): the command answering it (bot.features.question);
        # one Korean word with a cast in view, close to its topics (재물운세), stays a topic of that cast (issue 32);
        # 文言 is written without spaces, so one run of Hanja (婚姻成否) is a sentence: a new question
        asked = console_question(line) if page is None else None
        word = len(line.split()) == 1 and any(map(is_syllable, line))
        if asked is not None and self.last is not None and word:
            asked = None if topic_unknown(self.last[1], line.strip()) is not None else asked
        incoming = console_incoming(asked or line)
        if (
            page is None
            and line.strip()
            and line.strip()[0] not in "/／"
            and not self.names_command(incoming)
        ):
            lang = await resolve_lang(incoming, self.ctx)
            # a word close to the topics of the cast in view but naming none: the closest, as /cast answers it
            choose = topic_unknown(self.last[1], line.strip()) if self.last is not None else None
            if choose is not None:
                return shown_text(present(replace(choose, lang=lang), "console", incoming.user_id))
            return gettext(lang, "chat.hint")
        if page is not None and self.last is not None:
            lang = await resolve_lang(incoming, self.ctx)
            if self.shared is not None:  # a shared reading's page: while its link lives
                opened = await action_buttons.load_shared(self.shared, lang, self.ctx)
                if isinstance(opened, str):  # revoked, or the cast is gone
                    self.last = self.shared = None
                    return gettext(lang, opened)
                return shown_text(present(opened, "console", incoming.user_id, page))
            ref = pages.PageRef(incoming.user_id, self.last[0], page)
            stored = await pages.load("console", ref, lang, "full", self.ctx)  # its own cast, read alone
            if isinstance(stored, str):
                self.last = None
                return gettext(lang, stored)
            self.page = page
            return shown_text(present(stored, "console", incoming.user_id, page))
        reply: Reply = await dispatch(incoming, self.ctx)
        shown = present(reply, "console", incoming.user_id)
        number = reply.context.get("no")
        # the pages a number or name shows next are this reply's, or none: a reply that is no stored cast
        # (an unsaved /qizheng, /help …) leaves nothing to page through
        self.last = (number, reply.view) if shown.page is not None and isinstance(number, int) else None
        self.page = shown.page
        token = reply.context.get("shared")  # a shared reading (/start <token>): its pages by its token
        self.shared = token if self.last is not None and isinstance(token, str) else None
        saved = [
            gettext(reply.lang, "chat.file_saved", path=str(self.save(f))) for f in reply.files
        ]  # the console's user is the machine's: its files go to a directory of it
        return "\n".join([shown_text(shown), *saved])

    def save(self, attachment: Attachment) -> Path:
        """Write a reply's file under a new name (``name.json``, ``name-2.json`` …): nothing is overwritten."""
        folder = self.files_dir or Path.cwd()
        stem, dot, suffix = attachment.filename.partition(".")
        for n in range(1, 1000):
            path = folder / (attachment.filename if n == 1 else f"{stem}-{n}{dot}{suffix}")
            try:
                with path.open("xb") as out:
                    out.write(attachment.data)
            except FileExistsError:
                continue
            return path
        raise FileExistsError(folder / attachment.filename)

    @staticmethod
    def names_command(incoming: Incoming) -> bool:
        """Whether the line's first word is a command's name or alias (typed without its ``/``)."""
        split = split_command(incoming.text)
        return split is not None and lookup(split[0]) is not None


def shown_text(shown: Message) -> str:
    """A message as the console prints it: its text, then the line naming the other pages (if any)."""
    return shown.text if shown.hint is None else shown.text + "\n\n" + shown.hint


async def answer(line: str, ctx: AppContext) -> str:
    """The console text answering one input line (a session of its own: no page to go back to)."""
    return await ConsoleSession(ctx).answer(line)


async def run_console(
    ctx: AppContext,
    stop: asyncio.Event,
    io: tuple[LineSource, TextIO] | None = None,
) -> None:
    """Chat on stdin/stdout (or ``io`` = (line source, writer)) until end of input or ``stop``."""
    source: LineSource
    if io is None:
        fd_source = FdLineSource(sys.stdin.fileno())
        source, out = fd_source, sys.stdout
    else:
        fd_source = None
        source, out = io
    session = ConsoleSession(ctx)
    lang = await resolve_lang(console_incoming("/start"), ctx)
    out.write(present(Reply("console_welcome", lang, {}), "console").text + "\n" + PROMPT)
    out.flush()
    stop_wait = asyncio.ensure_future(stop.wait())
    try:
        while not stop.is_set():
            read = asyncio.ensure_future(source.readline())
            done, _ = await asyncio.wait({read, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
            if read not in done:
                read.cancel()
                break
            line = read.result()
            if line is None:
                out.write("\n")
                out.flush()
                break
            if not line.strip():
                out.write(PROMPT)
                out.flush()
                continue
            if line.strip().lower() in QUIT_WORDS:
                break
            text = await session.answer(line)
            out.write(text + "\n\n" + PROMPT)
            out.flush()
    finally:
        stop_wait.cancel()
        if fd_source is not None:
            fd_source.close()
