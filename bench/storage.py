"""Cost of one storage statement: the storage (SQLite on aiosqlite: a hop to the connection's thread per
statement) against its floor in the same run — the same statements through the standard library's
``sqlite3`` called on the event loop (no hop; the storage of main between #18 and #31) —, and on PostgreSQL
when one answers.

    .venv/bin/python bench/storage.py [--n 5000] [--pg postgresql://postgres@127.0.0.1:5432/test] [--json]
    .venv/bin/python bench/storage.py record [--n 500] [--rounds 3] [--against DIR] [--pg …] [--json]

Figures: CPU µs (process time: the loop's thread and aiosqlite's) and wall µs per call, for a user look-up
(``get_user``) and a history write (``add_history``); both SQLite variants in WAL mode with
``synchronous=FULL`` (SQLite syncs the log at every COMMIT).

``record``: ``bot.features.common.record_and_reply`` (the one cast of the inputs — view model and picture's chart —
and the history write of inputs, options, engine version and summary) for the records of a ``/cast now``, a
``/shensha`` and a ``/liuyao`` as the commands make them (caught from one real dispatch of each): CPU µs per call
(process time), of which system µs (the WAL's writes and sync), and wall µs; on SQLite also the WAL written per
commit — frames (pages of the database, each ``page_size`` + 24 bytes) and kB — over ``--n`` more calls, the
log emptied first (fewer frames than the automatic checkpoint's threshold: the log only grows). ``--rounds``
alternates the commands that many times (figures summed over the rounds). ``--against DIR``: the same figures
of the checkout in DIR (main, say) measured by this script, each in a fresh process, alternating with this
checkout ``--rounds`` times; medians and ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

# the project, not bench/ (bench/bot.py); BENCH_ROOT: another checkout's code measured by this script (--against)
sys.path[0] = os.environ.get("BENCH_ROOT") or str(Path(__file__).resolve().parent.parent)

from bot.storage import Storage  # noqa: E402

USER = "telegram:1"


async def _measure(n: int, call: Any) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    for i in range(n):
        await call(i)
    return (time.process_time() - cpu) / n * 1e6, (time.perf_counter() - wall) / n * 1e6


def _system() -> float:
    """System CPU seconds of this process (every thread), to the microsecond (``os.times`` counts ticks)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


async def _measure_sys(n: int, call: Any) -> tuple[float, float, float]:
    """CPU µs (process time), system µs and wall µs per call."""
    sys0, cpu, wall = _system(), time.process_time(), time.perf_counter()
    for i in range(n):
        await call(i)
    took = time.process_time() - cpu, _system() - sys0, time.perf_counter() - wall
    return tuple(t / n * 1e6 for t in took)  # type: ignore[return-value]


async def _wal_per_call(storage: Storage, n: int, call: Any) -> tuple[float, float] | None:
    """(frames, kB) written to the WAL per call over ``n`` calls (SQLite; None on another engine): the log
    emptied first by a connection of its own (the same on every checkout ``--against`` compares)."""
    import sqlite3

    if storage.dialect != "sqlite":
        return None
    wal = f"{storage.path}-wal"
    con = sqlite3.connect(storage.path, isolation_level=None)
    try:
        page = int(con.execute("PRAGMA page_size").fetchone()[0])
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        for i in range(n):
            await call(i)
        size = os.path.getsize(wal)
    finally:
        con.close()
    header = 32 if size else 0
    frames = (size - header) / (page + 24)
    assert frames < 10_000, "the automatic checkpoint ran: fewer calls (--n)"  # the storage's threshold
    return frames / n, size / n / 1000


async def after(target: str, n: int) -> dict[str, tuple[float, float]]:
    storage = await Storage.open(target)
    try:
        await storage.touch_user(USER, "telegram", "1")

        async def write(i: int) -> None:
            await storage.add_history(
                USER, kind="cast", command="/cast", inputs={}, options={}, view="cast", context={"i": i}
            )

        return {
            "get_user": await _measure(n, lambda i: storage.get_user(USER)),
            "add_history": await _measure(n, write),
        }
    finally:
        await storage.close()


