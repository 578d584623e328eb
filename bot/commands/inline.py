"""An inline query's line as a command (issue #34 item 1): what ``@bot 庚辰 8`` typed in any chat casts.

The query is a command line without its ``/``: its first word names the command (``육효`` / ``六爻`` →
``/liuyao``, ``신살 甲子`` → ``/shensha 甲子``, any name or alias of the registry, :func:`bot.features.base.lookup`);
a line whose first word names none is a ``/cast`` line (``庚辰 8``, ``now 재물``: :data:`DEFAULT_COMMAND`).
The line is then run by :func:`bot.commands.dispatch` as an *anonymous* request
(:attr:`bot.features.base.Incoming.anonymous`): the command's own parser reads it (the same words, topics of
``engine.lexicon``, errors and suggestions as a typed command), only a cast anyone may see runs
(:func:`bot.privacy.public_cast`), it sees none of the caller's saved settings but the language, and nothing is
stored. Transport-free: the Telegram adapter (``bot/telegram/inline.py``) turns the answer into results.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, replace
from datetime import datetime

from bot.commands import Incoming, Reply, dispatch, lookup, split_command
from bot.context import AppContext, Clock

DEFAULT_COMMAND = "cast"  # a line whose first word names no command: 大六壬 (``庚辰 8``, ``now 재물``)
QUERY_LIMIT = 256  # characters of a query read (the Bot API's own limit for inline queries)


@dataclass(frozen=True)
class InlineCast:
    """The answer to one inline query's line."""

    command: str  # the name of the command that answered (``cast``), as the registry has it
    line: str  # the command line that was run (``/cast 庚辰 8``)
    reply: Reply  # its reply: a cast without a number, an ``error`` or a ``choose`` (closest words)
    moment: bool  # the answer was cast for the moment or by chance (the clock was read): it changes


def line_of(query: str) -> tuple[str, str] | None:
    """(the command's name, the command line) of an inline query; None for an empty one."""
    text = unicodedata.normalize("NFKC", query[:QUERY_LIMIT]).strip()
    if not text:
        return None
    parsed = split_command(text if text[0] == "/" else "/" + text)
    if parsed is None:  # a bare "/"
        return None
    name, args = parsed
    spec = lookup(name)
    if spec is None:
        return DEFAULT_COMMAND, " ".join(("/" + DEFAULT_COMMAND, name, *args))
    return spec.name, " ".join(("/" + name, *args))


class _Watched:
    """A clock that notes whether it was read: a command that reads it casts for the moment (or by chance)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.read = False

    async def now(self) -> datetime:
        self.read = True
        return await self.clock.now()

    async def sleep_until(self, instant: datetime) -> None:
        await self.clock.sleep_until(instant)


async def cast(query: str, incoming: Incoming, ctx: AppContext) -> InlineCast | None:
    """Run an inline query's line for ``incoming`` (its platform, user and language hint) as an anonymous
    request; None for an empty query."""
    found = line_of(query)
    if found is None:
        return None
    name, line = found
    clock = _Watched(ctx.clock)
    reply = await dispatch(
        replace(incoming, text=line, anonymous=True, chat_kind="inline"), replace(ctx, clock=clock)
    )
    return InlineCast(name, line, reply, clock.read)


__all__ = ["DEFAULT_COMMAND", "InlineCast", "cast", "line_of"]
