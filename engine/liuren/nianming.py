"""年命: the asker's 本命 (the 太歲 of the birth year) and 行年 (the year of life counted on the cycle).

Seed 002 reads 「干支三傳占時本命等處」 (002:23) and seed 003 weighs 「年命」 (003:19 「若更臨年命，主極怪極凶」,
003:111 「若得年命有吉神相助」), but the seeds do not say how the 行年 is counted. The rule here is the one
《六壬粹言》「行年第九」 calls 「正法」 (「行年之法，男起丙寅，女起壬申」) and 《三命通會》「論小運」 states for 小運
(「男起丙寅順行，女起壬申逆行」): a man is 丙寅 in his first year (一歲, the year he was born, as 세는나이 counts) and
moves forward one 干支 a year, a woman is 壬申 and moves backward. The texts live in ``data/nianming.json``.

Years are 立春 years (the year of the 太歲, as the year pillar): the birth year's 干支 is its 本命, the age is
the number of 立春 years from the birth year to the year asked, counting both (a child is one in the year of
its birth).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from engine.calendar.terms import period_at
from engine.core.cycle import GanZhi
from engine.datafiles import load_json
from engine.errors import EngineInputError

# The years the calendar tables cover (spec/calendar.md: 1900–2100), the birth years a 本命 is read for.
FIRST_YEAR, LAST_YEAR = 1900, 2100


class Sex(StrEnum):
    """The asker's sex, which sets where the 行年 starts and which way it runs."""

    MALE = "male"
    FEMALE = "female"


def data() -> Mapping[str, Any]:
    """The rule texts (ko, lzh) and their sources."""
    found: Mapping[str, Any] = load_json("engine.liuren", "nianming.json")
    return found


def year_ganzhi(year: int) -> GanZhi:
    """The 干支 of a 立春 year (1984 甲子), as the year pillar (spec/calendar.md)."""
    return GanZhi.of(year - 1984)


def lichun_year(at: datetime) -> int:
    """The 立春 year an aware instant falls in (before 立春 it is still the previous year)."""
    return period_at(at).lichun_year


def check_birth_year(year: int) -> int:
    if not FIRST_YEAR <= year <= LAST_YEAR:
        raise EngineInputError(
            "error.liuren.bad_birth_year", f"birth year {year} outside {FIRST_YEAR}–{LAST_YEAR}", value=year
        )
    return year


def age(birth_year: int, year: int) -> int:
    """세는나이 (虛歲) in ``year`` of one born in ``birth_year`` (both 立春 years): one in the birth year."""
    check_birth_year(birth_year)
    if year < birth_year:
        raise EngineInputError(
            "error.liuren.birth_after_cast", f"born {birth_year}, asked in {year}", value=birth_year
        )
    return year - birth_year + 1


def xingnian(years: int, sex: Sex | str) -> GanZhi:
    """The 行年 of one ``years`` old (세는나이, 1 = the birth year): 男 丙寅 forward, 女 壬申 backward."""
    if years < 1:
        raise EngineInputError("error.liuren.bad_age", f"age {years} < 1", value=years)
    rule = data()["xingnian"][Sex(sex).value]
    start = GanZhi.parse(str(rule["start"]))
    return GanZhi.of(start.index + int(rule["step"]) * (years - 1))


@dataclass(frozen=True, slots=True)
class NianMing:
    """The asker's 年命 in one year: the 本命 (always), the age and the 行年 (when the sex is known)."""

    birth_year: int
    year: int  # the 立春 year asked in
    benming: GanZhi
    age: int
    sex: Sex | None
    xingnian: GanZhi | None

    def to_json(self) -> dict[str, Any]:
        return {
            "birth_year": self.birth_year,
            "year": self.year,
            "benming": self.benming.chars,
            "age": self.age,
            "sex": self.sex.value if self.sex is not None else None,
            "xingnian": self.xingnian.chars if self.xingnian is not None else None,
        }


def nianming(birth_year: int, year: int, sex: Sex | str | None = None) -> NianMing:
    """本命 and 行年 of one born in ``birth_year`` asking in ``year`` (立春 years); no 行年 without the sex."""
    years = age(birth_year, year)
    kind = Sex(sex) if sex is not None else None
    walk = xingnian(years, kind) if kind is not None else None
    return NianMing(birth_year, year, year_ganzhi(birth_year), years, kind, walk)


__all__ = [
    "FIRST_YEAR",
    "LAST_YEAR",
    "NianMing",
    "Sex",
    "age",
    "check_birth_year",
    "data",
    "lichun_year",
    "nianming",
    "xingnian",
    "year_ganzhi",
]
