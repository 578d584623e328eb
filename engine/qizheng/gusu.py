"""古宿: the 授時曆 二十八宿 widths of 《元史》卷54 laid out from the epoch 冬至 (spec §6 option).

Data: ``data/ancient_mansions.json`` (黃道宿度 and 赤道宿度 in 古度 with the text's quarter sums; 周天 365.2575).
Anchor: at the 授時 epoch (至元十八年 天正冬至) the 冬至 point was at 赤道箕十度. The 黃道 table was computed
for that epoch from the 赤道 one, so the 斗 boundary lies ``W赤(箕) − 10`` = 0.40 赤道度 past the 冬至; projected on
the ecliptic at the solstice (tan L = cos ε tan A, ε = 23.90 古度) that arc is 0.3667 黃道度 and the 冬至 sits at
黃道箕 9.59 − 0.3667 = 9.2233 古度. 古度 become degrees ×360/365.2575 (the tables close on 周天 365.2575).
The mansions are fixed to the stars: the chart carries them from the epoch to the date by general precession.
"""

from __future__ import annotations

import math
from functools import cache

from engine.qizheng import tables

FRAMES = ("ecliptic", "equatorial")
J2000 = 2451545.0


def gudu_to_degrees(gudu: float) -> float:
    return gudu * 360.0 / tables.zhoutian()


def degrees_to_gudu(degrees: float) -> float:
    return degrees * tables.zhoutian() / 360.0


def _anchor() -> dict[str, object]:
    anchor: dict[str, object] = tables.ancient_data()["anchor"]
    return anchor


def epoch_t_cent() -> float:
    """Julian centuries from J2000 of the epoch day (至元十八年 天正冬至, 1280-12-14 Julian, noon)."""
    return (float(str(_anchor()["epoch_jdn"])) - J2000) / 36525.0


def obliquity_gudu() -> float:
    """黃赤大距 of the 授時曆, 23.90 古度."""
    return float(str(_anchor()["obliquity"])) / tables.GUDU_UNIT


def solstice_projection(arc_gudu: float) -> float:
    """Ecliptic arc (古度) from the 冬至 to the hour circle ``arc_gudu`` 赤道度 from it: tan L = cos ε tan A."""
    a = math.radians(gudu_to_degrees(arc_gudu))
    eps = math.radians(gudu_to_degrees(obliquity_gudu()))
    return degrees_to_gudu(math.degrees(math.atan(math.cos(eps) * math.tan(a))))


@cache
def solstice_place(frame: str) -> tuple[str, float]:
    """(mansion, 古度 within it) of the epoch 冬至 in ``frame``: 赤道箕十度; on the ecliptic by projection."""
    sol = _anchor()["solstice_equatorial"]
    assert isinstance(sol, dict)
    name = str(sol["mansion"])
    eq_degree = int(sol["degree"]) / tables.GUDU_UNIT
    if frame == "equatorial":
        return name, eq_degree
    eq_width = dict(tables.ancient_widths("equatorial"))[name] / tables.GUDU_UNIT
    ecl_width = dict(tables.ancient_widths("ecliptic"))[name] / tables.GUDU_UNIT
    return name, ecl_width - solstice_projection(eq_width - eq_degree)


@cache
def epoch_starts(frame: str) -> tuple[tuple[str, float], ...]:
    """(mansion, start in degrees) at the epoch, the 冬至 at 270°: ecliptic longitude (or right ascension)."""
    widths = tables.ancient_widths(frame)
    starts: list[float] = []
    acc = 0
    for _, w in widths:
        starts.append(acc / tables.GUDU_UNIT)
        acc += w
    anchor_name, anchor_degree = solstice_place(frame)
    zero = starts[[n for n, _ in widths].index(anchor_name)] + anchor_degree
    return tuple(
        (n, (270.0 + gudu_to_degrees(s - zero)) % 360.0) for (n, _), s in zip(widths, starts, strict=True)
    )
