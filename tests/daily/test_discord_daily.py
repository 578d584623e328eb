"""End to end on Discord: the real discord.py client (``bot.discord.run_discord``) against the fake gateway +
REST server, with the daily scheduler on the same context and a hand-moved clock."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.app import AppContext
from bot.commands import daily_pages
from bot.discord.transport import DiscordTransport
from bot.i18n import gettext
from bot.scheduler import run_scheduler, scheduler_of
from bot.seal import unsealed
from bot.storage import DailyStore
from tests.conftest import discord_bot
from tests.daily.conftest import move, settle, utc
from tests.fakes.clock import ManualClock
from tests.fakes.discord import FakeDiscord

TITLE_KO = gettext("ko", "daily.title.liuren")


pytestmark = pytest.mark.usefixtures("restore_discord_endpoints")


@contextlib.asynccontextmanager
async def discord_with_scheduler(dc: FakeDiscord, db: str, clock: ManualClock) -> AsyncIterator[AppContext]:
    async with discord_bot(dc, db, clock=clock) as ctx:
        stop = asyncio.Event()
        # as bot.app runs it where the Discord client runs: the adapter's transport handed in
        runner = asyncio.create_task(run_scheduler(ctx, stop, transports=(DiscordTransport,)))
        try:
            for _ in range(500):
                scheduler = scheduler_of(ctx)
                if scheduler is not None and scheduler.transports["discord"].ready():
                    break
                await asyncio.sleep(0.01)
            assert scheduler is not None
            await settle(scheduler)
            yield ctx
        finally:
            stop.set()
            await asyncio.wait_for(runner, 15)


async def slash(dc: FakeDiscord, name: str, options: dict[str, Any] | None = None, **kw: Any) -> str:
    inter = await dc.slash(name, options, **kw)
    await dc.wait_followups(inter, 1, timeout=10)
    return "\n".join(m["content"] for m in inter.followups)


async def test_guild_channel_daily_delivered_once_and_non_admin_refused(dc, tmp_path):
    clock = ManualClock(utc(2026, 11, 29, 21, 59))  # 06:59 in Seoul
    async with discord_with_scheduler(dc, str(tmp_path / "db.sqlite"), clock) as ctx:
        refused = await slash(dc, "daily", {"setting": "07:00"}, user_id=5, permissions="0")
        # a Discord server's words (issue 15), not Telegram's "그룹에서는 관리자만"
        assert gettext("ko", "bot.error.admin_only.discord", name="daily") in refused
        assert "그룹" not in refused
        store = DailyStore(ctx.storage)
        assert await store.for_chat("discord", str(dc.channel_id)) is None
        status = await slash(
            dc, "daily", {"setting": "07:00 결혼"}, user_id=6, permissions=str(1 << 3)
        )  # ADMIN
        assert "혼인(婚姻)" in status  # 결혼 names seed 003's 婚姻 (issue 32 item 4)
        sub = await store.for_chat("discord", str(dc.channel_id))
        assert sub is not None and sub.chat_kind == "group"
        s = ctx.daily_scheduler
        await settle(s)
        assert s.sleeping_until == utc(2026, 11, 29, 22, 0)
        await move(clock, s, utc(2026, 11, 29, 22, 0), timeout=15)
        posts = [m for m in dc.messages if m["via"] == "channel" and m["channel_id"] == str(dc.channel_id)]
        # the date as Discord shows it: discord.utils.escape_markdown leaves a hyphen inside a line alone (it
        # is no markdown there); the reading's "- **name**" list items are the template's own markdown
        assert posts and "2026-11-30 (월) 07:00" in posts[0]["content"]
        content = "\n".join(m["content"] for m in posts)
        assert content.split("\n\n")[1].startswith("**" + gettext("ko", "daily.topic", topic="혼인(婚姻)"))
        assert (
            "**" + gettext("ko", "daily.verdict") + "** " in content
            and gettext("ko", "daily.stars.xiong") in content
        )
        assert all(len(m["content"]) <= 2000 for m in posts)
        # the buttons of its pages (issue 32 item 4) under the last message: any member of the channel may
        # browse them in place (one message: a long page is cut at a line, with a note)
        buttons = [c for row in posts[-1]["components"] for c in row["components"]]
        assert [daily_pages.decode(unsealed(b["custom_id"])).page for b in buttons] == [
            "day",
            "chart",
            "topics",
        ]
        chart = next(b for b in buttons if daily_pages.decode(unsealed(b["custom_id"])).page == "chart")
        pressed = await dc.press(posts[-1], chart["custom_id"], user_id=5, permissions="0")
        await dc.wait_acked(pressed, timeout=10)
        assert pressed.ack_type == 7  # UPDATE_MESSAGE: the same message, edited
        page = pressed.original["content"]
        assert gettext("ko", "daily.liuren") in page and "\n※ **" in page and "\\*\\*" not in page
        assert len(page) <= 2000
        elsewhere = await dc.press(posts[-1], chart["custom_id"], user_id=5, dm=True)  # in another channel
        await dc.wait_acked(elsewhere, timeout=10)
        assert elsewhere.ack_type == 4
        notice = next(m for m in dc.messages if m.get("interaction") == elsewhere.id)
        assert notice["content"] == gettext("ko", "chat.button.expired") and notice["flags"] & 64
        assert all(m["allowed_mentions"] == {"parse": []} for m in posts)
        # the picture of the day's 課 (the subscriber's daily_picture setting, default on) is uploaded with
        # the reading's first message, in the same request (multipart files[0])
        [picture] = posts[0]["attachments"]
        assert picture["filename"] == "chart.png" and min(picture["width"], picture["height"]) >= 640
        assert picture["description"] == gettext("ko", "chat.picture.daily")  # its alt text (issue 34)
        assert dc.uploaded[picture["id"]].startswith(b"\x89PNG")
        assert all(not m["attachments"] for m in posts[1:])
        rows = await store.deliveries(sub.id)
        assert [r.status for r in rows] == ["sent"]
        count = len(posts)
        await move(clock, s, utc(2026, 11, 29, 23, 0))
        assert len([m for m in dc.messages if m["via"] == "channel"]) == count


async def test_closed_dm_disables_the_subscription(dc, tmp_path):
    clock = ManualClock(utc(2026, 11, 29, 21, 59))
    async with discord_with_scheduler(dc, str(tmp_path / "db.sqlite"), clock) as ctx:
        inter = await dc.slash("daily", {"setting": "07:00"}, user_id=7, dm=True)
        await dc.wait_followups(inter, 1, timeout=10)
        dm_channel = inter.payload["channel_id"]
        dc.forbid_channel(dm_channel)
        s = ctx.daily_scheduler
        await move(clock, s, utc(2026, 11, 29, 22, 0), timeout=15)
        sub = await DailyStore(ctx.storage).for_chat("discord", str(dm_channel))
        assert sub is not None and not sub.active and sub.disabled_reason.startswith("forbidden")
        posts = [
            r
            for r in dc.requests
            if r.method == "POST" and r.path.endswith(f"channels/{dm_channel}/messages")
        ]
        assert [r.status for r in posts] == [403]
