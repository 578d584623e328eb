"""The chart pictures of replies are drawn once per scene (``bot.pictures.png_of``): two casts of one 課 at
different instants of the same 時辰 share the bytes, and the cached bytes are exactly what drawing the scene
gives (caching changes no picture); labels are rasterised once (``bot.images.draw.text_mask``) and blended
exactly as Pillow's ``ImageDraw.text`` blends them."""

from __future__ import annotations

from datetime import datetime

import pytest
from PIL import ImageDraw

from bot import pictures
from bot.images import draw, liuren, liuyao, qizheng, render_liuren
from bot.images.scene import Text
from engine.liuren import chart_at
from tests.images.cases import liuren_case, liuyao_case, qizheng_case


def cast_source(at: str) -> dict[str, object]:
    return pictures.source("cast", {"at": at, "day_starts": "23:00"}, {})  # type: ignore[return-value]


def test_casts_of_one_hour_draw_one_picture() -> None:
    pictures.png_of.cache_clear()
    first = pictures.render(cast_source("2024-03-05T10:05:00+09:00"), "ko")  # 巳時
    second = pictures.render(cast_source("2024-03-05T10:47:31+09:00"), "ko")  # the same 巳時: the same 課
    assert first is not None and first is second  # the cached bytes, not a second drawing
    info = pictures.png_of.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    # what the picture would be without the cache, drawn from the engine's chart directly
    chart = chart_at(datetime.fromisoformat("2024-03-05T10:47:31+09:00"))
    assert first == render_liuren(chart, "ko")


def test_another_hour_or_language_is_another_picture() -> None:
    pictures.png_of.cache_clear()
    ko = pictures.render(cast_source("2024-03-05T10:05:00+09:00"), "ko")
    lzh = pictures.render(cast_source("2024-03-05T10:05:00+09:00"), "lzh")
    later = pictures.render(cast_source("2024-03-05T13:05:00+09:00"), "ko")  # 未時: another 課
    assert ko is not None and lzh is not None and later is not None
    assert len({ko, lzh, later}) == 3
    assert pictures.png_of.cache_info().misses == 3


def _pillow_text(pen: ImageDraw.ImageDraw, item: Text) -> None:
    pen.text(
        (item.x, item.y),
        item.text,
        fill=draw._rgb(item.color),
        font=draw.font(item.size, item.bold),
        anchor=item.anchor.value,
    )


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_cached_label_masks_draw_what_pillow_draws(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each picture drawn twice (labels cached, second time from the cache) is pixel for pixel the picture
    Pillow's own ``ImageDraw.text`` draws."""
    qz, place = qizheng_case()
    scenes = [
        liuren.layout(liuren_case(), lang).scene,
        liuyao.layout(liuyao_case(), lang).scene,
        qizheng.layout(qz, lang, place).scene,
    ]
    draw.text_mask.cache_clear()
    cached = [draw.render(s).tobytes() for s in scenes]
    again = [draw.render(s).tobytes() for s in scenes]
    assert draw.text_mask.cache_info().hits > 0
    monkeypatch.setattr(draw, "draw_text", _pillow_text)
    plain = [draw.render(s).tobytes() for s in scenes]
    assert cached == plain and again == plain
