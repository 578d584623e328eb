"""IANA zone names from users and the environment, validated without ever raising on bad input, and the one
table of the names people call zones by (issue 34 item 4).

``zoneinfo.ZoneInfo`` raises more than ``ZoneInfoNotFoundError`` for names that are not zones: an area
name such as ``America`` is a *directory* of the zone database (``IsADirectoryError``), a very long name
is refused by the file system (``OSError: File name too long``), a name with a NUL byte gives
``ValueError``. :func:`zone_or_none` turns all of these into ``None``; callers answer with their
localized message (``bot.error.bad_tz`` in chats, ``bot.error.config_tz`` for ``SIKPAN_TZ``).

:class:`ZoneIndex` is the searchable table of zone names: the places of ``locales/zones.json`` (a zone's
Korean and Chinese names, its abbreviations as tzdata writes them — KST, JST, CST … —, the countries and
other names it goes by) and the cities given to it (the 七政 engine's city table, ``bot.features.common.
zone_index``), each naming its IANA zone; and UTC offsets (``UTC+9``, ``GMT-5``, ``+05:30``). Both the
``/tz`` autocomplete (:meth:`ZoneIndex.search`) and the typed ``/tz`` (:meth:`ZoneIndex.find`) read it, so
a name the one offers the other understands.
"""

from __future__ import annotations

import json
import re
import unicodedata
import zoneinfo
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache
from importlib import resources
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MAX_ZONE_LENGTH: Final = 64  # the longest IANA name is 32 characters (America/Argentina/ComodRivadavia)
_ZONE_NAME: Final = re.compile(r"[A-Za-z0-9_+\-]+(?:/[A-Za-z0-9_+\-]+)*")


def zone_or_none(name: str) -> ZoneInfo | None:
    """The zone called ``name``, or None when it is not one (never raises for any string)."""
    if not isinstance(name, str) or not 0 < len(name) <= MAX_ZONE_LENGTH:
        return None
    if not _ZONE_NAME.fullmatch(name) or ".." in name:
        return None
    try:
        return zone(name)
    except (ZoneInfoNotFoundError, ValueError, OSError, UnicodeError):
        # OSError covers IsADirectoryError ("America") and PermissionError; ValueError bad TZif data
        return None


@lru_cache(maxsize=1024)
def zone(name: str) -> ZoneInfo:
    """The zone called ``name`` (a valid IANA name, e.g. a stored subscription's), one instance per name.

    ``ZoneInfo(name)`` keeps only 8 zones in its strong cache and the rest weakly: a daily run over 20 zones
    whose datetimes are dropped re-reads the tz files thousands of times (issue 18). Here every name read
    once stays loaded (at most 1,024 names; there are ~600 IANA zones). Raises as ``ZoneInfo`` does for a
    name that is not a zone (use :func:`zone_or_none` for input from users).
    """
    return ZoneInfo(name)


def is_zone(name: str) -> bool:
    return zone_or_none(name) is not None


# ---- the names of zones ------------------------------------------------------------------------------------

TABLE: Final = resources.files("locales").joinpath("zones.json")  # the names are the user's words: locales/
# A zone's offsets are read from tzdata at these instants (January and July: either side of any DST) of this
# year's rules; the smaller is its standard offset (north and south of the equator alike)
REFERENCE_INSTANTS: Final = (datetime(2026, 1, 15, 12, tzinfo=UTC), datetime(2026, 7, 15, 12, tzinfo=UTC))
_OFFSET = re.compile(r"^(?:utc|gmt)?([+-−])(\d{1,2})(?::?(\d{2}))?$")


@dataclass(frozen=True)
class ZoneName:
    """A place a zone is named by: its IANA ``zone``, its Korean and Chinese (文言) names, every other name it
    goes by (countries, English) and its abbreviations (matched whole or by their start only)."""

    zone: str
    ko: str
    lzh: str
    other: tuple[str, ...] = ()
    abbr: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        """Its names (not the abbreviations), the city of its IANA name included (``Seoul``)."""
        return (self.ko, self.lzh, *self.other, self.zone.rsplit("/", 1)[-1])


@dataclass(frozen=True)
class ZoneMatch:
    """A zone found for a name: the zone, the place's names to show (ko, lzh) and its standard offset in
    minutes; ``fixed`` for an ``Etc/GMT±N`` zone of a typed offset (no place)."""

    zone: str
    ko: str
    lzh: str
    offset: int
    fixed: bool = False


def key(text: str) -> str:
    """A name as the table compares it: NFKC, case-folded, without spaces, ``_`` and ``-``."""
    folded = unicodedata.normalize("NFKC", text).strip().casefold()
    return folded.replace(" ", "").replace("_", "").replace("-", "").replace("・", "").replace("·", "")


@cache
def zone_names() -> tuple[ZoneName, ...]:
    """The places of ``locales/zones.json``, in its order (the first to claim a name keeps it)."""
    rows = json.loads(TABLE.read_text(encoding="utf-8"))["zones"]
    return tuple(
        ZoneName(r["zone"], r["ko"], r["lzh"], tuple(r.get("names", ())), tuple(r.get("abbr", ())))
        for r in rows
    )


@lru_cache(maxsize=1024)
def standard_offset(name: str) -> int:
    """The standard UTC offset of the zone ``name`` in minutes (the smaller of January's and July's)."""
    tz = zone(name)
    return min(
        int((at.astimezone(tz).utcoffset() or at - at).total_seconds()) // 60 for at in REFERENCE_INSTANTS
    )


