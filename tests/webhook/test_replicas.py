"""The proof of issue #17 for the webhook: two ``sikpan run --role webhook`` processes on one PostgreSQL
database behind one URL; a driver that behaves like Telegram posts 2,000 updates (an update whose POST
failed, was refused or was cut is redelivered, to the other replica when its own is gone); one replica gets
SIGTERM mid-stream. Every update gets exactly one reply at the fake Telegram: none lost, none doubled.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
import time
from collections import Counter

import aiohttp

from bench.webhook import replica_env, start_replica, stop_replicas, wait_ready
from bot.storage import Storage
from tests.fakes.telegram import FakeTelegram
from tests.servers import fresh_pg_url
from tests.webhook.conftest import HEADER, SECRET, free_port

UPDATES = 2000
IN_FLIGHT = 24  # Telegram's max_connections is 40 by default
CUT_SHARE = 0.03  # POSTs the driver cuts before their answer (a timeout, a dropped connection)
STOP_AFTER = 700  # answered updates before replica A gets SIGTERM


async def test_two_replicas_2000_updates_sigterm_one_mid_stream(tg, tmp_path):
    tg.poll_hold = 0.1
    with fresh_pg_url() as db:
        storage = await Storage.open(db)  # migrate once before the replicas start (docs/deploy.md)
        await storage.close()
        ports, monitors = [free_port(), free_port()], [free_port(), free_port()]
        logs = [tmp_path / "a.log", tmp_path / "b.log"]
        envs = [
            replica_env(
                {"SIKPAN_DB": db},
                tg.base_url,
                p,
                m,
                str(tmp_path),
                token=tg.token,
                secret=SECRET,
                send_rate=2000,
            )
            for p, m in zip(ports, monitors)
        ]
        procs = [await start_replica(env, lg, "--log-level", "INFO") for env, lg in zip(envs, logs)]
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        try:
            connector = aiohttp.TCPConnector(limit=IN_FLIGHT * 2)
            async with aiohttp.ClientSession(connector=connector) as http:
                for port, monitor, proc, lg in zip(ports, monitors, procs, logs):
                    await wait_ready(http, (monitor, port), proc, lg)
                stats = await drive(tg, http, bases, procs)
            await asyncio.wait_for(procs[0].wait(), 30)
            assert procs[0].returncode == 0, logs[0].read_text()[-2000:]
            await tg.wait_for("sendMessage", count=UPDATES, timeout=60)
            await asyncio.sleep(0.5)  # anything doubled would arrive now
        finally:
            await stop_replicas(procs, 30)
    replies = Counter(call.params["chat_id"] for call in tg.sent)
    chats = {10_000 + i for i in range(UPDATES)}
    assert set(replies) == chats, f"lost: {sorted(chats - set(replies))[:10]}"
    assert [c for c, n in replies.items() if n > 1] == [], "doubled"
    assert len(tg.sent) == UPDATES
    # the run was the one the test claims: redeliveries happened, both replicas answered, A drained
    assert stats["cut"] > 0 and stats["refused"] > 0, stats
    assert stats["answered"][0] > 0 and stats["answered"][1] > 0, stats
    a_log = logs[0].read_text(errors="replace")
    assert "webhook drained" in a_log, a_log[-2000:]
    in_flight = re.search(r"webhook stopping, (\d+) updates in flight", a_log)
    assert in_flight is not None, a_log[-2000:]
    print(f"\n{UPDATES} updates: {stats}; in flight on A at SIGTERM: {in_flight.group(1)}")


async def drive(
    tg: FakeTelegram, http: aiohttp.ClientSession, bases: list[str], procs: list[asyncio.subprocess.Process]
) -> dict:
    """Post every update until it is answered 2xx, as Telegram does: refused, failed, 5xx or cut → again
    later (the load balancer sends the retry to the other replica)."""
    rng = random.Random(17)
    queue: asyncio.Queue[tuple[dict, int]] = asyncio.Queue()
    for i in range(UPDATES):
        queue.put_nowait((tg.make_update("/start", chat_id=10_000 + i), 0))
    stats: dict = {"answered": [0, 0], "cut": 0, "refused": 0, "busy": 0, "posts": 0}
    done = 0
    sigterm_sent = asyncio.Event()
    started = time.monotonic()

    async def one(update: dict, attempt: int) -> bool:
        target = (update["update_id"] + attempt) % 2
        if sigterm_sent.is_set() and procs[0].returncode is not None:
            target = 1  # the balancer's health check took A out
        cut = attempt == 0 and rng.random() < CUT_SHARE
        timeout = aiohttp.ClientTimeout(total=rng.uniform(0.001, 0.02) if cut else 30)
        stats["posts"] += 1
        try:
            async with http.post(
                bases[target] + "/hook", json=update, headers={HEADER: SECRET}, timeout=timeout
            ) as r:
                await r.read()
                if r.status == 200:
                    stats["answered"][target] += 1
                    return True
                assert r.status == 503, r.status  # busy elsewhere or stopping: never 4xx
                stats["busy"] += 1
                return False
        except (TimeoutError, aiohttp.ClientError):
            stats["cut" if cut else "refused"] += 1
            return False

    async def worker() -> None:
        nonlocal done
        while True:
            try:
                update, attempt = queue.get_nowait()
            except asyncio.QueueEmpty:
                if done >= UPDATES:
                    return
                await asyncio.sleep(0.01)
                continue
            if await one(update, attempt):
                done += 1
                if done >= STOP_AFTER and not sigterm_sent.is_set():
                    sigterm_sent.set()
                    procs[0].send_signal(signal.SIGTERM)  # mid-stream: updates in flight on A
            else:
                await asyncio.sleep(0.05 * min(attempt + 1, 10))  # Telegram waits before redelivering
                queue.put_nowait((update, attempt + 1))

    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(IN_FLIGHT))), 120)
    stats["seconds"] = round(time.monotonic() - started, 1)
    return stats
