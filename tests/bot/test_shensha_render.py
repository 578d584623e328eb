"""The 神煞 pages count and list the stars from the view's extras (``nature_counts``, ``stars_of_nature``, issue
#18) instead of Jinja ``select``/``selectattr`` over ≈ 170 stars: the text of every page is byte for byte what
the templates as they were before gave (the reference below puts the old expressions back)."""

from __future__ import annotations

from importlib import resources

import jinja2
import pytest

from bot import views
from bot.commands import Incoming, dispatch
from bot.i18n import one_reply, typeset
from bot.sanitize import clean

OLD_BRIEF = (
    "{% set natures = star_nature.values() | list %}\n"
    '{{ "吉" | both }} {{ natures | select("equalto", "吉") | list | length | num }} · {{ "凶" | both }} '
    '{{ natures | select("equalto", "凶") | list | length | num }} · {{ _("chat.shensha.other") }} '
    '{{ natures | reject("in", ["吉", "凶"]) | list | length | num }}'
)
NEW_BRIEF = (
    '{{ "吉" | both }} {{ nature_counts.ji | num }} · {{ "凶" | both }} {{ nature_counts.xiong | num }} · '
    '{{ _("chat.shensha.other") }} {{ nature_counts.other | num }}'
)
OLD_KIND = (
    '{% set rows = stars | selectattr("id", "in", star_nature | dictsort | selectattr(1, "equalto", nature)'
    " | map(attribute=0) | list) | list %}"
)
NEW_KIND = "{% set rows = stars_of_nature.get(nature, []) %}"


def _source(name: str) -> str:
    return resources.files("templates").joinpath(name).read_text("utf-8")


def reference_render(reply, channel: str, page: str) -> str:
    """``views.render(reply, channel, page)`` with the two templates as they were before the extras."""
    brief, kind = _source("console/shensha_brief_body.txt.j2"), _source("chat/shensha_kind.txt.j2")
    assert NEW_BRIEF in brief and NEW_KIND in kind
    base = views.channel_environment(reply.lang, channel)
    env = base.overlay(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.DictLoader(
                    {
                        "console/shensha_brief_body.txt.j2": brief.replace(NEW_BRIEF, OLD_BRIEF),
                        "chat/shensha_kind.txt.j2": kind.replace(NEW_KIND, OLD_KIND),
                    }
                ),
                base.loader,
            ]
        )
    )
    template = env.get_template(f"console/shensha_{page}.txt.j2")
    extras = views.extras_of("shensha")(reply.lang, reply.context)
    context = {**dict(reply.context), **extras}
    with one_reply():
        text = template.render(**context, view="shensha", channel=channel, page=page)
    text = "\n".join(line.rstrip() for line in clean(typeset(reply.lang, text)).split("\n"))
    return views._BLANKS.sub("\n\n", text).strip("\n")


@pytest.mark.parametrize("text", ["/shensha", "/shensha 甲子 寅 午時", "/shensha 庚辰 酉 甲辰年"])
@pytest.mark.parametrize("lang", ["ko", "zh-hant"])
async def test_shensha_pages_are_what_the_old_templates_gave(ctx, text, lang):
    reply = await dispatch(Incoming("telegram", "1", "1", text, lang_hint=lang), ctx)
    assert reply.view == "shensha", reply
    assert reply.context.get("stars")
    counts = views.extras_of("shensha")(reply.lang, reply.context)["nature_counts"]
    assert counts["ji"] > 0 and counts["xiong"] > 0  # the counts are not all zero: the check means something
    for channel in views.CHANNELS:  # no channel has pages of its own: each renders the console's
        for page in views.pages_of("shensha"):
            expected = reference_render(reply, channel, page)
            assert views.render(reply, channel, page=page) == expected, (channel, page)


async def test_the_stars_are_the_engine_s_and_each_reply_s_own(ctx):
    """A reply's stars are the engine's stars converted (grouped as the view shows them), and the reply's own:
    changing them cannot change the next reply."""
    from bot.commands import shensha as shensha_command
    from engine.core.cycle import Branch, GanZhi
    from engine.shensha import evaluate

    day, month, year, hour = (
        GanZhi.parse("甲子"),
        Branch.from_char("寅"),
        GanZhi.parse("甲辰"),
        Branch.from_char("午"),
    )
    fresh = shensha_command.stars_view(evaluate(day, month=month, year=year, hour=hour))
    first = await dispatch(
        Incoming("telegram", "1", "1", "/shensha 甲子 寅 午時 甲辰年", lang_hint="ko"), ctx
    )
    assert first.context["stars"] == fresh
    assert {k: first.context[k] for k in ("by_branch", "by_stem", "others")} == shensha_command.grouped_view(
        fresh
    )
    first.context["stars"][0]["name"] = "changed"
    first.context["stars"].clear()
    second = await dispatch(
        Incoming("telegram", "1", "1", "/shensha 甲子 寅 午時 甲辰年", lang_hint="ko"), ctx
    )
    assert second.context["stars"] == fresh
