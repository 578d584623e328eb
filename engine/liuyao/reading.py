"""A reading: the chart (data) with what reads it — the seed-000 judgments, the 裝卦 analysis of every line and
the verdict. ``build(cast, month, day, use=None, options=Options())`` is the public entry point.

The chart knows nothing of the judgments (no import circle): ``chart → analysis → judgments → verdict → reading``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.cycle import Branch, GanZhi
from engine.liuyao.analysis import LineAnalysis, analyse_line
from engine.liuyao.cast import Cast
from engine.liuyao.chart import Line, LiuyaoChart, Options, UseGod, build_chart
from engine.liuyao.judgments import Judgment, judge
from engine.liuyao.verdict import Verdict, verdict


@dataclass(frozen=True, slots=True)
class Reading:
    chart: LiuyaoChart
    judgments: tuple[Judgment, ...]
    analysis: tuple[LineAnalysis, ...]  # lines 1…6
    verdict: Verdict

    # The chart's own fields, for callers that only display (bot/commands/liuyao.py reads ``options``).
    @property
    def options(self) -> Options:
        return self.chart.options

    @property
    def lines(self) -> tuple[Line, ...]:
        return self.chart.lines

    @property
    def use(self) -> UseGod | None:
        return self.chart.use

    def to_json(self) -> dict[str, Any]:
        """The chart's JSON with ``judgments``, ``analysis`` (per line) and ``verdict``."""
        return {
            **self.chart.to_json(),
            "judgments": [j.to_json() for j in self.judgments],
            "analysis": [a.to_json() for a in self.analysis],
            "verdict": self.verdict.to_json(),
        }


def read(chart: LiuyaoChart) -> Reading:
    lines = tuple(analyse_line(chart, ln) for ln in chart.lines)
    judgments = judge(chart)
    return Reading(chart, judgments, lines, verdict(chart, lines, judgments))


def build(
    cast: Cast,
    month: Branch,
    day: GanZhi,
    use: str | None = None,
    options: Options = Options(),  # noqa: B008 - frozen
) -> Reading:
    """The reading of ``cast`` in the month 月建 ``month`` on the day ``day`` (see :func:`build_chart`)."""
    return read(build_chart(cast, month, day, use=use, options=options))
