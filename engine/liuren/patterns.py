"""課體 and 課格 of a 大六壬 chart: seed 002's twelve 雜格 and the 課體 that seed 003 names.

The catalogue lives in ``data/patterns.json`` (definition, meaning in ko and lzh, seed reference). Each entry
carries a ``rule`` (a ``kind`` plus parameters); this module implements the kinds and nothing else, so the
data says *what* a pattern is and the code only checks it. An entry whose ``rule`` is null would be a name the
seeds use without a definition that can be cited; it is listed by :func:`undetectable` and never reported as a
hit (none is left: 驀越 is read as seed 003 names it, see patterns.json and docs/liuren.md).

The 貴人-dependent kinds (``GUIREN_KINDS``: 閉口's 貴人值旬尾, 勵德, 貴登天門) read the 貴人 of the cast
(``chart.guiren``: 晝 or 夜 by the options); :func:`guiren_dependent` says under which 貴人 each holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from engine.core.cycle import Branch, Element, GanZhi, Stem, xun_branch
from engine.core.relations import liuhe, sanhe
from engine.datafiles import load_json
from engine.liuren.generals import gui_table
from engine.liuren.methods import jigong
from engine.liuren.options import Options


class _Lesson(Protocol):
    @property
    def upper(self) -> Branch: ...

    @property
    def lower(self) -> Stem | Branch: ...

    @property
    def seat(self) -> Branch: ...


class _Transmission(Protocol):
    @property
    def branch(self) -> Branch: ...

    @property
    def is_empty(self) -> bool: ...


class _Candidate(Protocol):
    @property
    def branch(self) -> Branch: ...

    @property
    def relation(self) -> str: ...

    @property
    def lessons(self) -> tuple[int, ...]: ...


class _Trace(Protocol):
    @property
    def candidates(self) -> Sequence[_Candidate]: ...

    @property
    def chosen(self) -> Branch | None: ...


class ChartLike(Protocol):
    """What pattern detection reads from a chart (``engine.liuren.Chart`` satisfies it)."""

    @property
    def day(self) -> GanZhi: ...

    @property
    def heaven(self) -> tuple[Branch, ...]: ...

    @property
    def lessons(self) -> Sequence[_Lesson]: ...

    @property
    def transmissions(self) -> Sequence[_Transmission]: ...

    @property
    def options(self) -> Options: ...

    @property
    def trace(self) -> _Trace: ...

    @property
    def guiren(self) -> Branch:
        """The 天盤 branch the 貴人 of the cast rides (晝 or 夜 by the options)."""
        ...

    def earth_of(self, heaven_branch: Branch) -> Branch: ...


@dataclass(frozen=True, slots=True)
class PatternHit:
    """A detected 課體/課格: ``id`` and ``name`` from patterns.json, ``facts`` the values that made it hold."""

    id: str
    name: str
    source: str
    facts: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "source": self.source, "facts": dict(self.facts)}


@dataclass(frozen=True, slots=True)
class Pattern:
    """One catalogue entry (the texts stay in the JSON; see :func:`catalogue`)."""

    id: str
    name: str
    group: str  # "zage" (seed 002 雜格) or "keti" (課體)
    source: str
    rule: Mapping[str, Any] | None


Facts = dict[str, str]
# A check reads the chart, its rule parameters and the 貴人 it is asked about (the cast's, or one of 晝/夜).
Check = Callable[[ChartLike, Mapping[str, Any], Branch], Facts | None]

#: Rule kinds whose result depends on which 貴人 (晝/夜) the cast uses.
GUIREN_KINDS = frozenset({"closed_mouth", "guiren_on"})


def _data() -> dict[str, Any]:
    data: dict[str, Any] = load_json("engine.liuren", "patterns.json")
    return data


def no_meaning(lang: str) -> str:
    """The meaning text of a 課體 the seeds give no meaning for (patterns.json ``no_meaning``): it says so."""
    return str(_data()["no_meaning"][lang])


@cache
def catalogue() -> tuple[Pattern, ...]:
    """Every pattern of patterns.json, in file order."""
    return tuple(Pattern(e["id"], e["name"], e["group"], e["source"], e["rule"]) for e in _data()["patterns"])


def entry(pattern_id: str) -> Mapping[str, Any]:
    """The raw JSON entry of a pattern (texts in ``ko`` / ``lzh``), for templates."""
    for e in _data()["patterns"]:
        if e["id"] == pattern_id:
            return dict(e)
    raise KeyError(pattern_id)


def undetectable() -> tuple[Pattern, ...]:
    """Names the seeds use without a definition that code could check (rule null)."""
    return tuple(p for p in catalogue() if p.rule is None)


@cache
def _branches(text: str) -> tuple[Branch, ...]:
    return tuple(Branch.from_char(c) for c in text)


@cache
def _branch_set(text: str) -> frozenset[Branch]:
    return frozenset(_branches(text))


def _chars(bs: Sequence[Branch]) -> str:
    return "".join(b.char for b in bs)


@cache
def _element(char: str) -> Element:
    return Element.from_char(char)


def _trans(chart: ChartLike) -> tuple[Branch, Branch, Branch]:
    t = chart.transmissions
    return t[0].branch, t[1].branch, t[2].branch


def _gan_upper(chart: ChartLike) -> Branch:
    return chart.lessons[0].upper


def _zhi_upper(chart: ChartLike) -> Branch:
    return chart.lessons[2].upper


def nobles(chart: ChartLike) -> tuple[tuple[str, Branch], tuple[str, Branch]]:
    """(晝, 夜) 貴人 branches of the day stem under the chart's 貴人 rule (seed 003 entry 2 reads both: 兩貴)."""
    day, night = gui_table(chart.options.gui_rule)[chart.day.stem]
    return ("晝", day), ("夜", night)