def parse_offset(text: str) -> int | None:
    """``UTC+9``, ``GMT-5``, ``+09:00``, ``UTC+5:30`` → minutes east of UTC; None for anything else or an
    offset no zone has (beyond −12 … +14 hours)."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace(" ", "").replace("−", "-")
    m = _OFFSET.match(folded) if text else None
    if m is None:
        return None
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if minutes >= 60:
        return None
    total = (hours * 60 + minutes) * (-1 if m.group(1) in "-−" else 1)
    return total if -12 * 60 <= total <= 14 * 60 else None


def fixed_zone(minutes: int) -> str | None:
    """The IANA zone of a whole-hour offset (``Etc/GMT-9`` is UTC+9: POSIX signs are inverted), else None."""
    if minutes % 60:
        return None
    hours = minutes // 60
    name = "Etc/GMT" if hours == 0 else f"Etc/GMT{-hours:+d}"
    return name if is_zone(name) else None


def show_offset(minutes: int) -> str:
    """``+9``, ``-3``, ``+5:30``: an offset as the choices show it after ``UTC``."""
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours}" + (f":{rest:02d}" if rest else "")


@cache
def _iana() -> dict[str, str]:
    """Every IANA zone name by its :func:`key` (``asia/seoul`` → ``Asia/Seoul``)."""
    return {key(z): z for z in sorted(zoneinfo.available_timezones())}


@cache
def _areas() -> tuple[str, ...]:
    """The IANA zones of an area (``Asia/Seoul``; not ``Etc/…`` nor the old ``SystemV/…``), sorted."""
    names = (z for z in sorted(zoneinfo.available_timezones()) if "/" in z)
    return tuple(z for z in names if not z.startswith(("Etc/", "SystemV/")) and is_zone(z))


@cache
def _area_keys() -> tuple[str, ...]:
    """The :func:`key` of each of :func:`_areas` (computed once)."""
    return tuple(key(name) for name in _areas())


class ZoneIndex:
    """The one searchable table of zone names: the places of :func:`zone_names`, then ``cities`` (each a
    zone and its names, Korean and Chinese first), then the IANA names themselves."""

    def __init__(self, places: Iterable[ZoneName], cities: Iterable[ZoneName] = ()) -> None:
        self.entries: tuple[ZoneName, ...] = tuple(e for e in (*places, *cities) if is_zone(e.zone))
        self._exact: dict[str, ZoneName] = {}
        # each entry's names and abbreviations as keys, computed once (autocomplete searches per keystroke)
        self._keys: tuple[tuple[ZoneName, tuple[str, ...], tuple[str, ...]], ...] = tuple(
            (e, tuple(key(n) for n in e.names() if n), tuple(key(n) for n in e.abbr if n))
            for e in self.entries
        )
        for entry, names, abbrs in self._keys:
            for name in (*names, *abbrs):
                self._exact.setdefault(name, entry)

    def match(self, entry: ZoneName) -> ZoneMatch:
        return ZoneMatch(entry.zone, entry.ko, entry.lzh, standard_offset(entry.zone))

    def find(self, text: str) -> str | None:
        """The IANA zone ``text`` names — a zone name (any case), a place or city (서울, 上海, Seoul), an
        abbreviation (KST), a UTC offset (UTC+9 → ``Etc/GMT-9``; a half-hour one → the first place with that
        standard offset) — or None."""
        if not text or len(text) > MAX_ZONE_LENGTH:
            return None
        if zone_or_none(text) is not None:
            return text
        k = key(text)
        offset = parse_offset(text)
        if offset is not None:
            fixed = fixed_zone(offset)
            if fixed is not None:
                return fixed
            return next((m.zone for m in self._at_offset(offset)), None)
        entry = self._exact.get(k)
        if entry is not None:
            return entry.zone
        name = _iana().get(k)
        if name is not None and is_zone(name):
            return name
        return None

    def _at_offset(self, offset: int) -> Iterable[ZoneMatch]:
        """The places whose standard offset is ``offset`` minutes, then the other IANA zones with it."""
        for entry in self.entries:
            if standard_offset(entry.zone) == offset:
                yield self.match(entry)
        for name in _areas():
            if standard_offset(name) == offset:
                yield ZoneMatch(name, "", "", offset)

    def search(self, text: str, limit: int) -> list[ZoneMatch]:
        """At most ``limit`` zones for a half-typed name, best first, each zone once: for an offset the
        fixed zone and the places with that standard offset; else the names that start with ``text``, then
        those that contain it, then the IANA names that contain it. Nothing typed: the first places."""
        k = key(text)
        found: list[ZoneMatch] = []
        seen: set[str] = set()

        def add(match: ZoneMatch) -> None:
            if match.zone not in seen and len(found) < limit:
                seen.add(match.zone)
                found.append(match)

        if not k:
            for entry in self.entries[:limit]:
                add(self.match(entry))
            return found
        offset = parse_offset(text)
        if offset is not None:
            fixed = fixed_zone(offset)
            if fixed is not None:
                add(ZoneMatch(fixed, "", "", offset, fixed=True))
            for match in self._at_offset(offset):
                add(match)
            return found
        for entry, names, abbrs in self._keys:
            if entry.zone not in seen and any(name.startswith(k) for name in (*names, *abbrs)):
                add(self.match(entry))
        for entry, names, _ in self._keys:
            if entry.zone not in seen and any(k in name for name in names):
                add(self.match(entry))
        for name, area_key in zip(_areas(), _area_keys(), strict=True):
            if k in area_key:
                add(ZoneMatch(name, "", "", standard_offset(name)))
        return found


__all__ = [
    "MAX_ZONE_LENGTH",
    "ZoneIndex",
    "ZoneMatch",
    "ZoneName",
    "fixed_zone",
    "is_zone",
    "parse_offset",
    "show_offset",
    "standard_offset",
    "zone",
    "zone_names",
    "zone_or_none",
]