async def floor(path: str, n: int) -> dict[str, tuple[float, float]]:
    """The storage's statements of :func:`after` through ``sqlite3`` on the event loop (no thread hop)."""
    import sqlite3

    from bot.storage import USER_COLUMNS

    await (await Storage.open(path)).close()  # the schema
    con = sqlite3.connect(path, isolation_level=None)
    try:
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "busy_timeout=10000", "foreign_keys=ON"):
            con.execute(f"PRAGMA {pragma}").fetchall()
        storage = await Storage.open(path, migrate=False)
        try:
            insert_history = storage.backend.insert_history
            await storage.touch_user(USER, "telegram", "1")
        finally:
            await storage.close()
        lock = asyncio.Lock()  # as the storage: one per transaction
        GET_USER = f"SELECT {USER_COLUMNS} FROM users WHERE user_key = ?"  # noqa: S608, N806 - fixed names

        async def get_user(i: int) -> None:
            async with lock:
                con.execute(GET_USER, (USER,)).fetchone()

        async def write(i: int) -> None:
            row = (USER, "cast", "/cast", "{}", "{}", "cast", json.dumps({"i": i}), "", None)
            async with lock:
                con.execute(insert_history, row).fetchone()

        return {"get_user": await _measure(n, get_user), "add_history": await _measure(n, write)}
    finally:
        con.close()


async def on_postgres(pg: str, measure: Any, n: int) -> Any:
    """``measure(url, n)`` on a fresh schema of the PostgreSQL server at ``pg``, dropped afterwards."""
    schema = "bench_" + uuid.uuid4().hex[:12]
    sep = "&" if "?" in pg else "?"
    url = f"{pg}{sep}schema={schema}"
    try:
        return await measure(url, n)
    finally:
        storage = await Storage.open(url, migrate=False)
        try:
            await storage.execute(f'DROP SCHEMA "{schema}" CASCADE')
        finally:
            await storage.close()


async def amain(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"n": args.n}
    with tempfile.TemporaryDirectory() as tmp:
        if args.what == "record":
            out["sqlite"] = await record(str(Path(tmp) / "record.db"), args.n, args.rounds)
        else:
            out["sqlite3_on_the_loop"] = await floor(str(Path(tmp) / "floor.db"), args.n)
            out["sqlite_aiosqlite"] = await after(str(Path(tmp) / "after.db"), args.n)
    if args.pg:
        measure = partial(record, rounds=args.rounds) if args.what == "record" else after
        out["postgresql"] = await on_postgres(args.pg, measure, args.n)
    return out


RECORDED = ("/cast now", "/shensha", "/liuyao")
CAST_CONTEXT = {f"k{i}": "值" * 20 for i in range(70)}  # ≈ 4.4 KB of JSON, a cast's stored context


async def record(target: str, n: int, rounds: int = 1) -> dict[str, dict[str, float | None]]:
    """Per command of :data:`RECORDED`: CPU, system and wall µs per ``record_and_reply`` call (the commands
    alternating, ``rounds`` times), and the WAL's frames and kB per commit (SQLite)."""
    from bot.commands import Incoming, cast, dispatch, liuyao, shensha
    from bot.config import Settings
    from bot.context import create_context
    from bot.features import common as _common

    caught: dict[str, Any] = {}

    async def catch(incoming: Incoming, ctx: Any, rec: _common.Record) -> Any:
        caught[incoming.text] = (incoming, rec)
        return await _common.record_and_reply(incoming, ctx, rec)

    ctx = await create_context(Settings(db_path=target, lang="ko", tz="Asia/Seoul"))
    modules = (cast, shensha, liuyao)
    try:
        for module in modules:
            module.record_and_reply = catch  # type: ignore[attr-defined]
        for text in RECORDED:
            await dispatch(Incoming("telegram", "1", "1", text, lang_hint="ko"), ctx)
    finally:
        for module in modules:
            module.record_and_reply = _common.record_and_reply  # type: ignore[attr-defined]
    try:
        calls = {
            text: lambda i, incoming=caught[text][0], rec=caught[text][1]: _common.record_and_reply(
                incoming, ctx, rec
            )
            for text in RECORDED
        }
        sums = {text: [0.0, 0.0, 0.0] for text in RECORDED}
        for _ in range(rounds):
            for text, call in calls.items():
                for k, figure in enumerate(await _measure_sys(n, call)):
                    sums[text][k] += figure / rounds
        out: dict[str, dict[str, float | None]] = {}
        for text, call in calls.items():
            cpu, system, wall = sums[text]
            wal = await _wal_per_call(ctx.storage, n, call)
            out[text] = {
                "cpu_us": cpu,
                "sys_us": system,
                "wall_us": wall,
                "wal_frames": wal[0] if wal else None,
                "wal_kb": wal[1] if wal else None,
            }
        return out
    finally:
        await ctx.close()


