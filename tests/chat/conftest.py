"""Fixtures of the chat tests: the fake Telegram Bot API (tests/fakes/telegram.py), the fake Discord, and
``sikpan run``."""

from collections.abc import AsyncIterator

import pytest

from tests.adapters.conftest import tg  # noqa: F401  (the fixture)
from tests.bot.conftest import clock, ctx, db_path  # noqa: F401,E402  (the fixtures; say is the root one)
from tests.fakes.discord import FakeDiscord


@pytest.fixture
async def dc() -> AsyncIterator[FakeDiscord]:
    """The fake Discord with Discord's own 3-second acknowledgement deadline (the chat tests measure it)."""
    async with FakeDiscord(ack_deadline=3.0) as fake:
        yield fake
