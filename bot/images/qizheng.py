"""The 七政四餘 picture: header (birth data, pillars, 命宮/身宮, options), the wheel and a table of the bodies.

The wheel: ecliptic longitude runs counter-clockwise; the 子 palace is at the bottom and 午 at the top, as on
the 地盤 of the 大六壬 board. Screen angle (degrees, counter-clockwise from +x) of a longitude λ is
``λ − palace_offset − 45`` (the 子 palace, λ − A ∈ [300°, 330°), centred straight down). Rings from the
outside: the 28 宿 (boundaries at their 距星 of date, for the chart's mansion set), the 12 palaces (branch and
house name; 命宮 and 身宮 marked), the bodies (a tick at the exact longitude and the one-character name on the
same ray; bodies close together are moved inwards, never sideways), and the year in the centre.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from bot.images.glyphs import body_short
from bot.images.labels import label, message, read, wrap
from bot.images.scene import Anchor, Box, Circle, Primitive, Scene, Segment, Text, Wedge
from bot.msgids import msgid
from engine.core.cycle import Branch
from engine.qizheng import MansionSet, Place, QizhengChart
from engine.qizheng.chart import (
    equatorial_mansions,
    general_precession_arcsec,
    mean_obliquity,
    palace_start,
    shoushi_mansions,
)
from engine.qizheng.options import QizhengOptions
from engine.qizheng.tables import mansions

WIDTH = 1080
HEADER = 300
CX, CY = WIDTH / 2, HEADER + 505
R_OUTER, R_MANSION, R_PALACE, R_BODY = 500, 445, 318, 100
LABEL_RADII = (276, 226, 176, 126)
LABEL_GAP = 50  # minimum distance in px between two body labels
TABLE_TOP = CY + R_OUTER + 30
TABLE_ROW = 50
HEIGHT = int(TABLE_TOP + 6 * TABLE_ROW + 30)
# ko gives each cell of the table as 한글(漢字) (docs/style.md): one body a row, the eleven in one column
TABLE_ROWS = {"ko": 11, "lzh": 6}
TABLE_ROW_OF = {"ko": 44, "lzh": TABLE_ROW}


def height(lang: str) -> int:
    """The picture's height in ``lang`` (the ko table is one column of eleven rows)."""
    return int(TABLE_TOP + TABLE_ROWS[lang] * TABLE_ROW_OF[lang] + 30)


KEY_OPTIONS = ("palaces", "mansions", "naming", "ming")


def screen_angle(chart: QizhengChart, longitude: float) -> float:
    """Screen angle of an ecliptic longitude: λ − A − 45°, in [0, 360)."""
    return (longitude - chart.palace_offset - 45.0) % 360.0


def _point(angle: float, r: float) -> tuple[float, float]:
    a = math.radians(angle)
    return CX + r * math.cos(a), CY - r * math.sin(a)


@dataclass(frozen=True, slots=True)
class PalaceSector:
    branch: Branch
    house: str  # 命宮, 財帛 …
    start: float  # screen angle where the palace begins (its lowest longitude)
    end: float  # start + 30
    ming: bool
    shen: bool


@dataclass(frozen=True, slots=True)
class MansionSector:
    name: str
    longitude: float  # ecliptic longitude of date where the mansion begins
    start: float  # screen angle of that boundary
    label_angle: float  # where the name is written (spread so that narrow mansions stay legible)


@dataclass(frozen=True, slots=True)
class BodyMark:
    name: str
    short: str
    longitude: float
    angle: float  # screen angle of the longitude (the tick and the label lie on this ray)
    radius: float  # where the label is written
    retrograde: bool
    x: float
    y: float
    motion: str = "順"  # 順 逆 留 (Body.motion: 留 within the station window)

    @property
    def marked(self) -> bool:
        """逆 or 留 is written beside the name."""
        return self.motion != "順"


@dataclass(frozen=True, slots=True)
class QizhengLayout:
    palaces: tuple[PalaceSector, ...]
    mansions: tuple[MansionSector, ...]
    bodies: tuple[BodyMark, ...]
    header: tuple[str, ...]
    scene: Scene


def palace_screen_start(branch: Branch) -> float:
    """Screen angle where a palace begins, the same for every chart: λ − A − 45° of its first longitude
    ``palace_start(branch, A)`` = 30° k + A, so A drops out (the 子 palace centred straight down)."""
    return (palace_start(branch) - 45.0) % 360.0


