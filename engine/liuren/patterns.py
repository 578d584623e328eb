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


def nobles(chart: ChartLike) -> tuple[tuple[str, Branch], tuple[str, Branch]]:
    """(晝, 夜) 貴人 branches of the day stem under the chart's 貴人 rule (seed 003 entry 2 reads both: 兩貴)."""
    day, night = gui_table(chart.options.gui_rule)[chart.day.stem]
    return ("晝", day), ("夜", night)


def _xun_tail(day: GanZhi) -> Branch:
    """旬尾: the branch of the 癸 day of the 旬 (旬首 + 9)."""
    return xun_branch(day.xun_head, Stem.GUI)


# (旬首, 旬尾) branches of each day of the cycle, by its index.
_XUN_ENDS: tuple[tuple[Branch, Branch], ...] = tuple(
    (GanZhi.of(i).xun_head.branch, _xun_tail(GanZhi.of(i))) for i in range(60)
)


@cache
def _sanhe_element(trans: tuple[Branch, Branch, Branch]) -> str | None:
    """The 五行 of the 三合 局 the three 傳 make (all three of its members, in any order), else None."""
    start, middle, end, element = sanhe(trans[0])
    return element.char if set(trans) == {start, middle, end} else None


class _Seen:
    """What the checks read from one chart, computed once per detection (not once per pattern)."""

    __slots__ = ("chart", "day", "gan_upper", "trans", "uppers", "zhi_upper")

    def __init__(self, chart: ChartLike) -> None:
        self.chart = chart
        self.day = chart.day
        t = chart.transmissions
        self.trans: tuple[Branch, Branch, Branch] = (t[0].branch, t[1].branch, t[2].branch)
        ls = chart.lessons
        self.uppers: tuple[Branch, ...] = tuple(lesson.upper for lesson in ls)
        self.gan_upper: Branch = ls[0].upper
        self.zhi_upper: Branch = ls[2].upper


# A check reads the chart (through :class:`_Seen`) and the 貴人 it is asked about (the cast's, or one of 晝/夜);
# it is made once per catalogue entry from the entry's ``rule`` (parameters parsed at that time).
Check = Callable[[_Seen, Branch], Facts | None]
Compiler = Callable[[Mapping[str, Any]], Check]


