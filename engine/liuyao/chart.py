"""The 納甲 chart of a cast: lines, 變爻, 伏神, 六神, 旬空, 月破, 旺衰, 日辰 stage and line 神煞 (spec §3).

``build_chart(cast, month, day, use=None, options=Options())`` is pure: the same inputs give the same chart.
The chart is data only; the judgments (engine.liuyao.judgments), the 裝卦 analysis (engine.liuyao.analysis)
and the verdict (engine.liuyao.verdict) read it; engine.liuyao.reading puts them together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import cache
from typing import Any

from engine.core.cycle import Branch, Element, GanZhi, Stem
from engine.core.relations import Stage, Vitality, changsheng_branch, chong, liuhe, vitality
from engine.errors import EngineInputError
from engine.liuyao.cast import Cast
from engine.liuyao.categories import category
from engine.liuyao.table import Hexagram, Hidden, Relative, hexagram
from engine.shensha import marks, stem_marks


class ChangedRelatives(StrEnum):
    """Which palace gives the 變爻 六親: the 本卦's (default, spec §3) or the 之卦's own."""

    PALACE = "palace"
    OWN_PALACE = "own_palace"


class MiddleSource(StrEnum):
    """Where the 中神 of a 局會 may come from (000:19 「中神主也，失其主則不能會」).

    ``hexagram`` (default): a moving line, its 變 or a 伏神 under a moving line, as in all five worked examples of
    000:23–27; ``day_month``: the day or month may supply it too (懸中; not in the text)."""

    HEXAGRAM = "hexagram"
    DAY_MONTH = "day_month"


class Scatter(StrEnum):
    """What 散 is (000:15 「惟空破散則吉」, 000:19 「傷其中則不能局」; the seed does not define it).

    ``day_clash`` (default): a line 沖ed by the day that is not 旺相 in the month, or a moving line 沖ed by the
    day (沖散, 《增刪卜易》; outside the seeds); ``none``: only 旬空 and 月破 damage."""

    DAY_CLASH = "day_clash"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Options:
    """School options (spec/liuyao.md §3, §4); the defaults are the spec's."""

    changed_relatives: ChangedRelatives = ChangedRelatives.PALACE
    earth_changsheng: Branch = Branch.SHEN  # 土 長生 申 (seed 000 treats 革's 土鬼 on 申 as 長生); or 寅
    allow_static: bool = False  # 局會: count static lines as members too
    middle_source: MiddleSource = MiddleSource.HEXAGRAM  # 局會 中神 from the hexagram only (default)
    scatter: Scatter = Scatter.DAY_CLASH  # 散 = 日沖 (default) or not counted

    def __post_init__(self) -> None:
        if self.earth_changsheng not in (Branch.SHEN, Branch.YIN):
            raise EngineInputError(
                "error.liuyao.bad_option",
                f"earth_changsheng must be 申 or 寅, not {self.earth_changsheng!r}",
                value=str(self.earth_changsheng),
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "changed_relatives": self.changed_relatives.value,
            "earth_changsheng": self.earth_changsheng.char,
            "allow_static": self.allow_static,
            "middle_source": self.middle_source.value,
            "scatter": self.scatter.value,
        }


class Spirit(IntEnum):
    """六神 in order 青龍 朱雀 勾陳 螣蛇 白虎 玄武 (from line 1 by the day stem)."""

    QINGLONG = 0
    ZHUQUE = 1
    GOUCHEN = 2
    TENGSHE = 3
    BAIHU = 4
    XUANWU = 5

    @property
    def char(self) -> str:
        return SPIRIT_NAMES[self]

    def __str__(self) -> str:
        return self.char


SPIRIT_NAMES = ("青龍", "朱雀", "勾陳", "螣蛇", "白虎", "玄武")
# 甲乙 青龍, 丙丁 朱雀, 戊 勾陳, 己 螣蛇, 庚辛 白虎, 壬癸 玄武.
_SPIRIT_START = (0, 0, 1, 1, 2, 3, 4, 4, 5, 5)


