"""The command layer's names of :mod:`bot.features.base` (where the shared types and the registry live), for
the command modules and the adapters that import them from here."""

from __future__ import annotations

from bot.features.base import (
    COMMANDS,
    ECHO_LIMIT,
    ArgSpec,
    CommandError,
    CommandSpec,
    Handler,
    Incoming,
    Page,
    Reply,
    Stored,
    caller,
    command,
    error_reply,
    lang_of,
    lookup,
    register,
    reply,
    resolve_lang,
    split_command,
    unregister,
)

__all__ = [
    "COMMANDS",
    "ECHO_LIMIT",
    "ArgSpec",
    "CommandError",
    "CommandSpec",
    "Handler",
    "Incoming",
    "Page",
    "Reply",
    "Stored",
    "caller",
    "command",
    "error_reply",
    "lang_of",
    "lookup",
    "register",
    "reply",
    "resolve_lang",
    "split_command",
    "unregister",
]
