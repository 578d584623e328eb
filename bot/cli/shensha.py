"""``sikpan shensha``: the 神煞 of a day (seed 000 and the seed-002 tables), with month, year and hour keys.

    sikpan shensha 甲子 [--month 寅] [--year 甲辰] [--hour 午] [--json] [--lang ko|lzh]
                        [--option jiangxing_key=day …] [--tables] [--all-months] [--sources]

JSON contract (issue 4): ``{"day": "甲子", "month": "寅", "stars": [{"name": "天乙貴人", "value": ["丑", "未"],
"key": "day stem", "source": "000:… 「…」"}, …], "omitted": [{"name": …, "reason": "needs", "needs": ["year"]}]}``.
Human output goes through ``templates/cli/shensha.txt.j2`` (which includes ``templates/shensha/stars.txt.j2``).
"""

from __future__ import annotations

import argparse
from typing import Any

from bot.cli.common import add_common, emit_json, emit_text, parse_branch
from bot.i18n import N_, render
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.shensha import Options, ShenshaResult, evaluate, per_month, star, star_defs, value_json

#: Display order of the keys (the JSON "key" of each star).
KEY_ORDER = ("day stem", "day branch", "day", "month", "season", "hour", "year")

#: Seed-002 entries shown as the short 大六壬 summary (spec shensha.md §7), in this order; 大耗 is shown as 月破.
SUMMARY = (
    ("xunkong", "旬空"),
    ("yuejian", "月建"),
    ("dahao", "月破"),
    ("yuejiang", "月將"),
    ("ma", "馬"),
    ("taisui", "太歲"),
    ("day_vitality", "日支旺衰"),
    ("day_stage", "日支長生"),
    ("day_relative", "日支六親"),
)
TABLE_GROUPS = ("liuqin", "changsheng", "relation", "vitality")
HIDDEN_UNLESS_ALL = "gangkui"
SEASONS = "春夏秋冬"  # seed 000's four seasons: 寅卯辰 巳午未 申酉戌 亥子丑  # the ten 罡魁 generals that 「不司卦內吉凶」


def parse_day(text: str) -> GanZhi:
    t = text.strip().removesuffix("日")
    return GanZhi.parse(t)


def parse_month(text: str) -> Branch:
    """月建: a branch (寅), optionally with 月, or a month 干支 (丙寅)."""
    return parse_branch(text, "月", "error.shensha.bad_month")


def parse_year(text: str) -> GanZhi:
    t = text.strip().removesuffix("年")
    try:
        return GanZhi.parse(t)
    except EngineInputError:
        raise EngineInputError(
            "error.shensha.bad_year", f"year must be a 干支: {text!r}", value=text
        ) from None


def parse_hour(text: str) -> Branch:
    return parse_branch(text, "時", "error.shensha.bad_hour")


def parse_options(items: list[str] | None) -> Options:
    opts = Options()
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep:
            raise EngineInputError(
                "error.shensha.option_syntax", f"expected NAME=VALUE: {item!r}", value=item
            )
        opts = opts.with_option(name.strip(), value.strip())
    return opts


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("shensha", help=N_("神煞 of a day (seed 000, seed 002 tables)"))
    add_common(parser)
    parser.add_argument("day", metavar="DAY", help=N_("day 干支, e.g. 甲子"))
    parser.add_argument("--month", metavar="BRANCH", help=N_("月建 branch (寅 … 丑) or month 干支"))
    parser.add_argument("--year", metavar="GANZHI", help=N_("year 干支 (太歲 stars, 天官符)"))
    parser.add_argument("--hour", metavar="BRANCH", help=N_("hour branch (破軍 左輔 右弼)"))
    parser.add_argument(
        "--option", action="append", metavar="NAME=VALUE", help=N_("school option, e.g. jiangxing_key=day")
    )
    parser.add_argument("--tables", action="store_true", help=N_("also list the seed-002 tables in full"))
    parser.add_argument(
        "--all-months", action="store_true", help=N_("list the month stars for all twelve months")
    )
    parser.add_argument("--sources", action="store_true", help=N_("show the seed passage of each star"))
    parser.set_defaults(func=run)


def _star_row(hit_json: dict[str, Any], lang: str) -> dict[str, Any]:
    s = star(hit_json["id"])
    row = dict(hit_json)
    row["meaning"] = s.meaning[lang]
    row["nature"] = s.nature
    return row


