"""Place names → coordinates from the shipped city table ``data/cities.json`` (see its ``source``)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache

from engine.errors import EngineInputError
from engine.qizheng.tables import load


@dataclass(frozen=True, slots=True)
class Place:
    name: str  # English (GeoNames ASCII name)
    ko: str
    zh: str
    country: str
    lat: float
    lon: float
    tz: str


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold().replace(" ", "").replace("-", "")


@cache
def places() -> tuple[Place, ...]:
    data = load("cities.json")
    return tuple(
        Place(r["name"], r["ko"], r["zh"], r["country"], float(r["lat"]), float(r["lon"]), r["tz"])
        for r in data["cities"]
    )


@cache
def _index() -> dict[str, Place]:
    data = load("cities.json")
    index: dict[str, Place] = {}
    # Cities are stored by descending population: the first city to claim a name keeps it.
    for place, row in zip(places(), data["cities"]):
        for alias in [row["name"], row["ko"], row["zh"], *row.get("aliases", [])]:
            if alias:
                index.setdefault(_key(alias), place)
    # Then the everyday English names of the "… City" entries (New York, Jeju, Ho Chi Minh), where still free.
    for place in places():
        if place.name.endswith(" City"):
            index.setdefault(_key(place.name.removesuffix(" City")), place)
    return index


def find_place(name: str) -> Place:
    """Look a city up by its Korean, Chinese or English name (case- and space-insensitive)."""
    place = _index().get(_key(name))
    if place is None:
        raise EngineInputError("error.qizheng.unknown_place", f"unknown place: {name!r}", value=name)
    return place
