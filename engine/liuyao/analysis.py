"""裝卦 analysis of a chart: per-line strength (旺衰, 日沖 / 暗動 / 日破 / 散, 空, 破), the transformation of each
moving line (進神 · 退神, 回頭生 · 回頭剋, 化墓 · 化絕 · 化空 · 化破, 反吟 · 伏吟), the 原神 · 忌神 · 仇神 of the 用神
and the 應期 basics of 000:15 「靜遲動速，旺大衰小」.

Rule names and sources are in data/analysis.json (a seed line, or 《增刪卜易》/《卜筮正宗》 marked ``outside_seeds``).
Pure: reads a :class:`~engine.liuyao.chart.LiuyaoChart`, returns frozen values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from engine.core.cycle import Branch, Element
from engine.core.relations import Kin, Stage, Vitality, chong
from engine.datafiles import load_json
from engine.liuyao.chart import Condition, Line, LiuyaoChart, Options, Scatter, stage_of
from engine.liuyao.table import Relative

_WANG_XIANG = (Vitality.WANG, Vitality.XIANG)


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    lzh: str
    ko: str
    source: str
    outside_seeds: bool


@cache
def rules() -> Mapping[str, Rule]:
    doc = load_json("engine.liuyao", "analysis.json")
    return {k: Rule(k, v["lzh"], v["ko"], v["source"], v["outside_seeds"]) for k, v in doc["rules"].items()}


def rule(rule_id: str) -> Rule:
    return rules()[rule_id]


# ---------------------------------------------------------------- damage and strength of one branch


def scattered(c: Condition, moving: bool, options: Options) -> bool:
    """散 (option ``scatter``): 沖ed by the day while moving, or while static and not 旺相 (then it is 日破)."""
    if options.scatter == Scatter.NONE or not c.day_clash:
        return False
    return moving or c.vitality not in _WANG_XIANG


def damaged(c: Condition, moving: bool, options: Options) -> bool:
    """空 / 破 / 散 (000:15 「惟空破散則吉」, 000:19 「傷其中則不能局」)."""
    return c.empty or c.month_break or scattered(c, moving, options)


def day_kin(day: Branch, element: Element) -> Kin:
    """How the day stands to a line element: MOTHER = 日生, SAME = 日比, MASTER = 日克, CHILD = 洩, VICTIM = 耗."""
    return Kin.of(element, day.element)


_DAY_RELATION = {
    Kin.MOTHER: "日生",
    Kin.SAME: "日比",
    Kin.MASTER: "日克",
    Kin.CHILD: "日洩",
    Kin.VICTIM: "日耗",
}


@dataclass(frozen=True, slots=True)
class Strength:
    """How a branch stands: month 旺相休囚死, day relation, 日沖 and what it makes (暗動 / 日破 / 沖散), 空, 破."""

    vitality: Vitality
    day_stage: Stage
    day_relation: str  # 日生 日比 日克 日洩 日耗
    day_clash: bool
    an_dong: bool  # static, 旺相, 日沖
    ri_po: bool  # static, not 旺相, 日沖 (counted as 散 unless scatter=none)
    chong_san: bool  # moving, 日沖, scatter=day_clash
    empty: bool
    month_break: bool
    strong: bool  # 旺相 in the month, or 日生 / 日比 (《增刪卜易》 日辰生扶)
    damaged: bool  # 空 / 破 / 散

    @property
    def tags(self) -> tuple[str, ...]:
        out = [self.vitality.char, self.day_stage.char, self.day_relation]
        for flag, name in (
            (self.day_clash, "日沖"),
            (self.an_dong, "暗動"),
            (self.ri_po, "日破"),
            (self.chong_san, "沖散"),
            (self.empty, "旬空"),
            (self.month_break, "月破"),
        ):
            if flag:
                out.append(name)
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "vitality": self.vitality.char,
            "day_stage": self.day_stage.char,
            "day_relation": self.day_relation,
            "day_clash": self.day_clash,
            "an_dong": self.an_dong,
            "ri_po": self.ri_po,
            "chong_san": self.chong_san,
            "empty": self.empty,
            "month_break": self.month_break,
            "strong": self.strong,
            "damaged": self.damaged,
            "tags": list(self.tags),
        }


@lru_cache(maxsize=8192)
def strength(c: Condition, element: Element, day: Branch, moving: bool, options: Options) -> Strength:
    """The strength of a branch of ``element`` standing as ``c`` says on ``day`` (a value of its arguments,
    all frozen: remembered, a chart asks for 6–7)."""
    rel = day_kin(day, element)
    wx = c.vitality in _WANG_XIANG
    clash = c.day_clash
    scatter_on = options.scatter == Scatter.DAY_CLASH
    an_dong = clash and not moving and wx
    ri_po = clash and not moving and not wx
    chong_san = clash and moving and scatter_on
    return Strength(
        vitality=c.vitality,
        day_stage=c.day_stage,
        day_relation=_DAY_RELATION[rel],
        day_clash=clash,
        an_dong=an_dong,
        ri_po=ri_po,
        chong_san=chong_san,
        empty=c.empty,
        month_break=c.month_break,
        strong=wx or rel in (Kin.MOTHER, Kin.SAME),
        damaged=damaged(c, moving, options),
    )


# ---------------------------------------------------------------- a moving line's 變


def advance(a: Branch, b: Branch) -> int:
    """+1 if ``b`` is the next branch of ``a``'s element (寅→卯, 丑→辰 …: 進神), −1 if the previous (退神), else 0."""
    if a.element != b.element:
        return 0
    step = 3 if a.element == Element.EARTH else 1
    if (b - a) % 12 == step:
        return 1
    if (a - b) % 12 == step:
        return -1
    return 0


