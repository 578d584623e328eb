"""The 大六壬 picture: header, the classical 4 × 4 天地盤 board, the 三傳 and the 四課 panels.

The layout model (:class:`LiurenLayout`) says where each 地盤 branch's cell is and what stands in it (the
天盤 branch over it and the 天將 riding that branch), where each lesson and transmission is drawn; the scene is
built from that model only, so tests can check the model against the chart and the scene against the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from bot.images.labels import label, read
from bot.images.scene import Anchor, Box, Primitive, Scene, Segment, Text
from engine.core.cycle import Branch, GanZhi, hour_stem
from engine.liuren import Chart, General

WIDTH = 1080
HEIGHT = 1230
CELL = 165
BOARD_X, BOARD_Y = 30, 236
LESSONS_TOP = BOARD_Y + 4 * CELL + 70.0  # the 四課 panel
LESSON_WIDTH = (WIDTH - 60) / 4
HEADER_SIZE = 33
# where the header's lines stand, by their number: lzh's three from y = 100 every 44 px, ko's four closer
HEADER_ROWS = {3: (100, 44), 4: (94, 38)}

# 地盤 places of the square board (spec/liuren.md §1 as practitioners draw it, bot/cli/cast.py board_rows):
# 巳午未申 on top, 辰卯 down the left, 酉戌 down the right, 寅丑子亥 at the bottom; (column, row).
BOARD_PLACES: dict[Branch, tuple[int, int]] = {
    Branch.SI: (0, 0),
    Branch.WU: (1, 0),
    Branch.WEI: (2, 0),
    Branch.SHEN: (3, 0),
    Branch.CHEN: (0, 1),
    Branch.YOU: (3, 1),
    Branch.MAO: (0, 2),
    Branch.XU: (3, 2),
    Branch.YIN: (0, 3),
    Branch.CHOU: (1, 3),
    Branch.ZI: (2, 3),
    Branch.HAI: (3, 3),
}


@dataclass(frozen=True, slots=True)
class BoardCell:
    earth: Branch  # the fixed 地盤 branch of this place
    heaven: Branch  # the 天盤 branch over it
    general: General  # the 天將 riding that 天盤 branch
    empty: bool  # the 天盤 branch is 旬空
    column: int
    row: int
    x: float  # centre of the cell
    y: float
    ming: tuple[str, ...] = ()  # "benming" / "xingnian": the asker's 本命 / 行年 is this 地盤 branch


# The asker's 年命 a picture marks (issue 32 item 5): the 本命 and 行年 干支 (either may be None).
NianMing = tuple[GanZhi | None, GanZhi | None]


@dataclass(frozen=True, slots=True)
class LessonCell:
    number: int  # 1…4
    upper: str
    lower: str
    general: General
    empty: bool
    x: float


@dataclass(frozen=True, slots=True)
class TransmissionRow:
    index: int  # 0 初, 1 中, 2 末
    branch: Branch
    relative: str
    dun_stem: str | None
    general: General
    empty: bool
    y: float


@dataclass(frozen=True, slots=True)
class LiurenLayout:
    cells: tuple[BoardCell, ...]
    lessons: tuple[LessonCell, ...]
    transmissions: tuple[TransmissionRow, ...]
    header: tuple[str, ...]
    scene: Scene


def cell_centre(column: int, row: int) -> tuple[float, float]:
    return BOARD_X + CELL * column + CELL / 2, BOARD_Y + CELL * row + CELL / 2


def pillars(chart: Chart) -> tuple[tuple[str, str], ...]:
    """(label key, 干支) of the header: the four pillars when the chart has its instant, else day and hour."""
    hour = GanZhi.from_parts(hour_stem(chart.day.stem, chart.hour), chart.hour).chars
    if chart.moment is None:
        return (("day", chart.day.chars), ("hour", hour))
    m = chart.moment
    return (("year", m.year.chars), ("month", m.month.chars), ("day", chart.day.chars), ("hour", hour))


def header_lines(chart: Chart, lang: str, ming: NianMing = (None, None)) -> tuple[str, ...]:
    """The lines under the title: the pillars; 月將, 占時, 局; 晝夜 and the 貴人's way (and the asker's 年命);
    旬空 and the 課's names: three lines in lzh; four in ko, which gives each term as 한글(漢字) (docs/style.md)
    and so puts the four pillars on a line of their own and the 貴人 (with the 年命) on another."""
    pillar_text = "  ".join(label(lang, f"pillar.{key}", gz=read(gz, lang)) for key, gz in pillars(chart))
    facts = " · ".join(
        (
            label(lang, "liuren.month_general", b=read(chart.month_general.char, lang)),
            label(lang, "liuren.hour", b=read(chart.hour.char, lang)),
            label(lang, "liuren.ju", n=chart.ju),
        )
    )
    daynight = label(lang, "liuren.day" if chart.daytime else "liuren.night")
    gui = label(
        lang,
        "liuren.gui_forward" if chart.forward else "liuren.gui_backward",
        b=read(chart.guiren.char, lang),
        seat=read(chart.earth_of(chart.guiren).char, lang),
    )
    kong = label(lang, "xunkong", b=read("".join(b.char for b in chart.xunkong), lang))
    methods = " ".join(read(name, lang) for name in chart.method_names)
    benming, xingnian = ming
    if benming is not None and xingnian is not None:
        gui += " · " + label(
            lang, "liuren.nianming", benming=read(benming.chars, lang), xingnian=read(xingnian.chars, lang)
        )
    elif benming is not None:
        gui += " · " + label(lang, "liuren.benming_only", benming=read(benming.chars, lang))
    if lang == "lzh":
        return (f"{pillar_text} · {facts}", f"{daynight} · {gui}", f"{kong} · {methods}")
    return (pillar_text, f"{facts} · {daynight}", gui, f"{kong} · {methods}")


def board_cells(chart: Chart, ming: NianMing = (None, None)) -> tuple[BoardCell, ...]:
    out = []
    for earth, (col, row) in BOARD_PLACES.items():
        heaven = chart.heaven_over(earth)
        x, y = cell_centre(col, row)
        marks = tuple(
            name for name, gz in zip(("benming", "xingnian"), ming) if gz is not None and gz.branch is earth
        )
        out.append(
            BoardCell(earth, heaven, chart.general_on(heaven), heaven in chart.xunkong, col, row, x, y, marks)
        )
    return tuple(out)


def lesson_cells(chart: Chart) -> tuple[LessonCell, ...]:
    """四課 from right (一課) to left (四課), as the 課 is written."""
    out = []
    for i, (lesson, general) in enumerate(zip(chart.lessons, chart.lesson_generals)):
        x = WIDTH - 30 - LESSON_WIDTH * i - LESSON_WIDTH / 2
        out.append(
            LessonCell(
                i + 1,
                lesson.upper.char,
                lesson.lower.char,
                general,
                lesson.upper in chart.xunkong,
                x,
            )
        )
    return tuple(out)


TRANS_X0, TRANS_Y0, TRANS_ROW = 720, 318, 184


def transmission_rows(chart: Chart) -> tuple[TransmissionRow, ...]:
    return tuple(
        TransmissionRow(
            i,
            t.branch,
            t.relative,
            t.dun_stem.char if t.dun_stem is not None else None,
            t.general,
            t.is_empty,
            TRANS_Y0 + TRANS_ROW * i + TRANS_ROW / 2,
        )
        for i, t in enumerate(chart.transmissions)
    )


def _cell_frame(column: int, row: int) -> tuple[float, float]:
    """The top-left corner of a board cell."""
    x, y = cell_centre(column, row)
    return x - CELL / 2, y - CELL / 2


def _earth_text(earth: Branch, column: int, row: int) -> Text:
    x0, y0 = _cell_frame(column, row)
    return Text(x0 + CELL - 10, y0 + CELL - 22, earth.char, 30, "muted", Anchor.RM)


def _cell_items(cell: BoardCell, lang: str) -> list[Primitive]:
    """What a chart draws in a cell over its frame and 地盤 branch (:func:`static_items`): the 貴人's cell gold
    (its frame and 地盤 branch drawn again over the fill), the 天將 and the 天盤 branch."""
    x0, y0 = _cell_frame(cell.column, cell.row)
    items: list[Primitive] = []
    if cell.general is General.GUIREN:
        items.append(Box(x0, y0, x0 + CELL, y0 + CELL, fill="gold"))
    items.append(Text(cell.x, y0 + 30, cell.general.char, 32, "blue"))
    items.append(Text(cell.x, cell.y + 12, cell.heaven.char, 72, "red" if cell.empty else "ink", bold=True))
    if cell.general is General.GUIREN:
        items.append(_earth_text(cell.earth, cell.column, cell.row))
    for i, name in enumerate(cell.ming):  # the asker's 本命 / 行年 on this 地盤 branch, bottom left
        items.append(
            Text(x0 + 10, y0 + CELL - 22 - 30 * i, label(lang, f"liuren.{name}"), 24, "red", Anchor.LM)
        )
    return items


@cache
def static_items(lang: str) -> tuple[Primitive, ...]:
    """The part of every 大六壬 picture in ``lang`` that no chart changes (drawn once, ``Scene.base``): the
    board's cell frames and 地盤 branches, the legend in its centre, the 三傳 and 四課 panels with their
    headings and row labels. Nothing here overlaps a chart's text (:func:`_scene`)."""
    items: list[Primitive] = []
    for earth, (col, row) in BOARD_PLACES.items():
        x0, y0 = _cell_frame(col, row)
        items.append(Box(x0, y0, x0 + CELL, y0 + CELL))
        items.append(_earth_text(earth, col, row))
    # the centre of the board: how to read a cell
    cx, cy = BOARD_X + 2 * CELL, BOARD_Y + 2 * CELL
    items.append(Text(cx, cy - 70, label(lang, "liuren.legend.general"), 30, "blue"))
    items.append(Text(cx, cy - 10, label(lang, "liuren.legend.heaven"), 40, bold=True))
    items.append(Text(cx, cy + 50, label(lang, "liuren.legend.earth"), 30, "muted"))
    items.append(Text(cx, cy + 100, label(lang, "liuren.legend.gui"), 30, "ink"))
    # 三傳
    x0 = TRANS_X0
    items.append(Text(x0, BOARD_Y + 16, label(lang, "liuren.transmissions"), 38, anchor=Anchor.LM, bold=True))
    for key, x in (("relative", x0 + 115), ("dun", x0 + 185), ("general", x0 + 268)):
        items.append(Text(x, TRANS_Y0 - 20, label(lang, f"liuren.col.{key}"), 30, "muted"))
    for index in range(3):
        top: float = TRANS_Y0 + TRANS_ROW * index
        items.append(Box(x0, top + 6, WIDTH - 30, top + TRANS_ROW - 6, fill="panel"))
        items.append(Text(x0 + 42, top + TRANS_ROW / 2, label(lang, f"liuren.trans.{index}"), 30, "muted"))
    # 四課, 一課 on the right
    top = LESSONS_TOP
    items.append(Text(30, top - 30, label(lang, "liuren.lessons"), 38, anchor=Anchor.LM, bold=True))
    items.append(Box(30, top, WIDTH - 30, top + 250, fill="panel"))
    for k in range(1, 4):
        xk = 30 + LESSON_WIDTH * k
        items.append(Segment(xk, top, xk, top + 250, "rule", 2))
    for number in range(1, 5):
        lesson_x = WIDTH - 30 - LESSON_WIDTH * (number - 1) - LESSON_WIDTH / 2
        items.append(Text(lesson_x, top + 30, label(lang, f"liuren.lesson.{number}"), 30, "muted"))
    return tuple(items)


