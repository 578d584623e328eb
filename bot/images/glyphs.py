"""``data/glyphs.json``: the one-character body names (seed 004) and the marks the pictures draw."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True, slots=True)
class Glyphs:
    body_short: MappingProxyType[str, MappingProxyType[str, str]]
    punctuation: str
    source: str
    substitutes: MappingProxyType[str, str]


@cache
def glyphs() -> Glyphs:
    data: Any = json.loads(
        resources.files("bot.images").joinpath("data", "glyphs.json").read_text(encoding="utf-8")
    )
    short = {name: MappingProxyType(dict(v)) for name, v in data["body_short"].items()}
    subs = MappingProxyType(dict(data["substitutes"]["chars"]))
    return Glyphs(MappingProxyType(short), str(data["punctuation"]["chars"]), str(data["source"]), subs)


def drawable(text: str) -> str:
    """The text with the characters the font lacks replaced (``substitutes`` of glyphs.json)."""
    subs = glyphs().substitutes
    return "".join(subs.get(ch, ch) for ch in text) if any(ch in subs for ch in text) else text


def body_short(name: str, lang: str) -> str:
    """The one-character name of a body (太陽 → 日) in a language."""
    return glyphs().body_short[name][lang]