def transformation(line: Line, earth: Branch) -> tuple[str, ...]:
    """Rule ids that a moving line's 變 makes (empty for a static line)."""
    ch = line.changed
    if ch is None:
        return ()
    return _transformation(line.branch, line.element, ch.branch, ch.element, ch.condition, earth)


@lru_cache(maxsize=8192)
def _transformation(
    branch: Branch,
    element: Element,
    ch_branch: Branch,
    ch_element: Element,
    ch_condition: Condition,
    earth: Branch,
) -> tuple[str, ...]:
    """:func:`transformation` of a line of ``branch``/``element`` changing to ``ch_branch``/``ch_element``
    standing as ``ch_condition`` (all it reads of the line: remembered)."""
    out = []
    adv = advance(branch, ch_branch)
    if adv > 0:
        out.append("jin_shen")
    elif adv < 0:
        out.append("tui_shen")
    if ch_element.generates(element):
        out.append("hui_tou_sheng")
    elif ch_element.controls(element):
        out.append("hui_tou_ke")
    stage = stage_of(element, ch_branch, earth)
    if stage == Stage.MU:
        out.append("hua_mu")
    elif stage == Stage.JUE:
        out.append("hua_jue")
    if ch_condition.empty:
        out.append("hua_kong")
    if ch_condition.month_break:
        out.append("hua_po")
    if ch_branch == branch:
        out.append("fu_yin")
    elif chong(branch) == ch_branch:
        out.append("fan_yin")
    return tuple(out)


# ---------------------------------------------------------------- per line


@dataclass(frozen=True, slots=True)
class LineAnalysis:
    position: int
    branch: Branch
    relative: Relative
    moving: bool
    strength: Strength
    transforms: tuple[str, ...]  # rule ids of its 變 (moving lines only)
    stars: tuple[str, ...]  # 神煞 that act: on moving lines only (000:223 「各伺其動，不動則不伺也」)

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.position,
            "branch": self.branch.char,
            "relative": self.relative.char,
            "moving": self.moving,
            "strength": self.strength.to_json(),
            "transforms": [rule(t).lzh for t in self.transforms],
            "transform_ids": list(self.transforms),
            "stars": list(self.stars),
        }


def analyse_line(chart: LiuyaoChart, line: Line) -> LineAnalysis:
    opts = chart.options
    return LineAnalysis(
        line.position,
        line.branch,
        line.relative,
        line.moving,
        strength(line.condition, line.element, chart.day.branch, line.moving, opts),
        transformation(line, opts.earth_changsheng),
        line.marks if line.moving else (),
    )


# ---------------------------------------------------------------- 原神 忌神 仇神


@dataclass(frozen=True, slots=True)
class Helper:
    """原神 / 忌神 / 仇神 of the 用神: its 六親 and 五行, and the visible lines carrying it."""

    role: str  # yuan_shen ji_shen chou_shen
    relative: Relative
    element: Element
    lines: tuple[int, ...]
    moving: tuple[int, ...]  # of those, the moving ones
    active: tuple[int, ...]  # moving (or 暗動) and not damaged: the ones that act

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "name": rule(self.role).lzh,
            "relative": self.relative.char,
            "element": self.element.char,
            "lines": list(self.lines),
            "moving": list(self.moving),
            "active": list(self.active),
            "source": rule(self.role).source,
        }


def helpers(chart: LiuyaoChart, use_element: Element, lines: tuple[LineAnalysis, ...]) -> tuple[Helper, ...]:
    """原神 (生用), 忌神 (克用), 仇神 (生忌, 克原) by 五行 against the 宮五行."""
    palace = chart.main.palace.element
    out = []
    for role, kin in (("yuan_shen", Kin.MOTHER), ("ji_shen", Kin.MASTER), ("chou_shen", Kin.VICTIM)):
        el = kin.element(use_element)
        rel = Relative.of(palace, el)
        on = tuple(la.position for la in lines if la.relative == rel)
        mv = tuple(p for p in on if lines[p - 1].moving)
        act = tuple(
            p
            for p in on
            if (lines[p - 1].moving or lines[p - 1].strength.an_dong) and not lines[p - 1].strength.damaged
        )
        out.append(Helper(role, rel, el, on, mv, act))
    return tuple(out)


# ---------------------------------------------------------------- 應期 (000:15)


def ying_qi(moving: bool, strong: bool) -> dict[str, Any]:
    """000:15 「靜遲動速，旺大衰小」: a moving 用 answers soon, a static one late; strong → a large matter, weak → small."""
    r = rule("ying_qi")
    return {
        "speed": "速" if moving else "遲",
        "size": "大" if strong else "小",
        "source": r.source,
    }
