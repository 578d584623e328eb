"""刑 沖 破 害 合 of one branch with another (seed 002), as the reading and the verdict name them."""

from __future__ import annotations

from engine.core.cycle import Branch
from engine.core.relations import chong, hai, liuhe, po, xing


def relations(x: Branch, target: Branch) -> tuple[str, ...]:
    """The 刑沖破害合 that ``x`` forms with ``target`` (刑 read as x 刑 target, seed 002 「刑干」 「刑支」)."""
    found: list[str] = []
    if xing(x) == target:
        found.append("刑")
    if chong(x) == target:
        found.append("沖")
    if po(x) == target:
        found.append("破")
    if hai(x) == target:
        found.append("害")
    if liuhe(x) == target:
        found.append("合")
    return tuple(found)
