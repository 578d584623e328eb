"""The view models: what a command hands its template (``Reply.context``), typed.

Every view model is a ``TypedDict`` of JSON values (characters, numbers, booleans, lists), because a reply's
context is also what ``/history`` stores and ``/show`` renders again: a fresh reply and its stored copy are
the same object. Commands build them (``bot.commands.*``), templates (``templates/<channel>/<view>.*.j2``)
read them; neither side reaches into an engine object.

Each lives in its feature's package (``bot/features/<family>/model.py``); this module names them all.
"""

from __future__ import annotations

from bot.features.liuren.model import (
    BoardCell,
    CastView,
    ChartView,
    LessonView,
    PillarsView,
    TransmissionView,
    WhenView,
)
from bot.features.liuyao.model import HexagramView, JudgmentView, LineView, LiuyaoView, RelativeView
from bot.features.qizheng.model import BodyView, HouseView, MingDuView, PatternView, QizhengView
from bot.features.shensha.model import GroupedStarsView, GroupView, ShenshaInputs, ShenshaView, StarView

__all__ = [
    "BoardCell",
    "BodyView",
    "CastView",
    "ChartView",
    "GroupView",
    "GroupedStarsView",
    "HexagramView",
    "HouseView",
    "JudgmentView",
    "LessonView",
    "LineView",
    "LiuyaoView",
    "MingDuView",
    "PatternView",
    "PillarsView",
    "QizhengView",
    "RelativeView",
    "ShenshaInputs",
    "ShenshaView",
    "StarView",
    "TransmissionView",
    "WhenView",
]
