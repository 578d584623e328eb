"""Benchmark: webhook updates/s per replica with the send cap lifted (issue #35, docs/deploy.md).

    .venv/bin/python bench/webhook.py [--replicas 1,2] [--n 1200] [--warmup 90] [--concurrency 32]
                                      [--db postgresql|sqlite] [--no-redis] [--json]

Processes on 127.0.0.1, nothing leaves the loopback interface:

* the fake Bot API (``tests/fakes/telegram.py``, no flood limit: ``flood_limit`` stays ``None``) in a process
  of its own, so that this driver's loop does not slow it down;
* R replicas of ``sikpan run --role webhook`` (``python -m bot.cli run``), each on its own port, on one
  database — a fresh PostgreSQL schema at ``SIKPAN_TEST_PG`` (default) or a shared SQLite-WAL file
  (``SIKPAN_SQLITE_SHARED=1``) — and, unless ``--no-redis``, Redis at ``SIKPAN_TEST_REDIS`` (the update ledger
  and the one send budget of the fleet, under a key prefix of its own, deleted after), with
  ``TELEGRAM_SEND_RATE=10000`` (the most it takes): the 28/s cap lifted;
* this driver, Telegram's side: it POSTs updates with the secret header, each from a private chat of its
  own, the mix ``/cast now`` (a photo), ``/liuyao`` (a photo), ``/shensha`` in turn, half ``ko`` and half
  ``zh-hant``, in a closed loop of ``--concurrency`` POSTs in flight (Telegram's own ``max_connections`` is
  40 by default), spread over the replicas in turn (a load balancer's round robin).

A replica handles an update before its 200 (docs/deploy.md, "The Telegram webhook"), so the time from a POST
to its 200 is the update → reply latency, and the reply is at the fake when the 200 comes. Figures per run,
over the measured updates (after ``--warmup`` not counted): updates/s answered (all replicas, and per
replica), p50/p99 of POST → 200, replies the fake accepted (must equal the updates: a lost reply shows),
and the replicas' CPU per update (user + system time from ``/proc/<pid>/stat``; the fake's and the driver's
CPU are not in it). Keep ``--n`` such that a run stays under a minute on a shared machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]  # bench/calendar.py shadows
sys.path.insert(0, str(_HERE.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from typing import Any  # noqa: E402

from bench import _figures, _threads  # noqa: E402

TOKEN = "7000000001:AAbenchmark-token-not-a-real-one-000"
SECRET = "bench-Secret_1"
HEADER = "X-Telegram-Bot-Api-Secret-Token"
MIX = ("/cast now", "/liuyao", "/shensha")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _threads.CLK_TCK


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# --------------------------------------------------------------------------------------- the fake's process
def serve_fake() -> None:
    """``_fake``: the fake Bot API (no flood limit) until stdin closes; prints its base URL, then answers each
    line ``count`` with the number of replies (sendMessage/sendPhoto) it accepted and the 429s it gave."""
    from tests.fakes.telegram import FakeTelegram

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with FakeTelegram(token=TOKEN) as fake:
            print(fake.base_url, flush=True)
            while line := await loop.run_in_executor(None, sys.stdin.readline):
                if line.strip() == "count":
                    rejected = sum(1 for c in fake.calls if c.status == 429)
                    print(
                        json.dumps(
                            {
                                "replies": len(fake.sent),
                                "chats": len({str(c.params.get("chat_id")) for c in fake.sent}),
                                "429": rejected,
                            }
                        ),
                        flush=True,
                    )
                    fake.calls.clear()  # the next run's counts start at zero

    asyncio.run(main())


class Fake:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "_fake"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url:
            raise RuntimeError("the fake Bot API did not start")

    def count(self) -> dict[str, int]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        return dict(json.loads(self.proc.stdout.readline()))

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


# --------------------------------------------------------------------------------------- the replicas
@contextlib.contextmanager
def servers(db: str, redis: bool, tmp: str) -> Iterator[dict[str, str]]:
    """The environment of the database (and Redis) of one run: fresh, removed after."""
    from tests.servers import fresh_pg_url, fresh_redis_url

    with contextlib.ExitStack() as stack:
        env: dict[str, str] = {}
        if db == "postgresql":
            env["SIKPAN_DB"] = stack.enter_context(fresh_pg_url())
        else:
            env["SIKPAN_DB"] = f"{tmp}/bench.db"
            env["SIKPAN_SQLITE_SHARED"] = "1"
        if redis:
            env["SIKPAN_REDIS_URL"] = stack.enter_context(fresh_redis_url())
        yield env


def replica_env(
    base: dict[str, str],
    fake_url: str,
    port: int,
    monitor: int,
    tmp: str,
    *,
    token: str = TOKEN,
    secret: str = SECRET,
    send_rate: int = 10000,  # the cap lifted (the most the setting takes) (the fake has no flood limit either)
) -> dict[str, str]:
    """The environment of one ``sikpan run --role webhook`` replica (also tests/webhook/test_replicas.py's):
    this one's ``SIKPAN_*``/``TELEGRAM_*``/``DISCORD_*`` left out, ``base`` (the database, Redis) added, the
    webhook on ``port`` and the metrics on ``monitor`` (replicas on one host: a monitoring port each)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIKPAN_", "TELEGRAM_", "DISCORD_"))}
    return {
        **env,
        **base,
        "PYTHONUNBUFFERED": "1",
        "TELEGRAM_BOT_TOKEN": token,
        "TELEGRAM_API_BASE_URL": fake_url,
        "SIKPAN_LANG": "ko",
        "SIKPAN_ENV_FILE": f"{tmp}/none.env",
        "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/hook",
        "TELEGRAM_WEBHOOK_SECRET": secret,
        "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
        "TELEGRAM_WEBHOOK_PORT": str(port),
        "TELEGRAM_WEBHOOK_PATH": "hook",
        "TELEGRAM_SEND_RATE": str(send_rate),
        "SIKPAN_METRICS_PORT": str(monitor),
    }


async def start_replica(env: dict[str, str], log: Path, *args: str) -> asyncio.subprocess.Process:
    """``sikpan run --role webhook`` (``python -m bot.cli``) with ``env`` and more ``args``, its stderr to
    ``log``."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", "--role", "webhook", *args,
        env=env, stdout=asyncio.subprocess.DEVNULL, stderr=log.open("wb"),
    )  # fmt: skip


async def stop_replicas(procs: list[asyncio.subprocess.Process], timeout: float) -> None:
    """SIGTERM to every replica still running, then wait for each to exit (``timeout`` seconds each)."""
    for proc in procs:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        await asyncio.wait_for(proc.wait(), timeout)


async def migrate(env: dict[str, str]) -> None:
    """``sikpan migrate`` once before the replicas start, as docs/deploy.md says."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "migrate", env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"sikpan migrate exited {proc.returncode}: {err.decode()[-1000:]}")


async def wait_ready(http: Any, ports: tuple[int, ...], proc: asyncio.subprocess.Process, log: Path) -> None:
    """Until the replica is ready (its metrics port, which starts first, answers ``/readyz`` with 200) and its
    webhook port, which takes the updates, answers at all (``GET /hook``: 405) — on a loaded machine the
    second comes up later."""
    import aiohttp

    monitor, port = ports
    urls = [(f"http://127.0.0.1:{monitor}/readyz", {200}), (f"http://127.0.0.1:{port}/hook", None)]
    for _ in range(1200):
        if proc.returncode is not None:
            raise RuntimeError(f"a replica exited with {proc.returncode}: {log.read_text()[-2000:]}")
        with contextlib.suppress(aiohttp.ClientError):
            url, wanted = urls[0]
            async with http.get(url) as r:
                if wanted is None or r.status in wanted:
                    urls.pop(0)
                    if not urls:
                        return
                    continue
        await asyncio.sleep(0.05)
    raise TimeoutError("a replica never became ready")


# --------------------------------------------------------------------------------------- the driver
def update(i: int) -> dict[str, Any]:
    """Update ``i``: a command of the mix from private chat 100000 + i (the fake's ``make_update`` shape)."""
    text = MIX[i % len(MIX)]
    chat = 100_000 + i
    user = {
        "id": chat,
        "is_bot": False,
        "first_name": "Tester",
        "language_code": "ko" if i % 2 else "zh-hant",
    }
    command = text.split()[0]
    return {
        "update_id": i + 1,
        "message": {
            "message_id": 1000 + i,
            "date": int(time.time()),
            "chat": {"id": chat, "type": "private", "first_name": "Tester"},
            "from": user,
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}],
        },
    }


