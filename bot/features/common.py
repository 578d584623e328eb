"""Helpers shared by the command modules: argument parsing (Korean and Chinese forms), zones, history."""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from importlib import metadata
from typing import Any
from zoneinfo import ZoneInfo

from bot import jsonio
from bot.context import AppContext
from bot.features.base import Cast, CommandError, Incoming, Reply, reply, stored_as_kind
from bot.storage import HistoryEntry, JsonText, UserSettings
from bot.zones import ZoneIndex, ZoneName, zone_names, zone_or_none
from engine.calendar import resolve_local as calendar_resolve_local
from engine.core.cycle import BRANCH_CHARS, STEM_CHARS, Branch, GanZhi
from engine.errors import EngineInputError
from engine.qizheng.places import find_place, places

log = logging.getLogger(__name__)

# Hangul readings of the stems and branches (as in locales/ko/terms/core.json); 신 is 辛 as a stem, 申 as a
# branch, so a two-syllable 간지 is read by position.
_KO_STEMS = dict(zip("갑을병정무기경신임계", STEM_CHARS, strict=True))
_KO_BRANCHES = dict(zip("자축인묘진사오미신유술해", BRANCH_CHARS, strict=True))

NOW_WORDS = frozenset({"now", "지금", "현재", "今", "今時", "現在", "现在", "即時", "即时"})
ON_WORDS = frozenset({"on", "yes", "true", "1", "켜기", "켬", "예", "네", "是", "開", "开"})
OFF_WORDS = frozenset({"off", "no", "false", "0", "끄기", "끔", "아니오", "否", "關", "关", "止"})


def parse_ganzhi(text: str) -> GanZhi:
    """``甲子`` or ``갑자`` (also ``甲子日``/``갑자일``)."""
    s = text.strip()
    if s.endswith(("日", "일")) and len(s) == 3:
        s = s[:2]
    if len(s) == 2 and s[0] in _KO_STEMS and s[1] in _KO_BRANCHES:
        s = _KO_STEMS[s[0]] + _KO_BRANCHES[s[1]]
    return GanZhi.parse(s)


def parse_branch(text: str) -> Branch:
    """``寅`` or ``인`` (also ``寅月``/``인월``)."""
    s = text.strip()
    if len(s) == 2 and s[1] in "月월時시":
        s = s[0]
    if len(s) == 1 and s in _KO_BRANCHES:
        s = _KO_BRANCHES[s]
    return Branch.from_char(s)


def zone_of(user: UserSettings | None, ctx: AppContext) -> ZoneInfo:
    name = (user.tz if user and user.tz else None) or ctx.settings.tz
    return zone_or_none(name) or zone_or_none(ctx.settings.tz) or ZoneInfo("UTC")


@cache
def zone_index() -> ZoneIndex:
    """The one table of zone names (:class:`bot.zones.ZoneIndex`): the places of ``locales/zones.json``, then
    the 七政 engine's cities (by descending population; Korean, Chinese and English names) in their zones."""
    cities = (ZoneName(p.tz, p.ko, p.zh, (p.name,)) for p in places())
    return ZoneIndex(zone_names(), cities)


def check_zone(name: str) -> str:
    """The IANA zone ``name`` names (``Asia/Seoul``; a place or city 서울 · 上海, an abbreviation KST, an
    offset UTC+9: :meth:`bot.zones.ZoneIndex.find`) or CommandError (never another error: ``America`` is a
    directory of the zone database, see :mod:`bot.zones`)."""
    found = zone_index().find(name.strip())
    if found is None:
        raise CommandError("bot.error.bad_tz", value=name[:64])
    return found


_DATE_RE = re.compile(r"^(\d{4})[-./](\d{1,2})[-./](\d{1,2})$")
_TIME_RE = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")


def parse_local_datetime(tokens: tuple[str, ...]) -> datetime | None:
    """``2026-11-29 23:10`` / ``2026-11-29T23:10`` / ``2026.11.29 23:10:05`` → naive datetime.

    An ISO string with an offset gives an aware datetime. None if the tokens are not a date-time at all;
    CommandError if they look like one but are impossible (month 13, 24:00 …).
    """
    text = " ".join(tokens).strip().replace("T", " ", 1)
    if not text or not text[0].isdigit():
        return None
    # ISO with an explicit offset: an instant, not a wall clock.
    if re.search(r"(Z|[+-]\d{2}:?\d{2})$", text) and re.match(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}", text):
        try:
            value = datetime.fromisoformat(text.replace(" ", "T", 1).replace("Z", "+00:00"))
        except ValueError:
            raise CommandError("bot.error.bad_datetime", value=text[:40]) from None
        return value
    parts = text.split()
    if len(parts) != 2:
        if len(parts) == 1 and _DATE_RE.match(parts[0]):
            raise CommandError("bot.error.missing_time", value=text[:40])
        return None
    d, t = _DATE_RE.match(parts[0]), _TIME_RE.match(parts[1])
    if not d or not t:
        return None
    try:
        return datetime(
            int(d.group(1)),
            int(d.group(2)),
            int(d.group(3)),
            int(t.group(1)),
            int(t.group(2)),
            int(t.group(3) or 0),
        )
    except ValueError:
        raise CommandError("bot.error.bad_datetime", value=text[:40]) from None


def resolve_local(naive: datetime, zone: ZoneInfo) -> datetime:
    """A wall clock in ``zone`` → aware datetime (``engine.calendar.resolve_local``: a fold gives the first
    occurrence, a gap is rejected with ``error.calendar.nonexistent_time``); an aware value is kept."""
    if naive.tzinfo is not None:
        return naive
    return calendar_resolve_local(naive, zone.key)


