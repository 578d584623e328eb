"""Scene → PNG bytes with Pillow and the shipped font subset (``bot/images/data``): no system font, no I/O
beyond reading the package's own font files once, no metadata (the same scene gives the same pixels)."""

from __future__ import annotations

import io
import math
import struct
import threading
import weakref
import zlib
from functools import cache, lru_cache
from importlib import resources

import numpy as np
from isal import isal_zlib
from PIL import Image, ImageDraw, ImageFont

from bot.bounded import cached
from bot.images.scene import PALETTE, Anchor, Box, Circle, Primitive, Scene, Segment, Text, Wedge

FONT_FILES = {False: "NotoSansCJKkr-Regular.subset.otf", True: "NotoSansCJKkr-Bold.subset.otf"}
# PNG compression (bench/images.py --encodings, docs/images.md): ISA-L's deflate (``isal``) at level 1 on the
# unfiltered rows (filter 0, the right filter for an indexed image) is ≈ 5× cheaper than zlib's fastest
# (0.5 against 2.4 ms for a 1.3 Mpx 大六壬 picture) for a smaller file than Pillow's encoder made (57 against
# 68 KiB); Telegram's photo limit is 10 MB.
PNG_COMPRESS_LEVEL = 1
BLEND_STEPS = 6  # antialiasing levels kept per colour pair in the indexed PNG
BACKGROUNDS = ("paper", "panel", "gold", "faint")  # the fills text and lines are drawn on


@cache
def font_bytes(bold: bool) -> bytes:
    """The shipped subset font (regular or bold), read once."""
    return resources.files("bot.images").joinpath("data", FONT_FILES[bold]).read_bytes()


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(io.BytesIO(font_bytes(bold)), size)


@cache
def png_palette() -> Image.Image:
    """A fixed 8-bit palette: every palette colour blended over each background in BLEND_STEPS steps (the
    antialiased edges of text and lines), so the indexed PNG looks like an RGB render at a third of the
    bytes to encode (issue 14: ≤ 50 ms per image)."""
    colours: list[tuple[int, int, int]] = []
    for bg in BACKGROUNDS:
        base = PALETTE[bg]
        for rgb in PALETTE.values():
            for k in range(BLEND_STEPS + 1):
                t = k / BLEND_STEPS
                r, g, b = (round(base[i] * (1 - t) + rgb[i] * t) for i in range(3))
                colours.append((r, g, b))
    unique = list(dict.fromkeys(colours))
    assert len(unique) <= 256, len(unique)
    flat = [v for c in unique for v in c]
    image = Image.new("P", (1, 1))
    image.putpalette(flat + [0] * (768 - len(flat)))
    return image


def _quantize(image: Image.Image) -> Image.Image:
    """An RGB image on the fixed palette (nearest colour, no dithering)."""
    return image.quantize(palette=png_palette(), dither=Image.Dither.NONE)


def _indices(image: Image.Image) -> Image.Image:
    """The palette indices of an indexed image as an image of mode L (what a :class:`Canvas` holds)."""
    return Image.frombytes("L", image.size, image.tobytes())


@cache
def index(name: str) -> int:
    """The palette index of a named colour (as :func:`_quantize` maps it)."""
    return _quantize(Image.new("RGB", (1, 1), PALETTE[name])).getpixel((0, 0))  # type: ignore[return-value]


@cache
def _alphas() -> Image.Image:
    return Image.frombytes("L", (256, 1), bytes(range(256)))


@cache
def source_palette() -> list[int]:
    """The fixed palette with each named colour's entry (:func:`index`) set to the exact colour it stands for:
    Pillow's quantizer maps some named colours to a near neighbour (``paper`` to (248, 245, 234)), and text
    is blended over the exact colour, as an RGB render would blend it before quantizing."""
    flat = list(png_palette().getpalette())  # type: ignore[arg-type]
    for name, rgb in PALETTE.items():
        flat[3 * index(name) : 3 * index(name) + 3] = rgb
    return flat


@cache
def ladder(ink: str, bg: int) -> tuple[int, ...]:
    """Coverage 0…255 of ``ink`` over palette entry ``bg`` → the palette index: Pillow's own blend of the
    colours (``paste`` with a mask, as ``draw_bitmap`` does) mapped by :func:`_quantize`, so text drawn
    straight on the indexed image gets the indices an RGB render quantized afterwards gets."""
    strip = Image.new("RGB", (256, 1), tuple(source_palette()[3 * bg : 3 * bg + 3]))
    strip.paste(PALETTE[ink], (0, 0, 256, 1), _alphas())
    return tuple(_quantize(strip).tobytes())


@cache
def _blend_table(ink: str) -> np.ndarray:
    """``table[bg, coverage]``: the :func:`ladder` of ``ink`` over every palette entry (64 KiB an ink)."""
    return np.array([ladder(ink, bg) for bg in range(256)], dtype=np.uint8)


