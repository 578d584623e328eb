"""/cast: a 大六壬 chart for now, a local date-time, a (day, 局) or a (day, 月將, 占時)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import fields, replace
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from bot import jsonio
from bot.bounded import BoundedCache
from bot.context import AppContext
from bot.features import options as engine_options
from bot.features.base import ArgSpec, CommandError, Incoming, Page, Reply, Stored, caller, command
from bot.features.common import (
    NOW_WORDS,
    Record,
    fmt_local,
    fmt_offset,
    parse_branch,
    parse_ganzhi,
    parse_local_datetime,
    record_and_reply,
    resolve_local,
    zone_of,
)
from bot.features.liuren.model import (
    BoardCell,
    CastView,
    ChartView,
    LessonView,
    PillarsView,
    TransmissionView,
    WhenView,
)
from bot.features.liuren.view import gloss
from bot.i18n import N_, term
from engine.calendar import DayStart, four_pillars
from engine.core.cycle import Branch, GanZhi
from engine.liuren import Chart, build_chart, chart_at, chart_for_ju, leishen, reading
from engine.liuren.verdict import judge

if TYPE_CHECKING:
    from bot.storage import UserSettings

# 地盤 positions of the phone-sized 4×4 board (巳午未申 on top, 寅丑子亥 at the bottom).
BOARD: tuple[tuple[int | None, ...], ...] = (
    (5, 6, 7, 8),
    (4, None, None, 9),
    (3, None, None, 10),
    (2, 1, 0, 11),
)
_TIME_ONLY_RE = re.compile(r"^\d{1,2}:\d{2}$")
_JU_RE = re.compile(r"^(?:第)?(\d{1,2})(?:局|국|번)?$")


def time_options(user: UserSettings | None) -> tuple[str, float | None]:
    """(day start "23:00" | "00:00", longitude for true solar time or None)."""
    options = user.options if user else {}
    day_starts = str(options.get("day_starts", "23:00"))
    solar = options.get("solar_time", "off") == "on"
    if solar and (user is None or user.longitude is None):
        raise CommandError("bot.error.solar_needs_place")
    return day_starts, (user.longitude if solar and user else None)


def parse_cast_args(args: tuple[str, ...]) -> tuple[str, Any]:
    """("now", None) | ("local", datetime) | ("today", "HH:MM") | ("ju", (GanZhi, int))
    | ("board", (GanZhi, Branch, Branch))."""
    if not args or (len(args) == 1 and args[0].lower() in NOW_WORDS):
        return "now", None
    when = parse_local_datetime(args)
    if when is not None:
        return "local", when
    if len(args) == 1 and _TIME_ONLY_RE.match(args[0]):
        return "today", args[0]
    first = args[0]
    if first.lower() in NOW_WORDS:  # "now" is right: the word after it is not (a 類神 category, or nothing)
        raise CommandError("chat.error.unknown_word", value=" ".join(args[1:])[:20])
    if first[:1].isdigit():
        raise CommandError("bot.error.bad_datetime", value=" ".join(args)[:40])
    if len(first) not in (2, 3):  # not even shaped like 庚辰 / 경진 / 庚辰日: show how to ask
        raise CommandError("bot.error.cast_usage")
    day = parse_ganzhi(first)
    rest = [a for a in args[1:] if a not in ("日", "일")]
    if len(rest) == 1:
        m = _JU_RE.match(rest[0])
        if not m:
            raise CommandError("bot.error.bad_ju", value=rest[0][:10])
        ju = int(m.group(1))
        if not 1 <= ju <= 12:
            raise CommandError("bot.error.bad_ju", value=rest[0][:10])
        return "ju", (day, ju)
    if len(rest) == 2:
        general = parse_branch(rest[0].removesuffix("將").removesuffix("장"))
        hour = parse_branch(rest[1])
        return "board", (day, general, hour)
    raise CommandError("bot.error.cast_usage")


def chart_view(chart: Chart, category: str | None = None) -> ChartView:
    """The language-neutral view model of a ``engine.liuren.Chart`` (characters only, JSON-able), every part of
    it the caller's own (read again from the cache's kept texts)."""
    written = chart_view_written(chart, category)[1]
    return {name: jsonio.loads(kept.text) for name, kept in written.items()}  # type: ignore[return-value]


def chart_view_written(
    chart: Chart, category: str | None = None
) -> tuple[ChartView, Mapping[str, jsonio.Kept]]:
    """:func:`chart_view` as the cache keeps it (see ``_entry``): every member read-only, and every member as
    ``jsonio.Kept`` (its text and value): ``Record.written``."""
    entry = _entry(chart, category)
    return entry.view, entry.written


def fresh_chart_view(
    chart: Chart, category: str | None, readings: list[dict[str, Any]], verdict: dict[str, Any]
) -> ChartView:
    """The view model of ``chart`` with its reading and verdict (as JSON), built afresh: what the cache keeps
    (and what a test compares it with). It reads nothing of the chart's instant (``moment``)."""

    def gen(branch: Branch) -> str:
        return chart.general_on(branch).char

    board: list[list[BoardCell | None]] = []
    for row in BOARD:
        cells: list[BoardCell | None] = []
        for earth in row:
            if earth is None:
                cells.append(None)
                continue
            heaven = chart.heaven[earth]
            cells.append({"earth": Branch(earth).char, "heaven": heaven.char, "general": gen(heaven)})
        board.append(cells)
    lessons: list[LessonView] = [
        {"upper": ls.upper.char, "lower": ls.lower.char, "general": gen(ls.upper), "ke": ls.ke}
        for ls in chart.lessons
    ]
    transmissions: list[TransmissionView] = [
        {
            "branch": t.branch.char,
            "dun": t.dun_stem.char if t.dun_stem is not None else None,
            "relative": t.relative,
            "general": t.general.char,
            "empty": t.is_empty,
            "marks": list(t.marks),
        }
        for t in chart.transmissions
    ]
    patterns: list[str] = []
    for name in chart.ke_ti():
        if name not in patterns and name != chart.method.char:
            patterns.append(name)
    return {
        "day": chart.day.chars,
        "ju": chart.ju,
        "month_general": chart.month_general.char,
        "hour": chart.hour.char,
        "daytime": chart.daytime,
        "xunkong": [b.char for b in chart.xunkong],
        "board": board,
        "lessons": lessons,
        "transmissions": transmissions,
        "method": chart.method.char,
        "method_names": list(chart.method_names),
        "patterns": patterns,
        "trace_rule": chart.trace.rule,
        "options": chart.options.to_json(),
        "readings": readings,
        "category": category,
        "verdict": verdict,
        "trace": chart.trace.to_json(),
        "guiren": chart.guiren.char,
        "forward": chart.forward,
        # what was not given and had to be assumed (issue 20): {"month_general": …, "hour": …} or None
        "assumed": {name: getattr(chart, name).char for name in chart.assumed} or None,
    }


