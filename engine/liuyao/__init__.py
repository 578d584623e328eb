"""六爻 納甲筮法: casting, the 京房 八宮 納甲 chart and the judgments of seed 000 (《易冒》).

Public API (spec/liuyao.md, issue 5)::

    cast_coins(rng=None) -> Cast              # three coins, secrets RNG, tosses recorded
    cast_manual("797979") -> Cast             # six digits 6/7/8/9, bottom → top
    cast_tosses(tosses) -> Cast               # replay recorded tosses
    cast_time(at, day_starts=None, solar_longitude=None) -> Cast   # 梅花 time numbers
    cast_numbers(year, month, day, hour) -> Cast
    build(cast, month: Branch, day: GanZhi, use=None, options=Options()) -> Reading
        # Reading(chart, judgments, analysis, verdict); build_chart(...) -> LiuyaoChart is the data alone
    hexagram_table() -> tuple[Hexagram, ...]  # 64, palace order
"""

from engine.liuyao.cast import (
    Cast,
    Method,
    TimeNumbers,
    cast_coins,
    cast_manual,
    cast_numbers,
    cast_time,
    cast_tosses,
)
from engine.liuyao.chart import (
    ChangedLine,
    ChangedRelatives,
    Condition,
    HiddenLine,
    Line,
    LiuyaoChart,
    MiddleSource,
    Options,
    Scatter,
    Spirit,
    UseGod,
    build_chart,
)
from engine.liuyao.judgments import Check, Judgment, judge
from engine.liuyao.reading import Reading, build, read
from engine.liuyao.table import (
    Hexagram,
    HexStage,
    Hidden,
    Relative,
    Trigram,
    hexagram,
    hexagram_by_name,
    hexagram_from_bits,
    hexagram_table,
    normalize_name,
    trigrams,
)
from engine.liuyao.verdict import Verdict

__all__ = [
    "Cast",
    "ChangedLine",
    "ChangedRelatives",
    "Check",
    "Condition",
    "HexStage",
    "Hexagram",
    "Hidden",
    "HiddenLine",
    "Judgment",
    "Line",
    "LiuyaoChart",
    "Method",
    "MiddleSource",
    "Options",
    "Reading",
    "Scatter",
    "Relative",
    "Spirit",
    "TimeNumbers",
    "Trigram",
    "UseGod",
    "Verdict",
    "build",
    "build_chart",
    "cast_coins",
    "cast_manual",
    "cast_numbers",
    "cast_time",
    "cast_tosses",
    "hexagram",
    "hexagram_by_name",
    "hexagram_from_bits",
    "hexagram_table",
    "judge",
    "normalize_name",
    "read",
    "trigrams",
]
