"""七政四餘 natal chart and the 《八格賦》 (seed 004) patterns. Spec: spec/qizheng.md.

Public API::

    natal_chart(at, lon, lat=None, options=QizhengOptions()) -> QizhengChart   # chart.to_json() per issue 6
    build_chart(longitudes, year=, month=, hour=, ...) -> QizhengChart          # from given longitudes
    find_place(name) -> Place                                                  # shipped city table
"""

from engine.qizheng.chart import (
    Body,
    Daxian,
    House,
    QizhengChart,
    build_chart,
    hour_branch,
    ming_by_sun_hour,
    natal_chart,
    palace_of,
)
from engine.qizheng.ephemeris import ZiqiEpoch
from engine.qizheng.options import (
    ApogeeModel,
    DaxianTable,
    HourMethod,
    HuaMethod,
    MansionSet,
    MingMethod,
    Naming,
    NodeModel,
    PalaceSystem,
    QizhengOptions,
    ShenMethod,
    WeakGroup,
)
from engine.qizheng.patterns import Pattern, PatternResult, patterns
from engine.qizheng.places import Place, find_place, places

__all__ = [
    "ApogeeModel",
    "Body",
    "Daxian",
    "DaxianTable",
    "HourMethod",
    "House",
    "HuaMethod",
    "MansionSet",
    "MingMethod",
    "Naming",
    "NodeModel",
    "PalaceSystem",
    "Pattern",
    "PatternResult",
    "Place",
    "QizhengChart",
    "QizhengOptions",
    "ShenMethod",
    "WeakGroup",
    "ZiqiEpoch",
    "build_chart",
    "find_place",
    "hour_branch",
    "ming_by_sun_hour",
    "natal_chart",
    "palace_of",
    "patterns",
    "places",
]