def split_category(args: tuple[str, ...]) -> tuple[tuple[str, ...], str | None]:
    """A trailing 類神 category (天文 / 천문 / tianwen …) taken off the arguments, if there is one."""
    if not args:
        return args, None
    last = args[-1].strip()
    for name in leishen.categories():
        if last in (name, leishen.category_id(name), term("ko", name)):
            return args[:-1], name
    return args, None


def readings_view(chart: Chart, category: str | None = None) -> list[dict[str, Any]]:
    """``engine.liuren.reading.read(chart)`` as JSON (seed-003 text first when the 課 is one of the eight,
    then the composed seed-002 reading); language-neutral ids that ``templates/liuren/reading.*`` resolve."""
    return reading_and_verdict(chart, category)[0]


# The view model of a 課 — its reading and verdict above all (≈ 2.4 ms of CPU, most of a /cast) — is the same
# for every cast of it: cached by the chart *without its instant* and the 月建 and 太歲 branches, which ``read``
# is then given explicitly — so nothing else of the instant can reach them (the rest of the view reads no
# instant). Bounded (least recently used dropped). Each member's JSON text is kept beside it (the reading and
# verdict are 19 of a /cast context's 21 kB), with the value read back from that text, read-only
# (``jsonio.kept``): ``record_and_reply`` stores the texts and answers with the values as they are.
READING_CACHE_SIZE = 2048
# Bounded in bytes too (issue 36 item 7): an entry holds ≈ 115 kB (its members read-only and their texts, 24 kB
# of JSON: ``tracemalloc``, tests/bot/test_cache_bytes.py), so 2,048 of them were 235 MB. 6 MiB keeps ≈ 50
# 課 — every ``/cast now`` of the hour and the 課 asked again soon; a 課 asked once is cast again (≈ 2.4 ms).
# Measured (bench/memory.py, 5,000 commands): hit rate 0.22 with 24, 12, 8 and 6 MiB — the hits are the casts
# of the hour; a random 課 is almost never asked twice among the thousands of keys.
READING_CACHE_BYTES = 6 << 20
VIEW_BYTES_PER_CHAR = 6  # bytes an entry holds per character of its members' JSON texts (measured: 5.3)


