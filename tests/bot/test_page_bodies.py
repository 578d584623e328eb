"""The first pages of ``/cast`` and ``/shensha`` rendered as a head per reply and a cached body (issue #18,
``bot.views.SPLIT_PAGES``): byte for byte the page template rendered whole, without the cache, for every
channel, language and kind of chat; another reply of the same 課 (another user, number and minute) takes
the body from the cache, and anything else the body shows (options, language, channel, the 課) does not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from importlib import resources

import pytest

from bot import views
from bot.commands import Incoming, Reply, dispatch
from bot.i18n import one_reply
from tests.bot.pages import finished

EXT = {"telegram": "html.j2", "discord": "md.j2", "console": "txt.j2"}


def reference_render(reply, channel: str, page: str) -> str:
    """The page's own template (``{% include head %}{% include body %}``) rendered in one go, no cache."""
    view = views.page_view(reply.view, page)
    template = views.channel_environment(reply.lang, channel).get_template(f"console/{view}.txt.j2")
    extra = views.extras_of(reply.view)(reply.lang, reply.context)
    with one_reply():
        text = template.render(
            **{**dict(reply.context), **extra}, view=reply.view, channel=channel, page=page
        )
    return finished(reply.lang, text)


@pytest.fixture(autouse=True)
def empty_cache():
    views._BODIES.clear()
    yield
    views._BODIES.clear()


def test_a_split_page_is_its_head_and_its_body_and_no_channel_has_its_own():
    for view, (head, body, keys) in views.SPLIT_PAGES.items():
        source = resources.files("templates").joinpath(f"console/{view}.txt.j2").read_text("utf-8")
        tags = [line for line in source.splitlines() if line.startswith("{%")]
        assert tags == [
            f'{{% include "console/{head}.txt.j2" %}}',
            f'{{% include "console/{body}.txt.j2" %}}',
        ]
        # the cast's head also names the topic asked and answers it (issue 32): the body is the same for every topic
        assert keys == ({"no", "when", "asked", "topic"} if view == "cast_brief" else {"no", "when"})
        for channel in ("telegram", "discord"):
            assert not resources.files("templates").joinpath(f"{channel}/{view}.{EXT[channel]}").is_file()


COMMANDS = [
    "/cast now",
    "/cast 甲子 3局",
    "/cast 庚辰 申 卯",
    "/cast 2026-03-01 10:00 天文",
    "/shensha",
    "/shensha 甲子 寅 午時",
    "/shensha 庚辰 酉 甲辰年",
]


@pytest.mark.parametrize("text", COMMANDS)
@pytest.mark.parametrize("lang", ["ko", "zh-hant"])
@pytest.mark.parametrize("chat_kind", ["private", "group"])
async def test_the_cached_page_equals_the_page_rendered_whole(ctx, clock, text, lang, chat_kind):
    first = await dispatch(Incoming("telegram", "1", "1", text, lang_hint=lang, chat_kind=chat_kind), ctx)
    clock.advance(timedelta(minutes=4))  # the same 課 / hour: another user, number and minute
    second = await dispatch(Incoming("telegram", "2", "2", text, lang_hint=lang, chat_kind=chat_kind), ctx)
    assert first.view in ("cast", "shensha"), first
    assert first.context["no"] == second.context["no"] == 1
    for channel in views.CHANNELS:
        for reply in (first, second, first):
            assert views.render(reply, channel, page="brief") == reference_render(reply, channel, "brief")


