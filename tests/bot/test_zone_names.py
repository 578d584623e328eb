"""The table of zone names (``locales/zones.json`` + the 七政 cities, :class:`bot.zones.ZoneIndex`, issue 34
item 4): the typed ``/tz`` and the autocomplete read the same names.

Expected values come from tzdata itself (an abbreviation is the zone's ``tzname`` in January or July, its
standard offset the smaller of the two offsets) and from the IANA ``zone.tab`` zone of each named city
(Seoul KR → Asia/Seoul, Shanghai CN → Asia/Shanghai, Busan KR → Asia/Seoul, New York US → America/New_York,
Kathmandu NP → Asia/Kathmandu, +05:45).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from bot.features.common import zone_index
from bot.zones import TABLE, fixed_zone, parse_offset, standard_offset, zone_names, zone_or_none

INSTANTS = (datetime(2026, 1, 15, 12, tzinfo=UTC), datetime(2026, 7, 15, 12, tzinfo=UTC))


def test_the_table_is_tzdata_s_zones_with_their_own_abbreviations_and_names_in_both_languages():
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    assert data["source"]
    for place in zone_names():
        zone = zone_or_none(place.zone)
        assert zone is not None, place.zone
        assert place.ko and place.lzh, place.zone
        names = {at.astimezone(zone).tzname() for at in INSTANTS}
        assert set(place.abbr) <= names, (place.zone, place.abbr, names)
        offsets = [at.astimezone(zone).utcoffset() for at in INSTANTS]
        assert standard_offset(place.zone) * 60 == min(o.total_seconds() for o in offsets if o is not None)


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("서울", "Asia/Seoul"),
        ("首爾", "Asia/Seoul"),
        ("Seoul", "Asia/Seoul"),
        ("asia/seoul", "Asia/Seoul"),
        ("KST", "Asia/Seoul"),
        ("대한민국", "Asia/Seoul"),
        ("부산", "Asia/Seoul"),  # a city of the 七政 table
        ("上海", "Asia/Shanghai"),
        ("상하이", "Asia/Shanghai"),
        ("뉴욕", "America/New_York"),
        ("미국 동부", "America/New_York"),
        ("UTC+9", "Etc/GMT-9"),
        ("GMT-5", "Etc/GMT+5"),
        ("+05:45", "Asia/Kathmandu"),
        ("Europe/Paris", "Europe/Paris"),
    ],
)
def test_find(typed, zone):
    assert zone_index().find(typed) == zone


@pytest.mark.parametrize("typed", ["Mars/Olympus", "America", "UTC+15", "UTC+9:75", "", "x" * 5000, "\ud800"])
def test_find_nothing(typed):
    assert zone_index().find(typed) is None


def test_offsets():
    assert [parse_offset(t) for t in ("UTC+9", "utc−3:30", "+0545", "GMT", "9")] == [
        540,
        -210,
        345,
        None,
        None,
    ]
    assert fixed_zone(540) == "Etc/GMT-9" and fixed_zone(0) == "Etc/GMT" and fixed_zone(330) is None


async def test_the_typed_tz_reads_the_table(say):
    for typed, zone in (("서울", "Asia/Seoul"), ("上海", "Asia/Shanghai"), ("미국 동부", "America/New_York")):
        answer = await say(f"/tz {typed}")
        assert answer.view == "tz" and answer.context["zone"] == zone
