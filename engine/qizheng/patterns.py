"""《八格賦》 (seed 004) clauses as data, evaluated by a small condition language.

Each clause of ``data/patterns.json`` has ``id``, ``ge`` (格), ``kind`` (``clause``, or ``definition`` for the
seed's explanations of a term: never evaluated, never listed as holding), ``quote`` (verbatim from the seed) /
``quote_ko`` (the whole sentence(s) translating the clause, reworded from the seed's translation into natural
Korean; ``ko_note`` keeps the seed's wording as 「이전 문구: 「…」」, see ``seed_ko``), ``status`` (``yes`` computable, ``partial``
needs a fact the chart does not have, ``no`` too vague, ``definition``) with a ``reason``, for ``yes`` a ``when``
condition (a JSON s-expression), and ``broad`` (the reason) where the verse itself holds for most births.

The module reads a chart (``engine.qizheng.chart``); the chart does not know about it.

Star references (a reference names a *set* of bodies; an atom holds when any member satisfies it):
a body name (``"太陽"``), ``"$命主" "$身主" "$身度主" "$命度主" "$官星" "$福星" "$田星" "$財星" "$科甲" "$令星"
"$天馬" "$值難" "$疾厄主" "$祿元" "$壽元" "$恩" "$難" "$仇" "$用" "$餘奴" "$凶曜" "$四餘" "$漏" "$化:祿"`` … or a list.
``$科甲`` is the lord of the palace opposite 命宮 (seed ¶15 「科甲即命對宮主是也」, ¶38 「科甲者，命官對宮主是也」);
``$餘奴`` is 孛 羅 計: ¶24 「氣孛羅計謂之餘奴…惟氣星主吉」 excepts 紫氣 from every 餘奴 warning; ``$漏`` is the one
政 left alone on its side of the 羅計 axis (¶8 「計羅截斷，觀其漏出何星」, reading in ``leaked``).

Branch references (a set of palaces): a branch character, ``"@命宮"`` or any house name, ``"@身宮" "@歲駕"
"@祿勳" "@玉堂" "@空亡" "@驛馬" "@財庫" (the 庫 of the 財星's element, ¶20) "@羊刃" "@劫煞" "@亡神"`` (the last three from the seed-000 神煞 of
``engine.shensha``, keyed by the year pillar: 羊刃 by the year stem, 劫煞/亡神 by the year branch), a body reference (its palace), ``{"shift": [ref, n]}``, ``{"sanfang": ref}``
(ref ± 4 and itself), ``{"sizheng": ref}`` (ref, ± 3, + 6), ``{"opp": ref}``, or a list.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any, NamedTuple, TypeVar, cast

from engine.core.cycle import BRANCH_CHARS, Branch, Element, GanZhi, Stem
from engine.core.relations import Stage, Vitality, changsheng, sanhe, vitality
from engine.qizheng import tables
from engine.qizheng.chart import QizhengChart
from engine.shensha import Options as ShenshaOptions
from engine.shensha import marks as shensha_marks

Expr = Any

GROUP_ALIASES = ("四強", "次強", "近強", "九五", "六弱", "惡弱", "強")
# 餘奴 (seed ¶24: 「氣孛羅計謂之餘奴…惟氣星主吉」): 紫氣 excepted from every 餘奴 warning
YU_NU = ("月孛", "羅睺", "計都")
SHA_NAMES = ("羊刃", "劫煞", "亡神")
SHA_OPTIONS = ShenshaOptions(
    jiangxing_key="day"
)  # the year pillar stands as the key pillar  # seed ¶24 「的刃、劫亡之地」; 的殺 has no table in seed 000
XIONG = ("火星", "羅睺", "計都", "月孛")  # seed ¶32 「最嫌火、羅、計、孛之當途」
YANG_STEM_OF = {
    Element.WOOD: Stem.JIA,
    Element.FIRE: Stem.BING,
    Element.EARTH: Stem.WU,
    Element.METAL: Stem.GENG,
    Element.WATER: Stem.REN,
}
SHENG_WANG = (Stage.CHANGSHENG, Stage.GUANDAI, Stage.LINGUAN, Stage.DIWANG)
# 庫 of each element (seed ¶20 「金庫丑，木庫未，火庫戌，水土庫辰」)
KU = {Element.METAL: Branch.CHOU, Element.WOOD: Branch.WEI, Element.FIRE: Branch.XU}
KU_DEFAULT = Branch.CHEN


class ConditionError(ValueError):
    """A malformed condition in the pattern data (a bug in the data, caught by the tests)."""


class Fact(NamedTuple):
    """One evaluated atom: the test, its resolved arguments and its truth value (a named tuple: a chart
    makes ~120 of them, at a third of the cost of a frozen dataclass)."""

    test: str
    args: tuple[str, ...]
    value: bool

    def to_json(self) -> dict[str, Any]:
        return {"test": self.test, "args": list(self.args), "value": self.value}


@dataclass(frozen=True, slots=True)
class Pattern:
    id: str
    paragraph: int
    ge: str
    quote: str
    quote_ko: str
    status: str
    reason: str | None
    when: Expr | None
    source: str
    kind: str = "clause"  # or "definition"
    reading: str | None = None
    broad: str | None = None  # why the clause holds for most births, where it does
    ko_note: str | None = None  # 「이전 문구: 「…」」: the seed's translation that quote_ko rewords
    reason_ko: str | None = (
        None  # the reason as a reader of ko is told it (``reason`` is the developers' note)
    )
    reason_lzh: str | None = None

    @property
    def seed_ko(self) -> str:
        """The seed's own Korean for the clause (quote_ko where it was not reworded)."""
        prefix = "이전 문구: 「"
        if self.ko_note and self.ko_note.startswith(prefix) and self.ko_note.endswith("」"):
            return self.ko_note[len(prefix) : -1]
        return self.quote_ko


