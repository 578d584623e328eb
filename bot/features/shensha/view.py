"""The 神煞 view's helper: each star's meaning and nature, counted and grouped for the pages."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from engine.core.cycle import Branch


def meanings(lang: str, context: Mapping[str, Any]) -> dict[str, Any]:
    """Each star's meaning (in ``lang``) and nature 吉/凶 (None: neither), from its definition (seed 000/002)."""
    rows = context.get("stars") or ()
    meanings, natures, counts, positions = _star_natures(lang, tuple(row["id"] for row in rows))
    month = context.get("month")
    # seed 000's four seasons 寅卯辰 巳午未 申酉戌 亥子丑 (as bot.cli.shensha.SEASONS)
    season = "春夏秋冬"[((Branch.from_char(month) - Branch.YIN) % 12) // 3] if month else None
    return {
        "star_meaning": meanings,
        "star_nature": natures,
        "season": season,
        "nature_counts": counts,
        "stars_of_nature": {nature: [rows[i] for i in at] for nature, at in positions},
    }


@lru_cache(maxsize=256)
def _star_natures(
    lang: str, ids: tuple[str, ...]
) -> tuple[
    dict[str, str], dict[str, str | None], dict[str, int], tuple[tuple[str | None, tuple[int, ...]], ...]
]:
    """(meaning by id, nature by id, the counts 吉 / 凶 / neither, the positions of the stars of each nature)
    of a star list: what the pages count and list, computed once per list (≈ 170 stars: Jinja's
    select/selectattr tests over them were most of rendering a 神煞 reply; the look-ups, most of the rest).
    The same for every ``/shensha`` of that hour, so cached; shared values: never mutate them."""
    from engine.shensha import star

    meanings: dict[str, str] = {}
    natures: dict[str, str | None] = {}
    for star_id in ids:
        definition = star(star_id)
        meanings[star_id] = definition.meaning.get(lang) or ""
        natures[star_id] = definition.nature
    of_nature: dict[str | None, list[int]] = {}
    for i, star_id in enumerate(ids):
        of_nature.setdefault(natures[star_id], []).append(i)
    values = list(natures.values())
    counts = {
        "ji": values.count("吉"),
        "xiong": values.count("凶"),
        "other": sum(1 for v in values if v not in ("吉", "凶")),
    }
    return meanings, natures, counts, tuple((k, tuple(v)) for k, v in of_nature.items())
