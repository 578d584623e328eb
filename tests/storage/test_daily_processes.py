"""Daily readings with several schedulers on one database (issue #17), on SQLite and on PostgreSQL:
claims decided by the database, recovery by age (never "everything claimed is mine at start-up"), and
``claimed`` → ``sending`` only by the row's own scheduler — so every chat gets its reading exactly once."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from bot.app import create_context
from bot.config import Settings
from bot.scheduler import DailyScheduler
from bot.sending import SendOutcome
from bot.storage import DailyStore, Storage
from tests.fakes.clock import ManualClock
from tests.servers import require_pg
from tests.subscriptions import subscribe_due_in

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DUE = datetime(2026, 11, 29, 21, 0, tzinfo=UTC)  # 06:00 in Seoul
BEFORE = DUE - timedelta(days=1)


@dataclass
class Recorder:
    """A transport that records every chat it sends to (shared by all schedulers of a test)."""

    sent: Counter[str] = field(default_factory=Counter)
    platform: str = "telegram"
    channel: str = "telegram"

    def configured(self) -> bool:
        return True

    def ready(self) -> bool:
        return True

    async def send(self, sub, text: str, *, before_request=None, moment=None) -> SendOutcome:
        if before_request is not None and not await before_request():
            return SendOutcome(False, 0, (), "not_attempted", sub.chat_id)
        await asyncio.sleep(0)  # let the other schedulers run in between
        self.sent[sub.chat_id] += 1
        return SendOutcome(True, 1, (1,), None, sub.chat_id)


async def _subscribe(store: DailyStore, n: int) -> None:
    for i in range(n):
        await store.subscribe(
            platform="telegram",
            chat_id=str(1000 + i),
            chat_kind="private",
            user_key=f"telegram:{1000 + i}",
            at_time=time(6, 0),
            tz="Asia/Seoul",
            lang="ko",
            kind=None,
            options={},
            now=BEFORE,
        )


async def _run_schedulers(target: str, count: int, subs: int, recorder: Recorder) -> list[DailyScheduler]:
    clock = ManualClock(DUE + timedelta(seconds=5))
    contexts = [
        await create_context(Settings(db_path=target, lang="ko", tz="Asia/Seoul"), clock=clock)
        for _ in range(count)
    ]
    try:
        await _subscribe(DailyStore(contexts[0].storage), subs)
        schedulers = [DailyScheduler(c, transports={"telegram": recorder}, workers=8) for c in contexts]
        stop = asyncio.Event()
        tasks = [asyncio.create_task(s.run(stop)) for s in schedulers]
        for _ in range(1200):  # ≤ 120 s
            if sum(recorder.sent.values()) >= subs:
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)  # a duplicate would show up meanwhile
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
        rows = await contexts[0].storage.fetchall("SELECT status, COUNT(*) FROM deliveries GROUP BY status")
        assert {r[0]: int(r[1]) for r in rows} == {"sent": subs}
        return schedulers
    finally:
        for c in contexts:
            await c.close()


async def test_postgresql_three_schedulers_send_1200_readings_each_exactly_once(tmp_path):
    require_pg()
    from tests.servers import fresh_pg_url

    recorder = Recorder()
    with fresh_pg_url() as url:
        schedulers = await _run_schedulers(url, 3, 1200, recorder)
    assert len(recorder.sent) == 1200 and set(recorder.sent.values()) == {1}
    # the schedulers shared the work (claims decided by the database, not by one process's memory)
    assert sum(s.stats.sent for s in schedulers) == 1200


async def test_sqlite_two_schedulers_elect_one_and_send_each_reading_once(tmp_path):
    recorder = Recorder()
    schedulers = await _run_schedulers(str(tmp_path / "two.db"), 2, 300, recorder)
    assert len(recorder.sent) == 300 and set(recorder.sent.values()) == {1}
    assert sorted(s.stats.sent for s in schedulers) == [0, 300]  # one elected, the other waited


async def test_sqlite_the_waiting_scheduler_takes_over_when_the_elected_one_stops(tmp_path):
    db = str(tmp_path / "takeover.db")
    first, second = await Storage.open(db), await Storage.open(db)
    try:
        assert first.backend.try_lead(["telegram"]) and not second.backend.try_lead(["telegram"])
        first.backend.resign()
        assert second.backend.try_lead(["telegram"])
    finally:
        await first.close()
        await second.close()


async def test_sqlite_elects_one_scheduler_per_platform(tmp_path):
    """A Telegram process and a Discord process on one file both schedule; a third serving both waits."""
    db = str(tmp_path / "platforms.db")
    tg, dc, both = await Storage.open(db), await Storage.open(db), await Storage.open(db)
    try:
        assert tg.backend.try_lead(["telegram"]) and dc.backend.try_lead(["discord"])
        assert not both.backend.try_lead(["discord", "telegram"])
        dc.backend.resign()
        assert not both.backend.try_lead(["discord", "telegram"])  # all or none: telegram is still held
        assert dc.backend.try_lead(["discord"])  # and the failed attempt released what it had taken
    finally:
        for storage in (tg, dc, both):
            await storage.close()


async def _claimed_rows(store: DailyStore, owner: str, n: int) -> list[int]:
    await _subscribe(store, n)
    claimed, skipped = await store.claim_due(DUE, owner, ["telegram"], timedelta(hours=2))
    assert skipped == [] and len(claimed) == n
    return [delivery_id for delivery_id, _ in claimed]


async def test_recovery_takes_over_only_rows_of_schedulers_that_are_gone(store: Storage):
    daily = DailyStore(store)
    await daily.register("alive", DUE)
    mine = await _claimed_rows(daily, "alive", 5)
    # another scheduler starting now: the live one's rows are not abandoned
    assert await daily.recover(DUE + timedelta(seconds=30), "newcomer", DUE - timedelta(seconds=60)) == (
        0,
        [],
    )
    assert all([await daily.start_sending(mine[0], "alive", DUE)])  # the owner still sends its own
    # the owner falls silent: 90 s later its rows are taken over by age, the in-flight one made uncertain
    later = DUE + timedelta(seconds=200)
    uncertain, taken = await daily.recover(later, "newcomer", later - timedelta(seconds=90))
    assert uncertain == 1 and [t[0] for t in taken] == mine[1:]
    assert not await daily.start_sending(mine[1], "alive", later)  # the old owner may not send any more
    assert await daily.start_sending(mine[1], "newcomer", later)
    assert not await daily.start_sending(mine[1], "newcomer", later)  # and only once


async def test_recovery_takes_only_rows_of_the_platforms_it_can_send_to(store: Storage):
    daily = DailyStore(store)
    rows = await _claimed_rows(daily, "gone", 2)  # telegram subscriptions of a scheduler that left
    assert await daily.recover(DUE, "discord-only", None, ["discord"]) == (0, [])
    _, taken = await daily.recover(DUE, "telegram-too", None, ["discord", "telegram"])
    assert [t[0] for t in taken] == rows


async def test_a_clean_stop_frees_its_unsent_rows_at_once(store: Storage):
    daily = DailyStore(store)
    await daily.register("leaving", DUE)
    await daily.register("staying", DUE)
    rows = await _claimed_rows(daily, "leaving", 3)
    await daily.unregister("leaving")
    _, taken = await daily.recover(DUE, "staying", DUE - timedelta(seconds=90))
    assert [t[0] for t in taken] == rows


async def test_a_subscription_written_by_another_process_is_planned(target: str):
    """No in-process notify across processes: the scheduler finds it by ``next_due_at`` (indexed)."""
    clock = ManualClock(DUE + timedelta(seconds=5))
    sched_ctx = await create_context(Settings(db_path=target, lang="ko", tz="Asia/Seoul"), clock=clock)
    writer = await Storage.open(target)  # "another process": its own connection, no notify
    recorder = Recorder()
    try:
        scheduler = DailyScheduler(sched_ctx, transports={"telegram": recorder}, poll_every=0.2)
        stop = asyncio.Event()
        task = asyncio.create_task(scheduler.run(stop))
        await asyncio.sleep(0.3)
        await _subscribe(DailyStore(writer), 1)
        for _ in range(100):
            if recorder.sent:
                break
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.wait_for(task, timeout=10)
        assert recorder.sent == Counter({"1000": 1})
    finally:
        await writer.close()
        await sched_ctx.close()


async def _spawn(target: str, out: Path, seconds: float) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(HERE / "scheduler_proc.py"),
        target,
        str(out),
        str(seconds),
        "2",  # stale after 2 s (PostgreSQL's takeover by age; SQLite's election needs none)
        cwd=ROOT,
        stderr=asyncio.subprocess.PIPE,
    )


def _lines(out: Path) -> list[tuple[str, str]]:
    if not out.exists():
        return []
    return [tuple(line.split()) for line in out.read_text().splitlines()]  # type: ignore[misc]


async def test_two_processes_send_each_reading_once_even_when_one_is_killed(target: str, tmp_path):
    """Two scheduler processes on one database; the first is ``kill -9``-ed mid-run: the other takes over
    (SQLite: the election passes at once; PostgreSQL: by heartbeat age); no chat gets its reading twice, and
    every chat has it unless it was in flight at the kill."""
    db, out, n = target, tmp_path / "sent.txt", 400
    await subscribe_due_in(db, n)
    first = await _spawn(db, out, 60)
    for _ in range(300):  # until the first one sends
        if _lines(out):
            break
        await asyncio.sleep(0.05)
    second = await _spawn(db, out, 60)
    await asyncio.sleep(
        1.0
    )  # the second has started and waits for the election (the first has ≈ 2 s of work)
    first.kill()  # kill -9, mid-run
    await first.wait()
    for _ in range(600):
        storage = await Storage.open(db)
        try:
            rows = await storage.fetchall("SELECT status, COUNT(*) FROM deliveries GROUP BY status")
        finally:
            await storage.close()
        done = {r[0]: int(r[1]) for r in rows}
        if done.get("sent", 0) + done.get("uncertain", 0) == n:
            break
        await asyncio.sleep(0.1)
    second.terminate()
    _, err = await second.communicate()
    assert second.returncode == 0, err.decode()
    chats = Counter(chat for _, chat in _lines(out))
    assert max(chats.values()) == 1  # never twice
    assert done.get("uncertain", 0) <= 4  # at most the in-flight ones (4 workers)
    assert len(chats) >= n - done.get("uncertain", 0)
    pids = {pid for pid, _ in _lines(out)}
    assert len(pids) == 2  # both processes sent: the second took over the rest


async def test_concurrent_claims_split_the_rows_without_deadlock(target: str):
    """Two schedulers' connections claim the same 400 due rows at once, in batches of 37: each row goes to
    exactly one of them, none is left, and no transaction fails (PostgreSQL: ``SKIP LOCKED``; SQLite: one
    writer at a time)."""
    first, second = await Storage.open(target), await Storage.open(target)
    try:
        a, b = DailyStore(first), DailyStore(second)
        await _subscribe(a, 400)

        async def drain(store: DailyStore, owner: str) -> list[int]:
            won: list[int] = []
            while True:
                claimed, skipped = await store.claim_due(DUE, owner, ["telegram"], timedelta(hours=2), 37)
                assert skipped == []
                won += [sub.id for _, sub in claimed]
                if not claimed:
                    return won
                await asyncio.sleep(0)

        won_a, won_b = await asyncio.gather(drain(a, "a"), drain(b, "b"))
        assert not set(won_a) & set(won_b)
        assert sorted(won_a + won_b) == sorted(s.id for s in await a.active())
        rows = await first.fetchall("SELECT claimed_by, COUNT(*) FROM deliveries GROUP BY claimed_by")
        # on SQLite one connection may take every batch (the other's BEGIN IMMEDIATE sleeps in busy_timeout's
        # back-off while the first commits and begins again): an owner that won nothing has no row
        won = {"a": len(won_a), "b": len(won_b)}
        assert {r[0]: int(r[1]) for r in rows} == {owner: count for owner, count in won.items() if count}
    finally:
        await first.close()
        await second.close()
