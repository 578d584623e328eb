"""大六壬 (Da Liu Ren): the chart of any moment, all 720 課, with school options (spec/liuren.md).

Public API::

    from engine.liuren import Options, build_chart, chart_for_ju, chart_at
    chart = chart_for_ju(GanZhi.parse("庚辰"), 8)      # 干上丑, 三傳 寅未子, 賊剋 重審
"""

from engine.liuren.chart import (
    Chart,
    Moment,
    build_chart,
    chart_at,
    chart_for_ju,
    ju_of,
    offset_of_ju,
    relative,
    with_shensha,
)
from engine.liuren.methods import BAZHUAN_DAYS, JIGONG, jigong
from engine.liuren.options import DayNight, FuyinMaozi, GuiRule, Options, Shehai
from engine.liuren.types import (
    Candidate,
    DepthStep,
    General,
    Lesson,
    Method,
    Trace,
    Transmission,
)

__all__ = [
    "BAZHUAN_DAYS",
    "JIGONG",
    "Candidate",
    "Chart",
    "DayNight",
    "DepthStep",
    "FuyinMaozi",
    "General",
    "GuiRule",
    "Lesson",
    "Method",
    "Moment",
    "Options",
    "Shehai",
    "Trace",
    "Transmission",
    "build_chart",
    "chart_at",
    "chart_for_ju",
    "jigong",
    "ju_of",
    "offset_of_ju",
    "relative",
    "with_shensha",
]
