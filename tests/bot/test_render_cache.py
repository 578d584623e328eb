"""The 大六壬 reading: the view model's reading and verdict (``bot.features.liuren.command.chart_view``, read on
the chart without its instant, the 月建 and 太歲 given) and the cached rendered reading partial per (language,
channel, readings) (``bot.views.rendered_reading``, issue #18).

References are computed without any cache: the engine called on the chart with its instant, and the
``cast`` template as it was before the cache (the partial ``{% include %}``-d), rendered in one reply.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from importlib import resources

import pytest

from bot import jsonio, views
from bot.commands import Incoming, dispatch
from bot.commands import cast as cast_command
from bot.i18n import one_reply, typeset
from bot.sanitize import clean
from engine.calendar import DayStart
from engine.liuren import Options, chart_at, reading
from engine.liuren.verdict import judge

INCLUDE = (
    '{% include "liuren/reading." ~ {"telegram": "html", "discord": "md"}.get(channel, "txt") ~ ".j2" %}'
)


def reference_render(reply, channel: str) -> str:
    """``views.render(reply, channel)`` of a whole ``cast`` view with the reading partial included, uncached."""
    source = resources.files("templates").joinpath("console/cast_body.txt.j2").read_text("utf-8")
    assert "{{ rendered_reading(readings) }}" in source
    env = views.channel_environment(reply.lang, channel)
    body = source.replace("{{ rendered_reading(readings) }}", INCLUDE)
    template = env.from_string(f'{{% include "console/cast_head.txt.j2" %}}\n{body}')
    context = {**dict(reply.context), **views.extras_of("cast")(reply.lang, reply.context)}
    with one_reply():
        text = template.render(**context, view="cast", channel=channel, page=None)
    text = "\n".join(line.rstrip() for line in clean(typeset(reply.lang, text)).split("\n"))
    return views._BLANKS.sub("\n\n", text).strip("\n")


@pytest.fixture(autouse=True)
def empty_caches():
    views._READINGS.clear()
    yield
    views._READINGS.clear()


@pytest.mark.parametrize(
    "text", ["/cast now", "/cast 甲子 3局", "/cast 庚辰 申 卯", "/cast 2026-03-01 10:00 天文"]
)
@pytest.mark.parametrize("lang", ["ko", "zh-hant"])
async def test_a_cached_render_equals_an_uncached_one(ctx, text, lang):
    reply = await dispatch(Incoming("telegram", "1", "1", text, lang_hint=lang), ctx)
    assert reply.view == "cast", reply
    for channel in views.CHANNELS:
        first = views.render(reply, channel)  # a miss: rendered and stored
        second = views.render(reply, channel)  # a hit
        assert first == second == reference_render(reply, channel)


async def test_another_cast_of_the_same_ke_hits_and_another_option_language_or_channel_misses(ctx, clock):
    cast = await dispatch(Incoming("telegram", "1", "1", "/cast now", lang_hint="ko"), ctx)
    views.render(cast, "telegram")
    stats = views.reading_cache_stats
    before = stats.copy()
    clock.advance(timedelta(minutes=3))  # the same 課 a few minutes later: another cast, number and time
    again = await dispatch(Incoming("telegram", "1", "1", "/cast now", lang_hint="ko"), ctx)
    assert again.context["no"] != cast.context["no"] and again.context["when"] != cast.context["when"]
    assert views.render(again, "telegram") == reference_render(again, "telegram")
    assert stats["hit"] - before["hit"] == 1 and stats["miss"] == before["miss"]

    for reply, channel in (
        (await dispatch(Incoming("telegram", "2", "2", "/cast now", lang_hint="zh-hant"), ctx), "telegram"),
        (again, "discord"),
        (again, "console"),
    ):
        misses = stats["miss"]
        assert views.render(reply, channel) == reference_render(reply, channel)
        assert stats["miss"] == misses + 1, (reply.lang, channel)

    changed = await dispatch(
        Incoming("telegram", "1", "1", "/settings liuren.mu changsheng", lang_hint="ko"), ctx
    )
    assert changed.view == "settings", changed
    other = await dispatch(Incoming("telegram", "1", "1", "/cast now", lang_hint="ko"), ctx)
    assert other.context["options"] != again.context["options"]
    misses = stats["miss"]
    assert views.render(other, "telegram") == reference_render(other, "telegram")
    assert stats["miss"] == misses + (other.context["readings"] != again.context["readings"])


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(views, "READING_CACHE_SIZE", 3)

    def readings(chart):
        return cast_command.chart_view(chart)["readings"]

    start = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)
    for hours in range(0, 24 * 5, 5):  # different 課 (day and hour)
        chart = chart_at(start + timedelta(hours=hours), Options())
        views.rendered_reading("ko", "console", readings(chart))
        assert len(views._READINGS) <= 3


@pytest.mark.parametrize("category", [None, "天文"])
def test_the_view_models_reading_and_verdict_equal_the_engines_for_each_instant(category):
    """Every 29 hours over a year (every day and hour branch): the view reads the chart without its instant
    plus the 月建 and 太歲 branches; the reference is the engine on the chart with its instant."""
    start = datetime(2025, 12, 1, 0, 0, tzinfo=UTC)
    for step in range(0, 24 * 366, 29):
        at = start + timedelta(hours=step)
        chart = chart_at(at, Options(), day_starts=DayStart.parse("23:00"))
        expected = [r.to_json() for r in reading.read(chart, category)], judge(chart, category).to_json()
        view = cast_command.chart_view(chart, category)
        assert (view["readings"], view["verdict"]) == expected, at


@pytest.mark.parametrize("category", [None, "人物"])
def test_the_view_model_is_the_one_built_afresh_from_the_chart_with_its_instant(category):
    """For charts of many instants, the view (read on the chart without its instant) equals the view built
    from that chart, instant included — every member, JSON values only."""
    start = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
    for step in range(0, 24 * 60, 13):
        at = start + timedelta(hours=step, minutes=step % 11)
        chart = chart_at(at, Options(), day_starts=DayStart.parse("23:00"))
        readings = [r.to_json() for r in reading.read(chart, category)]
        fresh = cast_command.fresh_chart_view(chart, category, readings, judge(chart, category).to_json())
        expected = jsonio.loads(jsonio.dumps(fresh))
        view = cast_command.chart_view(chart, category)
        assert view == expected and list(view) == list(expected), at
