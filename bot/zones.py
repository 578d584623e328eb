"""IANA zone names from users and the environment, validated without ever raising on bad input.

``zoneinfo.ZoneInfo`` raises more than ``ZoneInfoNotFoundError`` for names that are not zones: an area
name such as ``America`` is a *directory* of the zone database (``IsADirectoryError``), a very long name
is refused by the file system (``OSError: File name too long``), a name with a NUL byte gives
``ValueError``. :func:`zone_or_none` turns all of these into ``None``; callers answer with their
localized message (``bot.error.bad_tz`` in chats, ``bot.error.config_tz`` for ``SIKPAN_TZ``).
"""

from __future__ import annotations

import re
from functools import lru_cache
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


__all__ = ["MAX_ZONE_LENGTH", "is_zone", "zone", "zone_or_none"]
