"""Issue 36 item 3: a PostgreSQL outage heals in seconds. The queue workers reach the shared PostgreSQL
through a TCP proxy the test cuts (every connection aborted, new ones refused: ``ConnectionRefusedError``
and asyncpg's lost-connection errors inside the workers) for 10 s in the middle of a broadcast. A job that
meets the lost connection is run again with back-off and its row stays ``claimed``, so every reading goes
out once within seconds of the database's return — before, each job run during the cut failed for good and
its row waited for the scheduler's ``requeue_after`` (10 min). A worker started while the database is down
waits for it (``bot.startup.open_database``) instead of exiting with status 2. On the real servers with the
fake Telegram, the processes separate (``role_proc.py``, ``sikpan run``)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from bot.storage import Storage
from tests.fakes.proxy import Proxy
from tests.fakes.telegram import FakeTelegram
from tests.scale.test_broadcast import (
    HERE,
    ROOT,
    TOKEN,
    role_env,
    servers,
    spawn,
    stop_all,
    wait_settled,
)
from tests.scale.test_role_metrics import via
from tests.subscriptions import subscribe_due_in

N = 300
CUT_AT = 80
OUTAGE = 10.0


async def stuck(db: str, tg: FakeTelegram) -> str:
    """The rows left unsettled and what the fake received for their chats (for a failure's message)."""
    storage = await Storage.open(db, migrate=False)
    try:
        rows = await storage.fetchall(
            "SELECT d.id, d.status, d.claimed_by, d.attempts, d.error, s.chat_id FROM deliveries d"
            " JOIN subscriptions s ON s.id = d.subscription_id WHERE d.status IN ('claimed', 'sending')"
        )
    finally:
        await storage.close()
    sent = Counter(str(c.params["chat_id"]) for c in tg.sent)
    return "; ".join(f"{tuple(r)} received {sent[str(r[5])]}" for r in rows)


async def spawn_logged(role: str, env: dict[str, str], log: Path) -> asyncio.subprocess.Process:
    """A role process whose stderr goes to the file ``log``: always drained (a pipe read only at the end
    blocks a process once it has written its 64 KiB — a fault's tracebacks — and freezes its jobs), and
    there to read when the rows do not settle."""
    with log.open("wb") as out:
        return await asyncio.create_subprocess_exec(
            sys.executable, str(HERE / "role_proc.py"), role, cwd=ROOT, env=env, stderr=out
        )


async def stop_logged(procs: list[asyncio.subprocess.Process], logs: list[Path]) -> list[str]:
    """SIGTERM every process still running; the log tails of those that did not stop cleanly."""
    for p in procs:
        if p.returncode is None:
            p.send_signal(signal.SIGTERM)
    errors = []
    for p, log in zip(procs, logs, strict=True):
        await asyncio.wait_for(p.wait(), timeout=60)
        if p.returncode not in (0, -signal.SIGKILL):
            errors.append(f"exit {p.returncode}: {log.read_text(errors='replace')[-2000:]}")
    return errors


async def show_logs(procs: list[asyncio.subprocess.Process], logs: list[Path]) -> None:
    """Every process's tasks (``role_proc.dump_tasks``: where a stalled job waits) and its log's tail."""
    for p in procs:
        if p.returncode is None:
            p.send_signal(signal.SIGUSR1)
    await asyncio.sleep(1.0)
    for log in logs:
        print(f"--- {log.name}\n{log.read_text(errors='replace')[-30000:]}")


async def test_postgresql_cut_10_s_at_reading_80_of_300_every_reading_once_within_60_s_of_its_return(
    tmp_path: Path,
):
    async with servers() as (db, redis_url, tg):
        await subscribe_due_in(db, N)
        pg = urlsplit(db)
        async with Proxy(pg.hostname or "127.0.0.1", pg.port or 5432) as proxy:
            scheduler_env = role_env(db, redis_url, tg)
            worker_env = role_env(via(db, proxy), redis_url, tg, ROLE_MAX_JOBS="8")
            logs = [tmp_path / name for name in ("scheduler.log", "worker-1.log", "worker-2.log")]
            procs = [await spawn_logged("scheduler", scheduler_env, logs[0])]
            procs += [await spawn_logged("worker", worker_env, log) for log in logs[1:]]
            loop = asyncio.get_running_loop()
            try:
                for _ in range(1200):
                    if len(tg.sent) >= CUT_AT:
                        break
                    await asyncio.sleep(0.02)
                assert len(tg.sent) >= CUT_AT, "the broadcast did not start"
                await proxy.cut()
                cut_at, sent_before = loop.time(), len(tg.sent)
                await asyncio.sleep(OUTAGE)
                await proxy.resume()
                back_at = loop.time()
                try:
                    done = await wait_settled(db, N, timeout=60)
                except AssertionError:
                    print(await stuck(db, tg))
                    await show_logs(procs, logs)
                    raise
                settled_after = loop.time() - back_at
            finally:
                errors = await stop_logged(procs, logs)
        assert errors == []
        chats = Counter(str(c.params["chat_id"]) for c in tg.sent)
        last = max(c.at for c in tg.sent)
        print(
            f"\nPostgreSQL cut {OUTAGE:.0f} s after {sent_before} sends: {done}; "
            f"{sum(1 for c in tg.sent if c.at > cut_at + 1)} sent after the cut, the last "
            f"{last - back_at:.1f} s after the return; all settled {settled_after:.1f} s after it"
        )
        assert sent_before < N - 100  # the cut came early in the broadcast
        assert done == {"sent": N}  # every row settled as sent: none left claimed, sending or uncertain
        assert len(chats) == N and set(chats.values()) == {1}  # every chat exactly once
        assert last - back_at <= 60.0
        assert tg.flood_rejections == 0


async def test_a_worker_started_while_postgresql_is_down_waits_for_it_then_sends():
    async with servers() as (db, redis_url, tg):
        await subscribe_due_in(db, 5, first_chat=7700)
        pg = urlsplit(db)
        proxy = Proxy(pg.hostname or "127.0.0.1", pg.port or 5432)  # not listening: connections refused
        env = role_env(via(db, proxy), redis_url, tg, SIKPAN_ROLE="worker", SIKPAN_START_ATTEMPTS="6")
        env = {k: v for k, v in env.items() if k != "SIKPAN_LANG"}
        worker = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.cli",
            "run",
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        procs = [worker]
        lines: list[bytes] = []
        try:
            assert worker.stderr is not None
            while b"attempt 2 of 6 to connect failed" not in b"".join(lines):  # 1 s after the first
                line = await asyncio.wait_for(worker.stderr.readline(), 60)
                assert line, b"".join(lines).decode()[-2000:]
                lines.append(line)
            assert worker.returncode is None, "the worker gave up on the database at once"
            await proxy.resume()
            procs.append(await spawn("scheduler", role_env(db, redis_url, tg)))
            sent = await tg.wait_sent(count=5, timeout=30)
            assert sorted(str(c.params["chat_id"]) for c in sent) == [str(7700 + i) for i in range(5)]
        finally:
            worker.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(worker.communicate(), 60)
            await stop_all(procs[1:])
            await proxy.cut()
        log = (b"".join(lines) + err).decode()
        assert worker.returncode == 0, log[-2000:]
        assert "attempt 1 of 6 to connect failed" in log and "ConnectionRefusedError" in log
        assert TOKEN.split(":")[1] not in log


async def test_a_worker_whose_postgresql_stays_down_exits_2_after_its_attempts():
    async with servers() as (db, redis_url, tg):
        pg = urlsplit(db)
        proxy = Proxy(pg.hostname or "127.0.0.1", pg.port or 5432)  # never listens
        env = role_env(via(db, proxy), redis_url, tg, SIKPAN_ROLE="worker", SIKPAN_START_ATTEMPTS="3")
        loop = asyncio.get_running_loop()
        started = loop.time()
        worker = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", cwd=ROOT, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        _, err = await asyncio.wait_for(worker.communicate(), 60)
        took = loop.time() - started
        log = err.decode()
        assert worker.returncode == 2, log[-2000:]
        assert log.count("to connect failed") == 2  # attempts 1 and 2 logged, the third ends it
        assert 3.0 <= took < 30.0  # 1 s + 2 s of back-off, then one line and exit 2
