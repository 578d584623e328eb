"""The 六爻 picture: the six lines of the 本卦 drawn as bars from the bottom up (line 1 lowest), moving lines
marked ○ (老陽 9) / × (老陰 6), the 變卦 beside them, and columns for 六神, 伏神, 六親 with 納甲, 世/應.

The layout model (:class:`LiuyaoLayout`) has one :class:`LineRow` per line with its height on the picture;
tests check rows against the chart (order bottom-up, yin/yang, moving marks, 世應, 變爻) and the scene
against the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from bot.i18n import term
from bot.images.labels import label
from bot.images.labels import read as _read
from bot.images.scene import TEXTS_KEPT, Anchor, Box, Primitive, Scene, Segment, Text, kept_text
from engine.liuyao import Hexagram, LiuyaoChart

WIDTH = 1080
ROW = 112
ROWS_TOP = 280
HEIGHT = ROWS_TOP + 6 * ROW + 120
BAR = (455, 655)  # 本卦 bar, x from … to
CHANGED_BAR = (795, 935)
BAR_THICK = 28
YIN_GAP = 44
BARS_KEPT = 128
READING = 21  # the size of a cell's 한글 under its characters (ko)
TITLE = {"ko": 38, "lzh": 46}  # the ko title gives each hexagram's name as 한글(漢字)
MOVING_MARK = {True: "○", False: "×"}  # 老陽 (9) ○, 老陰 (6) × (spec/liuyao.md §1)


@dataclass(frozen=True, slots=True)
class LineRow:
    position: int  # 1 = bottom line
    y: float  # centre of the row on the picture
    yang: bool
    moving: bool
    mark: str | None  # ○ / × on a moving line
    spirit: str
    relative: str
    ganzhi: str
    element: str
    shi: bool
    ying: bool
    hidden: tuple[tuple[str, str], ...]  # (六親, 干支) of each 伏神 under this line
    changed_yang: bool | None  # the 變卦's line at this position (None without a 變卦)
    changed: tuple[str, str] | None  # (六親, 干支) of the 變爻 on a moving line
    use: bool = False  # the 用神 (``--use``) is this visible line
    hidden_use: bool = False  # the 用神 is the 伏神 under this line


@dataclass(frozen=True, slots=True)
class LiuyaoLayout:
    rows: tuple[LineRow, ...]  # line 1 … line 6
    title: str
    header: tuple[str, ...]
    scene: Scene


def row_y(position: int) -> float:
    """Line 6 at the top, line 1 at the bottom."""
    return ROWS_TOP + (6 - position) * ROW + ROW / 2


def line_rows(chart: LiuyaoChart) -> tuple[LineRow, ...]:
    bits = chart.changed.bits if chart.changed is not None else None
    use_lines = chart.use.lines if chart.use is not None else ()
    use_hidden = chart.use.hidden if chart.use is not None else ()
    rows = []
    for line in chart.lines:
        changed = line.changed
        rows.append(
            LineRow(
                position=line.position,
                y=row_y(line.position),
                yang=line.yang,
                moving=line.moving,
                mark=MOVING_MARK[line.yang] if line.moving else None,
                spirit=line.spirit.char,
                relative=line.relative.char,
                ganzhi=line.ganzhi.chars,
                element=line.element.char,
                shi=line.shi,
                ying=line.ying,
                hidden=tuple((h.hidden.relative.char, h.hidden.ganzhi.chars) for h in line.hidden),
                changed_yang=None if bits is None else bits[line.position - 1] == "1",
                changed=None if changed is None else (changed.relative.char, changed.ganzhi.chars),
                use=line.position in use_lines,
                hidden_use=line.position in use_hidden,
            )
        )
    return tuple(rows)


def _reading(chars: str, lang: str) -> str | None:
    """The 한글 of a table cell's characters on a ko picture, drawn small under them (a cell has no room for
    한글(漢字) on one line; docs/style.md); None in lzh, or where the characters have no reading."""
    if lang == "lzh":
        return None
    reading = " ".join(term(lang, part) for part in chars.split(" "))
    return None if reading == chars else reading


@lru_cache(maxsize=TEXTS_KEPT)
def _ruby(x: float, y: float, chars: str, lang: str, size: int = READING) -> tuple[Primitive, ...]:
    """The reading of ``chars`` (centred on ``x``) under the cell's characters, as :func:`_reading` gives it.
    Kept by its arguments, like the texts it makes (``kept_text``): the readings of a picture's ≈ 26 cells
    were ≈ 40 % of a ko picture's layout (≈ 7,500 ``term`` calls over 200 pictures; a new ko 六爻 picture's
    layout, best of 7 × 300: 0.26–0.28 → 0.20–0.23 ms; lzh, which has no readings, unchanged): 1 line."""
    reading = _reading(chars, lang)
    return () if reading is None else (kept_text(x, y, reading, size, "muted"),)


def _short(h: Hexagram, lang: str) -> str:
    """A hexagram's short name over its bars: 乾 in lzh; 건(乾) in ko, read as a word of its own (이(離), 여(旅))."""
    return h.short if lang == "lzh" else f"{h.short_ko}({h.short})"


