"""類神 (seed 002 類相, eleven categories): what a branch and the 天將 riding it stand for.

The tables live in ``data/leishen.json``; each entry has a ``match`` (branch, branches, element, general,
遁干 (dun_stems), branches ridden by generals (「乘」), any of several (「X與Y」), 六親 relative, chart role, or
旺相/休囚 vitality) and its text in ko and lzh. This module
only matches: :func:`lookup` returns the ids of the entries that apply, never text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.core.cycle import Branch, Stem
from engine.core.relations import Vitality
from engine.datafiles import load_json
from engine.errors import EngineInputError
from engine.liuren.types import General


@dataclass(frozen=True, slots=True)
class LeishenHit:
    """One 類神 entry that applies: ``entry`` is its id in leishen.json, ``by`` what matched it."""

    category: str
    entry: str
    by: str  # branch | branches | element | general | dun_stem | branch_general | relative | role | vitality

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category, "entry": self.entry, "by": self.by}


def _data() -> dict[str, Any]:
    data: dict[str, Any] = load_json("engine.liuren", "leishen.json")
    return data


@cache
def categories() -> tuple[str, ...]:
    """The eleven 類神 categories in seed order (天文 … 飛潛動植)."""
    return tuple(_data()["categories"])


def category_id(name: str) -> str:
    """Stable ASCII id of a category (天文 → tianwen), for CLI options and JSON."""
    return str(_data()["categories"][check_category(name)]["id"])


def check_category(name: str) -> str:
    """The category name for a name or its id; unknown → EngineInputError ``error.liuren.bad_category``."""
    cats: Mapping[str, Any] = _data()["categories"]
    if name in cats:
        return name
    for key, value in cats.items():
        if value["id"] == name:
            return str(key)
    raise EngineInputError(
        "error.liuren.bad_category",
        f"unknown 類神 category {name!r}; expected one of {', '.join(cats)}",
        value=name,
        choices="、".join(cats),
    )


@cache
def _by_id() -> Mapping[str, Mapping[str, Any]]:
    return {str(e["id"]): e for c in _data()["categories"].values() for e in c["entries"]}


def entry(entry_id: str) -> Mapping[str, Any]:
    """One entry of leishen.json by its id (``tianwen.22``)."""
    return _by_id()[entry_id]


def entries(category: str) -> tuple[Mapping[str, Any], ...]:
    return tuple(_data()["categories"][check_category(category)]["entries"])


def _match(
    m: Mapping[str, Any],
    branch: Branch,
    general: General | None,
    relative: str | None,
    vitality: Vitality | None,
    month_general: Branch | None,
    month_branch: Branch | None,
    dun_stem: Stem | None = None,
) -> str | None:
    if "any" in m:  # 「巳與白虎屬風」: each of the parts belongs to the entry (與 = and, not 乘)
        for part in m["any"]:
            by = _match(part, branch, general, relative, vitality, month_general, month_branch, dun_stem)
            if by is not None:
                return by
        return None
    if "dun_stems" in m:
        return "dun_stem" if dun_stem is not None and dun_stem.char in m["dun_stems"] else None
    if "generals" in m:  # 「亥子申酉乘白虎太陰」: the branch ridden by one of the generals
        where = m.get("branch", "") + m.get("branches", "")
        if general is not None and branch.char in where and general.char in m["generals"]:
            return "branch_general"
        return None
    if "branch" in m:
        return "branch" if branch.char == m["branch"] else None
    if "branches" in m:
        return "branches" if branch.char in m["branches"] else None
    if "element" in m:
        return "element" if branch.element.char == m["element"] else None
    if "general" in m:
        return "general" if general is not None and general.char == m["general"] else None
    if "relative" in m:
        return "relative" if relative == m["relative"] else None
    if "role" in m:
        target = month_general if m["role"] == "month_general" else month_branch
        return "role" if target is not None and branch == target else None
    if "vitality" in m:
        return "vitality" if vitality is not None and vitality.char in m["vitality"] else None
    raise ValueError(f"leishen.json: unknown match {dict(m)!r}")


def lookup(
    category: str,
    branch: Branch,
    general: General | None = None,
    relative: str | None = None,
    vitality: Vitality | None = None,
    month_general: Branch | None = None,
    month_branch: Branch | None = None,
    dun_stem: Stem | None = None,
) -> tuple[LeishenHit, ...]:
    """Every entry of ``category`` that a 天盤 ``branch`` (ridden by ``general``) belongs to.

    ``relative`` (印 盜 鬼 財 劫) feeds the 人物 六親 rows, ``vitality`` the 數目/顏色 旺相·休囚 rows,
    ``month_general`` / ``month_branch`` the 天文 月將 (日) / 月建 (月) rows, ``dun_stem`` (the branch's 遁干)
    the 天文 「壬癸」 of 雨澤.
    """
    name = check_category(category)
    hits: list[LeishenHit] = []
    for e in _data()["categories"][name]["entries"]:
        by = _match(e["match"], branch, general, relative, vitality, month_general, month_branch, dun_stem)
        if by is not None:
            hits.append(LeishenHit(name, str(e["id"]), by))
    return tuple(hits)