def palace_sectors(chart: QizhengChart) -> tuple[PalaceSector, ...]:
    out = []
    for house in chart.houses:
        start = palace_screen_start(house.branch)
        out.append(
            PalaceSector(
                house.branch,
                house.name,
                start,
                start + 30.0,
                house.branch == chart.ming,
                house.branch == chart.shen,
            )
        )
    return tuple(sorted(out, key=lambda p: int(p.branch)))


def mansion_boundaries(chart: QizhengChart) -> tuple[tuple[str, float], ...]:
    """(name, longitude of date) where each of the 28 宿 begins: the 距星's J2000 longitude plus the general
    precession to the chart's date, for the chart's mansion set (as ``engine.qizheng.chart.mansion_of``).

    赤道宿度: the ecliptic point whose right ascension is the 距星's of date, λ = atan2(sin α, cos α cos ε).
    """
    mset = chart.options.mansions
    t_cent = ((chart.jd_tt or 2451545.0) - 2451545.0) / 36525.0
    if mset == MansionSet.EQUATORIAL:
        t_key = round(t_cent, 6)  # the key mansion_of uses
        eps = math.radians(mean_obliquity(t_key))
        bounds = []
        for m in equatorial_mansions(t_key):
            ra = math.radians(m.lon_j2000)
            bounds.append(
                (m.name, math.degrees(math.atan2(math.sin(ra), math.cos(ra) * math.cos(eps))) % 360.0)
            )
        return tuple(sorted(bounds, key=lambda m: m[1]))
    if mset == MansionSet.SHOUSHI:
        table = shoushi_mansions()
    else:
        table = mansions(mset == MansionSet.DELTA_ORI, mset == MansionSet.ETA_AND)
    shift = general_precession_arcsec(t_cent) / 3600.0
    return tuple(sorted(((m.name, (m.lon_j2000 + shift) % 360.0) for m in table), key=lambda m: m[1]))


def _spread(centres: list[float], min_gap: float) -> list[float]:
    """Angles moved apart (in order, around the circle) so that neighbours are at least ``min_gap`` apart."""
    n = len(centres)
    out = list(centres)
    for _ in range(50):
        moved = False
        for i in range(n):
            j = (i + 1) % n
            gap = (out[j] - out[i]) % 360.0
            if gap < min_gap:
                push = (min_gap - gap) / 2 + 0.01
                out[i] = (out[i] - push) % 360.0
                out[j] = (out[j] + push) % 360.0
                moved = True
        if not moved:
            break
    return out


def mansion_sectors(chart: QizhengChart) -> tuple[MansionSector, ...]:
    bounds = mansion_boundaries(chart)
    centres = []
    for i, (_name, lon) in enumerate(bounds):
        nxt = bounds[(i + 1) % len(bounds)][1]
        width = (nxt - lon) % 360.0
        centres.append(screen_angle(chart, lon + width / 2))
    labels = _spread(centres, 360.0 / 28 * 0.45)
    return tuple(
        MansionSector(name, lon, screen_angle(chart, lon), labels[i]) for i, (name, lon) in enumerate(bounds)
    )


RETRO_OFFSET = (32.0, 18.0)  # where 逆/留 is written, from the label's centre
MOTION_LABELS = {"逆": "qizheng.retrograde", "留": "qizheng.station"}


def _occupied(mark: BodyMark) -> list[tuple[float, float]]:
    points = [(mark.x, mark.y)]
    if mark.marked:
        points.append((mark.x + RETRO_OFFSET[0], mark.y + RETRO_OFFSET[1]))
    return points


def body_marks(chart: QizhengChart, lang: str) -> tuple[BodyMark, ...]:
    """One mark per body on the ray of its longitude, at the outermost label radius where neither the name
    nor its 逆 comes closer than LABEL_GAP to one already placed (bodies taken in order of longitude)."""
    placed: list[BodyMark] = []
    taken: list[tuple[float, float]] = []
    for body in sorted(chart.bodies.values(), key=lambda b: b.longitude):
        angle = screen_angle(chart, body.longitude)
        short = body_short(body.name, lang)
        candidates = [
            BodyMark(
                body.name, short, body.longitude, angle, r, body.retrograde, *_point(angle, r), body.motion
            )
            for r in LABEL_RADII
        ]
        mark = next(
            (
                m
                for m in candidates
                if all(math.hypot(x - tx, y - ty) >= LABEL_GAP for x, y in _occupied(m) for tx, ty in taken)
            ),
            candidates[-1],
        )
        placed.append(mark)
        taken.extend(_occupied(mark))
    return tuple(placed)


