"""十二天將: the 貴人 by day stem and 晝/夜, and the running direction (spec/liuren.md §4)."""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.core.cycle import BRANCHES, Branch, GanZhi, Stem
from engine.datafiles import load_json
from engine.liuren.options import DayNight, GuiRule
from engine.liuren.types import General

# 貴人 over 地盤 亥子丑寅卯辰 → 順, over 巳午未申酉戌 → 逆.
_SHUN_SEATS = frozenset({Branch.HAI, Branch.ZI, Branch.CHOU, Branch.YIN, Branch.MAO, Branch.CHEN})


def _data() -> dict[str, Any]:
    data: dict[str, Any] = load_json("engine.liuren", "chart_gui.json")
    return data


@cache
def gui_table(rule: GuiRule) -> tuple[tuple[Branch, Branch], ...]:
    """(晝貴, 夜貴) per day stem 甲…癸 for a 貴人 rule.

    ``sanming`` is seed 000's 陽貴/陰貴, taken from the 神煞 engine (the project's one table of those stars);
    the 《六壬大全》 and kinliuren rows, which no 神煞 of the seeds gives, are data (chart_gui.json).
    """
    if rule is GuiRule.SANMING:
        return tuple(_sanming(s) for s in Stem)
    table = _data()["tables"][rule.value]["day_night"]
    return tuple((Branch.from_char(table[s.char][0]), Branch.from_char(table[s.char][1])) for s in Stem)


def _sanming(stem: Stem) -> tuple[Branch, Branch]:
    from engine.shensha import evaluate

    result = evaluate(GanZhi.from_parts(stem, Branch(stem % 2)))
    pair = []
    for name in ("陽貴", "陰貴"):
        hit = result.get(name)
        assert hit is not None and isinstance(hit.value, Branch), name
        pair.append(hit.value)
    return pair[0], pair[1]


def gui_source(rule: GuiRule) -> str:
    return str(_data()["tables"][rule.value]["source"])


def is_daytime_by_hour(hour: Branch, rule: DayNight) -> bool:
    """晝 by the 占時: 卯–申 (maoshen), 巳–戌 (sishu), 子–巳 (ziwu). ``sun`` needs the instant (see chart_at)."""
    if rule is DayNight.SISHU:
        return Branch.SI <= hour <= Branch.XU
    if rule is DayNight.ZIWU:
        return hour <= Branch.SI
    return Branch.MAO <= hour <= Branch.SHEN


def guiren_branch(stem: Stem, daytime: bool, rule: GuiRule) -> Branch:
    day, night = gui_table(rule)[stem]
    return day if daytime else night


@cache
def general_positions(gui: Branch, offset: int) -> tuple[General, ...]:
    """The general riding each 天盤 branch (index = heaven branch), given where the 貴人 rides."""
    seat = BRANCHES[(gui - offset) % 12]
    step = 1 if seat in _SHUN_SEATS else -1
    out: list[General] = [General.GUIREN] * 12
    for g in General:
        out[(gui + step * g) % 12] = g
    return tuple(out)


def runs_forward(gui: Branch, offset: int) -> bool:
    return BRANCHES[(gui - offset) % 12] in _SHUN_SEATS