class PatternResult(NamedTuple):
    """The result of one clause on one chart (a named tuple, like ``Fact``)."""

    pattern: Pattern
    holds: bool | None
    facts: tuple[Fact, ...]
    unknown: str | None = None  # why a computable clause could not be decided on this chart

    def note(self) -> dict[str, str] | None:
        """Why the clause is not decided, in ko and lzh (the reader's ``reason``), or None."""
        if self.unknown is not None:
            return unknown_notes()[self.unknown]
        p = self.pattern
        if p.reason_ko is None or p.reason_lzh is None:
            return None
        return {"ko": p.reason_ko, "lzh": p.reason_lzh}

    def to_json(self) -> dict[str, Any]:
        p = self.pattern
        return {
            "id": p.id,
            "ge": p.ge,
            "kind": p.kind,
            "quote": p.quote,
            "quote_ko": p.quote_ko,
            "holds": self.holds,
            "status": p.status,
            "reason": self.unknown or p.reason,
            "note": self.note(),
            "reading": p.reading,
            "broad": p.broad,
            "facts": [f.to_json() for f in self.facts],
        }


@cache
def patterns() -> tuple[Pattern, ...]:
    data = tables.load("patterns.json")
    out = []
    for row in data["patterns"]:
        out.append(
            Pattern(
                id=row["id"],
                paragraph=int(row["paragraph"]),
                ge=row["ge"],
                quote=row["quote"],
                quote_ko=row["quote_ko"],
                status=row["status"],
                reason=row.get("reason"),
                when=row.get("when"),
                source=row.get("source", data["source"]),
                kind=row.get("kind", "clause"),
                reading=row.get("reading"),
                broad=row.get("broad"),
                ko_note=row.get("ko_note"),
                reason_ko=row.get("reason_ko"),
                reason_lzh=row.get("reason_lzh"),
            )
        )
    return tuple(out)


@cache
def unknown_notes() -> dict[str, dict[str, str]]:
    """The reader's ko and lzh for each ``unknown`` an evaluation may set (keyed by its developer text)."""
    notes: dict[str, dict[str, str]] = tables.load("patterns.json")["unknown_notes"]
    return notes


# ---- compiling the conditions ----------------------------------------------------------------------------
# Each ``when`` is compiled once (at load) into closures over the evaluator of one chart: the operator
# dispatch, the argument kinds and every reference that does not depend on the chart (a body name, a branch,
# the 四餘, a house list) are settled then; what depends on the chart (a role, a body's palace, a named
# palace) is resolved on the evaluator, once per chart. An atom that occurs in several clauses is evaluated
# once per chart and its fact repeated where it occurs, so the facts are those of a fresh evaluation.

_T = TypeVar("_T")
Check = Callable[["Evaluator"], bool]
StarRef = Callable[["Evaluator"], tuple[str, ...]]
BranchRef = Callable[["Evaluator"], tuple[Branch, ...]]
HouseRef = Callable[["Evaluator"], tuple[str, ...]]

STARS, BRANCHES, HOUSES_, LITERAL = "stars", "branches", "houses", "literal"
_STATIC_ROLES: dict[str, tuple[str, ...]] = {
    "$餘奴": YU_NU,
    "$四餘": tables.FOUR_YU,
    "$凶曜": XIONG,
    **{body: (body,) for body in tables.BODIES},
}
_CHART_ROLES = frozenset(
    ("$命主", "$身主", "$身度主", "$命度主", "$官星", "$福星", "$田星", "$財星", "$科甲", "$疾厄主")
    + ("$令星", "$天馬", "$值難", "$祿元", "$壽元", "$漏", "$恩", "$難", "$仇", "$用")
    + tuple("$化:" + name for name in tables.HUA_NAMES)
)
_NAMED_BRANCHES = ("身宮", "歲駕", "祿勳", "玉堂", "空亡", "驛馬", "財庫", *SHA_NAMES)
_OFFSETS = {"sanfang": (0, 4, -4), "sizheng": (0, 3, -3, 6), "opp": (6,)}


