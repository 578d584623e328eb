"""Suggestions for a half-typed argument (Discord autocomplete, issue #13): IANA zones, cities, and the
words of a question (issue 32: the 六爻 用神 and the 大六壬 topics of ``engine.lexicon``).

``ArgSpec.complete`` names the source; :func:`suggest` answers at most :data:`LIMIT` (name, value) pairs,
the name in the reader's language. Pure lookups over the zone database and the 七政 engine's city table.
"""

from __future__ import annotations

import unicodedata

from bot.features.common import zone_index
from bot.i18n import gettext
from bot.zones import show_offset
from engine import lexicon
from engine.qizheng.places import places

LIMIT = 25  # Discord's limit of autocomplete choices


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold().replace(" ", "").replace("_", "")


def zones(current: str, lang: str) -> list[tuple[str, str]]:
    """The zones a half-typed name may mean (:meth:`bot.zones.ZoneIndex.search`: 서 → 서울, 上海, KST, UTC+9),
    shown as ``서울 · Asia/Seoul · UTC+9`` in the reader's language; the value is the IANA name."""
    out: list[tuple[str, str]] = []
    for match in zone_index().search(current, LIMIT):
        name = match.ko if lang == "ko" else match.lzh
        if match.fixed or not name:
            name = gettext(lang, "chat.zone.fixed") if match.fixed else match.zone.rsplit("/", 1)[-1]
        shown = gettext(
            lang, "chat.zone.choice", name=name, zone=match.zone, offset=show_offset(match.offset)
        )
        out.append((shown, match.zone))
    return out


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


def topics(art: str, current: str, lang: str) -> list[tuple[str, str]]:
    """The targets of ``art`` ("liuyao": 六親, 世 and the question categories; "liuren": the topics and the
    類神 headings) for a half-typed word: what it names first, then the closest; all of them for nothing
    typed. Shown as 재물 求財 in ko, 求財 in lzh; the value is the name the lexicon reads back to it."""
    if not current.strip():
        found = lexicon.targets(art)
    else:
        named = lexicon.named(current, art)
        first = {m.target for m in named}
        found = (*named, *(m for m in lexicon.suggest(current, art, limit=LIMIT) if m.target not in first))
    out: list[tuple[str, str]] = []
    for match in found:
        shown = match.lzh if lang == "lzh" or match.ko == match.lzh else f"{match.ko} {match.lzh}"
        if all(name != shown for name, _ in out):  # 父母 the 六親 and 父母 the question: one choice
            out.append((shown, match.target))
    return out[:LIMIT]


def suggest(source: str, current: str, lang: str) -> list[tuple[str, str]]:
    """(shown name, value) pairs for ``current`` from ``source`` ("zone" | "place" | "liuyao_use" |
    "liuren_topic")."""
    if source == "zone":
        return zones(current, lang)
    if source == "place":
        return cities(current, lang)
    if source == "liuyao_use":
        return topics("liuyao", current, lang)
    if source == "liuren_topic":
        return topics("liuren", current, lang)
    return []


__all__ = ["LIMIT", "cities", "suggest", "topics", "zones"]
