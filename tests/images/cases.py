"""The charts of the golden images and of the CLI tests (one per chart type), from named sources.

- 大六壬: seed 003 「庚辰日干上丑」, 第8局 (spec/liuren.md §1: 丑 over 申, 初傳寅加酉).
- 六爻: coins 797979 (lines 2, 4, 6 老陽): 乾為天 之 水火既濟, 寅月 戊戌日.
- 七政四餘: 1990-05-17 14:30 +09:00, 서울 (issue 14's example).
"""

from __future__ import annotations

from datetime import datetime

from engine.core.cycle import Branch, GanZhi
from engine.liuren import Chart, chart_for_ju, with_shensha
from engine.liuyao import LiuyaoChart, build_chart, cast_manual
from engine.qizheng import Place, QizhengChart, find_place, natal_chart

QIZHENG_AT = "1990-05-17T14:30+09:00"


def liuren_case() -> Chart:
    return with_shensha(chart_for_ju(GanZhi.parse("庚辰"), 8))


def liuyao_case() -> LiuyaoChart:
    return build_chart(cast_manual("797979"), Branch.YIN, GanZhi.parse("戊戌"))


def qizheng_case() -> tuple[QizhengChart, Place]:
    place = find_place("서울")
    return natal_chart(datetime.fromisoformat(QIZHENG_AT), place.lon, place.lat), place