# Rasterising a string (FreeType, ``getmask2``) was most of drawing a picture (≈ 250 µs per label of a 六爻
# picture), and the labels recur from picture to picture (六親, 六神, 納甲, 世應, the board's branches): the
# antialiased mask of a single-line label is kept per (text, size, weight, anchor, sub-pixel start).
TEXT_MASKS_KEPT = 4096
# Bounded in bytes too (issue 36 item 7): a mask is width × height bytes in Pillow's memory (and an object of
# ≈ 0.5 kB), so 4,096 masks of a 七政 wheel's labels at 16 sub-pixel starts each held tens of MB. A mask not
# kept is rasterised again (≈ 50–250 µs; a 六爻 title ≈ 0.6 ms). The 六爻 pictures of both languages need
# ≈ 5.8 MB of masks once every title, header piece and cell has been met (1,164 masks: the titles ≈ 3 MB, the
# header pieces ≈ 1.1 MB): at 4 MB a new Korean picture still rasterised ≈ 0.5 masks (issue 31).
TEXT_MASKS_BYTES = 8 << 20
IMAGE_OVERHEAD = 512  # bytes of a small Pillow image besides its pixels (the object, its line pointers)


def _mask_bytes(found: tuple[Image.Image, tuple[int, int]]) -> int:
    width, height = found[0].size
    return width * height + IMAGE_OVERHEAD


def _array_bytes(array: np.ndarray) -> int:
    return int(array.nbytes) + 112


@cached("draw.text_mask", maxsize=TEXT_MASKS_KEPT, max_bytes=TEXT_MASKS_BYTES, size_of=_mask_bytes)
def text_mask(
    text: str, size: int, bold: bool, anchor: str, start: tuple[float, float]
) -> tuple[Image.Image, tuple[int, int]]:
    """The antialiased coverage mask (L) of one line of text and its offset from the anchor point, rasterised
    by FreeType once per (text, font, anchor, sub-pixel start): the 干支, 六親, palace and column labels recur
    in every picture, and FreeType was most of the drawing time (issue 18). ``start`` is the fractional part
    of the anchor point, as Pillow's ``ImageDraw.text`` passes it. Bounded: 4096 masks of a few KiB."""
    face = font(size, bold)
    # the box ``getmask2`` gives the mask: the text's box at the anchor, one pixel wider (taller) when it
    # starts at a fraction of a pixel
    left, top, right, bottom = (int(v) for v in face.getbbox(text, "L", anchor=anchor))
    width, height = right - left + math.ceil(start[0]), bottom - top + math.ceil(start[1])
    # drawn by ``ImageDraw.text`` (255 over 0 through Pillow's blend is the coverage itself), which puts the
    # mask at the point's whole pixels plus that offset and starts FreeType at its fraction; a mask right of
    # (below) the point is drawn that far in and cropped, as the point's whole part cannot be negative (nor
    # can ``start``: a point left of or above the picture is drawn otherwise, :func:`_runs`)
    shift_x, shift_y = max(0, left), max(0, top)
    mask = Image.new("L", (shift_x + width, shift_y + height))
    point = (shift_x - left + start[0], shift_y - top + start[1])
    ImageDraw.Draw(mask).text(point, text, 255, face, anchor)
    if shift_x or shift_y:
        mask = mask.crop((shift_x, shift_y, shift_x + width, shift_y + height))
    return mask, (left, top)


# A run's mask key: (text, size, bold, anchor, sub-pixel start), as :func:`text_mask` takes it
MaskKey = tuple[str, int, bool, str, tuple[float, float]]


