"""Benchmark: time to render one chart picture (chart object in, PNG bytes out), per chart type.

Run: ``.venv/bin/python bench/images.py [--rounds N] [--against DIR] [--encodings]``. The charts are built
once (the chart computation is not timed); each round renders a different chart of the type (varying day/局,
coins, birth instant), after one warm-up render that loads the font. Prints, per type, the median, 90th
percentile and maximum wall ms, the median CPU ms (process time: what a picture costs the bot's process on
a shared machine), the image size and the PNG size. Target (issue 14): median ≤ 50 ms per image.

Stages are also reported separately (CPU ms): ``layout`` (pure model and scene), ``draw`` (Pillow
rasterising on the fixed palette, on the thread's canvas), ``png`` (deflating the canvas and the PNG chunks).

``--against DIR`` also times ``render_* → PNG bytes`` of the same charts with the checkout in DIR (for
example main before a change), in a subprocess, alternating with this checkout three times; it prints the
CPU ms per picture of both and their ratio (this / DIR), so both are measured under the same load; "again"
is a second pass over the same charts (the text-mask cache warm, as in a bot that has run for a while).
``--encodings`` prints, per type, the PNG CPU ms and size of Pillow's encoder at zlib levels and strategies
beside ``draw.encode`` (ISA-L, unfiltered rows: how ``draw.PNG_COMPRESS_LEVEL`` and the encoder were chosen).

``--kind liuyao`` (or ``liuren``, ``qizheng``) times only that chart type's two drawing stages (drawing on the
thread's canvas, deflating it; ``draw.render`` and ``draw.encode`` in a checkout from before the canvas) and
``draw.to_png`` whole, as CPU of the drawing thread (``time.thread_time``) per picture, over ``--rounds``
different charts (六爻: coins tossed by a seeded RNG, as the bot tosses them, 40 charts by default), in a
fresh process three times; with ``--against DIR`` alternating with the checkout in DIR, then the ranges of
both and the ratios of their medians (issue 18). The charts are drawn once before they are timed, so every
cache holds them; ``--new`` times charts not drawn before, after 4 × ``--rounds`` others (what a new 六爻
cast costs the bot: its title and header lines are new, issue 31 item 8); ``--lang lzh`` the Chinese pictures.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
import zlib
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


CPU = time.process_time

# Times render → PNG bytes with the public renderers of the checkout on sys.path[0] (argv: root, rounds) for
# the charts of :func:`charts`; prints one JSON line {chart: CPU ms per picture}. Only APIs that exist since
# issue 14, so an older checkout runs it too.
PICTURE_CPU = """
import json, sys, time
from datetime import datetime, timedelta
sys.path.insert(0, sys.argv[1])
from bot.images import render_liuren, render_liuyao, render_qizheng
from engine.core.cycle import Branch, GanZhi
from engine.liuren import chart_for_ju
from engine.liuyao import build_chart, cast_manual
from engine.qizheng import find_place, natal_chart
n = int(sys.argv[2])
seoul = find_place("서울")
coins = ["797979", "686868", "877777", "777887", "696969", "788878", "978676", "667799"]
start = datetime.fromisoformat("1990-05-17T14:30+09:00")
lr = [chart_for_ju(GanZhi.of(7 * i % 60), i % 12 + 1) for i in range(n)]
ly = [build_chart(cast_manual(coins[i % len(coins)]), Branch(i % 12), GanZhi.of(i % 60)) for i in range(n)]
qz = [natal_chart(start + timedelta(days=37 * i), seoul.lon, seoul.lat) for i in range(min(n, 12))]
runs = {
    "liuren": [lambda c=c: render_liuren(c, "ko") for c in lr],
    "liuyao": [lambda c=c: render_liuyao(c, "ko") for c in ly],
    "qizheng": [lambda c=c: render_qizheng(c, "ko", seoul) for c in qz],
}
out = {}
for name, renders in runs.items():
    renders[0]()
    for rerun in ("", " again"):  # again: the same charts a second time (caches warm, if any)
        t0 = time.process_time()
        for i in range(n):
            renders[i % len(renders)]()
        out[name + rerun] = (time.process_time() - t0) / n * 1000
