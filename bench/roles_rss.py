"""Benchmark: the resident memory (VmRSS) of each ``sikpan run --role`` process, ready and after serving
(issue #35, docs/deploy.md: the memory limits of docker-compose.yml and deploy/k8s/ follow it).

    .venv/bin/python bench/roles_rss.py [--n 300] [--roles all,telegram,webhook,scheduler,worker,discord] [--json]

Each role is started as ``python -m bot.cli run --role ROLE`` (the real process, ``SIKPAN_METRICS_PORT`` set
as in the deployment kit) against the fakes of ``tests/fakes/`` (Telegram without a flood limit, Discord's
REST and gateway), and its VmRSS is read from ``/proc/<pid>/status`` once ``/readyz`` answers 200 and again
after it served ``--n`` commands or deliveries (the mix ``/cast now``, ``/liuyao``, ``/shensha``, each from a
chat of its own; the peak, VmHWM, too):

* ``all``: the single host — SQLite, no Redis, Telegram long polling + the scheduler; ``--n`` commands;
* ``telegram``: long polling on PostgreSQL + Redis; ``--n`` commands;
* ``webhook``: the webhook replica on PostgreSQL + Redis; ``--n`` updates POSTed;
* ``scheduler`` and ``worker`` (one each, together): ``--n`` daily readings due now (subscribed once both
  are ready), claimed and queued by
  the scheduler, rendered and sent by the worker (``TELEGRAM_SEND_RATE=10000``: the cap lifted, the
  readings are the same);
* ``discord``: the gateway (one shard) on PostgreSQL + Redis; ``--n`` slash commands, every other one from a
  text channel of one server (at most :data:`PER_CHANNEL` a channel, within a channel's admission burst of
  30: the flood rule is not measured here), the others each from a DM of its own.

PostgreSQL (a fresh schema) and Redis (a key prefix of its own) come from ``tests/servers.py``.
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
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import AsyncIterator, Awaitable, Callable  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from typing import Any  # noqa: E402

from bench.webhook import MIX, SECRET, free_port, migrate  # noqa: E402  (the webhook bench's own)

TOKEN = "7000000001:AAbenchmark-token-not-a-real-one-000"
SLASH = (("cast", {"when": "now"}), ("liuyao", {"lines": "797979"}), ("shensha", {"day": "甲子"}))
ROLES = ("all", "telegram", "webhook", "scheduler", "worker", "discord")
PER_CHANNEL = 20  # Discord: commands from one server channel


def memory(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (the peak) of a process, MiB."""
    out: dict[str, float] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = round(int(line.split()[1]) / 1024, 1)
    return out


async def until(predicate: Callable[[], bool], timeout: float, what: str, procs: list[Any]) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        for p in procs:
            if p.returncode is not None:
                raise RuntimeError(f"{what}: a process exited with {p.returncode}")
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.05)


class Role:
    """One ``sikpan run --role`` process with its monitoring port."""

    def __init__(self, role: str, env: dict[str, str], log: Path) -> None:
        self.role, self.env, self.log = role, env, log
        self.monitor = free_port()

    async def start(self) -> Role:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", "--role", self.role,
            env={**self.env, "SIKPAN_METRICS_PORT": str(self.monitor)},
            stdout=asyncio.subprocess.DEVNULL, stderr=self.log.open("wb"),
        )  # fmt: skip
        return self

    async def ready(self, timeout: float = 60) -> None:
        import aiohttp

        async with aiohttp.ClientSession() as http:
            deadline = time.monotonic() + timeout
            while True:
                if self.proc.returncode is not None:
                    raise RuntimeError(
                        f"{self.role} exited {self.proc.returncode}: {self.log.read_text()[-1500:]}"
                    )
                with contextlib.suppress(aiohttp.ClientError):
                    async with http.get(f"http://127.0.0.1:{self.monitor}/readyz") as r:
                        if r.status == 200:
                            return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{self.role} never ready: {self.log.read_text()[-1500:]}")
                await asyncio.sleep(0.1)

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 30)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


