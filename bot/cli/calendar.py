"""``sikpan calendar``: 四柱, 月將, 旬空 and the current 節氣 of instants; ``sikpan calendar terms``: the term table.

JSON contract (issue 2): one line per ``--at``::

    {"at": "<input>", "year": "甲辰", "month": "丙寅", "day": "戊戌", "hour": "庚申", "month_general": "子",
     "xunkong": ["辰", "巳"], "term": {"name": "立春", "at": "2024-02-04T08:27:08Z"}}

and for ``terms`` one line per term: ``{"name": "小寒", "longitude": 285, "at": "1900-01-06T…Z"}``.
"""

from __future__ import annotations

import argparse
import math
from datetime import datetime
from typing import Any

from bot.cli.common import UsageError, add_common, emit_json, emit_text, parse_instant
from bot.i18n import LANGS, N_, render
from engine.calendar import (
    DEFAULT_ZONE,
    DayStart,
    Pillars,
    SolarTime,
    four_pillars,
    metadata,
    month_general_name,
    resolve_local,
    solar_terms,
    zone,
)


def _longitude(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError("error.calendar.bad_longitude", value=text) from None
    if not math.isfinite(value) or not -180.0 <= value <= 180.0:
        raise UsageError("error.calendar.bad_longitude", value=text)
    return value


def _year(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError("error.calendar.bad_year", value=text) from None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("calendar", help=N_("四柱, 月將, 旬空 and 節氣 of an instant"))
    add_common(parser)
    parser.add_argument(
        "--at", action="append", metavar="ISO", help=N_("instant with UTC offset (repeatable)")
    )
    parser.add_argument("--zone", metavar="IANA", help=N_("zone for --at without offset, and for 'now'"))
    parser.add_argument("--day-starts", choices=("23:00", "00:00"), default="23:00")
    parser.add_argument(
        "--solar-time", metavar="LON", type=_longitude, help=N_("true solar time at east longitude")
    )
    parser.add_argument(
        "--mean-solar-time", action="store_true", help=N_("with --solar-time: local mean time")
    )
    parser.set_defaults(func=run_pillars)
    sub = parser.add_subparsers(dest="calendar_command", parser_class=type(parser))
    terms = sub.add_parser("terms", help=N_("the 24 solar terms of a range of years"))
    # --lang / --json may come before or after "terms"; SUPPRESS keeps the value given to "calendar"
    terms.add_argument("--lang", choices=LANGS, default=argparse.SUPPRESS)
    terms.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    terms.add_argument("--from", dest="from_year", type=_year, required=True, metavar="Y")
    terms.add_argument("--to", dest="to_year", type=_year, required=True, metavar="Y")
    terms.set_defaults(func=run_terms)


def _instant(text: str, zone_key: str | None) -> datetime:
    if zone_key is not None:
        try:
            value = datetime.fromisoformat(text.strip())
        except ValueError:
            raise UsageError("error.bad_instant", value=text) from None
        if value.tzinfo is None:
            return resolve_local(value, zone_key)
        return value
    return parse_instant(text)


def _view(text: str, p: Pillars) -> dict[str, Any]:
    return {
        "at": text,
        "p": p,
        "general_name": month_general_name(p.month_general),
        "term_at": p.term.at.strftime("%Y-%m-%d %H:%M:%S"),
        "local": p.local.strftime("%Y-%m-%d %H:%M:%S") if p.solar_time is not None else None,
        "solar": None if p.solar_time is None else p.solar_time.value,
        "longitude": p.solar_longitude,
        "midnight": p.day_starts is DayStart.MIDNIGHT,
    }


def run_pillars(args: argparse.Namespace) -> int:
    starts = DayStart.parse(args.day_starts)
    kind = SolarTime.MEAN if args.mean_solar_time else SolarTime.APPARENT
    if args.mean_solar_time and args.solar_time is None:
        raise UsageError("error.calendar.mean_needs_longitude")
    if args.zone is not None:
        zone(args.zone)  # unknown zone → error before anything else
    texts: list[str] = args.at or [
        datetime.now(zone(args.zone or DEFAULT_ZONE)).replace(microsecond=0).isoformat()
    ]
    results = []
    for text in texts:
        at = _instant(text, args.zone)
        results.append((text, four_pillars(at, starts, args.solar_time, kind)))
    if args.json:
        for text, p in results:
            emit_json(p.to_json(text))
    else:
        emit_text(render("cli/calendar.txt.j2", args.lang, items=[_view(t, p) for t, p in results]))
    return 0


def run_terms(args: argparse.Namespace) -> int:
    terms = solar_terms(args.from_year, args.to_year)
    if args.json:
        for term in terms:
            emit_json(term.to_json())
    else:
        rows = [{"term": t, "at": t.at.strftime("%Y-%m-%d %H:%M:%S")} for t in terms]
        emit_text(
            render("cli/calendar_terms.txt.j2", args.lang, rows=rows, utc_end=metadata()["utc_end"][:10])
        )
    return 0
