"""Two PNGs of one picture compared by what they show, not by their deflate streams.

The renderer promises the same pixels for the same scene; the PNG bytes are ISA-L's deflate of those
pixels and are not promised to repeat (docs/images.md "Quality": a CI run deflated the same pixels to other
bytes in one process). So a test that asks "is this upload the picture of that chart?" decodes both and
compares size, palette and every pixel — and a stream that does not decode fails it.

:func:`rgb_then_quantized` is the reference drawing of a scene: Pillow's own, in RGB, then quantized.
"""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image, ImageDraw

from bot.images import draw
from bot.images.scene import PALETTE, Box, Circle, Scene, Segment, Text, Wedge


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG", image.format
    image.load()  # the whole stream: a truncated or corrupt IDAT fails here
    return image


def scanlines(png: bytes) -> bytes:
    """The IDAT's inflated rows (filter byte, then the indices), read with zlib itself rather than Pillow."""
    pos, idat = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        if png[pos + 4 : pos + 8] == b"IDAT":
            idat += png[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return zlib.decompress(idat)


def assert_same_picture(actual: bytes, expected: bytes) -> None:
    a, e = decoded(actual), decoded(expected)
    assert (a.mode, a.size) == (e.mode, e.size), ((a.mode, a.size), (e.mode, e.size))
    assert a.getpalette() == e.getpalette(), "another palette"
    if a.tobytes() != e.tobytes():
        differ = sum(x != y for x, y in zip(a.tobytes(), e.tobytes(), strict=True))
        raise AssertionError(f"{differ} of {a.size[0] * a.size[1]} pixels differ")


def rgb_then_quantized(scene: Scene) -> Image.Image:
    """The reference: the scene (its base, then its items) drawn by Pillow itself on an RGB image in one pass
    (its own ``ImageDraw.text`` of each whole line at the text's point on the 1/4 px grid, no mask cache),
    then mapped to the fixed palette by ``quantize`` — how the pictures were made before #18."""
    image = Image.new("RGB", (scene.width, scene.height), PALETTE[scene.background])
    pen = ImageDraw.Draw(image)
    for item in scene.drawn:
        if isinstance(item, Text):
            font = draw.font(item.size, item.bold)
            at = (draw.snap(item.x), draw.snap(item.y))
            pen.text(at, item.text, PALETTE[item.color], font, item.anchor.value)
        elif isinstance(item, Segment):
            pen.line((item.x0, item.y0, item.x1, item.y1), fill=PALETTE[item.color], width=item.width)
        elif isinstance(item, Box | Circle):
            shape = pen.rectangle if isinstance(item, Box) else pen.ellipse
            xy = (
                (item.x0, item.y0, item.x1, item.y1)
                if isinstance(item, Box)
                else (item.cx - item.r, item.cy - item.r, item.cx + item.r, item.cy + item.r)
            )
            outline = PALETTE[item.outline] if item.outline else None
            shape(xy, outline=outline, fill=PALETTE[item.fill] if item.fill else None, width=item.width)
        else:
            assert isinstance(item, Wedge)
            pen.polygon(draw._wedge_polygon(item), fill=PALETTE[item.fill])
    return image.quantize(palette=draw.png_palette(), dither=Image.Dither.NONE)
