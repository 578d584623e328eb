"""The rows of the first ``/liuyao`` page (the chart block's, the strengths', the conclusion) rendered once per
the values they read (issue #18,
``bot.views.rendered_rows``): the page is byte for byte the page with each row template rendered in place,
in the reply's own 한글(漢字)-once order, for every channel and language, whatever the rows the cache kept
from other casts; a row another cast already had is taken from the cache, and the cache is bounded."""

from __future__ import annotations

import itertools
from importlib import resources
from typing import Any

import jinja2
import pytest
from markupsafe import Markup

from bot import views
from bot.commands import Incoming, Reply, dispatch
from bot.i18n import one_reply
from tests.bot.pages import finished

PAGE = "console/liuyao_brief.txt.j2"
HEAD = "chat/liuyao_head.txt.j2"
# the casts of the tests: every digit of a line (6 old yin, 7 young yang, 8 young yin, 9 old yang) on each
# position, moving and static lines above and below each other, and a 用神 named or not
CASTS = [
    "/liuyao 878878",
    "/liuyao 777877 財",
    "/liuyao 787787",
    "/liuyao 969696 官鬼",
    "/liuyao 666999",
    "/liuyao 789678",
]


def reference_render(reply: Reply, channel: str, page: str = "brief") -> str:
    """The page with ``rows`` writing each row template out in place: rendered in the reply being rendered,
    with the terms given so far (no cache, no copy of the row's values beyond its fields)."""
    env = views.channel_environment(reply.lang, channel)

    def rows(name: str, items: Any, fields: tuple[str, ...], when: str | None = None) -> Markup:
        template = env.get_template(name)
        return Markup(
            "".join(
                template.render(l={f: item[f] for f in fields if f in item})
                for item in items
                if when is None or when in item
            )
        )

    source = resources.files("templates").joinpath(PAGE).read_text("utf-8")
    template = env.from_string(source, globals={"rows": rows})
    with one_reply():
        text = template.render(**dict(reply.context), view=reply.view, channel=channel, page=page)
    return finished(reply.lang, text)


@pytest.fixture(autouse=True)
def empty_cache():
    views._ROWS.clear()
    yield
    views._ROWS.clear()


async def _replies(ctx, lang: str) -> list[Reply]:
    replies = []
    for i, text in enumerate(CASTS):
        reply = await dispatch(Incoming("telegram", str(i), str(i), text, lang_hint=lang), ctx)
        assert reply.view == "liuyao", reply
        replies.append(reply)
    return replies


def test_the_page_writes_its_rows_through_the_cache():
    source = resources.files("templates").joinpath(PAGE).read_text("utf-8")
    head = resources.files("templates").joinpath(HEAD).read_text("utf-8")  # the conclusion, on top (issue 32)
    assert f'{{% include "{HEAD}" %}}' in source
    assert (
        source.count("rows(") + head.count("rows(") == 3 and "{% for l in lines %}\n{{ l.spirit" not in source
    )


@pytest.mark.parametrize("lang", ["ko", "zh-hant"])
async def test_the_cached_rows_equal_the_rows_written_in_place_in_any_order(ctx, lang):
    replies = await _replies(ctx, lang)
    expected = {
        (i, channel): reference_render(reply, channel)
        for i, reply in enumerate(replies)
        for channel in views.CHANNELS
    }
    # the cache filled by the casts in one order, then read in others (a row's 한글(漢字) depends on what the
    # page gave before it, which is another subset of its terms in another cast)
    for order in (range(len(replies)), reversed(range(len(replies))), [2, 0, 5, 1, 4, 3, 2, 0]):
        for i in order:
            for channel in views.CHANNELS:
                assert views.render(replies[i], channel, page="brief") == expected[(i, channel)], (i, channel)
    # the whole view includes the first page: the same rows, the same text from a cold and a warm cache
    for reply in replies:
        views._ROWS.clear()
        cold = views.render(reply, "telegram")
        assert views.render(reply, "telegram") == cold
        block = reference_render(reply, "telegram").split("<pre>")[1].split("</pre>")[0]
        assert f"<pre>{block}</pre>" in cold