def _transmissions_exact(rule: Mapping[str, Any]) -> Check:
    want = _branches(rule["branches"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        return {"transmissions": _chars(s.trans)} if s.trans == want else None

    return check


def _transmissions_subset(rule: Mapping[str, Any]) -> Check:
    allowed = _branch_set(rule["branches"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        tr = s.trans
        ok = tr[0] in allowed and tr[1] in allowed and tr[2] in allowed
        return {"transmissions": _chars(tr)} if ok else None

    return check


def _upper_on_gan_zhi(rule: Mapping[str, Any]) -> Check:
    wanted = _branch_set(rule["branches"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        facts: Facts = {}
        if s.gan_upper in wanted:
            facts["gan_upper"] = s.gan_upper.char
        if s.zhi_upper in wanted:
            facts["zhi_upper"] = s.zhi_upper.char
        return facts or None

    return check


def _all_polarity(rule: Mapping[str, Any]) -> Check:
    yang = bool(rule["yang"])

    odd = 0 if yang else 1  # a stem or branch is 陽 when its index is even

    def check(s: _Seen, gui: Branch) -> Facts | None:
        seen: list[Stem | Branch] = [*s.trans, *s.uppers]
        lowers = s.chart.options.liuyinyang_lowers
        if lowers:
            seen.extend(ls.lower for ls in s.chart.lessons)
        if all(x & 1 == odd for x in seen):
            return {"seen": "".join(x.char for x in seen), "lowers": str(lowers).lower()}
        return None

    return check


def _transmissions_in_uppers(rule: Mapping[str, Any]) -> Check:
    """「三傳三將同四課三將」: three distinct 傳, each among the lesson uppers (two distinct 傳, as on most 返吟,
    are not 三將)."""
    distinct = int(rule.get("distinct", 3))

    def check(s: _Seen, gui: Branch) -> Facts | None:
        tr, uppers = s.trans, s.uppers
        if tr[0] in uppers and tr[1] in uppers and tr[2] in uppers and len(set(tr)) == distinct:
            return {"transmissions": _chars(tr), "uppers": _chars(uppers)}
        return None

    return check


def _transmission_empty(rule: Mapping[str, Any]) -> Check:
    index = int(rule["index"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        t = s.chart.transmissions[index]
        return {"branch": t.branch.char} if t.is_empty else None

    return check


def _xun_head_tail(rule: Mapping[str, Any]) -> Check:
    def check(s: _Seen, gui: Branch) -> Facts | None:
        head, tail = _XUN_ENDS[s.day.index]
        tr = s.trans
        if tr[0] == head and tr[2] == tail:
            return {"xun_head": head.char, "xun_tail": tail.char}
        return None

    return check


def _consecutive(rule: Mapping[str, Any]) -> Check:
    step = int(rule["step"])
    # 連茹 (step ±1) keeps its direction; 間傳 (step 2) runs either way (申戌子 順, 丑亥酉 逆).
    steps = (step, -step) if abs(step) == 2 else (step,)

    def check(s: _Seen, gui: Branch) -> Facts | None:
        a, b, c = s.trans
        for k in steps:
            if (b - a) % 12 == k % 12 and (c - b) % 12 == k % 12:
                return {"transmissions": _chars(s.trans), "direction": "forward" if k > 0 else "backward"}
        return None

    return check


def _incomplete_lessons(rule: Mapping[str, Any]) -> Check:
    wanted = int(rule["distinct"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        distinct = len({(ls.upper, ls.seat) for ls in s.chart.lessons})
        return {"distinct_lessons": str(distinct)} if distinct == wanted else None

    return check


def _sanhe(rule: Mapping[str, Any]) -> Check:
    wanted = rule["element"]

    def check(s: _Seen, gui: Branch) -> Facts | None:
        if _sanhe_element(s.trans) == wanted:
            return {"transmissions": _chars(s.trans), "element": wanted}
        return None

    return check


def _all_element(rule: Mapping[str, Any]) -> Check:
    element = _element(rule["element"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        tr = s.trans
        ok = tr[0].element == element and tr[1].element == element and tr[2].element == element
        return {"transmissions": _chars(tr)} if ok else None

    return check


def _flank(rule: Mapping[str, Any]) -> Check:
    def check(s: _Seen, gui: Branch) -> Facts | None:
        first, _, last = s.trans
        for name, center in (("gan_upper", s.gan_upper), ("zhi_upper", s.zhi_upper)):
            if first == center.shift(1) and last == center.shift(-1):
                return {"around": name, "center": center.char}
        return None

    return check


def _closed_mouth(rule: Mapping[str, Any]) -> Check:
    def check(s: _Seen, gui: Branch) -> Facts | None:
        head, tail = _XUN_ENDS[s.day.index]
        facts: Facts = {}
        if s.chart.heaven[head] == tail:
            facts["tail_on_head"] = f"{tail.char}/{head.char}"
        if gui == tail:
            facts["guiren"] = gui.char
        if facts:
            facts["xun_tail"] = tail.char
        return facts or None

    return check


def _guiren_on(rule: Mapping[str, Any]) -> Check:
    seats = _branch_set(rule["seats"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        seat = s.chart.earth_of(gui)
        return {"guiren": f"{gui.char}/{seat.char}"} if seat in seats else None

    return check


def _jiaoche_he(rule: Mapping[str, Any]) -> Check:
    def check(s: _Seen, gui: Branch) -> Facts | None:
        gan_seat = jigong(s.day.stem)
        if liuhe(s.gan_upper) == s.day.branch and liuhe(s.zhi_upper) == gan_seat:
            return {"gan_upper": s.gan_upper.char, "zhi_upper": s.zhi_upper.char}
        return None

    return check


def _heaven_on(rule: Mapping[str, Any]) -> Check:
    upper = _branches(rule["upper"])[0]
    seats = _branch_set(rule["seats"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        seat = s.chart.earth_of(upper)
        return {"upper": upper.char, "seat": seat.char} if seat in seats else None

    return check


def _sole_zei_in_lesson(rule: Mapping[str, Any]) -> Check:
    """The only 下賊上 of the 四課 stands in lesson ``rule["lesson"]`` and the 用 is taken from it (seed 003:
    entries 1 and 8, both 重審 from lesson 4 alone, are named 驀越; entries 4, 5, 7, whose 用 also rises from
    lesson 4 by 涉害, 蒿矢 and 元首, are not). Lessons equal to it (干支同位) count as further 下賊上."""
    lesson = int(rule["lesson"])

    def check(s: _Seen, gui: Branch) -> Facts | None:
        lessons = s.chart.lessons
        upper = lessons[lesson - 1].upper
        if s.trans[0] != upper:  # the 用 is not from that lesson: no need to look for 下賊上
            return None
        zei = [n for n, ls in enumerate(lessons, start=1) if ls.lower.element.controls(ls.upper.element)]
        if zei != [lesson] or s.chart.trace.chosen != upper:
            return None
        return {"initial": upper.char, "lesson": str(lesson), "relation": "下賊上"}

    return check


CHECKS: Mapping[str, Compiler] = {
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
    """Every pattern with a rule and its check, in catalogue order (rules parsed once)."""
    out: list[tuple[Pattern, Check]] = []
    for p in catalogue():
        if p.rule is None:
            continue
        kind = p.rule["kind"]
        if kind not in CHECKS:
            raise ValueError(f"patterns.json: unknown rule kind {kind!r} in {p.id}")
        out.append((p, CHECKS[kind](p.rule)))
    return tuple(out)


#: Rule kinds that read the 三傳 alone: their hits are a function of the three branches (of which the 720 課
#: have 145 distinct ones under the default options), kept per 三傳 in :func:`_transmission_hits`.
TRANSMISSION_KINDS = frozenset(
    {"transmissions_exact", "transmissions_subset", "consecutive", "sanhe", "all_element"}
)


@cache
def _split() -> tuple[
    tuple[tuple[Pattern, Check], ...], tuple[tuple[Pattern, Check], ...], tuple[tuple[Pattern, Check], ...]
]:
    """(the checks of the 三傳 alone, the other checks that ignore the 貴人, the 貴人-dependent ones), each in
    catalogue order."""
    groups: tuple[list[tuple[Pattern, Check]], ...] = ([], [], [])
    for p, c in _compiled():
        kind = p.rule["kind"] if p.rule is not None else None
        groups[0 if kind in TRANSMISSION_KINDS else 2 if kind in GUIREN_KINDS else 1].append((p, c))
    return tuple(groups[0]), tuple(groups[1]), tuple(groups[2])


_by_transmissions: dict[tuple[Branch, Branch, Branch], tuple[PatternHit, ...]] = {}


def clear_caches() -> None:
    """Forget the hits kept per 三傳 (benchmarks measure the cold cost)."""
    _by_transmissions.clear()


def _transmission_hits(seen: _Seen) -> tuple[PatternHit, ...]:
    """The hits of the 三傳-only checks, computed once per distinct 三傳 (1,728 at most)."""
    hits = _by_transmissions.get(seen.trans)
    if hits is None:
        hits = _by_transmissions[seen.trans] = _detect(seen, seen.trans[0], _split()[0])
    return hits


@cache
def _order() -> Mapping[str, int]:
    return {p.id: n for n, (p, _) in enumerate(_compiled())}


def detect(chart: ChartLike) -> tuple[PatternHit, ...]:
    """Every catalogue pattern that holds on ``chart`` with the 貴人 of the cast, in catalogue order."""
    return merge(detect_plain(chart), detect_guiren(chart, chart.guiren))


def detect_plain(chart: ChartLike) -> tuple[PatternHit, ...]:
    """The hits of the patterns that do not read the 貴人: a function of the 課 alone (day, plate, options)."""
    seen = _Seen(chart)
    by_trans = _transmission_hits(seen)
    rest = _detect(seen, chart.guiren, _split()[1])
    return merge(by_trans, rest) if by_trans and rest else by_trans or rest


def detect_guiren(chart: ChartLike, gui: Branch) -> tuple[PatternHit, ...]:
    """The hits of the 貴人-dependent patterns (``GUIREN_KINDS``) with the 貴人 riding ``gui``."""
    return _detect(_Seen(chart), gui, _split()[2])


def merge(*parts: tuple[PatternHit, ...]) -> tuple[PatternHit, ...]:
    """Hits of :func:`detect_plain` and :func:`detect_guiren` as :func:`detect` orders them (catalogue order)."""
    order = _order()
    return tuple(sorted((h for part in parts for h in part), key=lambda h: order[h.id]))


def _detect(seen: _Seen, gui: Branch, compiled: Sequence[tuple[Pattern, Check]]) -> tuple[PatternHit, ...]:
    hits: list[PatternHit] = []
    for p, check in compiled:
        facts = check(seen, gui)
        if facts is not None:
            hits.append(PatternHit(p.id, p.name, p.source, tuple(sorted(facts.items()))))
    return tuple(hits)


def guiren_dependent(chart: ChartLike) -> dict[str, list[str]]:
    """For each 貴人-dependent 課體 (閉口, 勵德, 貴登天門) that holds under the 晝 or the 夜 貴人 of the day
    stem, the 貴人 it holds under: ``{"閉口": ["夜"], "勵德": ["晝", "夜"]}``. 閉口 by 旬尾加旬首 holds
    under both."""
    return dependent_names([(when, detect_guiren(chart, gui)) for when, gui in nobles(chart)])


def dependent_names(by_noble: Sequence[tuple[str, tuple[PatternHit, ...]]]) -> dict[str, list[str]]:
    """``guiren_dependent``'s mapping from the 貴人-dependent hits under each of (晝, 夜)."""
    out: dict[str, list[str]] = {}
    for when, hits in by_noble:
        for hit in hits:
            out.setdefault(hit.name, []).append(when)
    return out
