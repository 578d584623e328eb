"""``sikpan cast``: the 大六壬 chart of an instant (``--at``) or of a day and 局 (``--day 庚辰 --ju 8``)."""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.common import UsageError, add_common, emit_json, emit_text, parse_branch, parse_instant
from bot.cli.liuren import add_school_options, options_from_args
from bot.cli.png import add_png_option, write_png
from bot.i18n import N_, render
from engine.calendar import DayStart
from engine.core.cycle import Branch, GanZhi
from engine.liuren import Chart, chart_at, with_shensha
from engine.liuren.nianming import Sex, check_birth_year, lichun_year, xingnian, year_ganzhi
from engine.liuren.reading import read, render_context
from engine.liuren.request import CastRequest, chart_for_request, parse_hour, parse_month_general
from engine.liuren.topics import read_topics, topic_for, topics
from engine.liuren.verdict import judge

# 地盤 positions of the square board as practitioners draw it (巳午未申 on top, 寅丑子亥 at the bottom).
_TOP = (Branch.SI, Branch.WU, Branch.WEI, Branch.SHEN)
_BOTTOM = (Branch.YIN, Branch.CHOU, Branch.ZI, Branch.HAI)
_LEFT = (Branch.CHEN, Branch.MAO)
_RIGHT = (Branch.YOU, Branch.XU)
BLANK = "\u3000"


def board_rows(chart: Chart) -> list[list[str]]:
    """The 天地盤 square, 6 × 6: the 天盤 ring at its 地盤 places (巳午未申 on top, 寅丑子亥 at the bottom,
    辰卯 left, 酉戌 right) and each 天將 just outside its branch; blanks are U+3000."""

    def gen(earth: Branch) -> str:
        return chart.general_on(chart.heaven[earth]).char

    def sky(earth: Branch) -> str:
        return chart.heaven[earth].char

    rows = [
        [BLANK, *(gen(e) for e in _TOP), BLANK],
        [BLANK, *(sky(e) for e in _TOP), BLANK],
    ]
    for left, right in zip(_LEFT, _RIGHT):
        rows.append([gen(left), sky(left), BLANK, BLANK, sky(right), gen(right)])
    rows.append([BLANK, *(sky(e) for e in _BOTTOM), BLANK])
    rows.append([BLANK, *(gen(e) for e in _BOTTOM), BLANK])
    return rows


def readings_for(chart: Chart, category: str | None, month: Branch | None = None) -> tuple[Any, ...]:
    """``engine.liuren.reading.read``: the seed-003 text for the eight worked 課, then the composed reading;
    ``month`` the 月建 ``--month`` gives (旺相休囚 and the 類神 that read the month), else the instant's."""
    if month is None:
        month = chart.moment.month.branch if chart.moment is not None else None
    year = chart.moment.year.branch if chart.moment is not None else None
    return tuple(read(chart, category, month=month, year=year))


def view(chart: Chart) -> dict[str, Any]:
    """Plain data for the template (characters and ids only; words come from the catalogs)."""
    lessons = [
        {"n": i + 1, "upper": ls.upper.char, "lower": ls.lower.char, "general": g.char, "ke": ls.ke}
        for i, (ls, g) in enumerate(zip(chart.lessons, chart.lesson_generals))
    ]
    return {
        "chart": chart.to_json(),
        "board": board_rows(chart),
        "lessons_rtl": list(reversed(lessons)),
        "transmissions": [t.to_json() for t in chart.transmissions],
        "trace": chart.trace.to_json(),
        "moment": chart.moment.to_json() if chart.moment is not None else None,
    }


def handler(args: argparse.Namespace) -> int:
    options = options_from_args(args)
    given = args.ju is not None or (args.general is not None and args.hour is not None)
    if args.at is not None:
        if args.day is not None or args.ju is not None or args.general is not None or args.hour is not None:
            raise UsageError("error.liuren.at_or_day")
        at = parse_instant(args.at)
        starts = DayStart.parse(args.day_starts)
        chart = chart_at(at, options, starts, args.solar_time, args.lat)
    elif args.day is not None and given:
        request = CastRequest(
            day=GanZhi.parse(args.day),
            ju=args.ju,
            month_general=parse_month_general(args.general) if args.general is not None else None,
            hour=parse_hour(args.hour) if args.hour is not None else None,
            night=args.night,
        )
        chart = chart_for_request(request, options)
    else:
        raise UsageError("error.liuren.at_or_day")
    chart = with_shensha(chart)
    if args.png is not None:
        from bot.images import render_liuren

        write_png(args.png, render_liuren(chart, args.lang))
    month = _branch_arg(args.month, "月", "error.liuren.bad_month")
    if month is None and chart.moment is not None:
        month = chart.moment.month.branch
    readings = readings_for(chart, args.category, month)
    verdict = judge(chart, args.category).to_json()  # the same judgment as the composed reading's
    asked = _asked(args.topic, args.lang)
    birth, walk = nianming_args(args, chart)
    lines = read_topics(chart, month=month, birth=birth, xingnian=walk)
    if args.json:
        out = chart.to_json()
        out["reading"] = [r.to_json() for r in readings]
        out["verdict"] = verdict
        out["topics"] = [t.to_json() for t in lines]
        if asked is not None:
            out["asked"] = {"word": args.topic, "topic": asked}
        emit_json(out)
        return 0
    context = view(chart)
    context.update(render_context(readings, args.lang))
    context["verdict"] = verdict
    context["topics"] = [t.to_json() for t in lines]
    context["asked"] = asked
    context["seed"] = next((r.seed.to_json() for r in readings if r.seed is not None), None)
    emit_text(render("cli/cast.txt.j2", args.lang, **context))
    return 0


