"""/shensha 甲子 [寅] [甲辰]: the 神煞 of a day (with month, year, hour keys when given), or of today."""

from __future__ import annotations

import enum
import importlib
from typing import TYPE_CHECKING, Any

from bot.commands import ArgSpec, CommandError, Incoming, Reply, command
from bot.commands._common import (
    NOW_WORDS,
    Record,
    coming_soon,
    engine_ready,
    fmt_local,
    module_available,
    parse_branch,
    parse_ganzhi,
    record_and_reply,
    zone_of,
)
from engine.core.cycle import BRANCH_CHARS, STEM_CHARS, Branch, GanZhi
from engine.errors import EngineInputError

if TYPE_CHECKING:
    from bot.app import AppContext


def plain_value(value: Any) -> Any:
    """A star's value as JSON: 干支/干/支 as characters, lists element-wise, booleans kept."""
    if isinstance(value, GanZhi):
        return value.chars
    char = getattr(value, "char", None)  # Stem, Branch (IntEnums: before the int test)
    if isinstance(char, str):
        return char
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, list | tuple | set | frozenset):
        items = [plain_value(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    return str(value)


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


def stars_view(result: Any) -> list[dict[str, Any]]:
    rows = []
    for hit in getattr(result, "stars", ()):
        rows.append(
            {
                "id": str(getattr(hit, "id", "")),
                "name": str(getattr(hit, "name", "")),
                "value": plain_value(getattr(hit, "value", None)),
                "key": plain_value(getattr(hit, "key", None)),
            }
        )
    return rows


def grouped_view(stars: list[dict[str, Any]]) -> dict[str, Any]:
    """Stars grouped for a phone: by the one branch (子…亥) or stem (甲…癸) they fall on, then the rest.

    Every star is listed once."""
    by_branch: dict[str, list[str]] = {b: [] for b in BRANCH_CHARS}
    by_stem: dict[str, list[str]] = {st: [] for st in STEM_CHARS}
    others: list[dict[str, Any]] = []
    for star in stars:
        v = star["value"]  # a single branch or stem is grouped; lists, words and flags are listed
        if isinstance(v, str) and v in by_branch:
            by_branch[v].append(star["name"])
        elif isinstance(v, str) and v in by_stem:
            by_stem[v].append(star["name"])
        else:
            others.append(star)
    return {
        "by_branch": [{"key": k, "names": v} for k, v in by_branch.items() if v],
        "by_stem": [{"key": k, "names": v} for k, v in by_stem.items() if v],
        "others": others,
    }


@command(
    "shensha",
    aliases=("신살", "神煞", "神殺"),
    help_msgid="bot.help.shensha",
    args=(
        ArgSpec("day", "string", required=False, description_msgid="bot.arg.shensha.day"),
        ArgSpec("month", "string", required=False, description_msgid="bot.arg.shensha.month"),
    ),
)
async def shensha(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    engine = engine_ready("engine.shensha", "evaluate")
    if engine is None:
        return coming_soon("shensha")
    when: dict[str, Any] | None = None
    if not args or (len(args) == 1 and args[0].lower() in NOW_WORDS):
        if not module_available("engine.calendar"):
            raise CommandError("bot.error.shensha_usage")
        calendar = importlib.import_module("engine.calendar")
        user = await ctx.storage.get_user(incoming.user_key)
        zone = zone_of(user, ctx)
        at = (await ctx.clock.now()).astimezone(zone)
        p = calendar.four_pillars(at)
        parsed = {"day": p.day, "month": p.month.branch, "year": p.year, "hour": p.hour.branch}
        when = {"local": fmt_local(at), "zone": zone.key}
    else:
        parsed = parse_shensha_args(args)
        if parsed["day"] is None:
            raise CommandError("bot.error.shensha_usage")
    day: GanZhi = parsed["day"]
    month: Branch | None = parsed["month"]
    year: GanZhi | None = parsed["year"]
    hour: Branch | None = parsed["hour"]
    try:
        result = engine.evaluate(day, month=month, year=year, hour=hour)
    except EngineInputError:
        raise
    inputs = {
        "day": day.chars,
        "month": month.char if month is not None else None,
        "year": year.chars if year is not None else None,
        "hour": hour.char if hour is not None else None,
    }
    stars = stars_view(result)
    context = {**inputs, "when": when, "stars": stars, **grouped_view(stars)}
    return await record_and_reply(
        incoming, ctx, Record(kind="shensha", inputs=inputs, options={}, view="shensha", context=context)
    )
