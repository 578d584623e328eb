"""The chart pictures of replies are drawn once per scene (``bot.pictures.png_of``): two casts of one 課 at
different instants of the same 時辰 share the bytes, and the cached bytes are exactly what drawing the scene
gives (caching changes no picture); labels are rasterised once (``bot.images.draw.text_mask``) and drawn
straight on the fixed palette with the indices Pillow's own RGB drawing, quantized, would give."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import numpy as np
import pytest
from PIL import Image, ImageDraw

from bot import pictures
from bot.bounded import BoundedCache
from bot.images import draw, liuren, liuyao, qizheng, render_liuren
from bot.images.scene import Anchor, Box, Circle, Scene, Segment, Text, Wedge
from engine.liuren import chart_at
from tests.images.cases import liuren_case, liuyao_case, qizheng_case
from tests.images.same import assert_same_picture, rgb_then_quantized


def cast_source(at: str) -> pictures.Picture:
    """The picture of a /cast at ``at`` (the chart the command casts, as its reply carries it)."""
    return pictures.Picture("cast", chart_at(datetime.fromisoformat(at)))


def test_casts_of_one_hour_draw_one_picture() -> None:
    pictures.LIUREN_PICTURES.clear()
    pictures.liuren_picture_stats.clear()
    first = pictures.render(cast_source("2024-03-05T10:05:00+09:00"), "ko")  # 巳時
    second = pictures.render(cast_source("2024-03-05T10:47:31+09:00"), "ko")  # the same 巳時: the same 課
    assert first is not None and first is second  # the cached bytes, not a second drawing
    assert (pictures.liuren_picture_stats["miss"], pictures.liuren_picture_stats["hit"]) == (1, 1)
    # what the picture would be without the cache, drawn from the engine's chart directly
    chart = chart_at(datetime.fromisoformat("2024-03-05T10:47:31+09:00"))
    assert_same_picture(first, render_liuren(chart, "ko"))


def test_another_hour_or_language_is_another_picture() -> None:
    pictures.LIUREN_PICTURES.clear()
    pictures.liuren_picture_stats.clear()
    ko = pictures.render(cast_source("2024-03-05T10:05:00+09:00"), "ko")
    lzh = pictures.render(cast_source("2024-03-05T10:05:00+09:00"), "lzh")
    later = pictures.render(cast_source("2024-03-05T13:05:00+09:00"), "ko")  # 未時: another 課
    assert ko is not None and lzh is not None and later is not None
    assert len({ko, lzh, later}) == 3
    assert pictures.liuren_picture_stats["miss"] == 3


def test_liuren_picture_key_is_what_the_scene_is_a_function_of() -> None:
    """The PNG of a 大六壬 cast is kept by the chart's key, not its scene (``pictures.liuren_key``): over
    instants every 37 minutes for four days and around a month boundary (the header's month pillar), under
    two option sets (晝夜 by the hour, by the sun at 37.5°N 127°E), with and without the instant, charts of one key lay out equal scenes (the key may be finer than
    the scene: two option sets can draw alike)."""
    from datetime import timedelta

    from engine.core.cycle import Branch, GanZhi
    from engine.liuren import DayNight, Options, build_chart, chart_for_ju

    starts = [datetime.fromisoformat(s) for s in ("2024-03-03T00:10:00+09:00", "2024-04-03T00:10:00+09:00")]
    charts = [
        chart_at(start + timedelta(minutes=37 * i), opts, solar_longitude=lon, latitude=37.5)
        for start in starts
        for opts, lon in ((Options(), None), (Options(daynight=DayNight.SUN), 127.0))
        for i in range(4 * 24 * 60 // 37)
    ]
    charts += [chart_for_ju(GanZhi.of(7 * i), i % 12 + 1) for i in range(60)]
    charts += [build_chart(GanZhi.of(i), Branch(i % 12), Branch(5 * i % 12)) for i in range(60)]
    scenes: dict[tuple[object, ...], object] = {}
    for lang in ("ko", "lzh"):
        for chart in charts:
            key = pictures.liuren_key(chart, lang)
            scene = liuren.layout(chart, lang).scene
            assert scenes.setdefault(key, scene) == scene, key
    assert len(scenes) < len(charts)  # casts of one 時辰 did share keys


def _texts_over_texts(scene: Scene) -> np.ndarray:
    """Pixels inside the boxes (Pillow's ``textbbox``) of two or more texts of the scene."""
    count = np.zeros((scene.height, scene.width), dtype=np.int32)
    pen = ImageDraw.Draw(Image.new("L", (1, 1)))
    for item in scene.texts():
        at = (draw.snap(item.x), draw.snap(item.y))
        box = pen.textbbox(at, item.text, draw.font(item.size, item.bold), item.anchor.value)
        x0, y0, x1, y1 = (max(0, int(v)) for v in box)
        count[y0 : y1 + 1, x0 : x1 + 1] += 1
    return count >= 2


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_drawn_on_the_palette_is_what_pillow_draws_quantized(lang: str) -> None:
    """Each picture drawn twice (labels cached, the second time from the cache) straight on the fixed palette
    is, pixel for pixel, Pillow's own RGB drawing quantized afterwards — except where one text's antialiased
    edge lies under another text (blended over the quantized colour instead of the exact one)."""
    qz, place = qizheng_case()
    scenes = [
        liuren.layout(liuren_case(), lang).scene,
        liuyao.layout(liuyao_case(), lang).scene,
        qizheng.layout(qz, lang, place).scene,
    ]
    for kept in (draw.text_mask, draw._runs, draw._glyphs, draw._coverage):
        kept.cache_clear()
    cached = [draw.render(s) for s in scenes]
    rasterised = draw.text_mask.cache_info().misses
    again = [draw.render(s) for s in scenes]
    # the second time every text item's runs come from the cache and nothing is rasterised again
    assert draw._runs.cache_info().hits >= sum(isinstance(i, Text) for s in scenes for i in s.items)
    assert rasterised > 0 and draw.text_mask.cache_info().misses == rasterised
    for scene, first, second in zip(scenes, cached, again, strict=True):
        assert first.mode == "P" and first.tobytes() == second.tobytes()
        reference = np.asarray(rgb_then_quantized(scene))
        differ = np.asarray(first) != reference
        elsewhere = differ & ~_texts_over_texts(scene)
        assert not elsewhere.any(), np.argwhere(elsewhere)[:5]
        assert differ.sum() < 50  # a handful of edge pixels at most


def test_static_base_is_shared_and_drawn_as_if_in_one_pass() -> None:
    """The static part of a picture (``Scene.base``) is one value per (type, language), whatever the chart,
    and drawing it once and copying it gives the pixels of drawing the base and the items in one pass."""
    from engine.core.cycle import GanZhi
    from engine.liuren import chart_for_ju

    a = liuren.layout(chart_for_ju(GanZhi.parse("庚辰"), 8), "ko").scene
    b = liuren.layout(chart_for_ju(GanZhi.parse("甲子"), 3), "ko").scene
    assert a.base and a.base is b.base and a.items != b.items
    assert liuren.layout(chart_for_ju(GanZhi.parse("庚辰"), 8), "lzh").scene.base != a.base
    qz, place = qizheng_case()
    for scene in (a, b, liuyao.layout(liuyao_case(), "lzh").scene, qizheng.layout(qz, "ko", place).scene):
        one_pass = Scene(scene.width, scene.height, scene.drawn, scene.background)
        assert draw.render(scene).tobytes() == draw.render(one_pass).tobytes()


def _many_scenes() -> list[Scene]:
    from datetime import timedelta

    from engine.core.cycle import Branch, GanZhi
    from engine.liuren import chart_for_ju
    from engine.liuyao import build_chart, cast_manual
    from engine.qizheng import natal_chart

    coins = ["797979", "686868", "877777", "777887", "696969", "788878", "978676", "667799", "777777"]
    qz, place = qizheng_case()
    start = datetime.fromisoformat("1950-05-17T14:30+09:00")
    scenes = []
    for lang in ("ko", "lzh"):
        scenes += [liuren.layout(chart_for_ju(GanZhi.of(7 * i), i % 12 + 1), lang).scene for i in range(12)]
        scenes += [
            liuyao.layout(build_chart(cast_manual(c), Branch(i % 12), GanZhi.of(11 * i)), lang).scene
            for i, c in enumerate(coins)
        ]
        for i in range(3):
            chart = natal_chart(start + timedelta(days=4001 * i), place.lon, place.lat)
            scenes.append(qizheng.layout(chart, lang, place).scene)
    return scenes


def test_lines_drawn_word_by_word_have_the_whole_lines_pixels() -> None:
    """Every left-anchored line of several words (headers, the 七政 table) drawn alone through
    ``draw.render`` — word by word from the word masks where the advances add up — is pixel for pixel
    Pillow's rendering of the whole line, quantized."""
    lines = {
        t
        for scene in _many_scenes()
        for t in scene.texts()
        if " " in t.text and t.anchor in draw.SPLIT_ANCHORS
    }
    # centred and right-aligned lines at every quarter pixel, of odd and even advances
    for k, text in enumerate(("本卦 家人", "變卦 復", "본괘 乾", "乙丑 丙寅 丁卯", "1 · 23 · 甲")):
        for q in range(4):
            lines.add(Text(300 + k + q / 4, 60, text, 30 + k, anchor=Anchor.MM))
            lines.add(Text(900 + k + q / 4, 60, text, 33, "red", Anchor.RM, bold=True))
    # top-anchored lines: ``t`` is the top of the line's own glyphs, so words of other heights (「a」 under
    # 「甲」) must stay where the whole line puts them
    for k, text in enumerate(("甲 a", "a 甲 ·", "· 乾", "본괘 a b")):
        lines.add(Text(100 + k, 40, text, 30, anchor=Anchor.LT))
    assert len(lines) > 100 and any(t.anchor is Anchor.MM for t in lines)
    split = kerned = 0
    for t in sorted(lines, key=lambda t: (t.text, t.y)):
        scene = Scene(1080, int(t.y) + 80, (t,))
        words = t.text.split(" ")
        space = draw.advance(" ", t.size, t.bold)
        widths = sum(draw.advance(w, t.size, t.bold) for w in words) + space * (len(words) - 1)
        split += widths == draw.advance(t.text, t.size, t.bold)
        pieces = draw._pieces(t.text, t.size, t.bold)
        kerned += widths != draw.advance(t.text, t.size, t.bold) and pieces is not None
        assert draw.render(scene).tobytes() == rgb_then_quantized(scene).tobytes(), t.text
    assert split > len(lines) / 2  # most lines did go word by word
    assert kerned > 10  # and Korean lines kerned across a space went piece by piece (issue 31)


def _whole_line_adds_up(text: str, size: int, bold: bool) -> bool:
    words = text.split(" ")
    space = draw.advance(" ", size, bold)
    return sum(draw.advance(w, size, bold) for w in words) + space * (len(words) - 1) == draw.advance(
        text, size, bold
    )


def test_lines_are_cut_join_by_join_as_the_whole_line_is_laid_out() -> None:
    """``draw._pieces`` (each join of two words laid out alone) cuts a line at every space exactly when laying
    out the whole line gives the words' advances, and the pieces it cuts a kerned line into add up to the
    line's advance, on every header line of the 六爻 layout (all 64 × 64 本卦 and 之卦 and the 64 static ones, months and days
    varied, a 用神 in some) and of the 大六壬 layout (all 720 課), both languages, and on the 七政 lines of 120
    charts — lines that kern across a space among them — so the words go where they went."""
    from datetime import timedelta
    from itertools import product

    from engine.core.cycle import Branch, GanZhi
    from engine.liuren import chart_for_ju
    from engine.liuyao import build_chart, cast_manual
    from engine.qizheng import natal_chart

    qz, place = qizheng_case()
    hexagrams = ["".join(bits) for bits in product("78", repeat=6)]
    uses = [None, "父母", "兄弟", "官鬼", "妻財", "子孫"]
    scenes = []
    for lang in ("ko", "lzh"):
        for i, main in enumerate(hexagrams):
            for j, changed in enumerate([*hexagrams, main]):
                digits = "".join(
                    {("7", "8"): "9", ("8", "7"): "6"}.get((a, b), a)
                    for a, b in zip(main, changed, strict=True)
                )
                use = uses[(i + j) % 6] if j % 16 == 0 else None
                chart = build_chart(
                    cast_manual(digits), Branch((i + j) % 12), GanZhi.of((7 * i + j) % 60), use=use
                )
                scenes.append(liuyao.layout(chart, lang).scene)
        scenes += [
            liuren.layout(chart_for_ju(GanZhi.of(k % 60), k // 60 + 1), lang).scene for k in range(720)
        ]
        start = datetime.fromisoformat("1990-05-17T14:30+09:00")
        for k in range(60):
            chart = natal_chart(start + timedelta(days=37 * k, hours=5 * k), place.lon, place.lat)
            scenes.append(qizheng.layout(chart, lang, place if k % 2 else None).scene)
    lines = {
        (t.text, t.size, t.bold)
        for scene in scenes
        for t in scene.drawn
        if isinstance(t, Text) and t.anchor in draw.SPLIT_ANCHORS and " " in t.text
    }
    decided = Counter(_whole_line_adds_up(*line) for line in lines)
    assert decided[True] > 10_000 and decided[False] > 500, decided
    in_pieces = 0
    for text, size, bold in lines:
        pieces = draw._pieces(text, size, bold)
        every_word = pieces is not None and len(pieces[0]) == sum(1 for w in text.split(" ") if w)
        assert every_word == _whole_line_adds_up(text, size, bold), text
        if pieces is not None:  # each piece at the pen the whole line gives it: the line's advance
            offsets, line = pieces
            assert line == draw.advance(text, size, bold), text
            assert " ".join(p for _, p in offsets).replace(" ", "") == text.replace(" ", ""), text
            in_pieces += not every_word
    assert in_pieces > 100  # most kerned lines are cut where they do not kern (issue 31)
    kept = draw._join_adds_up.cache_info()  # the joins met are kept, within their bound
    assert kept.hits > kept.misses and kept.maxsize == draw.TEXT_MASKS_KEPT >= kept.currsize


def test_liuren_and_liuyao_place_text_on_the_quarter_pixel_grid() -> None:
    """``draw.snap`` moves no 大六壬 or 六爻 text (their pixels are those of the exact positions)."""
    for scene in _many_scenes():
        if scene.width == liuren.WIDTH and scene.height in (liuren.HEIGHT, liuyao.HEIGHT):
            for t in scene.texts():
                assert (draw.snap(t.x), draw.snap(t.y)) == (t.x, t.y), t


def test_shapes_are_pillows_shapes() -> None:
    """``draw.render`` draws boxes, circles, segments and wedges with Pillow's core calls and palette indices:
    every combination (outline only, fill only, both, the same colour for both, no width, wide, fractional
    corners, one over another) has the pixels of Pillow's ``ImageDraw`` methods on an RGB image, quantized."""
    boxes = (
        Box(10, 10, 200, 120),
        Box(30.5, 140.25, 250.75, 260.5, outline="ink", fill="gold", width=3),
        Box(220, 20, 400, 100, outline=None, fill="red"),
        Box(300, 150, 500, 300, outline="blue", fill="blue", width=4),
        Box(60, 300, 260, 420, outline="green", fill="panel", width=0),
        Box(420, 40, 600, 280, outline="rule", fill=None, width=9),
        Box(480, 200, 700, 400, outline="muted", fill="faint", width=1),
        Box(650, 10, 650, 300, outline="ink", width=2),
    )
    others = (
        Circle(120, 80, 60.5),
        Circle(360, 220, 90, outline="red", fill="gold", width=5),
        Circle(560, 330, 70.25, outline=None, fill="green"),
        Circle(200, 360, 50, outline="blue", fill="blue", width=3),
        Circle(640, 120, 40, outline="ink", fill="panel", width=0),
        Segment(0, 0, 719, 439),
        Segment(10.5, 430, 700.25, 15.75, color="red", width=7),
        Segment(100, 50, 600, 50, color="blue", width=1),
        Segment(100, 70, 600, 70, color="ink", width=0),
        Wedge(360, 220, 100, 200, 10, 80, "faint"),
        Wedge(360, 220, 30.5, 99.5, 200, 340, "red"),
    )
    for background in ("paper", "panel"):
        scene = Scene(720, 440, boxes[4:] + others[5:], background, boxes[:4] + others[:5])
        assert draw.render(scene).tobytes() == rgb_then_quantized(scene).tobytes()


def test_kept_pictures_drop_the_least_recently_used() -> None:
    """The bot's one bounded map (``bot.bounded.BoundedCache``), as the kept 大六壬 pictures use it."""
    stats: Counter[str] = Counter()
    kept: BoundedCache[tuple[str], bytes] = BoundedCache(lambda: 2, stats)
    kept.keep(("a",), b"A")
    kept.keep(("b",), b"B")
    assert kept.find(("a",)) == b"A"  # "a" used last: "b" goes first
    kept.keep(("c",), b"C")
    assert kept.get(("b",)) is None and kept.get(("a",)) == b"A" and kept.get(("c",)) == b"C"
    assert (stats["hit"], stats["miss"]) == (1, 0)


def test_a_kerned_korean_header_is_drawn_from_pieces_another_picture_shares() -> None:
    """A Korean 六爻 header kerns across the space inside 「월건 인(寅)」 (two 한글 words): the line is cut at its
    other spaces, so another chart of the same month and another day rasterises its day piece alone, not the
    whole line of ≈ 1,000 px again (issue 31: two such lines a Korean picture, ≈ 1 ms, and their masks pushed
    the recurring ones out of the bound)."""
    from engine.core.cycle import Branch, GanZhi
    from engine.liuyao import build_chart, cast_manual

    def header(day: str) -> Text:
        chart = build_chart(cast_manual("877777"), Branch.YIN, GanZhi.parse(day))
        scene = liuyao.layout(chart, "ko").scene
        return next(t for t in scene.items if isinstance(t, Text) and t.text.startswith("월건 "))

    first, second = header("戊戌"), header("甲子")
    assert first.text.startswith(
        "월건 인(寅) · 일진 무술(戊戌) · "
    )  # the month 寅, the day 戊戌 (the inputs)
    assert not _whole_line_adds_up(first.text, first.size, first.bold)  # it kerns: not word by word
    pieces = draw._pieces(first.text, first.size, first.bold)
    assert pieces is not None
    texts = [text for _, text in pieces[0]]
    assert texts[:3] == ["월건 인(寅)", "·", "일진 무술(戊戌)"]  # the kerned join stays inside its piece
    for kept in (draw.text_mask, draw._runs, draw._glyphs, draw._pieces):
        kept.cache_clear()
    draw.render(Scene(liuyao.WIDTH, 200, (first,)))
    before = set(draw.text_mask.cache)
    draw.render(Scene(liuyao.WIDTH, 200, (second,)))
    new = {key[0] for key in set(draw.text_mask.cache) - before}
    # another day (甲子, its 旬空 戌亥): the 일진 and 순공 pieces are new, the month, the dots and the flag are not
    assert new == {"일진 갑자(甲子)", "순공 술해(戌亥)"}, new
    for line in (first, second):
        scene = Scene(liuyao.WIDTH, 200, (line,))
        assert draw.render(scene).tobytes() == rgb_then_quantized(scene).tobytes(), line.text
