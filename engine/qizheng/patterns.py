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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from engine.core.cycle import Branch, Element, GanZhi, Stem
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


@dataclass(frozen=True, slots=True)
class Fact:
    """One evaluated atom: the test, its resolved arguments and its truth value."""

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

    @property
    def seed_ko(self) -> str:
        """The seed's own Korean for the clause (quote_ko where it was not reworded)."""
        prefix = "이전 문구: 「"
        if self.ko_note and self.ko_note.startswith(prefix) and self.ko_note.endswith("」"):
            return self.ko_note[len(prefix) : -1]
        return self.quote_ko


@dataclass(frozen=True, slots=True)
class PatternResult:
    pattern: Pattern
    holds: bool | None
    facts: tuple[Fact, ...]
    unknown: str | None = None  # why a computable clause could not be decided on this chart

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
            )
        )
    return tuple(out)


class Evaluator:
    """Evaluates one condition against one chart, collecting the facts it looked at."""

    def __init__(self, chart: QizhengChart) -> None:
        self.chart = chart
        self.facts: list[Fact] = []
        self.unknown: str | None = None
        self.roles = self._roles()
        self.house_names = {b: h.name for h in chart.houses for b in (h.branch,)}
        self._named: dict[str, tuple[Branch, ...]] = {}
        self._star_lists: dict[int, tuple[Any, tuple[str, ...]]] = {}
        self._branch_exprs: dict[int, tuple[Any, tuple[Branch, ...]]] = {}
        self._house_refs: dict[str | int, tuple[Any, tuple[str, ...]]] = {}

    # ---- references -------------------------------------------------------------------------------------
    def _roles(self) -> dict[str, tuple[str, ...]]:
        c = self.chart
        roles: dict[str, tuple[str, ...]] = {
            "$命主": (c.ming_zhu,),
            "$身主": (c.shen_zhu,),
            "$身度主": (c.shen_du_zhu,),
            "$命度主": (c.ming_du_zhu,),
            "$官星": (c.house("官祿").lord,),
            "$福星": (c.house("福德").lord,),
            "$田星": (c.house("田宅").lord,),
            "$財星": (c.house("財帛").lord,),
            "$科甲": (tables.palace_lord(c.ming.shift(6)),),
            "$疾厄主": (c.house("疾厄").lord,),
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

    def stars(self, ref: Any) -> tuple[str, ...]:
        if isinstance(ref, str):
            found = self.roles.get(ref)
            if found is None:
                raise ConditionError(f"unknown star reference {ref!r}")
            return found
        if isinstance(ref, list):
            memo = self._star_lists.get(id(ref))
            if memo is not None and memo[0] is ref:  # the memo keeps ``ref`` alive, so its id is not reused
                return memo[1]
            out: list[str] = []
            for r in ref:
                out.extend(s for s in self.stars(r) if s not in out)
            self._star_lists[id(ref)] = (ref, tuple(out))
            return tuple(out)
        raise ConditionError(f"bad star reference {ref!r}")

    def branches(self, ref: Any) -> tuple[Branch, ...]:
        if isinstance(ref, str):
            return self._branches(ref)
        memo = self._branch_exprs.get(id(ref))
        if memo is not None and memo[0] is ref:  # the memo keeps ``ref`` alive, so its id is not reused
            return memo[1]
        found = self._branches(ref)
        self._branch_exprs[id(ref)] = (ref, found)
        return found

    def _branches(self, ref: Any) -> tuple[Branch, ...]:
        c = self.chart
        if isinstance(ref, list):
            out: list[Branch] = []
            for r in ref:
                out.extend(b for b in self.branches(r) if b not in out)
            return tuple(out)
        if isinstance(ref, dict):
            if len(ref) != 1:
                raise ConditionError(f"bad branch expression {ref!r}")
            ((op, arg),) = ref.items()
            if op == "shift":
                return tuple(b.shift(int(arg[1])) for b in self.branches(arg[0]))
            base = self.branches(arg)
            offsets = {"sanfang": (0, 4, -4), "sizheng": (0, 3, -3, 6), "opp": (6,)}
            if op not in offsets:
                raise ConditionError(f"bad branch operator {op!r}")
            return tuple(dict.fromkeys(b.shift(k) for b in base for k in offsets[op]))
        if not isinstance(ref, str):
            raise ConditionError(f"bad branch reference {ref!r}")
        if len(ref) == 1 and ref in "子丑寅卯辰巳午未申酉戌亥":
            return (Branch.from_char(ref),)
        if ref.startswith("@"):
            found = self._named.get(ref)
            if found is None:
                found = self._named_branches(ref[1:])
                self._named[ref] = found
            return found
        return tuple(dict.fromkeys(c.bodies[s].palace for s in self.stars(ref)))

    def _named_branches(self, key: str) -> tuple[Branch, ...]:
        """The palaces of a named reference ``@key`` (computed once per chart)."""
        c = self.chart
        named: dict[str, Callable[[], tuple[Branch, ...]]] = {
            "身宮": lambda: (c.shen,),
            "歲駕": lambda: (c.suijia,),
            "祿勳": lambda: (c.lu_xun,),
            "玉堂": lambda: c.yutang,
            "空亡": lambda: c.kongwang,
            "驛馬": lambda: (c.yima,),
            "財庫": lambda: (KU.get(tables.star_element(c.house("財帛").lord), KU_DEFAULT),),
            **{name: _sha_branches(c.year, name) for name in SHA_NAMES},
        }
        if key in named:
            return named[key]()
        if key in tables.HOUSES:
            return (c.house(key).branch,)
        raise ConditionError(f"unknown branch reference @{key!r}")

    def houses(self, ref: Any) -> tuple[str, ...]:
        key = ref if isinstance(ref, str) else id(ref)
        memo = self._house_refs.get(key)
        if memo is not None and memo[0] is ref:  # the memo keeps ``ref`` alive, so its id is not reused
            return memo[1]
        found = self._houses(ref)
        self._house_refs[key] = (ref, found)
        return found

    def _houses(self, ref: Any) -> tuple[str, ...]:
        names = ref if isinstance(ref, list) else [ref]
        out: list[str] = []
        for n in names:
            if n in GROUP_ALIASES:
                out.extend(self.chart.group(n))
            elif n in tables.HOUSES:
                out.append(n)
            else:
                raise ConditionError(f"unknown house {n!r}")
        return tuple(dict.fromkeys(out))

    # ---- evaluation -------------------------------------------------------------------------------------
    def fact(self, test: str, args: Sequence[str], value: bool) -> bool:
        self.facts.append(Fact(test, tuple(args), value))
        return value

    def eval(self, expr: Expr) -> bool:
        if not isinstance(expr, list) or not expr or not isinstance(expr[0], str):
            raise ConditionError(f"bad condition {expr!r}")
        op, args = expr[0], expr[1:]
        if op == "and":
            for a in args:
                if not self.eval(a):
                    return False
            return True
        if op == "or":
            for a in args:
                if self.eval(a):
                    return True
            return False
        if op == "not":
            if len(args) != 1:
                raise ConditionError("not takes one argument")
            return not self.eval(args[0])
        method = _TESTS.get(op)
        if method is None:
            raise ConditionError(f"unknown test {op!r}")
        return bool(method(self, *args))

    def _desc(self, stars: Sequence[str]) -> str:
        return "、".join(stars)

    def _bdesc(self, branches: Sequence[Branch]) -> str:
        return "".join(b.char for b in branches)

    def op_at(self, star_ref: Any, branch_ref: Any) -> bool:
        """Some body of the set sits in one of the palaces."""
        bs = self.branches(branch_ref)
        hits = [s for s in self.stars(star_ref) if self.chart.bodies[s].palace in bs]
        shown = hits or list(self.stars(star_ref))
        where = "".join(self.chart.bodies[s].palace.char for s in shown)
        return self.fact("at", [self._desc(shown), where, self._bdesc(bs)], bool(hits))

    def op_in_house(self, star_ref: Any, house_ref: Any) -> bool:
        names = self.houses(house_ref)
        hits = [s for s in self.stars(star_ref) if self.house_names[self.chart.bodies[s].palace] in names]
        shown = hits or list(self.stars(star_ref))
        where = "、".join(self.house_names[self.chart.bodies[s].palace] for s in shown)
        return self.fact("in_house", [self._desc(shown), where, "、".join(names)], bool(hits))

    def op_branch_in(self, branch_ref: Any, set_ref: Any) -> bool:
        a, b = self.branches(branch_ref), self.branches(set_ref)
        return self.fact(
            "branch_in", [str(branch_ref).lstrip("@"), self._bdesc(a), self._bdesc(b)], bool(set(a) & set(b))
        )

    def op_same(self, ref_a: Any, ref_b: Any) -> bool:
        """Two *different* bodies, one from each set, share a palace."""
        bodies = self.chart.bodies
        for a in self.stars(ref_a):
            for b in self.stars(ref_b):
                if a != b and bodies[a].palace == bodies[b].palace:
                    return self.fact("same", [a, b, bodies[a].palace.char], True)
        return self.fact("same", [self._desc(self.stars(ref_a)), self._desc(self.stars(ref_b)), ""], False)

    def op_flank(self, ref_a: Any, ref_b: Any, target: Any) -> bool:
        """夾: one body of set A on one side of the target palace and one of set B on the other (by palace)."""
        bodies = self.chart.bodies
        for t in self.branches(target):
            left, right = t.shift(-1), t.shift(1)
            for a in self.stars(ref_a):
                for b in self.stars(ref_b):
                    if a == b:
                        continue
                    pa, pb = bodies[a].palace, bodies[b].palace
                    if (pa, pb) in ((left, right), (right, left)):
                        return self.fact("flank", [a, b, t.char], True)
        where = self._bdesc(self.branches(target))
        return self.fact(
            "flank", [self._desc(self.stars(ref_a)), self._desc(self.stars(ref_b)), where], False
        )

    def op_alone(self, star_ref: Any) -> bool:
        """All these bodies share one palace and no other body is there."""
        names = self.stars(star_ref)
        palaces = {self.chart.bodies[s].palace for s in names}
        if len(palaces) != 1:
            return self.fact("alone", [self._desc(names), ""], False)
        (p,) = palaces
        others = [b.name for b in self.chart.bodies.values() if b.palace == p and b.name not in names]
        return self.fact("alone", [self._desc(names), p.char], not others)

    def op_empty_palaces(self, branch_ref: Any) -> bool:
        """No body in any of these palaces (「四正俱空」)."""
        bs = self.branches(branch_ref)
        occupied = [b.name for b in self.chart.bodies.values() if b.palace in bs]
        return self.fact("empty_palaces", [self._bdesc(bs)], not occupied)

    def op_ahead(self, ref_a: Any, ref_b: Any) -> bool:
        """「前」: A is ahead of B along the zodiac (0° < λA − λB < 180°)."""
        bodies = self.chart.bodies
        for a in self.stars(ref_a):
            for b in self.stars(ref_b):
                if a != b and 0.0 < (bodies[a].longitude - bodies[b].longitude) % 360.0 < 180.0:
                    return self.fact("ahead", [a, b], True)
        return self.fact("ahead", [self._desc(self.stars(ref_a)), self._desc(self.stars(ref_b))], False)

    def op_yin_cong(self) -> bool:
        """太陽引遠而從近: the nearest body ahead of the Sun is farther than the nearest one behind it."""
        sun = self.chart.bodies["太陽"].longitude
        others = [b for b in self.chart.bodies.values() if b.name != "太陽"]
        ahead = min(others, key=lambda b: (b.longitude - sun) % 360.0)
        behind = min(others, key=lambda b: (sun - b.longitude) % 360.0)
        d_ahead = (ahead.longitude - sun) % 360.0
        d_behind = (sun - behind.longitude) % 360.0
        return self.fact(
            "yin_cong", [ahead.name, f"{d_ahead:.1f}", behind.name, f"{d_behind:.1f}"], d_ahead > d_behind
        )

    def op_ru_yuan(self, star_ref: Any) -> bool:
        hits = [s for s in self.stars(star_ref) if self.chart.bodies[s].ru_yuan]
        return self.fact("ru_yuan", [self._desc(hits or self.stars(star_ref))], bool(hits))

    def op_in_mansion(self, star_ref: Any, names: list[str]) -> bool:
        hits = [s for s in self.stars(star_ref) if self.chart.bodies[s].mansion in names]
        shown = hits or list(self.stars(star_ref))
        where = "".join(self.chart.bodies[s].mansion for s in shown)
        return self.fact("in_mansion", [self._desc(shown), where, "".join(names)], bool(hits))

    def op_ming_mansion(self, names: list[str]) -> bool:
        m = self.chart.ming_mansion.name
        return self.fact("ming_mansion", [m, "".join(names)], m in names)

    def op_own_mansion(self, star_ref: Any) -> bool:
        hits = [s for s in self.stars(star_ref) if self.chart.bodies[s].in_own_mansion]
        shown = hits or list(self.stars(star_ref))
        return self.fact(
            "own_mansion",
            [self._desc(shown), "".join(self.chart.bodies[s].mansion for s in shown)],
            bool(hits),
        )

    def op_season(self, branches: list[str]) -> bool:
        m = self.chart.month
        return self.fact("season", [m.char, "".join(branches)], m.char in branches)

    def op_motion(self, star_ref: Any, kinds: list[str]) -> bool:
        """The body's motion (順 逆 留, chart ``motion``) is one of ``kinds``."""
        bodies = self.chart.bodies
        hits = [s for s in self.stars(star_ref) if bodies[s].motion in kinds]
        shown = hits or list(self.stars(star_ref))
        return self.fact(
            "motion",
            [self._desc(shown), "".join(bodies[s].motion for s in shown), "".join(kinds)],
            bool(hits),
        )

    def op_eclipse(self) -> bool:
        """An eclipse on the birth day (seed ¶28 「日月遇蝕」; chart ``eclipse``)."""
        c = self.chart
        if not c.eclipse_computed:
            self.unknown = "eclipse not computed: the chart was built from longitudes, not from an instant"
            return self.fact("eclipse", ["", ""], False)
        if c.eclipse is None:
            return self.fact("eclipse", ["", ""], False)
        return self.fact("eclipse", [c.eclipse.kind, f"{c.eclipse.moon_latitude:+.2f}"], True)

    def op_leak(self) -> bool:
        """漏: one 政 alone on its side of the 羅計 axis (``leaked``)."""
        found = leaked(self.chart)
        return self.fact("leak", [self._desc(found)], bool(found))

    def op_is(self, ref_a: Any, ref_b: Any) -> bool:
        """A body that belongs to both sets (e.g. the leaked star is the 官星)."""
        both = [s for s in self.stars(ref_a) if s in self.stars(ref_b)]
        return self.fact(
            "is", [self._desc(both or self.stars(ref_a)), self._desc(self.stars(ref_b))], bool(both)
        )

    def op_retro(self, star_ref: Any) -> bool:
        hits = [s for s in self.stars(star_ref) if self.chart.bodies[s].retrograde]
        return self.fact("retro", [self._desc(hits or self.stars(star_ref))], bool(hits))

    def op_empty(self, star_ref: Any) -> bool:
        """The body sits in a 空亡 palace of the year pillar."""
        kong = self.chart.kongwang
        hits = [s for s in self.stars(star_ref) if self.chart.bodies[s].palace in kong]
        return self.fact("empty", [self._desc(hits or self.stars(star_ref)), self._bdesc(kong)], bool(hits))

    def op_generates(self, ref_a: Any, ref_b: Any) -> bool:
        for a in self.stars(ref_a):
            for b in self.stars(ref_b):
                if tables.star_element(a).generates(tables.star_element(b)):
                    return self.fact("generates", [a, b], True)
        return self.fact("generates", [self._desc(self.stars(ref_a)), self._desc(self.stars(ref_b))], False)

    def _vitality(self, star: str) -> Vitality:
        return vitality(tables.star_element(star), self.chart.month, five_seasons=False)

    def op_de_ling(self, star_ref: Any) -> bool:
        """得令: the body's element is 旺 or 相 in the birth month (four-season form of the seed's 令星)."""
        hits = [s for s in self.stars(star_ref) if self._vitality(s) in (Vitality.WANG, Vitality.XIANG)]
        shown = hits or list(self.stars(star_ref))
        return self.fact(
            "de_ling", [self._desc(shown), "".join(self._vitality(s).char for s in shown)], bool(hits)
        )

    def op_xiu_qiu(self, star_ref: Any) -> bool:
        """休囚: the body's element is 休, 囚 or 死 in the birth month."""
        bad = (Vitality.XIU, Vitality.QIU, Vitality.SI)
        hits = [s for s in self.stars(star_ref) if self._vitality(s) in bad]
        shown = hits or list(self.stars(star_ref))
        return self.fact(
            "xiu_qiu", [self._desc(shown), "".join(self._vitality(s).char for s in shown)], bool(hits)
        )

    def _stage(self, star: str) -> Stage:
        return changsheng(YANG_STEM_OF[tables.star_element(star)], self.chart.bodies[star].palace)

    def op_sheng_wang(self, star_ref: Any) -> bool:
        """生旺: the palace is 長生, 冠帶, 臨官 or 帝旺 of the body's element (yang-stem 長生 table)."""
        hits = [s for s in self.stars(star_ref) if self._stage(s) in SHENG_WANG]
        shown = hits or list(self.stars(star_ref))
        return self.fact(
            "sheng_wang", [self._desc(shown), "".join(self._stage(s).char for s in shown)], bool(hits)
        )

    def op_at_ku(self, star_ref: Any) -> bool:
        """The body sits in the 庫 of its element (金丑 木未 火戌 水土辰)."""
        hits = []
        for s in self.stars(star_ref):
            if self.chart.bodies[s].palace == KU.get(tables.star_element(s), KU_DEFAULT):
                hits.append(s)
        return self.fact("at_ku", [self._desc(hits or self.stars(star_ref))], bool(hits))

    def op_du_controls(self, star_ref: Any) -> bool:
        """躔克: the body is in a mansion whose 七曜 controls its element (「木星居亢」, 「夏金躔室」)."""
        hits = []
        for s in self.stars(star_ref):
            lord = self.chart.bodies[s].du_zhu
            if tables.star_element(lord).controls(tables.star_element(s)):
                hits.append(s)
        shown = hits or list(self.stars(star_ref))
        return self.fact(
            "du_controls",
            [self._desc(shown), "".join(self.chart.bodies[s].mansion for s in shown)],
            bool(hits),
        )

    def op_du_element(self, star_ref: Any) -> bool:
        """朝元 reading: the body is in a mansion whose 七曜 has its own element (「躔四火度」)."""
        hits = []
        for s in self.stars(star_ref):
            lord = self.chart.bodies[s].du_zhu
            if tables.star_element(lord) == tables.star_element(s):
                hits.append(s)
        shown = hits or list(self.stars(star_ref))
        return self.fact(
            "du_element",
            [self._desc(shown), "".join(self.chart.bodies[s].mansion for s in shown)],
            bool(hits),
        )

    def op_ru_ju(self, star_ref: Any) -> bool:
        """入局: the body sits in the 三合 of its element (「主是火，得居寅午戌為入局」); 土 has no 三合."""
        hits = []
        for s in self.stars(star_ref):
            element = tables.star_element(s)
            if element == Element.EARTH:
                continue
            palace = self.chart.bodies[s].palace
            if sanhe(palace)[3] == element:
                hits.append(s)
        return self.fact("ru_ju", [self._desc(hits or self.stars(star_ref))], bool(hits))


_TESTS: dict[str, Callable[..., bool]] = {
    name[3:]: method for name, method in vars(Evaluator).items() if name.startswith("op_")
}


def leaked(chart: QizhengChart) -> tuple[str, ...]:
    """漏 (seed ¶8 「計羅截斷，觀其漏出何星」), reading: the 羅計 axis cuts the zodiac in two halves; a 政 that
    is alone on its half, the other six 政 all on the other half, is the star that 「漏出」. () if none."""
    rahu = chart.bodies["羅睺"].longitude
    sides: dict[bool, list[str]] = {True: [], False: []}
    for name in tables.SEVEN:
        sides[(chart.bodies[name].longitude - rahu) % 360.0 < 180.0].append(name)
    alone = [names for names in sides.values() if len(names) == 1]
    return tuple(alone[0]) if alone else ()


def _sha_branches(year: GanZhi, name: str) -> Callable[[], tuple[Branch, ...]]:
    return lambda: year_sha(year)[name]


@cache
def year_sha(year: GanZhi) -> dict[str, tuple[Branch, ...]]:
    """羊刃, 劫煞, 亡神 of seed 000 keyed by the year pillar (engine.shensha: the year as the key pillar).

    Read from ``engine.shensha.marks`` (its tables of every marked star for every key, built once: ≈ 14 µs a
    pillar after that, against ≈ 1 ms for a full ``evaluate``); the branches of each star in branch order,
    the same as ``evaluate`` gives (tests/qizheng/test_round2.py checks the 60 pillars)."""
    on = shensha_marks(year, options=SHA_OPTIONS)
    return {name: tuple(b for b in Branch if name in on.get(b, ())) for name in SHA_NAMES}


def evaluate(pattern: Pattern, chart: QizhengChart, evaluator: Evaluator | None = None) -> PatternResult:
    """Evaluate one clause; ``holds`` is None for ``partial`` / ``no`` / ``definition`` clauses, and for a clause
    whose fact the chart lacks (``unknown``)."""
    if pattern.status != "yes" or pattern.when is None:
        return PatternResult(pattern, None, ())
    ev = evaluator or Evaluator(chart)
    ev.facts = []
    ev.unknown = None
    holds = ev.eval(pattern.when)
    if ev.unknown is not None:
        return PatternResult(pattern, None, tuple(ev.facts), ev.unknown)
    return PatternResult(pattern, holds, tuple(ev.facts))


def evaluate_all(chart: QizhengChart) -> tuple[PatternResult, ...]:
    ev = Evaluator(chart)
    return tuple(evaluate(p, chart, ev) for p in patterns())


def with_patterns(chart: QizhengChart) -> QizhengChart:
    """The chart carrying the results of every clause."""
    return replace(chart, patterns=evaluate_all(chart))
