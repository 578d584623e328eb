"""Where a command's latency goes: timestamps per update, for ``bench/bot.py --trace`` (issue #18).

Benchmark-only instrumentation: nothing here is imported by the bot. In the bot's process
(``bench/bot.py``'s unpaced sikpan child) :func:`install` wraps, by monkey-patching, the stages of one update
and stamps each with ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux: the same clock in every process, so
the driver's stamps line up with the bot's):

- ``fetched``: the update read from the ``getUpdates`` answer (``bot.telegram.PollingBot.get_updates``
  returned it to PTB's ``Updater``), with ``batch``, the number of updates in that answer;
- ``started``: the application's handlers started on it (``Application.process_update``);
  ``dispatch_start`` / ``dispatched``: the command run (``dispatch``); ``rendered``: the reply's text
  rendered (``bot.views.render``);
- ``draw_start`` / ``draw_end``: the reply's picture drawn (``bot.pictures.render``, on the loop; None
  at once for a reply without one);
- ``send_start`` / ``http_start`` / ``http_end``: ``TelegramAdapter.send`` called, the first HTTP request
  of the reply sent (after the sender's queue and limits), the last answered.

Beside them: the event loop's lag (a task asking to wake every 2 ms, each wake later than 5 ms noted) and
every garbage collection longer than 1 ms. :func:`dump` writes all of it as JSON when the bot stops.
The fake Bot API's process (``bench/bot.py``'s ``_bench_fake``, not the users' driver) adds ``pushed`` (the
update queued), ``answered`` (its ``getUpdates`` answer that held it) and ``reply`` (it accepted the reply),
and its own loop's lag;
:func:`breakdown` joins both sides per update and tells, for the slowest 1 % of commands against the median
ones, the mean time spent between consecutive stages.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import json
import time
from typing import Any

STAMPS: dict[int, dict[str, float]] = {}
LAGS: list[tuple[float, float]] = []  # (when, how late) of each wake-up later than LAG_NOTED
GCS: list[
    tuple[float, float, int, float]
] = []  # (start, seconds, generation, CPU seconds): collections over 1 ms
LAG_TICK = 0.002
LAG_NOTED = 0.005
_current: contextvars.ContextVar[int | None] = contextvars.ContextVar("bench_update", default=None)


def stamp(update_id: int | None, stage: str, *, first: bool = True) -> None:
    if update_id is None:
        return
    row = STAMPS.setdefault(update_id, {})
    if first and stage in row:
        return
    row[stage] = time.perf_counter()


async def watch_lag(lags: list[tuple[float, float]]) -> None:
    """Until cancelled: note every wake-up of this loop later than LAG_NOTED."""
    while True:
        due = time.perf_counter() + LAG_TICK
        await asyncio.sleep(LAG_TICK)
        late = time.perf_counter() - due
        if late > LAG_NOTED:
            lags.append((due, late))


def _watch_gc() -> None:
    started: list[float] = [0.0, 0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[:] = time.perf_counter(), time.thread_time()
        else:
            spent = time.perf_counter() - started[0]
            if spent > 0.001:  # wall time (the CPU time of the collection: the fourth)
                GCS.append(
                    (started[0], spent, int(info.get("generation", -1)), time.thread_time() - started[1])
                )

    gc.callbacks.append(callback)


def install() -> None:
    """Wrap the stages of an update in this (the bot's) process; see the module docstring."""
    from telegram.ext import Application

    import bot.telegram as tg
    from bot import pictures
    from bot.telegram.aiohttprequest import AiohttpRequest

    orig_get_updates = tg.PollingBot.get_updates

    async def get_updates(self: Any, *args: Any, **kwargs: Any) -> Any:
        updates = await orig_get_updates(self, *args, **kwargs)
        for update in updates:
            stamp(update.update_id, "fetched")
            STAMPS[update.update_id]["batch"] = len(updates)
        return updates

    tg.PollingBot.get_updates = get_updates  # type: ignore[method-assign]

    orig_process = Application.process_update

    async def process(self: Any, update: Any) -> None:
        update_id = getattr(update, "update_id", None)
        _current.set(update_id)
        stamp(update_id, "started")
        await orig_process(self, update)

    Application.process_update = process  # type: ignore[method-assign]

    orig_dispatch = tg.dispatch

    async def dispatch(*args: Any, **kwargs: Any) -> Any:
        stamp(_current.get(), "dispatch_start")
        try:
            return await orig_dispatch(*args, **kwargs)
        finally:
            stamp(_current.get(), "dispatched")

    tg.dispatch = dispatch  # type: ignore[assignment]

    orig_render = tg.render

    def render(*args: Any, **kwargs: Any) -> Any:
        try:
            return orig_render(*args, **kwargs)
        finally:
            stamp(_current.get(), "rendered")

    tg.render = render  # type: ignore[assignment]

    orig_picture = pictures.render

    def picture(src: Any, lang: str) -> Any:
        uid = _current.get()
        stamp(uid, "draw_start")
        try:
            return orig_picture(src, lang)
        finally:
            stamp(uid, "draw_end")

    pictures.render = picture  # type: ignore[assignment]

    orig_send = tg.TelegramAdapter.send

    async def send(self: Any, *args: Any, **kwargs: Any) -> Any:
        stamp(_current.get(), "send_start")
        try:
            return await orig_send(self, *args, **kwargs)
        finally:
            stamp(_current.get(), "send_end")

    tg.TelegramAdapter.send = send  # type: ignore[method-assign]

    orig_post = AiohttpRequest.do_request  # every request of the transport goes through it

    async def post(self: Any, *args: Any, **kwargs: Any) -> Any:
        uid = _current.get()
        stamp(uid, "http_start")
        try:
            return await orig_post(self, *args, **kwargs)
        finally:
            stamp(uid, "http_end", first=False)

    AiohttpRequest.do_request = post  # type: ignore[method-assign]
    _watch_gc()


def _heap() -> dict[str, Any]:
    """What the collector still scans: the commonest types and the largest containers."""
    import collections

    objects = gc.get_objects()
    kinds = collections.Counter(type(o).__name__ for o in objects)
    sized = sorted(
        ((len(o), type(o).__name__, repr(o)[:80]) for o in objects if isinstance(o, (dict, list, set))),
        reverse=True,
    )[:8]
    return {"types": kinds.most_common(12), "largest": sized}


def dump(path: str) -> None:
    heap = _heap()
    with open(path, "w") as f:
        json.dump({"stamps": STAMPS, "lags": LAGS, "gcs": GCS, "objects": len(gc.get_objects()),
                   "frozen": gc.get_freeze_count(), "gc_stats": gc.get_stats(), "heap": heap}, f)  # fmt: skip


# --------------------------------------------------------------------------------------- the report
STAGES = (
    ("pushed", "answered", "update held by the fake until a getUpdates"),
    ("answered", "fetched", "getUpdates answer → read in the bot"),
    ("fetched", "started", "read → its task started"),
    ("started", "dispatch_start", "task → dispatch (admission, user)"),
    ("dispatch_start", "dispatched", "dispatch (command, storage)"),
    ("dispatched", "rendered", "render the text"),
    ("rendered", "draw_start", "keyboard"),
    ("draw_start", "draw_end", "picture: drawing (wall time)"),
    ("draw_end", "send_start", "→ send"),
    ("send_start", "http_start", "send: sender queue, limits"),
    ("http_start", "reply", "HTTP request until the fake accepted it"),
)


def _overlapping(events: list[tuple[float, float]], start: float, end: float) -> float:
    """Seconds of the (start, length) events inside [start, end]."""
    return sum(max(0.0, min(end, s + d) - max(start, s)) for s, d in events)


def breakdown(
    bot: dict[str, Any], driver: dict[int, dict[str, float]], fake_lags: list[tuple[float, float]]
) -> dict[str, Any]:
    """Per-stage mean milliseconds of the slowest 1 % and 5 % of commands and of the middle ones (40–60 %)."""
    rows = []
    for uid, side in driver.items():
        row = {**bot["stamps"].get(str(uid), {}), **side}
        if "reply" in row and "pushed" in row:
            row["total"] = row["reply"] - row["pushed"]
            rows.append(row)
    rows.sort(key=lambda r: r["total"])
    n = len(rows)
    if not n:
        return {}
    window = (min(r["pushed"] for r in rows), max(r["reply"] for r in rows))  # the measured commands
    in_window = [g for g in bot["gcs"] if window[0] <= g[0] <= window[1]]
    gcs = [(s, d) for s, d, _, _ in in_window]
    bot_lags = [(t, d) for t, d in bot["lags"] if window[0] <= t <= window[1]]
    fake_lags = [(t, d) for t, d in fake_lags if window[0] <= t <= window[1]]

    def summary(group: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"commands": len(group)}
        out["total_ms"] = round(sum(r["total"] for r in group) / len(group) * 1000, 1)
        for a, b, label in STAGES:
            spans = [r[b] - r[a] for r in group if a in r and b in r]
            if spans:
                out[f"{a}→{b}"] = {
                    "ms": round(sum(spans) / len(spans) * 1000, 2),
                    "n": len(spans),
                    "what": label,
                }
        out["batch_mean"] = round(sum(r.get("batch", 0) for r in group) / len(group), 1)
        # of each command's time, how much its bot's loop was late / collecting garbage / the fake's loop late
        for name, events in (("bot_loop_lag", bot_lags), ("bot_gc", gcs), ("fake_loop_lag", fake_lags)):
            spent = [_overlapping(events, r["pushed"], r["reply"]) for r in group]
            out[f"{name}_ms"] = round(sum(spent) / len(spent) * 1000, 2)
        return out

    return {
        "slowest_1pct": summary(rows[max(0, n - max(1, n // 100)) :]),
        "slowest_5pct": summary(rows[max(0, n - max(1, n // 20)) :]),
        "median_band": summary(rows[int(n * 0.4) : max(int(n * 0.6), int(n * 0.4) + 1)]),
        "bot_gc_over_1ms": {  # while the measured commands ran, by generation
            str(g): {
                "count": len(ds), "max_ms": round(max(d for d, _ in ds) * 1000, 1),
                "total_ms": round(sum(d for d, _ in ds) * 1000), "cpu_ms": round(sum(c for _, c in ds) * 1000),
            }
            for g in (0, 1, 2) if (ds := [(d, c) for _, d, gen, c in in_window if gen == g])
        },
        "bot_heap": {"tracked_objects": bot["objects"], "frozen": bot["frozen"], "collections": bot["gc_stats"], **bot["heap"]},
        "bot_loop_lags_over_5ms": {
            "count": len(bot_lags), "max_ms": round(max((d for _, d in bot_lags), default=0) * 1000, 1),
        },
        "fake_loop_lags_over_5ms": {
            "count": len(fake_lags), "max_ms": round(max((d for _, d in fake_lags), default=0) * 1000, 1),
        },
    }  # fmt: skip
