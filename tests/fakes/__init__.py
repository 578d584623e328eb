"""Local fake servers for end-to-end tests of the real client libraries (nothing leaves 127.0.0.1).

- :mod:`tests.fakes.telegram` — :class:`~tests.fakes.telegram.FakeTelegram`, a Bot API server for
  python-telegram-bot (polling and webhook), with fault injection and recording.
- :mod:`tests.fakes.clock` — :class:`~tests.fakes.clock.ManualClock`, the one test clock (``now`` and
  ``sleep_until`` on a time the test sets).
- :mod:`tests.fakes.discord` — :class:`~tests.fakes.discord.FakeDiscord`, a gateway (websocket) + REST
  server for discord.py, with slash-command interactions, fault injection and recording.

Both are ``async with`` context managers that listen on an ephemeral port inside the test's event loop.
Read each module's docstring for its API.
"""
