"""/cast: a 大六壬 chart for now, a local date-time, a (day, 局) or a (day, 月將, 占時)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from bot.context import AppContext
from bot.features import options as engine_options
from bot.features.base import (
    ArgSpec,
    Cast,
    CommandError,
    Incoming,
    Page,
    Reply,
    Stored,
    Topics,
    caller,
    command,
)
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
from bot.features.topics import asked, choose_reply, resolve
from bot.i18n import N_, term
from bot.pictures import Picture
from engine import lexicon
from engine.calendar import DayStart, four_pillars
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuren import Chart, build_chart, chart_at, chart_for_ju, leishen, reading
from engine.liuren.nianming import lichun_year, nianming
from engine.liuren.topics import TopicReading, read_topic, topic_for
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
# The asker's birth year at the end of the cast line (issue 32 item 5): 1990, 1990년생, 1990年生, with the sex
# in it or after it (1990남, 1990 여, 1990年生 男). No other form of the line ends in four digits alone.
# The 月建 of a cast by day: 寅月 / 인월 (a branch and 月), anywhere after the day.
_MONTH_RE = re.compile(r"^[子丑寅卯辰巳午未申酉戌亥자축인묘진사오미신유술해][月월]$")
_BIRTH_RE = re.compile(r"^(\d{4})(?:년생|년|생|年生|年|生)?(남|여|男|女)?$")


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


def chart_view(
    chart: Chart,
    category: str | None = None,
    *,
    month: Branch | None = None,
    birth: Branch | None = None,
    xingnian: Branch | None = None,
) -> ChartView:
    """The language-neutral view model of a ``engine.liuren.Chart`` (characters only, JSON-able): the chart, its
    reading and its verdict (read on the chart without its instant, with the 月建 and 太歲 branches given, and
    the asker's 本命 and 行年 branches when known). ``month`` is the 月建 typed with a cast by day (寅月); a
    chart cast for an instant has its own."""
    moment = chart.moment
    month = moment.month.branch if moment is not None else month
    year = moment.year.branch if moment is not None else None
    bare = replace(chart, moment=None) if moment is not None else chart
    ming = {"birth": birth, "xingnian": xingnian}
    readings = [r.to_json() for r in reading.read(bare, category, month=month, year=year, **ming)]
    return fresh_chart_view(bare, category, readings, judge(bare, category, **ming).to_json())


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
    rest, match = split_topic(args)
    return rest, (match.heading if match is not None else None)


def split_topic(args: tuple[str, ...]) -> tuple[tuple[str, ...], lexicon.Match | None]:
    """A trailing word of the lexicon taken off the arguments, if there is one: a topic (재물 → 求財, with the
    類神 heading seed 002 gives it, if any) or a 類神 heading by name (天文 / 천문 / tianwen)."""
    if not args:
        return args, None
    last = args[-1].strip()
    match = resolve(last, "liuren")
    if match is None:
        for name in leishen.categories():  # the Korean reading of a heading (term table): 비잠동식 …
            if last == term("ko", name):
                match = resolve(name, "liuren")
    return (args[:-1], match) if match is not None else (args, None)


_DAY_LETTERS = frozenset(
    "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥갑을병정무기경신임계자축인묘진사오미유술해"
)


def unknown_topic(args: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """(the word, the arguments before it) when the last argument is not a date, a 局 or a day but what is
    before it is a cast (nothing before it: now, if the word is close to a topic): an unknown topic word
    (answered with the closest topics), else None."""
    if not args:
        return None
    last = args[-1].strip()
    if not last or last[:1].isdigit():
        return None
    try:  # first the cheap question (is it a cast? `now`, a date …), the lexicon's similarity only if not
        parse_cast_args(args)
    except (CommandError, EngineInputError):
        pass
    else:
        return None
    if len(args) == 1 and (
        any(ch in _DAY_LETTERS for ch in last) or not lexicon.suggest(last, "liuren", fallback=False)
    ):  # alone, a word shaped like a day, or close to no topic (tomorrow): the usage, not topics
        return None
    try:
        parse_cast_args(args[:-1])
    except (CommandError, EngineInputError):
        return None
    return last, args[:-1]


def topic_reading(chart: Chart, inputs: Mapping[str, Any]) -> TopicReading | None:
    """The reading of the topic the row's inputs ask (``inputs["asked"]["topic"]``: 求財 …; issue 32), read by
    ``engine.liuren.topics`` on the chart without its instant, with the 月建 when the cast has a moment; None
    when no topic was asked (nothing, or a 類神 heading alone). The one place the cast asks the engine for a
    topic's line: what else the inputs give the reading (the asker's 年命) is passed here."""
    asked_view = inputs.get("asked")
    name = asked_view.get("topic") if isinstance(asked_view, Mapping) else None
    topic = topic_for(str(name)) if name else None
    if topic is None:
        return None
    month = chart.moment.month.branch if chart.moment is not None else typed_month(inputs)
    bare = replace(chart, moment=None) if chart.moment is not None else chart
    ming = inputs.get("nianming")  # the asker's 本命 and 行年 as stored with the cast (issue 32 item 5)
    return read_topic(bare, topic, month=month, **ming_branches(ming if isinstance(ming, Mapping) else None))


# the topic buttons under a cast (issue 32 item 3), each re-reading the same row for its topic: (page name in
# the button's data, the topic of seed 003 it asks, its label)
TOPIC_BUTTONS: tuple[tuple[str, str, str], ...] = (
    ("cai", "求財", N_("chat.topic.qiucai")),
    ("hun", "婚姻", N_("chat.topic.hunyin")),
    ("bing", "疾病", N_("chat.topic.jibing")),
    ("song", "爭訟", N_("chat.topic.zhengsong")),
    ("guan", "功名", N_("chat.topic.gongming")),
    ("xing", "出行", N_("chat.topic.chuxing")),
    ("shi", "失脫", N_("chat.topic.shituo")),
    ("zhai", "家宅", N_("chat.topic.jiazhai")),
)


# the topics of seed 003 without a button, reached on the console by a word typed (issue 32 limit 1): (page
# name, topic); the 類神 headings of seed 002 are reached the same way, each page named by its id (tianwen …)
TYPED_TOPICS: tuple[tuple[str, str], ...] = (
    ("tianshi", "天時"),
    ("taichan", "胎產"),
    ("xingren", "行人"),
    ("touye", "投謁"),
)


@functools.cache
def topic_targets() -> Mapping[str, str]:
    """Every topic page's name → the lexicon target it asks (a topic of seed 003, or a 類神 heading); built
    once (the tables do not change while the process runs)."""
    found = {key: topic for key, topic, _ in TOPIC_BUTTONS}
    found.update(TYPED_TOPICS)
    found.update((leishen.category_id(name), name) for name in leishen.categories())
    return MappingProxyType(found)


def typed_topic_pages() -> tuple[str, ...]:
    """The topic pages without a button (:data:`TYPED_TOPICS` and the 類神 headings)."""
    buttons = {key for key, _, _ in TOPIC_BUTTONS}
    return tuple(name for name in topic_targets() if name not in buttons)


def ask_topic(inputs: Mapping[str, Any], page: str) -> dict[str, Any]:
    """A row's inputs asking the topic of the topic page ``page`` instead of what they asked: what ``/cast``
    stores for that topic typed by name (its 類神 heading, the ``asked`` view; a heading alone asks no
    topic), all else (the moment, the day and 局) the same."""
    name = topic_targets()[page]
    match = resolve(name, "liuren")
    if match is None:  # every page's target is one of the lexicon (tests/chat/test_topic_screen.py)
        raise ValueError(f"no lexicon topic {name!r}")
    rest = {key: value for key, value in inputs.items() if key != "asked"}
    if match.topic is None:  # a 類神 heading by name: shown, no topic leading (as /cast 庚辰 8 천문)
        return {**rest, "category": match.heading}
    return {**rest, "category": match.heading, "asked": {**asked(match), "word": None}}


def topic_page_named(word: str) -> str | None:
    """The topic page a word names, read as the cast line reads its last word (:func:`split_topic`: 재물, 돈,
    婚姻, 財, 천문 …), or None."""
    match = split_topic((word,))[1]
    if match is None:
        return None
    return next((key for key, target in topic_targets().items() if target == match.target), None)


def topic_choices(word: str) -> Reply | None:
    """For a word naming no topic but close to some (as :func:`unknown_topic` asks): the ``choose`` reply of
    the closest, each typed alone (the cast in view is read for it); else None."""
    if not lexicon.suggest(word, "liuren", fallback=False):
        return None
    return choose_reply(word, "liuren", "")


def split_month(args: tuple[str, ...]) -> tuple[tuple[str, ...], Branch | None]:
    """The 月建 of a cast by day taken off the arguments: a word after the day that is a branch and 月 (寅月,
    인월; ``parse_branch``, as ``/shensha`` reads it), the CLI's ``--month``. Seed 002 「月建 正月寅、二月卯…」:
    the month's branch, which a 干支 cast does not give (旺相休囚 and 「月建屬月」 read it). Two → the usage."""
    found = [i for i, a in enumerate(args) if i > 0 and _MONTH_RE.match(a.strip())]
    if not found:
        return args, None
    if len(found) > 1:
        raise CommandError("bot.error.cast_usage")
    i = found[0]
    return args[:i] + args[i + 1 :], parse_branch(args[i].strip())


