"""``bot.features.liuyao.command.liuyao_view`` reads the view off the reading's objects (issue #18): for every cast (the
4096 of six lines 6/7/8/9), on days of every branch and stem and in months of every branch, with and without a
用神, it equals the view built from the reading's JSON contract (``Reading.to_json``), as it was built before —
value, types and key order (a reply is read back from its JSON, a daily reading renders the view as it is).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from bot.features.liuyao.command import liuyao_view, verdict_view
from engine.core.cycle import Branch, GanZhi
from engine.liuyao import Reading, build, cast_manual
from engine.liuyao.chart import Options


def view_from_json(chart: Reading) -> dict[str, Any]:
    """The view as it was built before issue #18: from the reading's whole JSON contract."""
    data = chart.to_json()
    lines: list[dict[str, Any]] = []
    for ln, an in zip(reversed(data["lines"]), reversed(data["analysis"]), strict=True):
        changed = ln.get("changed")
        lines.append(
            {
                "line": ln["line"],
                "yang": ln["yang"],
                "moving": ln["moving"],
                "ganzhi": ln["ganzhi"],
                "relative": ln["relative"],
                "spirit": ln["spirit"],
                "shi": ln["shi"],
                "ying": ln["ying"],
                "empty": ln.get("empty", False),
                "month_break": ln.get("month_break", False),
                "vitality": ln.get("vitality"),
                "changed": (
                    {"ganzhi": changed["ganzhi"], "relative": changed["relative"]} if changed else None
                ),
                "hidden": [
                    {"ganzhi": h.get("ganzhi"), "relative": h.get("relative")} for h in ln.get("hidden", [])
                ],
                "marks": list(an.get("stars", [])),
                "strength": list(an["strength"]["tags"]),
                "strong": bool(an["strength"]["strong"]),
                "transforms": list(an.get("transforms", [])),
            }
        )
    main, changed_hex = data["main"], data.get("changed")
    verdict, judgments = verdict_view(data)
    return {
        "main": {"name": main["name"], "palace": main["palace"], "stage": main["stage"]},
        "changed": (
            {"name": changed_hex["name"], "palace": changed_hex["palace"], "stage": changed_hex["stage"]}
            if changed_hex
            else None
        ),
        "month": data["month"],
        "day": data["day"],
        "xunkong": data["xunkong"],
        "flags": data.get("flags", []),
        "lines": lines,
        "use": data.get("use"),
        "judgments": judgments,
        "verdict": verdict,
        "options": data.get("options", {}),
        "cast": data["cast"],
    }


def same(a: Any, b: Any) -> bool:
    """Equal, of the same types all the way down, dicts with their keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


DAYS = [
    GanZhi.parse(d)
    for d in ("甲子", "乙丑", "丙寅", "丁卯", "戊辰", "己巳", "庚午", "辛未", "壬申", "癸酉", "甲戌", "乙亥")
]


@pytest.mark.parametrize("use", [None, "官鬼", "世", "妻財"])
def test_the_view_of_every_cast_is_the_one_built_from_the_json_contract(use):
    casts = ["".join(d) for d in itertools.product("6789", repeat=6)]
    for i, digits in enumerate(casts):
        day = DAYS[i % len(DAYS)]
        month = Branch((i // len(DAYS)) % 12)
        reading = build(cast_manual(digits), month, day, use=use)
        assert same(liuyao_view(reading), view_from_json(reading)), (digits, day.chars, month.char, use)


def test_options_and_categories_too():
    for digits, options, use in (
        ("789678", Options(), "疾病"),
        ("696969", Options(), "求財"),
        ("987698", Options(), "父母"),
    ):
        for day in DAYS:
            reading = build(cast_manual(digits), Branch.WU, day, use=use, options=options)
            assert same(liuyao_view(reading), view_from_json(reading)), (digits, day.chars, use)
