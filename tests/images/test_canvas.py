"""Pictures are drawn on a canvas (``bot.images.draw.Canvas``, one per size and thread, drawn over by every
picture): the PNG deflated from the canvas is the scene's pixels — at the picture's edges too, every row with
its filter byte —, a canvas drawn again keeps nothing of the picture before, and threads drawing at once each
get their own pictures."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from bot.images import draw, liuren, liuyao, qizheng
from bot.images.scene import Anchor, Box, Circle, Scene, Segment, Text, Wedge
from engine.core.cycle import Branch, GanZhi
from engine.liuren import chart_for_ju
from engine.liuyao import build_chart, cast_manual
from tests.images.cases import qizheng_case
from tests.images.same import decoded, rgb_then_quantized, scanlines

# Items across all four edges: text cut by each edge (over a uniform and a mixed background; two whose point
# lies left of or above the picture), boxes and lines running past the picture, a circle and a wedge over a
# corner.
EDGES = Scene(
    321,
    203,
    (
        Text(0, 100, "甲子", 40, "red"),
        Text(321, 60, "乙丑 丙寅", 36, "blue", Anchor.LM),
        Text(160, 0, "戊辰", 44, bold=True),
        Text(160, 203, "己巳", 44, "green"),
        Text(318, 150, "庚午", 30, "ink", Anchor.RM),
        Box(-20, 150, 60, 260, outline="ink", fill="gold", width=3),
        Text(15, 190, "辛未", 34, "red"),
        Segment(-50, 10, 400, 30, "blue", 5),
        Segment(300, -10, 330, 250, "ink", 4),
        Circle(321, 0, 40, outline="red", fill="faint", width=3),
        Wedge(0, 0, 20, 70, 260, 370, "muted"),
        Box(250, 170, 400, 300, outline="rule", fill=None, width=6),
        Text(-6.25, 134, "壬申", 24, "blue", Anchor.LM),  # a point left of the picture
        Text(200, -3.5, "癸酉 甲戌", 28, "red", Anchor.LT),  # and above it
    ),
    "paper",
    (Box(-5, -5, 326, 208, outline="rule", fill="panel", width=8),),
)


def test_items_across_the_edges_are_clipped_in_the_scanlines() -> None:
    png = draw.to_png(EDGES)
    raw = scanlines(png)
    assert len(raw) == EDGES.height * (EDGES.width + 1)
    assert set(raw[:: EDGES.width + 1]) == {0}  # every row's filter byte untouched by the drawing
    image = decoded(png)
    assert image.tobytes() == draw.render(EDGES).tobytes() == rgb_then_quantized(EDGES).tobytes()
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(EDGES.height, EDGES.width + 1)
    assert (rows[:, 1:] == np.asarray(image)).all()


def _liuyao(coins: str, day: int, lang: str) -> Scene:
    return liuyao.layout(build_chart(cast_manual(coins), Branch(day % 12), GanZhi.of(day)), lang).scene


def _in_a_new_thread(scene: Scene) -> bytes:
    """The picture from a thread that has drawn nothing before (a canvas of its own, fresh)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(draw.to_png, scene).result()


def test_a_canvas_drawn_again_keeps_nothing_of_the_picture_before() -> None:
    """A busy picture (every line moving, a 用神 frame) then a quiet one on the same canvas: the quiet one's
    pixels are those of a fresh canvas, and the busy one's own again afterwards."""
    busy = liuyao.layout(
        build_chart(cast_manual("969696"), Branch.YIN, GanZhi.parse("戊戌"), use="妻財"), "ko"
    ).scene
    quiet = _liuyao("777777", 7, "ko")
    assert (busy.width, busy.height) == (quiet.width, quiet.height)
    fresh_quiet, fresh_busy = _in_a_new_thread(quiet), _in_a_new_thread(busy)
    draw.to_png(busy)
    assert decoded(draw.to_png(quiet)).tobytes() == decoded(fresh_quiet).tobytes()
    assert decoded(draw.to_png(busy)).tobytes() == decoded(fresh_busy).tobytes()
    assert decoded(fresh_quiet).tobytes() != decoded(fresh_busy).tobytes()
    # another size in between (another canvas) changes nothing either
    draw.to_png(EDGES)
    assert decoded(draw.to_png(quiet)).tobytes() == decoded(fresh_quiet).tobytes()


