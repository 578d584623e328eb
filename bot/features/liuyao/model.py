"""The view model of 六爻 (``/liuyao``): what its command hands its templates (``Reply.context``) and what
``/history`` stores (JSON values: characters, numbers, booleans, lists)."""

from __future__ import annotations

from typing import Any, TypedDict


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
