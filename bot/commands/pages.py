"""Pages of a stored cast (issue #13): what a button names and how a page is loaded again.

A button names the stored history row (its owner and number) and the page, never process memory, so it works
after a restart and on any worker: ``p:<owner user id>:<number>:<page>`` (Telegram ``callback_data`` and
Discord ``custom_id``), sealed by the adapter for the chat and audience it is sent to (:mod:`bot.seal`: the
whole data at most 64 bytes, Telegram's limit). :func:`access` decides what a press may show: in the chat the
cast was answered in, anyone who saw it may browse its pages, as a group may see them
(:func:`bot.privacy.public_context`, an allow-list per view); a cast answered to one person (a private chat,
an ephemeral reply) only to that person; anything else — a button from another chat, a forged or changed
one, an unsealed (old) button pressed by someone other than its owner — shows nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from bot import privacy
from bot.context import AppContext
from bot.features.base import Reply, ask_topic, is_page, on_topic, pages_of, topic_pages
from bot.features.common import replay
from bot.i18n import N_
from bot.seal import INNER_LIMIT, LEGACY, OWN, PUBLIC, Status

DATA_LIMIT = INNER_LIMIT  # bytes of the data before its seal (with it: Telegram's 64)
Access = Literal["public", "full"]
_DATA = re.compile(r"^p:([^:\s]{1,40}):(\d{1,9}):([a-z]{1,8}(?:\.[a-z]{1,8})?)$")  # page[.topic]


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


def refs(view: str, owner: str, number: int, topic: str | None = None) -> list[PageRef]:
    """One reference per page of ``view`` (empty for a one-page view), each but the first read for the topic
    page ``topic`` when one is in view (:func:`bot.features.base.on_topic`)."""
    return [PageRef(owner, number, on_topic(view, page, topic)) for page in pages_of(view)]


def topic_refs(view: str, owner: str, number: int) -> list[tuple[PageRef, str]]:
    """(reference, label message id) of each topic page of ``view`` (``Stored.topics``; issue 32)."""
    return [(PageRef(owner, number, p.name), p.label_msgid) for p in topic_pages(view)]


def access(status: Status, ref: PageRef, presser: str, chat_kind: str) -> Access | None:
    """What a press of the page button ``ref`` (its seal's ``status``, :meth:`bot.seal.ButtonSeal.open`) by
    ``presser`` in a chat of ``chat_kind`` may show: ``"public"`` (what a group may see of the cast),
    ``"full"`` (the whole cast: its owner, where only they read it) or None (nothing: the button has expired)."""
    if status == PUBLIC:  # sealed for everyone in this chat: the message was answered to this chat
        return "full" if chat_kind == "private" and presser == ref.owner else "public"
    if status == OWN:  # sealed for the presser alone: their own private or ephemeral reply
        return "full" if presser == ref.owner else None
    if status == LEGACY and presser == ref.owner:  # an unsealed button from before seals: its owner only
        return "public" if chat_kind != "private" else "full"
    return None


async def load(platform: str, ref: PageRef, lang: str, shown: Access, ctx: AppContext) -> Reply | str:
    """The stored cast ``ref`` names, as a reply in ``lang`` (the reader's language), all of it or (``shown``
    ``"public"``) what a group may see of it; else the message id of the presser's notice: the row is gone
    (forgotten or pruned, or no longer castable) or the page is not one of its view (``chat.page.gone``), or a
    group may not see that view at all (``chat.button.expired``). The reply carries the picture of the same
    cast (``Reply.picture``): a page that puts the picture back draws it from there."""
    entry = await ctx.storage.get_history(f"{platform}:{ref.owner}", ref.number)
    if entry is None or not is_page(entry.view, ref.page):
        return N_("chat.page.gone")
    asked = ask_topic(entry.view, entry.inputs, ref.page)
    # a topic button, or a page of the topic in view (basis.hun): the same row read for that topic (nothing
    # stored nor cast anew)
    if asked is not None:
        entry = replace(entry, inputs=asked)
    reply = replay(entry, lang)  # one cast of the row: the page's text and its picture
    if reply is None:
        return N_("chat.page.gone")
    if shown != "full":
        public = privacy.public_context(entry.view, reply.context)
        if public is None:
            return N_("chat.button.expired")
        reply = replace(reply, context=dict(public))
    return reply


__all__ = ["DATA_LIMIT", "Access", "PageRef", "access", "decode", "load", "refs", "topic_refs"]
