"""Fixtures of the chat-picture tests: the fake Telegram Bot API (the fake Discord ``dc`` is the root one)."""

from tests.adapters.conftest import tg  # noqa: F401  (the fixture)
