"""神煞: every star of seed 000 (《易冒》 神煞 chapter) and the seed-002 大六壬 tables, with their sources.

Public API (fixed for the 大六壬 and 六爻 engines; they mark their transmissions / lines through these only)::

    evaluate(day, month=None, year=None, hour=None, *, options=Options()) -> ShenshaResult
    marks(day, month=None, year=None, hour=None, *, options=Options(), include_tables=False)
        -> Mapping[Branch, tuple[str, ...]]        # branch → names of the stars on it
    stem_marks(...) -> Mapping[Stem, tuple[str, ...]]   # stem-valued stars (天干天德, 天干月德, 月空)

Stars whose key is missing (no month, year or hour) are omitted and listed in ``ShenshaResult.omitted``,
never guessed. The definitions (rule, table, verse, source, meanings, school notes) are in ``data/stars.json``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import TypeVar

from engine.core.cycle import Branch, GanZhi, Stem, all_ganzhi
from engine.errors import EngineInputError
from engine.shensha.model import (
    OPTION_VALUES,
    Omission,
    Options,
    ShenshaResult,
    Source,
    StarDef,
    StarHit,
    Value,
    meanings002,
    star_defs,
    star_index,
    value_branches,
    value_json,
    value_stems,
    value_text,
)
from engine.shensha.rules import Context, Inactive, Missing, detail_of, evaluate_rule

__all__ = [
    "OPTION_VALUES",
    "Omission",
    "Options",
    "ShenshaResult",
    "Source",
    "StarDef",
    "StarHit",
    "Value",
    "evaluate",
    "marks",
    "meanings002",
    "per_month",
    "star",
    "star_defs",
    "stem_marks",
    "value_json",
    "value_text",
]

#: Groups of seed-002 classification tables (a label on every branch) left out of ``marks`` by default.
TABLE_GROUPS = frozenset({"liuqin", "changsheng", "vitality", "summary", "general"})

_INPUT_ORDER = ("month", "year", "hour")
_DEFAULT_OPTIONS = Options()


def star(name_or_id: str) -> StarDef:
    """A star definition by id or name (or alias)."""
    index = star_index()
    if name_or_id in index:
        return index[name_or_id]
    for s in star_defs():
        if s.name == name_or_id or name_or_id in s.aliases:
            return s
    raise EngineInputError("error.shensha.unknown_star", f"unknown star {name_or_id!r}", value=name_or_id)


def _check_inputs(day: object, month: object, year: object, hour: object) -> None:
    if not isinstance(day, GanZhi):
        raise EngineInputError("error.not_a_ganzhi", f"not a 干支: {day!r}", value=str(day))
    if month is not None and not isinstance(month, Branch):
        raise EngineInputError(
            "error.shensha.bad_month", f"month must be a 地支: {month!r}", value=str(month)
        )
    if year is not None and not isinstance(year, GanZhi):
        raise EngineInputError("error.shensha.bad_year", f"year must be a 干支: {year!r}", value=str(year))
    if hour is not None and not isinstance(hour, Branch):
        raise EngineInputError("error.shensha.bad_hour", f"hour must be a 地支: {hour!r}", value=str(hour))


def _alternatives(s: StarDef, chosen: Value, ctx: Context) -> tuple[tuple[str, Value], ...]:
    """Values under the other readings of this star's school option, when they differ from ``chosen``."""
    if s.option is None:
        return ()
    out: list[tuple[str, Value]] = []
    current = ctx.options.get(s.option)
    for value in OPTION_VALUES[s.option]:
        if value == current:
            continue
        other = replace(ctx.options, **{s.option: value})
        alt_ctx = Context(ctx.day_, ctx.month_, ctx.year_, ctx.hour_, other)
        try:
            v = evaluate_rule(s.variant(other).rule, alt_ctx)
        except (Missing, Inactive):
            continue
        if v != chosen:
            out.append((f"{s.option}={value}", v))
    return tuple(out)


def _needs(rule: Mapping[str, object], ctx: Context) -> tuple[str, ...]:
    """Which absent inputs a rule reads: evaluate it once with stand-ins for the absent ones."""
    probe = Context(
        ctx.day_,
        ctx.month_ if ctx.month_ is not None else Branch.YIN,
        ctx.year_ if ctx.year_ is not None else GanZhi.of(0),
        ctx.hour_ if ctx.hour_ is not None else Branch.ZI,
        ctx.options,
    )
    try:
        evaluate_rule(rule, probe)
    except Inactive:
        pass
    absent = {"month": ctx.month_ is None, "year": ctx.year_ is None, "hour": ctx.hour_ is None}
    return tuple(w for w in _INPUT_ORDER if absent[w] and w in probe.read)