print(json.dumps(out))
"""


# Times the drawing and the encoding (thread CPU, ms per picture) of one chart type with the checkout on
# sys.path[0] (argv: root, kind, rounds, language, "new" or "same"); the scenes are built first (not timed).
# "same": each drawn once to warm the caches (font, masks, base), then every scene drawn and encoded in turn,
# then ``draw.to_png`` of each (the whole, as ``bot.pictures`` calls it). "new" (``--new``, as the bot meets a
# new 六爻 cast: issue 31 item 8): 4 × rounds other charts drawn to warm the caches, then rounds charts not drawn
# before through the stages and another rounds through ``draw.to_png`` (their header lines and titles are new,
# their cells mostly met). Prints one JSON line.
STAGE_CPU = """
import json, random, sys, time
from datetime import datetime, timedelta
sys.path.insert(0, sys.argv[1])
from bot.images import draw, liuren, liuyao, qizheng
from engine.core.cycle import Branch, GanZhi
kind, n, lang, new = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5] == "new"
if kind == "liuyao":
    from engine.liuyao import build_chart, cast_coins
    def scene(i):
        rng = random.Random(i)  # "new": the month and day tossed too, as new casts of any day meet them
        month, day = Branch(i % 12), GanZhi.of(i * 7 % 60)
        if new:
            month, day = Branch(rng.randrange(12)), GanZhi.of(rng.randrange(60))
        return liuyao.layout(build_chart(cast_coins(rng), month, day), lang).scene