def _test(*kinds: str) -> Callable[[Callable[..., Fact]], Callable[..., Fact]]:
    """Marks an ``op_`` method with the kinds of its arguments (how the compiler reads them)."""

    def mark(method: Callable[..., Fact]) -> Callable[..., Fact]:
        method.kinds = kinds  # type: ignore[attr-defined]
        return method

    return mark


class _Compiler:
    """Compiles conditions and references; equal expressions share one compiled closure (and memo slot)."""

    def __init__(self) -> None:
        self._done: dict[str, Any] = {}

    def _key(self, kind: str, expr: Any) -> str:
        return kind + json.dumps(expr, ensure_ascii=False, sort_keys=True)

    def _shared(self, kind: str, expr: Any, build: Callable[[int], _T]) -> _T:
        """The compiled closure of ``expr`` (built once: ``build`` gets its memo slot)."""
        key = self._key(kind, expr)
        found = self._done.get(key)
        if found is None:
            found = self._done[key] = build(len(self._done))
        return cast(_T, found)

    # ---- conditions ---------------------------------------------------------------------------------
    def condition(self, expr: Expr) -> Check:
        if not isinstance(expr, list) or not expr or not isinstance(expr[0], str):
            raise ConditionError(f"bad condition {expr!r}")
        op, args = expr[0], expr[1:]
        if op in ("and", "or"):
            parts = tuple(self.condition(a) for a in args)
            return _all_of(parts) if op == "and" else _any_of(parts)
        if op == "not":
            if len(args) != 1:
                raise ConditionError("not takes one argument")
            inner = self.condition(args[0])
            return lambda ev: not inner(ev)
        method = _TESTS.get(op)
        if method is None:
            raise ConditionError(f"unknown test {op!r}")
        kinds: tuple[str, ...] = method.kinds  # type: ignore[attr-defined]
        if len(args) != len(kinds):
            raise ConditionError(f"{op} takes {len(kinds)} arguments: {expr!r}")
        return self._shared("atom", expr, lambda slot: self._atom(slot, method, kinds, args))

    def _atom(self, slot: int, method: Callable[..., Fact], kinds: tuple[str, ...], args: list[Any]) -> Check:
        readers = {STARS: self.stars, BRANCHES: self.branches, HOUSES_: self.houses}
        resolved = tuple(readers[k](a) if k in readers else _constant(a) for k, a in zip(kinds, args))
        if method is Evaluator.op_branch_in:  # the fact names the first reference as written
            resolved = (_constant(str(args[0]).lstrip("@")), *resolved)

        if len(resolved) > 3:
            raise ConditionError(f"a test takes at most three arguments: {method.__name__}")
        r0, r1, r2 = (*resolved, _constant(None), _constant(None), _constant(None))[:3]
        call: Callable[[Evaluator], Fact] = (
            (lambda ev: method(ev)),
            (lambda ev: method(ev, r0(ev))),
            (lambda ev: method(ev, r0(ev), r1(ev))),
            (lambda ev: method(ev, r0(ev), r1(ev), r2(ev))),
        )[len(resolved)]

        def atom(ev: Evaluator) -> bool:
            fact = ev.atoms.get(slot)
            if fact is None:
                before = ev.unknown
                fact = ev.atoms[slot] = call(ev)
                if (
                    ev.unknown is not None and ev.unknown is not before
                ):  # kept for the clauses sharing the atom
                    ev.unknowns[slot] = ev.unknown
            elif ev.unknowns and slot in ev.unknowns:
                ev.unknown = ev.unknowns[slot]
            ev.facts.append(fact)
            return fact.value

        return atom

    # ---- references ---------------------------------------------------------------------------------
    def stars(self, ref: Any) -> StarRef:
        if isinstance(ref, str):
            static = _STATIC_ROLES.get(ref)
            if static is not None:
                return _constant(static)
            if ref not in _CHART_ROLES:
                raise ConditionError(f"unknown star reference {ref!r}")
            return lambda ev: ev.roles[ref]
        if isinstance(ref, list):
            parts = tuple(self.stars(r) for r in ref)
            return self._shared("stars", ref, lambda slot: _merged(slot, parts))
        raise ConditionError(f"bad star reference {ref!r}")

    def branches(self, ref: Any) -> BranchRef:
        if isinstance(ref, list):
            parts = tuple(self.branches(r) for r in ref)
            return self._shared("branches", ref, lambda slot: _merged(slot, parts))
        if isinstance(ref, dict):
            if len(ref) != 1:
                raise ConditionError(f"bad branch expression {ref!r}")
            ((op, arg),) = ref.items()
            if op == "shift":
                base, n = self.branches(arg[0]), int(arg[1])
                return self._shared(
                    "branches",
                    ref,
                    lambda slot: _derived(slot, base, lambda bs: tuple(b.shift(n) for b in bs)),
                )
            if op not in _OFFSETS:
                raise ConditionError(f"bad branch operator {op!r}")
            base, offsets = self.branches(arg), _OFFSETS[op]
            return self._shared(
                "branches",
                ref,
                lambda slot: _derived(
                    slot, base, lambda bs: tuple(dict.fromkeys(b.shift(k) for b in bs for k in offsets))
                ),
            )
        if not isinstance(ref, str):
            raise ConditionError(f"bad branch reference {ref!r}")
        if len(ref) == 1 and ref in "子丑寅卯辰巳午未申酉戌亥":
            return _constant((Branch.from_char(ref),))
        if ref.startswith("@"):
            key = ref[1:]
            if key not in _NAMED_BRANCHES and key not in tables.HOUSES:
                raise ConditionError(f"unknown branch reference @{key!r}")
            return self._shared("branches", ref, lambda slot: _derived(slot, None, lambda ev: ev.named(key)))
        stars = self.stars(ref)
        return self._shared(
            "branches", ref, lambda slot: _derived(slot, None, lambda ev: ev.palaces_of(stars(ev)))
        )

    def houses(self, ref: Any) -> HouseRef:
        names = ref if isinstance(ref, list) else [ref]
        for n in names:
            if n not in GROUP_ALIASES and n not in tables.HOUSES:
                raise ConditionError(f"unknown house {n!r}")
        if not any(n in GROUP_ALIASES for n in names):
            return _constant(tuple(dict.fromkeys(names)))

        def build(ev: Evaluator) -> tuple[str, ...]:
            out: list[str] = []
            for n in names:
                out.extend(ev.chart.group(n) if n in GROUP_ALIASES else (n,))
            return tuple(dict.fromkeys(out))

        return self._shared("houses", ref, lambda slot: _derived(slot, None, build))