def against(other: Path, n: int, rounds: int) -> dict[str, dict[str, dict[str, float | None]]]:
    """``record``'s figures of this checkout and of ``other``, each run in a fresh process, alternating
    ``rounds`` times: {checkout: {command: {figure: median}}}."""
    here = Path(__file__).resolve().parent.parent
    runs: dict[str, list[dict[str, dict[str, float | None]]]] = {"this": [], "other": []}
    for _ in range(rounds):
        for name, root in (("other", other), ("this", here)):
            done = subprocess.run(
                [sys.executable, __file__, "record", "--n", str(n), "--rounds", "1", "--json"],
                env={**os.environ, "BENCH_ROOT": str(root)},
                cwd=root,
                capture_output=True,
                text=True,
                check=True,
            )
            runs[name].append(json.loads(done.stdout.strip().splitlines()[-1])["sqlite"])
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for name, got in runs.items():
        out[name] = {}
        for text in RECORDED:
            figures = {}
            for figure in got[0][text]:
                values = [run[text][figure] for run in got]
                figures[figure] = (
                    statistics.median(v for v in values if v is not None) if values[0] is not None else None
                )
            out[name][text] = figures
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", nargs="?", choices=("statements", "record"), default="statements")
    parser.add_argument("--n", type=int, default=None, help="calls per figure (5000; record: 2000)")
    parser.add_argument("--pg", default=None, help="a postgresql:// URL to measure too")
    parser.add_argument("--rounds", type=int, default=3, help="record: rounds of every variant, alternating")
    parser.add_argument("--against", type=Path, default=None, help="record: another checkout to measure too")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.n is None:
        args.n = {"record": 500}.get(args.what, 5000)
    if args.against is not None:
        compared = against(args.against.resolve(), args.n, args.rounds)
        if args.json:
            print(json.dumps(compared))
            return 0
        print(f"record_and_reply, medians of {args.rounds} alternating runs: this / {args.against} (ratio)")
        for text in RECORDED:
            mine, theirs = compared["this"][text], compared["other"][text]
            cells = []
            for figure, value in mine.items():
                base = theirs[figure]
                if value is None or base is None:
                    continue
                cells.append(f"{figure} {value:.1f} / {base:.1f} ({value / base:.2f})")
            print(f"  {text:10} " + "  ".join(cells))
        return 0
    result = asyncio.run(amain(args))
    if args.json:
        print(json.dumps(result))
        return 0
    for name, figures in result.items():
        if name == "n":
            continue
        for op, got in figures.items():
            if isinstance(got, dict):  # record
                wal = (
                    f" {got['wal_frames']:6.2f} WAL frames {got['wal_kb']:6.1f} kB"
                    if got["wal_frames"]
                    else ""
                )
                print(
                    f"{name:26} {op:12} {got['cpu_us']:8.1f} µs CPU (sys {got['sys_us']:6.1f})"
                    f" {got['wall_us']:8.1f} µs wall per call{wal}"
                )
                continue
            cpu, wall = got
            print(f"{name:26} {op:32} {cpu:8.1f} µs CPU {wall:8.1f} µs wall per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
