"""The journal of outcomes: ``/note`` and ``/journal`` (issue #34 item 5)."""
