"""The arithmetic of ``bench/bot.py``'s figures (issue #18): percentiles, ratios per run, their median and range over
``--repeat`` runs, and the bot's CPU split by thread from two snapshots of ``/proc/<pid>/task``."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

# a thread's (name, CPU seconds: user + system), by thread id
Snapshot = Mapping[int, tuple[str, float]]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (linear between the two nearest ranks); NaN when there are none."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator`` rounded to 3 places; ``None`` when either is missing or the floor is 0."""
    if numerator is None or not denominator:
        return None
    return round(numerator / denominator, 3)


def spread(values: Sequence[float | None]) -> dict[str, float] | None:
    """Median, min and max of the values present; ``None`` when none is."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    return {"median": round(statistics.median(present), 3), "min": min(present), "max": max(present)}


def pair_ratios(sikpan: Mapping[str, Any], echo: Mapping[str, Any]) -> dict[str, float | None]:
    """One run's ratios: sikpan's CPU per command against the echo bot's (whole process), and sikpan's
    event loop thread alone against the whole echo bot."""
    floor = echo.get("cpu_ms_per_command")
    return {
        "cpu_ratio": ratio(sikpan.get("cpu_ms_per_command"), floor),
        "loop_cpu_ratio": ratio(sikpan.get("loop_cpu_ms_per_command"), floor),
    }


def cpu_ratios(pair: Mapping[str, Mapping[str, Any]], order: Sequence[str]) -> dict[str, float | None]:
    """One run's CPU per command of each bot over each bot after it in ``order`` (both measured in the
    run), keyed ``"a/b"``: sikpan over each floor, a heavier floor over a lighter one."""
    present = [kind for kind in order if kind in pair]
    return {
        f"{a}/{b}": ratio(pair[a].get("cpu_ms_per_command"), pair[b].get("cpu_ms_per_command"))
        for i, a in enumerate(present)
        for b in present[i + 1 :]
    }


def ratio_spreads(runs: Sequence[Mapping[str, float | None]]) -> dict[str, dict[str, float] | None]:
    """Over the runs' :func:`cpu_ratios`: each ratio's median, min and max (:func:`spread`)."""
    keys = list(dict.fromkeys(key for run in runs for key in run))
    return {key: spread([run.get(key) for run in runs]) for key in keys}


def summary(
    runs: Sequence[Mapping[str, Any]], keys: Sequence[str] = ("cpu_ratio", "loop_cpu_ratio")
) -> dict[str, Any]:
    """Over the runs: ``<key>`` = the median of each key's values, ``<key>_range`` = [min, max]."""
    out: dict[str, Any] = {}
    for key in keys:
        s = spread([run.get(key) for run in runs])
        if s is not None:
            out[key] = s["median"]
            out[f"{key}_range"] = [s["min"], s["max"]]
    return out


def thread_split(
    before: Snapshot, after: Snapshot, main: int, process_seconds: float, commands: int
) -> dict[str, Any]:
    """ms of CPU per command: ``loop`` (the main thread, the event loop), ``other`` (the process's time
    less the loop's: every other thread, those that ended in between too) and ``named``, each thread alive
    at the end by its name (threads with one name summed: ``asyncio_0``, …; a thread
    started in between counts from 0)."""
    if commands <= 0:
        return {"loop": None, "other": None, "named": {}}
    per = 1000 / commands
    loop = after.get(main, ("", 0.0))[1] - before.get(main, ("", 0.0))[1]
    named: dict[str, float] = {}
    for tid, (name, seconds) in after.items():
        if tid == main:
            continue
        spent = seconds - before.get(tid, (name, 0.0))[1]
        named[name] = named.get(name, 0.0) + spent
    return {
        "loop": round(loop * per, 3),
        "other": round((process_seconds - loop) * per, 3) + 0.0,  # no -0.0
        "named": {name: round(s * per, 3) for name, s in sorted(named.items()) if s > 0},
    }