def _options_text(options: QizhengOptions, lang: str) -> str:
    data = options.to_json()
    default = QizhengOptions().to_json()
    keys = [k for k in data if k in KEY_OPTIONS or data[k] != default[k]]
    items = " · ".join(
        f"{message(lang, msgid('qizheng.opt', k))} {message(lang, msgid('qizheng.opt', f'{k}.{data[k]}'))}"
        for k in keys
    )
    return label(lang, "qizheng.options", items=items)


def header_lines(chart: QizhengChart, lang: str, place: Place | None) -> tuple[str, ...]:
    lines = []
    if chart.at is not None:
        offset = chart.at.strftime("%z")
        at = f"{chart.at.strftime('%Y-%m-%d %H:%M')} UTC{offset[:3]}:{offset[3:]}"
        lines.append(label(lang, "qizheng.birth", at=at))
    if chart.lon is not None:
        name = "" if place is None else (place.ko if lang == "ko" else place.zh)
        lat = "—" if chart.lat is None else f"{chart.lat:.2f}"
        lines.append(label(lang, "qizheng.place", name=name, lon=f"{chart.lon:.2f}", lat=lat).strip())
    pillars = label(
        lang,
        "qizheng.pillars",
        year=read(chart.year.chars, lang),
        month=read(chart.month.char, lang),
        hour=read(chart.hour.char, lang),
    )
    ming_shen = label(
        lang,
        "qizheng.ming_shen",
        ming=read(chart.ming.char, lang),
        mansion=chart.ming_mansion.name if lang == "lzh" else read(chart.ming_mansion.name + "宿", lang),
        du=f"{chart.ming_mansion.degree:.1f}",  # degrees past the 距星, as the text gives them
        shen=read(chart.shen.char, lang),
    )
    lines.extend(wrap(f"{pillars} · {ming_shen}", 30, WIDTH - 60))
    lines.extend(wrap(_options_text(chart.options, lang), 30, WIDTH - 60))
    return tuple(lines)


def _palace_rules(start: float) -> list[Primitive]:
    """The boundary of two palaces at screen angle ``start``: faint across the bodies' ring, rule across the
    palaces'."""
    x1, y1 = _point(start, R_MANSION)
    return [
        Segment(*_point(start, R_BODY), x1, y1, "faint", 2),
        Segment(*_point(start, R_PALACE), x1, y1, "rule", 3),
    ]


def _branch_text(branch: Branch, ming: bool) -> Text:
    mid = palace_screen_start(branch) + 15.0
    return Text(*_point(mid, 414), branch.char, 46, "red" if ming else "ink", bold=True)


BRANCHES = tuple(sorted(Branch, key=int))


@cache
def static_items(lang: str) -> tuple[Primitive, ...]:
    """The part of every 七政 picture in ``lang`` that no chart changes (drawn once, ``Scene.base``): the title,
    the wheel's rings, the palace boundaries, the centre's caption, the table's panel. A chart draws its
    命宮/身宮 wedges over it and then the rings and boundaries again (:func:`_wheel`), so the pixels are those
    of drawing it all in one pass."""
    items: list[Primitive] = [Text(30, 40, label(lang, "qizheng.title"), 46, anchor=Anchor.LM, bold=True)]
    items.append(Circle(CX, CY, R_OUTER, "rule", "paper", 3))
    items += _rings()
    items.append(Circle(CX, CY, R_BODY, "rule", None, 2))
    for branch in BRANCHES:
        items += _palace_rules(palace_screen_start(branch))
    items.append(Text(CX, CY + 28, label(lang, "qizheng.title"), 28, "muted"))
    bottom = TABLE_TOP + TABLE_ROWS[lang] * TABLE_ROW_OF[lang] + 10
    items.append(Box(30, TABLE_TOP - 10, WIDTH - 30, bottom, fill="panel"))
    return tuple(items)


def _rings() -> list[Primitive]:
    return [Circle(CX, CY, R_MANSION, "rule", None, 3), Circle(CX, CY, R_PALACE, "rule", None, 3)]


