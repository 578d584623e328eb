"""The scheduler on a controllable clock with a recording transport (the Telegram e2e tests are separate).

Expected instants are worked by hand: Korea is UTC+9 all year (no DST since 1988); New York follows the US
rule (2026: EST→EDT on Sunday 8 March at 02:00, EDT→EST on Sunday 1 November at 02:00).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import date

from bot.app import create_context
from bot.config import Settings
from bot.scheduler import DailyScheduler
from bot.storage import DailyStore
from bot.views import render
from tests.daily.conftest import FakeTransport, move, running_scheduler, settle, utc


async def subscribe(say, text="/daily 07:00", **kw):
    r = await say(text, **kw)
    assert r.view == "daily_status", r
    return r


async def test_seoul_delivery_at_the_minute_and_once(ctx, clock, say):
    await subscribe(say)  # 06:00 in Seoul: due today 07:00 KST = 22:00 UTC
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        assert s.sleeping_until == utc(2026, 11, 29, 22, 0)
        await move(clock, s, utc(2026, 11, 29, 21, 59, 59))
        assert tr.sent == []
        await move(clock, s, utc(2026, 11, 29, 22, 0))
        assert len(tr.sent) == 1
        assert "2026-11-30" in tr.sent[0][1] and "07:00" in tr.sent[0][1]
        await move(clock, s, utc(2026, 11, 29, 22, 30))
        assert len(tr.sent) == 1
        assert s.sleeping_until == utc(2026, 11, 30, 22, 0)  # tomorrow 07:00 KST
        await move(clock, s, utc(2026, 11, 30, 22, 0))
        assert len(tr.sent) == 2
    rows = await DailyStore(ctx.storage).deliveries()
    assert [(r.local_date, r.due_at, r.status, r.attempts) for r in rows] == [
        (date(2026, 11, 30), utc(2026, 11, 29, 22), "sent", 1),
        (date(2026, 12, 1), utc(2026, 11, 30, 22), "sent", 1),
    ]


async def test_new_york_across_spring_forward(ctx, clock, say):
    await say("/tz America/New_York")
    clock.set(utc(2026, 3, 7, 12, 0))  # 07:00 EST on Saturday 7 March
    await subscribe(say, "/daily 08:00")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        assert s.sleeping_until == utc(2026, 3, 7, 13, 0)  # 08:00 EST
        await move(clock, s, utc(2026, 3, 7, 13, 0))
        assert len(tr.sent) == 1
        assert s.sleeping_until == utc(2026, 3, 8, 12, 0)  # 08:00 EDT: one hour earlier in UTC
        await move(clock, s, utc(2026, 3, 8, 11, 59))
        assert len(tr.sent) == 1
        await move(clock, s, utc(2026, 3, 8, 12, 0))
        assert len(tr.sent) == 2
        assert "(UTC-04:00)" in tr.sent[1][1] and "(UTC-05:00)" in tr.sent[0][1]


async def test_new_york_gap_and_fold(ctx, clock, say):
    await say("/tz America/New_York")
    clock.set(utc(2026, 3, 8, 5, 0))  # 00:00 EST on the spring-forward night
    await subscribe(say, "/daily 02:30")  # 02:30 does not exist that night: due at 03:30 EDT = 07:30 UTC
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        assert s.sleeping_until == utc(2026, 3, 8, 7, 30)
        await move(clock, s, utc(2026, 3, 8, 7, 30))
        assert len(tr.sent) == 1
    clock.set(utc(2026, 11, 1, 4, 0))  # 00:00 EDT on the fall-back night
    await subscribe(say, "/daily 01:30")  # 01:30 happens twice: due at the first (EDT, 05:30 UTC) only
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        assert s.sleeping_until == utc(2026, 11, 1, 5, 30)
        await move(clock, s, utc(2026, 11, 1, 5, 30))
        assert len(tr.sent) == 2
        await move(clock, s, utc(2026, 11, 1, 6, 30))  # the second 01:30 (EST)
        assert len(tr.sent) == 2
        assert s.sleeping_until == utc(2026, 11, 2, 6, 30)  # 01:30 EST on Monday


async def test_restart_right_after_delivery_sends_nothing_more(ctx, clock, say, db_path):
    await subscribe(say)
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
        assert len(tr.sent) == 1
    clock.set(utc(2026, 11, 29, 22, 1))
    ctx2 = await create_context(Settings(db_path=db_path, lang="ko", tz="Asia/Seoul"), clock=clock)
    try:
        async with running_scheduler(ctx2, transports={"telegram": tr}) as s2:
            await settle(s2)
            assert s2.sleeping_until == utc(2026, 11, 30, 22, 0)
        assert len(tr.sent) == 1
    finally:
        await ctx2.close()


async def test_restart_before_delivery_sends_it_once_late_within_grace(ctx, clock, say, db_path):
    await subscribe(say)
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}):
        pass  # stopped at 06:00, before the due minute
    clock.set(utc(2026, 11, 29, 23, 30))  # back 1 h 30 min late: within the 2 h grace
    ctx2 = await create_context(Settings(db_path=db_path, lang="ko", tz="Asia/Seoul"), clock=clock)
    try:
        async with running_scheduler(ctx2, transports={"telegram": tr}) as s2:
            await settle(s2)
        assert len(tr.sent) == 1
        [row] = await DailyStore(ctx2.storage).deliveries()
        assert (row.status, row.due_at) == ("sent", utc(2026, 11, 29, 22, 0))
    finally:
        await ctx2.close()


async def test_missed_beyond_grace_is_skipped_and_logged(ctx, clock, say, caplog):
    await subscribe(say)
    clock.set(utc(2026, 11, 30, 0, 30))  # 2 h 30 min after 07:00 KST
    tr = FakeTransport()
    with caplog.at_level(logging.WARNING, logger="bot.scheduler"):
        async with running_scheduler(ctx, transports={"telegram": tr}) as s:
            assert s.sleeping_until == utc(2026, 11, 30, 22, 0)
    assert tr.sent == []
    [row] = await DailyStore(ctx.storage).deliveries()
    assert (row.local_date, row.status) == (date(2026, 11, 30), "skipped")
    assert any("skipped 2026-11-30" in r.getMessage() for r in caplog.records)


async def test_subscribing_after_todays_time_starts_tomorrow(ctx, clock, say):
    clock.set(utc(2026, 11, 29, 22, 30))  # 07:30 KST
    await subscribe(say, "/daily 07:00")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        assert s.sleeping_until == utc(2026, 11, 30, 22, 0)
    assert tr.sent == [] and await DailyStore(ctx.storage).deliveries() == []


async def test_restart_in_the_middle_of_a_run_is_exactly_once(ctx, clock, say, db_path):
    for i in range(6):
        await subscribe(say, user=f"u{i}")
    # sends 1-2 succeed, send 3 hangs (in flight when the process dies), 4-6 are still queued
    tr = FakeTransport(script=["ok", "ok", "hang"])
    s = DailyScheduler(ctx, transports={"telegram": tr}, workers=1, shutdown_timeout=0.05)
    stop = asyncio.Event()
    task = asyncio.create_task(s.run(stop))
    await settle(s)
    clock.set(utc(2026, 11, 29, 22, 0))
    for _ in range(500):
        if tr.calls == 3:
            break
        await asyncio.sleep(0.005)
    assert tr.calls == 3 and len(tr.sent) == 2
    task.cancel()  # the process dies: no clean shutdown
    await asyncio.gather(task, return_exceptions=True)
    await s.close()
    statuses = sorted(r.status for r in await DailyStore(ctx.storage).deliveries())
    assert statuses == ["claimed", "claimed", "claimed", "sending", "sent", "sent"]

    clock.set(utc(2026, 11, 29, 22, 5))
    tr2 = FakeTransport()
    ctx2 = await create_context(Settings(db_path=db_path, lang="ko", tz="Asia/Seoul"), clock=clock)
    try:
        async with running_scheduler(ctx2, transports={"telegram": tr2}) as s2:
            await settle(s2)
            await move(clock, s2, utc(2026, 11, 29, 23, 0))
        rows = await DailyStore(ctx2.storage).deliveries()
    finally:
        await ctx2.close()
    first = {c for c, _ in tr.sent}
    second = {c for c, _ in tr2.sent}
    assert len(tr2.sent) == 3 and not first & second  # nobody got it twice
    assert sorted(r.status for r in rows) == ["sent"] * 5 + ["uncertain"]  # the in-flight one is not resent


async def test_blocked_chat_disables_the_subscription(ctx, clock, say):
    await subscribe(say, user="a")
    await subscribe(say, user="b")
    tr = FakeTransport(script=["forbidden"])
    # one worker: the script's first outcome goes to the first chat (two workers race on PostgreSQL)
    async with running_scheduler(ctx, transports={"telegram": tr}, workers=1) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
        await move(clock, s, utc(2026, 11, 30, 22, 0))  # the next day: only the other chat
    store = DailyStore(ctx.storage)
    a, b = await store.for_chat("telegram", "a"), await store.for_chat("telegram", "b")
    assert not a.active and a.disabled_reason == "forbidden"
    assert b.active
    assert [c for c, _ in tr.sent] == ["b", "b"]
    assert [r.status for r in await store.deliveries(a.id)] == ["blocked"]
    shown = await say("/daily", user="a")
    assert shown.context["sub"]["active"] is False and shown.context["sub"]["reason"] == "forbidden"
    assert "daily.status.disabled" not in render(shown, "console")


async def test_transient_errors_are_retried_with_backoff_then_given_up(ctx, clock, say):
    await subscribe(say, user="a")
    await subscribe(say, user="b")
    # a: two failures then success; b: fails every time (3 attempts)
    tr = FakeTransport(script=["gave_up", "gave_up", "gave_up", "gave_up", "ok", "gave_up"])
    async with running_scheduler(ctx, transports={"telegram": tr}, backoff=0.01, workers=1) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
    store = DailyStore(ctx.storage)
    rows = {r.subscription_id: r for r in await store.deliveries()}
    a, b = await store.for_chat("telegram", "a"), await store.for_chat("telegram", "b")
    assert (rows[a.id].status, rows[a.id].attempts) == ("sent", 3)
    assert (rows[b.id].status, rows[b.id].attempts, rows[b.id].error) == ("failed", 3, "gave_up")
    assert b.active  # a failure is not a block
    assert [c for c, _ in tr.sent] == ["a"]


async def test_shared_rendering_and_today_is_identical(ctx, clock, say):
    for i in range(30):
        await subscribe(say, user=f"k{i}", lang_hint="ko")
    for i in range(30):
        await subscribe(say, user=f"z{i}", lang_hint="zh-hant")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
        stats = s.renderer.stats
    assert len(tr.sent) == 60
    assert stats.bodies == 1 and stats.body_renders == 2 and stats.heads == 2  # one chart, two languages
    texts = {c: t for c, t in tr.sent}
    assert texts["k0"] != texts["z0"] and len(set(texts.values())) == 2
    clock.set(utc(2026, 11, 30, 5, 0))  # later the same day, /today gives the same reading
    again = await say("/today", user="k3", lang_hint="ko")
    assert render(again, "telegram") == texts["k3"]
    again_lzh = await say("/today", user="z7", lang_hint="zh-hant")
    assert render(again_lzh, "telegram") == texts["z7"]


async def test_liuyao_choice_is_delivered_and_today_matches(ctx, clock, say):
    await subscribe(say, "/daily 07:00 liuyao")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
    [(_, text)] = tr.sent
    assert "육효" in text
    assert render(await say("/today"), "telegram") == text
    r = await say("/daily liuren")
    assert r.context["sub"]["kind"] == "liuren"


async def test_transport_not_ready_waits_then_sends(ctx, clock, say):
    await subscribe(say)
    tr = FakeTransport(is_ready=False)
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        clock.set(utc(2026, 11, 29, 22, 0))
        await asyncio.sleep(0.05)
        assert tr.sent == [] and await DailyStore(ctx.storage).deliveries() == []
        tr.is_ready = True
        await move(clock, s, utc(2026, 11, 29, 22, 0, 2))
        assert len(tr.sent) == 1


async def test_stop_leaves_queued_rows_claimed_for_the_next_start(ctx, clock, say, db_path):
    for i in range(3):
        await subscribe(say, user=f"q{i}")
    tr = FakeTransport(script=["hang"])
    s = DailyScheduler(ctx, transports={"telegram": tr}, workers=1)
    stop = asyncio.Event()
    task = asyncio.create_task(s.run(stop))
    await settle(s)
    clock.set(utc(2026, 11, 29, 22, 0))
    for _ in range(500):
        if tr.calls == 1:
            break
        await asyncio.sleep(0.005)
    stop.set()
    await asyncio.sleep(0.01)
    tr.hang.set()  # the in-flight request completes during the clean shutdown
    await asyncio.wait_for(task, 10)
    assert sorted(r.status for r in await DailyStore(ctx.storage).deliveries()) == [
        "claimed",
        "claimed",
        "sent",
    ]


async def test_group_migration_moves_the_subscription(ctx, clock, say):
    await subscribe(say, user="admin", chat="-100", chat_kind="group")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        await s.on_migrated("telegram", "-100", "-100999")  # what the sender reports on ChatMigrated
        await move(clock, s, utc(2026, 11, 29, 22, 0))
    assert [c for c, _ in tr.sent] == ["-100999"]
    assert await DailyStore(ctx.storage).for_chat("telegram", "-100") is None


async def test_console_subscription_without_adapter_is_left_alone(ctx, clock, say):
    await subscribe(say, platform="console")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
        # nothing of the platforms it sends to is planned: the console row is not this scheduler's to claim
        assert not s.waiting and s.sleeping_until is None
    assert tr.sent == [] and await DailyStore(ctx.storage).deliveries() == []
