"""Pages of a stored cast (issue #13): what a button names and how a page is loaded again.

A button names the stored history row (its owner and number) and the page, never process memory, so it works
after a restart and on any worker: ``p:<owner user id>:<number>:<page>`` (Telegram ``callback_data`` and
Discord ``custom_id``; at most 64 bytes, Telegram's limit). Anyone who sees the cast may browse its pages
(the owner's row is read, never written); in a chat that others read the saved coordinates are left out
(:func:`bot.privacy.public_context`), as for the first reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot import privacy
from bot.context import AppContext
from bot.features.base import Reply, pages_of
from bot.features.common import replay

DATA_LIMIT = 64  # bytes: Telegram's callback_data (Discord's custom_id allows 100)
_DATA = re.compile(r"^p:([^:\s]{1,40}):(\d{1,9}):([a-z]{1,8})$")


@dataclass(frozen=True)
class PageRef:
    owner: str  # the platform user id of the history row's owner (``Incoming.user_id``)
    number: int  # the row's number (``HistoryEntry.seq``)
    page: str

    def encode(self) -> str | None:
        """The button data, or None when it would not fit (then no button is offered)."""
        data = f"p:{self.owner}:{self.number}:{self.page}"
        return data if len(data.encode()) <= DATA_LIMIT and _DATA.match(data) else None


def decode(data: str | None) -> PageRef | None:
    """The page a button names, or None for data that is not ours."""
    m = _DATA.match(data or "")
    if m is None:
        return None
    return PageRef(owner=m.group(1), number=int(m.group(2)), page=m.group(3))


def refs(view: str, owner: str, number: int) -> list[PageRef]:
    """One reference per page of ``view`` (empty for a one-page view)."""
    return [PageRef(owner, number, page) for page in pages_of(view)]


async def load(platform: str, ref: PageRef, lang: str, chat_kind: str, ctx: AppContext) -> Reply | None:
    """The stored cast ``ref`` names, as a reply in ``lang`` (the reader's language); None when the row is
    gone (forgotten or pruned, or no longer castable) or the page is not one of its view. The reply carries the
    picture of the same cast (``Reply.picture``): a page that puts the picture back draws it from there."""
    entry = await ctx.storage.get_history(f"{platform}:{ref.owner}", ref.number)
    if entry is None or ref.page not in pages_of(entry.view):
        return None
    shown = replay(entry, lang)  # one cast of the row: the page's text and its picture
    if shown is None:
        return None
    if chat_kind != "private":
        shown = replace(shown, context=privacy.public_context(shown.context))
    return shown


__all__ = ["DATA_LIMIT", "PageRef", "decode", "load", "refs"]