@cache
def spirits(day_stem: Stem) -> tuple[Spirit, ...]:
    """六神 of lines 1…6 for a day stem."""
    start = _SPIRIT_START[day_stem]
    return tuple(Spirit((start + i) % 6) for i in range(6))


def changsheng_of(element: Element, earth: Branch = Branch.SHEN) -> Branch:
    """長生 of a line 五行 (六爻, all elements forward): that of its yang stem in the core table (木亥 火寅 金巳
    水申); 土 follows 水 at 申 (default) or 火 at 寅 (``Options.earth_changsheng``)."""
    return earth if element == Element.EARTH else changsheng_branch(Stem(2 * element))


def stage_of(element: Element, branch: Branch, earth: Branch = Branch.SHEN) -> Stage:
    """十二長生 stage of a line 五行 at a branch (spec §3: 木亥 火寅 金巳 水申 土申)."""
    return Stage((branch - changsheng_of(element, earth)) % 12)


def stage_branch_of(element: Element, stage: Stage, earth: Branch = Branch.SHEN) -> Branch:
    return changsheng_of(element, earth).shift(int(stage))


@dataclass(frozen=True, slots=True)
class Condition:
    """How a branch stands on this day and month."""

    empty: bool  # 旬空
    month_break: bool  # 月破 (沖 月建)
    vitality: Vitality  # 旺相休囚死 by the month
    day_stage: Stage  # 十二長生 at the day branch
    day_clash: bool  # 日沖
    day_combine: bool  # 日合
    month_combine: bool  # 月合

    def to_json(self) -> dict[str, Any]:
        return {
            "empty": self.empty,
            "month_break": self.month_break,
            "vitality": self.vitality.char,
            "day_stage": self.day_stage.char,
            "day_clash": self.day_clash,
            "day_combine": self.day_combine,
            "month_combine": self.month_combine,
        }


@dataclass(frozen=True, slots=True)
class ChangedLine:
    """A moving line's 變: the 變卦's 干支 at that position, 六親 per ``Options.changed_relatives``."""

    ganzhi: GanZhi
    relative: Relative
    condition: Condition
    branch: Branch
    element: Element

    def to_json(self) -> dict[str, Any]:
        return {
            "ganzhi": self.ganzhi.chars,
            "element": self.element.char,
            "relative": self.relative.char,
            **self.condition.to_json(),
        }


