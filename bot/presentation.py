"""One presentation step: a :class:`~bot.commands.Reply` becomes a channel :class:`Message` (issue #31).

:func:`present` decides, once for every adapter, what a reply looks like in a channel ("telegram" |
"discord" | "console") before anything is sent: the page a numbered cast opens on (its command's first page,
``bot.features.base.first_page``), its text (``bot.views.render``), its buttons (the pages of the stored cast,
the choices of ``/settings``) as transport-neutral :class:`~bot.commands.setting_buttons.Button` rows, its
picture (``bot.pictures.render`` of the reply's picture source), the Telegram photo caption (the whole reply
when it fits, else its head; a page on a photo message in caption-sized parts, one button each), the Discord
embed's title, description and footer, and the console's line naming the other pages. The adapters only
transport: Telegram turns the buttons into an ``InlineKeyboardMarkup``, Discord into a ``ui.View`` and an
embed, the console prints the text and the hint. The daily readings keep their shared texts
(:class:`bot.daily.DailyRenderer`) and take their caption and picture from :func:`daily_message`.

Button data is the same for both platforms: ``p:<owner>:<number>:<page>`` (:class:`bot.commands.pages.PageRef`)
and, for a part of a page on a photo message, ``c:<owner>:<number>:<page>:<part>`` (:func:`encode_part`); a
shared reading's pages ``v:<token>:<page>``; a reading's actions (again, another question, share, the
journal's verdicts) in rows of their own below the pages (:mod:`bot.commands.action_buttons`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace
from datetime import date

from bot import pictures
from bot.commands import (
    Incoming,
    action_buttons,
    daily_pages,
    pages,
    setting_buttons,
    topic_buttons,
    word_buttons,
)
from bot.commands.setting_buttons import Button
from bot.features.base import Reply, page_topic, topic_pages
from bot.i18n import gettext
from bot.msgids import msgid
from bot.seal import EVERYONE, ButtonSeal
from bot.sending import (
    DISCORD_EMBED_DESCRIPTION_LIMIT,
    TELEGRAM_CAPTION_LIMIT,
    fit_caption,
    split_telegram_html,
    visible_len,
)
from bot.views import first_page, page_title, pages_of, picture_alt, render

CHANNELS = ("telegram", "discord", "console")
SHORT_CAPTION = 200  # visible characters of a photo's caption when the reply does not fit one
MAX_PARTS = 8  # caption parts of one page that get a button (a 4,096-character page has at most 4–5)
EMBED_TITLE_LIMIT = 256
DISCORD_MESSAGE_LIMIT = 2000  # a Discord message's content
EMBED_FOOTER_LIMIT = 2048
BUTTON_LABEL_LIMIT = 80  # a Discord button's label
_PART = re.compile(r"^c:([^:\s]{1,40}):(\d{1,9}):([a-z]{1,8}(?:\.[a-z]{1,8})?):(\d)$")

Rows = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True)
class Message:
    """A reply as one channel shows it, before transport.

    ``text``: the message text (Telegram HTML, Discord markdown — an embed's description when ``title`` is
    set —, console text); "" when a Telegram photo's caption holds the whole reply. ``buttons``: rows of
    buttons (label, data, whether it is the current choice). ``picture``: the PNG sent with the message.
    ``caption``: the Telegram photo caption. ``title``/``footer``: the Discord embed's. ``hint``: the console's
    line naming the other pages. ``picture_page``: a page edit on a message that may lack the picture must put
    it back (Telegram: the picture's own page, fitting a caption — ``caption`` is then the page; Discord: any
    page of a cast with a picture). ``alt``: the picture's description (its alt text on Discord), set
    wherever a picture is sent or put back."""

    channel: str
    text: str
    page: str | None = None
    buttons: Rows = ()
    picture: bytes | None = None
    caption: str | None = None
    title: str | None = None
    footer: str | None = None
    hint: str | None = None
    picture_page: bool = False
    alt: str | None = None  # what the picture draws (Discord: the attachment's description, its alt text)


def present(
    reply: Reply,
    channel: str,
    owner: str = "",
    page: str | None = None,
    *,
    paged: bool = True,
    edit: bool = False,
    on_photo: bool = False,
    part: int = 0,
    picture: bool = True,
) -> Message:
    """``reply`` as ``channel`` shows it; ``owner`` the user id its page buttons name (``Incoming.user_id``).

    ``page``: the page of a stored cast to show (None: a numbered cast opens on its first page, unless
    ``paged`` is False — the whole view, as Discord's prefix commands answer). ``edit``: the message replaces
    one sent before (a page button, a ``/settings`` choice): one message (Telegram: cut to fit, with a note),
    no new picture drawn. ``on_photo``/``part``: a Telegram edit of a photo message, showing caption part
    ``part`` of the page. ``picture``: False for a channel that sends the reply without its picture (no
    picture is drawn)."""
    numbered = isinstance(reply.context.get("no"), int)
    if page is None and paged and numbered:
        page = first_page(reply.view)
    png = pictures.render(reply.picture, reply.lang) if picture and not edit else None
    if channel == "telegram":
        return _telegram(reply, owner, page, png, edit=edit, on_photo=on_photo, part=part)
    if channel == "discord":
        return _discord(reply, owner, page, png, edit=edit)
    if channel == "console":
        text = render(reply, "console", page=page)
        hint = page_hint(reply, page) if page is not None else None
        actions = action_buttons.hint(reply)
        if hint is not None and actions is not None:
            hint += "\n" + actions
        return Message("console", text, page, hint=hint)
    raise ValueError(f"unknown channel {channel!r}; expected one of {CHANNELS}")


def _telegram(
    reply: Reply, owner: str, page: str | None, png: bytes | None, *, edit: bool, on_photo: bool, part: int
) -> Message:
    body = render(reply, "telegram", page=page)
    if not edit:
        caption = None if png is None else photo_caption(body)
        return Message(
            "telegram",
            "" if caption == body else body,  # the reply is the caption: one message
            page,
            keyboard(reply, owner, page),
            png,
            caption,
        )
    body = fit_page(body, reply.lang)
    if on_photo and page is not None:
        # the picture stays: only the caption changes; a page longer than a caption is shown in
        # caption-sized parts, one button each
        parts = caption_parts(body)
        shown = min(part, len(parts) - 1)
        buttons = keyboard(reply, owner, page, parts=len(parts), part=shown)
        return Message("telegram", "", page, buttons, caption=parts[shown])
    restores = (
        page is not None
        and pictures.PICTURE_PAGES.get(reply.view) == page
        and visible_len(body) <= TELEGRAM_CAPTION_LIMIT
    )
    return Message(
        "telegram",
        body,
        page,
        keyboard(reply, owner, page),
        caption=body if restores else None,
        picture_page=restores,
    )


def _discord(reply: Reply, owner: str, page: str | None, png: bytes | None, *, edit: bool) -> Message:
    alt = picture_alt(reply) if png is not None or (edit and reply.view in pictures.PICTURE_PAGES) else None
    if page is None:  # not a stored cast's page: the text, and the /settings choices if any
        rows = tuple(tuple(row[:5]) for row in choice_buttons(reply, owner)[:5])
        return Message("discord", render(reply, "discord"), None, rows, png, alt=alt)
    body = render(reply, "discord", page=page)
    lines = body.split("\n", 1)  # every page template opens with its title line; the embed has a title
    description = lines[1].strip("\n") if len(lines) > 1 else body
    if len(description) > DISCORD_EMBED_DESCRIPTION_LIMIT:
        note = "\n" + gettext(reply.lang, "chat.page.more")
        cut = description[: DISCORD_EMBED_DESCRIPTION_LIMIT - len(note)]
        description = cut[: cut.rfind("\n")] + note if "\n" in cut else cut + note
    title, footer = page_title(reply)
    shown = page_topic(reply.view, page)[0]
    buttons = tuple(
        Button(
            gettext(reply.lang, msgid("chat.page", f"{reply.view}.{name}"))[:BUTTON_LABEL_LIMIT],
            data,
            name == shown,
        )
        for name, data in page_data(reply, owner, page)
        if data is not None
    )
    actions = tuple(
        tuple(replace(b, label=b.label[:BUTTON_LABEL_LIMIT]) for b in row[:5])
        for row in action_buttons.rows(reply)
    )
    # the topic buttons (issue 32), rows of four after the pages' (Discord: five rows of five at most)
    topics = tuple(topic_buttons.rows(reply, owner, page, "")[:4])
    return Message(
        "discord",
        description or "…",
        page,
        (((buttons,) if buttons else ()) + topics + actions)[:5],  # Discord: five rows at most
        png,
        title=title[:EMBED_TITLE_LIMIT],
        footer=footer[:EMBED_FOOTER_LIMIT] or None,
        picture_page=reply.view in pictures.PICTURE_PAGES,
        alt=alt,
    )


CURRENT = "• "  # the label's mark of the button whose page (or part) the message shows


def choice_buttons(reply: Reply, owner: str) -> list[list[Button]]:
    """The choices under a reply that is not a stored cast's page: a ``/settings`` reply's
    (:mod:`bot.commands.setting_buttons`), a ``choose`` reply's (:mod:`bot.commands.word_buttons`) or a
    ``/share`` link's (turn it off, :func:`bot.commands.action_buttons.share_rows`)."""
    return (
        setting_buttons.buttons(reply, owner)
        or word_buttons.buttons(reply)
        or action_buttons.share_rows(reply)
    )


def keyboard(reply: Reply, owner: str, current: str | None, *, parts: int = 1, part: int = 0) -> Rows:
    """Telegram's buttons: one per page of the stored cast ``reply`` shows (the current one marked ``• ``);
    when the current page is shown in ``parts`` caption-sized parts (a photo message), a second row with one
    button per part (the shown one, ``part``, marked); then the topic buttons of the cast, if its command has
    them (:mod:`bot.commands.topic_buttons`, rows of four); below them the reading's actions
    (:func:`bot.commands.action_buttons.rows`); the choices of a ``/settings`` reply
    (:mod:`bot.commands.setting_buttons`). Empty when a page's data would not fit (then no page buttons)."""
    if reply.view in ("settings", "choose", "share"):
        return tuple(tuple(row) for row in choice_buttons(reply, owner))
    number = reply.context.get("no")
    if not isinstance(number, int):
        return ()
    buttons: list[Button] = []
    shown = page_topic(reply.view, current)[0]
    for name, data in page_data(reply, owner, current):
        if data is None:
            return ()
        label = gettext(reply.lang, msgid("chat.page", f"{reply.view}.{name}"))
        buttons.append(Button((CURRENT if name == shown else "") + label, data, name == shown))
    if not buttons:
        return ()
    rows = [tuple(buttons)]
    if parts > 1 and current is not None:
        token = reply.context.get("shared")
        row: list[Button] = []
        for index in range(min(parts, MAX_PARTS)):
            part_data = (
                action_buttons.SharedPage(token, current, index).encode()
                if isinstance(token, str)
                else encode_part(pages.PageRef(owner, number, current), index)
            )
            if part_data is None:
                break
            label = gettext(reply.lang, "chat.page.part", n=index + 1, total=parts)
            row.append(Button((CURRENT if index == part else "") + label, part_data, index == part))
        if len(row) > 1:
            rows.append(tuple(row))
    rows += topic_buttons.rows(reply, owner, current, CURRENT)  # issue 32: the same cast, read for a topic
    rows += [tuple(row) for row in action_buttons.rows(reply)]  # the reading's actions, below its pages
    return tuple(rows)


def page_data(reply: Reply, owner: str, current: str | None = None) -> list[tuple[str, str | None]]:
    """(page, button data) of each page of the stored cast ``reply`` shows: ``p:<owner>:<number>:<page>`` —
    read for the topic the page ``current`` shows, if the user turned to one (``p:…:basis.hun``: the 근거 of
    the topic in view, not of the row's own) —, or — a shared reading (``shared``: its token) —
    ``v:<token>:<page>``, which opens only while the share lives (:mod:`bot.commands.action_buttons`); None
    where the data would not fit."""
    token = reply.context.get("shared")
    if isinstance(token, str):
        return [(name, action_buttons.SharedPage(token, name).encode()) for name in pages_of(reply.view)]
    topic = page_topic(reply.view, current)[1]
    refs = pages.refs(reply.view, owner, int(reply.context["no"]), topic)
    return [(name, ref.encode()) for name, ref in zip(pages_of(reply.view), refs, strict=True)]


def answer(reply: Reply, incoming: Incoming, seal: ButtonSeal, *, alone: bool = False) -> Message:
    """The reply to ``incoming`` as its channel shows it, its buttons sealed for the chat it goes to: for the
    caller alone in a private chat or when the reply reaches them alone (``alone``: an ephemeral reply)."""
    return sealed(
        present(reply, incoming.platform, incoming.user_id),
        seal,
        incoming.chat_id,
        incoming.user_id,
        private=alone or incoming.chat_kind == "private",
    )


def sealed(shown: Message, seal: ButtonSeal, chat_id: str, owner: str, *, private: bool) -> Message:
    """``shown`` with its buttons' data sealed for the chat it is sent to (:mod:`bot.seal`): a ``/settings``
    button and a reading's ``/share`` and ``/note`` actions for its owner alone; a page button for the owner
    alone when the message is theirs alone (``private``: a private chat, an ephemeral reply, a page of the
    owner's whole cast), else for everyone who reads the chat."""
    if not shown.buttons:
        return shown
    # Button(label, data, current) rather than dataclasses.replace (≈ 2.6 against 0.8 µs a button, 19 under a
    # /cast now reply): a Button is those three fields. With the seal's one-shot HMAC (bot.seal): sealing a
    # /cast now reply ≈ 0.23 → 0.12 ms warm, 0.33 → 0.29 ms right after its dispatch (in process, medians)
    rows = tuple(
        tuple(
            Button(
                b.label,
                seal.seal(
                    shown.channel,
                    chat_id,
                    b.data,
                    owner
                    if private or setting_buttons.is_setting(b.data) or action_buttons.owner_only(b.data)
                    else EVERYONE,
                ),
                b.current,
            )
            for b in row
        )
        for row in shown.buttons
    )
    return replace(shown, buttons=rows)


def page_hint(reply: Reply, current: str) -> str:
    """The console's line naming the other pages of a stored cast, by number and label."""
    labels = [
        f"{i}. {gettext(reply.lang, msgid('chat.page', f'{reply.view}.{p}'))}"
        for i, p in enumerate(pages_of(reply.view), 1)
        if p != page_topic(reply.view, current)[0]
    ]
    hint = gettext(reply.lang, "chat.page.console_hint", pages=" · ".join(labels))
    in_view = page_topic(reply.view, current)[1]
    topics = [gettext(reply.lang, p.label_msgid) for p in topic_pages(reply.view) if p.name != in_view]
    if topics:  # issue 32: the same cast read for another topic, by the topic's name typed
        hint += "\n" + gettext(reply.lang, "chat.page.console_topics", topics=" · ".join(topics))
    return hint


def encode_part(ref: pages.PageRef, part: int) -> str | None:
    """The button data of part ``part`` of a page on a photo message: ``c:<owner>:<number>:<page>:<part>``
    (the first part is the page's own button, :meth:`bot.commands.pages.PageRef.encode`)."""
    if part == 0:
        return ref.encode()
    data = f"c:{ref.owner}:{ref.number}:{ref.page}:{part}"
    return data if len(data.encode()) <= pages.DATA_LIMIT and _PART.match(data) else None


def decode_part(data: str | None) -> tuple[pages.PageRef | None, int]:
    """(the page a button names, the caption part): a page button is part 0."""
    m = _PART.match(data or "")
    if m is None:
        return pages.decode(data), 0
    return pages.PageRef(owner=m.group(1), number=int(m.group(2)), page=m.group(3)), int(m.group(4))


def caption_parts(body: str) -> list[str]:
    """A page as captions (each at most 1,024 visible characters, cut at lines, tags closed)."""
    return split_telegram_html(body, TELEGRAM_CAPTION_LIMIT) or [body]


def photo_caption(body: str) -> str:
    """The caption of a reply's photo: the whole reply when it fits (1,024 visible characters after entity
    parsing), else its title lines — the reply then follows the photo as a text message with the keyboard."""
    if visible_len(body) <= TELEGRAM_CAPTION_LIMIT:
        return body
    parts = split_telegram_html(body, SHORT_CAPTION)
    return parts[0] if parts else ""


def fit_page(body: str, lang: str, limit: int = 4096) -> str:
    """A page fits one message (an edit cannot be split): past ``limit`` it ends at a line with a note."""
    parts = split_telegram_html(body, limit - 80)
    if len(parts) == 1:
        return body
    return parts[0] + "\n" + gettext(lang, "chat.page.more")


def reading_caption(text: str, lang: str) -> str:
    """A daily reading (Telegram HTML) as one photo caption: whole when it fits, else its first lines and
    the pointer ``daily.picture.more`` (``/today`` shows the reading whole)."""
    if visible_len(text) <= TELEGRAM_CAPTION_LIMIT:
        return text
    note = html.escape(gettext(lang, "daily.picture.more"), quote=False)
    return fit_caption(text, TELEGRAM_CAPTION_LIMIT - visible_len(note) - 1) + "\n" + note


def day_buttons(lang: str, day: date, current: str | None, *, parts: int = 1, part: int = 0) -> Rows:
    """The buttons of a delivered daily reading (:mod:`bot.commands.daily_pages`): one per page, the current
    one marked; when the current page is shown in ``parts`` caption-sized parts (a Telegram photo message), a
    second row with one button per part."""
    row = tuple(
        Button(
            (CURRENT if ref.page == current else "")
            + gettext(lang, msgid("chat.page", f"{daily_pages.VIEW}.{ref.page}")),
            ref.encode(),
            ref.page == current,
        )
        for ref in daily_pages.refs(day)
    )
    rows = [row] if row else []
    if parts > 1 and current is not None:
        part_row = tuple(
            Button(
                (CURRENT if index == part else "")
                + gettext(lang, "chat.page.part", n=index + 1, total=parts),
                daily_pages.DayRef(day, current, index).encode(),
                index == part,
            )
            for index in range(min(parts, MAX_PARTS))
        )
        rows.append(part_row)
    return tuple(rows)


def daily_message(
    text: str, lang: str, channel: str, picture: bytes | None, day: date | None = None
) -> Message:
    """A daily reading's message from its text (rendered once per shared head and body by
    :class:`bot.daily.DailyRenderer`, never again per subscriber: its first page) and its picture, with the
    buttons of its pages when ``day`` (the subscriber's local date of the reading) is given: on Telegram one
    photo whose caption is the reading — when the reading is longer than a caption and has buttons, the
    sender makes its head the caption and sends the rest after it, the buttons under the last part; without
    buttons, the caption is cut and points to ``/today`` (:func:`reading_caption`) —, on Discord the text with
    the picture attached and the buttons under it."""
    first = first_page(daily_pages.VIEW) if day is not None else None
    buttons = day_buttons(lang, day, first) if day is not None else ()
    if channel == "telegram" and picture is not None:
        if not buttons:
            return Message("telegram", "", picture=picture, caption=reading_caption(text, lang))
        if visible_len(text) <= TELEGRAM_CAPTION_LIMIT:
            return Message("telegram", "", first, buttons, picture, caption=text)
        return Message("telegram", text, first, buttons, picture)
    alt = gettext(lang, "chat.picture.daily") if picture is not None else None
    return Message(channel, text, first, buttons, picture=picture, alt=alt)


def day_page(
    reply: Reply, channel: str, day: date, page: str, *, on_photo: bool = False, part: int = 0
) -> Message:
    """Page ``page`` of a delivered daily reading (``reply``: :func:`bot.commands.daily_pages.load`) in place of
    the message: one message (Telegram: cut to fit, with a note; on a photo message the caption, in
    caption-sized parts with a button each)."""
    body = render(reply, channel, page=page)
    if channel == "telegram":
        body = fit_page(body, reply.lang)
        if on_photo:
            parts = caption_parts(body)
            shown = min(part, len(parts) - 1)
            buttons = day_buttons(reply.lang, day, page, parts=len(parts), part=shown)
            return Message("telegram", "", page, buttons, caption=parts[shown])
    elif channel == "discord" and len(body) > DISCORD_MESSAGE_LIMIT:  # one message: cut at a line, a note
        note = "\n" + gettext(reply.lang, "chat.page.more")
        cut = body[: DISCORD_MESSAGE_LIMIT - len(note)]
        body = (cut[: cut.rfind("\n")] if "\n" in cut else cut) + note
    return Message(channel, body, page, day_buttons(reply.lang, day, page))


__all__ = [
    "CHANNELS",
    "Button",
    "Message",
    "caption_parts",
    "daily_message",
    "day_buttons",
    "day_page",
    "decode_part",
    "encode_part",
    "fit_page",
    "keyboard",
    "page_hint",
    "photo_caption",
    "present",
    "reading_caption",
    "sealed",
]
