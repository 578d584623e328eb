"""七政四餘 natal chart and the 《八格賦》 (seed 004) patterns. Spec: spec/qizheng.md.

Public API::

    natal_chart(at, lon, lat=None, options=QizhengOptions(), on=None) -> QizhengChart  # to_json() per issue 6
    build_chart(longitudes, year=, month=, hour=, ...) -> QizhengChart          # from given longitudes
    xian_on(chart, on) -> Xian                                                  # 大限 小限 流年 at a date
    find_place(name) -> Place                                                  # shipped city table

Modules: ``chart`` (data), ``patterns`` (reads a chart), ``xian`` (限 rules), ``motion`` (順逆留, 蝕),
``natal`` (puts them together).
"""

from engine.qizheng.chart import (
    Body,
    House,
    QizhengChart,
    hour_branch,
    ming_by_sun_hour,
    palace_of,
)
from engine.qizheng.ephemeris import ZiqiEpoch
from engine.qizheng.natal import build_chart, natal_chart, xian_on
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
    Tongxian,
    WeakGroup,
)
from engine.qizheng.patterns import Pattern, PatternResult, patterns
from engine.qizheng.places import Place, find_place, places
from engine.qizheng.xian import Daxian, Xian

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
    "Tongxian",
    "WeakGroup",
    "Xian",
    "ZiqiEpoch",
    "build_chart",
    "find_place",
    "hour_branch",
    "ming_by_sun_hour",
    "natal_chart",
    "palace_of",
    "patterns",
    "places",
    "xian_on",
]
