"""Scene → PNG bytes with Pillow and the shipped font subset (``bot/images/data``): no system font, no I/O
beyond reading the package's own font files once, no metadata (the same scene gives the same bytes)."""

from __future__ import annotations

import io
import math
from functools import cache, lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

from bot.images.scene import PALETTE, Box, Circle, Scene, Segment, Text, Wedge

FONT_FILES = {False: "NotoSansCJKkr-Regular.subset.otf", True: "NotoSansCJKkr-Bold.subset.otf"}
PNG_COMPRESS_LEVEL = 3
BLEND_STEPS = 6  # antialiasing levels kept per colour pair in the indexed PNG
BACKGROUNDS = ("paper", "panel", "gold", "faint")  # the fills text and lines are drawn on


@cache
def font_bytes(bold: bool) -> bytes:
    """The shipped subset font (regular or bold), read once."""
    return resources.files("bot.images").joinpath("data", FONT_FILES[bold]).read_bytes()


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(io.BytesIO(font_bytes(bold)), size)


TextMask = tuple[object, tuple[int, int]]  # Pillow's core L mask and its offset from the anchor point


@lru_cache(maxsize=4096)
def text_mask(text: str, size: int, bold: bool, anchor: str, start: tuple[float, float]) -> TextMask:
    """The antialiased glyph mask of one line of text, rasterised by FreeType once per (text, font, anchor,
    sub-pixel start): the 干支, 六親, palace and column labels recur in every picture, and FreeType is most of
    the drawing time (issue 18). ``start`` is the fractional part of the anchor point, as Pillow passes it.
    Bounded: 4096 masks of a few KiB each."""
    return font(size, bold).getmask2(text, "L", anchor=anchor, start=start)


def _text(pen: ImageDraw.ImageDraw, item: Text) -> None:
    """``pen.text`` for one line, from the mask cache: the same pixels (Pillow's own ``text`` calls
    ``getmask2`` and ``draw_bitmap`` exactly so; Pillow has no public call taking a prepared mask)."""
    if "\n" in item.text:
        pen.text((item.x, item.y), item.text, _rgb(item.color), font(item.size, item.bold), item.anchor.value)
        return
    fx, fy = math.modf(item.x)[0], math.modf(item.y)[0]
    mask, (dx, dy) = text_mask(item.text, item.size, item.bold, item.anchor.value, (fx, fy))
    ink, _ = pen._getink(_rgb(item.color))
    pen.draw.draw_bitmap((int(item.x) + dx, int(item.y) + dy), mask, ink)


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


def render(scene: Scene) -> Image.Image:
    """The scene as an RGB image (opaque background)."""
    image = Image.new("RGB", (scene.width, scene.height), _rgb(scene.background))
    pen = ImageDraw.Draw(image)
    for item in scene.items:
        if isinstance(item, Text):
            _text(pen, item)
        elif isinstance(item, Segment):
            pen.line((item.x0, item.y0, item.x1, item.y1), fill=_rgb(item.color), width=item.width)
        elif isinstance(item, Box):
            pen.rectangle(
                (item.x0, item.y0, item.x1, item.y1),
                outline=_rgb(item.outline) if item.outline else None,
                fill=_rgb(item.fill) if item.fill else None,
                width=item.width,
            )
        elif isinstance(item, Circle):
            pen.ellipse(
                (item.cx - item.r, item.cy - item.r, item.cx + item.r, item.cy + item.r),
                outline=_rgb(item.outline) if item.outline else None,
                fill=_rgb(item.fill) if item.fill else None,
                width=item.width,
            )
        elif isinstance(item, Wedge):
            pen.polygon(_wedge_polygon(item), fill=_rgb(item.fill))
    return image


@cache
def png_palette() -> Image.Image:
    """A fixed 8-bit palette: every palette colour blended over each background in BLEND_STEPS steps (the
    antialiased edges of text and lines), so the indexed PNG looks like the RGB render at a third of the
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


def encode(image: Image.Image) -> bytes:
    """PNG bytes: indexed colour on the fixed palette, opaque (no tRNS), no text chunks, no timestamp, fixed
    compression (the same image gives the same bytes)."""
    out = io.BytesIO()
    indexed = image.quantize(palette=png_palette(), dither=Image.Dither.NONE)
    indexed.save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


def to_png(scene: Scene) -> bytes:
    return encode(render(scene))
