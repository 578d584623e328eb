"""``sikpan qizheng``: a 七政四餘 natal chart with the 《八格賦》 (seed 004) patterns (issue 6).

    sikpan qizheng --at 1990-05-17T14:30+09:00 --lon 126.98 [--lat 37.57] [options] [--json]
    sikpan qizheng --at 1990-05-17T14:30+09:00 --place 서울 [--on 2027-03-01]
    sikpan qizheng place 서울 [--json]

Every school option of spec/qizheng.md §10 is a flag; the options in force are printed and in the JSON.
After the chart the text adds the 盤制 (palace and 宿度 system), the motion of the five planets (順 逆 留),
the eclipse of the birth day if any, and with ``--on`` the 限 at that date (大限, 小限, 流年).
"""

from __future__ import annotations

import argparse
import math
from datetime import date, datetime, time
from typing import Any

from bot.cli.common import UsageError, add_common, emit_json, emit_text, parse_instant
from bot.cli.png import add_png_option, write_png
from bot.i18n import LANGS, N_, both, gettext, passage, render, series, typeset
from bot.msgids import msgid
from engine.qizheng import QizhengOptions, find_place, natal_chart

PLANETS = ("水星", "金星", "火星", "木星", "土星")


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
    parser = subparsers.add_parser("qizheng", help=N_("七政四餘 natal chart and 《八格賦》 patterns"))
    add_common(parser)
    parser.add_argument("--at", metavar="ISO", help=N_("birth instant with UTC offset"))
    parser.add_argument("--lon", type=_coordinate(180.0, "error.qizheng.bad_lon"), help=N_("east longitude"))
    parser.add_argument("--lat", type=_coordinate(90.0, "error.qizheng.bad_lat"), help=N_("north latitude"))
    parser.add_argument(
        "--place", metavar="NAME", help=N_("city name (Korean, Chinese or English) for lon/lat")
    )
    parser.add_argument("--all", action="store_true", help=N_("list every clause, not only those that hold"))
    parser.add_argument(
        "--on", metavar="DATE", help=N_("the 限 (大限 小限 流年) at this date (YYYY-MM-DD or ISO instant)")
    )
    for name, values in QizhengOptions.choices().items():  # --palaces, --naming, … one flag per school option
        parser.add_argument(f"--{name}", dest=name, choices=values, default=None)
    add_png_option(parser)
    parser.set_defaults(func=run_chart)
    sub = parser.add_subparsers(dest="qizheng_command", parser_class=type(parser))
    place = sub.add_parser("place", help=N_("look a city up in the shipped table"))
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


def parse_on(text: str, birth: datetime) -> datetime:
    """``--on``: an ISO instant with offset, or a date (then noon on the birth's UTC offset)."""
    if "T" in text or " " in text.strip():
        return parse_instant(text)
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise UsageError("error.qizheng.bad_on", value=text) from None
    return datetime.combine(day, time(12, 0), tzinfo=birth.tzinfo)


def _opt(lang: str, name: str, value: str) -> str:
    return gettext(lang, msgid("qizheng.opt", f"{name}.{value}"))


def extra_text(data: dict[str, Any], lang: str) -> str:
    """盤制, 順逆留, 蝕 and 限 lines (the shared chart template does not have them yet)."""
    pz = data["pan_zhi"]
    lines = [
        "",
        gettext(
            lang,
            "qizheng.panzhi",
            palaces=_opt(lang, "palaces", pz["palaces"]),
            offset=f"{pz['palace_offset']:.2f}",
            mansions=_opt(lang, "mansions", pz["mansions"]),
            frame=gettext(lang, msgid("qizheng.frame", pz["mansion_frame"])),
            window=f"{pz['station_window_days']:g}",
        ),
    ]
    motions = []
    for name in PLANETS:
        b = data["bodies"][name]
        speed = gettext(lang, "qizheng.speed", v=f"{b['speed']:+.3f}")
        item = f"{both(lang, name)} {both(lang, b['motion'])} {speed}"
        if b["station"] is not None:
            item += " " + gettext(lang, "qizheng.station", hours=f"{b['station']['days'] * 24:+.1f}")
        motions.append(item)
    lines.append(gettext(lang, "qizheng.motion") + ": " + " · ".join(motions))
    broad = [p["id"] for p in data["patterns"] if p["holds"] and p["broad"]]
    if broad:
        lines.append(gettext(lang, "qizheng.broad", ids=series(lang, [passage(lang, b) for b in broad])))
    if data["eclipse"] is not None:
        e = data["eclipse"]
        lines.append(gettext(lang, msgid("qizheng.eclipse", e["kind"]), hours=f"{e['days'] * 24:+.1f}"))
    xian = data.get("xian")
    if xian:
        lines.append("")
        lines.append(
            gettext(lang, "qizheng.xian.title", on=xian["on"], age=f"{xian['age']:.2f}", xu=xian["xu_sui"])
        )
        dx = xian["daxian"]
        if dx is not None:
            lines.append(
                gettext(
                    lang,
                    "qizheng.xian.daxian",
                    house=both(lang, dx["house"]),
                    branch=both(lang, dx["branch"]),
                    start=f"{dx['from']:g}",
                    end=f"{dx['to']:g}",
                )
            )
        else:
            key = N_("qizheng.xian.tongxian") if xian["tongxian"] else N_("qizheng.xian.daxian_none")
            lines.append(gettext(lang, key))
        xx = xian["xiaoxian"]
        lines.append(
            gettext(
                lang, "qizheng.xian.xiaoxian", house=both(lang, xx["house"]), branch=both(lang, xx["branch"])
            )
        )
        ln = xian["liunian"]
        lines.append(
            gettext(
                lang,
                "qizheng.xian.liunian",
                year=both(lang, ln["year"]),
                house=both(lang, ln["house"]),
                tianma=both(lang, ln["tianma"]),
                tianma_palace=both(lang, ln["tianma_palace"]),
                tianma_house=both(lang, ln["tianma_house"]),
                yima=both(lang, ln["yima"]),
                yima_house=both(lang, ln["yima_house"]),
            )
        )
        stars = " · ".join(
            f"{both(lang, name)} {both(lang, b['palace'])}({both(lang, b['house'])})"
            for name, b in ln["bodies"].items()
        )
        lines.append(gettext(lang, "qizheng.xian.liunian_bodies") + ": " + stars)
        lines.append(gettext(lang, "qizheng.xian.xiaoxian_rule"))
    return "\n".join(lines)


def run_chart(args: argparse.Namespace) -> int:
    if not args.at:
        raise UsageError("error.qizheng.need_at")
    at = parse_instant(args.at)
    on = parse_on(args.on, at) if args.on else None
    lon, lat, place = args.lon, args.lat, None
    if args.place:
        place = find_place(args.place)
        lon = place.lon if lon is None else lon
        lat = place.lat if lat is None else lat
    if lon is None:
        raise UsageError("error.qizheng.need_lon")
    chart = natal_chart(at, lon, lat, options_from_args(args), on=on)
    if args.png is not None:
        from bot.images import render_qizheng

        write_png(args.png, render_qizheng(chart, args.lang, place))
    data = chart.to_json()
    if place is not None:
        data["input"]["place"] = {"name": place.name, "ko": place.ko, "zh": place.zh}
    if args.json:
        emit_json(data)
        return 0
    emit_text(
        typeset(
            args.lang,
            render("cli/qizheng.txt.j2", args.lang, chart=data, show_all=args.all)
            + extra_text(data, args.lang),
        )
    )
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