def view(result: ShenshaResult, lang: str, *, tables: bool = False, show_all: bool = False) -> dict[str, Any]:
    """The template context of a result (``templates/shensha/stars.*.j2``); no prose, only data and meanings.

    ``stars``: the seed-000 stars (and 丁神) as JSON rows plus ``meaning`` (in ``lang``) and ``nature`` (吉/凶);
    ``groups``: the same rows grouped by key in KEY_ORDER; ``summary``: the seed-002 short list; ``tables``: the
    seed-002 tables when asked; ``omitted``: [{needs, names}] for missing inputs, ``inactive``/``unstated`` names.
    """
    rows: list[dict[str, Any]] = []
    table_rows: list[dict[str, Any]] = []
    by_id = {h.id: h for h in result.stars}
    for hit in result.stars:
        s = star(hit.id)
        if s.seed == "002" or s.group in ("summary", "general") or s.id == "taisui":
            if s.group in TABLE_GROUPS:
                table_rows.append(_star_row(hit.to_json(), lang))
            continue
        if s.group == HIDDEN_UNLESS_ALL and not s.mark and not show_all:
            continue
        rows.append(_star_row(hit.to_json(), lang))
    groups = []
    for key in KEY_ORDER:
        members = [r for r in rows if r["key"] == key]
        if members:
            groups.append({"key": key, "stars": members})
    summary = []
    for sid, name in SUMMARY:
        found = by_id.get(sid)
        if found is not None:
            summary.append({"name": name, "value": value_json(found.value)})
    needs: dict[tuple[str, ...], list[str]] = {}
    inactive: list[str] = []
    unstated: list[str] = []
    for o in result.omitted:
        s = star(o.id)
        if s.seed == "002" or (s.group == HIDDEN_UNLESS_ALL and not s.mark and not show_all):
            continue
        if o.reason == "needs":
            needs.setdefault(o.needs, []).append(o.name)
        elif o.reason == "inactive":
            inactive.append(o.name)
        elif o.reason == "unstated":
            unstated.append(o.name)
    return {
        "day": result.day.chars,
        "month": result.month.char if result.month is not None else None,
        "year": result.year.chars if result.year is not None else None,
        "hour": result.hour.char if result.hour is not None else None,
        "season": SEASONS[((result.month - Branch.YIN) % 12) // 3] if result.month is not None else None,
        "options": result.options.changed(),
        "stars": rows,
        "groups": groups,
        "summary": summary,
        "tables": table_rows if tables else [],
        "omitted": [{"needs": list(k), "names": v} for k, v in needs.items()],
        "inactive": inactive,
        "unstated": unstated,
    }


def month_table(day: GanZhi, year: GanZhi | None, hour: Branch | None, options: Options) -> dict[str, Any]:
    """Month and season stars for all twelve months (寅 … 丑): rows of 12 cells."""
    results = per_month(day, year, hour, options=options)
    months = list(results)
    rows = []
    for s in star_defs():
        if s.seed != "000" or (s.group == HIDDEN_UNLESS_ALL and not s.mark):
            continue
        hits = [results[m].get(s.id) for m in months]
        if not any(h is not None and h.key in ("month", "season") for h in hits):
            continue
        name = next(h.name for h in hits if h is not None)
        values = [value_json(h.value) if h is not None else None for h in hits]
        rows.append({"id": s.id, "name": name, "cells": values})
    return {"months": [m.char for m in months], "rows": rows}


def run(args: argparse.Namespace) -> int:
    day = parse_day(args.day)
    month = parse_month(args.month) if args.month else None
    year = parse_year(args.year) if args.year else None
    hour = parse_hour(args.hour) if args.hour else None
    options = parse_options(args.option)
    result = evaluate(day, month, year, hour, options=options)
    if args.json:
        out = result.to_json()
        if args.all_months and month is None:
            out["per_month"] = month_table(day, year, hour, options)
        emit_json(out)
        return 0
    context = view(result, args.lang, tables=args.tables, show_all=args.tables)
    context["show_sources"] = args.sources
    context["per_month"] = (
        month_table(day, year, hour, options) if args.all_months and month is None else None
    )
    emit_text(render("cli/shensha.txt.j2", args.lang, **context))
    return 0