def evaluate(
    day: GanZhi,
    month: Branch | None = None,
    year: GanZhi | None = None,
    hour: Branch | None = None,
    *,
    options: Options | None = None,
) -> ShenshaResult:
    """Every star and seed-002 table for ``day`` (and the 月建 ``month``, the ``year`` 干支, the ``hour`` branch).

    ``month`` is the 節 month branch (正月 寅 … 十二月 丑), never a lunar month number.
    """
    _check_inputs(day, month, year, hour)
    return _evaluate(day, month, year, hour, options if options is not None else Options())


# ≈ 45 kB a result (≈ 180 stars with their omissions): 4,096 of them could hold 185 MB in a long-running bot,
# whose ``/shensha`` keeps its own byte-bounded cache of the views above this (issue 36 item 7); 64 is ≈ 3 MB.
EVALUATED_KEPT = 64


@lru_cache(maxsize=EVALUATED_KEPT)
def _evaluate(
    day: GanZhi, month: Branch | None, year: GanZhi | None, hour: Branch | None, opts: Options
) -> ShenshaResult:
    ctx = Context(day, month, year, hour, opts)
    hits: list[StarHit] = []
    omitted: list[Omission] = []
    for s in star_defs():
        variant = s.variant(opts)
        try:
            value = evaluate_rule(variant.rule, ctx)
        except Missing:
            omitted.append(Omission(s.id, variant.name or s.name, "needs", _needs(variant.rule, ctx)))
            continue
        except Inactive as exc:
            if exc.reason != "chart":
                omitted.append(Omission(s.id, variant.name or s.name, exc.reason))
            continue
        hits.append(
            StarHit(
                id=s.id,
                name=variant.name or s.name,
                value=value,
                key=variant.key or s.key,
                source=str(s.sources[0]),
                alt=_alternatives(s, value, ctx),
                detail=detail_of(s.id, value),
            )
        )
    return ShenshaResult(day, month, year, hour, opts, tuple(hits), tuple(omitted))


def _is_marked(s: StarDef, include_tables: bool) -> bool:
    if include_tables:
        return s.group not in ("summary", "general")
    return s.mark and s.group not in TABLE_GROUPS


_ALL_INPUTS = ("day", "month", "year", "hour")
# every value of each input, as (key code, value): 干支 by their cycle index, branches by their number
_DOMAINS: Mapping[str, tuple[tuple[int, GanZhi | Branch], ...]] = MappingProxyType(
    {
        "day": tuple((g.index, g) for g in all_ganzhi()),
        "month": tuple((int(b), b) for b in Branch),
        "year": tuple((g.index, g) for g in all_ganzhi()),
        "hour": tuple((int(b), b) for b in Branch),
    }
)
_Item = tuple[int, str, Branch | Stem]  # (data position of the star, its name, a branch or stem it marks)


@dataclass(frozen=True, slots=True)
class _MarkGroup:
    """The marked stars that read the same inputs, evaluated once for every value of those inputs."""

    inputs: tuple[str, ...]
    branch_items: Mapping[tuple[int, ...], tuple[_Item, ...]]
    stem_items: Mapping[tuple[int, ...], tuple[_Item, ...]]


def _inputs_of(rule: Mapping[str, object], opts: Options) -> tuple[str, ...]:
    """The inputs a rule reads, over probes that cover every stem, branch and month (a rule may stop early)."""
    read: set[str] = set()
    for i in range(12):
        ctx = Context(GanZhi.of(7 * i % 60), Branch(i), GanZhi.of(i), Branch(i), opts)
        try:
            evaluate_rule(rule, ctx)
        except Inactive:
            pass
        read |= ctx.read
    return tuple(w for w in _ALL_INPUTS if w in read)


def _key(inputs: tuple[str, ...], values: Mapping[str, int | None]) -> tuple[int, ...] | None:
    key = [values[w] for w in inputs]
    return None if None in key else tuple(k for k in key if k is not None)


