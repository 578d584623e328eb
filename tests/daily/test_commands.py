"""/daily and /today through the command layer (``bot.commands.dispatch``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.i18n import gettext
from bot.storage import DailyStore
from bot.views import render
from tests.daily.conftest import FakeTransport, move, running_scheduler, utc

ROOT = Path(__file__).resolve().parents[2]


async def test_status_subscribe_show_and_off(ctx, clock, say):
    r = await say("/daily")
    assert r.view == "daily_status" and r.context["sub"] is None
    assert gettext("ko", "daily.status.none") in render(r, "console")

    r = await say("/daily 7:30")
    assert r.context["sub"] == {
        "active": True,
        "time": "07:30",
        "zone": "Asia/Seoul",
        "kind": "liuren",
        "reason": None,
        "platform": "telegram",
        "topic": None,
    }
    # now 06:00 KST on 30 November → next 07:30 KST = 22:30 UTC the 29th
    assert r.context["next"] == {
        "local": "2026-11-30 07:30",
        "offset": "UTC+09:00",
        "utc": "2026-11-29 22:30",
    }
    text = render(r, "console")
    assert "07:30" in text and "2026-11-30 07:30" in text and gettext("ko", "daily.status.changed") in text

    shown = await say("/daily")
    assert shown.context["next"] == r.context["next"]

    off = await say("/daily off")
    assert render(off, "console") == gettext("ko", "daily.status.stopped")
    sub = await DailyStore(ctx.storage).for_chat("telegram", "u1")
    assert not sub.active and sub.disabled_reason == "off"
    assert (await say("/daily")).context["sub"]["active"] is False

    again = await say("/daily 08:00")  # subscribing again re-activates the same row
    assert (
        again.context["sub"]["active"]
        and (await DailyStore(ctx.storage).for_chat("telegram", "u1")).id == sub.id
    )


async def test_zone_from_tz_and_next_instant_in_new_york(ctx, clock, say):
    await say("/tz America/New_York")
    clock.set(utc(2026, 3, 8, 5, 0))  # 00:00 EST on the night of the change
    r = await say("/daily 08:00")
    assert r.context["sub"]["zone"] == "America/New_York"
    assert r.context["next"] == {
        "local": "2026-03-08 08:00",
        "offset": "UTC-04:00",
        "utc": "2026-03-08 12:00",
    }


async def test_kind_choice(ctx, say):
    r = await say("/daily liuyao")
    assert r.view == "error" and r.context["code"] == "daily.error.no_subscription"
    await say("/daily 07:00")
    r = await say("/daily 육효")
    assert r.context["sub"]["kind"] == "liuyao"
    r = await say("/daily 六壬")
    assert r.context["sub"]["kind"] == "liuren"
    r = await say("/daily 06:45 liuyao")
    assert (r.context["sub"]["time"], r.context["sub"]["kind"]) == ("06:45", "liuyao")


async def test_topic_choice_is_stored_shown_and_read_first(ctx, say):
    r = await say("/daily 재물")
    assert r.view == "error" and r.context["code"] == "daily.error.no_subscription"
    r = await say("/daily 07:30 재물")  # an everyday word: seed 003's 求財 (003:15 「求財：…」)
    assert r.context["sub"]["topic"] == {"ko": "구재", "lzh": "求財"}
    assert "구재(求財)" in render(r, "console")
    store = DailyStore(ctx.storage)
    assert (await store.for_chat("telegram", "u1")).topic == "求財"
    r = await say("/daily 08:00")  # a new time keeps the topic, as it keeps the kind
    assert r.context["sub"]["topic"]["lzh"] == "求財"
    r = await say("/daily 결혼")  # alone: the topic of the existing subscription
    assert r.context["sub"]["topic"]["lzh"] == "婚姻"
    r = await say("/daily 訟", lang_hint="zh-hant")  # 文言: 爭訟
    assert r.context["sub"]["topic"]["lzh"] == "爭訟"
    assert "先占：爭訟" in render(r, "console")
    today = await say("/today")
    assert today.context["body"]["topic"]["topic"] == "爭訟"
    text = render(today, "console")
    lines = text.split("\n")
    # the topic's line comes first after the head, before the day's line
    assert lines[3].startswith(gettext("ko", "daily.topic", topic="쟁송(爭訟)"))
    day_line = next(
        n for n, line in enumerate(lines) if line.startswith(gettext("ko", "daily.verdict") + " ")
    )
    assert day_line > 4
    r = await say("/daily 주제없음")
    assert r.context["sub"]["topic"] is None and (await store.for_chat("telegram", "u1")).topic is None
    assert (await say("/today")).context["body"]["topic"] is None


async def test_unknown_topic_word_gets_the_closest_topics(say):
    await say("/daily 07:30")
    r = await say("/daily 07:30 재뮬")  # a typo of 재물
    assert r.view == "choose"
    assert "求財" in [c["target"] for c in r.context["choices"]]
    assert r.context["line"] == "/daily 07:30"
    r = await say(
        "/daily 07:30 내일운세"
    )  # beside a time, any word is taken for a topic: the topics to choose
    assert r.view == "choose" and r.context["choices"]
    assert (await say("/daily 내일운세")).context[
        "code"
    ] == "daily.error.usage"  # alone and far from any topic


async def test_bad_input(say):
    for text, code in (
        ("/daily 25:00", "daily.error.bad_time"),
        ("/daily 7:5", "daily.error.bad_time"),
        ("/daily tomorrow", "daily.error.usage"),
        ("/daily 07:00 08:00", "daily.error.bad_time"),
    ):
        r = await say(text)
        assert (r.view, r.context["code"]) == ("error", code), text
        assert "daily." not in render(r, "console")


async def test_group_non_admin_may_not_change_it(ctx, say):
    r = await say("/daily 07:00", user="m1", chat="g1", chat_kind="group", admin=False)
    assert (r.view, r.context["code"]) == ("error", "bot.error.admin_only")
    assert await DailyStore(ctx.storage).for_chat("telegram", "g1") is None
    r = await say("/daily 07:00", user="a1", chat="g1", chat_kind="group", admin=True)
    assert r.context["sub"]["active"]
    r = await say("/daily off", user="m1", chat="g1", chat_kind="group", admin=False)
    assert r.context["code"] == "bot.error.admin_only"
    assert (await DailyStore(ctx.storage).for_chat("telegram", "g1")).active
    # reading today's reading is open to every member
    r = await say("/today", user="m1", chat="g1", chat_kind="group", admin=False)
    assert r.view == "daily"


async def test_classical_chinese_replies(say):
    r = await say("/daily 07:00", lang_hint="zh-hant")
    text = render(r, "telegram")
    assert gettext("lzh", "daily.status.title") in text
    assert not any("\uac00" <= ch <= "\ud7a3" for ch in text)


async def test_today_without_subscription_uses_the_default_time(ctx, clock, say):
    r = await say("/today")
    assert r.context["head"]["date"] == "2026-11-30" and r.context["head"]["time"] == "07:00"
    clock.set(utc(2026, 11, 30, 14, 0))  # 23:00 KST, the same local day: the same reading
    r2 = await say("/today")
    assert render(r2, "telegram") == render(r, "telegram")
    assert r2.context["no"] == 2  # stored in the history: /show 2 gives it again
    assert render(await say("/show 2"), "telegram") == render(r2, "telegram")


async def test_forget_removes_subscription_and_deliveries(ctx, clock, say):
    await say("/daily 07:00")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
    assert len(tr.sent) == 1
    store = DailyStore(ctx.storage)
    assert await store.deliveries() != []
    r = await say("/forget yes")
    assert r.view == "forget"
    assert await store.for_chat("telegram", "u1") is None and await store.deliveries() == []
    for table in ("subscriptions", "deliveries"):
        row = await ctx.storage.fetchone(f"SELECT COUNT(*) FROM {table}")  # noqa: S608
        assert row[0] == 0


async def test_help_lists_daily_and_today(say):
    text = render(await say("/help"), "console")
    assert "/daily" in text and "/today" in text
    assert "bot.help.daily" not in text and "bot.usage" not in text


async def test_console_subscription_says_where_readings_are_delivered(say):
    r = await say("/daily 07:00", platform="console")
    assert gettext("ko", "daily.status.console") in render(r, "console")
    assert gettext("ko", "daily.status.console") not in render(await say("/daily 07:00"), "console")


@pytest.mark.parametrize(
    "first", ["bot.views", "bot.daily", "bot.scheduler", "bot.app", "bot.features.daily.command"]
)
def test_commands_register_whatever_is_imported_first(first):
    # a fresh interpreter: whichever module comes first, every command module is imported and registered
    code = f"import {first}\nfrom bot.commands import lookup\nassert lookup('daily') and lookup('today')"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=ROOT)


async def test_group_rows_follow_the_admin_who_set_it_last(ctx, clock, say):
    await say("/daily 07:00", user="a1", chat="g2", chat_kind="group")
    tr = FakeTransport()
    async with running_scheduler(ctx, transports={"telegram": tr}) as s:
        await move(clock, s, utc(2026, 11, 29, 22, 0))
    await say("/daily 08:00", user="a2", chat="g2", chat_kind="group")
    await say("/forget yes", user="a1")  # the first admin's data: nothing of the group's is theirs any more
    store = DailyStore(ctx.storage)
    assert (await store.for_chat("telegram", "g2")).user_key == "telegram:a2"
    assert [r.status for r in await store.deliveries()] == ["sent"]  # today's delivery is still known
    await say("/forget yes", user="a2")
    assert await store.for_chat("telegram", "g2") is None and await store.deliveries() == []


async def test_console_today_pages_by_number_and_name(ctx):
    """On the console /today answers with its first page (the day's line) and names the other: its number or
    name shows the 課傳 page of the same reading (read again from the history)."""
    from bot.console import ConsoleSession

    session = ConsoleSession(ctx)
    first = await session.answer("/today")
    assert first.split("\n\n")[1].startswith(gettext("ko", "daily.verdict") + " ")
    assert gettext("ko", "chat.page.daily.chart") in first  # the other page is named
    section = "\n" + gettext("ko", "daily.liuren") + "\n"  # the chart's own heading line
    assert section not in first
    chart = await session.answer("2")
    assert section in chart and gettext("ko", "daily.stars.ji") not in chart
    assert await session.answer("課") == chart
    topics = await session.answer("3")  # every topic of seed 003's topic lines, with its direction
    assert gettext("ko", "daily.topics") in topics and "구재(求財)" in topics and "투알(投謁)" in topics
    await session.answer("/lang lzh")
    await session.answer("/today")
    assert "\n" + gettext("lzh", "daily.liuren") + "\n" in await session.answer("2")