@cached("draw.coverage", maxsize=TEXT_MASKS_KEPT, max_bytes=TEXT_MASKS_BYTES // 2, size_of=_array_bytes)
def _coverage(key: MaskKey) -> np.ndarray:
    """A run's mask as a (height, width) array, for text over mixed pixels (a 七政 wheel has ≈ 20 such runs
    a picture: ``tobytes`` of each mask was ≈ 10 µs)."""
    mask, _ = text_mask(*key)
    cover = np.frombuffer(mask.tobytes(), dtype=np.uint8).reshape(mask.size[1], mask.size[0])
    cover.flags.writeable = False
    return cover


@cached("draw.glyphs", maxsize=TEXT_MASKS_KEPT, max_bytes=TEXT_MASKS_BYTES, size_of=_array_bytes)
def _glyphs(key: MaskKey, ink: str, bg: int) -> np.ndarray:
    """The text as palette indices over a uniform background ``bg`` (a (height, width) array, put into the
    canvas's rows as it is): its mask through :func:`ladder`."""
    mask, _ = text_mask(*key)
    indices = np.asarray(mask.point(ladder(ink, bg)))
    indices.flags.writeable = False
    return indices


@lru_cache(maxsize=TEXT_MASKS_KEPT)
def advance(text: str, size: int, bold: bool) -> float:
    """The advance width of a text in px (FreeType's 1/64 px units, so sums of advances are exact floats)."""
    return font(size, bold).getlength(text)


def draw_text(canvas: Canvas, item: Text) -> None:
    """Draw one text item on the canvas (the same pixels as ``ImageDraw.text`` on an RGB image quantized
    afterwards): over a uniform background the cached indices are pasted; over mixed pixels each pixel is
    mapped through the ladder of its own background.

    A line of several words (the headers, the 七政 table, the 六爻 column heads: different in every picture, so
    FreeType rasterised each whole, ≈ 0.15–0.3 ms a line; left-anchored, centred or right-aligned,
    ``SPLIT_ANCHORS``) is drawn piece by piece from the pieces' masks, each at the pen position the line puts
    it at — the sum of the advances before it —, cut at every space that does not kern (checked once per item
    and join, :func:`_pieces`: mostly one word a piece, 「월건 인(寅)」 one piece of a Korean header), which
    gives the line's own pixels."""
    runs = None if "\n" in item.text else _runs(item)
    if runs is None:  # not used by the layouts
        _draw_text_through_rgb(canvas, item)
        return
    for run in runs:
        _draw_run(canvas, run, item.color)


def _draw_text_through_rgb(canvas: Canvas, item: Text) -> None:
    """A text drawn by ``ImageDraw.text`` itself on the picture in RGB (each index as the colour it stands for,
    :func:`source_palette`); the pixels it changed are quantized and marked, the others keep their indices
    (a multi-line text, or one whose point lies left of or above the picture: not used by the layouts)."""
    source = canvas.image.copy()
    source.putpalette(source_palette())
    rgb = source.convert("RGB")
    before = np.asarray(rgb)
    ImageDraw.Draw(rgb).text(
        (snap(item.x), snap(item.y)),
        item.text,
        _rgb(item.color),
        font(item.size, item.bold),
        item.anchor.value,
    )
    changed = (np.asarray(rgb) != before).any(axis=2)
    if changed.any():
        pixels = np.where(changed, np.asarray(_quantize(rgb)), canvas.pixels).astype(np.uint8)
        canvas.image.paste(Image.fromarray(pixels))
        rows, columns = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
        canvas.mark(int(columns[0]), int(rows[0]), int(columns[-1]) + 1, int(rows[-1]) + 1)


# Where each run of a text item goes (the split into words, the snapped point, the masks' boxes) is worked
# out once per item: the row labels of a 六爻 picture or the board's branches are the same items at the same
# places in picture after picture, and this arithmetic was half of a run's ≈ 7 µs (issue 18).
TEXT_RUNS_KEPT = 4096


# A run of text: its box on the picture, its mask key, and the tiles and bands of rows its box touches
Run = tuple[tuple[int, int, int, int], MaskKey, int, int]


@lru_cache(maxsize=TEXT_RUNS_KEPT)
def _runs(item: Text) -> tuple[Run, ...] | None:
    """The runs of one single-line text item: (box on the picture, mask key, :func:`tiles` of the box) for each
    non-empty mask — the whole text, or each piece of a line cut where its advances add up (left-anchored,
    centred or right-aligned, ``SPLIT_ANCHORS``; :func:`_pieces`, :func:`draw_text`); None for a text with a point left of or above
    the picture (not used by the layouts), whose masks :func:`text_mask` does not make."""
    at_x, at_y = snap(item.x), snap(item.y)
    anchor = item.anchor.value
    pieces = [(at_x, item.text)]
    split = _pieces(item.text, item.size, item.bold) if item.anchor in SPLIT_ANCHORS else None
    if split is not None:
        offsets, line = split
        anchor, to_pen = SPLIT_ANCHORS[item.anchor]
        if to_pen:  # Pillow's anchor offset: (half) the line's advance, in 26.6, rounded to a pixel
            at_x -= _pixel(round(line * 64) // to_pen)
        pieces = [(at_x + offset, piece) for offset, piece in offsets]
    if at_y < 0 or min(x for x, _ in pieces) < 0:
        return None
    runs = []
    for x, text in pieces:
        # as ``ImageDraw.text`` splits a point: the fractional part is FreeType's start, the truncated one
        # the offset
        key: MaskKey = (text, item.size, item.bold, anchor, (math.modf(x)[0], math.modf(at_y)[0]))
        mask, (dx, dy) = text_mask(*key)
        width, height = mask.size
        if width and height:
            x0, y0 = int(x) + dx, int(at_y) + dy
            runs.append(((x0, y0, x0 + width, y0 + height), key, *tiles(x0, y0, x0 + width, y0 + height)))
    return tuple(runs)


# A line cut where it is drawn piece by piece: each piece's pen offset from the line's start and its text
# (words, or words joined where the line's shaping kerns across their space), and the line's advance
Pieces = tuple[tuple[tuple[float, str], ...], float]


@lru_cache(maxsize=TEXT_MASKS_KEPT)
def _pieces(text: str, size: int, bold: bool) -> Pieces | None:
    """Where a line of several words is cut to be drawn piece by piece (see :func:`draw_text`); None for one
    piece (a line without a space, or one whose every join kerns), drawn whole.

    The line is cut at each space whose join adds up — the advances of the word before it, the spaces and
    the word after it laid out alone add up to laid out together (:func:`_join_adds_up`) — instead of laying
    out the whole line (``getlength`` of a new header line, ≈ 40 µs alone and ≈ 0.1–0.2 ms in the bot, was
    most of what a new 六爻 picture's text cost there, issue 18); a join that kerns (a Korean space between
    two 한글 words, 「월건 인(寅)」) stays inside its piece, laid out with it. Words all cut give the same answer
    as the whole line on every header line of the 六爻 and 大六壬 layouts and on the 七政 lines tested
    (``tests/images/test_picture_cache.py``); a line with a join kept whole is cut only when its pieces' advances
    also add up to the line's (one layout of the new line, ≈ 40 µs, against ≈ 0.5–1 ms to rasterise a header
    line of 1,000 × 45 px whole — and to keep its mask, unlike its pieces, for no other picture: issue 31).
    A line that starts or ends with a space is cut into all its words when they add up to it, else whole."""
    if " " not in text:
        return None
    space = advance(" ", size, bold)
    words = text.split(" ")
    pieces: list[str] = []
    gaps: list[int] = []  # the spaces before each piece
    kept_whole = False
    if text[0] == " " or text[-1] == " ":
        if sum(advance(w, size, bold) for w in words) + space * (len(words) - 1) != advance(text, size, bold):
            return None
        pieces, gaps = words, [0] + [1] * (len(words) - 1)
    else:
        spaces = 0
        for word in words:
            if not word:
                spaces += 1
                continue
            if not pieces or _join_adds_up(pieces[-1][-1], spaces, word[0], size, bold):
                pieces.append(word)
                gaps.append(spaces)
            else:
                pieces[-1] += " " * spaces + word
                kept_whole = True
            spaces = 1
        if len(pieces) == 1:
            return None
    offsets = []
    pen = 0.0
    for piece, gap in zip(pieces, gaps, strict=True):
        pen += gap * space
        if piece:
            offsets.append((pen, piece))
            pen += advance(piece, size, bold)
    if not offsets or (kept_whole and pen != advance(text, size, bold)):
        return None
    return tuple(offsets), pen


@lru_cache(maxsize=TEXT_MASKS_KEPT)
def _join_adds_up(left: str, spaces: int, right: str, size: int, bold: bool) -> bool:
    """Whether ``left`` (a word's last character), ``spaces`` spaces and ``right`` (the next word's first) laid
    out together are as wide as their advances."""
    joined = advance(left + " " * spaces + right, size, bold)
    return joined == advance(left, size, bold) + spaces * advance(" ", size, bold) + advance(
        right, size, bold
    )


SUBPIXEL = 4  # a text's anchor point is drawn on a 1/4 px grid


def snap(v: float) -> float:
    """A text position rounded to the nearest 1/SUBPIXEL px: FreeType places text at 1/64 px, so a label on a
    ray of the 七政 wheel (any angle) was rasterised anew in every picture; on this grid each label has at
    most SUBPIXEL² masks, and it moves by ≤ 1/8 px. The 大六壬 and 六爻 layouts place text on the grid."""
    return round(v * SUBPIXEL) / SUBPIXEL


# The anchors of a line that is drawn word by word: the anchor its words are drawn with, and what the line's
# advance is divided by for the pen's start left of the anchor point (0: it starts at the point). Pillow puts
# a centred (right-aligned) line's pen the rounded half (all) of its advance left of the point
# (``bounding_box_and_anchors``: ``PIXEL(position / 2)``); the vertical ``m`` is the font's, not the text's.
# Not the top anchors: ``t`` is the top of the line's own glyphs, so a word drawn alone would move to its own
# top (「a」 beside 「甲」), and such a line is drawn whole.
SPLIT_ANCHORS = {Anchor.LM: ("lm", 0), Anchor.MM: ("lm", 2), Anchor.RM: ("lm", 1)}


def _pixel(v: int) -> int:
    """Pillow's ``PIXEL``: a 26.6 coordinate rounded to the nearest whole pixel."""
    return (v + 32) >> 6


def _draw_run(canvas: Canvas, run: Run, ink: str) -> None:
    """One run of text (a mask, :func:`_runs`) in ``ink`` at its box. Over one palette index the cached indices
    are pasted: the index is the base's when the run's tiles are uniform there and nothing of this picture
    has been drawn on them yet (:meth:`Canvas.untouched`), else read from the pixels (their minimum and
    maximum).

    The run is written into the canvas's rows by numpy, the image being mapped on them (:class:`Canvas`):
    ``Image.paste`` of the indices and ``crop`` then ``getextrema`` of the pixels under them cost ≈ 4.6 and
    13.5 µs a run against 1.8 and 6 µs on the mapped canvas (≈ 70 runs a 六爻 picture; ``bench/images.py
    --kind liuyao`` against the mapped canvas with Pillow's paste: render 2.94 → 1.38 ms): 3 lines fewer
    (19 in, 22 out)."""
    box, key, touched, bands = run
    x, y, x1, y1 = box
    if x >= 0 and y >= 0 and x1 <= canvas.width and y1 <= canvas.height:
        under = canvas.scanlines[y:y1, x + 1 : x1 + 1]  # the run's box in the rows (after the filter byte)
        lo = hi = canvas.untouched(touched)
        if lo is None:
            lo, hi = int(under.min()), int(under.max())
        if lo == hi:
            under[...] = _glyphs(key, ink, lo)
        else:
            # over mixed pixels (a 宿 name across a boundary, a body over a ray): each pixel's index from its
            # own background index and the coverage, through the ladders of those backgrounds
            under[...] = _blend_table(ink)[under, _coverage(key)]
        canvas.drawn |= touched
        canvas.bands |= bands
        return
    canvas.mark(x, y, x1, y1)
    image = canvas.image
    mask = text_mask(*key)[0]
    region = image.crop(box)
    region.putpalette(source_palette())
    rgb = region.convert("RGB")
    rgb.paste(_rgb(ink), (0, 0, x1 - x, y1 - y), mask)
    image.paste(_indices(_quantize(rgb)), box)  # clipped to the picture


def _rgb(name: str) -> tuple[int, int, int]:
    return PALETTE[name]


def _point(cx: float, cy: float, r: float, angle: float) -> tuple[float, float]:
    a = math.radians(angle)
    return cx + r * math.cos(a), cy - r * math.sin(a)


def _wedge_polygon(w: Wedge) -> list[tuple[float, float]]:
    steps = max(2, int(abs(w.a1 - w.a0) / 2) + 1)
    outer = [_point(w.cx, w.cy, w.r1, w.a0 + (w.a1 - w.a0) * i / steps) for i in range(steps + 1)]
    inner = [_point(w.cx, w.cy, w.r0, w.a1 - (w.a1 - w.a0) * i / steps) for i in range(steps + 1)]
    return outer + inner


# What a picture draws where (#18): a canvas is cut into tiles of TILE_WIDTH px × BAND rows, and each item
# drawn sets the bits of the tiles its box touches in one int (TILE_COLUMNS bits per band of rows; the last
# column of tiles reaches to the picture's right edge, however wide: 64 × 17 px cover the 1080 px pictures,
# and the ints stay short — 16 px tiles, 128 a band, made the 七政 picture's bookkeeping 7 % of its drawing),
# and of its bands in another. What no
# item of a picture touched is still the base: the next picture on the canvas copies back only the bands the
# last one touched (≈ 35 of a 六爻 picture's 67), and a text run on untouched tiles that are one palette index
# in the base is pasted without reading the pixels under it.
BAND = 16
TILE_WIDTH = 17
TILE_COLUMNS = 64


def tiles(x0: float, y0: float, x1: float, y1: float) -> tuple[int, int]:
    """(tile bits, band bits) of the pixels x0 ≤ x < x1, y0 ≤ y < y1 (clipped to the picture's top and left);
    (0, 0) for an empty box."""
    if x1 <= 0 or y1 <= 0 or x1 <= x0 or y1 <= y0:
        return 0, 0
    # int() rounds towards zero: below 0 it is clipped to tile 0 all the same
    c0, b0 = int(x0) // TILE_WIDTH if x0 > 0 else 0, int(y0) // BAND if y0 > 0 else 0
    c1, b1 = (math.ceil(x1) - 1) // TILE_WIDTH, (math.ceil(y1) - 1) // BAND  # the last pixel's tiles
    last = TILE_COLUMNS - 1
    c0, c1 = (c0 if c0 < last else last), (c1 if c1 < last else last)
    n = b1 - b0 + 1
    every = _EVERY_BAND[n] if n < len(_EVERY_BAND) else _every_band(n)
    return (((1 << (c1 - c0 + 1)) - 1) << c0) * every << (TILE_COLUMNS * b0), ((1 << n) - 1) << b0


def _every_band(n: int) -> int:
    """Bit 0 of each of ``n`` bands of tiles."""
    return ((1 << (TILE_COLUMNS * n)) - 1) // ((1 << TILE_COLUMNS) - 1)


_EVERY_BAND = [_every_band(n) for n in range(128)]


def _uniform_tiles(pixels: np.ndarray) -> dict[int, int]:
    """Palette index → the bits of the tiles (:func:`tiles`) of ``pixels`` that are all that index."""
    height, width = pixels.shape
    bands, columns = range(0, height, BAND), range(0, min(width, TILE_COLUMNS * TILE_WIDTH), TILE_WIDTH)
    lows = np.minimum.reduceat(np.minimum.reduceat(pixels, bands, axis=0), columns, axis=1)
    highs = np.maximum.reduceat(np.maximum.reduceat(pixels, bands, axis=0), columns, axis=1)
    found: dict[int, int] = {}
    for band, column in zip(*np.nonzero(lows == highs), strict=True):
        index = int(lows[band, column])
        found[index] = found.get(index, 0) | 1 << (TILE_COLUMNS * int(band) + int(column))
    return dict(sorted(found.items(), key=lambda kv: -kv[1].bit_count()))  # the most common index first


class Canvas:
    """An indexed picture (``image``) drawn over by picture after picture of its size (issue 18): no fresh 1–2 MB
    image (and its page faults) per picture. ``pen`` is its ``ImageDraw``. The image is of mode L: its bytes
    are the palette indices (an image of mode P would carry its palette through every crop and paste);
    :meth:`copy` gives the picture with its palette, :meth:`rows` the PNG's rows.

    The image is mapped on ``scanlines``, the PNG's rows before deflating (:func:`_mapped`): Pillow draws and
    pastes straight into them, so nothing is copied out of the image for its PNG, and the base's rows are put
    back by numpy (:meth:`restore`). Copying the drawn bands out of Pillow (``crop`` and ``tobytes`` in pieces
    of < 64 KiB) was ≈ 1.1 ms of a new 六爻 picture's PNG and ≈ 1.2 ms in the bot's mix (``bench/images.py
    --kind liuyao --against`` main: encode 2.15 → 1.07 ms, 3 fresh processes each; Pillow's ``crop`` of a
    mapped image is slower, 8 → 13 µs, which :func:`_draw_run` no longer calls): 1 line more (31 in, 30 out).

    ``base`` is the base canvas this one equals but for what was drawn since it was copied in: ``drawn`` and
    ``bands``, the :func:`tiles` bits of every item drawn since (None: unknown, the next picture copies the
    whole base). A base canvas keeps ``frozen``, its pixels as an array (what :meth:`restore` pastes back),
    and ``uniform``, its tiles of one palette index each."""

    __slots__ = (
        "bands",
        "base",
        "drawn",
        "height",
        "image",
        "pen",
        "scanlines",
        "frozen",
        "uniform",
        "unlike",
        "width",
        "__weakref__",
    )

    def __init__(self, width: int, height: int, background: int = 0) -> None:
        self.width, self.height = width, height
        # the PNG's rows before deflating: each row's filter byte (0, none), then its palette indices
        self.scanlines, self.image = _mapped(width, height, background)
        self.pen: ImageDraw.ImageDraw | None = ImageDraw.Draw(self.image)
        self.frozen = np.zeros((0, 0), dtype=np.uint8)  # a base's pixels (:meth:`freeze`)
        self.base: Canvas | None = None
        self.drawn = self.bands = 0
        self.uniform: dict[int, int] = {}
        self.unlike: weakref.WeakKeyDictionary[Canvas, int] = weakref.WeakKeyDictionary()

    @property
    def pixels(self) -> np.ndarray:
        """The palette indices, (height, width) (a copy)."""
        return np.asarray(self.image)

    def freeze(self) -> None:
        """Make this canvas a base (never drawn on again): its pixels kept as a read-only array, ``image`` an
        image mapped on it (the drawn image goes), and its uniform tiles."""
        self.frozen = self.pixels
        self.frozen.flags.writeable = False
        self.image = Image.frombuffer("L", (self.width, self.height), self.frozen, "raw", "L", 0, 1)
        self.scanlines = np.zeros((0, 0), dtype=np.uint8)
        self.pen = None
        self.uniform = _uniform_tiles(self.frozen)

    def restore(self, base: Canvas) -> None:
        """Make the canvas equal to ``base``: paste back the bands drawn on since it was last restored and,
        when that was from another base, the bands where the two bases differ (:meth:`differs`); the whole
        base when it was drawn on in unknown places."""
        if self.base is base:
            bands = self.bands
        elif self.base is not None:
            bands = self.bands | base.differs(self.base)
        else:
            self.scanlines[:, 1:] = base.frozen
            bands = 0
        for top, bottom in self.runs(bands):
            self.scanlines[top:bottom, 1:] = base.frozen[top:bottom]
        self.base = base
        self.drawn = self.bands = 0

    def runs(self, bands: int) -> list[tuple[int, int]]:
        """The rows (top, bottom) of each run of consecutive bands in ``bands`` (clipped to the picture)."""
        bands &= (1 << -(-self.height // BAND)) - 1  # an item past the bottom marks bands below the picture
        found = []
        while bands:
            first = (bands & -bands).bit_length() - 1
            shifted = bands >> first
            count = (shifted ^ (shifted + 1)).bit_length() - 1  # the run of set bits from ``first``
            found.append((first * BAND, min(self.height, (first + count) * BAND)))
            bands &= ~(((1 << count) - 1) << first)
        return found

    def differs(self, other: Canvas) -> int:
        """The bits of the bands where this base and ``other``, a base of the same size, differ (the Korean
        and the Chinese 六爻 base: the column heads and the legend), compared once per pair of live bases."""
        found = self.unlike.get(other)
        if found is None:
            rows = (self.frozen != other.frozen).any(axis=1)
            starts = range(0, len(rows), BAND)
            found = sum(1 << i for i, start in enumerate(starts) if rows[start : start + BAND].any())
            self.unlike[other] = found
        return found

    def mark(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """Note that the pixels x0 ≤ x < x1, y0 ≤ y < y1 may have been drawn on."""
        touched, bands = tiles(x0, y0, x1, y1)
        self.drawn |= touched
        self.bands |= bands

    def forget(self) -> None:
        """Note that the canvas was drawn on anywhere (the next :meth:`restore` copies the whole base)."""
        self.base = None

    def untouched(self, touched: int) -> int | None:
        """The palette index of the tiles ``touched`` when nothing was drawn on them since the base was copied
        in and the base has them all of that one index; None otherwise (read the pixels)."""
        base = self.base
        if base is None or touched & self.drawn:
            return None
        for index, uniform in base.uniform.items():
            if touched & uniform == touched:
                return index
        return None

    def copy(self) -> Image.Image:
        """The picture as an independent Pillow image with the fixed palette."""
        image = self.image.copy()
        image.putpalette(png_palette().getpalette())  # type: ignore[arg-type]  # L → P, the same bytes
        return image

    def rows(self) -> np.ndarray:
        """The PNG's rows before deflating, (height, width + 1): each row's filter byte (0, none), then its
        palette indices — the array the image is mapped on."""
        return self.scanlines


def _mapped(width: int, height: int, background: int) -> tuple[np.ndarray, Image.Image]:
    """The rows of a PNG of ``width`` × ``height`` filled with ``background`` (each row's filter byte 0), and an
    image of mode L mapped on them (from each row's second byte, a row ``width + 1`` bytes apart), which Pillow
    draws and pastes into in place. ``Image.frombuffer`` maps the array read-only (an image drawn on would copy
    it first); the flag is lifted, and a pixel pasted through the image is checked to reach the array (a
    Pillow that copied instead would fail here, not draw pictures that never reach their PNG)."""
    stride = width + 1
    flat = np.zeros(height * stride + 1, dtype=np.uint8)  # + 1: the map starts at the first row's 2nd byte
    rows = flat[: height * stride].reshape(height, stride)
    rows[:, 1:] = background
    image = Image.frombuffer("L", (width, height), flat[1:], "raw", "L", stride, 1)
    image.readonly = 0
    image.paste(background ^ 1, (0, 0, 1, 1))
    if rows[0, 1] != background ^ 1 or rows[0, 0] != 0:
        raise RuntimeError("Pillow no longer draws in place on an image mapped on an array")
    rows[0, 1] = background
    return rows, image


_canvases = threading.local()


def _canvas(width: int, height: int) -> Canvas:
    """This thread's canvas of that size (drawn over by every picture of the size: one per size and thread,
    1.1–1.8 MB each; the bot draws on its event loop, ``bot.pictures``)."""
    kept: dict[tuple[int, int], Canvas] | None = getattr(_canvases, "by_size", None)
    if kept is None:
        kept = _canvases.by_size = {}
    canvas = kept.get((width, height))
    if canvas is None:
        canvas = kept[(width, height)] = Canvas(width, height)
    return canvas


def render(scene: Scene) -> Image.Image:
    """The scene as an indexed image on the fixed palette (opaque background), drawn in that mode: lines,
    boxes, circles and wedges are not antialiased (one palette index each), text through :func:`draw_text`.
    The scene's base is drawn once (:func:`_base`) and copied; only its items are drawn per picture."""
    return _paint(scene).copy()


def to_png(scene: Scene) -> bytes:
    """The PNG of a scene, deflated from the canvas it was drawn on (see :class:`Canvas`)."""
    return _png(_paint(scene))


def _paint(scene: Scene) -> Canvas:
    """The scene drawn on this thread's canvas of its size: the base's rows pasted back where the last
    picture drew or its base differs (:meth:`Canvas.restore`), then the items."""
    canvas = _canvas(scene.width, scene.height)
    canvas.restore(_base(scene.width, scene.height, scene.background, scene.base))
    _draw(canvas, scene.items)
    return canvas


# The static part of each (chart type, language) drawn once: 2 languages × 3 types of 1.1–1.8 Mpx (≈ 10 MB).
BASES_KEPT = 16
BASES_BYTES = 32 << 20  # a base holds its image and its frozen pixels: 2 bytes a pixel


def _canvas_bytes(canvas: Canvas) -> int:
    return 2 * canvas.width * canvas.height + IMAGE_OVERHEAD


@cached("draw.bases", maxsize=BASES_KEPT, max_bytes=BASES_BYTES, size_of=_canvas_bytes)
def _base(width: int, height: int, background: str, items: tuple[Primitive, ...]) -> Canvas:
    """The background fill with ``items`` drawn on it, a canvas of its own (never drawn on afterwards:
    :func:`_paint` pastes its rows)."""
    canvas = Canvas(width, height, index(background))
    _draw(canvas, items)
    canvas.freeze()
    return canvas


def _draw(canvas: Canvas, items: tuple[Primitive, ...]) -> None:
    # Shapes are drawn by ``ImageDraw`` with palette indices (not antialiased: one index each).
    # Each shape marks its box widened by its line width and 2 px (Pillow rounds the corners to pixels and
    # widens a line by half its width on each side; the margin only costs a tile more now and then), a wedge
    # the square of its ring.
    pen = canvas.pen
    assert pen is not None, "a base is not drawn on"
    for item in items:
        if isinstance(item, Text):
            draw_text(canvas, item)
        elif isinstance(item, Segment):
            if item.width != 0:
                m = item.width + 2
                x0, x1 = (item.x0, item.x1) if item.x0 < item.x1 else (item.x1, item.x0)
                y0, y1 = (item.y0, item.y1) if item.y0 < item.y1 else (item.y1, item.y0)
                canvas.mark(x0 - m, y0 - m, x1 + m, y1 + m)
                pen.line((item.x0, item.y0, item.x1, item.y1), index(item.color), item.width)
        elif isinstance(item, Box):
            if item.outline or item.fill:
                m = item.width + 2
                canvas.mark(item.x0 - m, item.y0 - m, item.x1 + m, item.y1 + m)
                pen.rectangle(
                    (item.x0, item.y0, item.x1, item.y1), _ink(item.fill), _ink(item.outline), item.width
                )
        elif isinstance(item, Circle):
            if item.outline or item.fill:
                reach = item.r + item.width + 2
                canvas.mark(item.cx - reach, item.cy - reach, item.cx + reach, item.cy + reach)
                xy = (item.cx - item.r, item.cy - item.r, item.cx + item.r, item.cy + item.r)
                pen.ellipse(xy, _ink(item.fill), _ink(item.outline), item.width)
        elif isinstance(item, Wedge):
            reach = item.r1 + 2  # the ring's square: a wedge or two a picture
            canvas.mark(item.cx - reach, item.cy - reach, item.cx + reach, item.cy + reach)
            pen.polygon(_wedge_polygon(item), index(item.fill))


def _ink(name: str | None) -> int | None:
    """The palette index of a colour name, None for none (``ImageDraw`` then leaves the fill or outline out)."""
    return index(name) if name else None


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


@cache
def _plte() -> bytes:
    """The PLTE chunk of the fixed palette, all 256 entries (so every index of an 8-bit image is valid)."""
    return _chunk(b"PLTE", bytes(png_palette().getpalette()))  # type: ignore[arg-type]


_VECTOR = np.zeros(1024, dtype=np.uint8)


def _clear_upper_vector_state() -> None:
    """ISA-L's AVX code returns without ``vzeroupper`` (intel/isa-l#24): until the thread runs an AVX routine
    that clears the upper register halves, legacy-SSE code on it is slowed (zlib measured 3.5× slower on
    this machine, bench/images.py --encodings). numpy's SIMD loops end with ``vzeroupper``: one 1 KiB
    operation (≈ 1 µs) leaves the thread (the event loop's, in the bot) as clean as it was."""
    _VECTOR | _VECTOR  # noqa: B018 — the operation is the point, not its result


def encode(image: Image.Image) -> bytes:
    """PNG bytes of an indexed image on the fixed palette (copied into this thread's canvas of its size, then
    as :func:`to_png`)."""
    if image.mode != "P":
        raise ValueError(f"encode wants an indexed image, not {image.mode}")
    canvas = _canvas(*image.size)
    canvas.image.paste(_indices(image))
    canvas.forget()
    return _png(canvas)


def _png(canvas: Canvas) -> bytes:
    """IHDR (8-bit, colour type 3), PLTE, one IDAT (the canvas's scanlines — every row with filter 0 —
    deflated by ISA-L at PNG_COMPRESS_LEVEL in one call, which releases the GIL), IEND: opaque (no tRNS), no
    text chunks, no timestamp (nothing but the pixels in the file)."""
    idat = isal_zlib.compress(canvas.rows().data, PNG_COMPRESS_LEVEL)
    _clear_upper_vector_state()
    header = struct.pack(">IIBBBBB", canvas.width, canvas.height, 8, 3, 0, 0, 0)
    return b"".join(
        (PNG_SIGNATURE, _chunk(b"IHDR", header), _plte(), _chunk(b"IDAT", idat), _chunk(b"IEND", b""))
    )
