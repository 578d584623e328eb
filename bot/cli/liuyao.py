"""``sikpan liuyao``: cast a 六爻 chart (coins, six digits, recorded tosses or 梅花 time) and show it with the
seed-000 judgments; ``sikpan liuyao table`` lists the 64 卦 (issue 5 JSON contract).

    sikpan liuyao --coins 797979 --month 寅 --day 戊戌 [--use 官鬼] [--json]
    sikpan liuyao --at 2024-02-04T16:27:08+08:00          # 梅花 time cast, month/day from the calendar
    sikpan liuyao --random [--at ISO | --month … --day …]  # three coins with the secrets RNG
    sikpan liuyao table --json
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from bot.cli.common import UsageError, add_common, emit_json, emit_text, parse_branch, parse_instant
from bot.cli.png import add_png_option, write_png
from bot.i18n import render
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuyao import (
    Cast,
    ChangedRelatives,
    Options,
    build,
    cast_coins,
    cast_manual,
    cast_time,
    cast_tosses,
    hexagram_table,
)


def parse_month(text: str) -> Branch:
    """月建 as a branch (寅) or a month 干支 (丙寅)."""
    return parse_branch(text, "月")


def parse_tosses(text: str) -> Cast:
    """``322,233,…`` (six groups of three coins 2/3, bottom line first)."""
    groups = [g for g in text.replace(" ", ",").split(",") if g]
    try:
        rows = [[int(ch) for ch in g] for g in groups]
    except ValueError:
        raise EngineInputError("error.liuyao.bad_tosses", f"bad tosses {text!r}", value=text) from None
    return cast_tosses(rows)


def _options(args: argparse.Namespace) -> Options:
    try:
        changed = ChangedRelatives(args.changed_relatives)
    except ValueError:
        raise EngineInputError(
            "error.liuyao.bad_option",
            f"bad --changed-relatives {args.changed_relatives!r}",
            value=args.changed_relatives,
        ) from None
    return Options(
        changed_relatives=changed,
        earth_changsheng=Branch.from_char(args.earth_changsheng.strip()),
        allow_static=args.allow_static,
    )


def _day_starts(text: str | None) -> Any:
    from engine.calendar import DayStart

    return DayStart.parse(text) if text else DayStart.ZI_23


def chart_handler(args: argparse.Namespace) -> int:
    sources = [x for x in (args.coins, args.tosses) if x is not None] + ([True] if args.random else [])
    if len(sources) > 1:
        raise UsageError("error.liuyao.one_method")
    options = _options(args)
    at = parse_instant(args.at) if args.at else None
    pillars = None
    if at is not None or args.month is None or args.day is None:
        from engine.calendar import four_pillars

        pillars = four_pillars(at or datetime.now(UTC), day_starts=_day_starts(args.day_starts))
    if args.coins is not None:
        cast = cast_manual(args.coins)
    elif args.tosses is not None:
        cast = parse_tosses(args.tosses)
    elif args.random:
        cast = cast_coins()
    elif at is not None:
        cast = cast_time(at, day_starts=_day_starts(args.day_starts))
    else:
        raise UsageError("error.liuyao.no_method")
    month = parse_month(args.month) if args.month is not None else None
    day = GanZhi.parse(args.day) if args.day is not None else None
    if month is None or day is None:
        assert pillars is not None
        month = month if month is not None else pillars.month.branch
        day = day if day is not None else pillars.day
    chart = build(cast, month, day, use=args.use, options=options)
    if args.png is not None:
        from bot.images import render_liuyao

        write_png(args.png, render_liuyao(chart, args.lang))
    data = chart.to_json()
    if args.json:
        emit_json(data)
        return 0
    emit_text(render("cli/liuyao.txt.j2", args.lang, c=data))
    return 0


def table_handler(args: argparse.Namespace) -> int:
    rows = [h.to_json() for h in hexagram_table()]
    if args.json:
        for row in rows:
            emit_json(row)
        return 0
    emit_text(render("cli/liuyao_table.txt.j2", args.lang, rows=rows))
    return 0


def handler(args: argparse.Namespace) -> int:
    if args.what == "table":
        return table_handler(args)
    return chart_handler(args)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("liuyao", help="六爻 納甲 chart and the judgments of 《易冒》")
    parser.add_argument("what", nargs="?", choices=("table",), help="table: the 64 卦 with 納甲, 世應, 伏神")
    add_common(parser)
    parser.add_argument("--coins", metavar="797979", help="six digits 6/7/8/9, bottom line first")
    parser.add_argument("--tosses", metavar="322,233,…", help="replay recorded coin tosses (2/3 per coin)")
    parser.add_argument("--random", action="store_true", help="toss three coins with the secrets RNG")
    parser.add_argument("--at", metavar="ISO", help="instant with UTC offset: 梅花 time cast / month and day")
    parser.add_argument("--month", metavar="寅", help="月建 branch")
    parser.add_argument("--day", metavar="戊戌", help="day 干支")
    parser.add_argument("--use", metavar="官鬼", help="用神: a 六親 or a question category")
    parser.add_argument("--day-starts", metavar="23:00|00:00", default=None)
    parser.add_argument("--changed-relatives", default="palace", metavar="palace|own_palace")
    parser.add_argument("--earth-changsheng", default="申", metavar="申|寅")
    parser.add_argument("--allow-static", action="store_true", help="局會: count static lines")
    add_png_option(parser)
    parser.set_defaults(func=handler)
