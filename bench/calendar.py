"""Benchmark: cost of one 四柱 conversion, ours next to lunar_python, tyme4py and sxtwl (same run), and the
accuracy of each peer's solar-term instants against our shipped DE440 table over 1900–2100.

Run: ``.venv/bin/python bench/calendar.py [--quick]``. Peers come from the ``bench`` extra
(``pip install -e '.[bench]'``); a peer that is not installed is reported and skipped.
Peers take a UTC+8 (Beijing) wall clock, so every instant is handed to them as its +08:00 wall clock and
their term times are read as UTC+8.
"""

from __future__ import annotations

import argparse
import bisect
import importlib
import statistics
import sys
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import per_call, random_instants  # noqa: E402

from engine.calendar import four_pillars, solar_terms  # noqa: E402
from engine.calendar.terms import TERM_ALIASES, TERM_NAMES  # noqa: E402

CST = timezone(timedelta(hours=8))
PINYIN = {
    "DONG_ZHI": "冬至", "XIAO_HAN": "小寒", "DA_HAN": "大寒", "LI_CHUN": "立春", "YU_SHUI": "雨水",
    "JING_ZHE": "驚蟄", "DA_XUE": "大雪",
}  # fmt: skip


def normalize(name: str) -> str:
    name = PINYIN.get(name, name)
    return TERM_ALIASES.get(name, name)


# --- pillar functions: each returns (year, month, day, hour) 干支 strings -------------------------------------


def ours(at: datetime) -> tuple[str, str, str, str]:
    p = four_pillars(at)
    return p.year.chars, p.month.chars, p.day.chars, p.hour.chars


def make_lunar_python() -> Callable[[datetime], tuple[str, str, str, str]]:
    solar = importlib.import_module("lunar_python").Solar

    def call(at: datetime) -> tuple[str, str, str, str]:
        e = (
            solar.fromYmdHms(at.year, at.month, at.day, at.hour, at.minute, at.second)
            .getLunar()
            .getEightChar()
        )
        return e.getYear(), e.getMonth(), e.getDay(), e.getTime()

    return call


def make_tyme4py() -> Callable[[datetime], tuple[str, str, str, str]]:
    solar_time = importlib.import_module("tyme4py.solar").SolarTime

    def call(at: datetime) -> tuple[str, str, str, str]:
        e = solar_time.from_ymd_hms(at.year, at.month, at.day, at.hour, at.minute, at.second).get_lunar_hour()
        e = e.get_eight_char()
        return str(e.get_year()), str(e.get_month()), str(e.get_day()), str(e.get_hour())

    return call


def make_sxtwl() -> Callable[[datetime], tuple[str, str, str, str]]:
    sxtwl = importlib.import_module("sxtwl")
    stems, branches = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"

    def s(g: object) -> str:
        return stems[g.tg] + branches[g.dz]  # type: ignore[attr-defined]

    def call(at: datetime) -> tuple[str, str, str, str]:
        d = sxtwl.fromSolar(at.year, at.month, at.day)
        return s(d.getYearGZ()), s(d.getMonthGZ()), s(d.getDayGZ()), s(d.getHourGZ(at.hour))

    return call


# --- term instants of each peer: list of (k, unix seconds) ----------------------------------------------------


def cst_unix(y: int, mo: int, d: int, h: int, mi: int, s: float) -> float:
    return datetime(y, mo, d, h, mi, tzinfo=CST).timestamp() + s


def jd_cst_unix(jd: float) -> float:
    return (jd - 2440587.5) * 86400.0 - 8 * 3600.0


def terms_lunar_python() -> list[tuple[int, float]]:
    solar = importlib.import_module("lunar_python").Solar
    out = {}
    for year in range(1900, 2102):
        table = solar.fromYmd(year, 6, 1).getLunar().getJieQiTable()
        for name, s in table.items():
            k = TERM_NAMES.index(normalize(name))
            t = cst_unix(s.getYear(), s.getMonth(), s.getDay(), s.getHour(), s.getMinute(), s.getSecond())
            out[(k, round(t / 86400))] = (k, t)
    return list(out.values())


def terms_tyme4py() -> list[tuple[int, float]]:
    term = importlib.import_module("tyme4py.solar").SolarTerm
    out = []
    for year in range(1900, 2102):
        for i in range(24):
            st = term.from_index(year, i)
            k = TERM_NAMES.index(normalize(st.get_name()))
            out.append((k, jd_cst_unix(st.get_julian_day().get_day())))
    return out


