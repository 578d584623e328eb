"""天干, 地支, 六十甲子 and 五行 as small immutable types with cycle arithmetic.

Index conventions (spec/calendar.md): stems 甲…癸 = 0…9, branches 子…亥 = 0…11, 干支 甲子 = 0…癸亥 = 59.
Characters are traditional. Identifiers are pinyin so that a practitioner recognizes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache

from engine.errors import EngineInputError

STEM_CHARS = "甲乙丙丁戊己庚辛壬癸"
BRANCH_CHARS = "子丑寅卯辰巳午未申酉戌亥"
ELEMENT_CHARS = "木火土金水"


class Element(IntEnum):
    """五行 in generating order: 木生火生土生金生水生木."""

    WOOD = 0
    FIRE = 1
    EARTH = 2
    METAL = 3
    WATER = 4

    @property
    def char(self) -> str:
        return ELEMENT_CHARS[self]

    @classmethod
    def from_char(cls, char: str) -> Element:
        i = ELEMENT_CHARS.find(char)
        if i < 0 or len(char) != 1:
            raise EngineInputError("error.not_an_element", f"not a 五行: {char!r}", value=char)
        return ELEMENTS[i]

    @property
    def child(self) -> Element:
        """The element this one generates (我生)."""
        return ELEMENTS[(self + 1) % 5]

    @property
    def mother(self) -> Element:
        """The element that generates this one (生我)."""
        return ELEMENTS[(self + 4) % 5]

    @property
    def victim(self) -> Element:
        """The element this one controls (我剋)."""
        return ELEMENTS[(self + 2) % 5]

    @property
    def master(self) -> Element:
        """The element that controls this one (剋我)."""
        return ELEMENTS[(self + 3) % 5]

    def generates(self, other: Element) -> bool:
        return self.child == other

    def controls(self, other: Element) -> bool:
        return self.victim == other

    def __str__(self) -> str:
        return self.char


# Members by value. Indexing a tuple costs ~36 ns against ~550 ns for ``Element(i)`` (IntEnum construction,
# issue #18); hot paths use these tuples, with the index already reduced modulo the cycle.
ELEMENTS: tuple[Element, ...] = tuple(Element)


class Stem(IntEnum):
    """天干 甲乙丙丁戊己庚辛壬癸."""

    JIA = 0
    YI = 1
    BING = 2
    DING = 3
    WU = 4
    JI = 5
    GENG = 6
    XIN = 7
    REN = 8
    GUI = 9

    @property
    def char(self) -> str:
        return STEM_CHARS[self]

    @classmethod
    def from_char(cls, char: str) -> Stem:
        i = STEM_CHARS.find(char)
        if i < 0 or len(char) != 1:
            raise EngineInputError("error.not_a_stem", f"not a 天干: {char!r}", value=char)
        return STEMS[i]

    @property
    def element(self) -> Element:
        return ELEMENTS[self // 2]

    @property
    def is_yang(self) -> bool:
        return self % 2 == 0

    def shift(self, n: int) -> Stem:
        return STEMS[(self + n) % 10]

    @property
    def combine(self) -> Stem:
        """天干五合 partner: 甲己, 乙庚, 丙辛, 丁壬, 戊癸."""
        return STEMS[(self + 5) % 10]

    def __str__(self) -> str:
        return self.char


STEMS: tuple[Stem, ...] = tuple(Stem)

_BRANCH_ELEMENTS = (
    Element.WATER,  # 子
    Element.EARTH,  # 丑
    Element.WOOD,  # 寅
    Element.WOOD,  # 卯
    Element.EARTH,  # 辰
    Element.FIRE,  # 巳
    Element.FIRE,  # 午
    Element.EARTH,  # 未
    Element.METAL,  # 申
    Element.METAL,  # 酉
    Element.EARTH,  # 戌
    Element.WATER,  # 亥
)


class Branch(IntEnum):
    """地支 子丑寅卯辰巳午未申酉戌亥."""

    ZI = 0
    CHOU = 1
    YIN = 2
    MAO = 3
    CHEN = 4
    SI = 5
    WU = 6
    WEI = 7
    SHEN = 8
    YOU = 9
    XU = 10
    HAI = 11

    @property
    def char(self) -> str:
        return BRANCH_CHARS[self]

    @classmethod
    def from_char(cls, char: str) -> Branch:
        i = BRANCH_CHARS.find(char)
        if i < 0 or len(char) != 1:
            raise EngineInputError("error.not_a_branch", f"not a 地支: {char!r}", value=char)
        return BRANCHES[i]

    @property
    def element(self) -> Element:
        return _BRANCH_ELEMENTS[self]

    @property
    def is_yang(self) -> bool:
        return self % 2 == 0

    def shift(self, n: int) -> Branch:
        return BRANCHES[(self + n) % 12]

    def distance_to(self, other: Branch) -> int:
        """Steps forward (順) from self to other, 0…11."""
        return (other - self) % 12

    def __str__(self) -> str:
        return self.char


BRANCHES: tuple[Branch, ...] = tuple(Branch)

# 納音 of each pair of the cycle (《三命通會·論納音取象》): 甲子乙丑海中金 … 壬戌癸亥大海水.
NAYIN_NAMES = (
    "海中金", "爐中火", "大林木", "路旁土", "劍鋒金", "山頭火",
    "澗下水", "城頭土", "白蠟金", "楊柳木", "泉中水", "屋上土",
    "霹靂火", "松柏木", "長流水", "沙中金", "山下火", "平地木",
    "壁上土", "金箔金", "覆燈火", "天河水", "大驛土", "釵釧金",
    "桑柘木", "大溪水", "沙中土", "天上火", "石榴木", "大海水",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class GanZhi:
    """One of the sixty 干支 (六十甲子); ``index`` 0 = 甲子 … 59 = 癸亥."""

    index: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < 60:
            raise EngineInputError(
                "error.not_a_ganzhi", f"干支 index out of range: {self.index}", value=self.index
            )

    @staticmethod
    @cache
    def of(index: int) -> GanZhi:
        return GanZhi(index % 60)

    @classmethod
    def from_parts(cls, stem: Stem, branch: Branch) -> GanZhi:
        """The 干支 with this stem and branch; they must share 陰陽 (甲丑 is not a 干支)."""
        if stem % 2 != branch % 2:
            raise EngineInputError(
                "error.not_a_ganzhi", f"not a 干支: {stem.char}{branch.char}", value=stem.char + branch.char
            )
        # Chinese remainder: i ≡ stem (mod 10), i ≡ branch (mod 12).
        return cls.of((6 * stem - 5 * branch) % 60)

    @classmethod
    def parse(cls, text: str) -> GanZhi:
        """Parse two characters such as ``"甲子"``."""
        text = text.strip()
        if len(text) != 2 or text[0] not in STEM_CHARS or text[1] not in BRANCH_CHARS:
            raise EngineInputError("error.not_a_ganzhi", f"not a 干支: {text!r}", value=text)
        return cls.from_parts(Stem.from_char(text[0]), Branch.from_char(text[1]))

    @property
    def stem(self) -> Stem:
        return STEMS[self.index % 10]

    @property
    def branch(self) -> Branch:
        return BRANCHES[self.index % 12]

    @property
    def chars(self) -> str:
        return STEM_CHARS[self.index % 10] + BRANCH_CHARS[self.index % 12]

    def shift(self, n: int) -> GanZhi:
        return GanZhi.of(self.index + n)

    @property
    def xun_head(self) -> GanZhi:
        """旬首: the 甲 day that opens this 旬 (甲子 甲戌 甲申 甲午 甲辰 甲寅)."""
        return GanZhi.of(self.index - self.index % 10)

    @property
    def xunkong(self) -> tuple[Branch, Branch]:
        """旬空 (空亡): the two branches the 旬 does not reach, (b − s + 10, b − s + 11) mod 12."""
        s, b = self.index % 10, self.index % 12
        return BRANCHES[(b - s + 10) % 12], BRANCHES[(b - s + 11) % 12]

    @property
    def nayin(self) -> str:
        """納音 name, e.g. 甲子 → 海中金."""
        return NAYIN_NAMES[self.index // 2]

    @property
    def nayin_element(self) -> Element:
        return Element.from_char(self.nayin[-1])

    def __str__(self) -> str:
        return self.chars


def all_ganzhi() -> tuple[GanZhi, ...]:
    """甲子 … 癸亥 in cycle order."""
    return tuple(GanZhi.of(i) for i in range(60))


def xun_dun_stem(xun_head: GanZhi, branch: Branch) -> Stem | None:
    """旬遁: the stem a branch carries in the 旬 opened by ``xun_head``; None when the branch is 空.

    E.g. in the 甲戌旬 丑 carries 丁 (seed 003: 「丑旬遁為丁」).
    """
    n = (branch - xun_head.branch) % 12
    return STEMS[n] if n < 10 else None


def xun_branch(xun_head: GanZhi, stem: Stem) -> Branch:
    """The branch that carries ``stem`` in the 旬 opened by ``xun_head`` (the inverse of :func:`xun_dun_stem`).

    E.g. 丁神 (the branch of 丁) and 旬尾 (the branch of 癸): in the 甲戌旬 丁 is on 丑, 癸 on 未.
    """
    return xun_head.branch.shift(stem - xun_head.stem)


def month_stem(year_stem: Stem, month_branch: Branch) -> Stem:
    """五虎遁: the stem of a month from the year stem (甲己→丙寅, 乙庚→戊寅, 丙辛→庚寅, 丁壬→壬寅, 戊癸→甲寅)."""
    first = STEMS[(2 * (year_stem % 5) + 2) % 10]  # stem of the 寅 month
    return first.shift((month_branch - Branch.YIN) % 12)


def hour_stem(day_stem: Stem, hour_branch: Branch) -> Stem:
    """五鼠遁: the stem of an hour from the day stem (甲己→甲子, 乙庚→丙子, 丙辛→戊子, 丁壬→庚子, 戊癸→壬子)."""
    return STEMS[(2 * (day_stem % 5) + hour_branch) % 10]
