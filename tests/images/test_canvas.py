"""Pictures are drawn in place in their PNG scanlines (``bot.images.draw.Canvas``, one per size and thread,
drawn over by every picture): the PNG deflated from the canvas is the scene's pixels — at the picture's
edges too, where Pillow must clip before the next row's filter byte —, a canvas drawn again keeps nothing
of the picture before, and threads drawing at once each get their own pictures."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from bot.images import draw, liuyao
from bot.images.scene import Anchor, Box, Circle, Scene, Segment, Text, Wedge
from engine.core.cycle import Branch, GanZhi
from engine.liuyao import build_chart, cast_manual
from tests.images.same import decoded, rgb_then_quantized, scanlines

# Items across all four edges: text cut by each edge (over a uniform and a mixed background), boxes and
# lines running past the picture, a circle and a wedge over a corner.
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
