"""Calendrical primitives: 天干, 地支, 六十甲子, 五行, and the relations between them."""

from engine.core.cycle import BRANCHES, ELEMENTS, STEMS, Branch, Element, GanZhi, Stem
from engine.core.relations import (
    Kin,
    Stage,
    Vitality,
    changsheng,
    chong,
    fang,
    hai,
    liuhe,
    po,
    sanhe,
    season_element,
    vitality,
    xing,
)

__all__ = [
    "BRANCHES",
    "ELEMENTS",
    "STEMS",
    "Branch",
    "Element",
    "GanZhi",
    "Kin",
    "Stage",
    "Stem",
    "Vitality",
    "changsheng",
    "chong",
    "fang",
    "hai",
    "liuhe",
    "po",
    "sanhe",
    "season_element",
    "vitality",
    "xing",
]
