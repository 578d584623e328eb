"""The PNGs: size, opaque, no metadata, byte-identical for the same chart (also across processes), golden
images within a small tolerance (regenerate with scripts/make_golden_images.py)."""

from __future__ import annotations

import hashlib
import io
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bot.images import render_liuren, render_liuyao, render_qizheng
from tests.images.cases import liuren_case, liuyao_case, qizheng_case
from tests.images.same import scanlines

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"


def _renders():
    qz, place = qizheng_case()
    return {
        "liuren_ko.png": lambda: render_liuren(liuren_case(), "ko"),
        "liuyao_lzh.png": lambda: render_liuyao(liuyao_case(), "lzh"),
        "qizheng_ko.png": lambda: render_qizheng(qz, "ko", place),
    }


RENDERS = _renders()


def _chunks(png: bytes) -> list[bytes]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, out = 8, []
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        out.append(png[pos + 4 : pos + 8])
        pos += 12 + length
    return out


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_size_opaque_and_no_metadata(name):
    png = RENDERS[name]()
    image = Image.open(io.BytesIO(png))
    assert min(image.size) >= 640 and image.size[0] == 1080
    assert image.mode == "P"  # indexed colour, no alpha and no tRNS: opaque on light and dark chat themes
    assert set(_chunks(png)) <= {b"IHDR", b"PLTE", b"IDAT", b"IEND"}  # no tRNS, tIME, tEXt, pHYs …
    assert image.convert("RGBA").getextrema()[3] == (255, 255)


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_same_chart_same_bytes(name):
    assert RENDERS[name]() == RENDERS[name]()


def test_same_bytes_in_a_fresh_process():
    code = (
        "import hashlib; from bot.images import render_liuren; from tests.images.cases import liuren_case; "
        "print(hashlib.sha256(render_liuren(liuren_case(), 'ko')).hexdigest())"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == hashlib.sha256(RENDERS["liuren_ko.png"]()).hexdigest()


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_matches_golden_image(name):
    """Mean absolute difference below 1 level and fewer than 0.5 % of pixels changed (font rasteriser drift)."""
    fresh = Image.open(io.BytesIO(RENDERS[name]())).convert("RGB")
    golden = Image.open(GOLDEN / name).convert("RGB")
    assert fresh.size == golden.size
    diff = ImageChops.difference(fresh, golden).convert("L")
    hist = diff.histogram()
    pixels = fresh.size[0] * fresh.size[1]
    mean = sum(level * n for level, n in enumerate(hist)) / pixels
    changed = sum(hist[16:]) / pixels
    assert mean < 1.0 and changed < 0.005, (mean, changed)


def test_different_charts_give_different_pictures():
    from engine.core.cycle import GanZhi
    from engine.liuren import chart_for_ju

    a = render_liuren(chart_for_ju(GanZhi.parse("庚辰"), 8), "ko")
    b = render_liuren(chart_for_ju(GanZhi.parse("庚辰"), 9), "ko")
    c = render_liuren(chart_for_ju(GanZhi.parse("庚辰"), 8), "lzh")
    assert len({a, b, c}) == 3


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_png_is_valid_and_decodes_to_the_drawn_pixels(name):
    """The hand-written PNG (``draw.encode``: ISA-L deflate of the canvas's scanlines) passes Pillow's checks (chunk CRCs,
    zlib stream) and decodes to exactly the indices and palette that were drawn."""
    from bot.images import draw, liuren, liuyao, qizheng

    qz, place = qizheng_case()
    scene = {
        "liuren_ko.png": lambda: liuren.layout(liuren_case(), "ko").scene,
        "liuyao_lzh.png": lambda: liuyao.layout(liuyao_case(), "lzh").scene,
        "qizheng_ko.png": lambda: qizheng.layout(qz, "ko", place).scene,
    }[name]()
    image = draw.render(scene)
    png = draw.encode(image)
    Image.open(io.BytesIO(png)).verify()
    decoded = Image.open(io.BytesIO(png))
    decoded.load()
    assert decoded.mode == "P" and decoded.size == image.size
    assert decoded.tobytes() == image.tobytes()
    assert decoded.getpalette() == image.getpalette()
    # every row carries filter 0 (none), read with zlib itself rather than Pillow
    raw = scanlines(png)
    width, height = image.size
    assert len(raw) == height * (width + 1)
    assert set(raw[:: width + 1]) == {0}


def test_encode_refuses_an_image_that_is_not_indexed():
    from bot.images import draw

    with pytest.raises(ValueError):
        draw.encode(Image.new("RGB", (4, 4)))


@pytest.mark.parametrize("size", [(1, 1), (1, 700), (3, 255), (97, 256), (640, 257), (1080, 1072)])
def test_png_of_any_size_decodes_to_its_indices(size):
    """``draw.encode`` copies the image into the scanlines of a canvas of its size: images of one row, one
    column, odd and even widths and the pictures' own size decode (Pillow's decoder) to the same indices."""
    import random

    from bot.images import draw

    width, height = size
    rng = random.Random(height * 7919 + width)
    image = Image.frombytes("P", size, bytes(rng.randrange(256) for _ in range(width * height)))
    image.putpalette(draw.png_palette().getpalette())
    decoded = Image.open(io.BytesIO(draw.encode(image)))
    decoded.load()
    assert decoded.size == size and decoded.tobytes() == image.tobytes()
