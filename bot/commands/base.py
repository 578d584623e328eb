"""The command layer's own types: what a transport hands in (:class:`Incoming`), what a command answers
(:class:`Reply`), the registry (:func:`command`, :data:`COMMANDS`, :func:`lookup`) and :class:`CommandError`.

Command modules import from here, never from the package ``bot.commands`` (which imports every command
module and the dispatcher), so the import graph runs one way: ``bot.commands`` → command modules → ``base``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from bot.context import AppContext
from bot.i18n import LANGS, normalize_lang
from bot.storage import UserSettings


@dataclass(frozen=True)
class Incoming:
    """One command from a user, as a transport received it."""

    platform: str  # "telegram" | "discord" | "console"
    chat_id: str
    user_id: str
    text: str  # the command line as typed, e.g. "/cast now" (no @botname)
    lang_hint: str | None = None  # platform language code (ko, zh-TW, en …)
    chat_kind: str = "private"  # "private" | "group" | "channel"
    user_is_admin: bool = True
    display_name: str | None = None
    private_reply: bool = False  # the transport can answer the caller alone here (Discord: ephemeral)
    # The caller's row as ``dispatch`` read it for this command (one user look-up per command); read it
    # with :func:`caller`. Adapters leave it None.
    user: UserSettings | None = field(default=None, compare=False, repr=False)

    @property
    def user_key(self) -> str:
        """The storage key of the user: ``platform:user_id``."""
        return f"{self.platform}:{self.user_id}"

    @property
    def chat_key(self) -> str:
        return f"{self.platform}:{self.chat_id}"


@dataclass(frozen=True)
class Reply:
    """A platform-neutral answer: a template name, its language and its (JSON-able) context."""

    view: str  # template name, e.g. "cast", "shensha", "error", "help"
    lang: str  # resolved language ("" inside handlers: dispatch fills it in)
    context: Mapping[str, Any] = field(default_factory=dict)
    ephemeral: bool = False
    # the chart picture's source (``bot.pictures.source``: the history kind, inputs and options it is cast
    # again from), or None for a reply without a picture; JSON, like the context
    picture: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ArgSpec:
    """One argument, for help texts and Discord slash options."""

    name: str  # ASCII, lowercase (slash option name)
    type: str = "string"  # "string" | "integer" | "number" | "boolean"
    required: bool = False
    description_msgid: str = ""
    choices: tuple[str, ...] = ()
    complete: str = ""  # a suggestion source of bot.commands.complete ("zone", "place"): Discord autocomplete


Handler = Callable[[tuple[str, ...], Incoming, AppContext], Awaitable[Reply]]


@dataclass(frozen=True)
class CommandSpec:
    name: str  # ASCII, 1–32 of a–z 0–9 _ (valid on Telegram and Discord)
    handler: Handler
    aliases: tuple[str, ...] = ()  # extra names (Korean/Chinese aliases work on the console and in text)
    help_msgid: str = ""
    args: tuple[ArgSpec, ...] = ()
    ephemeral: bool = False  # answer only the caller where the platform can (Discord)
    admin_in_groups: bool = False  # in groups only platform admins may run it
    hidden: bool = False  # not listed by /help


class CommandError(Exception):
    """Bad user input: ``code`` is a message id of the catalogs, ``params`` fill its placeholders."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


_REGISTRY: dict[str, CommandSpec] = {}
_ALIASES: dict[str, str] = {}
COMMANDS: Mapping[str, CommandSpec] = MappingProxyType(_REGISTRY)


def command(
    name: str,
    *,
    aliases: tuple[str, ...] = (),
    help_msgid: str | None = None,
    args: tuple[ArgSpec, ...] = (),
    ephemeral: bool = False,
    admin_in_groups: bool = False,
    hidden: bool = False,
) -> Callable[[Handler], Handler]:
    """Register ``handler`` as ``/name`` (and its aliases)."""

    def deco(handler: Handler) -> Handler:
        spec = CommandSpec(
            name=name,
            handler=handler,
            aliases=aliases,
            help_msgid=help_msgid if help_msgid is not None else f"bot.help.{name}",
            args=args,
            ephemeral=ephemeral,
            admin_in_groups=admin_in_groups,
            hidden=hidden,
        )
        _REGISTRY[name] = spec
        for alias in aliases:
            _ALIASES[alias.lower()] = name
        return handler

    return deco


def lookup(name: str) -> CommandSpec | None:
    """The command named ``name`` or one of its aliases (case-insensitive)."""
    key = name.lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    target = _ALIASES.get(key)
    return _REGISTRY.get(target) if target else None


def split_command(text: str) -> tuple[str, tuple[str, ...]] | None:
    """``"/cast 2026-11-29 23:10"`` → ``("cast", ("2026-11-29", "23:10"))``; None if not a command.

    A ``@botname`` suffix on the command word is dropped; full-width forms (／, ２０２６－１１－２９, the
    ideographic space) typed on CJK keyboards are folded to ASCII (NFKC).
    """
    line = unicodedata.normalize("NFKC", text).strip()
    if not line or line[0] not in "/／":
        return None
    parts = line[1:].split()
    if not parts:
        return None
    name = parts[0].split("@", 1)[0]
    if not name:
        return None
    return name, tuple(parts[1:])


def reply(
    view: str, *, ephemeral: bool = False, picture: Mapping[str, Any] | None = None, **context: Any
) -> Reply:
    """A reply from a handler (dispatch fills in the language); ``picture`` as :attr:`Reply.picture`."""
    return Reply(view=view, lang="", context=context, ephemeral=ephemeral, picture=picture)


def error_reply(code: str, lang: str = "", *, help_for: str | None = None, **params: Any) -> Reply:
    """An ``error`` reply; ``help_for`` adds a pointer to ``/help <command>`` (for messages without an example)."""
    context: dict[str, Any] = {"code": code, "params": _jsonable(params)}
    if help_for:
        context["help_for"] = help_for
    return Reply(view="error", lang=lang, context=context)


# An echoed value (the user's own input in an error message) is cut to this many characters.
ECHO_LIMIT = 40


def _jsonable(params: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in params.items():
        value = v if isinstance(v, int | float | bool) or v is None else str(v)
        if isinstance(value, str) and len(value) > ECHO_LIMIT:
            value = value[: ECHO_LIMIT - 1] + "…"
        out[k] = value
    return out


def lang_of(user: UserSettings | None, incoming: Incoming, ctx: AppContext) -> str:
    """The user's setting, else the platform's language hint, else SIKPAN_LANG."""
    if user is not None and user.lang in LANGS:
        return user.lang
    return normalize_lang(incoming.lang_hint) or ctx.settings.lang


async def caller(incoming: Incoming, ctx: AppContext) -> UserSettings | None:
    """The caller's settings: the row ``dispatch`` read for this command, else one look-up.

    A handler that changes the user (``update_user``) reads the row again from the storage afterwards.
    """
    if incoming.user is not None and incoming.user.user_key == incoming.user_key:
        return incoming.user
    return await ctx.storage.get_user(incoming.user_key)


async def resolve_lang(incoming: Incoming, ctx: AppContext) -> str:
    """The user's setting, else the platform's language hint, else SIKPAN_LANG."""
    return lang_of(await caller(incoming, ctx), incoming, ctx)
