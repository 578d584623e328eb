"""Fixtures shared by the Discord end-to-end tests of the adapters and of the daily readings."""

from collections.abc import AsyncIterator

import discord
import pytest

from tests.fakes.discord import FakeDiscord


@pytest.fixture
async def dc() -> AsyncIterator[FakeDiscord]:
    """A fake Discord gateway + REST server on 127.0.0.1."""
    async with FakeDiscord(ack_deadline=1.0, heartbeat_interval_ms=200) as fake:
        yield fake


@pytest.fixture
def restore_discord_endpoints(monkeypatch):
    """``build_client`` sets discord.py's endpoints process-wide (class attributes): restore them after a test."""
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    )