def typed_month(inputs: Mapping[str, Any]) -> Branch | None:
    """The 月建 a row's inputs were given with a cast by day (``inputs["month"]``, 寅), or None."""
    month = inputs.get("month")
    return Branch.from_char(str(month)) if month else None


def split_birth(args: tuple[str, ...]) -> tuple[tuple[str, ...], int | None, str | None]:
    """A trailing birth year (and the sex, in it or after it) taken off the arguments: (the rest, the year or
    None, "male" | "female" | None)."""
    rest = [a.strip() for a in args]
    sex: str | None = None
    if len(rest) >= 2 and rest[-1].lower() in engine_options.SEX_WORDS and _BIRTH_RE.match(rest[-2]):
        sex = engine_options.SEX_WORDS[rest.pop().lower()]
    m = _BIRTH_RE.match(rest[-1]) if rest else None
    if m is None:
        return args, None, None
    if m.group(2):
        sex = engine_options.SEX_WORDS[m.group(2)]
    return tuple(rest[:-1]), int(m.group(1)), sex


def nianming_view(chart: Chart, ming: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What the 盤 page shows of the asker's 年命 (the stored ``inputs["nianming"]``): 本命 and 行年, each with
    its 地盤 branch, the 天盤 branch over it and the 天將 riding that."""
    if not ming:
        return None

    def seat(gz: str | None) -> dict[str, str] | None:
        if not gz:
            return None
        earth = GanZhi.parse(gz).branch
        up = chart.heaven[earth]
        return {"gz": gz, "b": earth.char, "up": up.char, "general": chart.general_on(up).char}

    return {
        "birth_year": ming.get("birth_year"),
        "age": ming.get("age"),
        "sex": ming.get("sex"),
        "benming": seat(ming.get("benming")),
        "xingnian": seat(ming.get("xingnian")),
    }


def ming_branches(ming: Mapping[str, Any] | None) -> dict[str, Branch | None]:
    """The 本命 and 行年 branches of the stored ``inputs["nianming"]`` (for the engine's readings)."""
    ming = ming or {}
    return {
        name: GanZhi.parse(str(ming[key])).branch if ming.get(key) else None
        for name, key in (("birth", "benming"), ("xingnian", "xingnian"))
    }


def history_summary(context: Mapping[str, Any]) -> dict[str, Any]:
    """/history's line of a 大六壬 cast: its day, 局 and 三傳 (characters)."""
    trans = context.get("transmissions") or []
    first = "".join(t.get("branch", "") for t in trans) or None
    return {"day": context.get("day"), "ju": context.get("ju"), "first": first}


def cast_of(inputs: Mapping[str, Any], options: Mapping[str, Any]) -> Cast:
    """The one cast of a ``/cast`` row's inputs and options (``Stored.cast``): its view model and picture."""
    opts = engine_options.from_json("liuren", options)
    mode = inputs.get("mode")
    category = inputs.get("category")
    when: WhenView | None = None
    pillars_view: PillarsView | None = None
    term_name: str | None = None
    if mode == "ju":
        chart = chart_for_ju(GanZhi.parse(str(inputs["day"])), int(inputs["ju"]), opts)
    elif mode == "board":
        chart = build_chart(
            GanZhi.parse(str(inputs["day"])),
            Branch.from_char(str(inputs["month_general"])),
            Branch.from_char(str(inputs["hour"])),
            opts,
        )
    else:  # now, local, today: an instant
        at = datetime.fromisoformat(str(inputs["at"]))
        day_starts = DayStart.parse(str(inputs.get("day_starts") or "23:00"))
        longitude, latitude = inputs.get("solar_longitude"), inputs.get("latitude")
        chart = chart_at(
            at,
            opts,
            day_starts=day_starts,
            solar_longitude=float(longitude) if longitude is not None else None,
            latitude=float(latitude) if latitude is not None else None,
        )
        pillars = four_pillars(at, day_starts, longitude)
        zone_key = inputs.get("zone")
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
    topic = topic_reading(chart, inputs)
    # the asker's 年命 as it was when cast (issue 32 item 5): a replay reads the same, whatever was saved since
    ming = inputs.get("nianming")
    context: CastView = {
        "when": when,
        "pillars": pillars_view,
        "term": term_name,
        **chart_view(chart, category, month=typed_month(inputs), **ming_branches(ming)),
        "asked": inputs.get("asked"),  # the topic asked in the user's words (engine.lexicon), or None
        # its line (engine.liuren.topics: direction, reasons with their sources), or None
        "topic": topic.to_json() if topic is not None else None,
        "nianming": nianming_view(chart, ming),
    }
    marked = tuple(
        GanZhi.parse(str(ming[k])) if ming and ming.get(k) else None for k in ("benming", "xingnian")
    )
    return Cast(context, Picture("cast", chart, nianming=(marked[0], marked[1])))


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
            Page("basis", N_("chat.page.cast.basis"), extras=False),
        ),
        topics=Topics(
            tuple(Page(key, label) for key, _, label in TOPIC_BUTTONS),
            ask_topic,
            typed=typed_topic_pages(),
            named=topic_page_named,
            unknown=topic_choices,
        ),
        picture="cast",
        extras=gloss,
        # a group sees the 課 and its reading, the moment on the clock, never the saved place (true solar
        # time and its longitude)
        public=(
            *("when.local", "when.offset", "when.zone", "pillars", "term", "day", "ju", "month_general"),
            *("hour", "daytime", "xunkong", "board", "lessons", "transmissions", "method", "method_names"),
            *("patterns", "trace_rule", "options", "readings", "category", "verdict", "trace", "guiren"),
            *("forward", "assumed", "asked", "topic", "no", "picture"),
            # 年命: in a group only a birth year typed there (a saved birth and sex are used in private chats)
            "nianming",
        ),
        cast=cast_of,
    ),
    args=(
        ArgSpec("when", "string", required=False, description_msgid=N_("bot.arg.cast.when")),
        # a topic of seed 003 (天時 … 投謁) in one's own words, or a 類神 heading of seed 002 (天文 … 飛潛動植):
        # a trailing word of the command line (split_topic); Discord offers them through autocomplete
        ArgSpec("category", description_msgid=N_("chat.arg.cast.category"), complete="liuren_topic"),
    ),
)
async def cast(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    args, month = split_month(args)
    args, birth_year, sex = split_birth(args)
    args, match = split_topic(args)
    if birth_year is None and match is not None:  # the topic last: /cast now 1990 재물
        args, birth_year, sex = split_birth(args)
    if match is None and (unknown := unknown_topic(args)) is not None:
        word, before = unknown  # a cast with a word we do not know: the closest topics, to tap or type
        return choose_reply(word, "liuren", " ".join(("/cast", *before)) if before else "/cast now")
    user = await caller(incoming, ctx)
    # the 類神 heading the chart shows for it (seed 002); the topic is kept to lead the reading (issue 32)
    category = match.heading if match is not None else None
    asked_view = asked(match) if match is not None and match.topic is not None else None
    kind, value = parse_cast_args(args)
    if month is not None and kind not in ("ju", "board"):  # a cast for a moment has its own 月建
        raise CommandError("bot.error.cast_month", value=month.char)
    options = engine_options.build("liuren", user.options if user else {})
    inputs: dict[str, Any] = {"mode": kind, "category": category}
    if month is not None:
        inputs["month"] = month.char
    if asked_view is not None:
        inputs["asked"] = asked_view
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
        inputs.update(
            at=at.isoformat(),
            zone=zone.key if naive is None or naive.tzinfo is None else None,
            day_starts=day_starts,
            solar_longitude=longitude,
            # the 晝夜-by-sunrise option reads the place
            latitude=user.latitude if user else None,
        )
    elif kind == "ju":
        day, ju = value
        inputs.update(day=day.chars, ju=ju)
    else:
        day, general, hour = value
        inputs.update(day=day.chars, month_general=general.char, hour=hour.char)
    ming = await asker_nianming(incoming, ctx, user, inputs.get("at"), birth_year, sex)
    if ming is not None:
        inputs["nianming"] = ming
    return await record_and_reply(
        incoming, ctx, Record(kind="cast", inputs=inputs, options=options.to_json())
    )


async def asker_nianming(
    incoming: Incoming,
    ctx: AppContext,
    user: UserSettings | None,
    at: str | None,
    birth_year: int | None,
    sex: str | None,
) -> dict[str, Any] | None:
    """The asker's 年命 for this cast (``engine.liuren.nianming``), kept in its inputs: from a birth year typed
    in the line, else — in a private chat only (a group never reads what the user saved) — from the birth
    saved with ``/qizheng … save`` (its 立春 year), else the year saved with ``/settings 생년`` (a saved birth
    date wins: it also knows whether the birthday fell before 立春). The sex typed with the year, else the saved ``sex`` option
    (private chats only); without one, no 行年 (the reply says how to give it). The year asked in is the cast's
    立春 year, or this year's for a cast by day and 局."""
    private = incoming.chat_kind == "private"
    typed = birth_year is not None
    if not typed and private and user is not None and user.birth and user.birth.get("at"):
        birth_year = lichun_year(datetime.fromisoformat(str(user.birth["at"])))
    if birth_year is None and private and user is not None:  # no birth saved: the year of /settings 생년
        birth_year = engine_options.saved_birth_year(user.options)
    if birth_year is None:
        return None
    if sex is None and private and user is not None:
        saved = str(user.options.get("sex", "unset"))
        sex = saved if saved in ("male", "female") else None
    when = datetime.fromisoformat(at) if at else await ctx.clock.now()
    try:
        return nianming(birth_year, lichun_year(when), sex).to_json()
    except EngineInputError:
        if typed:  # a year the user typed that cannot be read (1850, after the cast): said
            raise
        return None  # the saved birth after a cast's date (/cast 1980-01-01 12:00): a cast without 年命


__all__ = ["cast", "cast_of", "chart_view", "parse_cast_args", "split_month", "GanZhi"]
