"""Fixtures of the chat-picture tests: the fake Telegram Bot API and the fake Discord (tests/fakes)."""

from tests.adapters.conftest import tg  # noqa: F401  (the fixture)
from tests.chat.test_discord_pages import dc  # noqa: F401  (the fixture)
