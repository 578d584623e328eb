"""A throw-away text command in one package (issue #31; docs/adding-a-command.md): ``/bazi`` (사주 · 四柱), the
four pillars of now in the user's zone, stored in the history like every cast.

Its spec (name, aliases, help and usage ids, order in /help, how its casts are stored), its handler, its one
template (``templates/console/bazi.txt.j2``: the console's template serves every channel, escaped for each)
and its messages (``locales/<lang>/LC_MESSAGES/bazi.po``, compiled as the build compiles ``locales/``) are
all here; :data:`FEATURE` installs it (``bot.features.base.install``) — nothing else in the project names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.commands import Incoming, Record, Reply, Stored, caller, record_and_reply, zone_of
from bot.context import AppContext
from bot.features.base import Cast, CommandSpec, Feature
from engine.calendar import four_pillars

HERE = Path(__file__).parent
LOCALES = HERE / "locales"  # the .po sources; FEATURE's catalogs are their compiled .mo (see the test)


def history_summary(context: Any) -> dict[str, Any]:
    """/history's line of a /bazi cast: its day pillar."""
    return {"day": context["pillars"][2]}


async def bazi(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    at = (await ctx.clock.now()).astimezone(zone_of(await caller(incoming, ctx), ctx))
    return await record_and_reply(
        incoming, ctx, Record(kind="bazi", inputs={"at": at.isoformat()}, options={})
    )


def cast_of(inputs: Mapping[str, Any], options: Mapping[str, Any]) -> Cast:
    """The one cast of a stored /bazi (the first reply, /show and /history read it)."""
    at = datetime.fromisoformat(inputs["at"])
    p = four_pillars(at)
    context = {
        "at": at.strftime("%Y-%m-%d %H:%M"),
        "pillars": [g.chars for g in (p.year, p.month, p.day, p.hour)],
    }
    return Cast(context)


SPEC = CommandSpec(
    name="bazi",
    handler=bazi,
    aliases=("사주", "四柱"),
    help_msgid="bazi.help",
    usage_msgid="bazi.usage",
    order=3,  # with 七政四餘 (registered after it: listed after it)
    # what a group may see of it (bot.privacy): the moment's pillars (no birth data is in the view)
    stored=Stored(
        kind="bazi",
        view="bazi",
        summary=history_summary,
        cast=cast_of,
        public=("at", "pillars", "no", "picture"),
    ),
)


def feature(catalogs: Path) -> Feature:
    """The package as one feature, its messages compiled into ``catalogs``."""
    return Feature(commands=(SPEC,), templates=HERE / "templates", catalogs=catalogs)
