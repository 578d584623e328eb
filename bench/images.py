"""Benchmark: time to render one chart picture (chart object in, PNG bytes out), per chart type.

Run: ``.venv/bin/python bench/images.py [--rounds N]``. The charts are built once (the chart computation is
not timed); each round renders a different chart of the type (varying day/局, coins, birth instant), after
one warm-up render that loads the font. Prints, per type, the median, 90th percentile and maximum in ms, the
image size and the PNG size. Target (issue 14): median ≤ 50 ms per image.

Stages are also reported separately: ``layout`` (pure model and scene), ``draw`` (Pillow rasterising),
``png`` (``draw.encode``: mapping to the fixed palette and zlib encoding).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image  # noqa: E402

from bot.images import draw, liuren, liuyao, qizheng  # noqa: E402
from bot.images.scene import Scene  # noqa: E402
from engine.core.cycle import Branch, GanZhi  # noqa: E402
from engine.liuren import chart_for_ju  # noqa: E402
from engine.liuyao import build_chart, cast_manual  # noqa: E402
from engine.qizheng import find_place, natal_chart  # noqa: E402


def charts(n: int) -> dict[str, list[Callable[[], Scene]]]:
    seoul = find_place("서울")
    coins = ["797979", "686868", "877777", "777887", "696969", "788878", "978676", "667799"]
    start = datetime.fromisoformat("1990-05-17T14:30+09:00")
    lr = [chart_for_ju(GanZhi.of(7 * i % 60), i % 12 + 1) for i in range(n)]
    ly = [
        build_chart(cast_manual(coins[i % len(coins)]), Branch(i % 12), GanZhi.of(i % 60)) for i in range(n)
    ]
    qz = [natal_chart(start + timedelta(days=37 * i), seoul.lon, seoul.lat) for i in range(min(n, 12))]
    return {
        "liuren": [partial(lambda c: liuren.layout(c, "ko").scene, c) for c in lr],
        "liuyao": [partial(lambda c: liuyao.layout(c, "ko").scene, c) for c in ly],
        "qizheng": [partial(lambda c: qizheng.layout(c, "ko", seoul).scene, c) for c in qz],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    print(f"{'chart':8} {'median':>8} {'p90':>8} {'max':>8}   {'layout':>7} {'draw':>7} {'png':>7}   size")
    for name, scenes in charts(args.rounds).items():
        draw.to_png(scenes[0]())  # warm-up: font faces, catalogs
        total: list[float] = []
        stages: dict[str, list[float]] = {"layout": [], "draw": [], "png": []}
        size, nbytes = (0, 0), 0
        for i in range(args.rounds):
            t0 = time.perf_counter()
            scene = scenes[i % len(scenes)]()
            t1 = time.perf_counter()
            image = draw.render(scene)
            t2 = time.perf_counter()
            png = draw.encode(image)
            t3 = time.perf_counter()
            total.append((t3 - t0) * 1000)
            for key, dt in (("layout", t1 - t0), ("draw", t2 - t1), ("png", t3 - t2)):
                stages[key].append(dt * 1000)
            size, nbytes = image.size, len(png)
        assert Image.open(io.BytesIO(png)).size == size
        q = statistics.quantiles(total, n=10)
        med = {k: statistics.median(v) for k, v in stages.items()}
        print(
            f"{name:8} {statistics.median(total):8.1f} {q[-1]:8.1f} {max(total):8.1f}   "
            f"{med['layout']:7.1f} {med['draw']:7.1f} {med['png']:7.1f}   "
            f"{size[0]}×{size[1]} px, {nbytes // 1024} KiB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
