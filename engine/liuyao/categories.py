"""Question categories and the 用神 (六親) they imply (data/categories.json)."""

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
    relative: Relative
    source: str


@cache
def categories() -> Mapping[str, Category]:
    doc = load_json("engine.liuyao", "categories.json")
    return {
        key: Category(key, v["lzh"], v["ko"], Relative.parse(v["relative"]), v["source"])
        for key, v in doc["categories"].items()
    }


def category_relative(text: str) -> tuple[str, Relative] | None:
    """``"wealth"`` / ``"求財"`` / ``"재물"`` → ("wealth", 妻財); None when unknown."""
    t = text.strip()
    for cat in categories().values():
        if t in (cat.id, cat.lzh, cat.ko):
            return cat.id, cat.relative
    return None