elif kind == "liuren":
    from engine.liuren import chart_for_ju
    def scene(i):  # "new": the 720 課 in turn (the same 60 day and 局 pairs recur every 60 charts)
        day, ju = (i % 60, i // 60 % 12 + 1) if new else (7 * i % 60, i % 12 + 1)
        return liuren.layout(chart_for_ju(GanZhi.of(day), ju), lang).scene
else:
    from engine.qizheng import find_place, natal_chart
    seoul = find_place("서울")
    start = datetime.fromisoformat("1990-05-17T14:30+09:00")
    def scene(i):
        return qizheng.layout(natal_chart(start + timedelta(days=37 * i), seoul.lon, seoul.lat), lang, seoul).scene
scenes = [scene(i) for i in range(n)]
wholes = [scene(i) for i in range(n, 2 * n)] if new else scenes
for warm in [scene(i) for i in range(2 * n, 6 * n)] if new else scenes:
    draw.to_png(warm)
# the stages as the bot runs them: drawn on the thread's canvas and deflated from it (issue 18), or, in a
# checkout from before the canvas, ``render`` (a fresh image) then ``encode``
paint, png = (draw._paint, draw._png) if hasattr(draw, "_paint") else (draw.render, draw.encode)
render = encode = 0.0
for scene in scenes:
    t0 = time.thread_time()
    image = paint(scene)
    t1 = time.thread_time()
    png(image)
    t2 = time.thread_time()
    render, encode = render + t1 - t0, encode + t2 - t1
t0 = time.thread_time()
for scene in wholes:
    draw.to_png(scene)
whole = time.thread_time() - t0
print(json.dumps({"render": render / n * 1000, "encode": encode / n * 1000, "to_png": whole / n * 1000}))
"""


STAGES = ("render", "encode", "to_png")


def stage_cpu(root: Path, kind: str, rounds: int, lang: str = "ko", new: bool = False) -> dict[str, float]:
    """Thread CPU ms per picture of ``draw.render`` and ``draw.encode`` in the checkout ``root``."""
    return run_figures(STAGE_CPU, root, kind, str(rounds), lang, "new" if new else "same")


def kind_stages(kind: str, rounds: int, other: Path | None, lang: str = "ko", new: bool = False) -> None:
    here = Path(__file__).resolve().parent.parent
    runs: dict[Path, list[dict[str, float]]] = {here: []} | ({other: []} if other is not None else {})
    for _ in range(3):
        for root, figures in runs.items():
            figures.append(stage_cpu(root, kind, rounds, lang, new))
    charts = f"{rounds} {'new charts (caches warm)' if new else 'charts'}, {lang}"
    print(f"{kind}: thread CPU ms per picture, {charts}, 3 fresh processes (min–max, median)")
    medians: dict[Path, dict[str, float]] = {}
    for root, figures in runs.items():
        medians[root] = {}
        cells = []
        for stage in STAGES:
            values = [f[stage] for f in figures]
            medians[root][stage] = statistics.median(values)
            cells.append(f"{stage} {min(values):.2f}–{max(values):.2f} ({medians[root][stage]:.2f})")
        print(f"  {str(root):40} " + "   ".join(cells))
    if other is not None:
        ratios = (f"{stage} {medians[here][stage] / medians[other][stage]:.2f}" for stage in STAGES)
        print("  ratio this / other: " + "   ".join(ratios))


def run_figures(script: str, root: Path, *args: str) -> dict[str, float]:
    """The JSON figures ``script`` prints last, run in a fresh process on the checkout in ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-c", script, str(root), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=root,
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def picture_cpu(root: Path, rounds: int) -> dict[str, float]:
    """CPU ms per picture (layout, draw, PNG) of the checkout in ``root``, in a fresh process."""
    return run_figures(PICTURE_CPU, root, str(rounds))


def against(other: Path, rounds: int) -> None:
    here = Path(__file__).resolve().parent.parent
    mine: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(3):
        theirs.append(picture_cpu(other, rounds))
        mine.append(picture_cpu(here, rounds))
    print(f"\nrender → PNG, CPU ms per picture (median of 3 alternating runs), this vs {other}:")
    for name in mine[0]:
        a = statistics.median(m[name] for m in mine)
        b = statistics.median(t[name] for t in theirs)
        print(f"  {name:8} {a:7.2f} vs {b:7.2f}   ratio {a / b:.2f}")


def encodings(scenes_by_chart: dict[str, list[Callable[[], Scene]]]) -> None:
    print("\nPNG encoding, CPU ms / KiB per picture (same drawn images):")
    print(
        "  Pillow's encoder (zlib, its filter choice) at a level and strategy, then draw.encode (ISA-L, filter 0)"
    )
    variants = [(1, zlib.Z_DEFAULT_STRATEGY), (3, zlib.Z_DEFAULT_STRATEGY), (6, zlib.Z_DEFAULT_STRATEGY)]
    variants += [(1, zlib.Z_RLE), (1, zlib.Z_FILTERED)]
    names = {zlib.Z_DEFAULT_STRATEGY: "default", zlib.Z_RLE: "rle", zlib.Z_FILTERED: "filtered"}
    for chart, scenes in scenes_by_chart.items():
        images = [draw.render(make()) for make in scenes[:12]]
        cells = []
        for level, strategy in variants:
            t0, size = CPU(), 0
            for image in images:
                out = io.BytesIO()
                image.save(out, format="PNG", compress_level=level, compress_type=strategy, optimize=False)
                size += len(out.getvalue())
            ms = (CPU() - t0) / len(images) * 1000
            cells.append(f"L{level} {names[strategy]} {ms:.1f} ms {size / len(images) / 1024:.0f} KiB")
        t0, size = CPU(), 0
        for image in images:
            size += len(draw.encode(image))
        ms = (CPU() - t0) / len(images) * 1000
        cells.append(f"isal L{draw.PNG_COMPRESS_LEVEL} (now) {ms:.1f} ms {size / len(images) / 1024:.0f} KiB")
        print(f"  {chart:8} " + " | ".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--against", type=Path, help="another checkout to time in the same run")
    parser.add_argument("--encodings", action="store_true", help="PNG CPU and size per zlib level/strategy")
    parser.add_argument("--kind", choices=("liuren", "liuyao", "qizheng"), help="render and encode CPU only")
    parser.add_argument(
        "--lang", choices=("ko", "lzh"), default="ko", help="with --kind: the pictures' language"
    )
    parser.add_argument(
        "--new", action="store_true", help="with --kind: charts not drawn before, caches warm"
    )
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    if args.kind is not None:
        other = args.against.resolve() if args.against is not None else None
        kind_stages(args.kind, args.rounds, other, args.lang, args.new)
        print(f"load average {os.getloadavg()[0]:.2f}")
        return 0
    print(
        f"{'chart':8} {'median':>7} {'p90':>7} {'max':>7} {'cpu':>7}   "
        f"{'layout':>7} {'draw':>7} {'png':>7}   size   (ms; stages CPU ms)"
    )
    built = charts(args.rounds)
    for name, scenes in built.items():
        draw.to_png(scenes[0]())  # warm-up: font faces, catalogs
        total: list[float] = []
        cpu: list[float] = []
        stages: dict[str, list[float]] = {"layout": [], "draw": [], "png": []}
        size, nbytes = (0, 0), 0
        for i in range(args.rounds):
            t0, c0 = time.perf_counter(), CPU()
            scene = scenes[i % len(scenes)]()
            c1 = CPU()
            canvas = draw._paint(scene)  # as ``draw.to_png``: drawn on the thread's canvas, deflated from it
            c2 = CPU()
            png = draw._png(canvas)
            t3, c3 = time.perf_counter(), CPU()
            total.append((t3 - t0) * 1000)
            cpu.append((c3 - c0) * 1000)
            for key, dt in (("layout", c1 - c0), ("draw", c2 - c1), ("png", c3 - c2)):
                stages[key].append(dt * 1000)
            size, nbytes = (canvas.width, canvas.height), len(png)
        assert Image.open(io.BytesIO(png)).size == size
        q = statistics.quantiles(total, n=10)
        med = {k: statistics.median(v) for k, v in stages.items()}
        print(
            f"{name:8} {statistics.median(total):7.1f} {q[-1]:7.1f} {max(total):7.1f} "
            f"{statistics.median(cpu):7.1f}   "
            f"{med['layout']:7.1f} {med['draw']:7.1f} {med['png']:7.1f}   "
            f"{size[0]}×{size[1]} px, {nbytes // 1024} KiB"
        )
    if args.encodings:
        encodings(built)
    if args.against is not None:
        against(args.against.resolve(), args.rounds)
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