def base_env(tmp: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIKPAN_", "TELEGRAM_", "DISCORD_"))}
    return {**env, "PYTHONUNBUFFERED": "1", "SIKPAN_LANG": "ko", "SIKPAN_ENV_FILE": f"{tmp}/none.env"}


@contextlib.asynccontextmanager
async def running(*roles: Role) -> AsyncIterator[None]:
    try:
        for r in roles:
            await r.start()
        for r in roles:
            await r.ready()
        yield
    finally:
        for r in roles:
            await r.stop()


def errors(role: Role) -> int:
    return role.log.read_text(errors="replace").count(" ERROR ")


async def measure(roles: list[Role], serve: Callable[[], Awaitable[int]]) -> list[dict[str, Any]]:
    """Start ``roles``, read their memory when ready, ``serve`` (its answer: what was served), read again."""
    async with running(*roles):
        ready = [memory(r.proc.pid) for r in roles]
        t0 = time.monotonic()
        served = await serve()
        seconds = time.monotonic() - t0
        after = [memory(r.proc.pid) for r in roles]
    return [
        {
            "role": r.role, "ready_rss_mib": a["VmRSS"], "served": served, "seconds": round(seconds, 1),
            "rss_mib": b["VmRSS"], "peak_rss_mib": b["VmHWM"], "errors_logged": errors(r),
        }
        for r, a, b in zip(roles, ready, after)
    ]  # fmt: skip


# --------------------------------------------------------------------------------------- the roles
async def telegram_roles(name: str, n: int, tmp: str, shared: dict[str, str]) -> list[dict[str, Any]]:
    """``all`` (SQLite, no Redis), ``telegram`` (polling) or ``webhook`` (PostgreSQL + Redis): n commands."""
    import aiohttp

    from tests.fakes.telegram import FakeTelegram

    async with FakeTelegram(token=TOKEN) as tg:
        env = {**base_env(tmp), "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_BASE_URL": tg.base_url}
        env.update({"SIKPAN_DB": f"{tmp}/{name}.db"} if name == "all" else shared)
        port = free_port()
        if name == "webhook":
            env.update(
                TELEGRAM_WEBHOOK_URL="https://bot.example.org/hook", TELEGRAM_WEBHOOK_SECRET=SECRET,
                TELEGRAM_WEBHOOK_LISTEN="127.0.0.1", TELEGRAM_WEBHOOK_PORT=str(port), TELEGRAM_WEBHOOK_PATH="hook",
            )  # fmt: skip
        role = Role(name, env, Path(tmp) / f"{name}.log")

        async def serve() -> int:
            updates = [
                tg.make_update(MIX[i % 3], chat_id=200_000 + i, language_code="ko" if i % 2 else "zh-hant")
                for i in range(n)
            ]
            if name == "webhook":
                async with aiohttp.ClientSession() as http:
                    sem = asyncio.Semaphore(16)

                    async def post(u: dict[str, Any]) -> None:
                        for _ in range(100):  # refused or busy: again later, as Telegram redelivers
                            with contextlib.suppress(aiohttp.ClientConnectionError):
                                async with sem, http.post(
                                    f"http://127.0.0.1:{port}/hook", json=u,
                                    headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                                ) as r:  # fmt: skip
                                    await r.read()
                                    if r.status == 200:
                                        return
                            await asyncio.sleep(0.1)

                    await asyncio.gather(*(post(u) for u in updates))
            else:
                for u in updates:
                    tg.push_update(u)
            await until(lambda: len(tg.sent) >= n, 120 + n / 5, f"{name}: {n} replies", [role.proc])
            return len(tg.sent)

        return await measure([role], serve)


async def queue_roles(n: int, tmp: str, shared: dict[str, str]) -> list[dict[str, Any]]:
    """``scheduler`` + ``worker`` (PostgreSQL + Redis): n daily readings due now."""
    from tests.fakes.telegram import FakeTelegram
    from tests.subscriptions import subscribe_due_in

    async with FakeTelegram(token=TOKEN) as tg:
        env = {
            **base_env(tmp), **shared, "TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_BASE_URL": tg.base_url,
            "TELEGRAM_SEND_RATE": "10000",
        }  # fmt: skip
        roles = [
            Role("scheduler", env, Path(tmp) / "scheduler.log"),
            Role("worker", env, Path(tmp) / "worker.log"),
        ]

        async def serve() -> int:  # subscribed once both are ready: found at the scheduler's next look
            await subscribe_due_in(shared["SIKPAN_DB"], n, first_chat=300_000)
            await until(lambda: len(tg.sent) >= n, 120 + n / 5, f"{n} readings", [r.proc for r in roles])
            return len(tg.sent)

        return await measure(roles, serve)


async def discord_role(n: int, tmp: str, shared: dict[str, str]) -> list[dict[str, Any]]:
    from tests.fakes.discord import FakeDiscord

    in_server = (n + 1) // 2
    async with FakeDiscord(text_channels=max(1, -(-in_server // PER_CHANNEL))) as dc:
        env = {
            **base_env(tmp), **shared, "DISCORD_BOT_TOKEN": dc.token, "DISCORD_API_BASE_URL": dc.api_base_url,
            "DISCORD_GATEWAY_URL": dc.gateway_url,
        }  # fmt: skip
        role = Role("discord", env, Path(tmp) / "discord.log")

        async def answered(inters: list[Any]) -> None:
            try:
                await until(lambda: all(x.followups for x in inters), 60, "discord replies", [role.proc])
            except TimeoutError:
                left = [
                    (x.payload["data"]["name"], x.ack_type, x.acked_at) for x in inters if not x.followups
                ]
                raise TimeoutError(
                    f"{len(left)} unanswered: {left[:5]}; {role.log.read_text()[-1500:]}"
                ) from None

        async def serve() -> int:
            await dc.wait_ready(60)
            inters = []
            for i in range(n):
                name, options = SLASH[i % 3]
                where: dict[str, Any] = (
                    {"dm": True} if i % 2 else {"channel_id": dc.channel_ids[i // 2 % len(dc.channel_ids)]}
                )
                inters.append(
                    await dc.slash(
                        name, options, user_id=400_000 + i, locale="ko" if i % 4 < 2 else "zh-TW", **where
                    )
                )
                if i % 10 == 9:  # ten at a time, within the 3-s ack deadline on a shared machine
                    await answered(inters)
            await answered(inters)
            return sum(1 for x in inters if x.followups)

        return await measure([role], serve)


async def run(roles: list[str], n: int) -> list[dict[str, Any]]:
    from tests.servers import fresh_pg_url, fresh_redis_url

    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, fresh_pg_url() as db, fresh_redis_url() as redis:
        shared = {"SIKPAN_DB": db, "SIKPAN_REDIS_URL": redis}
        await migrate({**base_env(tmp), **shared})
        for name in ("all", "telegram", "webhook"):
            if name in roles:
                out += await telegram_roles(name, n, tmp, shared)
        if "scheduler" in roles or "worker" in roles:
            out += await queue_roles(n, tmp, shared)
        if "discord" in roles:
            out += await discord_role(n, tmp, shared)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=300, help="commands or deliveries each role serves")
    parser.add_argument("--roles", default=",".join(ROLES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    stamp = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "cores": os.cpu_count()}
    rows = asyncio.run(run([r.strip() for r in args.roles.split(",")], args.n))
    if args.json:
        print(json.dumps({**stamp, "roles": rows}))
        return
    print(f"{stamp['date']}, {stamp['cores']} cores")
    for r in rows:
        print(
            f"  {r['role']:9s} ready {r['ready_rss_mib']:6.1f} MiB → after {r['served']} served "
            f"({r['seconds']} s) {r['rss_mib']:6.1f} MiB, peak {r['peak_rss_mib']:6.1f} MiB; "
            f"{r['errors_logged']} errors logged"
        )


if __name__ == "__main__":
    main()