class _Entry(NamedTuple):
    view: ChartView  # every member read-only (jsonio.FrozenList / FrozenDict): written[name].value
    written: Mapping[str, jsonio.Kept]  # by member of ``view``

    @property
    def readings(self) -> list[dict[str, Any]]:
        return self.view["readings"]

    @property
    def verdict(self) -> dict[str, Any]:
        return self.view["verdict"]


def entry_bytes(entry: _Entry) -> int:
    """What an entry holds, estimated from its texts (see READING_CACHE_BYTES)."""
    return VIEW_BYTES_PER_CHAR * sum(len(kept.text) for kept in entry.written.values())


_READINGS: BoundedCache[tuple[Any, ...], _Entry] = BoundedCache(
    lambda: READING_CACHE_SIZE,
    name="liuren.readings",
    max_bytes=lambda: READING_CACHE_BYTES,
    size_of=entry_bytes,
)


# The chart's fields but its instant, in order: equal tuples are equal charts without their instants (what a
# frozen dataclass compares), without making that chart (``replace``) for a look-up.
_CHART_FIELDS = tuple(f.name for f in fields(Chart) if f.name != "moment")


class _Key(tuple[Any, ...]):
    """A tuple hashed once: a look-up hashes its key twice (find, then move to the end), a chart ≈ 6 µs."""

    def __hash__(self) -> int:
        found: int | None = self.__dict__.get("hash")
        if found is None:
            found = self.__dict__["hash"] = tuple.__hash__(self)
        return found


def _entry(chart: Chart, category: str | None) -> _Entry:
    moment = chart.moment
    month = moment.month.branch if moment is not None else None
    year = moment.year.branch if moment is not None else None
    key = _Key((*(getattr(chart, name) for name in _CHART_FIELDS), month, year, category))
    found = _READINGS.find(key)
    if found is not None:
        return found
    bare = replace(chart, moment=None) if moment is not None else chart
    readings = [r.to_json() for r in reading.read(bare, category, month=month, year=year)]
    verdict = judge(bare, category).to_json()
    written = {
        name: jsonio.kept(value)
        for name, value in fresh_chart_view(bare, category, readings, verdict).items()
    }
    view: ChartView = {name: kept.value for name, kept in written.items()}  # type: ignore[assignment]
    return _READINGS.keep(key, _Entry(view, MappingProxyType(written)))


