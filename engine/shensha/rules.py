"""The rule kinds of ``data/stars.json`` and their evaluation.

A rule is a small mapping ``{"kind": …, params}``. Month rules count the month index ``mi`` from 正月 = 寅 (0) to
十二月 = 丑 (11); seed-000 seasons are four (春 寅卯辰 … 冬 亥子丑); seed-002 旺相 uses five (辰未戌丑 = 土).
Rules may refer to other stars (``ref``) and combine them (``chong``, ``shift``, ``union``, ``mirror`` …).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.cycle import (
    BRANCH_CHARS,
    STEM_CHARS,
    Branch,
    Element,
    GanZhi,
    Stem,
    hour_stem,
    month_stem,
    xun_branch,
)
from engine.core.relations import (
    STAGE_NAMES,
    Kin,
    Stage,
    Vitality,
    changsheng,
    chong,
    hai,
    liuhe,
    po,
    sanhe,
    season_element,
    stage_branch,
    vitality,
    xing,
)
from engine.shensha.model import Options, Value, star_index
from engine.shensha.stages import MuRule, stage_branch_under

B = Branch


class Missing(Exception):
    """An input the rule needs is absent (``what`` is "month", "year" or "hour")."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class Inactive(Exception):
    """The rule gives no value here (a star of other months, a reading the text leaves unstated …)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Context:
    """Inputs of one evaluation, with a cache of star values (refs are evaluated once)."""

    day_: GanZhi
    month_: Branch | None
    year_: GanZhi | None
    hour_: Branch | None
    options: Options
    cache: dict[str, Value | BaseException] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)  # the inputs the rules read: "day", "month", "year", "hour"

    @property
    def day(self) -> GanZhi:
        self.read.add("day")
        return self.day_

    @property
    def month(self) -> Branch:
        self.read.add("month")
        if self.month_ is None:
            raise Missing("month")
        return self.month_

    @property
    def year(self) -> GanZhi:
        self.read.add("year")
        if self.year_ is None:
            raise Missing("year")
        return self.year_

    @property
    def hour(self) -> Branch:
        self.read.add("hour")
        if self.hour_ is None:
            raise Missing("hour")
        return self.hour_

    @property
    def mi(self) -> int:
        """Month index: 正月 (寅) = 0 … 十二月 (丑) = 11."""
        return (self.month - B.YIN) % 12

    @property
    def season(self) -> int:
        """Seed-000 season: 春 0 (寅卯辰), 夏 1, 秋 2, 冬 3."""
        return self.mi // 3


# ---------------------------------------------------------------- small helpers


def parse_char(ch: str) -> Branch | Stem:
    """A branch or stem character (巳 is a branch, 己 a stem)."""
    if ch in BRANCH_CHARS:
        return Branch.from_char(ch)
    return Stem.from_char(ch)


def parse_value(text: str) -> Value:
    """A table cell: one character, or several (a list)."""
    if len(text) == 1:
        return parse_char(text)
    if len(text) == 2 and text[0] in STEM_CHARS and text[1] in BRANCH_CHARS:
        return GanZhi.parse(text)
    return tuple(parse_char(c) for c in text)


def stage_of(name: str) -> Stage:
    return Stage(STAGE_NAMES.index(name))


def yang_stem(element: Element) -> Stem:
    return Stem(2 * element)


def stem_clash(s: Stem) -> Stem:
    """天干相沖: 甲庚 乙辛 丙壬 丁癸 (戊己 have none)."""
    if s in (Stem.WU, Stem.JI):
        raise Inactive("unstated")
    return Stem(s + 6) if s < 4 else Stem(s - 6)


def as_branch(v: Value) -> Branch:
    if isinstance(v, Branch):
        return v
    if isinstance(v, GanZhi):
        return v.branch
    raise TypeError(f"expected a branch, got {v!r}")


def as_stem(v: Value) -> Stem:
    if isinstance(v, Stem):
        return v
    raise TypeError(f"expected a stem, got {v!r}")


def branch_list(v: Value) -> tuple[Branch, ...]:
    if isinstance(v, Branch):
        return (v,)
    if isinstance(v, tuple):
        return tuple(b for b in v if isinstance(b, Branch))
    raise TypeError(f"expected branches, got {v!r}")


def sorted_branches(bs: tuple[Branch, ...] | list[Branch]) -> tuple[Branch, ...]:
    return tuple(sorted(set(bs)))


# 陽貴 squares: 甲 on 子 then 順, skipping 辰天羅 午端門 戌地網 子帝座 (seed 000 L71).
_SKIP = frozenset({B.CHEN, B.WU, B.XU, B.ZI})


def yanggui_squares() -> tuple[Branch, ...]:
    """Where 甲 … 癸 stand in the 陽貴 laying: 子 丑 寅 卯 巳 未 申 酉 亥 丑."""
    out = [B.ZI]
    b = B.ZI
    for _ in range(9):
        b = b.shift(1)
        while b in _SKIP:
            b = b.shift(1)
        out.append(b)
    return tuple(out)


# 天官符: palaces from the 局's 臨官 month: 3 months 中 乾 兌, then 9 months 中 乾 兌 艮 離 坎 坤 震 巽 (seed 000 L155).
GUANFU_PALACES = ("中宮", "乾宮", "兌宮", "中宮", "乾宮", "兌宮", "艮宮", "離宮", "坎宮", "坤宮", "震宮", "巽宮")  # fmt: skip

# 鶴神: from 己酉 (index 45): 8 directions clockwise (四維 6 days, 四正 5), then 16 days in heaven (seed 000 L203).
HESHEN_SEGMENTS = (
    (6, "東北"), (5, "東"), (6, "東南"), (5, "南"), (6, "西南"), (5, "西"), (6, "西北"), (5, "北"),
    (5, "上天房北"), (2, "上天房中"), (3, "上天南"), (1, "上天西"), (4, "上天東"), (1, "中宮"),
)  # fmt: skip
HESHEN_START = 45  # 己酉

# 後天 palace and direction of a branch (for 喜神: 「甲己東北乙庚乾，丙辛獨位向坤言，丁壬二日離宮上，戊癸東南」).
PALACE_OF_BRANCH = {
    B.ZI: "坎·北", B.CHOU: "艮·東北", B.YIN: "艮·東北", B.MAO: "震·東", B.CHEN: "巽·東南", B.SI: "巽·東南",
    B.WU: "離·南", B.WEI: "坤·西南", B.SHEN: "坤·西南", B.YOU: "兌·西", B.XU: "乾·西北", B.HAI: "乾·西北",
}  # fmt: skip

_RELATIONS: Mapping[str, Callable[[Branch], Branch]] = {
    "xing": xing,
    "chong": chong,
    "po": po,
    "hai": hai,
    "liuhe": liuhe,
}


# ---------------------------------------------------------------- evaluation


def star_value(star_id: str, ctx: Context) -> Value:
    """The value of a star under ``ctx.options`` (raises Missing / Inactive)."""
    cached = ctx.cache.get(star_id)
    if cached is None:
        star = star_index()[star_id]
        try:
            cached = evaluate_rule(star.variant(ctx.options).rule, ctx)
        except (Missing, Inactive) as exc:
            cached = exc
        ctx.cache[star_id] = cached
    if isinstance(cached, BaseException):
        raise cached
    return cached


def evaluate_rule(rule: Mapping[str, Any], ctx: Context) -> Value:
    kind = rule["kind"]
    fn = _KINDS.get(kind)
    if fn is None:
        raise ValueError(f"unknown rule kind {kind!r}")
    return fn(rule, ctx)


def _month_offset(r: Mapping[str, Any], ctx: Context) -> Value:
    return Branch.from_char(r["start"]).shift(int(r["step"]) * ctx.mi)


def _month_cycle(r: Mapping[str, Any], ctx: Context) -> Value:
    cycle: str = r["cycle"]
    return Branch.from_char(cycle[ctx.mi % len(cycle)])


def _month_table(r: Mapping[str, Any], ctx: Context) -> Value:
    cell = r["table"][ctx.mi]
    if cell == "-":
        raise Inactive("inactive")
    return parse_value(cell)


def _month_blocks(r: Mapping[str, Any], ctx: Context) -> Value:
    mi = ctx.mi
    n = (mi // int(r["block"])) * int(r["block_step"]) + (mi % int(r["block"])) * int(r["step"])
    return Branch.from_char(r["start"]).shift(n)


def _month_alternate(r: Mapping[str, Any], ctx: Context) -> Value:
    mi = ctx.mi
    if mi % 2 != int(r["parity"]):
        raise Inactive("inactive")
    return Branch.from_char(r["start"]).shift(mi // 2)


def _base_branch(r: Mapping[str, Any], ctx: Context) -> Branch:
    return ctx.day.branch if r.get("base") == "day" else ctx.month


def _sanhe_stage(r: Mapping[str, Any], ctx: Context) -> Value:
    element = sanhe(_base_branch(r, ctx))[3]
    return stage_branch(yang_stem(element), stage_of(r["stage"]))


def _sanhe_offset(r: Mapping[str, Any], ctx: Context) -> Value:
    return sanhe(_base_branch(r, ctx))[1].shift(int(r["k"]))


def _sanhe_stem(r: Mapping[str, Any], ctx: Context) -> Value:
    return yang_stem(sanhe(ctx.month)[3])


def _tiande_stem(r: Mapping[str, Any], ctx: Context) -> Value:
    m = ctx.month
    if m % 3 == 0:  # 四正 子午卯酉: the 陽貴 palace 坤乾艮巽 = 月建 + 5
        return m.shift(5)
    element = sanhe(m)[3]
    if m % 3 == 2:  # 孟 寅巳申亥 holds the yang 長生 stem (人元); 天德 is its yin partner
        return yang_stem(element).shift(1)
    return yang_stem(element)  # 季 辰未戌丑 holds the yin 墓 stem; 天德 is its yang partner


def _tianyi_doctor(r: Mapping[str, Any], ctx: Context) -> Value:
    month_cycle_stem = Stem(ctx.mi % 10)  # 正月 甲, 二月 乙 … 十月 癸, 十一月 甲, 十二月 乙
    first = month_stem(month_cycle_stem, B.YIN)
    b = B.YIN.shift((Stem.DING - first) % 10)
    if b == B.YOU:  # 酉 佛境, 寂滅之地: 違酉從丑
        b = B.CHOU
    if r.get("value") == "ganzhi":
        return GanZhi.from_parts(Stem.DING, b)
    return b


def _season_table(r: Mapping[str, Any], ctx: Context) -> Value:
    return parse_value(r["table"][ctx.season])


def _season_offset(r: Mapping[str, Any], ctx: Context) -> Value:
    return Branch.from_char(r["start"]).shift(int(r["step"]) * ctx.season)


def _season_stage(r: Mapping[str, Any], ctx: Context) -> Value:
    # seed-000 four seasons (春 寅卯辰 木 …): the core's four-season form
    return stage_branch(yang_stem(season_element(ctx.month, five_seasons=False)), stage_of(r["stage"]))


def _season_group(r: Mapping[str, Any], ctx: Context) -> Value:
    first_month = B.YIN.shift(3 * ctx.season)
    start, middle, end, _ = sanhe(first_month.shift(int(r["offset"])))
    return sorted_branches([start, middle, end])


def _pojun(r: Mapping[str, Any], ctx: Context) -> Value:
    return Branch((ctx.month + ctx.hour + int(r["add"])) % 12)


def _stem_table(r: Mapping[str, Any], ctx: Context) -> Value:
    return parse_value(r["table"][ctx.day.stem])


def _stem_stage(r: Mapping[str, Any], ctx: Context) -> Value:
    if "mu" not in r:
        return stage_branch(ctx.day.stem, stage_of(r["stage"]))
    found = stage_branch_under(ctx.day.stem, stage_of(r["stage"]), MuRule(r["mu"]))
    if found is None:  # the 陰干 養 under the 五行 墓 convention became the 墓 (engine.shensha.stages)
        raise Inactive("unstated")
    return found


def _lu_offset(r: Mapping[str, Any], ctx: Context) -> Value:
    s = ctx.day.stem
    exceptions: Mapping[str, str] = r.get("exceptions") or {}
    if s.char in exceptions:
        return Branch.from_char(exceptions[s.char])
    lu = stage_branch(s, Stage.LINGUAN)
    direction = -1 if (not s.is_yang and r["yin"] == "reverse") else 1
    return lu.shift(direction * int(r["k"]))


def _yanggui(r: Mapping[str, Any], ctx: Context) -> Value:
    return yanggui_squares()[ctx.day.stem.combine]


def _fuxing(r: Mapping[str, Any], ctx: Context) -> Value:
    s = ctx.day.stem
    food = s.shift(2)  # 食神
    tiger = B.YIN.shift((food - month_stem(s, B.YIN)) % 10)  # 五虎遁
    rat = B.ZI.shift((food - hour_stem(s, B.ZI)) % 10)  # 五鼠遁
    return (tiger,) if tiger == rat else (tiger, rat)


def _tianchu(r: Mapping[str, Any], ctx: Context) -> Value:
    s = ctx.day.stem
    lu = stage_branch(s, Stage.LINGUAN)
    on_lu = hour_stem(s, lu)  # the stem 五鼠遁 puts on one's 祿
    return stage_branch(on_lu, Stage.LINGUAN)


def _xishen(r: Mapping[str, Any], ctx: Context) -> Value:
    s = ctx.day.stem
    return B.YIN.shift((Stem.BING - month_stem(s, B.YIN)) % 10)


def _juelu(r: Mapping[str, Any], ctx: Context) -> Value:
    s = ctx.day.stem
    ren = B.ZI.shift((Stem.REN - hour_stem(s, B.ZI)) % 10)
    return (ren, ren.shift(1))


def _tianshe(r: Mapping[str, Any], ctx: Context) -> Value:
    return bool(ctx.day.chars == r["table"][ctx.season])


def _heshen(r: Mapping[str, Any], ctx: Context) -> Value:
    n = (ctx.day.index - HESHEN_START) % 60
    for days, where in HESHEN_SEGMENTS:
        if n < days:
            return where
        n -= days
    raise AssertionError("鶴神 segments cover 60 days")


def _tianguanfu(r: Mapping[str, Any], ctx: Context) -> Value:
    # 臨官 of the year's 局: 申子辰 亥, 寅午戌 巳, 巳酉丑 申, 亥卯未 寅
    start = sanhe(ctx.year.branch)[0].shift(3)
    return GUANFU_PALACES[(ctx.month - start) % 12]


def _year_offset(r: Mapping[str, Any], ctx: Context) -> Value:
    return ctx.year.branch.shift(int(r["k"]))


def _xun_ding(r: Mapping[str, Any], ctx: Context) -> Value:
    return xun_branch(ctx.day.xun_head, Stem.DING)


def _ref(r: Mapping[str, Any], ctx: Context) -> Value:
    return star_value(r["id"], ctx)


def _chong(r: Mapping[str, Any], ctx: Context) -> Value:
    return chong(as_branch(evaluate_rule(r["of"], ctx)))


def _shift(r: Mapping[str, Any], ctx: Context) -> Value:
    return as_branch(evaluate_rule(r["of"], ctx)).shift(int(r["n"]))


def _mirror(r: Mapping[str, Any], ctx: Context) -> Value:
    return Branch((int(r["sum"]) - as_branch(evaluate_rule(r["of"], ctx))) % 12)


def _union(r: Mapping[str, Any], ctx: Context) -> Value:
    out: list[Branch] = []
    for sub in r["of"]:
        out.extend(branch_list(evaluate_rule(sub, ctx)))
    return sorted_branches(out)


def _stem_clash(r: Mapping[str, Any], ctx: Context) -> Value:
    return stem_clash(as_stem(evaluate_rule(r["of"], ctx)))


def _stage_of_stem(r: Mapping[str, Any], ctx: Context) -> Value:
    return stage_branch(as_stem(evaluate_rule(r["of"], ctx)), stage_of(r["stage"]))


def _relative(r: Mapping[str, Any], ctx: Context) -> Value:
    # relation: "same" 同我 · "child" 我生 · "victim" 我克 · "master" 克我 · "mother" 生我
    e = Kin[str(r["relation"]).upper()].element(ctx.day.stem.element)
    return tuple(b for b in Branch if b.element == e)


def _branch_relation(r: Mapping[str, Any], ctx: Context) -> Value:
    return _RELATIONS[r["relation"]](ctx.day.branch)


def _vitality(r: Mapping[str, Any], ctx: Context) -> Value:
    grade = Vitality("旺相休囚死".index(r["grade"]))
    return tuple(b for b in Branch if vitality(b.element, ctx.month) == grade)


def _month_general(r: Mapping[str, Any], ctx: Context) -> Value:
    return liuhe(ctx.month)


def _xunkong(r: Mapping[str, Any], ctx: Context) -> Value:
    return ctx.day.xunkong


def _day_relative(r: Mapping[str, Any], ctx: Context) -> Value:
    return Kin.of(ctx.day.stem.element, ctx.day.branch.element).char


def _day_stage(r: Mapping[str, Any], ctx: Context) -> Value:
    return changsheng(ctx.day.stem, ctx.day.branch).char


def _day_vitality(r: Mapping[str, Any], ctx: Context) -> Value:
    return vitality(ctx.day.branch.element, ctx.month).char


def _none(r: Mapping[str, Any], ctx: Context) -> Value:
    raise Inactive("unstated")


def _merged(r: Mapping[str, Any], ctx: Context) -> Value:
    raise Inactive("merged")


def _general(r: Mapping[str, Any], ctx: Context) -> Value:
    raise Inactive("chart")


_KINDS: Mapping[str, Callable[[Mapping[str, Any], Context], Value]] = {
    "month_offset": _month_offset,
    "month_cycle": _month_cycle,
    "month_table": _month_table,
    "month_blocks": _month_blocks,
    "month_alternate": _month_alternate,
    "sanhe_stage": _sanhe_stage,
    "sanhe_offset": _sanhe_offset,
    "sanhe_stem": _sanhe_stem,
    "tiande_stem": _tiande_stem,
    "tianyi_doctor": _tianyi_doctor,
    "season_table": _season_table,
    "season_offset": _season_offset,
    "season_stage": _season_stage,
    "season_group": _season_group,
    "pojun": _pojun,
    "stem_table": _stem_table,
    "stem_stage": _stem_stage,
    "lu_offset": _lu_offset,
    "yanggui": _yanggui,
    "fuxing": _fuxing,
    "tianchu": _tianchu,
    "xishen": _xishen,
    "juelu": _juelu,
    "tianshe": _tianshe,
    "heshen": _heshen,
    "tianguanfu": _tianguanfu,
    "year_offset": _year_offset,
    "xun_ding": _xun_ding,
    "ref": _ref,
    "chong": _chong,
    "shift": _shift,
    "mirror": _mirror,
    "union": _union,
    "stem_clash": _stem_clash,
    "stage_of_stem": _stage_of_stem,
    "relative": _relative,
    "branch_relation": _branch_relation,
    "vitality": _vitality,
    "month_general": _month_general,
    "xunkong": _xunkong,
    "day_relative": _day_relative,
    "day_stage": _day_stage,
    "day_vitality": _day_vitality,
    "none": _none,
    "merged": _merged,
    "general": _general,
}

RULE_KINDS = frozenset(_KINDS)


def detail_of(star_id: str, value: Value) -> str | None:
    """A word shown with some values: the palace/direction of 喜神's branch."""
    if star_id == "xishen" and isinstance(value, Branch):
        return PALACE_OF_BRANCH[value]
    return None