_CONSTANTS: dict[Callable[[Evaluator], Any], Any] = {}  # the references that do not depend on the chart


def _constant(value: Any) -> Callable[[Evaluator], Any]:
    def ref(ev: Evaluator) -> Any:
        return value

    _CONSTANTS[ref] = value
    return ref


def _all_of(parts: tuple[Check, ...]) -> Check:
    def check(ev: Evaluator) -> bool:
        for part in parts:
            if not part(ev):
                return False
        return True

    return check


def _any_of(parts: tuple[Check, ...]) -> Check:
    def check(ev: Evaluator) -> bool:
        for part in parts:
            if part(ev):
                return True
        return False

    return check


def _merged(
    slot: int, parts: tuple[Callable[[Evaluator], tuple[Any, ...]], ...]
) -> Callable[[Evaluator], Any]:
    """The union of the parts' members in order, first occurrence kept (once per chart; at compile time when
    no part depends on the chart)."""

    def build(ev: Evaluator | None) -> tuple[Any, ...]:
        out: dict[Any, None] = {}
        for part in parts:
            out.update(dict.fromkeys(_CONSTANTS[part] if ev is None else part(ev)))
        return tuple(out)

    if all(part in _CONSTANTS for part in parts):
        return _constant(build(None))
    return _derived(slot, None, build)


def _derived(
    slot: int, base: Callable[[Evaluator], Any] | None, build: Callable[[Any], Any]
) -> Callable[[Evaluator], Any]:
    """``build`` of ``base(ev)`` (of ``ev`` itself when no base), computed once per chart in slot ``slot`` (at
    compile time when the base does not depend on the chart)."""
    if base is not None and base in _CONSTANTS:
        return _constant(build(_CONSTANTS[base]))

    def ref(ev: Evaluator) -> Any:
        memo = ev.refs
        found = memo.get(slot)
        if found is None:
            found = memo[slot] = build(ev if base is None else base(ev))
        return found

    return ref


_COMPILER = _Compiler()


@cache
def _compiled() -> tuple[tuple[Pattern, Check | PatternResult], ...]:
    """Every clause with its compiled condition, or with its constant result (a clause not computable)."""
    return tuple(
        (
            p,
            PatternResult(p, None, ())
            if p.status != "yes" or p.when is None
            else _COMPILER.condition(p.when),
        )
        for p in patterns()
    )


