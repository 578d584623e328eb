"""The chart picture of a reply, drawn from the chart its command cast (issue 14, issue 31 item 6).

A cast that has a picture carries a :class:`Picture` (:attr:`bot.features.base.Reply.picture`): the kind of
the history row (``cast`` 大六壬, ``liuyao`` 六爻, ``qizheng`` 七政四餘) and the engine's chart of that one cast
(with the place a 七政 chart names). :func:`render` draws it with :mod:`bot.images`: the text, every page and
the picture of a reply come from one cast, never a second one. A stored cast shown again (``/show``, a page
button that puts the picture back after a restart) is cast once from its row's inputs and options
(``bot.features.common.replay``), which gives its text and its picture together.

Drawn on the loop, not on a worker thread (issue 18): a new 六爻 or 大六壬 picture is 1–2.5 ms of CPU and a
七政 one ≈ 3–5 ms (``bench/all.py``), no more than the handler before it, while the hop to a drawing thread and
back — the worker woken on the other core, the loop's wake-up pipe, the result's callback — cost more than it
saved: ``bench/bot.py`` at 20 commands/s, seven pairs alternating (2026-12-02, Intel Xeon × 2), 3.01 against
3.21 ms of the process's CPU per command (0.94×), lower in six of the seven, p99 unchanged. A flood cannot
queue pictures: admission (``bot.admission``) refuses a flooding user before any work.

The daily reading's picture is :func:`bot.features.daily.reading.picture`.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.bounded import BoundedCache, cached

if TYPE_CHECKING:
    from bot.images.scene import Scene
    from engine.liuren import Chart

FILENAME = "chart.png"
MEDIA_TYPE = "image/png"
KINDS = frozenset({"cast", "liuyao", "qizheng"})  # history kinds whose reply has a picture
# The page of each paged view that is the picture's own (盤): on Telegram it puts the picture back on a
# message that lost it; every other page of a photo message only changes the caption.
PICTURE_PAGES: Mapping[str, str] = {"cast": "brief", "liuyao": "brief", "qizheng": "brief"}


@dataclass(frozen=True)
class Picture:
    """The picture of one cast: its kind (:data:`KINDS`) and the engine's chart it is drawn from —
    ``engine.liuren.Chart``, ``engine.liuyao.Chart`` or ``engine.qizheng.QizhengChart`` (with ``place``, the
    ``engine.qizheng.Place`` its header names, if any)."""

    kind: str
    chart: Any
    place: Any = None
    # 大六壬: the asker's 本命 and 行年 干支 (``bot.images.liuren.NianMing``) the picture marks on its board
    nianming: tuple[Any, Any] = (None, None)


def scene(picture: Picture, lang: str) -> Scene:
    """The scene of a cast's picture in ``lang`` (``bot.images``' layouts): what :func:`render` draws, and what
    the language tests read the picture's words from."""
    if picture.kind == "cast":
        from bot.images import liuren as liuren_picture

        return liuren_picture.layout(picture.chart, lang, picture.nianming).scene
    if picture.kind == "liuyao":
        from bot.images import liuyao as liuyao_picture

        return liuyao_picture.layout(picture.chart, lang).scene
    if picture.kind == "qizheng":
        from bot.images import qizheng as qizheng_picture

        return qizheng_picture.layout(picture.chart, lang, picture.place).scene
    raise ValueError(f"no picture kind {picture.kind!r} (bot.pictures.KINDS)")


def render(picture: Picture | None, lang: str) -> bytes | None:
    """The PNG of a cast's picture in ``lang``; None for a reply without one. A 大六壬 picture is kept by its
    chart's inputs (:func:`liuren_png`), the others by their scene (:func:`png_of`)."""
    if picture is None:
        return None
    if picture.kind == "cast":
        return liuren_png(picture.chart, lang, picture.nianming)
    return png_of(scene(picture, lang))


# Drawing is 1–5 ms of CPU (Pillow rasterising and PNG encoding: ``bench/images.py``) against ~1 ms for the
# chart and its scene, and many replies draw the same scene: every ``/cast now`` of one 時辰 in one language,
# a page button that puts the picture back. The PNG is a pure function of the scene (``bot.images.draw``), so
# the last scenes keep their bytes (≈ 40–100 KiB each), at most PICTURES_KEPT and PICTURES_BYTES of PNGs
# (issue 36 item 7; a scene, the key, is counted as SCENE_BYTES: its items are mostly shared, ``kept_text``).
PICTURES_KEPT = 128
# 六爻 and 七政 pictures (hit rate 0.01 over bench/memory.py's mix: a new chart each)
PICTURES_BYTES = 1 << 20
LIUREN_PICTURES_BYTES = 2 << 20  # 大六壬 pictures: every ``/cast now`` of the hour shares one (hit rate 0.22)
SCENE_BYTES = 8 << 10


def _png_bytes(png: bytes) -> int:
    return len(png) + SCENE_BYTES


@cached("pictures.png", maxsize=PICTURES_KEPT, max_bytes=PICTURES_BYTES, size_of=_png_bytes)
def png_of(scene: Scene) -> bytes:
    """The PNG of a scene (cached, see above)."""
    from bot.images.draw import to_png

    return to_png(scene)


def liuren_key(chart: Chart, lang: str, ming: tuple[Any, Any] = (None, None)) -> tuple[object, ...]:
    """What the 大六壬 picture of a chart in a language is a function of: ``build_chart``'s arguments (day, 月將,
    占時, options, 晝夜 as decided) and the year and month pillars of the header (``bot.images.liuren.pillars``)
    — not the instant, so every ``/cast now`` of one 時辰 finds its PNG without laying out its scene again
    (the layout, hashing and comparing the scene were ≈ 0.12 ms, issue 18; ``tests/images/
    test_picture_cache.py`` checks that equal keys lay out equal scenes)."""
    m = chart.moment
    pillars = (m.year, m.month) if m is not None else None
    return (lang, chart.day, chart.month_general, chart.hour, chart.options, chart.daytime, pillars, ming)


liuren_picture_stats: Counter[str] = Counter()  # "hit" / "miss" of the look-ups (tests)
LIUREN_PICTURES: BoundedCache[tuple[object, ...], bytes] = BoundedCache(
    lambda: PICTURES_KEPT,
    liuren_picture_stats,
    name="pictures.liuren",
    max_bytes=lambda: LIUREN_PICTURES_BYTES,
    size_of=len,
)  # ≈ 60 KiB each: ≈ 100 of them
_liuren_lock = threading.Lock()  # a picture may be drawn on any thread (the loop, the CLI's, a test's)


def liuren_png(chart: Chart, lang: str, ming: tuple[Any, Any] = (None, None)) -> bytes:
    """The PNG of a 大六壬 chart in a language, with the asker's 本命 and 行年 if given (kept by
    :func:`liuren_key`)."""
    from bot.images.draw import to_png

    key = liuren_key(chart, lang, ming)
    with _liuren_lock:
        png = LIUREN_PICTURES.find(key)
    if png is None:
        png = to_png(scene(Picture("cast", chart, nianming=ming), lang))
        with _liuren_lock:
            LIUREN_PICTURES.keep(key, png)
    return png


__all__ = [
    "FILENAME",
    "KINDS",
    "MEDIA_TYPE",
    "PICTURE_PAGES",
    "Picture",
    "render",
    "scene",
]
