"""Fixtures of the chat tests: the fake Telegram Bot API (tests/fakes/telegram.py) and ``sikpan run``."""

from tests.adapters.conftest import tg  # noqa: F401  (the fixture)
from tests.bot.conftest import clock, ctx, db_path  # noqa: F401,E402  (the fixtures; say is the root one)