class Evaluator:
    """Evaluates compiled conditions against one chart, collecting the facts they looked at."""

    def __init__(self, chart: QizhengChart) -> None:
        self.chart = chart
        self.facts: list[Fact] = []
        self.unknown: str | None = None
        bodies = chart.bodies
        self.palace: dict[str, Branch] = {name: b.palace for name, b in bodies.items()}
        self.house_names: dict[Branch, str] = {h.branch: h.name for h in chart.houses}
        self.roles = self._roles()
        self.refs: dict[int, Any] = {}  # chart-dependent references, by compiled slot
        self.atoms: dict[int, Fact] = {}  # evaluated atoms, by slot
        self.unknowns: dict[int, str] = {}  # the atoms that found the chart lacking their fact

    def eval(self, expr: Expr) -> bool:
        """Evaluate a condition (compiled on first use)."""
        return _COMPILER.condition(expr)(self)

    # ---- references -------------------------------------------------------------------------------------
    def _roles(self) -> dict[str, tuple[str, ...]]:
        c = self.chart
        lords = [h.lord for h in c.houses]
        roles: dict[str, tuple[str, ...]] = {
            "$命主": (c.ming_zhu,),
            "$身主": (c.shen_zhu,),
            "$身度主": (c.shen_du_zhu,),
            "$命度主": (c.ming_du_zhu,),
            "$官星": (lords[tables.HOUSES.index("官祿")],),
            "$福星": (lords[tables.HOUSES.index("福德")],),
            "$田星": (lords[tables.HOUSES.index("田宅")],),
            "$財星": (lords[tables.HOUSES.index("財帛")],),
            "$科甲": (tables.palace_lord(c.ming.shift(6)),),
            "$疾厄主": (lords[tables.HOUSES.index("疾厄")],),
            "$令星": (c.ling_xing,),
            "$天馬": (c.tianma,),
            "$值難": (c.zhi_nan,),
            "$祿元": (c.lu_yuan,),
            "$壽元": (c.shou_yuan,),
            "$餘奴": YU_NU,
            "$四餘": tables.FOUR_YU,
            "$凶曜": XIONG,
            "$漏": leaked(c),
            "$恩": c.en_nan["恩"],
            "$難": c.en_nan["難"],
            "$仇": c.en_nan["仇"],
            "$用": c.en_nan["用"],
        }
        for name, star in c.hua_yao.items():
            roles["$化:" + name] = (star,)
        for body in tables.BODIES:
            roles[body] = (body,)
        return roles

    def named(self, key: str) -> tuple[Branch, ...]:
        """The palaces of a named reference ``@key``."""
        c = self.chart
        if key == "身宮":
            return (c.shen,)
        if key == "歲駕":
            return (c.suijia,)
        if key == "祿勳":
            return (c.lu_xun,)
        if key == "玉堂":
            return c.yutang
        if key == "空亡":
            return c.kongwang
        if key == "驛馬":
            return (c.yima,)
        if key == "財庫":
            return (KU.get(tables.star_element(c.house("財帛").lord), KU_DEFAULT),)
        if key in SHA_NAMES:
            return year_sha(c.year)[key]
        return (c.house(key).branch,)

    def palaces_of(self, stars: tuple[str, ...]) -> tuple[Branch, ...]:
        palace = self.palace
        return tuple(dict.fromkeys(palace[s] for s in stars))

    # ---- evaluation -------------------------------------------------------------------------------------
    def _desc(self, stars: Sequence[str]) -> str:
        return "、".join(stars)

    def _bdesc(self, branches: Sequence[Branch]) -> str:
        return "".join([BRANCH_CHARS[b] for b in branches])

    @_test(STARS, BRANCHES)
    def op_at(self, stars: tuple[str, ...], bs: tuple[Branch, ...]) -> Fact:
        """Some body of the set sits in one of the palaces."""
        palace = self.palace
        hits = [s for s in stars if palace[s] in bs]
        shown = hits or stars
        where = "".join([BRANCH_CHARS[palace[s]] for s in shown])
        return Fact("at", (self._desc(shown), where, self._bdesc(bs)), bool(hits))

    @_test(STARS, HOUSES_)
    def op_in_house(self, stars: tuple[str, ...], names: tuple[str, ...]) -> Fact:
        palace, house_names = self.palace, self.house_names
        hits = [s for s in stars if house_names[palace[s]] in names]
        shown = hits or stars
        where = "、".join([house_names[palace[s]] for s in shown])
        return Fact("in_house", (self._desc(shown), where, "、".join(names)), bool(hits))

    @_test(BRANCHES, BRANCHES)
    def op_branch_in(self, label: str, a: tuple[Branch, ...], b: tuple[Branch, ...]) -> Fact:
        return Fact("branch_in", (label, self._bdesc(a), self._bdesc(b)), bool(set(a) & set(b)))

    @_test(STARS, STARS)
    def op_same(self, stars_a: tuple[str, ...], stars_b: tuple[str, ...]) -> Fact:
        """Two *different* bodies, one from each set, share a palace."""
        palace = self.palace
        for a in stars_a:
            for b in stars_b:
                if a != b and palace[a] == palace[b]:
                    return Fact("same", (a, b, BRANCH_CHARS[palace[a]]), True)
        return Fact("same", (self._desc(stars_a), self._desc(stars_b), ""), False)

    @_test(STARS, STARS, BRANCHES)
    def op_flank(
        self, stars_a: tuple[str, ...], stars_b: tuple[str, ...], targets: tuple[Branch, ...]
    ) -> Fact:
        """夾: one body of set A on one side of the target palace and one of set B on the other (by palace)."""
        palace = self.palace
        for t in targets:
            left, right = t.shift(-1), t.shift(1)
            for a in stars_a:
                for b in stars_b:
                    if a == b:
                        continue
                    pa, pb = palace[a], palace[b]
                    if (pa, pb) in ((left, right), (right, left)):
                        return Fact("flank", (a, b, t.char), True)
        return Fact("flank", (self._desc(stars_a), self._desc(stars_b), self._bdesc(targets)), False)

    @_test(STARS)
    def op_alone(self, names: tuple[str, ...]) -> Fact:
        """All these bodies share one palace and no other body is there."""
        palaces = {self.palace[s] for s in names}
        if len(palaces) != 1:
            return Fact("alone", (self._desc(names), ""), False)
        (p,) = palaces
        others = [b.name for b in self.chart.bodies.values() if b.palace == p and b.name not in names]
        return Fact("alone", (self._desc(names), p.char), not others)

    @_test(BRANCHES)
    def op_empty_palaces(self, bs: tuple[Branch, ...]) -> Fact:
        """No body in any of these palaces (「四正俱空」)."""
        occupied = [name for name, p in self.palace.items() if p in bs]
        return Fact("empty_palaces", (self._bdesc(bs),), not occupied)

    @_test(STARS, STARS)
    def op_ahead(self, stars_a: tuple[str, ...], stars_b: tuple[str, ...]) -> Fact:
        """「前」: A is ahead of B along the zodiac (0° < λA − λB < 180°)."""
        bodies = self.chart.bodies
        for a in stars_a:
            for b in stars_b:
                if a != b and 0.0 < (bodies[a].longitude - bodies[b].longitude) % 360.0 < 180.0:
                    return Fact("ahead", (a, b), True)
        return Fact("ahead", (self._desc(stars_a), self._desc(stars_b)), False)

    @_test()
    def op_yin_cong(self) -> Fact:
        """太陽引遠而從近: the nearest body ahead of the Sun is farther than the nearest one behind it."""
        sun = self.chart.bodies["太陽"].longitude
        others = [(b.longitude, b.name) for b in self.chart.bodies.values() if b.name != "太陽"]
        # the first nearest in body order, as min() gives
        d_ahead, ahead = min(((lon - sun) % 360.0, i) for i, (lon, _) in enumerate(others))
        d_behind, behind = min(((sun - lon) % 360.0, i) for i, (lon, _) in enumerate(others))
        return Fact(
            "yin_cong",
            (others[ahead][1], f"{d_ahead:.1f}", others[behind][1], f"{d_behind:.1f}"),
            d_ahead > d_behind,
        )

    @_test(STARS)
    def op_ru_yuan(self, stars: tuple[str, ...]) -> Fact:
        hits = [s for s in stars if self.chart.bodies[s].ru_yuan]
        return Fact("ru_yuan", (self._desc(hits or stars),), bool(hits))

    @_test(STARS, LITERAL)
    def op_in_mansion(self, stars: tuple[str, ...], names: list[str]) -> Fact:
        bodies = self.chart.bodies
        hits = [s for s in stars if bodies[s].mansion in names]
        shown = hits or stars
        where = "".join([bodies[s].mansion for s in shown])
        return Fact("in_mansion", (self._desc(shown), where, "".join(names)), bool(hits))

    @_test(LITERAL)
    def op_ming_mansion(self, names: list[str]) -> Fact:
        m = self.chart.ming_mansion.name
        return Fact("ming_mansion", (m, "".join(names)), m in names)

    @_test(STARS)
    def op_own_mansion(self, stars: tuple[str, ...]) -> Fact:
        bodies = self.chart.bodies
        hits = [s for s in stars if bodies[s].in_own_mansion]
        shown = hits or stars
        return Fact(
            "own_mansion", (self._desc(shown), "".join([bodies[s].mansion for s in shown])), bool(hits)
        )

    @_test(LITERAL)
    def op_season(self, branches: list[str]) -> Fact:
        m = self.chart.month
        return Fact("season", (m.char, "".join(branches)), m.char in branches)

    @_test(STARS, LITERAL)
    def op_motion(self, stars: tuple[str, ...], kinds: list[str]) -> Fact:
        """The body's motion (順 逆 留, chart ``motion``) is one of ``kinds``."""
        bodies = self.chart.bodies
        hits = [s for s in stars if bodies[s].motion in kinds]
        shown = hits or stars
        return Fact(
            "motion",
            (self._desc(shown), "".join([bodies[s].motion for s in shown]), "".join(kinds)),
            bool(hits),
        )

    @_test()
    def op_eclipse(self) -> Fact:
        """An eclipse on the birth day (seed ¶28 「日月遇蝕」; chart ``eclipse``)."""
        c = self.chart
        if not c.eclipse_computed:
            self.unknown = "eclipse not computed: the chart was built from longitudes, not from an instant"
            return Fact("eclipse", ("", ""), False)
        if c.eclipse is None:
            return Fact("eclipse", ("", ""), False)
        return Fact("eclipse", (c.eclipse.kind, f"{c.eclipse.moon_latitude:+.2f}"), True)

    @_test()
    def op_leak(self) -> Fact:
        """漏: one 政 alone on its side of the 羅計 axis (``leaked``)."""
        found = self.roles["$漏"]
        return Fact("leak", (self._desc(found),), bool(found))

    @_test(STARS, STARS)
    def op_is(self, stars_a: tuple[str, ...], stars_b: tuple[str, ...]) -> Fact:
        """A body that belongs to both sets (e.g. the leaked star is the 官星)."""
        both = [s for s in stars_a if s in stars_b]
        return Fact("is", (self._desc(both or stars_a), self._desc(stars_b)), bool(both))

    @_test(STARS)
    def op_retro(self, stars: tuple[str, ...]) -> Fact:
        hits = [s for s in stars if self.chart.bodies[s].retrograde]
        return Fact("retro", (self._desc(hits or stars),), bool(hits))

    @_test(STARS)
    def op_empty(self, stars: tuple[str, ...]) -> Fact:
        """The body sits in a 空亡 palace of the year pillar."""
        kong = self.chart.kongwang
        hits = [s for s in stars if self.palace[s] in kong]
        return Fact("empty", (self._desc(hits or stars), self._bdesc(kong)), bool(hits))

    @_test(STARS, STARS)
    def op_generates(self, stars_a: tuple[str, ...], stars_b: tuple[str, ...]) -> Fact:
        for a in stars_a:
            for b in stars_b:
                if tables.star_element(a).generates(tables.star_element(b)):
                    return Fact("generates", (a, b), True)
        return Fact("generates", (self._desc(stars_a), self._desc(stars_b)), False)

    def _vitality(self, star: str) -> Vitality:
        return _four_season_vitality(tables.star_element(star), self.chart.month)

    @_test(STARS)
    def op_de_ling(self, stars: tuple[str, ...]) -> Fact:
        """得令: the body's element is 旺 or 相 in the birth month (four-season form of the seed's 令星)."""
        hits = [s for s in stars if self._vitality(s) in (Vitality.WANG, Vitality.XIANG)]
        shown = hits or stars
        return Fact(
            "de_ling", (self._desc(shown), "".join([self._vitality(s).char for s in shown])), bool(hits)
        )

    @_test(STARS)
    def op_xiu_qiu(self, stars: tuple[str, ...]) -> Fact:
        """休囚: the body's element is 休, 囚 or 死 in the birth month."""
        bad = (Vitality.XIU, Vitality.QIU, Vitality.SI)
        hits = [s for s in stars if self._vitality(s) in bad]
        shown = hits or stars
        return Fact(
            "xiu_qiu", (self._desc(shown), "".join([self._vitality(s).char for s in shown])), bool(hits)
        )

    def _stage(self, star: str) -> Stage:
        return _stage_of(tables.star_element(star), self.palace[star])

    @_test(STARS)
    def op_sheng_wang(self, stars: tuple[str, ...]) -> Fact:
        """生旺: the palace is 長生, 冠帶, 臨官 or 帝旺 of the body's element (yang-stem 長生 table)."""
        hits = [s for s in stars if self._stage(s) in SHENG_WANG]
        shown = hits or stars
        return Fact(
            "sheng_wang", (self._desc(shown), "".join([self._stage(s).char for s in shown])), bool(hits)
        )

    @_test(STARS)
    def op_at_ku(self, stars: tuple[str, ...]) -> Fact:
        """The body sits in the 庫 of its element (金丑 木未 火戌 水土辰)."""
        hits = [s for s in stars if self.palace[s] == KU.get(tables.star_element(s), KU_DEFAULT)]
        return Fact("at_ku", (self._desc(hits or stars),), bool(hits))

    @_test(STARS)
    def op_du_controls(self, stars: tuple[str, ...]) -> Fact:
        """躔克: the body is in a mansion whose 七曜 controls its element (「木星居亢」, 「夏金躔室」)."""
        bodies = self.chart.bodies
        hits = [s for s in stars if tables.star_element(bodies[s].du_zhu).controls(tables.star_element(s))]
        shown = hits or stars
        return Fact(
            "du_controls", (self._desc(shown), "".join([bodies[s].mansion for s in shown])), bool(hits)
        )

    @_test(STARS)
    def op_du_element(self, stars: tuple[str, ...]) -> Fact:
        """朝元 reading: the body is in a mansion whose 七曜 has its own element (「躔四火度」)."""
        bodies = self.chart.bodies
        hits = [s for s in stars if tables.star_element(bodies[s].du_zhu) == tables.star_element(s)]
        shown = hits or stars
        return Fact(
            "du_element", (self._desc(shown), "".join([bodies[s].mansion for s in shown])), bool(hits)
        )

    @_test(STARS)
    def op_ru_ju(self, stars: tuple[str, ...]) -> Fact:
        """入局: the body sits in the 三合 of its element (「主是火，得居寅午戌為入局」); 土 has no 三合."""
        hits = []
        for s in stars:
            element = tables.star_element(s)
            if element != Element.EARTH and sanhe(self.palace[s])[3] == element:
                hits.append(s)
        return Fact("ru_ju", (self._desc(hits or stars),), bool(hits))