async def test_another_reply_of_the_same_ke_hits_and_what_the_body_shows_misses(ctx, clock):
    stats = views.body_cache_stats
    first = await dispatch(Incoming("telegram", "1", "1", "/cast now", lang_hint="ko"), ctx)
    views.render(first, "telegram", page="brief")
    clock.advance(timedelta(minutes=3))
    again = await dispatch(Incoming("telegram", "1", "1", "/cast now", lang_hint="ko"), ctx)
    assert again.context["no"] == 2 and again.context["when"] != first.context["when"]
    hits, misses = stats["hit"], stats["miss"]
    text = views.render(again, "telegram", page="brief")
    assert (stats["hit"], stats["miss"]) == (hits + 1, misses)
    assert "#2" in text.split("\n", 1)[0] and again.context["when"]["local"] in text  # its own head
    assert text == reference_render(again, "telegram", "brief")

    await dispatch(Incoming("telegram", "1", "1", "/settings liuren.mu changsheng", lang_hint="ko"), ctx)
    other_options = await dispatch(Incoming("telegram", "1", "1", "/cast now", lang_hint="ko"), ctx)
    other_lang = await dispatch(Incoming("telegram", "3", "3", "/cast now", lang_hint="zh-hant"), ctx)
    clock.advance(timedelta(hours=2))  # the next 時辰: another 課
    other_ke = await dispatch(Incoming("telegram", "4", "4", "/cast now", lang_hint="ko"), ctx)
    for reply, channel in (
        (other_options, "telegram"),
        (other_lang, "telegram"),
        (again, "discord"),
        (other_ke, "telegram"),
    ):
        misses = stats["miss"]
        assert views.render(reply, channel, page="brief") == reference_render(reply, channel, "brief")
        assert stats["miss"] == misses + 1, (reply.lang, channel, reply.context["hour"])


async def test_the_body_cache_is_bounded(ctx, clock, monkeypatch):
    monkeypatch.setattr(views, "BODY_CACHE_SIZE", 3)
    clock.set(datetime(2026, 3, 1, 0, 0, tzinfo=UTC))
    for _ in range(8):
        clock.advance(timedelta(hours=5))  # another day and hour each time
        for text in ("/cast now", "/shensha"):
            reply = await dispatch(Incoming("telegram", "1", "1", text, lang_hint="ko"), ctx)
            assert views.render(reply, "console", page="brief") == reference_render(reply, "console", "brief")
            assert len(views._BODIES) <= 3


async def test_a_context_without_a_content_key_is_rendered_whole_and_not_cached(ctx):
    """A context that is not a JSON value (here a read-only mapping) has no ``content_key``: the page is
    rendered as a whole every time, the same text, and the cache is neither asked nor filled."""
    from types import MappingProxyType

    for text in ("/cast now", "/shensha"):
        reply = await dispatch(Incoming("telegram", "1", "1", text, lang_hint="zh-hant"), ctx)
        odd = Reply(reply.view, reply.lang, {**reply.context, "day": MappingProxyType({"x": 1})})
        assert views.content_key({"day": odd.context["day"]}) is None
        before = views.body_cache_stats.copy()
        for channel in views.CHANNELS:
            assert views.render(odd, channel, page="brief") == reference_render(odd, channel, "brief")
        assert views.body_cache_stats == before and not views._BODIES


async def test_a_head_that_does_not_end_its_line_is_typeset_with_its_body(ctx, monkeypatch):
    """The cached body is typeset apart from the head only when the head ends a line; otherwise (a head
    template that would end in the middle of a line) the page is rendered and typeset as a whole."""
    reply = await dispatch(Incoming("telegram", "1", "1", "/cast now", lang_hint="zh-hant"), ctx)
    head = views.channel_environment(reply.lang, "console").from_string("大六壬 (#{{ no }}):")
    real = views._view_template

    def template(lang, channel, view):
        return head if view == "cast_head" else real(lang, channel, view)

    monkeypatch.setattr(views, "_view_template", template)
    body = real(reply.lang, "console", "cast_brief_body")
    extra = views.extras_of("cast")(reply.lang, reply.context)
    with one_reply():
        whole = head.render(**reply.context) + body.render(
            **{**dict(reply.context), **extra}, view="cast", channel="console", page="brief"
        )
    expected = finished(reply.lang, whole)
    assert expected.startswith("大六壬（#1）：四柱")  # the page's first line: the head's and the body's
    before = views.body_cache_stats.copy()
    assert views.render(reply, "console", page="brief") == expected
    assert views.body_cache_stats == before and not views._BODIES
