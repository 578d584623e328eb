"""四柱 (year, month, day, hour pillars), 月將 and 旬空 of an instant (spec/calendar.md §2).

- year: changes at the instant of 立春; month: at each 節 (五虎遁 stems); 月將: at each 中氣 — all from the
  UTC instant through the shipped term table.
- day: Julian Day Number of the local civil date, index (JDN + 49) mod 60; 子初換日 (the day advances at 23:00)
  by default, or at midnight with ``DayStart.MIDNIGHT``.
- hour: branch ((H + 1) // 2) mod 12 of the local hour H; stem by 五鼠遁 from the **23:00-convention** day
  stem in both conventions (so 23:00–24:00 is the next day's 子時).
- local clock: the wall clock of the given offset or zone, or local apparent / mean solar time for a longitude.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from engine.calendar.solar import SolarTime, solar_clock
from engine.calendar.terms import SolarTerm, _seconds, check_range, period_index, table
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError

JDN_OFFSET = 1721425  # date.toordinal() + JDN_OFFSET = Julian Day Number (proleptic Gregorian)


class DayStart(Enum):
    """When the day pillar advances: 子初換日 at 23:00 (default) or at midnight."""

    ZI_23 = "23:00"
    MIDNIGHT = "00:00"

    @classmethod
    def parse(cls, text: str) -> DayStart:
        for member in cls:
            if member.value == text.strip():
                return member
        raise EngineInputError(
            "error.calendar.bad_day_start", f"day start must be 23:00 or 00:00: {text!r}", value=text
        )


@dataclass(frozen=True, slots=True)
class Pillars:
    """四柱 of an instant with its 月將 and current term."""

    at: datetime  # the instant as given (aware)
    year: GanZhi
    month: GanZhi
    day: GanZhi
    hour: GanZhi
    month_general: Branch
    term: SolarTerm  # latest term at or before the instant
    local: datetime  # wall clock (or solar clock) used for day and hour
    day_starts: DayStart = DayStart.ZI_23
    solar_longitude: float | None = None
    solar_time: SolarTime | None = None

    @property
    def xunkong(self) -> tuple[Branch, Branch]:
        """旬空 of the day pillar as reported."""
        return self.day.xunkong

    @property
    def hour_branch(self) -> Branch:
        return self.hour.branch

    def to_json(self, at: str | None = None) -> dict[str, Any]:
        """The JSON contract of issue 2 (keys in this order); ``at`` defaults to the instant's ISO form."""
        return {
            "at": self.at.isoformat() if at is None else at,
            "year": self.year.chars,
            "month": self.month.chars,
            "day": self.day.chars,
            "hour": self.hour.chars,
            "month_general": self.month_general.char,
            "xunkong": [b.char for b in self.xunkong],
            "term": {"name": self.term.name, "at": self.term.at.strftime("%Y-%m-%dT%H:%M:%SZ")},
        }


def day_pillar(local: datetime, day_starts: DayStart = DayStart.ZI_23) -> GanZhi:
    """Day pillar of a wall-clock time (the date as shown; 23:00–24:00 counts as tomorrow under 子初換日)."""
    advance = 1 if day_starts is DayStart.ZI_23 and local.hour == 23 else 0
    return GanZhi.of(local.toordinal() + JDN_OFFSET + 49 + advance)


def hour_pillar(local: datetime) -> GanZhi:
    """Hour pillar of a wall-clock time: 五鼠遁 from the 23:00-convention day stem."""
    hour = local.hour
    branch = ((hour + 1) // 2) % 12
    day_stem = (local.toordinal() + JDN_OFFSET + 49 + (1 if hour == 23 else 0)) % 10
    stem = (2 * (day_stem % 5) + branch) % 10
    return GanZhi.of((6 * stem - 5 * branch) % 60)


def four_pillars(
    at: datetime,
    day_starts: DayStart = DayStart.ZI_23,
    solar_longitude: float | None = None,
    solar_time: SolarTime = SolarTime.APPARENT,
) -> Pillars:
    """四柱, 月將 and the current term of an aware instant (1900–2100 by its wall-clock year).

    ``solar_longitude`` (degrees, east positive) switches the day and hour pillars to local apparent solar time
    (``solar_time=SolarTime.APPARENT``, default) or local mean time (``SolarTime.MEAN``).
    Naive datetimes raise ``EngineInputError`` (``error.calendar.naive_time``); years outside 1900–2100 raise
    ``OutOfRangeError`` (``error.calendar.out_of_range``).
    """
    seconds = _seconds(at)
    check_range(at)
    period = table().periods[period_index(seconds)]
    if solar_longitude is None:
        local = at
        kind = None
    else:
        local = solar_clock(at, solar_longitude, solar_time)
        kind = solar_time
    hour = local.hour
    base = local.toordinal() + JDN_OFFSET + 49
    day23 = base + 1 if hour == 23 else base
    branch = ((hour + 1) // 2) % 12
    stem = (2 * (day23 % 5) + branch) % 10  # day23 % 10 % 5 == day23 % 5
    return Pillars(
        at,
        period.year,
        period.month,
        GanZhi.of(day23 if day_starts is DayStart.ZI_23 else base),
        GanZhi.of(6 * stem - 5 * branch),
        period.month_general,
        period.term,
        local,
        day_starts,
        solar_longitude,
        kind,
    )
