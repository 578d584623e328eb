"""Issue #35, observability and identify spacing, on the real Redis (a key prefix of each test's own):

- the Grafana dashboard (``deploy/grafana/sikpan.json``) and the Prometheus alert rules
  (``deploy/prometheus/alerts.yml``) name only metrics that a running ``sikpan run`` serves on
  ``SIKPAN_METRICS_PORT`` — scraped after a command was answered and a daily reading sent through the queue;
  the same process logs JSON lines (``SIKPAN_LOG_FORMAT=json``) carrying the job and delivery ids, and one
  INFO line for the job (arq's two are gone);
- ``/readyz`` reads back the heartbeat the queue worker writes: 200 while it beats, 503 once it stops,
  while ``/livez`` stays 200;
- two ``--role discord`` processes of one bot (shards 0 and 1 of 2) identify at least 5 s apart (Discord's
  rule for ``max_concurrency`` 1), through the turn they take in Redis.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import sys
from typing import Any

import aiohttp
import discord
import yaml
from prometheus_client.parser import text_string_to_metric_families

from bot.config import Settings
from bot.context import create_context
from bot.discord.identify import IdentifyGate
from bot.monitor import run_monitor
from bot.scheduler import run_worker
from bot.telegram.sender import start_sender
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import FakeTelegram
from tests.scale.test_broadcast import ROOT
from tests.servers import fresh_redis_url, require_redis
from tests.subscriptions import subscribe_due_in
from tests.webhook.conftest import free_port

TOKEN = "7012345678:AAHfake-TelegramToken_for-observability1"
DASHBOARD = ROOT / "deploy" / "grafana" / "sikpan.json"
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
METRIC = re.compile(r"\b(?:sikpan|process|python)_[a-z0-9_]+\b")


def expressions(node: Any) -> list[str]:
    """Every ``expr`` string in a parsed JSON/YAML document."""
    if isinstance(node, dict):
        found = [node["expr"]] if isinstance(node.get("expr"), str) else []
        return found + [e for v in node.values() for e in expressions(v)]
    if isinstance(node, list):
        return [e for v in node for e in expressions(v)]
    return []


def named_metrics(exprs: list[str]) -> set[str]:
    return {m for e in exprs for m in METRIC.findall(e)}


SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "summary": ("_sum", "_count")}


def served(text: str) -> tuple[set[str], dict[str, list[Any]]]:
    """The series names a scrape serves — every sample's name, and what each family declares (a labelled
    counter with no child yet is declared by its HELP/TYPE) — and the samples by name."""
    names: set[str] = set()
    samples: dict[str, list[Any]] = {}
    for family in text_string_to_metric_families(text):
        names.update(family.name + s for s in SUFFIXES.get(family.type, ("",)))
        for s in family.samples:
            names.add(s.name)
            samples.setdefault(s.name, []).append(s)
    return names, samples


def env_base() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "SIKPAN_", "DISCORD_"))} | {
        "SIKPAN_ENV_FILE": os.devnull,
        "SIKPAN_TZ": "UTC",
    }


async def get(http: aiohttp.ClientSession, port: int, path: str) -> tuple[int, str]:
    async with http.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, await r.text()


async def wait_for(http: aiohttp.ClientSession, port: int, path: str, status: int, timeout: float) -> str:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    last: tuple[int, str] | None = None
    while loop.time() < end:
        try:
            last = await get(http, port, path)
            if last[0] == status:
                return last[1]
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path} on {port} never answered {status}: {last}")


def test_the_dashboard_and_the_rules_parse_and_name_metrics():
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    rules = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    alerts = [r for g in rules["groups"] for r in g["rules"]]
    assert alerts and all({"alert", "expr", "labels", "annotations"} <= set(r) for r in alerts)
    assert len({r["alert"] for r in alerts}) == len(alerts)
    assert {p["id"] for p in dashboard["panels"]} == set(range(1, len(dashboard["panels"]) + 1))
    for doc in (dashboard, rules):
        assert named_metrics(expressions(doc)), "no metric named"


async def test_dashboard_and_alert_rules_name_only_metrics_a_running_role_serves(tmp_path):
    require_redis()
    db = str(tmp_path / "bot.db")
    wanted = named_metrics(expressions(json.loads(DASHBOARD.read_text(encoding="utf-8"))))
    wanted |= named_metrics(expressions(yaml.safe_load(ALERTS.read_text(encoding="utf-8"))))
    with fresh_redis_url() as redis_url:
        async with FakeTelegram(token=TOKEN) as tg:
            port = free_port()
            env = env_base() | {
                "SIKPAN_DB": db,
                "SIKPAN_SQLITE_SHARED": "1",  # one process on its file, Redis for the queue
                "SIKPAN_REDIS_URL": redis_url,
                "TELEGRAM_BOT_TOKEN": tg.token,
                "TELEGRAM_API_BASE_URL": tg.base_url,
                "SIKPAN_METRICS_PORT": str(port),
                "SIKPAN_LOG_FORMAT": "json",
            }
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "run", cwd=ROOT, env=env,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                async with aiohttp.ClientSession() as http:
                    body = json.loads(await wait_for(http, port, "/readyz", 200, timeout=60))
                    assert body["database"] == "ok" and body["redis"] == "ok", body
                    assert (await get(http, port, "/livez")) == (200, '{"loop":"ok"}')
                    tg.user_says("/help", chat_id=4242)
                    await tg.wait_sent(chat_id=4242, timeout=30)
                    await subscribe_due_in(db, 1, first_chat=4300)  # a reading through the queue
                    await tg.wait_sent(chat_id=4300, timeout=30)
                    await asyncio.sleep(1.0)  # the worker records it after the reply
                    body = json.loads(await wait_for(http, port, "/readyz", 200, timeout=10))
                    assert body["scheduler"] == "ok" and body["worker"] == "ok", body
                    status, text = await get(http, port, "/metrics")
                    assert status == 200
            finally:
                proc.send_signal(signal.SIGTERM)
                _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()[-3000:]
    names, samples = served(text)
    assert not wanted - names, f"named by the dashboard or the rules, not served: {sorted(wanted - names)}"
    # the new series carry values, not only declarations
    assert {"process_resident_memory_bytes", "python_gc_collections_total", "python_info"} <= set(samples)
    (info,) = samples["sikpan_build_info"]
    assert info.value == 1 and info.labels["engine"] == "sqlite" and info.labels["role"] == "all"
    assert info.labels["python"] == ".".join(map(str, sys.version_info[:3]))
    assert any(s.labels["command"] == "help" for s in samples["sikpan_commands_total"])
    assert {s.labels["part"] for s in samples["sikpan_heartbeat_age_seconds"]} == {"scheduler", "worker"}
    assert all(0 <= s.value < 60 for s in samples["sikpan_heartbeat_age_seconds"])
    assert samples["sikpan_queue_depth"][0].value == 0  # the one job ran
    assert samples["sikpan_oldest_undelivered_seconds"][0].value == 0  # nothing claimed is left
    (occupancy,) = samples["sikpan_send_budget_occupancy"]  # two sends in the last minute; the window is 1 s
    assert occupancy.labels["platform"] == "telegram" and 0 <= occupancy.value <= 1
    assert samples["sikpan_webhook_in_flight"][0].value == 0
    # JSON logs: one object a line; the job's one INFO line carries its job and delivery ids
    lines = [json.loads(line) for line in err.decode().splitlines() if line.strip()]
    jobs = [e for e in lines if e["logger"] == "bot.scheduler" and e["message"].startswith("queue: delivery")]
    assert len(jobs) == 1, jobs
    assert jobs[0]["level"] == "INFO" and jobs[0]["job_id"].endswith(f"delivery:{jobs[0]['delivery_id']}")
    assert not [e for e in lines if e["logger"].startswith("arq") and e["level"] == "INFO"]
    assert TOKEN.split(":")[1] not in err.decode()


async def test_readiness_turns_503_when_the_worker_heartbeat_stops(tmp_path):
    require_redis()
    with fresh_redis_url() as redis_url:
        async with FakeTelegram(token=TOKEN) as tg:
            settings = Settings(
                telegram_token=tg.token,
                telegram_api_base_url=tg.base_url,
                db_path=str(tmp_path / "bot.db"),
                redis_url=redis_url,
                role="worker",
                metrics_port=0,
            )
            ctx = await create_context(settings)
            stop = asyncio.Event()
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
            monitor = asyncio.create_task(run_monitor(ctx, stop, sock=sock))
            worker = asyncio.create_task(
                run_worker(ctx, stop, start_sender=start_sender, heartbeat_every=0.5)
            )
            try:
                async with aiohttp.ClientSession() as http:
                    body = json.loads(await wait_for(http, port, "/readyz", 200, timeout=20))
                    assert body == {"database": "ok", "redis": "ok", "worker": "ok"}
                    for _ in range(4):  # it keeps beating (stale after 3 × 0.5 s + the row's 1 s resolution)
                        await asyncio.sleep(0.5)
                        assert (await get(http, port, "/readyz"))[0] == 200
                    (beat,) = [t for t in asyncio.all_tasks() if t.get_name() == "worker-heartbeat"]
                    beat.cancel()  # the heartbeat stops (as a stuck loop's would); the worker runs on
                    body = json.loads(await wait_for(http, port, "/readyz", 503, timeout=8))
                    assert body["worker"].startswith("down: HeartbeatStale"), body
                    assert body["database"] == "ok" and body["redis"] == "ok"
                    assert (await get(http, port, "/livez"))[0] == 200
                    assert (await get(http, port, "/healthz"))[0] == 200  # the dependencies alone
                    status, text = await get(http, port, "/metrics")
                    _, samples = served(text)
                    # the process's registry may hold other parts' ages from earlier tests: the worker's
                    (age,) = [
                        a for a in samples["sikpan_heartbeat_age_seconds"] if a.labels["part"] == "worker"
                    ]
                    assert age.value > 1.5
                assert not worker.done()
            finally:
                stop.set()
                await asyncio.wait_for(asyncio.gather(monitor, worker, return_exceptions=True), 30)
                await ctx.close()


async def test_two_shard_processes_identify_five_seconds_apart(tmp_path):
    require_redis()
    with fresh_redis_url() as redis_url:
        async with FakeDiscord(heartbeat_interval_ms=1000) as dc:
            common = env_base() | {
                "DISCORD_BOT_TOKEN": dc.token,
                "DISCORD_API_BASE_URL": dc.api_base_url,
                "DISCORD_GATEWAY_URL": dc.gateway_url,
                "DISCORD_SHARD_COUNT": "2",
                "SIKPAN_REDIS_URL": redis_url,
                "SIKPAN_ROLE": "discord",
                # both shard processes on one SQLite file of this host (what Redis-sharing roles need)
                "SIKPAN_DB": str(tmp_path / "shards.db"),
                "SIKPAN_SQLITE_SHARED": "1",
            }
            procs = [
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "bot.cli",
                    "run",
                    cwd=ROOT,
                    env=common | {"DISCORD_SHARD_IDS": str(i)},
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE,
                )  # fmt: skip
                for i in range(2)
            ]
            try:
                await dc._wait(lambda: len(dc.identified_at) >= 2, 20, "two shards identified")
            finally:
                for p in procs:
                    if p.returncode is None:
                        p.send_signal(signal.SIGTERM)
                errors = [(await asyncio.wait_for(p.communicate(), 30))[1].decode() for p in procs]
    assert sorted(shard for shard, _ in dc.identified_at) == [0, 1], errors
    (_, first), (_, second) = sorted(dc.identified_at, key=lambda x: x[1])
    assert second - first >= 5.0, (second - first, errors)
    assert all(p.returncode == 0 for p in procs), errors


class BotOf(discord.Client):
    """A client of the bot ``app_id`` (what the gate reads of it), never connected."""

    def __init__(self, app_id: int) -> None:
        super().__init__(intents=discord.Intents.none())
        self.app_id = app_id

    @property
    def application_id(self) -> int:  # type: ignore[override]
        return self.app_id


async def test_a_bucket_turn_waits_for_the_previous_one_and_redis_away_falls_back():
    """The gate itself, two gates (two processes) of one bot: the second turn of a bucket comes one interval
    (+ margin) after the first, on the Redis server's clock; another bot's bucket is not held up; with
    Redis unreachable the turn is refused at once (the client spaces its own shards)."""
    require_redis()
    with fresh_redis_url() as redis_url:
        one, two, other_bot = BotOf(1111), BotOf(1111), BotOf(2222)
        gates = [IdentifyGate.from_url(redis_url, interval=0.6, margin=0.1) for _ in range(3)]
        try:
            loop = asyncio.get_running_loop()
            start = loop.time()
            assert await gates[0].wait_turn(one, 0)
            assert await gates[2].wait_turn(other_bot, 0)  # another bot: its own bucket
            assert loop.time() - start < 0.5
            assert await gates[1].wait_turn(two, 0)
            assert loop.time() - start >= 0.7
        finally:
            for gate in gates:
                await gate.close()
    away = IdentifyGate.from_url(f"redis://127.0.0.1:{free_port()}/0?prefix=none:")
    try:
        start = asyncio.get_running_loop().time()
        assert not await away.wait_turn(one, 0)
        assert asyncio.get_running_loop().time() - start < 3
    finally:
        await away.close()