def terms_sxtwl() -> list[tuple[int, float]]:
    sxtwl = importlib.import_module("sxtwl")
    out = {}
    for year in range(1900, 2102):
        for info in sxtwl.getJieQiByYear(year):
            k = (18 + info.jqIndex) % 24  # jqIndex 0 = 冬至
            t = jd_cst_unix(info.jd)
            out[(k, round(t / 86400))] = (k, t)
    return list(out.values())


def accuracy(peer_terms: list[tuple[int, float]]) -> dict[str, tuple[float, float, int]]:
    """max / mean |peer − ours| in seconds for 1900–2025 and 2026–2100, matching each of our terms."""
    ours_terms = solar_terms(1900, 2100)
    by_k: dict[int, list[float]] = {}
    for k, t in peer_terms:
        by_k.setdefault(k, []).append(t)
    for v in by_k.values():
        v.sort()
    spans: dict[str, list[float]] = {"1900–2025": [], "2026–2100": [], "1900–2100": []}
    for term in ours_terms:
        cands = by_k.get(term.k, [])
        ref = term.at.timestamp()
        i = bisect.bisect_left(cands, ref)
        best = min((abs(c - ref) for c in cands[max(0, i - 1) : i + 1]), default=None)
        if best is None or best > 5 * 86400:
            continue
        spans["1900–2025" if term.at.year <= 2025 else "2026–2100"].append(best)
        spans["1900–2100"].append(best)
    return {key: (max(v), statistics.fmean(v), len(v)) for key, v in spans.items() if v}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer instants and rounds")
    args = parser.parse_args()
    n_ours, n_peer, rounds = (2000, 100, 3) if args.quick else (20000, 400, 5)
    instants = random_instants(max(n_ours, n_peer), CST, 1900, 2100)

    peers: dict[
        str, tuple[Callable[[], Callable[[datetime], tuple[str, str, str, str]]], Callable[[], list]]
    ] = {
        "lunar_python": (make_lunar_python, terms_lunar_python),
        "tyme4py": (make_tyme4py, terms_tyme4py),
        "sxtwl": (make_sxtwl, terms_sxtwl),
    }
    print(f"python {sys.version.split()[0]}; {n_ours} random instants 1900–2100 (ours), {n_peer} (peers)")
    print()
    print(f"{'library':<14}{'µs/call (median)':>18}{'× ours':>10}   pillar mismatches vs ours")
    base = per_call(ours, instants[:n_ours], rounds)
    print(f"{'sikpan':<14}{base:>18.2f}{1.0:>10.1f}")
    timings: dict[str, float] = {}
    for name, (make, _terms) in peers.items():
        try:
            fn = make()
        except Exception as exc:  # noqa: BLE001 - report and continue
            print(f"{name:<14}{'not installed':>18}   ({type(exc).__name__}: {exc})")
            continue
        cost = per_call(fn, instants[:n_peer], rounds)
        timings[name] = cost
        mism = [0, 0, 0, 0, 0]
        for at in instants[:n_peer]:
            for j, (a, b) in enumerate(zip(ours(at), fn(at))):
                if j == 2 and at.hour == 23:
                    mism[4] += a != b  # 子初換日: we advance the day at 23:00, they at midnight
                else:
                    mism[j] += a != b
        print(
            f"{name:<14}{cost:>18.2f}{cost / base:>10.1f}   year {mism[0]} month {mism[1]} day {mism[2]} "
            f"hour {mism[3]} (+ day {mism[4]} at 23:00–24:00, convention)"
        )
    print()
    print("term instants vs our DE440 table (seconds; peers read as UTC+8):")
    print(
        f"{'library':<14}{'1900–2025 max/mean':>22}{'2026–2100 max/mean':>22}{'1900–2100 max/mean':>22}{'terms':>7}"
    )
    for name, (_make, terms) in peers.items():
        try:
            acc = accuracy(terms())
        except ModuleNotFoundError as exc:
            print(f"{name:<14}not installed ({exc})")
            continue
        cells = [
            f"{acc[s][0]:.2f} / {acc[s][1]:.2f}" if s in acc else "-"
            for s in ("1900–2025", "2026–2100", "1900–2100")
        ]
        count = acc.get("1900–2100", (0, 0, 0))[2]
        print(f"{name:<14}{cells[0]:>22}{cells[1]:>22}{cells[2]:>22}{count:>7}")
    if "lunar_python" in timings:
        print()
        print(
            f"speed-up over lunar_python: {timings['lunar_python'] / base:.0f}× (target ≥ 40×); ours {base:.2f} µs (target < 50 µs)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
