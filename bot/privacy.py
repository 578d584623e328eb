"""What may be answered where: commands that show a user's own data are answered only privately.

A group or a public channel sees every reply, so the commands that show a user's saved data — place and
coordinates, zone, options, birth data, the cast history — are *private-only* there:

- where the platform can answer the caller alone (a Discord slash command: an ephemeral reply) they are
  answered that way (``Incoming.private_reply``);
- elsewhere (Telegram groups and channels, Discord prefix commands in a guild) the bot answers only
  ``bot.error.private_only`` ("ask me privately", localized) and runs nothing.

Replies that are fine in a group but would carry a saved coordinate (a ``/cast`` with true solar time,
which uses the saved longitude) lose it through :func:`public_context`.

Which commands are private-only their specs say (``CommandSpec.private_only``, read from the registry of
:mod:`bot.features.base`: no import of the command layer, so ``bot.commands.dispatch`` can call it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.features.base import lookup


def private_only(command: str) -> bool:
    """Does ``/command`` show the caller's own data (so it must not be answered in a group)?"""
    spec = lookup(command)
    return spec is not None and spec.private_only


def refuse_in_public(command: str, chat_kind: str, private_reply: bool) -> bool:
    """True when ``/command`` must not run here: private-only, in a group/channel, no private answer."""
    return private_only(command) and chat_kind != "private" and not private_reply


def answer_privately(command: str, chat_kind: str, private_reply: bool) -> bool:
    """True when the reply must go to the caller alone (an ephemeral answer in a public chat)."""
    return private_only(command) and chat_kind != "private" and private_reply


def public_context(context: Mapping[str, Any]) -> Mapping[str, Any]:
    """A reply's context without saved coordinates, for a chat that others read."""
    when = context.get("when")
    if isinstance(when, Mapping) and when.get("longitude") is not None:
        return {**context, "when": {**when, "longitude": None, "solar": None}}
    return context


__all__ = ["answer_privately", "private_only", "public_context", "refuse_in_public"]
