"""Chart pictures: pure renderers, chart in, PNG bytes out (issue 14). No I/O, no platform code.

    from bot.images import render_liuren, render_liuyao, render_qizheng
    png = render_liuren(chart, "ko")                 # engine.liuren.Chart
    png = render_liuyao(chart, "lzh")                # engine.liuyao.LiuyaoChart
    png = render_qizheng(chart, "ko", place=place)   # engine.qizheng.QizhengChart (+ optional Place)

Each renderer is ``layout`` (a pure model of where everything is placed, see the per-chart modules) followed
by ``draw.to_png``; the same chart and language give the same pixels
(docs/images.md "Quality": the deflated bytes are not promised to repeat). Sizes: 1080 px wide, opaque.
"""

from __future__ import annotations

from bot.images import liuren, liuyao, qizheng
from bot.images.draw import to_png
from engine.liuren import Chart
from engine.liuyao import LiuyaoChart
from engine.qizheng import Place, QizhengChart

MEDIA_TYPE = "image/png"


def render_liuren(chart: Chart, lang: str) -> bytes:
    """The 大六壬 天地盤 with 四課, 三傳 and the header, as PNG bytes."""
    return to_png(liuren.layout(chart, lang).scene)


def render_liuyao(chart: LiuyaoChart, lang: str) -> bytes:
    """The 六爻 本卦 and 變卦 with 六神, 六親, 納甲, 世應 and 伏神, as PNG bytes."""
    return to_png(liuyao.layout(chart, lang).scene)


def render_qizheng(chart: QizhengChart, lang: str, place: Place | None = None) -> bytes:
    """The 七政四餘 wheel (12 palaces, 28 宿, eleven bodies) with the birth data, as PNG bytes."""
    return to_png(qizheng.layout(chart, lang, place).scene)


__all__ = ["MEDIA_TYPE", "render_liuren", "render_liuyao", "render_qizheng"]
