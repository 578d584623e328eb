"""A chart built by hand from spec/liuren.md §1–§2, so pattern tests do not depend on the 三傳 methods."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.cycle import Branch, GanZhi, Stem
from engine.liuren import Options
from engine.liuren.generals import gui_table

# 寄宮 (spec §1): 甲寅 乙辰 丙戊巳 丁己未 庚申 辛戌 壬亥 癸丑
JIGONG = dict(zip("甲乙丙丁戊己庚辛壬癸", "寅辰巳未巳未申戌亥丑", strict=True))


@dataclass(frozen=True)
class HandLesson:
    upper: Branch
    lower: Stem | Branch
    seat: Branch


@dataclass(frozen=True)
class HandTransmission:
    branch: Branch
    is_empty: bool


@dataclass(frozen=True)
class HandCandidate:
    branch: Branch
    relation: str
    lessons: tuple[int, ...]


@dataclass(frozen=True)
class HandTrace:
    """Where the 初傳 came from: ``candidates`` empty for the fixed methods (伏吟, 昴星, 別責, 八專 …)."""

    candidates: tuple[HandCandidate, ...] = ()
    chosen: Branch | None = None


@dataclass(frozen=True)
class HandChart:
    """天盤 over 地盤 b is b + offset; the 三傳 are whatever the test says."""

    day: GanZhi
    offset: int
    trans: str
    options: Options = field(default_factory=Options)
    source: tuple[int, ...] = ()  # lessons the 初傳 was taken from (empty: a fixed method)
    daytime: bool = True  # which 貴人 the cast uses (spec §4 table, 《六壬大全》 rule)

    @property
    def guiren(self) -> Branch:
        day, night = gui_table(self.options.gui_rule)[self.day.stem]
        return day if self.daytime else night

    @property
    def trace(self) -> HandTrace:
        if not self.source:
            return HandTrace(chosen=Branch.from_char(self.trans[0]))
        first = Branch.from_char(self.trans[0])
        return HandTrace((HandCandidate(first, "下賊上", self.source),), first)

    @property
    def heaven(self) -> tuple[Branch, ...]:
        return tuple(Branch((b + self.offset) % 12) for b in range(12))

    def earth_of(self, heaven_branch: Branch) -> Branch:
        return Branch((heaven_branch - self.offset) % 12)

    @property
    def lessons(self) -> tuple[HandLesson, ...]:
        h = self.heaven
        seat1 = Branch.from_char(JIGONG[self.day.stem.char])
        u1 = h[seat1]
        u2 = h[u1]
        u3 = h[self.day.branch]
        u4 = h[u3]
        return (
            HandLesson(u1, self.day.stem, seat1),
            HandLesson(u2, u1, u1),
            HandLesson(u3, self.day.branch, self.day.branch),
            HandLesson(u4, u3, u3),
        )

    @property
    def transmissions(self) -> tuple[HandTransmission, ...]:
        return tuple(
            HandTransmission(Branch.from_char(c), Branch.from_char(c) in self.day.xunkong) for c in self.trans
        )


def hand(
    day: str, offset: int, trans: str = "子丑寅", source: tuple[int, ...] = (), *, night: bool = False
) -> HandChart:
    return HandChart(GanZhi.parse(day), offset % 12, trans, source=source, daytime=not night)
