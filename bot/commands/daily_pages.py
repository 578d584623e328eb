"""Pages of a delivered daily reading (issue 32 item 4): the buttons under the message the scheduler sends.

A delivered reading is no history row (nobody asked for it), so its buttons cannot name one. They name the
local date instead — ``d:<YYYYMMDD>:<page>`` — and a press shows that page of the reading of that date of the
subscription of the chat it is pressed in: the reading is a function of the subscription's moment
(:func:`bot.features.daily.reading.subscription_moment`; the delivered row's due instant when there is one), so
the page is the one of the very reading that was sent. The data is sealed by the adapter for the chat the
message went to (:mod:`bot.seal`: for everyone in a group or channel, for the one subscriber in a private chat),
so a button copied to another chat, or forged, shows nothing. The reading is the chat's own — the day's 課, its
神煞 and the topic the chat's subscription chose — and holds nothing of a person: a group member who presses
sees what the whole group was sent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from bot.context import AppContext
from bot.features.base import Reply, pages_of
from bot.features.daily.reading import daily_context, subscription_moment
from bot.i18n import N_
from bot.schedule_time import due_instant
from bot.seal import OWN, PUBLIC, Status
from bot.storage import DailyStore

VIEW = "daily"
_DATA = re.compile(r"^d:(\d{8}):([a-z]{1,8})(?::(\d))?$")


@dataclass(frozen=True)
class DayRef:
    day: date  # the subscriber's local date of the reading
    page: str
    part: int = 0  # the caption-sized part of the page shown on a photo message (Telegram)

    def encode(self) -> str:
        data = f"d:{self.day.strftime('%Y%m%d')}:{self.page}"
        return data if self.part == 0 else f"{data}:{self.part}"


def decode(data: str | None) -> DayRef | None:
    """The page a daily button names, or None for data that is not one."""
    m = _DATA.match(data or "")
    if m is None or m.group(2) not in pages_of(VIEW):
        return None
    try:
        day = date(int(m.group(1)[:4]), int(m.group(1)[4:6]), int(m.group(1)[6:]))
    except ValueError:
        return None
    return DayRef(day, m.group(2), int(m.group(3) or 0))


def refs(day: date) -> list[DayRef]:
    """One reference per page of a daily reading."""
    return [DayRef(day, page) for page in pages_of(VIEW)]


def allowed(status: Status) -> bool:
    """A press shows a page only when the button was sealed here: for everyone in this chat, or for the presser
    (an unsealed or forged one shows nothing)."""
    return status in (PUBLIC, OWN)


async def load(platform: str, chat_id: str, ref: DayRef, ctx: AppContext) -> Reply | str:
    """The reading ``ref`` names, of the chat's subscription, in the subscription's language (the message's);
    else the message id of the presser's notice (the subscription is gone: ``chat.page.gone``)."""
    store = DailyStore(ctx.storage)
    sub = await store.for_chat(platform, chat_id)
    if sub is None:
        return N_("chat.page.gone")
    delivered = await store.delivery(sub.id, ref.day)
    due = delivered.due_at if delivered is not None else due_instant(ref.day, sub.at_time, sub.zone)
    context = daily_context(subscription_moment(sub, due))
    return Reply(view=VIEW, lang=sub.lang, context=context)


__all__ = ["VIEW", "DayRef", "allowed", "decode", "load", "refs"]