async def run(replicas: int, n: int, warmup: int, concurrency: int, db: str, redis: bool) -> dict[str, Any]:
    import aiohttp

    fake = Fake()
    try:
        with tempfile.TemporaryDirectory() as tmp, servers(db, redis, tmp) as base:
            ports = [free_port() for _ in range(replicas)]
            monitors = [free_port() for _ in range(replicas)]
            envs = [replica_env(base, fake.base_url, p, m, tmp) for p, m in zip(ports, monitors)]
            await migrate(envs[0])
            logs = [Path(tmp) / f"replica{k}.log" for k in range(replicas)]
            procs = [await start_replica(env, log) for env, log in zip(envs, logs)]
            try:
                connector = aiohttp.TCPConnector(limit=concurrency * 2)
                async with aiohttp.ClientSession(connector=connector) as http:
                    for port, monitor, proc, log in zip(ports, monitors, procs, logs):
                        await wait_ready(http, (monitor, port), proc, log)
                    posts = [f"http://127.0.0.1:{p}/hook" for p in ports]
                    latencies: list[float] = []
                    failed: dict[str, int] = {}
                    next_update = 0

                    async def one(i: int) -> None:
                        t0 = time.perf_counter()
                        async with http.post(
                            posts[i % replicas], json=update(i), headers={HEADER: SECRET},
                            timeout=aiohttp.ClientTimeout(total=60),
                        ) as r:  # fmt: skip
                            await r.read()
                        if r.status != 200:
                            failed[str(r.status)] = failed.get(str(r.status), 0) + 1
                        elif i >= warmup:
                            latencies.append(time.perf_counter() - t0)

                    async def loop(stop_at: int) -> None:
                        nonlocal next_update
                        while next_update < stop_at:
                            i, next_update = next_update, next_update + 1
                            await one(i)

                    # the warm-up (first imports, fonts, caches, connections), not counted
                    await asyncio.gather(*(loop(warmup) for _ in range(min(concurrency, warmup or 1))))
                    warm = fake.count()
                    cpu0 = [cpu_seconds(p.pid) for p in procs]
                    t0 = time.perf_counter()
                    await asyncio.gather(*(loop(warmup + n) for _ in range(concurrency)))
                    seconds = time.perf_counter() - t0
                    cpu1 = [cpu_seconds(p.pid) for p in procs]
                    rss = [round(rss_mib(p.pid), 1) for p in procs]
                    seen = fake.count()
            finally:
                await stop_replicas(procs, 60)
            errors = sum(log.read_text(errors="replace").count(" ERROR ") for log in logs)
    finally:
        fake.stop()
    done = len(latencies)
    cpu = sum(cpu1) - sum(cpu0)
    return {
        "replicas": replicas,
        "db": db,
        "redis": redis,
        "concurrency": concurrency,
        "updates": done,
        "not_200": failed,
        "replies_accepted": seen["replies"],
        "reply_chats": seen["chats"],
        "warmup_replies": warm["replies"],
        "429": seen["429"],
        "seconds": round(seconds, 2),
        "updates_per_s": round(done / seconds, 1),
        "updates_per_s_per_replica": round(done / seconds / replicas, 1),
        "p50_ms": round(_figures.percentile(latencies, 0.5) * 1000, 1),
        "p99_ms": round(_figures.percentile(latencies, 0.99) * 1000, 1),
        "cpu_ms_per_update": round(cpu * 1000 / done, 2) if done else None,
        "cpu_share_per_replica": [round((b - a) / seconds, 2) for a, b in zip(cpu0, cpu1)],
        "rss_mib": rss,
        "errors_logged": errors,
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_fake":
        serve_fake()
        return
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicas", default="1,2", help="comma-separated: one run per count")
    parser.add_argument("--n", type=int, default=1200, help="measured updates per run")
    parser.add_argument("--warmup", type=int, default=90, help="updates first, not counted")
    parser.add_argument("--concurrency", type=int, default=32, help="POSTs in flight")
    parser.add_argument("--db", choices=("postgresql", "sqlite"), default="postgresql")
    parser.add_argument("--no-redis", action="store_true", help="the ledger in the database, local budgets")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    stamp = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "load": [round(x, 2) for x in os.getloadavg()],
    }
    results = [
        asyncio.run(run(int(r), args.n, args.warmup, args.concurrency, args.db, not args.no_redis))
        for r in args.replicas.split(",")
    ]
    if args.json:
        print(json.dumps({**stamp, "runs": results}))
        return
    print(f"{stamp['date']}, {stamp['cores']} cores, load {stamp['load']}")
    for r in results:
        print(
            f"  {r['replicas']} replica(s), {r['db']}{' + Redis' if r['redis'] else ''}, {r['concurrency']} in flight: "
            f"{r['updates']} updates in {r['seconds']} s = {r['updates_per_s']}/s "
            f"({r['updates_per_s_per_replica']}/s per replica); POST → 200 p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms; "
            f"{r['cpu_ms_per_update']} ms CPU/update (replicas' CPU {r['cpu_share_per_replica']} cores); "
            f"RSS {r['rss_mib']} MiB; replies accepted {r['replies_accepted']} (warm-up {r['warmup_replies']}), "
            f"not 200: {r['not_200'] or 0}, 429: {r['429']}, errors logged: {r['errors_logged']}"
        )


if __name__ == "__main__":
    main()
