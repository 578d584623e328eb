"""Static tables of the chart, loaded once from ``data/rules.json`` and ``data/mansions.json``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from engine.core.cycle import Branch, Element, Stem

BODIES = ("太陽", "太陰", "水星", "金星", "火星", "木星", "土星", "羅睺", "計都", "月孛", "紫氣")
SEVEN = BODIES[:7]
FOUR_YU = BODIES[7:]
HOUSES = ("命宮", "財帛", "兄弟", "田宅", "男女", "奴僕", "妻妾", "疾厄", "遷移", "官祿", "福德", "相貌")
HUA_NAMES = ("祿", "暗", "福", "耗", "蔭", "貴", "刑", "印", "囚", "權")


@cache
def load(name: str) -> Any:
    text = resources.files("engine.qizheng").joinpath("data", name).read_text(encoding="utf-8")
    return json.loads(text)


def rules() -> Any:
    return load("rules.json")


@dataclass(frozen=True, slots=True)
class Mansion:
    index: int
    name: str
    lord: str  # 度主 (full body name)
    star: str  # 距星
    hip: int
    lon_j2000: float


@cache
def mansions(alternate_can: bool = False, alternate_kui: bool = False) -> tuple[Mansion, ...]:
    """The 28 mansions in order from 角 with the J2000 ecliptic longitude of their 距星."""
    data = load("mansions.json")
    lords = rules()["mansion_lords"]["七曜"]
    alts = {a["name"]: a for a in data["alternates"]}
    out = []
    for i, row in enumerate(data["mansions"]):
        use = row
        if row["name"] == "參" and alternate_can:
            use = alts["參"]
        if row["name"] == "奎" and alternate_kui:
            use = alts["奎"]
        out.append(
            Mansion(i, row["name"], lords[row["lord"]], use["star"], use["hip"], float(use["lon_j2000"]))
        )
    return tuple(out)


@cache
def palace_lord(branch: Branch) -> str:
    return str(rules()["palaces"]["lords"][branch.char])


@cache
def star_element(star: str) -> Element:
    return Element.from_char(rules()["star_elements"][star])


@cache
def star_homes(star: str) -> tuple[Branch, ...]:
    """Palaces where a body is 入垣 (seed 004 list; for the 四餘 the seed's 「正位」 list)."""
    pal = rules()["palaces"]
    if star in pal["yu_homes"]:
        return tuple(Branch.from_char(c) for c in pal["yu_homes"][star])
    return tuple(b for b in Branch if pal["lords"][b.char] == star)


def star_stem(star: str) -> Stem | None:
    for stem_char, name in rules()["hua_yao"]["star_stems"].items():
        if name == star:
            return Stem.from_char(stem_char)
    return None


def shishen(day: Stem, other: Stem) -> str:
    """十神 of ``other`` seen from ``day`` (the year stem here)."""
    same = day.is_yang == other.is_yang
    a, b = day.element, other.element
    if a == b:
        return "比肩" if same else "劫財"
    if a.generates(b):
        return "食神" if same else "傷官"
    if a.controls(b):
        return "偏財" if same else "正財"
    if b.controls(a):
        return "七殺" if same else "正官"
    return "偏印" if same else "正印"


def hua_yao_shishen(year_stem: Stem) -> dict[str, str]:
    """化 name → body by the 十神 of each body's stem relative to the year stem (spec §8, default)."""
    hy = rules()["hua_yao"]
    out: dict[str, str] = {}
    for stem_char, star in hy["star_stems"].items():
        out[hy["shishen_to_hua"][shishen(year_stem, Stem.from_char(stem_char))]] = star
    return {name: out[name] for name in HUA_NAMES}


def hua_yao_rotation(year_stem: Stem) -> dict[str, str]:
    """The rotation form: 「祿暗福耗蔭貴刑印囚權」 laid over 「火孛木金土月水炁計羅」 from the 化祿 star.

    Right for yang stems only (spec §8 trap); offered as a named non-default option.
    """
    hy = rules()["hua_yao"]
    stars = hy["rotation_stars"]
    lu_star = hy["star_stems"][year_stem.char]
    start = stars.index(lu_star)
    return {name: stars[(start + i) % 10] for i, name in enumerate(hy["rotation_names"])}
