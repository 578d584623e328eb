"""Calendar: 節氣 instants, 四柱, 月將, 旬空, time zones and solar time (spec/calendar.md)."""

from engine.calendar.pillars import DayStart, Pillars, day_pillar, four_pillars, hour_pillar
from engine.calendar.solar import SolarTime, equation_of_time, solar_clock
from engine.calendar.terms import (
    FIRST_YEAR,
    LAST_YEAR,
    TERM_NAMES,
    SolarTerm,
    latest_term,
    metadata,
    month_general,
    month_general_name,
    next_term,
    normalize_term_name,
    solar_terms,
)
from engine.calendar.zones import DEFAULT_ZONE, resolve_local, zone

__all__ = [
    "DEFAULT_ZONE",
    "FIRST_YEAR",
    "LAST_YEAR",
    "TERM_NAMES",
    "DayStart",
    "Pillars",
    "SolarTerm",
    "SolarTime",
    "day_pillar",
    "equation_of_time",
    "four_pillars",
    "hour_pillar",
    "latest_term",
    "metadata",
    "month_general",
    "month_general_name",
    "next_term",
    "normalize_term_name",
    "resolve_local",
    "solar_clock",
    "solar_terms",
    "zone",
]
