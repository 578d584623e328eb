"""``SIKPAN_METRICS_PORT``: the scheduler and worker roles (``sikpan run --role …`` in processes of their own,
as docker-compose's ``scale`` profile runs them) serve ``/metrics`` and ``/healthz`` (bot/monitor.py), scraped
over HTTP: the readings a worker sent are in its ``sikpan_deliveries_total``, the jobs the scheduler queued in
its ``sikpan_queue_enqueued_total``; ``/healthz`` is 503 while PostgreSQL or Redis is cut off (a TCP proxy
between the process and the shared server) and 200 again after; ``python -m bot.healthcheck`` (the image's
HEALTHCHECK) follows it. On the real servers with the fake Telegram."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from tests.fakes.proxy import Proxy
from tests.fakes.telegram import FakeTelegram
from tests.scale.test_broadcast import ROOT
from tests.servers import fresh_pg_url, fresh_redis_url, require_pg, require_redis
from tests.subscriptions import subscribe_due_in
from tests.webhook.conftest import free_port

TOKEN = "7012345678:AAHfake-TelegramToken_for-role-metrics1"
N = 4


def samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The samples called ``name`` in a Prometheus text exposition, by their sorted labels."""
    return {
        tuple(sorted(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == name
    }


def via(url: str, proxy: Proxy) -> str:
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{proxy.port}"))


async def get(http: aiohttp.ClientSession, port: int, path: str) -> tuple[int, str]:
    async with http.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, await r.text()


async def wait_status(http: aiohttp.ClientSession, port: int, status: int, timeout: float = 20) -> str:
    """Polls ``/healthz`` until it answers ``status``; its body."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    last: tuple[int, str] | None = None
    while loop.time() < end:
        try:
            last = await get(http, port, "/healthz")
            if last[0] == status:
                return last[1]
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.1)
    raise AssertionError(f"/healthz on {port} never answered {status}: {last}")


def healthcheck(env: dict[str, str]) -> int:
    return subprocess.run(
        [sys.executable, "-m", "bot.healthcheck"], env=env, capture_output=True, timeout=30
    ).returncode


async def test_scheduler_and_worker_serve_metrics_and_healthz_over_http():
    require_pg()
    require_redis()
    with fresh_pg_url() as db, fresh_redis_url() as redis_url:
        await subscribe_due_in(db, N, first_chat=9100)
        pg, rd = urlsplit(db), urlsplit(redis_url)
        async with (
            Proxy(pg.hostname or "127.0.0.1", pg.port or 5432) as pg_proxy,
            Proxy(rd.hostname or "127.0.0.1", rd.port or 6379) as redis_proxy,
            FakeTelegram(token=TOKEN) as tg,
        ):
            base = {
                k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "SIKPAN_", "DISCORD_"))
            }
            common = {
                **base,
                "SIKPAN_ENV_FILE": os.devnull,
                "SIKPAN_DB": via(db, pg_proxy),
                "SIKPAN_REDIS_URL": via(redis_url, redis_proxy),
                "TELEGRAM_BOT_TOKEN": tg.token,
                "TELEGRAM_API_BASE_URL": tg.base_url,
                "SIKPAN_TZ": "UTC",
            }
            ports = {"scheduler": free_port(), "worker": free_port()}
            envs = {
                role: {**common, "SIKPAN_ROLE": role, "SIKPAN_METRICS_PORT": str(port)}
                for role, port in ports.items()
            }
            procs = {
                role: await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "bot.cli",
                    "run",
                    cwd=ROOT,
                    env=env,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.PIPE,
                )  # fmt: skip
                for role, env in envs.items()
            }
            try:
                async with aiohttp.ClientSession() as http:
                    for role, port in ports.items():
                        assert await wait_status(http, port, 200, timeout=60) == (
                            '{"database":"ok","redis":"ok"}'
                        ), role
                    sent = await tg.wait_sent(count=N, timeout=60)
                    assert sorted(str(c.params["chat_id"]) for c in sent) == [str(9100 + i) for i in range(N)]
                    await asyncio.sleep(1.0)  # the worker marks the last one sent after the reply
                    status, text = await get(http, ports["worker"], "/metrics")
                    assert status == 200
                    deliveries = samples(text, "sikpan_deliveries_total")
                    assert deliveries == {(("platform", "telegram"), ("status", "sent")): float(N)}
                    sends = samples(text, "sikpan_sends_total")
                    assert sends[(("outcome", "ok"), ("platform", "telegram"))] == float(N)
                    jobs = samples(text, "sikpan_queue_jobs_total")
                    assert jobs[(("result", "sent"),)] == float(N)
                    status, text = await get(http, ports["scheduler"], "/metrics")
                    assert samples(text, "sikpan_queue_enqueued_total") == {(("result", "queued"),): float(N)}
                    assert samples(text, "sikpan_deliveries_total") == {}  # the scheduler sent nothing

                    # the image's HEALTHCHECK asks the same /healthz
                    assert await asyncio.to_thread(healthcheck, envs["worker"]) == 0

                    await redis_proxy.cut()
                    for port in ports.values():
                        body = await wait_status(http, port, 503)
                        assert '"database":"ok"' in body and '"redis":"down: ' in body, body
                    assert await asyncio.to_thread(healthcheck, envs["worker"]) == 1
                    await redis_proxy.resume()
                    for port in ports.values():
                        await wait_status(http, port, 200)

                    await pg_proxy.cut()
                    for port in ports.values():
                        body = await wait_status(http, port, 503)
                        assert '"database":"down: ' in body and '"redis":"ok"' in body, body
                    await pg_proxy.resume()
                    for port in ports.values():
                        await wait_status(http, port, 200, timeout=30)  # the pools reconnect
                assert all(p.returncode is None for p in procs.values())  # an outage stops no role
            finally:
                for p in procs.values():
                    if p.returncode is None:
                        p.send_signal(signal.SIGTERM)
                errors = {}
                for role, p in procs.items():
                    _, err = await asyncio.wait_for(p.communicate(), 60)
                    errors[role] = (p.returncode, err.decode()[-3000:])
    for role, (code, err) in errors.items():
        assert code == 0, f"{role}: exit {code}: {err}"
        assert tg.token.split(":")[1] not in err
    assert len([c for c in tg.sent if str(c.params["chat_id"]).startswith("910")]) == N  # each once
