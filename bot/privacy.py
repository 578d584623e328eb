"""What may be answered where: commands that show a user's own data are answered only privately.

A group or a public channel sees every reply, so the commands that show a user's saved data — place and
coordinates, zone, options, birth data, the cast history — are *private-only* there:

- where the platform can answer the caller alone (a Discord slash command: an ephemeral reply) they are
  answered that way (``Incoming.private_reply``);
- elsewhere (Telegram groups and channels, Discord prefix commands in a guild) the bot answers only
  ``bot.error.private_only`` ("ask me privately", localized) and runs nothing.

What a group may see of a stored cast (the first reply, and every page a button shows again) is an explicit
allow-list per view, ``Stored.public`` of the command that stores it (:func:`public_context`): the members
of the context a group may read (``"when.local"`` keeps that one member of ``when``; the others of ``when``
become None); every other member is left out. A view with an empty list (七政四餘: birth date, time, place
and coordinates are all it is made of) is never shown to a group. Other replies that would carry a saved
coordinate (a reply with ``when.longitude``) lose it.

Which commands are private-only their specs say (``CommandSpec.private_only``, read from the registry of
:mod:`bot.features.base`: no import of the command layer, so ``bot.commands.dispatch`` can call it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.features.base import allowed, lookup, stored_as_view


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


def public_cast(command: str) -> bool:
    """Whether anyone anywhere may see ``/command``'s casts: a stored cast with an allow-list
    (``Stored.public``), not private-only — what an anonymous request (a Telegram inline query, whose results
    can be posted into any chat) may run."""
    spec = lookup(command)
    return spec is not None and not spec.private_only and spec.stored is not None and bool(spec.stored.public)


def public_context(view: str, context: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """What a chat that others read may see of a reply's ``context``: for a stored view, only the members
    its allow-list names (None: a group may see nothing of it); otherwise the context without saved
    coordinates."""
    spec = stored_as_view(view)
    if spec is not None and spec.stored is not None:
        shown = allowed(context, spec.stored.public)
        token = context.get("shared")  # a shared reading (already what a group sees): its buttons name it
        return {**shown, "shared": token} if shown is not None and token is not None else shown
    when = context.get("when")
    if isinstance(when, Mapping) and when.get("longitude") is not None:
        return {**context, "when": {**when, "longitude": None, "solar": None}}
    return context


__all__ = [
    "allowed",
    "answer_privately",
    "private_only",
    "public_cast",
    "public_context",
    "refuse_in_public",
]