def _xun_tail(day: GanZhi) -> Branch:
    """旬尾: the branch of the 癸 day of the 旬 (旬首 + 9)."""
    return xun_branch(day.xun_head, Stem.GUI)


def _transmissions_exact(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    tr = _trans(chart)
    return {"transmissions": _chars(tr)} if tr == _branches(rule["branches"]) else None


def _transmissions_subset(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    tr = _trans(chart)
    allowed = _branch_set(rule["branches"])
    return {"transmissions": _chars(tr)} if all(b in allowed for b in tr) else None


def _upper_on_gan_zhi(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    wanted = _branch_set(rule["branches"])
    facts: Facts = {}
    if _gan_upper(chart) in wanted:
        facts["gan_upper"] = _gan_upper(chart).char
    if _zhi_upper(chart) in wanted:
        facts["zhi_upper"] = _zhi_upper(chart).char
    return facts or None


def _all_polarity(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    yang = bool(rule["yang"])
    seen: list[Stem | Branch] = [*_trans(chart), *(ls.upper for ls in chart.lessons)]
    if chart.options.liuyinyang_lowers:
        seen.extend(ls.lower for ls in chart.lessons)
    if all(x.is_yang == yang for x in seen):
        return {"seen": "".join(x.char for x in seen), "lowers": str(chart.options.liuyinyang_lowers).lower()}
    return None


def _transmissions_in_uppers(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    """「三傳三將同四課三將」: three distinct 傳, each among the lesson uppers (two distinct 傳, as on most 返吟,
    are not 三將)."""
    uppers = {ls.upper for ls in chart.lessons}
    tr = _trans(chart)
    if len(set(tr)) == int(rule.get("distinct", 3)) and all(b in uppers for b in tr):
        return {"transmissions": _chars(tr), "uppers": "".join(ls.upper.char for ls in chart.lessons)}
    return None


def _transmission_empty(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    t = chart.transmissions[int(rule["index"])]
    return {"branch": t.branch.char} if t.is_empty else None


def _xun_head_tail(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    head, tail = chart.day.xun_head.branch, _xun_tail(chart.day)
    tr = _trans(chart)
    if tr[0] == head and tr[2] == tail:
        return {"xun_head": head.char, "xun_tail": tail.char}
    return None


def _consecutive(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    step = int(rule["step"])
    a, b, c = _trans(chart)
    # 連茹 (step ±1) keeps its direction; 間傳 (step 2) runs either way (申戌子 順, 丑亥酉 逆).
    steps = (step, -step) if abs(step) == 2 else (step,)
    for s in steps:
        if b == a.shift(s) and c == b.shift(s):
            return {"transmissions": _chars((a, b, c)), "direction": "forward" if s > 0 else "backward"}
    return None


def _incomplete_lessons(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    distinct = len({(ls.upper, ls.seat) for ls in chart.lessons})
    return {"distinct_lessons": str(distinct)} if distinct == int(rule["distinct"]) else None


def _sanhe(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    tr = _trans(chart)
    start, middle, end, element = sanhe(tr[0])
    if element.char == rule["element"] and set(tr) == {start, middle, end}:
        return {"transmissions": _chars(tr), "element": element.char}
    return None


def _all_element(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    element = _element(rule["element"])
    tr = _trans(chart)
    return {"transmissions": _chars(tr)} if all(b.element == element for b in tr) else None


def _flank(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    first, _, last = _trans(chart)
    for name, center in (("gan_upper", _gan_upper(chart)), ("zhi_upper", _zhi_upper(chart))):
        if first == center.shift(1) and last == center.shift(-1):
            return {"around": name, "center": center.char}
    return None


def _closed_mouth(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    head, tail = chart.day.xun_head.branch, _xun_tail(chart.day)
    facts: Facts = {}
    if chart.heaven[head] == tail:
        facts["tail_on_head"] = f"{tail.char}/{head.char}"
    if gui == tail:
        facts["guiren"] = gui.char
    if facts:
        facts["xun_tail"] = tail.char
    return facts or None


def _guiren_on(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    seats = _branch_set(rule["seats"])
    seat = chart.earth_of(gui)
    return {"guiren": f"{gui.char}/{seat.char}"} if seat in seats else None


def _jiaoche_he(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    gan_seat = jigong(chart.day.stem)
    if liuhe(_gan_upper(chart)) == chart.day.branch and liuhe(_zhi_upper(chart)) == gan_seat:
        return {"gan_upper": _gan_upper(chart).char, "zhi_upper": _zhi_upper(chart).char}
    return None


def _heaven_on(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    upper = _branches(rule["upper"])[0]
    seat = chart.earth_of(upper)
    return {"upper": upper.char, "seat": seat.char} if seat in _branch_set(rule["seats"]) else None


def _sole_zei_in_lesson(chart: ChartLike, rule: Mapping[str, Any], gui: Branch) -> Facts | None:
    """The only 下賊上 of the 四課 stands in lesson ``rule["lesson"]`` and the 用 is taken from it (seed 003:
    entries 1 and 8, both 重審 from lesson 4 alone, are named 驀越; entries 4, 5, 7, whose 用 also rises from
    lesson 4 by 涉害, 蒿矢 and 元首, are not). Lessons equal to it (干支同位) count as further 下賊上."""
    lesson = int(rule["lesson"])
    zei = [n for n, ls in enumerate(chart.lessons, start=1) if ls.lower.element.controls(ls.upper.element)]
    if zei != [lesson]:
        return None
    upper = chart.lessons[lesson - 1].upper
    if chart.transmissions[0].branch != upper or chart.trace.chosen != upper:
        return None
    return {"initial": upper.char, "lesson": str(lesson), "relation": "下賊上"}


CHECKS: Mapping[str, Check] = {
    "transmissions_exact": _transmissions_exact,
    "transmissions_subset": _transmissions_subset,
    "upper_on_gan_zhi": _upper_on_gan_zhi,
    "all_polarity": _all_polarity,
    "transmissions_in_uppers": _transmissions_in_uppers,
    "transmission_empty": _transmission_empty,
    "xun_head_tail": _xun_head_tail,
    "consecutive": _consecutive,
    "incomplete_lessons": _incomplete_lessons,
    "sanhe": _sanhe,
    "all_element": _all_element,
    "flank": _flank,
    "closed_mouth": _closed_mouth,
    "guiren_on": _guiren_on,
    "jiaoche_he": _jiaoche_he,
    "heaven_on": _heaven_on,
    "sole_zei_in_lesson": _sole_zei_in_lesson,
}


@cache
def _compiled() -> tuple[tuple[Pattern, Check], ...]:
    out: list[tuple[Pattern, Check]] = []
    for p in catalogue():
        if p.rule is None:
            continue
        kind = p.rule["kind"]
        if kind not in CHECKS:
            raise ValueError(f"patterns.json: unknown rule kind {kind!r} in {p.id}")
        out.append((p, CHECKS[kind]))
    return tuple(out)


def detect(chart: ChartLike) -> tuple[PatternHit, ...]:
    """Every catalogue pattern that holds on ``chart`` with the 貴人 of the cast, in catalogue order."""
    return _detect(chart, chart.guiren, _compiled())


def _detect(
    chart: ChartLike, gui: Branch, compiled: Sequence[tuple[Pattern, Check]]
) -> tuple[PatternHit, ...]:
    hits: list[PatternHit] = []
    for p, check in compiled:
        assert p.rule is not None
        facts = check(chart, p.rule, gui)
        if facts is not None:
            hits.append(PatternHit(p.id, p.name, p.source, tuple(sorted(facts.items()))))
    return tuple(hits)


def guiren_dependent(chart: ChartLike) -> dict[str, list[str]]:
    """For each 貴人-dependent 課體 (閉口, 勵德, 貴登天門) that holds under the 晝 or the 夜 貴人 of the day
    stem, the 貴人 it holds under: ``{"閉口": ["夜"], "勵德": ["晝", "夜"]}``. 閉口 by 旬尾加旬首 holds
    under both."""
    compiled = tuple((p, c) for p, c in _compiled() if p.rule is not None and p.rule["kind"] in GUIREN_KINDS)
    out: dict[str, list[str]] = {}
    for when, gui in nobles(chart):
        for hit in _detect(chart, gui, compiled):
            out.setdefault(hit.name, []).append(when)
    return out