def _scene(
    chart: Chart,
    lang: str,
    header: tuple[str, ...],
    cells: tuple[BoardCell, ...],
    lessons: tuple[LessonCell, ...],
    rows: tuple[TransmissionRow, ...],
) -> Scene:
    items: list[Primitive] = [
        Text(
            30,
            40,
            label(lang, "liuren.title", day=read(chart.day.chars, lang), n=chart.ju),
            46,
            anchor=Anchor.LM,
            bold=True,
        )
    ]
    header_top, step = HEADER_ROWS[len(header)]
    for i, line in enumerate(header):
        items.append(Text(30, header_top + step * i, line, HEADER_SIZE, anchor=Anchor.LM))
    for cell in cells:
        items.extend(_cell_items(cell, lang))
    # 三傳
    x0 = TRANS_X0
    for row in rows:
        items.append(Text(x0 + 115, row.y, row.relative, 40))
        dun = row.dun_stem if row.dun_stem is not None else label(lang, "kong")
        items.append(Text(x0 + 185, row.y, dun, 40, "red" if row.dun_stem is None else "ink"))
        items.append(Text(x0 + 268, row.y - 56, row.general.char, 32, "blue"))
        items.append(
            Text(x0 + 268, row.y + 18, row.branch.char, 72, "red" if row.empty else "ink", bold=True)
        )
    # 四課
    top = LESSONS_TOP
    for lesson in lessons:
        items.append(Text(lesson.x, top + 78, lesson.general.char, 34, "blue"))
        items.append(Text(lesson.x, top + 140, lesson.upper, 64, "red" if lesson.empty else "ink", bold=True))
        items.append(Text(lesson.x, top + 212, lesson.lower, 64, bold=True))
    return Scene(WIDTH, HEIGHT, tuple(items), base=static_items(lang))


def layout(chart: Chart, lang: str, ming: NianMing = (None, None)) -> LiurenLayout:
    """The picture of a chart in ``lang``; ``ming`` the asker's 本命 and 行年, marked where they sit."""
    header = header_lines(chart, lang, ming)
    cells = board_cells(chart, ming)
    lessons = lesson_cells(chart)
    rows = transmission_rows(chart)
    return LiurenLayout(cells, lessons, rows, header, _scene(chart, lang, header, cells, lessons, rows))
