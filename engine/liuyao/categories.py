"""Question categories and the 用神 (六親, or the 世) they imply (data/categories.json)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from engine.datafiles import load_json
from engine.liuyao.table import Relative


@dataclass(frozen=True, slots=True)
class Category:
    id: str
    lzh: str
    ko: str
    relative: Relative | None  # None: the 世 is the 用 (``"use": "世"``)
    source: str
    avoid: Relative | None = None  # the 忌 the text names for this question (illness: 官鬼)
    ghost: str | None = None  # the 鬼 read as "use" (官星為用, 000:11) or "avoid" (以鬼為忌, 000:15)
    ruler: int | None = (
        None  # the line whose 克 of the 世 makes a 世刑 大凶 (疏: the 五爻, 000:39 「五克世而問疏」)
    )


@cache
def categories() -> Mapping[str, Category]:
    doc = load_json("engine.liuyao", "categories.json")
    out = {}
    for key, v in doc["categories"].items():
        use = v["use"]
        avoid = v.get("avoid")
        out[key] = Category(
            key,
            v["lzh"],
            v["ko"],
            None if use == "世" else Relative.parse(use),
            v["source"],
            None if avoid is None else Relative.parse(avoid),
            v.get("ghost"),
            v.get("ruler"),
        )
    return out


def category(text: str) -> Category | None:
    """``"wealth"`` / ``"求財"`` / ``"재물"`` → the category; None when unknown."""
    t = text.strip()
    for cat in categories().values():
        if t in (cat.id, cat.lzh, cat.ko):
            return cat
    return None
