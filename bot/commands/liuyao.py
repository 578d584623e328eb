"""/liuyao: a 六爻 cast (three coins, six digits, or the time) read on today's month and day."""

from __future__ import annotations

import re

from bot.commands import _options as engine_options
from bot.commands._common import (
    NOW_WORDS,
    Record,
    fmt_local,
    fmt_offset,
    record_and_reply,
    zone_of,
)
from bot.commands.base import ArgSpec, CommandError, Incoming, Reply, caller, command
from bot.commands.cast import time_options
from bot.context import AppContext
from bot.i18n import N_
from bot.viewmodels import LineView, LiuyaoView
from engine.calendar import DayStart, four_pillars
from engine.liuyao import Reading, build, cast_coins, cast_manual, cast_time

COIN_WORDS = frozenset({"coins", "coin", "동전", "錢", "钱", "擲錢"})
TIME_WORDS = frozenset({"time", "시간", "時", "时", "時起"}) | NOW_WORDS
_DIGITS_RE = re.compile(r"^[6-9]{6}$")


USE_CHOICES = ("父母", "兄弟", "官鬼", "妻財", "子孫", "世")


def parse_liuyao_args(args: tuple[str, ...]) -> tuple[str, str | None, str | None]:
    """(method "coins" | "manual" | "time", digits or None, 用神/category or None)."""
    method, digits, use = "coins", None, None
    rest = list(args)
    if rest:
        head = rest[0].strip()
        if _DIGITS_RE.match(head):
            method, digits = "manual", head
            rest.pop(0)
        elif head.lower() in COIN_WORDS:
            rest.pop(0)
        elif head.lower() in TIME_WORDS:
            method = "time"
            rest.pop(0)
        elif head.isdigit():
            raise CommandError("bot.error.liuyao_usage")
    if len(rest) > 1:
        raise CommandError("bot.error.liuyao_usage")
    if rest:
        use = rest[0].strip()[:20]
    return method, digits, use


def liuyao_view(chart: Reading) -> LiuyaoView:
    """The view model of a 六爻 ``Reading`` (``engine.liuyao.build``: the chart with its judgments) from its
    JSON contract (lines listed top → bottom)."""
    data = chart.to_json()
    lines: list[LineView] = []
    for ln in reversed(data["lines"]):
        changed = ln.get("changed")
        lines.append(
            {
                "line": ln["line"],
                "yang": ln["yang"],
                "moving": ln["moving"],
                "ganzhi": ln["ganzhi"],
                "relative": ln["relative"],
                "spirit": ln["spirit"],
                "shi": ln["shi"],
                "ying": ln["ying"],
                "empty": ln.get("empty", False),
                "month_break": ln.get("month_break", False),
                "vitality": ln.get("vitality"),
                "changed": (
                    {"ganzhi": changed["ganzhi"], "relative": changed["relative"]} if changed else None
                ),
                "hidden": [
                    {"ganzhi": h.get("ganzhi"), "relative": h.get("relative")} for h in ln.get("hidden", [])
                ],
                "marks": list(ln.get("shensha", [])),
            }
        )
    main, changed_hex = data["main"], data.get("changed")
    return {
        "main": {"name": main["name"], "palace": main["palace"], "stage": main["stage"]},
        "changed": (
            {"name": changed_hex["name"], "palace": changed_hex["palace"], "stage": changed_hex["stage"]}
            if changed_hex
            else None
        ),
        "month": data["month"],
        "day": data["day"],
        "xunkong": data["xunkong"],
        "flags": data.get("flags", []),
        "lines": lines,
        "use": data.get("use"),
        "judgments": [
            {"rule": j.get("rule"), "type": j.get("type"), "source": j.get("source")}
            for j in data.get("judgments", [])
            if j.get("holds")
        ],
        "cast": data["cast"],
    }


@command(
    "liuyao",
    aliases=("육효", "六爻", "괘", "卦"),
    help_msgid=N_("bot.help.liuyao"),
    args=(
        # how to cast (coins: 擲錢, time: 時起); a typed line (6 digits) in ``lines`` is a manual cast instead
        ArgSpec("method", description_msgid=N_("chat.arg.liuyao.method"), choices=("coins", "time")),
        ArgSpec("lines", "string", required=False, description_msgid=N_("bot.arg.liuyao.lines")),
        # the 用神 as a 六親 of seed 000 (or 世); a free 用神/category word still goes in ``lines``
        ArgSpec("use", description_msgid=N_("chat.arg.liuyao.use"), choices=USE_CHOICES),
    ),
)
async def liuyao(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    method, digits, use = parse_liuyao_args(args)
    user = await caller(incoming, ctx)
    zone = zone_of(user, ctx)
    day_starts, longitude = time_options(user)
    at = (await ctx.clock.now()).astimezone(zone)
    pillars = four_pillars(at, DayStart.parse(day_starts), longitude)
    if method == "manual" and digits is not None:
        cast = cast_manual(digits)
    elif method == "time":
        cast = cast_time(at, day_starts=DayStart.parse(day_starts), solar_longitude=longitude)
    else:
        cast = cast_coins()
    options = engine_options.build("liuyao", user.options if user else {})
    chart = build(cast, pillars.month.branch, pillars.day, use=use, options=options)
    inputs = {
        "method": method,
        "cast": cast.to_json(),
        "at": at.isoformat(),
        "zone": zone.key,
        "month": pillars.month.branch.char,
        "day": pillars.day.chars,
        "use": use,
    }
    context = {
        "when": {"local": fmt_local(at), "zone": zone.key, "offset": fmt_offset(at)},
        **liuyao_view(chart),
    }
    return await record_and_reply(
        incoming,
        ctx,
        Record(kind="liuyao", inputs=inputs, options=chart.options.to_json(), view="liuyao", context=context),
    )
