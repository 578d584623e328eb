"""A fresh cast's reply equals what ``/show N`` makes of the stored row (``bot.features.common.
record_and_reply`` and ``replay``, issue 31 item 6: both are the command's one cast of the row's inputs and
options): the context value for value — JSON values only (a tuple or a non-string key of a view model would not
be one) —, its picture (put back by a page button), and the text of every page on every channel, in both languages."""

from __future__ import annotations

import pytest

from bot import views
from bot.commands import Incoming, dispatch, pages

COMMANDS = [
    "/cast now",
    "/cast 甲子 3局",
    "/cast 庚辰 申 卯 天文",
    "/cast 2026-03-01 10:00",
    "/liuyao",
    "/liuyao 789678 官鬼",
    "/liuyao time",
    "/shensha",
    "/shensha 庚辰 酉 甲辰年",
    "/qizheng 1990-05-01 10:30 126.98 37.57 save",
]


def plain_types(value) -> bool:
    """Only what JSON reads back as itself."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain_types(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain_types(v) for v in value)
    return value is None or isinstance(value, str | bool | int | float)


@pytest.mark.parametrize("text", COMMANDS)
@pytest.mark.parametrize("lang", ["ko", "zh-hant"])
async def test_the_reply_equals_show_on_every_page_and_channel(ctx, text, lang):
    for user in ("1", "2"):  # the second reply of the same chart (the picture's cache is warm)
        fresh = await dispatch(Incoming("telegram", user, user, text, lang_hint=lang), ctx)
        assert fresh.view == text.split()[0][1:], fresh.context
        assert plain_types(dict(fresh.context)), fresh.view
        shown = await dispatch(
            Incoming("telegram", user, user, f"/show {fresh.context['no']}", lang_hint=lang), ctx
        )
        assert shown.view == fresh.view and shown.lang == fresh.lang
        assert dict(shown.context) == dict(fresh.context)
        assert shown.picture is None  # /show: the text (the picture went with the first reply) …
        page = pages.refs(fresh.view, user, fresh.context["no"])[0]
        loaded = await pages.load("telegram", page, shown.lang, "full", ctx)
        assert not isinstance(loaded, str) and loaded.picture == fresh.picture  # … a page button puts it back
        for channel in views.CHANNELS:
            for page in (None, *views.pages_of(fresh.view)):
                assert views.render(shown, channel, page=page) == views.render(fresh, channel, page=page), (
                    channel,
                    page,
                )