_TESTS: dict[str, Callable[..., Fact]] = {
    name[3:]: method for name, method in vars(Evaluator).items() if name.startswith("op_")
}


@cache
def _four_season_vitality(element: Element, month: Branch) -> Vitality:
    return vitality(element, month, five_seasons=False)


@cache
def _stage_of(element: Element, palace: Branch) -> Stage:
    """十二長生 stage of an element at a palace (the yang stem of the element)."""
    return changsheng(YANG_STEM_OF[element], palace)


def leaked(chart: QizhengChart) -> tuple[str, ...]:
    """漏 (seed ¶8 「計羅截斷，觀其漏出何星」), reading: the 羅計 axis cuts the zodiac in two halves; a 政 that
    is alone on its half, the other six 政 all on the other half, is the star that 「漏出」. () if none."""
    rahu = chart.bodies["羅睺"].longitude
    sides: dict[bool, list[str]] = {True: [], False: []}
    for name in tables.SEVEN:
        sides[(chart.bodies[name].longitude - rahu) % 360.0 < 180.0].append(name)
    alone = [names for names in sides.values() if len(names) == 1]
    return tuple(alone[0]) if alone else ()


@cache
def year_sha(year: GanZhi) -> dict[str, tuple[Branch, ...]]:
    """羊刃, 劫煞, 亡神 of seed 000 keyed by the year pillar (engine.shensha: the year as the key pillar).

    Read from ``engine.shensha.marks`` (its tables of every marked star for every key, built once: ≈ 14 µs a
    pillar after that, against ≈ 1 ms for a full ``evaluate``); the branches of each star in branch order,
    the same as ``evaluate`` gives (tests/qizheng/test_round2.py checks the 60 pillars)."""
    on = shensha_marks(year, options=SHA_OPTIONS)
    return {name: tuple(b for b in Branch if name in on.get(b, ())) for name in SHA_NAMES}


def _run(pattern: Pattern, check: Check, ev: Evaluator) -> PatternResult:
    ev.facts = []
    ev.unknown = None
    holds = check(ev)
    if ev.unknown is not None:
        return PatternResult(pattern, None, tuple(ev.facts), ev.unknown)
    return PatternResult(pattern, holds, tuple(ev.facts))


def evaluate(pattern: Pattern, chart: QizhengChart, evaluator: Evaluator | None = None) -> PatternResult:
    """Evaluate one clause; ``holds`` is None for ``partial`` / ``no`` / ``definition`` clauses, and for a clause
    whose fact the chart lacks (``unknown``)."""
    if pattern.status != "yes" or pattern.when is None:
        return PatternResult(pattern, None, ())
    return _run(pattern, _COMPILER.condition(pattern.when), evaluator or Evaluator(chart))


def evaluate_all(chart: QizhengChart) -> tuple[PatternResult, ...]:
    ev = Evaluator(chart)
    return tuple(c if isinstance(c, PatternResult) else _run(p, c, ev) for p, c in _compiled())


def with_patterns(chart: QizhengChart) -> QizhengChart:
    """The chart carrying the results of every clause."""
    return replace(chart, patterns=evaluate_all(chart))
