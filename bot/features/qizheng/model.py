"""The view model of 七政四餘 (``/qizheng``): what its command hands its templates (``Reply.context``) and what
``/history`` stores (JSON values: characters, numbers, booleans, lists)."""

from __future__ import annotations

from typing import Any, TypedDict


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
