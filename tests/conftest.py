"""Fixtures and helpers shared by the Discord end-to-end tests (adapters, chat views, settings, daily readings,
reliability): the fake server and the real discord.py adapter started against it."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest

from tests.fakes.discord import FakeDiscord


@pytest.fixture
async def dc() -> AsyncIterator[FakeDiscord]:
    """A fake Discord gateway + REST server on 127.0.0.1."""
    # every picture the bot uploads must carry its alt text (issue 34 item 4)
    async with FakeDiscord(ack_deadline=1.0, heartbeat_interval_ms=200, require_alt_text=True) as fake:
        yield fake


@pytest.fixture
def restore_discord_endpoints(monkeypatch):
    """``build_client`` sets discord.py's endpoints process-wide (class attributes): restore them after a test."""
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    )


def discord_settings(dc: FakeDiscord, db: str, **overrides: Any) -> Any:
    """``Settings`` of a bot that speaks to the fake ``dc`` (ko, Asia/Seoul unless overridden)."""
    from bot.config import Settings

    values: dict[str, Any] = {"lang": "ko", "tz": "Asia/Seoul", **overrides}
    return Settings(
        discord_token=dc.token,
        discord_api_base_url=dc.api_base_url,
        discord_gateway_url=dc.gateway_url,
        db_path=db,
        **values,
    )


@contextlib.asynccontextmanager
async def discord_bot(
    dc: FakeDiscord, db: str, *, clock: Any = None, settings: Any = None, **options: Any
) -> AsyncIterator[Any]:
    """The real discord.py adapter (``bot.discord.run_discord``, ``options`` passed on) on a context of its
    own, connected to ``dc`` until the block ends; yields the ``AppContext``. Use with the fixture
    ``restore_discord_endpoints``. A second start on the same fake waits for a new READY."""
    import bot.discord as dmod
    from bot.app import create_context

    dc._ready.clear()
    ctx = await create_context(settings or discord_settings(dc, db), clock=clock)
    stop = asyncio.Event()
    task = asyncio.create_task(dmod.run_discord(ctx, stop, guild_ready_timeout=0.1, **options))
    try:
        await dc.wait_ready()
        yield ctx
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)
        await ctx.close()


def say_to(ctx: Any, *, platform: str = "console", lang_hint: str | None = None) -> Any:
    """``await say(text, user=…, …)``: one command line through ``dispatch`` on ``ctx``, as a user types it
    (defaults: this platform, a private chat of the user's own, this language hint)."""
    from bot.commands import Incoming, dispatch

    default_platform, default_hint = platform, lang_hint

    async def say(
        text: str,
        user: str = "u1",
        platform: str = default_platform,
        chat: str | None = None,
        chat_kind: str = "private",
        admin: bool = True,
        lang_hint: str | None = default_hint,
        display_name: str | None = None,
        context: Any = None,
    ) -> Any:
        incoming = Incoming(
            platform=platform,
            chat_id=chat if chat is not None else user,
            user_id=user,
            text=text,
            lang_hint=lang_hint,
            chat_kind=chat_kind,
            user_is_admin=admin,
            display_name=display_name,
        )
        return await dispatch(incoming, context or ctx)

    return say


@pytest.fixture
def say(ctx: Any) -> Any:
    """``say_to`` the directory's ``ctx`` fixture (the console, no language hint)."""
    return say_to(ctx)