def reading_and_verdict(
    chart: Chart, category: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(``readings_view``, the verdict as JSON) of ``chart``: the cache's values, read-only (``jsonio.freeze``)."""
    cached = _entry(chart, category)
    return cached.readings, cached.verdict


def history_summary(context: Mapping[str, Any]) -> dict[str, Any]:
    """/history's line of a 大六壬 cast: its day, 局 and 三傳 (characters)."""
    trans = context.get("transmissions") or []
    first = "".join(t.get("branch", "") for t in trans) or None
    return {"day": context.get("day"), "ju": context.get("ju"), "first": first}


@command(
    "cast",
    aliases=("점", "과", "六壬", "육임", "占"),
    help_msgid=N_("bot.help.cast"),
    usage_msgid=N_("bot.usage.cast"),
    name_msgid=N_("chat.name.cast"),
    order=0,
    stored=Stored(
        kind="cast",
        view="cast",
        summary=history_summary,
        line="chat/history_cast.txt.j2",
        title_msgid=N_("bot.cast.title"),
        pages=(
            Page("brief", N_("chat.page.cast.brief")),
            Page("read", N_("chat.page.cast.read")),
            Page("gloss", N_("chat.page.cast.gloss")),
            Page("trace", N_("chat.page.cast.trace")),
        ),
        picture="cast",
        extras=gloss,
    ),
    args=(
        ArgSpec("when", "string", required=False, description_msgid=N_("bot.arg.cast.when")),
        # 類神 categories of seed 002 (天文 … 飛潛動植): a trailing word of the command line (split_category)
        ArgSpec("category", description_msgid=N_("chat.arg.cast.category"), choices=leishen.categories()),
    ),
)
async def cast(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    user = await caller(incoming, ctx)
    args, category = split_category(args)
    kind, value = parse_cast_args(args)
    options = engine_options.build("liuren", user.options if user else {})
    inputs: dict[str, Any] = {"mode": kind, "category": category}
    when: WhenView | None = None
    pillars_view: PillarsView | None = None
    term_name: str | None = None
    if kind == "today":  # a wall-clock time today, in the user's zone
        zone = zone_of(user, ctx)
        today = (await ctx.clock.now()).astimezone(zone).date()
        hour, minute = (int(x) for x in str(value).split(":"))
        try:
            value = datetime(today.year, today.month, today.day, hour, minute)
        except ValueError:
            raise CommandError("bot.error.bad_datetime", value=str(value)) from None
        kind = "local"
    if kind in ("now", "local"):
        zone = zone_of(user, ctx)
        day_starts, longitude = time_options(user)
        naive: datetime | None = value
        if naive is None:
            at = (await ctx.clock.now()).astimezone(zone)
        else:
            at = resolve_local(naive, zone) if naive.tzinfo is None else naive
        zone_key = zone.key if naive is None or naive.tzinfo is None else None
        chart = chart_at(
            at,
            options,
            day_starts=DayStart.parse(day_starts),
            solar_longitude=longitude,
            latitude=user.latitude if user else None,
        )
        pillars = four_pillars(at, DayStart.parse(day_starts), longitude)
        inputs.update(
            at=at.isoformat(),
            zone=zone_key,
            day_starts=day_starts,
            solar_longitude=longitude,
            # the 晝夜-by-sunrise option reads the place: the picture is cast again from these inputs
            latitude=user.latitude if user else None,
        )
        when = {
            "local": fmt_local(at),
            "offset": fmt_offset(at),
            "zone": zone_key,
            "solar": fmt_local(pillars.local) if longitude is not None else None,
            "longitude": longitude,
        }
        pillars_view = {
            "year": pillars.year.chars,
            "month": pillars.month.chars,
            "day": pillars.day.chars,
            "hour": pillars.hour.chars,
        }
        term_name = pillars.term.name
    elif kind == "ju":
        day, ju = value
        chart = chart_for_ju(day, ju, options)
        inputs.update(day=day.chars, ju=ju)
    else:
        day, general, hour = value
        chart = build_chart(day, general, hour, options)
        inputs.update(day=day.chars, month_general=general.char, hour=hour.char)
    view, written = chart_view_written(chart, category)
    context: CastView = {"when": when, "pillars": pillars_view, "term": term_name, **view}
    return await record_and_reply(
        incoming,
        ctx,
        Record(
            kind="cast",
            inputs=inputs,
            options=chart.options.to_json(),
            view="cast",
            context=context,
            written=written,
        ),
    )


__all__ = ["cast", "chart_view", "parse_cast_args", "GanZhi"]
