"""Static tables of the chart, loaded once from ``data/rules.json`` and ``data/mansions.json``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.core.cycle import Branch, Element, GanZhi, Stem
from engine.core.relations import Kin
from engine.datafiles import load_json

BODIES = ("太陽", "太陰", "水星", "金星", "火星", "木星", "土星", "羅睺", "計都", "月孛", "紫氣")
SEVEN = BODIES[:7]
FOUR_YU = BODIES[7:]
HOUSES = ("命宮", "財帛", "兄弟", "田宅", "男女", "奴僕", "妻妾", "疾厄", "遷移", "官祿", "福德", "相貌")
HUA_NAMES = ("祿", "暗", "福", "耗", "蔭", "貴", "刑", "印", "囚", "權")


def load(name: str) -> Any:
    return load_json("engine.qizheng", name)


def rules() -> Any:
    return load("rules.json")


@cache
def yutang(stem: Stem) -> tuple[Branch, ...]:
    """玉堂 = 天乙貴人 of the year stem (spec §8), from the 神煞 engine: seed 000 陽貴 ∪ 陰貴."""
    from engine.shensha import evaluate

    hit = evaluate(GanZhi.from_parts(stem, Branch(stem % 2))).get("天乙貴人")
    assert hit is not None and isinstance(hit.value, tuple)
    return tuple(b for b in hit.value if isinstance(b, Branch))


@cache
def yutang_row() -> str:
    """The 玉堂 row in force, echoed in the output: stems sharing their 貴人 grouped (甲戊庚丑未 乙己子申 …)."""
    groups: dict[tuple[Branch, ...], str] = {}
    for s in Stem:
        groups[yutang(s)] = groups.get(yutang(s), "") + s.char
    return " ".join(stems + "".join(b.char for b in bs) for bs, stems in groups.items())


@dataclass(frozen=True, slots=True)
class Mansion:
    index: int
    name: str
    lord: str  # 度主 (full body name)
    star: str  # 距星
    hip: int
    lon_j2000: float
    lat_j2000: float = 0.0


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
            Mansion(
                i,
                row["name"],
                lords[row["lord"]],
                use["star"],
                use["hip"],
                float(use["lon_j2000"]),
                float(use["lat_j2000"]),
            )
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


# 十神: the 五行 relation (core Kin) split by 陰陽 — (same polarity, opposite polarity)
_SHISHEN = {
    Kin.SAME: ("比肩", "劫財"),
    Kin.CHILD: ("食神", "傷官"),
    Kin.VICTIM: ("偏財", "正財"),
    Kin.MASTER: ("七殺", "正官"),
    Kin.MOTHER: ("偏印", "正印"),
}


def shishen(day: Stem, other: Stem) -> str:
    """十神 of ``other`` seen from ``day`` (the year stem here)."""
    same, opposite = _SHISHEN[Kin.of(day.element, other.element)]
    return same if day.is_yang == other.is_yang else opposite


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


# ---- 古宿: the 授時曆 widths (data/ancient_mansions.json, 《元史》卷54 步日躔) -------------------------------

GUDU_UNIT = 10000  # the data's integer unit: 1/10000 古度 (分 = 1/100 度, 秒 = 1/100 分)


def ancient_data() -> Any:
    return load("ancient_mansions.json")


@cache
def ancient_widths(frame: str) -> tuple[tuple[str, int], ...]:
    """(mansion, width in 1/10000 古度) from 角, for ``frame`` "ecliptic" (黃道宿度) or "equatorial" (赤道宿度)."""
    return tuple((str(row["name"]), int(row[frame])) for row in ancient_data()["mansions"])


def zhoutian() -> float:
    """周天 in 古度 (365.2575): the widths of either table sum to it."""
    return int(ancient_data()["zhoutian"]) / GUDU_UNIT
