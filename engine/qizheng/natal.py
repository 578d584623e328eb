"""The natal chart with its readings: positions and houses (``chart``), the 《八格賦》 clauses (``patterns``)
and the 限 at a date (``xian``). This module puts them together; none of them imports it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from engine.errors import EngineInputError
from engine.qizheng import chart as chart_mod
from engine.qizheng import tables
from engine.qizheng.chart import DEFAULT_OPTIONS, QizhengChart, chart_at
from engine.qizheng.options import MingMethod, QizhengOptions
from engine.qizheng.patterns import with_patterns
from engine.qizheng.xian import (
    Liunian,
    Xian,
    age_at,
    daxian_at,
    solar_year,
    sources,
    xiaoxian_branch,
)


def natal_chart(
    at: datetime,
    lon: float,
    lat: float | None = None,
    options: QizhengOptions = DEFAULT_OPTIONS,
    on: datetime | None = None,
) -> QizhengChart:
    """The natal chart of an aware instant at east longitude ``lon`` with every clause evaluated, and the 限
    (大限, 小限, 流年) at the aware instant ``on`` when given."""
    natal = with_patterns(chart_at(at, lon, lat, options))
    if on is None:
        return natal
    return replace(natal, xian=xian_on(natal, on))


def build_chart(longitudes: Any, **kwargs: Any) -> QizhengChart:
    """``chart.build_chart`` (a chart from given longitudes) with every clause evaluated."""
    return with_patterns(chart_mod.build_chart(longitudes, **kwargs))


def xian_on(natal: QizhengChart, on: datetime) -> Xian:
    """大限 (age from the birth instant), 小限 (虛歲 in 立春 years) and 流年 (太歲, 天馬, 驛馬, bodies) at ``on``."""
    if natal.at is None or natal.jd_ut is None or natal.lon is None:
        raise EngineInputError("error.qizheng.xian_needs_instant", "the 限 need a chart cast for an instant")
    if on.tzinfo is None:
        raise EngineInputError(
            "error.qizheng.naive_time", f"no UTC offset: {on.isoformat()}", value=on.isoformat()
        )
    if on < natal.at:
        raise EngineInputError(
            "error.qizheng.on_before_birth", f"{on.isoformat()} is before the birth", value=on.isoformat()
        )
    transit = chart_at(
        on, natal.lon, None, replace(natal.options, ming=MingMethod.SUN_HOUR), with_motion=False
    )
    assert transit.jd_ut is not None
    age = age_at(natal.jd_ut, transit.jd_ut)
    xu_sui = solar_year(on.year, transit.year) - solar_year(natal.at.year, natal.year) + 1
    dx = daxian_at(natal.daxian, age)
    tongxian = dx is None and age < natal.daxian[0].start_age
    xiao = xiaoxian_branch(natal.ming, xu_sui)
    year = transit.year
    tianma = str(tables.rules()["tianma"][year.branch.char])
    tianma_palace = transit.bodies[tianma].palace
    yima = transit.yima
    liunian = Liunian(
        year=year,
        house=natal.house_of_branch(year.branch).name,
        tianma=tianma,
        tianma_palace=tianma_palace,
        tianma_house=natal.house_of_branch(tianma_palace).name,
        yima=yima,
        yima_house=natal.house_of_branch(yima).name,
        bodies=tuple(
            (name, b.palace, natal.house_of_branch(b.palace).name) for name, b in transit.bodies.items()
        ),
    )
    return Xian(
        on=on.isoformat(),
        age=age,
        xu_sui=xu_sui,
        daxian=dx,
        tongxian=tongxian,
        xiaoxian=xiao,
        xiaoxian_house=natal.house_of_branch(xiao).name,
        liunian=liunian,
        sources=sources(),
    )