def _asked(word: str | None, lang: str) -> str | None:
    """The topic (its 文言 name) a ``--topic`` word names; an unknown word is a usage error listing the topics."""
    if word is None:
        return None
    topic = topic_for(word)
    if topic is None:
        names = [t.ko if lang == "ko" else t.lzh for t in topics()]
        raise UsageError(
            "error.liuren.unknown_topic", value=word, choices=(", " if lang == "ko" else "、").join(names)
        )
    return topic.lzh


def nianming_args(args: argparse.Namespace, chart: Chart) -> tuple[Branch | None, Branch | None]:
    """The asker's 本命 and 行年 branches: given as branches (``--birth``, ``--xingnian``), or by the rule of
    ``engine.liuren.nianming`` from ``--born`` (the birth year) and ``--sex`` with ``--age`` (세는나이), the age
    counted from ``--born`` to the 立春 year of ``--at`` when not given."""
    birth = _branch_arg(args.birth, "", "error.liuren.bad_birth")
    walk = _branch_arg(args.xingnian, "", "error.liuren.bad_xingnian")
    if birth is None and args.born is not None:
        birth = year_ganzhi(check_birth_year(args.born)).branch
    age = args.age
    if age is None and args.born is not None and chart.moment is not None:
        age = lichun_year(chart.moment.at) - args.born + 1
    if walk is None and age is not None and args.sex is not None:
        walk = xingnian(age, Sex(args.sex)).branch
    return birth, walk


def _branch_arg(text: str | None, suffix: str, code: str) -> Branch | None:
    return None if text is None else parse_branch(text, suffix, code)


def _ju(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError("error.liuren.bad_ju", value=text) from None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("cast", help=N_("大六壬 chart of an instant or of a day and 局"))
    add_common(parser)
    parser.add_argument("--at", help=N_("ISO instant with UTC offset, e.g. 2024-05-01T10:00:00+09:00"))
    parser.add_argument(
        "--solar-time", type=float, metavar="LON", help=N_("local apparent solar time at LON")
    )
    parser.add_argument("--lat", type=float, metavar="LAT", help=N_("latitude (for --daynight sun)"))
    parser.add_argument("--day-starts", default="23:00", metavar="23:00|00:00")
    parser.add_argument("--day", metavar="干支", help=N_("day 干支, e.g. 庚辰 (with --ju)"))
    parser.add_argument("--ju", type=_ju, metavar="1-12", help=N_("局 (天盤子 over 地盤 局−1)"))
    parser.add_argument(
        "--hour", metavar="地支", help=N_("占時 (巳 or 巳時) with --day: with --ju or --general")
    )
    parser.add_argument(
        "--general", metavar="地支", help=N_("月將 (辰 or 辰將) with --day: with --ju or --hour")
    )
    parser.add_argument("--night", action="store_true", help=N_("night 貴人 when --day/--ju give no 占時"))
    parser.add_argument(
        "--category", metavar="類", help=N_("question category for the 類神 (天文, 地理, 人物 …)")
    )
    parser.add_argument("--topic", metavar="WORD", help=N_("the topic asked (求財, 재물, 혼인 …)"))
    parser.add_argument("--month", metavar="地支", help=N_("月建 branch, for 旺相休囚 (with --day)"))
    parser.add_argument("--birth", metavar="地支", help=N_("the asker's 本命 branch"))
    parser.add_argument("--xingnian", metavar="地支", help=N_("the asker's 行年 branch"))
    parser.add_argument(
        "--born", type=int, metavar="YEAR", help=N_("the asker's birth year (gives the 本命)")
    )
    parser.add_argument(
        "--sex", choices=[s.value for s in Sex], help=N_("the asker's sex (男 丙寅 順行, 女 壬申 逆行)")
    )
    parser.add_argument(
        "--age", type=int, metavar="N", help=N_("the asker's age in 세는나이 (with --sex: the 行年)")
    )
    add_school_options(parser)
    add_png_option(parser)
    parser.set_defaults(func=handler)
