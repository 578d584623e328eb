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

from bot.features.base import lookup, stored_as_view


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
        return allowed(context, spec.stored.public)
    when = context.get("when")
    if isinstance(when, Mapping) and when.get("longitude") is not None:
        return {**context, "when": {**when, "longitude": None, "solar": None}}
    return context


def allowed(context: Mapping[str, Any], public: tuple[str, ...]) -> Mapping[str, Any] | None:
    """``context`` with only the members ``public`` names (``"a"``: member ``a`` whole; ``"a.b"``: member
    ``b`` of the mapping ``a``, its other members None); None when ``public`` is empty."""
    if not public:
        return None
    whole = {name for name in public if "." not in name}
    parts: dict[str, set[str]] = {}
    for name in public:
        if "." in name:
            head, _, tail = name.partition(".")
            parts.setdefault(head, set()).add(tail)
    shown: dict[str, Any] = {}
    for key, value in context.items():
        if key in whole:
            shown[key] = value
        elif key in parts and isinstance(value, Mapping):
            shown[key] = {k: (v if k in parts[key] else None) for k, v in value.items()}
        elif key in parts:
            shown[key] = None
    return shown


__all__ = [
    "allowed",
    "answer_privately",
    "private_only",
    "public_cast",
    "public_context",
    "refuse_in_public",
]
