"""The 六爻 view's helper: the 神煞 of the moving lines, grouped 吉 · 凶 · neither."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.shensha import StarDef


@cache
def _star_named(name: str) -> StarDef:
    """``engine.shensha.star`` of a star's name, remembered: a name (not an id) is found by a scan of every
    definition (≈ 10 µs; a /liuyao reply names ≈ 20). The names are the data's, so the cache is bounded."""
    from engine.shensha import star

    return star(name)


def moving_stars(lang: str, context: Mapping[str, Any]) -> dict[str, Any]:
    """The 神煞 of the moving lines (000:223 「各伺其動，不動則不伺也」), grouped 吉 · 凶 · neither: each star once,
    with the lines it falls on (bottom first) and its meaning in ``lang`` (seed 000 / 002 definitions)."""
    found: dict[str, list[int]] = {}
    for line in sorted(context.get("lines") or (), key=lambda ln: ln["line"]):
        if not line.get("moving"):  # rows stored before #19 kept the 神煞 of every line
            continue
        for name in line.get("marks") or ():
            found.setdefault(name, []).append(line["line"])
    groups: dict[str | None, list[dict[str, Any]]] = {"吉": [], "凶": [], None: []}
    for name, lines in found.items():
        definition = _star_named(name)
        nature = definition.nature if definition.nature in groups else None
        groups[nature].append({"name": name, "lines": lines, "meaning": definition.meaning.get(lang) or ""})
    return {"moving_stars": [{"nature": k, "stars": v} for k, v in groups.items() if v]}
