"""The topic buttons of a stored cast (issue 32 item 3): 재물 · 혼인 · 질병 · 소송 · 직장 · 출행 · 실물 · 가택 under a
``/cast`` reply, each re-reading the SAME stored row for its topic (``bot.features.base.Topics``).

A topic button is a page button (:mod:`bot.commands.pages`: ``p:<owner>:<number>:<topic page>``, sealed by the
adapter as every page button is), so its press is checked, loaded and shown as a page's: the row's first page
rendered from the row's inputs asking that topic — nothing is cast anew from the clock and no history row is
added. The rows come after the page buttons; the one shown is marked as the current page is. While a topic is
in view, the other page buttons read the row for it too (``basis.hun``: the 근거 of 婚姻), so the 근거 page lists
the topic the user turned to; the first page's button goes back to the cast as asked.
"""

from __future__ import annotations

from bot.commands import pages
from bot.commands.setting_buttons import Button
from bot.features.base import Reply, page_topic
from bot.i18n import gettext

PER_ROW = 4  # Telegram shares a row's width among its buttons: four short topic names fit a phone


def rows(
    reply: Reply, owner: str, current: str | None, mark: str, per_row: int = PER_ROW
) -> list[tuple[Button, ...]]:
    """Rows of topic buttons of the stored cast ``reply`` shows (empty: none, or a button's data would not
    fit), the label of ``current`` (the page shown) after ``mark`` (``bot.presentation.CURRENT``)."""
    number = reply.context.get("no")
    if not isinstance(number, int) or reply.context.get("shared"):
        return []  # a shared reading (/start <token>) has the pages of its link, never the owner's rows
    buttons: list[Button] = []
    current = page_topic(reply.view, current)[1]  # the topic in view: its own page, or a page read for it
    for ref, label_msgid in pages.topic_refs(reply.view, owner, number):
        data = ref.encode()
        if data is None:
            return []
        buttons.append(
            Button(
                (mark if ref.page == current else "") + gettext(reply.lang, label_msgid),
                data,
                ref.page == current,
            )
        )
    return [tuple(buttons[i : i + per_row]) for i in range(0, len(buttons), per_row)]


__all__ = ["PER_ROW", "rows"]
