"""``sikpan liuren table``: the whole 720-課 table (days 甲子…癸亥, 局 1…12), and the school-option flags
shared with ``sikpan cast``."""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.common import add_common, emit_json, emit_text
from bot.i18n import N_, render
from engine.core.cycle import all_ganzhi
from engine.liuren import Chart, Options, chart_for_ju


def add_school_options(parser: argparse.ArgumentParser) -> None:
    """The school options of spec/liuren.md §3–4 (defaults per spec): ``--gui-rule``, ``--shehai`` … one flag per
    ``Options`` field. Values are validated by ``Options.from_mapping`` (localized error, exit 2)."""
    group = parser.add_argument_group(N_("school options"))
    for name, values in Options.choices().items():
        group.add_argument("--" + name.replace("_", "-"), dest=name, metavar="|".join(values))


def options_from_args(args: argparse.Namespace) -> Options:
    values: dict[str, Any] = {}
    for name in Options.choices():
        value = getattr(args, name, None)
        if value is not None:
            values[name] = value
    return Options.from_mapping(values)


def table_charts(options: Options) -> list[Chart]:
    """All 720 課 in table order: days in cycle order, each with 局 1…12."""
    return [chart_for_ju(day, ju, options) for day in all_ganzhi() for ju in range(1, 13)]


def table_handler(args: argparse.Namespace) -> int:
    options = options_from_args(args)
    charts = table_charts(options)
    if args.json:
        for chart in charts:
            emit_json(chart.table_row(cast=False))
        return 0
    rows = [chart.table_row(cast=False) for chart in charts]
    emit_text(render("cli/liuren_table.txt.j2", args.lang, rows=rows, options=options.to_json()))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("liuren", help=N_("大六壬 reference tables"))
    sub = parser.add_subparsers(dest="liuren_command", required=True, parser_class=type(parser))
    table = sub.add_parser("table", help=N_("the 720 課 (day × 局): 四課, 三傳, method, 課體"))
    add_common(table)
    add_school_options(table)
    table.set_defaults(func=table_handler)
