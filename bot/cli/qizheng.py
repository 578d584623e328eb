"""``sikpan qizheng``: a 七政四餘 natal chart with the 《八格賦》 (seed 004) patterns (issue 6).

    sikpan qizheng --at 1990-05-17T14:30+09:00 --lon 126.98 [--lat 37.57] [options] [--json]
    sikpan qizheng --at 1990-05-17T14:30+09:00 --place 서울
    sikpan qizheng place 서울 [--json]

Every school option of spec/qizheng.md §10 is a flag; the options in force are printed and in the JSON.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from bot.cli.common import UsageError, add_common, emit_json, emit_text, parse_instant
from bot.cli.png import add_png_option, write_png
from bot.i18n import LANGS, render
from engine.qizheng import QizhengOptions, find_place, natal_chart


def _coordinate(limit: float, code: str) -> Any:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise UsageError(code, value=text) from None
        if not math.isfinite(value) or not -limit <= value <= limit:
            raise UsageError(code, value=text)
        return value

    return parse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("qizheng", help="七政四餘 natal chart and 《八格賦》 patterns")
    add_common(parser)
    parser.add_argument("--at", metavar="ISO", help="birth instant with UTC offset")
    parser.add_argument("--lon", type=_coordinate(180.0, "error.qizheng.bad_lon"), help="east longitude")
    parser.add_argument("--lat", type=_coordinate(90.0, "error.qizheng.bad_lat"), help="north latitude")
    parser.add_argument("--place", metavar="NAME", help="city name (Korean, Chinese or English) for lon/lat")
    parser.add_argument("--all", action="store_true", help="list every clause, not only those that hold")
    for name, values in QizhengOptions.choices().items():  # --palaces, --naming, … one flag per school option
        parser.add_argument(f"--{name}", dest=name, choices=values, default=None)
    add_png_option(parser)
    parser.set_defaults(func=run_chart)
    sub = parser.add_subparsers(dest="qizheng_command", parser_class=type(parser))
    place = sub.add_parser("place", help="look a city up in the shipped table")
    place.add_argument("--lang", choices=LANGS, default=argparse.SUPPRESS)
    place.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    place.add_argument("name")
    place.set_defaults(func=run_place)


def options_from_args(args: argparse.Namespace) -> QizhengOptions:
    given = {
        name: getattr(args, name)
        for name in QizhengOptions.choices()
        if getattr(args, name, None) is not None
    }
    return QizhengOptions.from_json(given)


def run_chart(args: argparse.Namespace) -> int:
    if not args.at:
        raise UsageError("error.qizheng.need_at")
    at = parse_instant(args.at)
    lon, lat, place = args.lon, args.lat, None
    if args.place:
        place = find_place(args.place)
        lon = place.lon if lon is None else lon
        lat = place.lat if lat is None else lat
    if lon is None:
        raise UsageError("error.qizheng.need_lon")
    chart = natal_chart(at, lon, lat, options_from_args(args))
    if args.png is not None:
        from bot.images import render_qizheng

        write_png(args.png, render_qizheng(chart, args.lang, place))
    data = chart.to_json()
    if place is not None:
        data["input"]["place"] = {"name": place.name, "ko": place.ko, "zh": place.zh}
    if args.json:
        emit_json(data)
        return 0
    emit_text(render("cli/qizheng.txt.j2", args.lang, chart=data, show_all=args.all))
    return 0


def run_place(args: argparse.Namespace) -> int:
    p = find_place(args.name)
    data = {
        "name": p.name,
        "ko": p.ko,
        "zh": p.zh,
        "country": p.country,
        "lat": p.lat,
        "lon": p.lon,
        "tz": p.tz,
    }
    if args.json:
        emit_json(data)
    else:
        emit_text(render("cli/qizheng_place.txt.j2", args.lang, place=data))
    return 0