def fmt_local(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


def fmt_offset(at: datetime) -> str:
    off = at.utcoffset() or timedelta(0)
    sign = "+" if off >= timedelta(0) else "-"
    minutes = abs(int(off.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


# the engine version a history row was cast with (the installed distribution's: engine and shell ship together)
ENGINE_VERSION = metadata.version("sikpan")


@dataclass(frozen=True)
class Record:
    """A cast to store and answer: its history kind (a registered ``Stored.kind``), its inputs and options
    (JSON objects: what the row keeps, and all that its command's ``Stored.cast`` reads)."""

    kind: str
    inputs: Mapping[str, Any]
    options: Mapping[str, Any]


async def record_and_reply(incoming: Incoming, ctx: AppContext, rec: Record) -> Reply:
    """Cast ``rec`` once (its command's ``Stored.cast``), store its inputs, options and the engine version in
    the user's history, and answer with that cast: its view model and its picture (an anonymous request's is not stored:
    :attr:`~bot.features.base.Incoming.anonymous`). ``/show N`` and the page
    buttons cast the stored row again (:func:`replay`) with the same function from the same JSON, so they
    answer what this answered. The row keeps no rendering; ``/history``'s line of it (``Stored.summary`` of
    the view model) is kept beside (a few characters)."""
    stored = stored_as_kind(rec.kind)
    if stored is None:
        raise ValueError(f"no command stores the history kind {rec.kind!r}")
    inputs_text, options_text = jsonio.dumps(dict(rec.inputs)), jsonio.dumps(dict(rec.options))
    # cast from what the row keeps, as read back: the first reply is what /show gives, by construction
    cast = stored.cast(jsonio.loads(inputs_text), jsonio.loads(options_text))
    if incoming.anonymous:  # nothing stored (an inline query's answer): no number, so no pages or /show
        return reply(stored.view, **cast.context, no=None, picture=cast.picture)
    summary = stored.summary(cast.context) if stored.summary is not None else {}
    created = (await ctx.clock.now()).isoformat(timespec="seconds")
    seq = await ctx.storage.add_history(
        incoming.user_key,
        kind=rec.kind,
        command=incoming.text.strip()[:200],
        inputs=JsonText(inputs_text),
        options=JsonText(options_text),
        view=stored.view,
        engine=ENGINE_VERSION,
        summary=summary,
        created_at=created,
        keep=ctx.settings.history_limit or None,  # retention (SIKPAN_HISTORY_LIMIT); unset keeps every cast
    )
    return reply(stored.view, **cast.context, no=seq, picture=cast.picture)


def replay(entry: HistoryEntry, lang: str = "") -> Reply | None:
    """A stored cast as a reply (``/show``, the page buttons): its inputs and options cast once by its command
    (the view model and the picture of that cast). A row stored before migration 0012 (``engine`` None) holds
    the view model it was answered with: that is shown as it is, with the picture cast from its inputs.
    None when no command stores its kind any more, or its inputs cannot be cast (an older version's row)."""
    stored = stored_as_kind(entry.kind)
    if stored is None or (entry.engine is None and not stored.picture):
        if entry.engine is not None:
            return None
        return Reply(view=entry.view, lang=lang, context={**entry.context, "no": entry.seq})
    try:
        cast = stored.cast(entry.inputs, entry.options)
    except (CommandError, EngineInputError, KeyError, TypeError, ValueError) as exc:
        log.warning(
            "history: %s row %s not castable (%s: %s)", entry.kind, entry.seq, type(exc).__name__, exc
        )
        if entry.engine is not None:
            return None
        cast = Cast(entry.context)
    context = cast.context if entry.engine is not None else entry.context
    return Reply(view=entry.view, lang=lang, context={**context, "no": entry.seq}, picture=cast.picture)


def parse_bool(value: str, name: str) -> bool:
    v = value.strip().lower()
    if v in ON_WORDS:
        return True
    if v in OFF_WORDS:
        return False
    raise CommandError("bot.error.bad_bool", name=name, value=value[:20])


# ---- places: /place and /qizheng ------------------------------------------------------------------------


def parse_coordinate(text: str, limit: float) -> float:
    """``126.98``, ``126.98E``, ``74W``, ``37.5°N`` → signed degrees within ±limit."""
    s = text.strip().upper().replace("°", "")
    sign = 1.0
    if s and s[-1] in "EWNS":
        sign = -1.0 if s[-1] in "WS" else 1.0
        s = s[:-1]
    try:
        value = float(s) * sign
    except ValueError:
        raise CommandError("bot.error.bad_place", value=text[:30]) from None
    if not math.isfinite(value) or abs(value) > limit:
        raise CommandError("bot.error.bad_place", value=text[:30])
    return round(value, 4)


def find_city(name: str) -> dict[str, Any]:
    """A city of the 七政四餘 engine's place table by name (서울, 首爾, Seoul …): its names and coordinates.

    ``EngineInputError`` (error.qizheng.unknown_place) for a name not in the table.
    """
    city = find_place(name)
    return {
        "name": city.name,
        "ko": city.ko,
        "zh": city.zh,
        "tz": city.tz,
        "lon": round(city.lon, 4),
        "lat": round(city.lat, 4),
    }


def looks_numeric(text: str) -> bool:
    s = text.strip().upper().replace("°", "").rstrip("EWNS")
    return bool(s) and s.lstrip("+-").replace(".", "", 1).isdigit()
