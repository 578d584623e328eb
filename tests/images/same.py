"""Two PNGs of one picture compared by what they show, not by their deflate streams.

The renderer promises the same pixels for the same scene; the PNG bytes are ISA-L's deflate of those
pixels and are not promised to repeat (docs/images.md "Quality": a CI run deflated the same pixels to other
bytes in one process). So a test that asks "is this upload the picture of that chart?" decodes both and
compares size, palette and every pixel — and a stream that does not decode fails it.
"""

from __future__ import annotations

import io

from PIL import Image


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG", image.format
    image.load()  # the whole stream: a truncated or corrupt IDAT fails here
    return image


def assert_same_picture(actual: bytes, expected: bytes) -> None:
    a, e = decoded(actual), decoded(expected)
    assert (a.mode, a.size) == (e.mode, e.size), ((a.mode, a.size), (e.mode, e.size))
    assert a.getpalette() == e.getpalette(), "another palette"
    if a.tobytes() != e.tobytes():
        differ = sum(x != y for x, y in zip(a.tobytes(), e.tobytes(), strict=True))
        raise AssertionError(f"{differ} of {a.size[0] * a.size[1]} pixels differ")
