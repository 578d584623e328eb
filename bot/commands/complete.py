"""Suggestions for a half-typed argument (Discord autocomplete, issue #13): IANA zones and cities.

``ArgSpec.complete`` names the source; :func:`suggest` answers at most :data:`LIMIT` (name, value) pairs,
the name in the reader's language. Pure lookups over the zone database and the 七政 engine's city table.
"""

from __future__ import annotations

import unicodedata
import zoneinfo
from functools import cache

from engine.qizheng.places import places

LIMIT = 25  # Discord's limit of autocomplete choices


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold().replace(" ", "").replace("_", "")


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(z for z in zoneinfo.available_timezones() if "/" in z and not z.startswith("Etc/")))


def zones(current: str) -> list[tuple[str, str]]:
    key = _key(current)
    found = [z for z in _zones() if key in _key(z)] if key else ["Asia/Seoul", "Asia/Taipei", "Asia/Shanghai"]
    found.sort(key=lambda z: (not _key(z.split("/")[-1]).startswith(key), z))
    return [(z, z) for z in found[:LIMIT]]


def cities(current: str, lang: str) -> list[tuple[str, str]]:
    key = _key(current)
    out: list[tuple[str, str]] = []
    for place in places():  # by descending population
        names = (place.name, place.ko, place.zh)
        if key and not any(key in _key(n) for n in names if n):
            continue
        shown = (
            place.ko if lang == "ko" and place.ko else place.zh if lang == "lzh" and place.zh else place.name
        )
        out.append((shown, place.ko or place.name if lang == "ko" else place.zh or place.name))
        if len(out) >= LIMIT:
            break
    return out


def suggest(source: str, current: str, lang: str) -> list[tuple[str, str]]:
    """(shown name, value) pairs for ``current`` from ``source`` ("zone" | "place")."""
    if source == "zone":
        return zones(current)
    if source == "place":
        return cities(current, lang)
    return []


__all__ = ["LIMIT", "cities", "suggest", "zones"]
