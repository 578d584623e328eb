"""The 大六壬 chart: 天地盤, 四課, 三傳, 天將, 遁干, 旬空 (spec/liuren.md §1–§4)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from engine.core.cycle import BRANCHES, STEMS, Branch, GanZhi, Stem, xun_dun_stem
from engine.core.relations import Kin
from engine.errors import EngineInputError
from engine.liuren.generals import general_positions, guiren_branch, is_daytime_by_hour, runs_forward
from engine.liuren.methods import distinct_lessons, solve
from engine.liuren.options import DEFAULT_OPTIONS, DayNight, Options
from engine.liuren.patterns import PatternHit, dependent_names, detect_guiren, detect_plain, merge, nobles
from engine.liuren.types import General, Lesson, Method, Trace, Transmission
from engine.shensha import Options as ShenshaOptions
from engine.shensha import marks as shensha_marks


def relative(stem: Stem, branch: Branch) -> str:
    """六親 of a branch vs the day stem, seed-002 names: 印 生我 · 盜 我生 · 鬼 克我 · 財 我克 · 劫 同我."""
    return Kin.of(stem.element, branch.element).char


def ju_of(month_general: Branch, hour: Branch) -> int:
    """局 = (占時 − 月將) mod 12 + 1: 天盤子 sits on 地盤 branch 局 − 1 (spec §1)."""
    return (hour - month_general) % 12 + 1


def offset_of_ju(ju: int) -> int:
    """天盤 over 地盤 b is b + offset, with offset = 月將 − 占時 = 1 − 局 (mod 12)."""
    return (1 - ju) % 12


@dataclass(frozen=True, slots=True)
class Moment:
    """The instant a chart was cast for, and the calendar facts taken from it."""

    at: datetime
    local: datetime
    year: GanZhi
    month: GanZhi
    term: str

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at.isoformat(),
            "local": self.local.replace(tzinfo=None).isoformat(),
            "year": self.year.chars,
            "month": self.month.chars,
            "term": self.term,
        }


@dataclass(frozen=True, slots=True)
class Chart:
    """One 大六壬 課 with everything the board shows."""

    day: GanZhi
    month_general: Branch
    hour: Branch
    ju: int
    offset: int
    heaven: tuple[Branch, ...]  # heaven[earth] = 天盤 branch over that 地盤 branch
    lessons: tuple[Lesson, Lesson, Lesson, Lesson]
    transmissions: tuple[Transmission, Transmission, Transmission]
    method: Method
    method_names: tuple[str, ...]
    daytime: bool
    guiren: Branch  # 天盤 branch the 貴人 rides
    forward: bool  # 天將 run 順
    general_at: tuple[General, ...]  # general_at[heaven branch]
    xunkong: tuple[Branch, Branch]
    trace: Trace
    options: Options
    moment: Moment | None = None
    # what was not given and had to be assumed (issue 20): "hour" and "month_general" when only a 局 was given
    assumed: tuple[str, ...] = ()

    def earth_of(self, heaven_branch: Branch) -> Branch:
        """The 地盤 branch under a 天盤 branch."""
        return BRANCHES[(heaven_branch - self.offset) % 12]

    def heaven_over(self, earth_branch: Branch) -> Branch:
        return self.heaven[earth_branch]

    def general_on(self, branch: Branch) -> General:
        """The 天將 riding a 天盤 branch."""
        return self.general_at[branch]

    @property
    def generals(self) -> Mapping[str, Branch]:
        """天將 name → the 天盤 branch it rides, in running order from 貴人."""
        where = {g: Branch(b) for b, g in enumerate(self.general_at)}
        return {g.char: where[g] for g in General}

    @property
    def branches(self) -> tuple[Branch, Branch, Branch]:
        t = self.transmissions
        return t[0].branch, t[1].branch, t[2].branch

    @property
    def distinct_lessons(self) -> int:
        """Distinct lessons by (upper, 地盤 seat); fewer than 4 is 不備."""
        return distinct_lessons(self.lessons)

    @property
    def lesson_generals(self) -> tuple[General, General, General, General]:
        ls = self.lessons
        return (
            self.general_on(ls[0].upper),
            self.general_on(ls[1].upper),
            self.general_on(ls[2].upper),
            self.general_on(ls[3].upper),
        )

    def dun_stem(self, branch: Branch) -> Stem | None:
        return xun_dun_stem(self.day.xun_head, branch)

    def patterns(self) -> tuple[PatternHit, ...]:
        """課體/課格 hits (as ``engine.liuren.patterns.detect``; computed once per 課 and 貴人, see
        :func:`_keti`)."""
        keti = _keti(self)
        return merge(keti.plain, keti.guiren(self, self.guiren))

    def ke_ti(self) -> list[str]:
        """The 九宗門 names, then the names of the patterns that hold for this cast (its 貴人), no repeats."""
        names = list(self.method_names)
        for hit in self.patterns():
            if hit.name not in names:
                names.append(hit.name)
        return names

    def guiren_dependent(self) -> dict[str, list[str]]:
        """貴人-dependent 課體 → the 貴人 (晝, 夜) they hold under (``engine.liuren.patterns.guiren_dependent``)."""
        keti = _keti(self)
        return dependent_names([(when, keti.guiren(self, gui)) for when, gui in nobles(self)])

    def table_row(self, *, cast: bool = True) -> dict[str, Any]:
        """The ``sikpan liuren table`` line (issue 3 JSON contract, issue 20 ``guiren_dependent``).

        ``cast=True``: ``ke_ti`` holds for this cast's 貴人. ``cast=False`` (the 720 table, where no 占時 is
        given): ``ke_ti`` leaves out the 貴人-dependent names that hold under one 貴人 only; ``guiren_dependent``
        says which.
        """
        dependent = self.guiren_dependent()
        names = self.ke_ti()
        if not cast:
            names = [n for n in names if dependent.get(n, ["晝", "夜"]) == ["晝", "夜"]]
        return {
            "day": self.day.chars,
            "ju": self.ju,
            "lessons": [list(ls.chars) for ls in self.lessons],
            "transmissions": [t.branch.char for t in self.transmissions],
            "method": self.method.char,
            "ke_ti": names,
            "guiren_dependent": dependent,
        }

    def to_json(self) -> dict[str, Any]:
        """Everything the board shows (issue 3 ``cast --json`` contract) plus options and trace."""
        out = self.table_row()
        out.update(
            {
                "month_general": self.month_general.char,
                "hour": self.hour.char,
                "method_names": list(self.method_names),
                "heaven": {Branch(e).char: h.char for e, h in enumerate(self.heaven)},
                "lesson_generals": [g.char for g in self.lesson_generals],
                "transmission_detail": [t.to_json() for t in self.transmissions],
                "generals": {name: b.char for name, b in self.generals.items()},
                "guiren": self.guiren.char,
                "forward": self.forward,
                "daytime": self.daytime,
                "xunkong": [b.char for b in self.xunkong],
                "trace": self.trace.to_json(),
                "options": self.options.to_json(),
                "patterns": [h.to_json() for h in self.patterns()],
            }
        )
        if self.moment is not None:
            out["moment"] = self.moment.to_json()
        if self.assumed:
            out["assumed"] = {name: getattr(self, name).char for name in self.assumed}
        return out


# The 課體 of a chart are a function of its 課 — (day, plate offset, options), from which ``_build`` makes the
# 四課 and 三傳 — and, for the 貴人-dependent ones, of the 貴人's branch: computed once each, on first use.
_KETI_CACHE_LIMIT = 8 * 720


class _KeTi:
    """The 課體 hits of one 課: those that ignore the 貴人, and per 貴人 branch the others."""

    __slots__ = ("by_gui", "plain")

    def __init__(self, plain: tuple[PatternHit, ...]) -> None:
        self.plain = plain
        self.by_gui: dict[Branch, tuple[PatternHit, ...]] = {}

    def guiren(self, chart: Chart, gui: Branch) -> tuple[PatternHit, ...]:
        hits = self.by_gui.get(gui)
        if hits is None:
            hits = self.by_gui[gui] = detect_guiren(chart, gui)
        return hits


_keti_cache: dict[tuple[GanZhi, int, Options], _KeTi] = {}


def _keti(chart: Chart) -> _KeTi:
    key = (chart.day, chart.offset, chart.options)
    found = _keti_cache.get(key)
    if found is None:
        if len(_keti_cache) >= _KETI_CACHE_LIMIT:
            _keti_cache.clear()
        found = _keti_cache[key] = _KeTi(detect_plain(chart))
    return found


def clear_caches() -> None:
    """Forget every memoized chart, 課體, reading and verdict (benchmarks measure the cold cost with this)."""
    from engine.liuren import generals, methods, patterns, reading, verdict

    _build.cache_clear()
    _keti_cache.clear()
    patterns.clear_caches()
    reading.cached_read.cache_clear()
    verdict.cached_judge.cache_clear()
    methods.solve.cache_clear()
    methods.make_lessons.cache_clear()
    generals.general_positions.cache_clear()


def _check_options(options: Options) -> Options:
    if not isinstance(options, Options):
        raise EngineInputError(
            "error.liuren.bad_option", f"not an Options: {options!r}", name="options", value="?"
        )
    return options


def _branch(value: Branch | int) -> Branch:
    """A branch given as a ``Branch`` or its index (``Branch(i)`` validates; a member passes as it is)."""
    return value if type(value) is Branch else Branch(value)


# 天盤 over each 地盤 branch for each plate offset: _HEAVENS[offset][earth].
_HEAVENS: tuple[tuple[Branch, ...], ...] = tuple(
    tuple(BRANCHES[(e + offset) % 12] for e in range(12)) for offset in range(12)
)


# 六親 of each branch vs each day stem: _RELATIVES[stem][branch] (the same as :func:`relative`).
_RELATIVES: tuple[tuple[str, ...], ...] = tuple(tuple(relative(s, b) for b in BRANCHES) for s in STEMS)


# Bounded: 60 days × 12 月將 × 12 占時 = 8640 charts per option set.
@lru_cache(maxsize=2 * 8640)
def _build(
    day: GanZhi,
    month_general: Branch,
    hour: Branch,
    options: Options,
    daytime: bool,
    assumed: tuple[str, ...] = (),
) -> Chart:
    offset = (month_general - hour) % 12
    solution = solve(day, offset, options)
    from engine.liuren.methods import make_lessons  # local: keeps the import graph flat

    lessons = make_lessons(day, offset)
    gui = guiren_branch(day.stem, daytime, options.gui_rule)
    general_at = general_positions(gui, offset)
    head = day.xun_head.branch
    kong = day.xunkong
    relatives = _RELATIVES[day.stem]
    trans = tuple(
        Transmission(
            b,
            STEMS[n] if (n := (b - head) % 12) < 10 else None,  # 旬遁 (xun_dun_stem); None when 空
            relatives[b],
            general_at[b],
            b in kong,
            BRANCHES[(b - offset) % 12],
        )
        for b in solution.branches
    )
    return Chart(
        day,
        month_general,
        hour,
        ju_of(month_general, hour),
        offset,
        _HEAVENS[offset],
        lessons,
        (trans[0], trans[1], trans[2]),
        solution.method,
        solution.names,
        daytime,
        gui,
        runs_forward(gui, offset),
        general_at,
        kong,
        solution.trace,
        options,
        None,
        assumed,
    )


def build_chart(
    day: GanZhi,
    month_general: Branch,
    hour: Branch,
    options: Options = DEFAULT_OPTIONS,
    daytime: bool | None = None,
) -> Chart:
    """The chart for a day 干支, 月將 and 占時 branch.

    ``daytime`` overrides the 晝/夜 decision (needed for ``daynight=sun``, which :func:`chart_at` computes
    from the instant); otherwise it follows the 占時 and ``options.daynight``.
    """
    options = _check_options(options)
    if daytime is None:
        if options.daynight is DayNight.SUN:
            raise EngineInputError(
                "error.liuren.sun_needs_instant", "daynight=sun needs an instant and a place (use chart_at)"
            )
        daytime = is_daytime_by_hour(hour, options.daynight)
    return _build(day, _branch(month_general), _branch(hour), options, bool(daytime))


def chart_for_ju(
    day: GanZhi,
    ju: int,
    options: Options = DEFAULT_OPTIONS,
    hour: Branch | None = None,
    daytime: bool = True,
    month_general: Branch | None = None,
) -> Chart:
    """The chart of a (day, 局) as the 課 tables number them (庚辰日 第8局 has 丑 over 庚).

    The 三傳 depend only on (day, 局). For the 天將 an 占時 is needed: ``hour`` if given, else the one the
    ``month_general`` makes with the 局, else the first hour from 午 (daytime) or 子 (night) that the
    ``daynight`` option counts as day / night — then the chart's ``assumed`` names the 占時 and the 月將.
    """
    if isinstance(ju, bool) or not isinstance(ju, int) or not 1 <= ju <= 12:
        raise EngineInputError("error.liuren.bad_ju", f"局 must be 1…12, not {ju!r}", value=ju)
    options = _check_options(options)
    offset = offset_of_ju(ju)
    if hour is None and month_general is not None:
        hour = _branch(month_general).shift(-offset)
    if hour is None:
        rule = DayNight.MAOSHEN if options.daynight is DayNight.SUN else options.daynight
        start = Branch.WU if daytime else Branch.ZI
        hour = next(
            (start.shift(k) for k in range(12) if is_daytime_by_hour(start.shift(k), rule) == daytime), start
        )
        return _build(day, hour.shift(offset), hour, options, daytime, ("month_general", "hour"))
    hour = _branch(hour)
    if month_general is not None and hour.shift(offset) != month_general:
        raise EngineInputError(
            "error.liuren.ju_mismatch",
            f"{month_general.char}將 {hour.char}時 make 第{ju_of(month_general, hour)}局, not 第{ju}局",
            general=month_general.char,
            hour=hour.char,
            ju=ju,
            actual=ju_of(month_general, hour),
        )
    return _build(day, hour.shift(offset), hour, options, _hour_daytime(hour, options, daytime))


def _hour_daytime(hour: Branch, options: Options, fallback: bool) -> bool:
    if options.daynight is DayNight.SUN:
        return fallback
    return is_daytime_by_hour(hour, options.daynight)


def chart_at(
    at: datetime,
    options: Options = DEFAULT_OPTIONS,
    day_starts: Any = None,
    solar_longitude: float | None = None,
    latitude: float | None = None,
    shensha: bool = False,
) -> Chart:
    """The chart of an instant: day 干支, 月將 (by 中氣) and 占時 from the calendar (spec §1).

    ``day_starts`` is an ``engine.calendar.DayStart`` (default 子初換日 23:00); ``solar_longitude`` switches
    day and hour to local apparent solar time. With ``daynight=sun`` the 晝/夜 decision is the sun's altitude
    at the instant, which needs ``latitude`` and ``solar_longitude`` (the place). ``shensha=True`` also marks
    the transmissions with their 神煞 (see :func:`with_shensha`).
    """
    from engine.calendar import DayStart, four_pillars

    options = _check_options(options)
    starts = DayStart.ZI_23 if day_starts is None else day_starts
    daytime: bool | None = None
    if options.daynight is DayNight.SUN and (latitude is None or solar_longitude is None):
        raise EngineInputError(
            "error.liuren.sun_needs_place", "daynight=sun needs --solar-time LON and --lat LAT"
        )
    pillars = four_pillars(at, starts, solar_longitude)
    if options.daynight is DayNight.SUN:
        from engine.liuren.sun import sun_is_up

        assert latitude is not None and solar_longitude is not None
        daytime = sun_is_up(at, latitude, solar_longitude)
    base = build_chart(pillars.day, pillars.month_general, pillars.hour_branch, options, daytime)
    moment = Moment(at, pillars.local, pillars.year, pillars.month, pillars.term.name)
    chart = _replace(base, moment=moment)
    return with_shensha(chart) if shensha else chart


def with_shensha(chart: Chart) -> Chart:
    """The chart with each transmission marked by the 神煞 on its branch, from ``engine.shensha.marks``
    (the project's one 神煞 table), using the day, 占時 and, when the chart has a moment, its year and month.
    """
    month = chart.moment.month.branch if chart.moment is not None else None
    year = chart.moment.year if chart.moment is not None else None
    options = ShenshaOptions(mu=chart.options.mu.value)  # the chart's 墓 convention for the 十二長生 labels
    marks = shensha_marks(chart.day, month=month, year=year, hour=chart.hour, options=options)
    trans = chart.transmissions
    return _replace(
        chart,
        transmissions=(
            _with_marks(trans[0], marks),
            _with_marks(trans[1], marks),
            _with_marks(trans[2], marks),
        ),
    )


def _with_marks(t: Transmission, marks: Mapping[Branch, tuple[str, ...]]) -> Transmission:
    return Transmission(
        t.branch, t.dun_stem, t.relative, t.general, t.is_empty, t.seat, tuple(marks.get(t.branch, ()))
    )


def _replace(chart: Chart, **changes: Any) -> Chart:
    from dataclasses import replace

    return replace(chart, **changes)
