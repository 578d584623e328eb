"""The transport-free command layer: one dispatcher and registry for Telegram, Discord and the console.

A command lives in its feature package (``bot/features/<family>/``, docs/adding-a-command.md): an async
function registered with :func:`~bot.features.base.command`::

    @command("cast", aliases=("점",), help_msgid="bot.help.cast",
             args=(ArgSpec("when", "string", required=False, description_msgid="bot.arg.cast.when"),))
    async def cast(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply: ...

The command modules of the feature packages are imported below, statically: adding a module means adding it
to that import and to :data:`MODULES` (whose order is the commands' order: :func:`load_commands`). They import
from ``bot.features.*``, never from this package, so nothing imports in a circle. Here besides: the pages of
a stored cast (:mod:`.pages`), the settings buttons (:mod:`.setting_buttons`) and Discord's autocomplete
(:mod:`.complete`), for the adapters.
Handlers raise :class:`CommandError` (a message id of the catalogs) or ``EngineInputError`` for bad input;
:func:`dispatch` turns both into an ``error`` reply and never raises for user errors.

Adapters build an :class:`Incoming` from a platform update, ``await dispatch(incoming, ctx)`` and render the
:class:`Reply` with ``bot.views.render(reply, channel)``. Discord slash commands are generated from
:data:`COMMANDS` (``CommandSpec.args``) and turned back into a command line: ``"/" + name + " " + values``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from bot import metrics, privacy
from bot.context import AppContext
from bot.features.account import export, history, settings
from bot.features.base import (
    COMMANDS,
    ECHO_LIMIT,
    ArgSpec,
    CommandError,
    CommandSpec,
    Incoming,
    Page,
    Reply,
    Stored,
    anonymous_user,
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
from bot.features.common import Record, record_and_reply, zone_of
from bot.features.daily import command as daily
from bot.features.help import command as help_
from bot.features.journal import command as journal
from bot.features.liuren import command as cast
from bot.features.liuyao import command as liuyao
from bot.features.qizheng import command as qizheng
from bot.features.share import command as share
from bot.features.shensha import command as shensha
from bot.msgids import N_
from bot.sanitize import clean
from engine.errors import EngineInputError

log = logging.getLogger(__name__)

MODULES = (cast, help_, settings, daily, history, journal, export, share, liuyao, qizheng, shensha)

# Engine messages that speak of CLI flags, said in chat words instead (no chat message names a flag).
CHAT_WORDING = {
    "error.liuren.sun_needs_place": N_("chat.error.sun_needs_place"),
    "error.liuren.sun_needs_instant": N_("chat.error.sun_needs_instant"),
    "error.liuren.at_or_day": N_("bot.error.cast_usage"),
}


def load_commands() -> Mapping[str, CommandSpec]:
    """Every registered command, in the order of :data:`MODULES` (then each module's own order; a command
    registered from elsewhere last) whichever module was imported first: Telegram's command menu, Discord's
    list and the samples keep it."""
    rank = {module.__name__: i for i, module in enumerate(MODULES)}
    ordered = sorted(COMMANDS.values(), key=lambda spec: rank.get(spec.handler.__module__, len(rank)))
    return MappingProxyType({spec.name: spec for spec in ordered})


async def dispatch(incoming: Incoming, ctx: AppContext) -> Reply:
    """Run one command line; every user error becomes an ``error`` reply (this never raises for them).

    This is the outermost boundary of a request in the command layer: an unexpected exception (a bug in a
    command, an engine or the database) is logged with the command line and answered ``bot.error.internal``.
    Each answer is counted and timed by :mod:`bot.metrics` (command name, ``ok`` | ``error``).
    """
    started = time.perf_counter()
    reply = await _dispatch(incoming, ctx)
    parsed = split_command(incoming.text)
    spec = lookup(parsed[0]) if parsed else None
    metrics.command(spec.name if spec else "unknown", time.perf_counter() - started, reply.view != "error")
    return reply


async def _dispatch(incoming: Incoming, ctx: AppContext) -> Reply:
    # no control/bidi characters or lone surrogates (which cannot even be stored as UTF-8) past this point
    text = clean(incoming.text)
    display_name = clean(incoming.display_name) if incoming.display_name is not None else None
    if text != incoming.text or display_name != incoming.display_name:  # a copy only for a change (≈ 5 µs)
        incoming = replace(incoming, text=text, display_name=display_name)
    lang = ctx.settings.lang
    name = "?"
    try:
        user = await ctx.storage.get_user(incoming.user_key)  # the one user look-up of the command
        lang = lang_of(user, incoming, ctx)
        parsed = split_command(incoming.text)
        if parsed is None:
            return error_reply("bot.error.not_a_command", lang)
        name, args = parsed
        spec = lookup(name)
        if spec is None:
            return error_reply("bot.error.unknown_command", lang, name=name[:32])
        if incoming.anonymous and not privacy.public_cast(spec.name):  # only a cast anyone may see
            return error_reply("chat.inline.not_here", lang, name=spec.name)
        if spec.admin_in_groups and incoming.chat_kind != "private" and not incoming.user_is_admin:
            return error_reply("bot.error.admin_only", lang, name=spec.name)
        # the caller's own data is never shown to a group
        if privacy.refuse_in_public(spec.name, incoming.chat_kind, incoming.private_reply):
            return error_reply("bot.error.private_only", lang, name=spec.name)
        if incoming.anonymous:  # an answer that may be posted anywhere: nothing saved used but the language
            user = anonymous_user(incoming, user)  # and no row written
        elif user is None or (
            incoming.display_name is not None and incoming.display_name != user.display_name
        ):
            # first contact, or a new display name: the row is written (and read back in the same statement)
            user = await ctx.storage.touch_user(
                incoming.user_key, incoming.platform, incoming.user_id, incoming.display_name
            )
        incoming = replace(incoming, user=user)  # handlers read it with ``caller`` instead of the database
        try:
            result = await spec.handler(args, incoming, ctx)
        except CommandError as err:
            return error_reply(err.code, lang, **err.params)
        except (
            EngineInputError
        ) as err:  # the engines' messages say what is wrong, not how to ask: point to /help
            if err.code in CHAT_WORDING:  # an engine message written for the CLI (it names flags)
                return error_reply(CHAT_WORDING[err.code], lang, help_for=spec.name, **dict(err.params))
            return error_reply(err.code, lang, help_for=spec.name, **dict(err.params))
    except Exception:
        log.exception(
            "command /%s failed (%s chat %s, user %s)",
            name,
            incoming.platform,
            incoming.chat_id,
            incoming.user_id,
        )
        return error_reply("bot.error.internal", lang)
    private = privacy.answer_privately(spec.name, incoming.chat_kind, incoming.private_reply)
    result = replace(
        result, lang=result.lang or lang, ephemeral=result.ephemeral or spec.ephemeral or private
    )
    if incoming.chat_kind != "private" and not result.ephemeral:  # others read it: its allow-list only
        public = privacy.public_context(result.view, result.context)
        if public is None:  # a view a group may not see (never one of a command answered in a group)
            return error_reply("bot.error.private_only", lang, name=spec.name)
        result = replace(result, context=public)
    return result


__all__ = [
    "COMMANDS",
    "ECHO_LIMIT",
    "MODULES",
    "ArgSpec",
    "CommandError",
    "CommandSpec",
    "Incoming",
    "Page",
    "Record",
    "Reply",
    "Stored",
    "caller",
    "command",
    "dispatch",
    "error_reply",
    "load_commands",
    "record_and_reply",
    "lookup",
    "register",
    "reply",
    "resolve_lang",
    "split_command",
    "unregister",
    "zone_of",
]
