"""/liuyao: a 六爻 cast (three coins, six digits, or the time) read on today's month and day."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.context import AppContext
from bot.features import options as engine_options
from bot.features.base import ArgSpec, Cast, CommandError, Incoming, Page, Reply, Stored, caller, command
from bot.features.common import (
    NOW_WORDS,
    Record,
    fmt_local,
    fmt_offset,
    record_and_reply,
    zone_of,
)
from bot.features.liuren.command import time_options
from bot.features.liuyao.model import JudgmentView, LineView, LiuyaoView
from bot.features.liuyao.view import moving_stars
from bot.features.topics import asked, choose_reply, resolve
from bot.i18n import N_
from bot.pictures import Picture
from engine.calendar import DayStart, four_pillars
from engine.core.cycle import Branch, GanZhi
from engine.liuyao import Cast as LiuyaoCast
from engine.liuyao import Method, Reading, TimeNumbers, build, cast_coins, cast_manual, cast_time
from engine.liuyao.analysis import rule
from engine.liuyao.judgments import JU_HUI
from engine.liuyao.verdict import LINE_NAMES

COIN_WORDS = frozenset({"coins", "coin", "동전", "錢", "钱", "擲錢"})
TIME_WORDS = frozenset({"time", "시간", "時", "时", "時起"}) | NOW_WORDS
_DIGITS_RE = re.compile(r"^[6-9]{6}$")


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


def _on_use(j: dict[str, Any], use: dict[str, Any]) -> bool:
    """Does a judgment that holds fall on what the verdict reads (``engine.liuyao.verdict``: a 局 acts on the
    whole chart, a judgment on the 世 always counts, else the 用 line itself)?"""
    if j.get("rule") == JU_HUI:
        return True
    subject = j.get("subject")
    if not subject:
        return False
    if subject.get("role") == "世":
        return True
    return subject.get("line") == use.get("line") and bool(subject.get("hidden")) == bool(use.get("hidden"))


def _lines_named(text: str) -> list[int]:
    """The line positions a verdict reason names (初爻 … 上爻), in order."""
    found = [(text.find(name), i) for i, name in enumerate(LINE_NAMES, 1) if name in text]
    return [i for _, i in sorted(found)]


def verdict_view(data: dict[str, Any]) -> tuple[dict[str, Any], list[JudgmentView]]:
    """The verdict (``Verdict.to_json()``) and the judgments that hold, each judgment with the weight it has in
    the verdict (None: it holds, but not on the 用神 or the 世, so it was not weighed).

    The verdict lists a reason per weighed judgment in the judgments' order; the reasons that are judgments
    are kept on the judgment (one line for one fact), the others stay reasons, with the lines they name."""
    verdict = dict(data["verdict"])
    use = verdict["use"]
    weights = [r["weight"] for r in verdict["reasons"] if r["code"] == "judgment"]
    holding = [j for j in data.get("judgments", []) if j.get("holds")]
    weighed = [i for i, j in enumerate(holding) if _on_use(j, use)]
    paired = len(weighed) == len(weights)
    judgments: list[JudgmentView] = []
    for i, j in enumerate(holding):
        weight = weights[weighed.index(i)] if paired and i in weighed else None
        judgments.append(
            {
                "rule": j.get("rule"),
                "name": j.get("name"),
                "type": j.get("type"),
                "source": j.get("source"),
                "direction": j.get("direction"),
                "reversed": bool(j.get("reversed")),
                "grave": bool(j.get("grave")),
                "subject": j.get("subject"),
                "agent": j.get("agent"),
                "relation": j.get("relation"),
                "ju": j.get("ju"),
                "strength": j.get("strength"),
                # 三刑: who 刑s (and who 沖s) the subject — the day, the month, a moving line or its own 變
                "by": [
                    {
                        "source": a["source"],
                        "branch": a["branch"],
                        "line": a.get("line"),
                        "chong": not a["xing"],
                    }
                    for a in j.get("agents", ())
                    if a.get("xing") or a.get("chong")
                ],
                "weight": weight,
            }
        )
    every = [{**r, "lines": _lines_named(r["text"])} for r in verdict["reasons"]]
    verdict["reasons"] = [r for r in every if r["code"] != "judgment" or not paired]
    # the reasons that decided (``Verdict.deciding``, heaviest first; a first screen names two or three), a
    # judgment's with the judgment it weighs (its subject and who acts on it); rows stored before it: none
    at_judgment = [i for i, r in enumerate(every) if r["code"] == "judgment"]
    verdict["deciding"] = [
        {**every[i], "judgment": judgments[weighed[at_judgment.index(i)]]}
        if paired and i in at_judgment
        else every[i]
        for i in verdict.get("deciding", ())
    ]
    return verdict, judgments


def liuyao_view(reading: Reading) -> LiuyaoView:
    """The view model of a 六爻 ``Reading`` (``engine.liuyao.build``: the chart with its judgments, the 裝卦
    analysis of every line and the verdict), lines listed top → bottom. 神煞 are kept on the moving lines only
    (000:223 「各伺其動，不動則不伺也」, ``LineAnalysis.stars``).

    Each value is what the reading's JSON contract (``Reading.to_json``) gives for it, read off the reading's
    objects: the contract writes every field of every line, judgment and check (≈ 0.15 ms), of which the view
    keeps a few; the judgments that hold and the verdict are taken from their own ``to_json``.
    (``tests/bot/test_liuyao_view.py`` compares the two over every cast.)"""
    board = reading.chart
    lines: list[LineView] = []
    for ln, an in zip(reversed(board.lines), reversed(reading.analysis), strict=True):
        changed, condition = ln.changed, ln.condition
        lines.append(
            {
                "line": ln.position,
                "yang": ln.yang,
                "moving": ln.moving,
                "ganzhi": ln.ganzhi.chars,
                "relative": ln.relative.char,
                "spirit": ln.spirit.char,
                "shi": ln.shi,
                "ying": ln.ying,
                "empty": condition.empty,
                "month_break": condition.month_break,
                "vitality": condition.vitality.char,
                "changed": (
                    {"ganzhi": changed.ganzhi.chars, "relative": changed.relative.char} if changed else None
                ),
                "hidden": [
                    {"ganzhi": h.hidden.ganzhi.chars, "relative": h.hidden.relative.char} for h in ln.hidden
                ],
                "marks": list(an.stars),
                "strength": list(an.strength.tags),
                "strong": bool(an.strength.strong),
                "transforms": [rule(t).lzh for t in an.transforms],
            }
        )
    main, changed_hex = board.main, board.changed
    verdict, judgments = verdict_view(
        {
            "verdict": reading.verdict.to_json(),
            "judgments": [j.to_json() for j in reading.judgments if j.holds],
        }
    )
    return {
        "main": {"name": main.name, "palace": main.palace.char, "stage": main.stage.char},
        "changed": (
            {"name": changed_hex.name, "palace": changed_hex.palace.char, "stage": changed_hex.stage.char}
            if changed_hex
            else None
        ),
        "month": board.month.char,
        "day": board.day.chars,
        "xunkong": [b.char for b in board.xunkong],
        "flags": list(board.flags),
        "lines": lines,
        "use": None if board.use is None else board.use.to_json(),
        "judgments": judgments,
        "verdict": verdict,
        "options": board.options.to_json(),
        "cast": board.cast.to_json(),
    }


def history_summary(context: Mapping[str, Any]) -> dict[str, Any]:
    """/history's line of a 六爻 cast: its hexagram and the one it changes to."""
    main, changed = context.get("main") or {}, context.get("changed") or {}
    return {"main": main.get("name"), "changed": changed.get("name")}