def test_threads_drawing_at_once_each_get_their_own_pictures() -> None:
    coins = ["797979", "686868", "877777", "777887", "696969", "788878", "978676", "667799"]
    scenes = [_liuyao(c, 5 * i + 1, ("ko", "lzh")[i % 2]) for i, c in enumerate(coins)]
    expected = [decoded(draw.to_png(s)).tobytes() for s in scenes]
    start = threading.Barrier(4)

    def worker(offset: int) -> list[bytes]:
        start.wait()
        return [decoded(draw.to_png(scenes[(i + offset) % len(scenes)])).tobytes() for i in range(24)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(worker, range(4)))
    for offset, pictures in enumerate(results):
        for i, pixels in enumerate(pictures):
            assert pixels == expected[(i + offset) % len(scenes)], (offset, i)


def test_encode_of_a_drawn_image_is_to_png() -> None:
    """``encode`` (any indexed image, copied into the canvas) and ``to_png`` (drawn on it) give one picture."""
    scene = _liuyao("797979", 34, "lzh")
    image = draw.render(scene)
    assert decoded(draw.encode(image)).tobytes() == decoded(draw.to_png(scene)).tobytes() == image.tobytes()


def _varied_scenes() -> list[Scene]:
    """六爻 pictures in both languages (moving lines, 伏神, a 用神 frame), 大六壬 and 七政 pictures, the edge scene."""
    scenes = [
        liuyao.layout(
            build_chart(cast_manual(c), Branch(i % 12), GanZhi.of(11 * i % 60), use=use), ("ko", "lzh")[i % 2]
        ).scene
        for i, (c, use) in enumerate(
            [("969696", "妻財"), ("777777", None), ("876987", None), ("686868", "官鬼"), ("797979", None)]
            + [("788878", "父母"), ("978676", None), ("667799", None)]
        )
    ]
    scenes += [
        liuren.layout(chart_for_ju(GanZhi.of(13 * i % 60), i % 12 + 1), lang).scene
        for i, lang in enumerate(("ko", "lzh", "ko"))
    ]
    qz, place = qizheng_case()
    scenes += [qizheng.layout(qz, lang, place).scene for lang in ("ko", "lzh")]
    return [*scenes, EDGES]


