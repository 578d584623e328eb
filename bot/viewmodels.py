"""The view models: what a command hands its template (``Reply.context``), typed.

Every view model is a ``TypedDict`` of JSON values (characters, numbers, booleans, lists), because a reply's
context is also what ``/history`` stores and ``/show`` renders again: a fresh reply and its stored copy are
the same object. Commands build them (``bot.commands.*``), templates (``templates/<channel>/<view>.*.j2``)
read them; neither side reaches into an engine object.
"""

from __future__ import annotations

from typing import Any, TypedDict

# ---- /cast (大六壬) ---------------------------------------------------------------------------------------


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


# ---- /liuyao (六爻) ---------------------------------------------------------------------------------------


class HexagramView(TypedDict):
    name: str
    palace: str
    stage: str


class RelativeView(TypedDict):
    ganzhi: str | None
    relative: str | None


class LineView(TypedDict):
    line: int
    yang: bool
    moving: bool
    ganzhi: str
    relative: str
    spirit: str
    shi: bool
    ying: bool
    empty: bool
    month_break: bool
    vitality: str | None
    changed: RelativeView | None
    hidden: list[RelativeView]
    marks: list[str]  # 神煞 of a moving line (000:223 「各伺其動，不動則不伺也」); none on a static line
    # added for the 六爻 pages (issue #19); rows stored before them lack these keys
    strength: list[
        str
    ]  # ``Strength.tags``: 旺相休囚死, 長生 stage of the day, 日生…, 日沖 暗動 日破 沖散 旬空 月破
    strong: bool
    transforms: list[str]  # the 變 of a moving line: 進神 退神 回頭生 回頭剋 化墓 化絕 化空 化破 反吟 伏吟


class JudgmentView(TypedDict, total=False):
    """A seed-000 judgment that holds (``Judgment.to_json()``), with its weight in the verdict."""

    rule: str | None
    type: str | None
    source: str | None
    name: str | None
    direction: str | None  # 吉 | 凶
    reversed: bool  # 反吉 (000:11)
    grave: bool  # 大凶 (000:39 「若世刑而大凶也」)
    subject: dict[str, Any] | None  # {role, branch, line, hidden}
    agent: str | None
    relation: str | None
    ju: str | None
    strength: str | None
    by: list[
        dict[str, Any]
    ]  # 三刑: the agents {source 日 月 動 變, branch, line, chong} that 刑 / 沖 the subject
    weight: int | None  # its reason's weight in the verdict; None: not on the 用神 / 世, not weighed


class LiuyaoView(TypedDict):
    main: HexagramView
    changed: HexagramView | None
    month: str
    day: str
    xunkong: list[str]
    flags: list[str]
    lines: list[LineView]  # top → bottom
    use: dict[str, Any] | None
    judgments: list[JudgmentView]  # the ones that hold
    verdict: dict[str, Any]  # ``Verdict.to_json()``, its judgment reasons kept on ``judgments`` instead
    options: dict[str, Any]
    cast: dict[str, Any]


# ---- /qizheng (七政四餘) ----------------------------------------------------------------------------------


class BodyView(TypedDict):
    name: str
    palace: str | None
    mansion: str | None
    degree: float | None
    retrograde: bool
    ru_yuan: bool


class MingDuView(TypedDict):
    mansion: str | None
    degree: float | None


class HouseView(TypedDict):
    name: str | None
    branch: str | None
    occupants: list[str]


class PatternView(TypedDict):
    id: str | None
    ge: str | None
    lzh: str | None
    ko: str | None


class QizhengView(TypedDict):
    year: str | None
    ming_gong: str | None
    shen_gong: str | None
    ming_zhu: str | None
    shen_zhu: str | None
    ming_du: MingDuView
    bodies: list[BodyView]
    houses: list[HouseView]
    hua_yao: dict[str, Any]
    daxian: list[dict[str, Any]]  # {"house", "branch", "from", "to"}
    patterns: list[PatternView]
    # issue #16: the 限 at a date (``Xian.to_json()`` with ``date`` and the ``given`` word; None: none read)
    xian: dict[str, Any] | None


# ---- /shensha (神煞) --------------------------------------------------------------------------------------


class StarView(TypedDict):
    id: str
    name: str
    value: Any  # a branch/stem character, a 干支, a list of them, a word or a flag
    key: Any


class GroupView(TypedDict):
    key: str
    names: list[str]


class GroupedStarsView(TypedDict):
    by_branch: list[GroupView]
    by_stem: list[GroupView]
    others: list[StarView]


class ShenshaInputs(TypedDict):
    day: str
    month: str | None
    year: str | None
    hour: str | None


class ShenshaView(ShenshaInputs, GroupedStarsView):
    when: dict[str, str] | None
    stars: list[StarView]