def cast_of(inputs: Mapping[str, Any], options: Mapping[str, Any]) -> Cast:
    """The one cast of a ``/liuyao`` row's inputs and options (``Stored.cast``): the reading's view model and
    the picture of its chart."""
    reading = build(
        cast_from_json(inputs["cast"]),
        Branch.from_char(str(inputs["month"])),
        GanZhi.parse(str(inputs["day"])),
        use=inputs.get("use"),
        options=engine_options.from_json("liuyao", options),
    )
    at = datetime.fromisoformat(str(inputs["at"]))
    zone = inputs.get("zone")
    context = {
        "when": {"local": fmt_local(at), "zone": zone, "offset": fmt_offset(at)},
        **liuyao_view(reading),
        "asked": inputs.get("asked"),  # the 用神 asked in the user's words (engine.lexicon), or None
    }
    return Cast(context, Picture("liuyao", reading.chart))


def cast_from_json(data: Mapping[str, Any]) -> LiuyaoCast:
    """``engine.liuyao.cast.Cast`` from its ``to_json`` form (the digits and how they were obtained)."""
    tosses = data.get("tosses")
    numbers = data.get("numbers")
    at = data.get("at")
    return LiuyaoCast(
        digits=str(data["digits"]),
        method=Method(str(data["method"])),
        tosses=None if tosses is None else tuple((int(a), int(b), int(c)) for a, b, c in tosses),
        numbers=None
        if numbers is None
        else TimeNumbers(
            year=int(numbers["year"]),
            month=int(numbers["month"]),
            day=int(numbers["day"]),
            hour=int(numbers["hour"]),
            pillars=None
            if numbers.get("pillars") is None
            else tuple(GanZhi.parse(str(p)) for p in numbers["pillars"]),  # type: ignore[arg-type]
        ),
        at=None if at is None else datetime.fromisoformat(str(at)),
    )