@lru_cache(maxsize=32)
def _mark_plan(opts: Options, include_tables: bool) -> tuple[_MarkGroup, ...]:
    """Every marked star's branches/stems for every key, grouped by the inputs the star reads (built once).

    Equivalent to filtering :func:`evaluate` (tests/shensha/test_api.py checks it), without evaluating ~180
    rules on each call: a chart marks its lines in a few microseconds.
    """
    by_inputs: dict[tuple[str, ...], list[tuple[int, str, Mapping[str, object]]]] = {}
    for pos, s in enumerate(star_defs()):
        if _is_marked(s, include_tables):
            v = s.variant(opts)
            by_inputs.setdefault(_inputs_of(v.rule, opts), []).append((pos, v.name or s.name, v.rule))
    groups = []
    for inputs, stars in by_inputs.items():
        branch_items: dict[tuple[int, ...], tuple[_Item, ...]] = {}
        stem_items: dict[tuple[int, ...], tuple[_Item, ...]] = {}
        for combo in itertools.product(*(_DOMAINS[w] for w in inputs)):
            given = {w: value for w, (_, value) in zip(inputs, combo, strict=True)}
            day, year = given.get("day", GanZhi.of(0)), given.get("year")
            month, hour = given.get("month"), given.get("hour")
            assert isinstance(day, GanZhi) and (year is None or isinstance(year, GanZhi))
            assert (month is None or isinstance(month, Branch)) and (hour is None or isinstance(hour, Branch))
            ctx = Context(day, month, year, hour, opts)
            b_out: list[_Item] = []
            s_out: list[_Item] = []
            for pos, name, rule in stars:
                try:
                    value = evaluate_rule(rule, ctx)
                except Inactive:
                    continue
                b_out.extend((pos, name, b) for b in value_branches(value))
                s_out.extend((pos, name, st) for st in value_stems(value))
            key = tuple(code for code, _ in combo)
            branch_items[key] = tuple(b_out)
            stem_items[key] = tuple(s_out)
        groups.append(_MarkGroup(inputs, MappingProxyType(branch_items), MappingProxyType(stem_items)))
    return tuple(groups)


def _mark_items(
    day: GanZhi,
    month: Branch | None,
    year: GanZhi | None,
    hour: Branch | None,
    options: Options | None,
    include_tables: bool,
    stems: bool,
) -> list[_Item]:
    _check_inputs(day, month, year, hour)
    values: dict[str, int | None] = {
        "day": day.index,
        "month": None if month is None else int(month),
        "year": None if year is None else year.index,
        "hour": None if hour is None else int(hour),
    }
    items: list[_Item] = []
    for group in _mark_plan(options if options is not None else _DEFAULT_OPTIONS, include_tables):
        key = _key(group.inputs, values)
        if key is not None:  # a star whose input is absent is omitted, never guessed
            items.extend((group.stem_items if stems else group.branch_items)[key])
    items.sort()  # data order of the stars
    return items


_K = TypeVar("_K", Branch, Stem)


def _names_on(keys: tuple[_K, ...], items: list[_Item]) -> Mapping[_K, tuple[str, ...]]:
    """Key (branch or stem) → the names of the marked stars on it, in data order, every key present."""
    table: dict[Branch | Stem, list[str]] = {k: [] for k in keys}
    for _, name, k in items:
        names = table[k]
        if name not in names:
            names.append(name)
    return MappingProxyType({k: tuple(table[k]) for k in keys})


def marks(
    day: GanZhi,
    month: Branch | None = None,
    year: GanZhi | None = None,
    hour: Branch | None = None,
    *,
    options: Options | None = None,
    include_tables: bool = False,
) -> Mapping[Branch, tuple[str, ...]]:
    """Branch → names of the stars that fall on it (every branch is a key; data order within a branch).

    ``include_tables=True`` adds the seed-002 per-branch labels (六親 印盜鬼財劫, the 十二長生 stages, 旺相死囚休).
    The 罡魁 generals other than 天罡/河魁 are never marked (the text: 「餘十將不司卦內吉凶」).
    """
    return _names_on(tuple(Branch), _mark_items(day, month, year, hour, options, include_tables, stems=False))


def stem_marks(
    day: GanZhi,
    month: Branch | None = None,
    year: GanZhi | None = None,
    hour: Branch | None = None,
    *,
    options: Options | None = None,
) -> Mapping[Stem, tuple[str, ...]]:
    """Stem → names of the stem-valued stars (天干天德 in 孟/季 months, 天干月德, 月空); every stem is a key.

    Match them against the 干 of the day or a line's 納干 (seed 000: 「如寅建丁亥子孫發動，以丁為天德也」).
    """
    return _names_on(tuple(Stem), _mark_items(day, month, year, hour, options, False, stems=True))


def per_month(
    day: GanZhi,
    year: GanZhi | None = None,
    hour: Branch | None = None,
    *,
    options: Options | None = None,
) -> Mapping[Branch, ShenshaResult]:
    """The evaluation for each of the twelve months 寅 … 丑 (for listing month stars when no month is known)."""
    months = [Branch.YIN.shift(i) for i in range(12)]
    return MappingProxyType({m: evaluate(day, m, year, hour, options=options) for m in months})
