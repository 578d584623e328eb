"""Feature packages: each command family in one place (issue #31).

:mod:`bot.features.base` holds what a command and its views share: what a transport hands in
(:class:`~bot.features.base.Incoming`), what a command answers (:class:`~bot.features.base.Reply`), the command
spec with all its metadata (:class:`~bot.features.base.CommandSpec`) and the registry built from the specs,
which drives ``/help``, the Discord command sync, privacy, ``/history`` and the pages of a stored cast.
See docs/adding-a-command.md.
"""
