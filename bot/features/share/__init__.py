"""Shared readings and the actions of a reading: ``/share`` (deep links, issue #34 item 2) and ``/ask`` (another
question: the topics to choose from)."""