def _tile_grid(bits: int, height: int, width: int) -> np.ndarray:
    """The pixels of the tiles set in ``bits`` (``draw.tiles``'s layout), as a boolean (height, width) array."""
    bands = -(-height // draw.BAND)
    flags = np.array(
        [
            [bool(bits >> (draw.TILE_COLUMNS * b + c) & 1) for c in range(draw.TILE_COLUMNS)]
            for b in range(bands)
        ]
    )
    columns = np.minimum(np.arange(width) // draw.TILE_WIDTH, draw.TILE_COLUMNS - 1)
    grid: np.ndarray = flags[np.arange(height) // draw.BAND][:, columns]
    return grid


def test_every_pixel_a_picture_draws_lies_in_the_tiles_and_bands_it_marks() -> None:
    """What the next picture copies back (the bands marked) and where text is pasted without reading the pixels
    (tiles not marked) rest on this: every pixel that differs from the base is in a marked tile and band."""
    for scene in _varied_scenes():
        canvas = draw._paint(scene)
        base = draw._base(scene.width, scene.height, scene.background, scene.base)
        assert canvas.base is base
        changed = canvas.pixels != base.pixels
        assert changed.any()
        assert not (changed & ~_tile_grid(canvas.drawn, scene.height, scene.width)).any()
        rows = [int(y) for y in np.flatnonzero(changed.any(axis=1))]
        assert all(canvas.bands >> (y // draw.BAND) & 1 for y in rows)
        # and the marks are close: no band of the picture marked more than one band away from a pixel drawn
        near = {y // draw.BAND + d for y in rows for d in (-1, 0, 1)}
        bands = -(-scene.height // draw.BAND)
        assert {i for i in range(bands) if canvas.bands >> i & 1} <= near


def test_pictures_drawn_in_any_order_are_their_fresh_pictures() -> None:
    """Pictures on one canvas after one another — same base, the other language's base, another size, an
    ``encode`` of a whole image — each give the pixels of the picture drawn on a fresh canvas."""
    import random

    scenes = _varied_scenes()
    fresh = [decoded(_in_a_new_thread(s)).tobytes() for s in scenes]
    order = list(range(len(scenes))) * 3
    random.Random(18).shuffle(order)
    for step, i in enumerate(order):
        if step % 7 == 3:
            draw.encode(draw.render(scenes[order[step - 1]]))
        assert decoded(draw.to_png(scenes[i])).tobytes() == fresh[i], (step, i)


def test_text_pasted_on_untouched_tiles_is_text_drawn_over_the_pixels_read() -> None:
    """The run's background taken from the base's uniform tiles gives the pixels of reading it from the canvas
    (every run through ``getextrema``), picture after picture."""
    scenes = _varied_scenes()
    fast = [draw.render(s).tobytes() for s in scenes]
    read = draw.Canvas.untouched
    try:
        draw.Canvas.untouched = lambda self, touched: None  # type: ignore[method-assign]
        slow = [draw.render(s).tobytes() for s in scenes]
    finally:
        draw.Canvas.untouched = read  # type: ignore[method-assign]
    assert fast == slow


def test_uniform_tiles_of_a_base_are_its_tiles_of_one_index() -> None:
    for scene in _varied_scenes():
        base = draw._base(scene.width, scene.height, scene.background, scene.base)
        pixels = base.pixels  # a copy of the whole picture each time it is read: once a scene
        listed = {}
        for index, bits in base.uniform.items():
            for b in range(-(-scene.height // draw.BAND)):
                for c in range(draw.TILE_COLUMNS):
                    if bits >> (draw.TILE_COLUMNS * b + c) & 1:
                        listed[(b, c)] = index
        expected = {}
        for b in range(-(-scene.height // draw.BAND)):
            for c in range(min(draw.TILE_COLUMNS, -(-scene.width // draw.TILE_WIDTH))):
                right = scene.width if c == draw.TILE_COLUMNS - 1 else (c + 1) * draw.TILE_WIDTH
                tile = pixels[b * draw.BAND : (b + 1) * draw.BAND, c * draw.TILE_WIDTH : right]
                if tile.min() == tile.max():
                    expected[(b, c)] = int(tile.min())
        assert listed == expected


def test_tiles_of_a_box_are_the_tiles_of_its_pixels() -> None:
    import math
    import random

    def of_pixels(x0: float, y0: float, x1: float, y1: float) -> tuple[int, int]:
        found = bands = 0
        if x1 > x0 and y1 > y0:
            for y in range(max(0, math.floor(y0)), math.ceil(y1)):
                for x in range(max(0, math.floor(x0)), math.ceil(x1)):
                    column = min(draw.TILE_COLUMNS - 1, x // draw.TILE_WIDTH)
                    found |= 1 << (draw.TILE_COLUMNS * (y // draw.BAND) + column)
                    bands |= 1 << (y // draw.BAND)
        return found, bands

    rng = random.Random(18)
    for _ in range(1500):
        x0, y0 = rng.uniform(-40, 2200), rng.uniform(-40, 300)
        x1, y1 = (
            x0 + rng.choice([0, 0.3, 1, 5.5, 17, 40, 200]),
            y0 + rng.choice([0, 0.5, 1, 16, 33.3, 70, 290]),
        )
        if rng.random() < 0.3:
            x0, y0, x1, y1 = (round(v) for v in (x0, y0, x1, y1))
        assert draw.tiles(x0, y0, x1, y1) == of_pixels(x0, y0, x1, y1), (x0, y0, x1, y1)


def test_bands_where_two_bases_differ_are_compared_once_and_dropped_with_the_base() -> None:
    import gc

    ko, lzh = (
        liuyao.layout(build_chart(cast_manual("777777"), Branch.ZI, GanZhi.of(0)), lang).scene
        for lang in ("ko", "lzh")
    )
    a = draw._base(ko.width, ko.height, ko.background, ko.base)
    b = draw._base(lzh.width, lzh.height, lzh.background, lzh.base)
    rows = (a.pixels != b.pixels).any(axis=1)
    expected = {int(y) // draw.BAND for y in np.flatnonzero(rows)}
    bits = a.differs(b)
    assert {i for i in range(bits.bit_length()) if bits >> i & 1} == expected and expected
    assert a.differs(b) == bits and b in a.unlike
    other = draw.Canvas(ko.width, ko.height)
    other.freeze()
    a.differs(other)
    assert other in a.unlike
    del other
    gc.collect()
    assert len(a.unlike) == 1  # the comparison with a base gone went with it
