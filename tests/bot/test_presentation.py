"""The one presentation step (``bot.presentation.present``, issue #31): a reply as each channel shows it —
the page a numbered cast opens on and its buttons (from the command's spec), the picture and the Telegram
caption, the Discord embed's title and description, the console's page hint — for a cast with a picture, a
page without the picture, an error reply, ``/show`` and a daily reading; and the adapters' transport of the
neutral buttons (Telegram ``callback_data``, Discord ``custom_id``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot import pictures, views
from bot.commands import action_buttons, error_reply, pages, topic_buttons
from bot.discord import embed_of, view_of
from bot.features.base import stored_as_view
from bot.i18n import gettext
from bot.presentation import (
    Message,
    caption_parts,
    daily_message,
    decode_part,
    fit_page,
    present,
    reading_caption,
)
from bot.sending import TELEGRAM_CAPTION_LIMIT, split_telegram_html, visible_len
from bot.telegram import markup_of
from tests.conftest import say_to

OWNER = "42"


def spec_pages(view: str) -> list[tuple[str, str]]:
    """(page, label msgid) of the view's stored pages, as its command's spec lists them."""
    spec = stored_as_view(view)
    assert spec is not None and spec.stored is not None
    return [(p.name, p.label_msgid) for p in spec.stored.pages]


@pytest.fixture
async def cast(ctx):
    reply = await say_to(ctx, platform="telegram")("/cast 甲子 3局", user=OWNER, lang_hint="ko")
    assert isinstance(reply.context.get("no"), int) and reply.picture is not None
    return reply


async def test_a_cast_opens_on_its_first_page_with_its_picture_and_a_button_per_page(cast):
    listed = spec_pages("cast")
    first = listed[0][0]
    png = pictures.render(cast.picture, cast.lang)
    assert png is not None
    number = cast.context["no"]

    tg = present(cast, "telegram", OWNER)
    body = views.render(cast, "telegram", page=first)
    assert tg.page == first and tg.picture == png
    row, *rest = tg.buttons  # the pages' row, the topic rows (test_topic_screen.py), the reading's actions
    # below the pages and topics, the reading's actions in rows of their own (bot.commands.action_buttons)
    actions = [tuple(r) for r in action_buttons.rows(cast)]
    assert len(actions) == 2 and rest[-len(actions) :] == actions
    assert rest[: -len(actions)] == list(topic_buttons.rows(cast, OWNER, first, "• "))
    assert [b.data for b in row] == [pages.PageRef(OWNER, number, p).encode() for p, _ in listed]
    assert [b.label for b in row] == [
        ("• " if p == first else "") + gettext(cast.lang, label) for p, label in listed
    ]
    assert [b.current for b in row] == [p == first for p, _ in listed]
    if visible_len(body) <= TELEGRAM_CAPTION_LIMIT:  # one photo message: the caption is the reply
        assert (tg.caption, tg.text) == (body, "")
    else:  # the photo with the head of the reply, then the reply as text
        assert tg.caption == split_telegram_html(body, 200)[0] and tg.text == body

    dc = present(cast, "discord", OWNER)
    title, footer = views.page_title(cast)
    whole = views.render(cast, "discord", page=first)
    assert dc.page == first and dc.picture == png
    assert (dc.title, dc.footer) == (title, footer or None)
    assert dc.text == whole.split("\n", 1)[1].strip("\n")  # the title line is the embed's title
    assert [(b.label, b.data, b.current) for b in dc.buttons[0]] == [
        (gettext(cast.lang, label), pages.PageRef(OWNER, number, p).encode(), p == first)
        for p, label in listed
    ]

    console = present(cast, "console", OWNER)
    assert console.page == first and console.text == views.render(cast, "console", page=first)
    assert console.hint is not None
    for index, (page, label) in enumerate(listed, 1):
        assert (f"{index}. {gettext(cast.lang, label)}" in console.hint) == (page != first)


async def test_a_page_without_the_picture_and_the_pictures_own_page(cast):
    listed = [p for p, _ in spec_pages("cast")]
    own = pictures.PICTURE_PAGES["cast"]
    other = next(p for p in listed if p != own)
    shown = present(cast, "telegram", OWNER, other, edit=True)
    assert shown.page == other and shown.picture is None and not shown.picture_page
    assert shown.text == fit_page(views.render(cast, "telegram", page=other), cast.lang)
    assert [b.current for b in shown.buttons[0]] == [p == other for p in listed]

    body = fit_page(views.render(cast, "telegram", page=own), cast.lang)
    mine = present(cast, "telegram", OWNER, own, edit=True)
    fits = visible_len(body) <= TELEGRAM_CAPTION_LIMIT
    assert mine.picture_page == fits and mine.caption == (body if fits else None)
    assert mine.picture is None  # an edit draws nothing: the adapter puts the stored picture back

    # Discord keeps (or puts back) the picture on every page of a cast that has one
    assert present(cast, "discord", OWNER, other, edit=True).picture_page


async def test_a_page_on_a_photo_message_is_shown_in_caption_parts(cast):
    listed = [p for p, _ in spec_pages("cast")]
    for page in listed:
        body = fit_page(views.render(cast, "telegram", page=page), cast.lang)
        parts = caption_parts(body)
        last = len(parts) - 1
        shown = present(cast, "telegram", OWNER, page, edit=True, on_photo=True, part=last)
        assert shown.caption == parts[last] and shown.text == ""
        if len(parts) == 1:  # the pages' row, the topic rows (issue 32), the actions: no row of parts
            topics = topic_buttons.rows(cast, OWNER, page, "• ")
            assert len(shown.buttons) == 1 + len(topics) + len(action_buttons.rows(cast))
            continue
        part_row = shown.buttons[1]
        assert len(part_row) == len(parts)
        assert [b.current for b in part_row] == [i == last for i in range(len(parts))]
        for index, button in enumerate(part_row):
            assert decode_part(button.data) == (pages.PageRef(OWNER, cast.context["no"], page), index)
        return
    pytest.fail("no page of /cast is longer than a caption: the parts were not exercised")


@pytest.mark.parametrize("channel", ["telegram", "discord", "console"])
def test_an_error_reply_is_its_text_alone(channel):
    reply = error_reply("bot.error.internal", "ko")
    shown = present(reply, channel, OWNER)
    assert shown == Message(channel, views.render(reply, channel))


async def test_show_presents_the_stored_cast_as_the_fresh_reply_without_its_picture(ctx, cast):
    shown = await say_to(ctx, platform="telegram")(f"/show {cast.context['no']}", user=OWNER, lang_hint="ko")
    assert shown.picture is None  # /show answers with the stored text (the picture is the first reply's)
    for channel in ("telegram", "discord", "console"):
        assert present(shown, channel, OWNER) == present(replace(cast, picture=None), channel, OWNER)


def test_a_daily_reading_is_one_photo_captioned_on_telegram_and_text_with_its_picture_on_discord():
    png = b"\x89PNG fake"
    short = "<b>오늘</b>\n甲子日"
    assert daily_message(short, "ko", "telegram", png) == Message("telegram", "", picture=png, caption=short)
    assert daily_message(short, "ko", "telegram", None) == Message("telegram", short)
    alt = gettext("ko", "chat.picture.daily")  # the picture's description (alt text) on Discord
    assert daily_message(short, "ko", "discord", png) == Message("discord", short, picture=png, alt=alt)

    long = "\n".join(f"{i}: 甲子 乙丑 丙寅 丁卯 戊辰 己巳" for i in range(80))
    caption = daily_message(long, "ko", "telegram", png).caption
    assert caption is not None and caption == reading_caption(long, "ko")
    assert visible_len(caption) <= TELEGRAM_CAPTION_LIMIT
    assert caption.endswith(gettext("ko", "daily.picture.more")) and long.startswith(caption.split("\n")[0])


def test_a_delivered_reading_carries_the_buttons_of_its_pages():
    """Issue 32 item 4: with the subscriber's local date, the reading's pages are buttons (``d:<date>:<page>``,
    the first page current); a first page longer than a caption is sent whole (the sender makes its head the
    caption and sends the rest with the buttons), never cut with a pointer to /today."""
    from datetime import date

    from bot.commands import daily_pages

    png = b"\x89PNG fake"
    day = date(2026, 11, 30)
    short = "<b>오늘</b>\n甲子日"
    shown = daily_message(short, "ko", "telegram", png, day)
    assert shown.caption == short and shown.text == "" and shown.page == "day"
    [row] = shown.buttons
    assert [b.data for b in row] == ["d:20261130:day", "d:20261130:chart", "d:20261130:topics"]
    assert [b.current for b in row] == [True, False, False]
    assert [daily_pages.decode(b.data) for b in row] == daily_pages.refs(day)
    long = "\n".join(f"{i}: 甲子 乙丑 丙寅 丁卯 戊辰 己巳" for i in range(80))
    shown = daily_message(long, "ko", "telegram", png, day)
    assert shown.caption is None and shown.text == long and shown.picture == png and shown.buttons
    assert (
        daily_message(short, "ko", "discord", png, day).buttons
        == daily_message(short, "ko", "telegram", None, day).buttons
    )
    assert daily_pages.decode("d:20261131:day") is None and daily_pages.decode("d:20261130:trace") is None


async def test_the_adapters_transport_the_buttons_unchanged(cast):
    tg = present(cast, "telegram", OWNER)
    markup = markup_of(tg.buttons)
    assert markup is not None
    assert [[(k.text, k.callback_data) for k in row] for row in markup.inline_keyboard] == [
        [(b.label, b.data) for b in row] for row in tg.buttons
    ]
    assert markup_of(()) is None

    dc = present(cast, "discord", OWNER)
    view = view_of(dc)
    assert view is not None
    # the pages, the topic rows (issue 32), then the reading's two rows of actions: Discord's five rows
    assert len(dc.buttons) == 1 + len(topic_buttons.rows(cast, OWNER, None, "")) + 2 == 5
    assert [(item.label, item.custom_id) for item in view.children] == [
        (b.label, b.data) for row in dc.buttons for b in row
    ]
    embed = embed_of(dc, image=True)
    assert embed is not None and (embed.title, embed.description) == (dc.title, dc.text)
    assert embed.image.url == f"attachment://{pictures.FILENAME}"
    assert embed_of(present(error_reply("bot.error.internal", "ko"), "discord")) is None
