"""Daily subscriptions for the tests that need chats whose reading is due now (one helper, where the storage,
scale and queue suites each had their own copy)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, time, timedelta

from bot.storage import DailyStore, Storage, Subscription


async def subscribe_due(daily: DailyStore, chats: Iterable[str], now: datetime) -> list[Subscription]:
    """Subscribe each Telegram private chat (zone UTC, Korean, the default kind) to ``now``'s wall minute, as of
    a day before: every one is due at ``now``'s minute, today (``next_due_at`` ≤ ``now``)."""
    written = now - timedelta(days=1)
    at = time(now.astimezone(UTC).hour, now.astimezone(UTC).minute)
    return [
        await daily.subscribe(
            platform="telegram",
            chat_id=chat,
            chat_kind="private",
            user_key=f"telegram:{chat}",
            at_time=at,
            tz="UTC",
            lang="ko",
            kind=None,
            options={},
            now=written,
        )
        for chat in chats
    ]


def a_minute_ago() -> datetime:
    """The real clock's previous whole minute (what a scheduler started now finds due)."""
    return datetime.now(UTC).replace(second=0, microsecond=0) - timedelta(minutes=1)


async def subscribe_due_in(target: str, n: int, first_chat: int = 5000) -> None:
    """``n`` chats (``first_chat`` …) due a minute ago on the real clock, written through a connection of
    their own to the database ``target`` (as another process would)."""
    storage = await Storage.open(target)
    try:
        await subscribe_due(DailyStore(storage), (str(first_chat + i) for i in range(n)), a_minute_ago())
    finally:
        await storage.close()
