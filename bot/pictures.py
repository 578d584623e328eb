"""The chart picture of a reply, rebuilt from its stored inputs (issue 14): never kept in process memory.

A cast that has a picture carries a *picture source* (:attr:`bot.features.base.Reply.picture`): the kind of
the history row (``cast`` 大六壬, ``liuyao`` 六爻, ``qizheng`` 七政四餘), its ``inputs`` and its ``options`` — the
very values ``/history`` stores. :func:`render` casts the chart again from them (the engines are pure and
deterministic, so the same row gives the same picture) and draws it with :mod:`bot.images`; a page button
that must put the picture back (after a restart, on a message that has none) reads the row again
(:func:`stored_source`). The adapters call :func:`render` on the event loop, as part of the reply; the
renderers stay pure.

Drawn on the loop, not on a worker thread (issue 18): a new 六爻 or 大六壬 picture is 1–2.5 ms of CPU and a
七政 one ≈ 3–5 ms (``bench/all.py``), no more than the handler before it, while the hop to a drawing thread and
back — the worker woken on the other core, the loop's wake-up pipe, the result's callback — cost more than it
saved: ``bench/bot.py`` at 20 commands/s, seven pairs alternating (2026-12-02, Intel Xeon × 2), 3.01 against
3.21 ms of the process's CPU per command (0.94×), lower in six of the seven, p99 unchanged. A flood cannot
queue pictures: admission (``bot.admission``) refuses a flooding user before any work.

A row the engines can no longer cast (stored by an older version, an option that was removed) has no
picture: :func:`render` answers None and the reply goes out as text, as before pictures existed. The
daily reading's picture is :func:`bot.features.daily.reading.picture`.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.bounded import BoundedCache, cached
from engine.errors import EngineInputError

if TYPE_CHECKING:
    from bot.context import AppContext
    from bot.images.scene import Scene
    from engine.liuren import Chart

log = logging.getLogger(__name__)

FILENAME = "chart.png"
MEDIA_TYPE = "image/png"
KINDS = frozenset({"cast", "liuyao", "qizheng"})  # history kinds whose reply has a picture
# The page of each paged view that is the picture's own (盤): on Telegram it puts the picture back on a
# message that lost it; every other page of a photo message only changes the caption.
PICTURE_PAGES: Mapping[str, str] = {"cast": "brief", "qizheng": "brief"}


def source(kind: str, inputs: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any] | None:
    """The picture source of a cast (JSON), or None for a kind without a picture."""
    if kind not in KINDS:
        return None
    return {"kind": kind, "inputs": dict(inputs), "options": dict(options)}


async def stored_source(ctx: AppContext, user_key: str, number: int) -> dict[str, Any] | None:
    """The picture source of the stored history row ``number`` of ``user_key`` (None: gone, or no picture)."""
    entry = await ctx.storage.get_history(user_key, number)
    if entry is None:
        return None
    return source(entry.kind, entry.inputs, entry.options)


def render(src: Mapping[str, Any] | None, lang: str) -> bytes | None:
    """The PNG of a picture source in ``lang``; None when there is none or the row cannot be cast again."""
    if not src:
        return None
    kind, inputs, options = src.get("kind"), src.get("inputs") or {}, src.get("options") or {}
    try:
        if kind == "cast":
            return liuren_png(_liuren(inputs, options), lang)
        if kind == "liuyao":
            return png_of(_liuyao(inputs, options, lang))
        if kind == "qizheng":
            return png_of(_qizheng(inputs, options, lang))
    except (EngineInputError, KeyError, TypeError, ValueError) as exc:
        # a row this version cannot cast again: the reply is sent without its picture
        log.warning("pictures: %s row not drawable (%s: %s)", kind, type(exc).__name__, exc)
    return None


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


def liuren_key(chart: Chart, lang: str) -> tuple[object, ...]:
    """What the 大六壬 picture of a chart in a language is a function of: ``build_chart``'s arguments (day, 月將,
    占時, options, 晝夜 as decided) and the year and month pillars of the header (``bot.images.liuren.pillars``)
    — not the instant, so every ``/cast now`` of one 時辰 finds its PNG without laying out its scene again
    (the layout, hashing and comparing the scene were ≈ 0.12 ms, issue 18; ``tests/images/
    test_picture_cache.py`` checks that equal keys lay out equal scenes)."""
    m = chart.moment
    pillars = (m.year, m.month) if m is not None else None
    return (lang, chart.day, chart.month_general, chart.hour, chart.options, chart.daytime, pillars)


liuren_picture_stats: Counter[str] = Counter()  # "hit" / "miss" of the look-ups (tests)
LIUREN_PICTURES: BoundedCache[tuple[object, ...], bytes] = BoundedCache(
    lambda: PICTURES_KEPT,
    liuren_picture_stats,
    name="pictures.liuren",
    max_bytes=lambda: LIUREN_PICTURES_BYTES,
    size_of=len,
)  # ≈ 60 KiB each: ≈ 100 of them
_liuren_lock = threading.Lock()  # a picture may be drawn on any thread (the loop, the CLI's, a test's)


def liuren_png(chart: Chart, lang: str) -> bytes:
    """The PNG of a 大六壬 chart in a language (kept by :func:`liuren_key`)."""
    from bot.images import liuren as liuren_picture
    from bot.images.draw import to_png

    key = liuren_key(chart, lang)
    with _liuren_lock:
        png = LIUREN_PICTURES.find(key)
    if png is None:
        png = to_png(liuren_picture.layout(chart, lang).scene)
        with _liuren_lock:
            LIUREN_PICTURES.keep(key, png)
    return png


def _liuren(inputs: Mapping[str, Any], options: Mapping[str, Any]) -> Chart:
    from engine.calendar import DayStart
    from engine.core.cycle import Branch, GanZhi
    from engine.liuren import Options, build_chart, chart_at, chart_for_ju

    opts = Options.from_mapping(options)
    mode = inputs.get("mode")
    if mode == "ju":
        chart = chart_for_ju(GanZhi.parse(str(inputs["day"])), int(inputs["ju"]), opts)
    elif mode == "board":
        chart = build_chart(
            GanZhi.parse(str(inputs["day"])),
            Branch.from_char(str(inputs["month_general"])),
            Branch.from_char(str(inputs["hour"])),
            opts,
        )
    else:
        longitude = inputs.get("solar_longitude")
        latitude = inputs.get("latitude")
        chart = chart_at(
            datetime.fromisoformat(str(inputs["at"])),
            opts,
            day_starts=DayStart.parse(str(inputs.get("day_starts") or "23:00")),
            solar_longitude=float(longitude) if longitude is not None else None,
            latitude=float(latitude) if latitude is not None else None,
        )
    return chart


def _liuyao(inputs: Mapping[str, Any], options: Mapping[str, Any], lang: str) -> Scene:
    from bot.images import liuyao as liuyao_picture
    from engine.core.cycle import Branch, GanZhi
    from engine.liuyao import build_chart
    from engine.liuyao.cast import Cast, Method

    cast = inputs["cast"]
    opts = _liuyao_options(options)
    # the chart alone: the picture draws no judgment or verdict (``build`` reads them too: ≈ 0.2 ms)
    chart = build_chart(
        Cast(digits=str(cast["digits"]), method=Method(str(cast["method"]))),
        Branch.from_char(str(inputs["month"])),
        GanZhi.parse(str(inputs["day"])),
        use=inputs.get("use"),
        options=opts,
    )
    return liuyao_picture.layout(chart, lang).scene


def _liuyao_options(options: Mapping[str, Any]) -> Any:
    """``engine.liuyao.Options`` from its ``to_json`` form (each field parsed by its default's type)."""
    import dataclasses
    import enum

    from engine.core.cycle import Branch, Stem
    from engine.liuyao import Options

    defaults = Options()
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(Options):
        if f.name not in options:
            continue
        default, value = getattr(defaults, f.name), options[f.name]
        if isinstance(default, bool):
            kwargs[f.name] = bool(value)
        elif isinstance(default, Branch):
            kwargs[f.name] = Branch.from_char(str(value))
        elif isinstance(default, Stem):
            kwargs[f.name] = Stem.from_char(str(value))
        elif isinstance(default, enum.Enum):
            kwargs[f.name] = type(default)(value)
        else:
            kwargs[f.name] = value
    return Options(**kwargs)


def _qizheng(inputs: Mapping[str, Any], options: Mapping[str, Any], lang: str) -> Scene:
    from bot.images import qizheng as qizheng_picture
    from engine.qizheng import Place, QizhengOptions, natal_chart

    lat = inputs.get("lat")
    chart = natal_chart(
        datetime.fromisoformat(str(inputs["at"])),
        float(inputs["lon"]),
        float(lat) if lat is not None else None,
        QizhengOptions.from_json(dict(options)),
    )
    named = inputs.get("place")
    place = None
    if isinstance(named, Mapping) and named.get("name"):
        place = Place(
            name=str(named["name"]),
            ko=str(named.get("ko") or named["name"]),
            zh=str(named.get("zh") or named["name"]),
            country="",
            lat=float(lat) if lat is not None else 0.0,
            lon=float(inputs["lon"]),
            tz=str(inputs.get("zone") or "UTC"),
        )
    return qizheng_picture.layout(chart, lang, place).scene


__all__ = [
    "FILENAME",
    "KINDS",
    "MEDIA_TYPE",
    "PICTURE_PAGES",
    "render",
    "source",
    "stored_source",
]
