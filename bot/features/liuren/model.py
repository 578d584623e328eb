"""The view model of 大六壬 (``/cast``): what its command hands its templates (``Reply.context``) and what
``/history`` stores (JSON values: characters, numbers, booleans, lists)."""

from __future__ import annotations

from typing import Any, TypedDict


class BoardCell(TypedDict):
    earth: str  # 地盤 branch
    heaven: str  # 天盤 branch over it
    general: str  # 天將 riding that heaven branch


class LessonView(TypedDict):
    upper: str
    lower: str
    general: str
    ke: str | None  # 賊 / 剋 mark of the lesson, if any


class TransmissionView(TypedDict):
    branch: str
    dun: str | None  # 遁干
    relative: str  # 六親
    general: str
    empty: bool  # 旬空
    marks: list[str]  # 神煞 on the branch


class ChartView(TypedDict):
    """A ``engine.liuren.Chart`` (characters only)."""

    day: str
    ju: int
    month_general: str
    hour: str
    daytime: bool
    xunkong: list[str]
    board: list[list[BoardCell | None]]
    lessons: list[LessonView]
    transmissions: list[TransmissionView]
    method: str
    method_names: list[str]
    patterns: list[str]  # 課體 other than the method itself
    trace_rule: str
    options: dict[str, Any]
    readings: list[dict[str, Any]]  # ``engine.liuren.reading.Reading.to_json()`` (ids the partials resolve)
    category: str | None
    # added for the chat views (issue #13); rows stored before them lack these keys
    verdict: dict[str, Any]  # ``engine.liuren.verdict.judge(chart, category).to_json()``
    trace: dict[str, Any]  # ``Chart.trace.to_json()``: why this 初傳 (rule, candidates, tie-break, notes)
    guiren: str  # the 貴人's 天盤 branch
    forward: bool  # 貴人 順行 (True) or 逆行
    assumed: dict[str, str] | None  # issue 20: the 月將 / 占時 assumed for a (day, 局) cast, else None


class WhenView(TypedDict, total=False):
    local: str
    offset: str
    zone: str | None
    solar: str | None
    longitude: float | None
    lat: float | None
    lon: float | None


class PillarsView(TypedDict):
    year: str
    month: str
    day: str
    hour: str


class CastView(ChartView):
    when: WhenView | None
    pillars: PillarsView | None
    term: str | None
    # the word asked in and the topic it named (issue 32: ``bot.features.topics.asked``); None: none asked
    asked: dict[str, Any] | None
    # the asked topic's line (``engine.liuren.topics.TopicReading.to_json()``: direction, reasons, notes), or None
    topic: dict[str, Any] | None
    # the asker's 年命 (issue 32 item 5: ``command.nianming_view``), None when no birth year is known
    nianming: dict[str, Any] | None
