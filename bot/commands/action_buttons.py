"""The actions under a reading (issue #34 items 2, 3 and 5), in one row of their own below its pages, and
the pages of a shared reading.

Each action is a command line, as a word button is (:mod:`bot.commands.word_buttons`: ``w:<line>``, run as
the presser typed it and answered as the typed line would be), so a press is validated and refused exactly
as the typed command:

- 다시 점치기 (再筮): the same question, now — ``/cast now <topic>``, ``/liuyao <question>`` (a 大六壬 or
  六爻 reading): a new cast, in the presser's own history;
- 다른 질문 (他問): ``/ask <art>``, the topics to choose from;
- 공유 (分享): ``/share N``, the owner's link to the reading (a cast a group may see something of);
- 기록 (記): ``/note N held|missed|partly`` — the journal's verdict, one button each (○ ✕ △).

``/share`` and ``/note`` lines are the owner's (:func:`owner_only`): sealed for the owner alone even where
everyone reads the message (:func:`bot.presentation.sealed`), so anyone else's press opens as forged and
writes nothing — the adapters answer it ``chat.action.not_yours``. A ``/note`` press is answered to the
presser alone (:func:`quiet`: Telegram's callback notice, Discord's ephemeral reply), never to the chat.

A shared reading's page buttons name the share token, not the owner: ``v:<token>:<page>`` (:class:`SharedPage`),
so a revoked link stops its pages too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from bot.commands import word_buttons
from bot.commands.setting_buttons import DATA_LIMIT, Button
from bot.features.base import CommandError, Reply, pages_of
from bot.features.share.command import ASKING, shareable, shared_reply
from bot.i18n import N_, gettext
from bot.msgids import msgid
from bot.storage.notes import OUTCOMES

if TYPE_CHECKING:
    from bot.context import AppContext

OWNER_COMMANDS = ("/share", "/note")
_SHARED = re.compile(r"^v:([A-Za-z0-9_-]{22}):([a-z]{1,8})(?::(\d))?$")


def again_line(reply: Reply, *, shown: bool = False) -> str | None:
    """The line that asks ``reply``'s question again, now (None: a reading that is not asked about a topic
    now — 神煞, 七政四餘): the topic by its id (a button's data), or ``shown``, by its name in the reader's
    language (the line to type, which names the same topic)."""
    if reply.view not in ASKING:
        return None
    _, head = ASKING[reply.view]
    context: Mapping[str, Any] = reply.context
    asked = context.get("asked")
    target = asked.get("target") if isinstance(asked, Mapping) else None
    if shown and isinstance(asked, Mapping) and target is not None:
        target = asked.get("lzh" if reply.lang == "lzh" else "ko") or target
    if target is None and reply.view == "cast":
        target = context.get("category")  # a 類神 heading asked by name
    return f"{head} {target}" if isinstance(target, str) and target else head


def ask_line(reply: Reply) -> str | None:
    return f"/ask {reply.view}" if reply.view in ASKING else None


def rows(reply: Reply) -> list[list[Button]]:
    """The action rows of a stored cast's reply (its number in ``no``): empty for a shared reading and for
    any other reply. One row: again · another question · share; one row: the journal's verdicts."""
    number = reply.context.get("no")
    if not isinstance(number, int) or reply.context.get("shared") or not pages_of(reply.view):
        return []
    lang = reply.lang
    first: list[Button] = []
    for line, label in (
        (again_line(reply), N_("chat.action.again")),
        (ask_line(reply), N_("chat.action.ask")),
        (f"/share {number}" if shareable(reply.view) else None, N_("chat.action.share")),
    ):
        data = word_buttons.encode(line) if line is not None else None
        if data is not None:
            first.append(Button(gettext(lang, label), data))
    verdicts: list[Button] = []
    for outcome in OUTCOMES:
        data = word_buttons.encode(f"/note {number} {outcome}")
        if data is not None:
            mark = gettext(lang, msgid("bot.note.mark", outcome))
            verdicts.append(Button(f"{mark} {gettext(lang, msgid('bot.note.outcome', outcome))}", data))
    return [row for row in (first, verdicts) if row]


def share_rows(reply: Reply) -> list[list[Button]]:
    """The button under a ``/share N`` reply that made a link: turn it off (``/share N off``, the owner's)."""
    number = reply.context.get("no")
    if reply.view != "share" or not reply.context.get("token") or not isinstance(number, int):
        return []
    data = word_buttons.encode(f"/share {number} off")
    return [[Button(gettext(reply.lang, "chat.action.unshare"), data)]] if data is not None else []


def owner_only(data: str) -> bool:
    """Is this button (data without its seal) the owner's alone (a ``/share`` or ``/note`` line)?"""
    line = word_buttons.decode(data)
    return line is not None and line.split(" ", 1)[0] in OWNER_COMMANDS


def quiet(line: str) -> bool:
    """Is a pressed line answered to the presser alone, as a notice (a journal verdict)?"""
    return line.split(" ", 1)[0] == "/note"


def hint(reply: Reply) -> str | None:
    """The console's line of the actions, as the lines to type (the topic by its name)."""
    if not rows(reply):
        return None
    number = reply.context["no"]
    typed = (
        (again_line(reply, shown=True), N_("chat.action.again")),
        (ask_line(reply), N_("chat.action.ask")),
        (f"/share {number}" if shareable(reply.view) else None, N_("chat.action.share")),
    )
    lines = [f"{gettext(reply.lang, label)} {line}" for line, label in typed if line is not None]
    lines.append(gettext(reply.lang, "chat.action.note_hint", no=number))
    return " · ".join(lines)


@dataclass(frozen=True)
class SharedPage:
    """A page of a shared reading (``v:<token>:<page>``), or a caption part of it on a photo message
    (``v:<token>:<page>:<part>``, as :func:`bot.presentation.encode_part` for a cast's own pages)."""

    token: str
    page: str
    part: int = 0

    def encode(self) -> str | None:
        data = f"v:{self.token}:{self.page}" + (f":{self.part}" if self.part else "")
        return data if len(data.encode()) <= DATA_LIMIT and _SHARED.match(data) else None


def decode_shared(data: str | None) -> SharedPage | None:
    m = _SHARED.match(data or "")
    return SharedPage(m.group(1), m.group(2), int(m.group(3) or 0)) if m is not None else None


async def load_shared(token: str, lang: str, ctx: AppContext) -> Reply | str:
    """The shared reading ``token`` names, in ``lang`` (what a group may see of it), or the message id of
    the notice: the link is unknown, revoked, or its cast is gone (``bot.error.share_gone``)."""
    try:
        opened = await shared_reply(token, ctx)
    except CommandError as err:
        return err.code
    return replace(opened, lang=lang)


__all__ = [
    "OWNER_COMMANDS",
    "SharedPage",
    "again_line",
    "ask_line",
    "decode_shared",
    "hint",
    "load_shared",
    "owner_only",
    "quiet",
    "rows",
    "share_rows",
]