@command(
    "liuyao",
    aliases=("육효", "六爻", "괘", "卦"),
    help_msgid=N_("bot.help.liuyao"),
    usage_msgid=N_("bot.usage.liuyao"),
    name_msgid=N_("chat.name.liuyao"),
    order=2,
    stored=Stored(
        kind="liuyao",
        view="liuyao",
        summary=history_summary,
        line="chat/history_liuyao.txt.j2",
        title_msgid=N_("bot.liuyao.title"),
        # 卦 · 斷 · 神煞 (issue #19); the 神煞 of the moving lines are the stars page's (and the whole view's)
        pages=(
            Page("brief", N_("chat.page.liuyao.brief"), extras=False),
            Page("verdict", N_("chat.page.liuyao.verdict"), extras=False),
            Page("stars", N_("chat.page.liuyao.stars")),
        ),
        picture="liuyao",
        extras=moving_stars,
        # a group sees the 卦 and its judgment and the moment on the clock (no saved data is in the view)
        public=(
            *("when.local", "when.zone", "when.offset", "main", "changed", "month", "day", "xunkong"),
            *("flags", "lines", "use", "judgments", "verdict", "options", "cast", "asked", "no", "picture"),
        ),
        cast=cast_of,
    ),
    args=(
        # how to cast (coins: 擲錢, time: 時起); a typed line (6 digits) in ``lines`` is a manual cast instead
        ArgSpec("method", description_msgid=N_("chat.arg.liuyao.method"), choices=("coins", "time")),
        ArgSpec("lines", "string", required=False, description_msgid=N_("bot.arg.liuyao.lines")),
        # the 用神: a 六親 of seed 000, 世, or a question in one's own words (engine.lexicon; Discord autocomplete)
        ArgSpec("use", description_msgid=N_("chat.arg.liuyao.use"), complete="liuyao_use"),
    ),
)
async def liuyao(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    method, digits, word = parse_liuyao_args(args)
    use: str | None = None
    asked_view: dict[str, Any] | None = None
    if word is not None:
        match = resolve(word, "liuyao")
        if match is None:  # not a word we know (or 婚姻: 男娶 or 女嫁?): the closest, to tap or type
            head = digits if method == "manual" else ("time" if method == "time" else None)
            return choose_reply(word, "liuyao", " ".join(p for p in ("/liuyao", head) if p))
        use, asked_view = match.target, asked(match)
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
    inputs = {
        "method": method,
        "cast": cast.to_json(),
        "at": at.isoformat(),
        "zone": zone.key,
        "month": pillars.month.branch.char,
        "day": pillars.day.chars,
        "use": use,
        "asked": asked_view,
    }
    return await record_and_reply(
        incoming, ctx, Record(kind="liuyao", inputs=inputs, options=options.to_json())
    )