async def test_a_term_the_page_gave_before_a_row_is_written_plain_in_that_row(ctx):
    """In ko a term is 한글(漢字) the first time a page names it: the strength row of a line whose branch an
    earlier row named has it plain, though the cache kept the row from a cast where it came first."""
    first = await dispatch(Incoming("telegram", "1", "1", "/liuyao 878878", lang_hint="ko"), ctx)
    views.render(first, "console", page="brief")  # 坎為水: 子 戌 申 午 辰 寅, top down
    # 水火既濟 (787878): 子 戌 申 亥 丑 卯 — the rows of 子 戌 申 were kept from 坎 and are again the first
    second = await dispatch(Incoming("telegram", "2", "2", "/liuyao 787878", lang_hint="ko"), ctx)
    text = views.render(second, "console", page="brief")
    assert text == reference_render(second, "console")
    for branch in "子戌申亥丑卯":
        assert text.count(f"({branch})") <= 1, (branch, text)


async def test_another_cast_with_the_same_line_hits_and_another_channel_or_language_misses(ctx):
    stats = views.row_cache_stats
    first = await dispatch(Incoming("telegram", "1", "1", "/liuyao 878878", lang_hint="ko"), ctx)
    views.render(first, "telegram", page="brief")
    hits, misses = stats["hit"], stats["miss"]
    again = await dispatch(Incoming("telegram", "2", "2", "/liuyao 878878", lang_hint="ko"), ctx)
    assert again.context["no"] == first.context["no"]  # another user's first cast
    assert views.render(again, "telegram", page="brief") == reference_render(again, "telegram")
    assert (stats["hit"], stats["miss"]) == (
        hits + 13,
        misses,
    )  # six chart rows, six strength rows, the conclusion
    for reply, channel in ((again, "discord"), (again, "console")):
        misses = stats["miss"]
        assert views.render(reply, channel, page="brief") == reference_render(reply, channel)
        assert stats["miss"] == misses + 13, channel
    other_lang = await dispatch(Incoming("telegram", "3", "3", "/liuyao 878878", lang_hint="zh-hant"), ctx)
    misses = stats["miss"]
    assert views.render(other_lang, "telegram", page="brief") == reference_render(other_lang, "telegram")
    assert stats["miss"] == misses + 13


async def test_the_row_cache_is_bounded(ctx, monkeypatch):
    monkeypatch.setattr(views, "ROW_CACHE_SIZE", 5)
    replies = await _replies(ctx, "ko")
    for reply in itertools.chain(replies, reversed(replies)):
        assert views.render(reply, "telegram", page="brief") == reference_render(reply, "telegram")
        assert all(len(rows) <= 5 for rows in views._ROWS.values())
    assert set(views._ROWS) == {
        ("ko", "telegram", "chat/liuyao_chart_row.txt.j2"),
        ("ko", "telegram", "chat/liuyao_strength_row.txt.j2"),
        ("ko", "telegram", "chat/liuyao_conclusion.txt.j2"),
    }


async def test_a_row_without_a_field_or_a_json_value_is_rendered_in_place_and_not_cached(ctx):
    """A line stored before a field existed is no row of the cache: without ``strength`` (rows before the
    strength rows) it has no strength row, as the page always wrote; without a field its row reads, the page
    fails as it did (StrictUndefined). A value that is not JSON (here Markup) is rendered, not cached."""
    reply = await dispatch(Incoming("telegram", "1", "1", "/liuyao 878878", lang_hint="ko"), ctx)
    lines = reply.context["lines"]
    old = Reply(
        reply.view,
        reply.lang,
        {**reply.context, "lines": [{k: v for k, v in ln.items() if k != "strength"} for ln in lines]},
    )
    for channel in views.CHANNELS:
        assert views.render(old, channel, page="brief") == reference_render(old, channel)
    assert "상효 " not in views.render(old, "console", page="brief")  # no row "상효 자(子): …"
    broken = Reply(
        reply.view,
        reply.lang,
        {**reply.context, "lines": [{k: v for k, v in ln.items() if k != "empty"} for ln in lines]},
    )
    with pytest.raises(jinja2.UndefinedError):
        views.render(broken, "console", page="brief")
    views._ROWS.clear()
    odd = Reply(
        reply.view,
        reply.lang,
        {**reply.context, "lines": [{**ln, "ganzhi": Markup(ln["ganzhi"])} for ln in lines]},
    )
    for channel in views.CHANNELS:
        assert views.render(odd, channel, page="brief") == reference_render(odd, channel)
    line_rows = {"chat/liuyao_chart_row.txt.j2", "chat/liuyao_strength_row.txt.j2"}
    assert not any(rows for (_, _, name), rows in views._ROWS.items() if name in line_rows)
