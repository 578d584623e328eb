"""The 大六壬 views' helpers: the reading glossary the reading partials (``templates/liuren/reading.*``) look
texts up in (also the Jinja global ``reading_gloss``, for the daily reading)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cache
from typing import Any


@cache
def reading_glossary(lang: str) -> Mapping[str, Any]:
    """The reading glossary, with the closing sentence the 課格 entries share said once.

    Seed 002 ends every 雜格 entry with the same sentence (「視所乘何神、視所屬何煞、所臨何煞定其吉凶」);
    a reply listing several 課格 would repeat it after each. The sentence is found in the data (the last
    sentence most entries end with) and given as ``pattern_formula``; each entry that had it keeps its
    meaning without it and ``shared: True``.
    """
    from engine.liuren.reading import glossary

    entries: dict[str, Any] = dict(glossary(lang))
    closing = Counter(
        _last_sentence(v["meaning"])
        for k, v in entries.items()
        if k.startswith("pattern.") and v.get("meaning")
    )
    formula, count = closing.most_common(1)[0] if closing else ("", 0)
    if not formula or count < 2:
        return entries
    for key, entry in list(entries.items()):
        meaning = entry.get("meaning") if key.startswith("pattern.") else None
        if meaning and meaning.endswith(formula) and meaning != formula:
            entries[key] = {**entry, "meaning": meaning.removesuffix(formula), "shared": True}
    entries["pattern_formula"] = formula
    return entries


def _last_sentence(text: str) -> str:
    """The last sentence of a Classical Chinese text (ended by 。), with its 。."""
    sentences = [s for s in text.split("。") if s]
    return sentences[-1] + "。" if sentences and text.endswith("。") else ""


def gloss(lang: str, context: Mapping[str, Any]) -> dict[str, Any]:
    """The glossary the 大六壬 reading partials (``templates/liuren/reading.*``) look texts up in."""
    return {"gloss": reading_glossary(lang)} if context.get("readings") else {}
