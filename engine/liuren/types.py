"""Value types of the 大六壬 chart: 天將, 九宗門 methods, lessons, transmissions and the 初傳 trace."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import Any

from engine.core.cycle import ELEMENTS, Branch, Stem

GENERAL_CHARS = (
    "貴人",
    "螣蛇",
    "朱雀",
    "六合",
    "勾陳",
    "青龍",
    "天空",
    "白虎",
    "太常",
    "玄武",
    "太陰",
    "天后",
)


class General(IntEnum):
    """十二天將 in their running order (seed 002)."""

    GUIREN = 0
    TENGSHE = 1
    ZHUQUE = 2
    LIUHE = 3
    GOUCHEN = 4
    QINGLONG = 5
    TIANKONG = 6
    BAIHU = 7
    TAICHANG = 8
    XUANWU = 9
    TAIYIN = 10
    TIANHOU = 11

    @property
    def char(self) -> str:
        return GENERAL_CHARS[self]

    @property
    def home(self) -> Branch:
        """The branch whose 陰陽五行 the general shares (seed 002: 貴人丑 螣蛇巳 朱雀午 … 天后子)."""
        return _general_homes()[self]

    @classmethod
    def from_char(cls, text: str) -> General:
        return cls(GENERAL_CHARS.index(text))

    def __str__(self) -> str:
        return self.char


@cache
def _general_homes() -> tuple[Branch, ...]:
    """The seed-002 天將 rows of the 神煞 engine's data (「貴人 陰陽五行生剋與丑將同」 …), in running order."""
    from engine.shensha import star_defs

    homes = {
        s.name.removesuffix("(天將)"): Branch.from_char(str(s.rule["branch"]))
        for s in star_defs()
        if s.group == "general"
    }
    return tuple(homes[name] for name in GENERAL_CHARS)


METHOD_CHARS = ("賊剋", "比用", "涉害", "遙剋", "昴星", "別責", "八專", "伏吟", "返吟")


class Method(IntEnum):
    """九宗門: the nine ways the 三傳 are obtained."""

    ZEIKE = 0
    BIYONG = 1
    SHEHAI = 2
    YAOKE = 3
    MAOXING = 4
    BIEZE = 5
    BAZHUAN = 6
    FUYIN = 7
    FANYIN = 8

    @property
    def char(self) -> str:
        return METHOD_CHARS[self]

    def __str__(self) -> str:
        return self.char


# Relations of a lesson's upper to its lower (or of a 遙剋 candidate to the day stem).
XIA_ZEI_SHANG = "下賊上"  # the lower 克s the upper (重審)
SHANG_KE_XIA = "上克下"  # the upper 克s the lower (元首)
YAO_KE_RI = "神剋日"  # an upper 克s the day stem from afar (蒿矢)
RI_KE_YAO = "日剋神"  # the day stem 克s an upper (彈射)


# The relation of a lesson by (lower 五行, upper 五行): _KE[lower * 5 + upper] (Lesson.ke).
_KE: tuple[str | None, ...] = tuple(
    XIA_ZEI_SHANG if lower.controls(upper) else SHANG_KE_XIA if upper.controls(lower) else None
    for lower in ELEMENTS
    for upper in ELEMENTS
)


@dataclass(frozen=True, slots=True)
class Lesson:
    """One of the 四課: ``upper`` is the 天盤 branch, ``lower`` the day stem (1課) or a 地盤 branch."""

    upper: Branch
    lower: Stem | Branch
    seat: Branch  # 地盤 position of the lower (the 寄宮 for the day stem)

    @property
    def ke(self) -> str | None:
        """下賊上, 上克下 or None. The 1課 uses the stem's own 五行 (spec §2 trap)."""
        return _KE[self.lower.element * 5 + self.upper.element]

    @property
    def chars(self) -> tuple[str, str]:
        return self.upper.char, self.lower.char

    def __str__(self) -> str:
        return f"{self.upper.char}/{self.lower.char}"


@dataclass(frozen=True, slots=True)
class Transmission:
    """One of the 三傳 with its 遁干 (None when 空), 六親 vs the day stem, 天將 and 旬空 flag."""

    branch: Branch
    dun_stem: Stem | None
    relative: str  # 印 盜 鬼 財 劫 (seed 002 names: 生我 我生 克我 我克 同我)
    general: General
    is_empty: bool
    seat: Branch  # the 地盤 branch under it
    marks: tuple[str, ...] = ()  # 神煞 names on this branch (engine.shensha.marks), when computed

    def to_json(self) -> dict[str, Any]:
        return {
            "branch": self.branch.char,
            "dun_stem": self.dun_stem.char if self.dun_stem is not None else None,
            "relative": self.relative,
            "general": self.general.char,
            "empty": self.is_empty,
            "seat": self.seat.char,
            "marks": list(self.marks),
        }


@dataclass(frozen=True, slots=True)
class DepthStep:
    """One 地盤 station of a 涉害 walk: the branch and the characters there that count (克)."""

    earth: Branch
    counted: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A branch that could become 初傳, and why."""

    branch: Branch
    relation: str  # 下賊上 上克下 神剋日 日剋神
    lessons: tuple[int, ...]  # lesson numbers (1–4) where it stands in that relation
    seat: Branch
    bi: bool  # same 陰陽 as the day stem (比)
    depth: int | None = None  # 涉害 深淺, when it was counted
    steps: tuple[DepthStep, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "branch": self.branch.char,
            "relation": self.relation,
            "lessons": list(self.lessons),
            "seat": self.seat.char,
            "bi": self.bi,
            "depth": self.depth,
            "steps": [[s.earth.char, list(s.counted)] for s in self.steps],
        }


@dataclass(frozen=True, slots=True)
class Trace:
    """Why this 初傳: the rule applied, the candidates considered and the tie-breaks used.

    ``rule`` is a stable id (e.g. ``zeike.chongshen``, ``shehai.jianji``, ``fuyin.du``, ``maoxing.hushi``)
    that templates localize; ``candidates`` lists every candidate of the deciding pool (empty for the fixed
    methods); ``pool`` the ones kept after the 比 filter; ``tie_break`` 見機/察微/綴瑕 when it decided.
    """

    rule: str
    candidates: tuple[Candidate, ...] = ()
    pool: tuple[Branch, ...] = ()
    tie_break: str | None = None
    chosen: Branch | None = None
    notes: tuple[str, ...] = ()  # further rule ids (e.g. 杜傳, 子卯 back-刑) in the order applied

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "candidates": [c.to_json() for c in self.candidates],
            "pool": [b.char for b in self.pool],
            "tie_break": self.tie_break,
            "chosen": self.chosen.char if self.chosen is not None else None,
            "notes": list(self.notes),
        }