def _wheel(
    chart: QizhengChart,
    lang: str,
    palaces: tuple[PalaceSector, ...],
    ms: tuple[MansionSector, ...],
    bodies: tuple[BodyMark, ...],
) -> list[Primitive]:
    items: list[Primitive] = []
    for p in palaces:
        if p.ming or p.shen:
            items.append(Wedge(CX, CY, R_PALACE, R_MANSION, p.start, p.end, "gold" if p.ming else "faint"))
    # a wedge's edge lies on the two rings and under the boundaries: drawn again over it, in the base's order
    items += _rings()
    for branch in BRANCHES:
        items += _palace_rules(palace_screen_start(branch))
    for p in palaces:
        mid = p.start + 15.0
        # after the rings are drawn again: the branch's foot touches the 宿 ring
        items.append(_branch_text(p.branch, p.ming))
        items.append(Text(*_point(mid, 348), p.house, 30, "muted"))
        if p.ming or p.shen:
            key = "qizheng.ming" if p.ming else "qizheng.shen"
            items.append(Text(*_point(mid + 10.5, 414), label(lang, key), 30, "red", bold=True))
            if p.ming and p.shen:
                items.append(
                    Text(*_point(mid - 10.5, 414), label(lang, "qizheng.shen"), 30, "red", bold=True)
                )
    for m in ms:
        items.append(Segment(*_point(m.start, R_MANSION), *_point(m.start, R_OUTER), "rule", 2))
        items.append(Text(*_point(m.label_angle, 472), m.name, 32))
    ming_angle = screen_angle(chart, chart.ming_point)
    items.append(Segment(*_point(ming_angle, R_MANSION), *_point(ming_angle, R_OUTER), "red", 4))
    for b in bodies:
        items.append(Segment(*_point(b.angle, R_PALACE), *_point(b.angle, R_PALACE - 16), "ink", 4))
        items.append(Segment(*_point(b.angle, R_PALACE - 16), *_point(b.angle, b.radius + 24), "faint", 2))
        color = (
            "red"
            if b.name in ("太陽", "太陰")
            else "blue"
            if b.name in ("羅睺", "計都", "月孛", "紫氣")
            else "ink"
        )
        items.append(Text(b.x, b.y, b.short, 42, color, bold=True))
        if b.marked:
            mark = label(lang, MOTION_LABELS[b.motion])
            items.append(Text(b.x + RETRO_OFFSET[0], b.y + RETRO_OFFSET[1], mark, 30, "red", bold=True))
    items.append(Text(CX, CY - 22, chart.year.chars, 40, bold=True))
    return items


def _table(chart: QizhengChart, lang: str) -> list[Primitive]:
    items: list[Primitive] = []  # on the panel of static_items
    rows, row_height = TABLE_ROWS[lang], TABLE_ROW_OF[lang]
    for i, body in enumerate(chart.bodies.values()):
        col, row = divmod(i, rows)
        x = 50 + col * (WIDTH - 60) / 2
        y = TABLE_TOP + row * row_height + row_height / 2
        mansion = body.mansion if lang == "lzh" else read(body.mansion + "宿", lang)
        du = label(lang, "qizheng.mansion_du", mansion=mansion, du=f"{body.mansion_degree:.1f}")
        text = f"{read(body.name, lang)} {read(body.palace.char, lang)} {body.palace_degree:4.1f}° · {du}"
        items.append(Text(x, y, text, 30, anchor=Anchor.LM))
        if body.motion != "順":
            mark_x = x + (430 if lang == "lzh" else 600)
            items.append(Text(mark_x, y, label(lang, MOTION_LABELS[body.motion]), 30, "red", Anchor.LM))
    return items


def layout(chart: QizhengChart, lang: str, place: Place | None = None) -> QizhengLayout:
    header = header_lines(chart, lang, place)
    palaces = palace_sectors(chart)
    ms = mansion_sectors(chart)
    bodies = body_marks(chart, lang)
    items: list[Primitive] = []
    spacing = 40 if len(header) <= 5 else 38  # six lines end above the wheel
    for i, line in enumerate(header):
        items.append(Text(30, 96 + spacing * i, line, 30, anchor=Anchor.LM))
    items += _wheel(chart, lang, palaces, ms, bodies)
    items += _table(chart, lang)
    scene = Scene(WIDTH, height(lang), tuple(items), base=static_items(lang))
    return QizhengLayout(palaces, ms, bodies, header, scene)
