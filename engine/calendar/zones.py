"""IANA time zones (from the PyPI ``tzdata`` package, so history is identical on every host) and naive times."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from importlib import resources
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.errors import EngineInputError

DEFAULT_ZONE = "Asia/Seoul"


@lru_cache(maxsize=64)
def zone(key: str) -> tzinfo:
    """The IANA zone ``key`` (e.g. ``Asia/Seoul``); unknown keys raise ``error.calendar.unknown_zone``."""
    error = EngineInputError("error.calendar.unknown_zone", f"unknown time zone: {key!r}", value=key)
    if not isinstance(key, str) or not key or key.startswith("/") or ".." in key.split("/"):
        raise error
    try:
        # Prefer the tzdata package (pinned history); fall back to the system database.
        node = resources.files("tzdata.zoneinfo").joinpath(*key.split("/"))
        if node.is_file():
            with node.open("rb") as fh:
                return ZoneInfo.from_file(fh, key=key)
    except (ModuleNotFoundError, OSError, ValueError):
        pass
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise error from None


def resolve_local(
    naive: datetime, zone_key: str, nonexistent: Literal["reject", "shift"] = "reject"
) -> datetime:
    """A naive wall-clock time in an IANA zone → an aware datetime in that zone.

    - Ambiguous wall times (a DST fold, or a clock set back) resolve to the **first** occurrence (``fold=0``).
    - Non-existent wall times (a DST gap, or a clock set forward) are **rejected** with
      ``error.calendar.nonexistent_time`` by default; ``nonexistent="shift"`` instead moves them forward by the
      length of the gap (02:30 in a 02:00→03:00 gap becomes 03:30).
    """
    if naive.tzinfo is not None:
        raise EngineInputError(
            "error.calendar.not_naive",
            f"expected a naive wall-clock time: {naive.isoformat()}",
            value=naive.isoformat(),
        )
    tz = zone(zone_key)
    local = naive.replace(tzinfo=tz, fold=0)
    round_trip = local.astimezone(UTC).astimezone(tz)
    if round_trip.replace(tzinfo=None) != naive:
        if nonexistent == "shift":
            return round_trip
        raise EngineInputError(
            "error.calendar.nonexistent_time",
            f"{naive.isoformat()} does not exist in {zone_key}",
            value=naive.isoformat(sep=" "),
            zone=zone_key,
        )
    return local