def _palace(h: Hexagram, lang: str) -> str:
    """乾宮本宮 in lzh; 건궁(乾宮) 본궁(本宮) in ko."""
    if lang == "lzh":
        return label(lang, "liuyao.palace", palace=h.palace.char, stage=h.stage.char)
    return label(
        lang, "liuyao.palace", palace=_read(h.palace.char + "宮", lang), stage=_read(h.stage.char, lang)
    )


def header_lines(chart: LiuyaoChart, lang: str) -> tuple[str, tuple[str, ...]]:
    title = f"{label(lang, 'liuyao.title')}  {_read(chart.main.name, lang)}"
    if chart.changed is not None:
        title += f" → {_read(chart.changed.name, lang)}"
    line1 = " · ".join(
        (
            label(lang, "liuyao.month", b=_read(chart.month.char, lang)),
            label(lang, "liuyao.day", gz=_read(chart.day.chars, lang)),
            label(lang, "xunkong", b=_read("".join(b.char for b in chart.xunkong), lang)),
        )
    )
    if chart.use is not None:
        line1 += " · " + label(lang, "liuyao.use", rel=_read(chart.use.relative.char, lang))
    # the flags (六沖卦 …) close the first line: the second, both hexagrams' palaces, is the longer one
    line1 = " · ".join((line1, *(_read(f, lang) for f in chart.flags)))
    parts = [f"{label(lang, 'liuyao.main')} {_palace(chart.main, lang)}"]
    if chart.changed is not None:
        parts.append(f"{label(lang, 'liuyao.changed')} {_palace(chart.changed, lang)}")
    else:
        parts.append(label(lang, "liuyao.static"))
    return title, (line1, " · ".join(parts))


@lru_cache(maxsize=BARS_KEPT)
def _bar(x0: float, x1: float, y: float, yang: bool, color: str) -> tuple[Primitive, ...]:
    """A line's bar (yang) or two (yin), built once: 2 bars × 6 rows × 2 kinds × 3 colours are drawn."""
    top, bottom = y - BAR_THICK / 2, y + BAR_THICK / 2
    if yang:
        return (Box(x0, top, x1, bottom, outline=None, fill=color),)
    mid0 = (x0 + x1) / 2 - YIN_GAP / 2
    mid1 = (x0 + x1) / 2 + YIN_GAP / 2
    return (
        Box(x0, top, mid0, bottom, outline=None, fill=color),
        Box(mid1, top, x1, bottom, outline=None, fill=color),
    )


