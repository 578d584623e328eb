"""The view model of 神煞 (``/shensha``): what its command hands its templates (``Reply.context``) and what
``/history`` stores (JSON values: characters, numbers, booleans, lists)."""

from __future__ import annotations

from typing import Any, TypedDict


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
