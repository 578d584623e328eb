"""限: 大限 (洞微 and its variants), 童限, 小限 and 流年 (spec/qizheng.md §9; seed 004 ¶17, ¶24, ¶37).

Pure functions of the 命宮, the options and ages; the rules and their sources are in ``data/rules.json``
(``daxian``, ``xiaoxian``, ``liunian``). ``engine.qizheng.natal`` puts them together for a date.

- 大限: sequence from 命宮 in branch-increasing order with the 洞微 years (spec §9; the seed's check
  「午命五旬外入亥限」: 午→未→申→酉→戌→亥 after 15+10+11+15+8 = 59 years). Variants: ``ancient`` (奴僕 男女 田宅
  5 years), ``mingdu`` (命限 = 10 + ⌊命度 in its palace / 3⌋ years, spec §9). 童限 (spec §9 「童限 9 or 10
  years」): the first 9 or 10 years of life precede the 大限, which then start at age 10 or 11; the seed and
  the spec name no palace for the 童限 years, so none is given.
- Age for the 大限 is continuous: 1 at birth plus the tropical years elapsed (the table runs 「from age 1」).
- 小限 and 流年 use the 立春 year: 虛歲 n = (立春 year of the date) − (立春 year of birth) + 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from engine.core.cycle import Branch, GanZhi
from engine.qizheng import tables
from engine.qizheng.options import DaxianTable, Tongxian

TROPICAL_YEAR_DAYS = 365.2422


@dataclass(frozen=True, slots=True)
class Daxian:
    house: str
    branch: Branch
    start_age: float
    end_age: float  # exclusive

    def to_json(self) -> dict[str, Any]:
        return {"house": self.house, "branch": self.branch.char, "from": self.start_age, "to": self.end_age}


def tongxian_years(tongxian: Tongxian) -> int:
    return {Tongxian.NONE: 0, Tongxian.NINE: 9, Tongxian.TEN: 10}[tongxian]


def ming_xian_years(palace_degree: float) -> float:
    """命限 length from 命度 (spec §9): 10 + ⌊degree of 命度 within its palace / 3⌋."""
    return 10.0 + float(int(palace_degree // 3.0))


def daxian_table(
    ming: Branch, ming_degree: float, table: DaxianTable, tongxian: Tongxian = Tongxian.NONE
) -> tuple[Daxian, ...]:
    """The twelve 大限 from 命宮 (branch +1 each), ages [from, to)."""
    ming_years = ming_xian_years(ming_degree) if table == DaxianTable.MINGDU else None
    return _daxian_table(ming, table, tongxian, ming_years)


@cache
def _daxian_table(
    ming: Branch, table: DaxianTable, tongxian: Tongxian, ming_years: float | None
) -> tuple[Daxian, ...]:
    """:func:`daxian_table` given the 命限 years (``mingdu`` only); built once for each of its few keys."""
    dx = tables.rules()["daxian"]
    years = {k: float(v) for k, v in dx["years"].items()}
    if table == DaxianTable.ANCIENT:
        years.update({k: float(v) for k, v in dx["years_ancient"].items()})
    if ming_years is not None:
        years["命宮"] = ming_years
    out = []
    age = 1.0 + tongxian_years(tongxian)
    for i, name in enumerate(dx["order"]):
        span = years[name]
        out.append(Daxian(name, ming.shift(i), age, age + span))
        age += span
    return tuple(out)


def daxian_at(table: tuple[Daxian, ...], age: float) -> Daxian | None:
    """The 大限 running at ``age``; None before the first (童限) or after the last."""
    return next((d for d in table if d.start_age <= age < d.end_age), None)


def age_at(jd_birth: float, jd_on: float) -> float:
    return 1.0 + (jd_on - jd_birth) / TROPICAL_YEAR_DAYS


def solar_year(civil_year: int, year: GanZhi) -> int:
    """The Gregorian number of the 立春 year whose 干支 is ``year``, for an instant in ``civil_year``."""
    return civil_year if (civil_year - 4) % 60 == year.index else civil_year - 1


def xiaoxian_branch(ming: Branch, xu_sui: int) -> Branch:
    """小限 (rules.json ``xiaoxian``): age 1 at 命宮, one palace a year in the order of the houses (branch −1)."""
    step = int(tables.rules()["xiaoxian"]["step"])
    return ming.shift(step * (xu_sui - 1))


@dataclass(frozen=True, slots=True)
class Liunian:
    year: GanZhi  # 流年太歲
    house: str  # natal house of the 太歲 palace
    tianma: str  # 天馬 star of the 流年 year branch (seed ¶13 list)
    tianma_palace: Branch  # where that star is on the date
    tianma_house: str
    yima: Branch  # 驛馬 of the 流年 year branch
    yima_house: str
    bodies: tuple[tuple[str, Branch, str], ...]  # 流年星: (body, palace on the date, natal house)

    def to_json(self) -> dict[str, Any]:
        return {
            "year": self.year.chars,
            "branch": self.year.branch.char,
            "house": self.house,
            "tianma": self.tianma,
            "tianma_palace": self.tianma_palace.char,
            "tianma_house": self.tianma_house,
            "yima": self.yima.char,
            "yima_house": self.yima_house,
            "bodies": {name: {"palace": b.char, "house": h} for name, b, h in self.bodies},
        }


@dataclass(frozen=True, slots=True)
class Xian:
    on: str  # ISO instant
    age: float
    xu_sui: int
    daxian: Daxian | None
    tongxian: bool  # inside the 童限 years (no palace given by the seed or the spec)
    xiaoxian: Branch
    xiaoxian_house: str
    liunian: Liunian
    sources: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "on": self.on,
            "age": round(self.age, 3),
            "xu_sui": self.xu_sui,
            "daxian": None if self.daxian is None else self.daxian.to_json(),
            "tongxian": self.tongxian,
            "xiaoxian": {"branch": self.xiaoxian.char, "house": self.xiaoxian_house, "xu_sui": self.xu_sui},
            "liunian": self.liunian.to_json(),
            "sources": dict(self.sources),
        }


def sources() -> dict[str, str]:
    r = tables.rules()
    return {
        "daxian": str(r["daxian"]["source"]),
        "xiaoxian": str(r["xiaoxian"]["source"]),
        "liunian": str(r["liunian"]["source"]),
    }