@dataclass(frozen=True, slots=True)
class HiddenLine:
    hidden: Hidden
    condition: Condition
    branch: Branch

    def to_json(self) -> dict[str, Any]:
        return {
            **self.hidden.to_json(),
            "element": self.branch.element.char,
            "flying": self.hidden.flying.chars,
            **self.condition.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Line:
    position: int  # 1 = bottom
    yang: bool
    moving: bool
    ganzhi: GanZhi
    relative: Relative
    spirit: Spirit
    shi: bool
    ying: bool
    condition: Condition
    changed: ChangedLine | None
    hidden: tuple[HiddenLine, ...]
    marks: tuple[str, ...]
    branch: Branch
    element: Element

    @property
    def digit(self) -> int:
        return (9 if self.yang else 6) if self.moving else (7 if self.yang else 8)

    def to_json(self) -> dict[str, Any]:
        return {
            "line": self.position,
            "digit": self.digit,
            "yang": self.yang,
            "moving": self.moving,
            "ganzhi": self.ganzhi.chars,
            "element": self.element.char,
            "relative": self.relative.char,
            "spirit": self.spirit.char,
            "shi": self.shi,
            "ying": self.ying,
            **self.condition.to_json(),
            "changed": None if self.changed is None else self.changed.to_json(),
            "hidden": [h.to_json() for h in self.hidden],
            "shensha": list(self.marks),
        }


@dataclass(frozen=True, slots=True)
class UseGod:
    """The 用神: a 六親, the visible lines carrying it, else its 伏神 (never line 1 by default); or the 世 itself
    (``shi``: `--use 世`, or a category such as illness: 000:15 「總之以鬼為忌者」, 000:11 「以鬼為害」)."""

    relative: Relative
    lines: tuple[int, ...]  # visible lines of the 本卦 carrying it
    hidden: tuple[int, ...]  # positions of its 伏神 when it is not visible
    category: str | None = None  # the question category it came from, if any
    shi: bool = False  # the 用 is the 世 line (its 六親 is then the 世's)
    avoid: Relative | None = None  # a 忌 named by the category (illness: 官鬼)
    ghost: str | None = None  # the category's reading of the 鬼: "use" (官星為用) | "avoid" (以鬼為忌) | None

    def to_json(self) -> dict[str, Any]:
        return {
            "relative": self.relative.char,
            "lines": list(self.lines),
            "hidden": list(self.hidden),
            "category": self.category,
            "shi": self.shi,
            "avoid": None if self.avoid is None else self.avoid.char,
        }


@dataclass(frozen=True, slots=True)
class LiuyaoChart:
    cast: Cast
    main: Hexagram
    changed: Hexagram | None
    month: Branch
    day: GanZhi
    options: Options
    lines: tuple[Line, ...]
    use: UseGod | None

    @property
    def moving(self) -> tuple[int, ...]:
        return self.cast.moving

    @property
    def xunkong(self) -> tuple[Branch, Branch]:
        return self.day.xunkong

    @property
    def shi(self) -> Line:
        return self.lines[self.main.shi - 1]

    @property
    def ying(self) -> Line:
        return self.lines[self.main.ying - 1]

    @property
    def flags(self) -> tuple[str, ...]:
        """六沖卦 / 六合卦 / 六害卦 of the 本卦 (a 六害卦 is a flag, never a verdict: seed 000:47)."""
        out = []
        if self.main.six_clash:
            out.append("六沖卦")
        if self.main.six_harmony:
            out.append("六合卦")
        if self.main.six_harm:
            out.append("六害卦")
        return tuple(out)

    def condition(self, branch: Branch) -> Condition:
        return condition(branch, self.month, self.day, self.options.earth_changsheng)

    def to_json(self) -> dict[str, Any]:
        return {
            "main": self.main.to_json(),
            "changed": None if self.changed is None else self.changed.to_json(),
            "moving": list(self.moving),
            "month": self.month.char,
            "day": self.day.chars,
            "xunkong": [b.char for b in self.xunkong],
            "cast": self.cast.to_json(),
            "use": None if self.use is None else self.use.to_json(),
            "flags": list(self.flags),
            "lines": [ln.to_json() for ln in self.lines],
            "options": self.options.to_json(),
        }


@cache
def condition(branch: Branch, month: Branch, day: GanZhi, earth: Branch = Branch.SHEN) -> Condition:
    el = branch.element
    return Condition(
        empty=branch in day.xunkong,
        month_break=chong(month) == branch,
        vitality=vitality(el, month),
        day_stage=stage_of(el, day.branch, earth),
        day_clash=chong(day.branch) == branch,
        day_combine=liuhe(day.branch) == branch,
        month_combine=liuhe(month) == branch,
    )


@cache
def _line_marks(
    day: GanZhi, month: Branch
) -> tuple[Mapping[Branch, tuple[str, ...]], Mapping[Stem, tuple[str, ...]]]:
    """The 神煞 engine's marks for the day and month: by branch and by stem (the one 神煞 table of the project)."""
    return marks(day, month=month), stem_marks(day, month=month)


@cache
def _marks_cached(gz: GanZhi, day: GanZhi, month: Branch) -> tuple[str, ...]:
    return _marks_for(gz, _line_marks(day, month))


def _marks_for(
    gz: GanZhi, found: tuple[Mapping[Branch, tuple[str, ...]], Mapping[Stem, tuple[str, ...]]]
) -> tuple[str, ...]:
    by_branch, by_stem = found
    names = list(by_branch.get(gz.branch, ()))
    names += [n for n in by_stem.get(gz.stem, ()) if n not in names]
    return tuple(names)


SHI_WORDS = frozenset({"世", "世爻", "shi", "self"})


def _parse_use(use: str | None, main: Hexagram) -> UseGod | None:
    if use is None or not use.strip():
        return None
    text = use.strip()
    if text in SHI_WORDS:
        return UseGod(main.relatives[main.shi - 1], (main.shi,), (), shi=True)
    try:
        rel = Relative.parse(text)
    except EngineInputError:
        cat = category(text)
        if cat is None:
            raise EngineInputError(
                "error.liuyao.bad_use", f"not a 六親 or question category: {use!r}", value=use
            ) from None
        if cat.relative is None:  # the 世 is the 用 (illness)
            return UseGod(main.relatives[main.shi - 1], (main.shi,), (), cat.id, True, cat.avoid, cat.ghost)
        rel = cat.relative
        lines = tuple(i + 1 for i, r in enumerate(main.relatives) if r == rel)
        hidden = () if lines else tuple(h.line for h in main.hidden if h.relative == rel)
        return UseGod(rel, lines, hidden, cat.id, False, cat.avoid, cat.ghost)
    lines = tuple(i + 1 for i, r in enumerate(main.relatives) if r == rel)
    hidden = () if lines else tuple(h.line for h in main.hidden if h.relative == rel)
    return UseGod(relative=rel, lines=lines, hidden=hidden)


def build_chart(
    cast: Cast,
    month: Branch,
    day: GanZhi,
    use: str | None = None,
    options: Options = Options(),  # noqa: B008 - frozen
) -> LiuyaoChart:
    """The full chart of ``cast`` in the month 月建 ``month`` on the day ``day``.

    ``use`` names the 用神: a 六親 (官鬼, 官, 鬼 …), 世, or a question category (see data/categories.json).
    """
    if not isinstance(month, Branch):
        raise EngineInputError("error.not_a_branch", f"not a 地支: {month!r}", value=month)
    if not isinstance(day, GanZhi):
        raise EngineInputError("error.not_a_ganzhi", f"not a 干支: {day!r}", value=day)
    main = hexagram(cast.code)
    cc = cast.changed_code
    changed = None if cc is None else hexagram(cc)
    earth = options.earth_changsheng
    sp = spirits(day.stem)
    digits = cast.digits
    ch_palace = main.palace.element
    if changed is not None and options.changed_relatives == ChangedRelatives.OWN_PALACE:
        ch_palace = changed.palace.element
    hidden_by_line: dict[int, list[HiddenLine]] = {}
    for h in main.hidden:
        hb = h.ganzhi.branch
        hidden_by_line.setdefault(h.line, []).append(HiddenLine(h, condition(hb, month, day, earth), hb))
    shi, ying = main.shi, main.ying
    lines = []
    for i in range(6):
        d = digits[i]
        b = main.branches[i]
        moving = d in "69"
        ch = None
        if moving and changed is not None:
            cb, ce = changed.branches[i], changed.elements[i]
            ch = ChangedLine(
                changed.najia[i], Relative.of(ch_palace, ce), condition(cb, month, day, earth), cb, ce
            )
        lines.append(
            Line(
                i + 1,
                d in "79",
                moving,
                main.najia[i],
                main.relatives[i],
                sp[i],
                shi == i + 1,
                ying == i + 1,
                condition(b, month, day, earth),
                ch,
                tuple(hidden_by_line.get(i + 1, ())),
                _marks_cached(main.najia[i], day, month),
                b,
                main.elements[i],
            )
        )
    return LiuyaoChart(
        cast=cast,
        main=main,
        changed=changed,
        month=month,
        day=day,
        options=options,
        lines=tuple(lines),
        use=_parse_use(use, main),
    )