def _row_items(row: LineRow, lang: str) -> list[Primitive]:
    y = row.y
    # ko: each cell's characters stand a little higher and their reading under them
    up = 0 if lang == "lzh" else 12
    items: list[Primitive] = [
        kept_text(60, y - up, row.spirit, 34, "blue"),
        *_ruby(60, y + 26, row.spirit, lang),
    ]
    if row.use:
        items.append(Box(232, y - 34 - up, 445, y + 34 + up, outline="red", width=3))
    if row.hidden_use:
        items.append(Box(130, y - 46 - up, 210, y + 46 + up, outline="red", width=3))
    if row.hidden:
        rel, gz = row.hidden[0]
        items.append(kept_text(170, y - 20 - up, rel, 30, "muted"))
        items.append(kept_text(170, y + 20 - up, gz, 30, "muted"))
        items.extend(_ruby(170, y + 44, f"{rel} {gz}", lang, READING - 3))
    items.append(kept_text(270, y - up, row.relative, 36))
    items.append(kept_text(362, y - up, row.ganzhi, 40, bold=True))
    items.append(kept_text(422, y - up, row.element, 30, "muted"))
    items.extend(_ruby(270, y + 26, row.relative, lang))
    items.extend(_ruby(362, y + 26, row.ganzhi, lang))
    items.extend(_ruby(422, y + 26, row.element, lang))
    items.extend(_bar(*BAR, y, row.yang, "red" if row.moving else "ink"))
    if row.mark is not None:
        items.append(kept_text(692, y, row.mark, 44, "red", bold=True))
    if row.shi:
        items.append(kept_text(742, y, label(lang, "liuyao.shi"), 40, "red", bold=True))
    if row.ying:
        items.append(kept_text(742, y, label(lang, "liuyao.ying"), 40, "blue", bold=True))
    if row.changed_yang is not None:
        items.extend(_bar(*CHANGED_BAR, y, row.changed_yang, "red" if row.moving else "rule"))
    if row.changed is not None:
        rel, gz = row.changed
        items.append(kept_text(1005, y - 22 - up, rel, 30))
        items.append(kept_text(1005, y + 22 - up, gz, 34, bold=True))
        items.extend(_ruby(1005, y + 44, f"{rel} {gz}", lang, READING - 3))
    return items


@cache
def static_items(lang: str) -> tuple[Primitive, ...]:
    """The part of every 六爻 picture in ``lang`` that no chart changes (drawn once, ``Scene.base``): the rules
    above and below the lines, the column heads but the two 卦's, the legend."""
    head_y = ROWS_TOP - 40
    items: list[Primitive] = [Segment(30, ROWS_TOP - 8, WIDTH - 30, ROWS_TOP - 8, "rule", 2)]
    for key, x in (("col.spirit", 60), ("col.hidden", 170), ("col.najia", 318), ("col.shi_ying", 742)):
        items.append(Text(x, head_y, label(lang, f"liuyao.{key}"), 30, "muted"))
    bottom = ROWS_TOP + 6 * ROW
    items.append(Segment(30, bottom + 8, WIDTH - 30, bottom + 8, "rule", 2))
    items.append(Text(30, bottom + 60, label(lang, "liuyao.legend"), 30, "muted", Anchor.LM))
    return tuple(items)


def _scene(
    chart: LiuyaoChart, lang: str, title: str, header: tuple[str, ...], rows: tuple[LineRow, ...]
) -> Scene:
    items: list[Primitive] = [Text(30, 44, title, TITLE[lang], anchor=Anchor.LM, bold=True)]
    for i, line in enumerate(header):
        items.append(Text(30, 110 + 46 * i, line, 33, anchor=Anchor.LM))
    head_y = ROWS_TOP - 40
    main_head = f"{label(lang, 'liuyao.main')} {_short(chart.main, lang)}"
    items.append(Text(sum(BAR) / 2, head_y, main_head, 30, "muted"))
    if chart.changed is not None:
        items.append(
            Text(
                sum(CHANGED_BAR) / 2 + 40,
                head_y,
                f"{label(lang, 'liuyao.changed')} {_short(chart.changed, lang)}",
                30,
                "muted",
            )
        )
    for row in rows:
        items.extend(_row_items(row, lang))
    return Scene(WIDTH, HEIGHT, tuple(items), base=static_items(lang))


def layout(chart: LiuyaoChart, lang: str) -> LiuyaoLayout:
    title, header = header_lines(chart, lang)
    rows = line_rows(chart)
    return LiuyaoLayout(rows, title, header, _scene(chart, lang, title, header, rows))
