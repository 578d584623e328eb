"""/shensha 甲子 [寅] [甲辰]: the 神煞 of a day (with month, year, hour keys when given), or of today."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.context import AppContext
from bot.features.base import ArgSpec, Cast, CommandError, Incoming, Page, Reply, Stored, caller, command
from bot.features.common import (
    NOW_WORDS,
    Record,
    fmt_local,
    parse_branch,
    parse_ganzhi,
    record_and_reply,
    zone_of,
)
from bot.features.shensha.model import GroupedStarsView, GroupView, ShenshaView, StarView
from bot.features.shensha.view import meanings
from bot.i18n import N_
from engine.calendar import four_pillars
from engine.core.cycle import BRANCH_CHARS, STEM_CHARS, Branch, GanZhi, Stem
from engine.shensha import ShenshaResult, evaluate
from engine.shensha.model import Value


def plain_value(value: Value | None) -> Any:
    """A star's value as JSON: 干支/干/支 as characters, tuples element-wise, words and flags kept.

    The commonest first, one class a test (146 of a day's 170 stars fall on a branch; ``isinstance`` with a
    ``Branch | Stem`` union is slower): a /shensha's stars 0.20 → 0.11 ms (issue 31 item 8, same lines)."""
    if isinstance(value, Branch):
        return value.char
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, GanZhi):
        return value.chars
    if isinstance(value, Stem):
        return value.char
    return value


def parse_shensha_args(args: tuple[str, ...]) -> dict[str, Any]:
    """Tokens → {"day": GanZhi, "month": Branch | None, "year": GanZhi | None, "hour": Branch | None}."""
    out: dict[str, Any] = {"day": None, "month": None, "year": None, "hour": None}
    for token in args:
        t = token.strip()
        if not t:
            continue
        if len(t) in (1,) or (len(t) == 2 and t[1] in "月월時시"):
            branch = parse_branch(t)
            if t.endswith(("時", "시")) or out["month"] is not None:
                if out["hour"] is not None:
                    raise CommandError("bot.error.shensha_usage")
                out["hour"] = branch
            else:
                out["month"] = branch
            continue
        if t.endswith(("年", "년")) and len(t) == 3:
            out["year"] = parse_ganzhi(t[:2])
            continue
        gz = parse_ganzhi(t)
        if out["day"] is None:
            out["day"] = gz
        elif out["year"] is None:
            out["year"] = gz
        else:
            raise CommandError("bot.error.shensha_usage")
    return out


def stars_view(result: ShenshaResult) -> list[StarView]:
    return [
        {"id": hit.id, "name": hit.name, "value": plain_value(hit.value), "key": hit.key}
        for hit in result.stars
    ]


def grouped_view(stars: list[StarView]) -> GroupedStarsView:
    """Stars grouped for a phone: by the one branch (子…亥) or stem (甲…癸) they fall on, then the rest.

    Every star is listed once."""
    by_branch: dict[str, list[str]] = {b: [] for b in BRANCH_CHARS}
    by_stem: dict[str, list[str]] = {st: [] for st in STEM_CHARS}
    others: list[StarView] = []
    for star in stars:
        v = star["value"]  # a single branch or stem is grouped; lists, words and flags are listed
        if isinstance(v, str) and v in by_branch:
            by_branch[v].append(star["name"])
        elif isinstance(v, str) and v in by_stem:
            by_stem[v].append(star["name"])
        else:
            others.append(star)
    branch_groups: list[GroupView] = [{"key": k, "names": v} for k, v in by_branch.items() if v]
    stem_groups: list[GroupView] = [{"key": k, "names": v} for k, v in by_stem.items() if v]
    return {"by_branch": branch_groups, "by_stem": stem_groups, "others": others}


def history_summary(context: Mapping[str, Any]) -> dict[str, Any]:
    """/history's line of a 神煞 cast: its day and month (characters)."""
    return {"day": context.get("day"), "month": context.get("month")}


def cast_of(inputs: Mapping[str, Any], options: Mapping[str, Any]) -> Cast:
    """The one cast of a ``/shensha`` row's inputs (``Stored.cast``): the stars of its day (month, year, hour)
    as the view shows them, and grouped."""
    month, year, hour = inputs.get("month"), inputs.get("year"), inputs.get("hour")
    day = GanZhi.parse(str(inputs["day"]))
    result = evaluate(
        day,
        month=Branch.from_char(str(month)) if month is not None else None,
        year=GanZhi.parse(str(year)) if year is not None else None,
        hour=Branch.from_char(str(hour)) if hour is not None else None,
    )
    stars = stars_view(result)
    at = inputs.get("at")
    when = (
        {"local": fmt_local(datetime.fromisoformat(str(at))), "zone": str(inputs.get("zone"))} if at else None
    )
    context: ShenshaView = {
        "day": day.chars,
        "month": month,
        "year": year,
        "hour": hour,
        "when": when,
        "stars": stars,
        **grouped_view(stars),
    }
    return Cast(context)


@command(
    "shensha",
    aliases=("신살", "神煞", "神殺"),
    help_msgid=N_("bot.help.shensha"),
    usage_msgid=N_("bot.usage.shensha"),
    name_msgid=N_("chat.name.shensha"),
    order=1,
    stored=Stored(
        kind="shensha",
        view="shensha",
        summary=history_summary,
        line="chat/history_shensha.txt.j2",
        title_msgid=N_("bot.shensha.title"),
        pages=(
            Page("brief", N_("chat.page.shensha.brief")),
            Page("ji", N_("chat.page.shensha.ji")),
            Page("xiong", N_("chat.page.shensha.xiong")),
            Page("other", N_("chat.page.shensha.other")),
        ),
        extras=meanings,
        # a group sees the stars of the pillars asked about and the moment on the clock
        public=(
            "day",
            "month",
            "year",
            "hour",
            "when.local",
            "when.zone",
            "by_branch",
            "by_stem",
            "others",
            "stars",
            "no",
            "picture",
        ),
        cast=cast_of,
    ),
    args=(
        ArgSpec("day", "string", required=False, description_msgid=N_("bot.arg.shensha.day")),
        ArgSpec("month", "string", required=False, description_msgid=N_("bot.arg.shensha.month")),
    ),
)
async def shensha(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    at: datetime | None = None
    if not args or (len(args) == 1 and args[0].lower() in NOW_WORDS):
        user = await caller(incoming, ctx)
        zone = zone_of(user, ctx)
        at = (await ctx.clock.now()).astimezone(zone)
        p = four_pillars(at)
        parsed: dict[str, Any] = {
            "day": p.day,
            "month": p.month.branch,
            "year": p.year,
            "hour": p.hour.branch,
        }
    else:
        parsed = parse_shensha_args(args)
        if parsed["day"] is None:
            raise CommandError("bot.error.shensha_usage")
    day: GanZhi = parsed["day"]
    month: Branch | None = parsed["month"]
    year: GanZhi | None = parsed["year"]
    hour: Branch | None = parsed["hour"]
    inputs = {
        "day": day.chars,
        "month": month.char if month is not None else None,
        "year": year.chars if year is not None else None,
        "hour": hour.char if hour is not None else None,
        # the instant and zone of a cast for now (the reply says when), else None
        "at": at.isoformat() if at is not None else None,
        "zone": at.tzinfo.key if at is not None and isinstance(at.tzinfo, ZoneInfo) else None,
    }
    return await record_and_reply(incoming, ctx, Record(kind="shensha", inputs=inputs, options={}))
