"""The Discord adapter (discord.py 2.x): slash commands generated from the command registry.

- :func:`build_client` is a factory: it points discord.py at ``DISCORD_API_BASE_URL`` (class attribute
  ``discord.http.Route.BASE``) and ``DISCORD_GATEWAY_URL`` (``DiscordWebSocket.DEFAULT_GATEWAY``) and builds
  the client and its command tree; nothing connects until :func:`run_discord` (or a test) starts it.
- Slash commands: one per entry of :data:`bot.commands.COMMANDS` (hidden ones excepted), with typed options
  from its ``ArgSpec`` s (string / integer / number / boolean; ``choices`` become a fixed choice list),
  descriptions from the catalogs in the default language (``SIKPAN_LANG``) and localized for Discord's
  ``ko`` and ``zh-TW`` (文言) locales by an ``app_commands.Translator``. They are synced on start in
  ``setup_hook``: the registered commands are read (``GET /applications/{id}/commands``) and, unless they
  already match, replaced by one bulk overwrite (``PUT``); set ``sync=False`` to skip.
- A user-installable app (issue 34 item 4): every command is registered for a server install and a user
  install (``integration_types`` 0, 1) and offered in servers, the bot's DM and private channels
  (``contexts`` 0, 1, 2); a subscription (``CommandSpec.subscribes``) not in private channels and refused in a
  server where only the user installed the app (the bot could never post there). Option names and the fixed
  choices are localized too (``chat.option.*``, ``chat.choice.*``). Only the bot's DM is a private chat: a
  private channel is answered like a server's channel (the user's own data ephemerally).
- Every picture is uploaded with its description (alt text, ``Message.alt``).
- Every command defers first (``interaction.response.defer(thinking=True)``, so the 3-second rule holds
  whatever the chart costs), then runs ``dispatch`` and sends the rendered reply as follow-ups through
  :class:`bot.discord.sender.DiscordSender` (split at 2000, mentions escaped, ``AllowedMentions.none()``).
- The client is created with ``allowed_mentions=AllowedMentions.none()`` and no privileged intents.
  Optional prefix commands (``prefix="!"``) additionally need the message-content intent (enable it in the
  Developer Portal first, or the gateway closes with 4014): then ``!cast now`` works like ``/cast now``.
- Language: the user's setting, else the interaction's locale (``ko`` → ko, ``zh-*`` → lzh), else
  ``SIKPAN_LANG``. Group admin = the member's ``administrator`` or ``manage_guild`` permission.
- ``ctx.discord_client`` and ``ctx.discord_sender`` are set for the scheduler; blocked recipients are
  reported to the callbacks in ``ctx.on_blocked`` (shared with Telegram).
"""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
import re
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
import yarl
from discord import app_commands

from bot import logs, metrics, msgids, pictures, privacy
from bot.admission import Verdict
from bot.commands import (
    CommandSpec,
    Incoming,
    Reply,
    action_buttons,
    daily_pages,
    dispatch,
    error_reply,
    load_commands,
    pages,
    resolve_lang,
    setting_buttons,
    word_buttons,
)
from bot.commands.complete import suggest
from bot.config import install_redaction
from bot.discord.identify import IDENTIFY_INTERVAL, IdentifyGate
from bot.discord.sender import DiscordSender
from bot.i18n import N_, gettext
from bot.presentation import Message, answer, day_page, present, sealed
from bot.sanitize import clean
from bot.seal import OWN, Opened
from bot.sending import SendOutcome
from bot.startup import start_with_retries

if TYPE_CHECKING:  # discord.types is for type checkers (it cannot be imported on its own at run time)
    from discord.types.command import ApplicationCommand as ApplicationCommandPayload

    from bot.config import Settings
    from bot.context import AppContext, Callback

log = logging.getLogger(__name__)

DEFAULT_API_BASE_URL = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}
_LOCALES = {discord.Locale.korean: "ko", discord.Locale.taiwan_chinese: "lzh"}
ATTACHMENT_URL = f"attachment://{pictures.FILENAME}"  # an embed's image: the message's own attachment
# where the commands are offered (issue 34 item 4): installed to a server or to a user, and used in servers,
# in the bot's DM and in private channels (group DMs and DMs between users, where only the interaction
# can answer)
EVERYWHERE = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True)
INSTALLS = app_commands.AppInstallationType(guild=True, user=True)
# a command that keeps posting to its chat (a subscription) is not offered where the bot may never post
WHERE_IT_POSTS = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=False)
_NAME = re.compile(r"[-_\w]{1,32}")  # Discord's command and option names (letters, digits, - and _)
_NAME_LOCATIONS = frozenset(
    {
        app_commands.TranslationContextLocation.command_name,
        app_commands.TranslationContextLocation.group_name,
        app_commands.TranslationContextLocation.parameter_name,
    }
)
HANDLED_KEPT = 1000  # outcomes kept in ``SikpanClient.handled`` (for tests and metrics); older ones drop


def configure_endpoints(api_base_url: str, gateway_url: str) -> None:
    """Point discord.py's REST routes and gateway at the given URLs (process-wide class attributes)."""
    discord.http.Route.BASE = api_base_url.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def contexts_of(spec: CommandSpec) -> app_commands.AppCommandContext:
    """Where Discord offers ``/spec.name``: everywhere, but a subscription (``CommandSpec.subscribes``) not in
    private channels, where the bot is no member and could never deliver."""
    return WHERE_IT_POSTS if spec.subscribes else EVERYWHERE


def option_msgid(name: str) -> str:
    """The message id of an option's localized name (``chat.option.<name>``), "" for an option without one."""
    try:
        return msgids.msgid("chat.option", name)
    except KeyError:
        return ""


def choice_msgid(option: str, value: str) -> str:
    """The message id of a fixed choice's localized name (``chat.choice.<option>.<value>``), "" for none."""
    try:
        return msgids.msgid("chat.choice", f"{option}.{value}")
    except KeyError:
        return ""


def command_name(text: str) -> str | None:
    """``text`` as a Discord command or option name (lowercase, spaces as ``-``), or None when Discord would
    refuse it (more than 32 characters, punctuation)."""
    name = "-".join(text.lower().split())
    return name if _NAME.fullmatch(name) else None


def _describe(lang: str, msgid: str, fallback: str) -> str:
    text = gettext(lang, msgid).split("\n", 1)[0].strip() if msgid else ""
    if not text or text == msgid:
        text = fallback
    return text[:100]


class CatalogTranslator(app_commands.Translator):
    """Localizes command and option names and descriptions from the gettext catalogs (``msgid`` in the
    extras) for Discord's ``ko`` and ``zh-TW`` (文言) locales: a name only as Discord accepts one
    (:func:`command_name`), a description cut to 100 characters."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        lang = _LOCALES.get(locale)
        msgid = string.extras.get("msgid")
        if lang is None or not msgid:
            return None
        text = gettext(lang, msgid).split("\n", 1)[0].strip()
        if not text or text == msgid:
            return None
        if context.location in _NAME_LOCATIONS:
            return command_name(text)
        return text[:100]


def command_line(spec: CommandSpec, values: dict[str, Any]) -> str:
    """The text command equivalent to a slash invocation: ``/name v1 v2`` in ``ArgSpec`` order."""
    parts = ["/" + spec.name]
    for arg in spec.args:
        value = values.get(arg.name)
        if value is None:
            continue
        if isinstance(value, bool):
            value = "on" if value else "off"
        parts.append(str(value).strip())
    return " ".join(p for p in parts if p)


async def _retry_after(response: aiohttp.ClientResponse) -> float | None:
    """The seconds a 429 asks for: the body's ``retry_after`` (what discord.py waits), else the
    ``X-RateLimit-Reset-After`` / ``Retry-After`` header; None when it names none."""
    try:
        data = await response.json(content_type=None)  # cached: discord.py reads the same body after us
    except (aiohttp.ClientError, ValueError, UnicodeDecodeError):
        data = None
    value = data.get("retry_after") if isinstance(data, dict) else None
    if value is None:
        value = response.headers.get("X-RateLimit-Reset-After") or response.headers.get("Retry-After")
    try:
        seconds = float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
    return seconds if seconds is not None and 0 <= seconds < 1e6 else None


def rate_limit_trace() -> aiohttp.TraceConfig:
    """An aiohttp trace for the client's HTTP session (``http_trace``): every 429 Discord answers is counted
    in :func:`bot.metrics.rate_limited` with its ``retry_after`` — discord.py waits and retries those itself,
    so the sender never sees them."""

    async def on_request_end(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestEndParams
    ) -> None:
        if params.response.status == 429:
            metrics.rate_limited("discord", await _retry_after(params.response))

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(on_request_end)
    return trace


class SikpanClient(discord.AutoShardedClient):
    """The bot's client: sharded (``shard_count`` None = as many as Discord recommends, ``shard_ids`` None =
    all of them in this process), one command tree for every shard."""

    def __init__(
        self,
        ctx: AppContext,
        *,
        sender: DiscordSender,
        sync: bool = True,
        prefix: str | None = None,
        guild_ready_timeout: float = 2.0,
        shard_count: int | None = None,
        shard_ids: Sequence[int] | None = None,
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        if prefix:
            intents.guild_messages = True
            intents.dm_messages = True
            intents.message_content = True
        if shard_ids is not None:
            super().__init__(
                intents=intents,
                allowed_mentions=discord.AllowedMentions.none(),
                guild_ready_timeout=guild_ready_timeout,
                shard_count=shard_count,
                shard_ids=list(shard_ids),
                http_trace=rate_limit_trace(),
            )
        else:
            super().__init__(
                intents=intents,
                allowed_mentions=discord.AllowedMentions.none(),
                guild_ready_timeout=guild_ready_timeout,
                shard_count=shard_count,
                http_trace=rate_limit_trace(),
            )
        self.ctx = ctx
        self.sender = sender
        self.sync_on_start = sync
        self.prefix = prefix
        # a user-installable app (issue 34 item 4): every command is offered for a server install and a user
        # install, in servers, in the bot's DM and in private channels (group DMs), unless its spec says
        # otherwise (:func:`contexts_of`)
        self.tree = app_commands.CommandTree(self, allowed_contexts=EVERYWHERE, allowed_installs=INSTALLS)
        self.tree.error(self.on_app_command_error)
        self.synced: list[app_commands.AppCommand] = []
        self.handled: deque[SendOutcome] = deque(maxlen=HANDLED_KEPT)  # the latest outcomes only
        for spec in load_commands().values():
            if not spec.hidden:
                self.tree.add_command(self._slash(spec))

    # ------------------------------------------------------------------ commands
    def _slash(self, spec: CommandSpec) -> app_commands.Command[Any, ..., Any]:
        lang = self.ctx.settings.lang
        client = self

        async def callback(interaction: discord.Interaction, **values: Any) -> None:
            with logs.ids(update=interaction.id):  # its log lines carry the interaction id (bot.logs)
                await client.invoke(spec, interaction, values)

        params = [
            inspect.Parameter(
                "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
            )
        ]
        descriptions: dict[str, app_commands.locale_str] = {}
        renames: dict[str, app_commands.locale_str] = {}  # the option names, localized by the translator
        choices: dict[str, list[app_commands.Choice[str]]] = {}  # fixed choices, their names localized too
        for arg in spec.args:
            annotation: Any = _TYPES.get(arg.type, str)
            if arg.choices:
                annotation = str
                choices[arg.name] = [
                    app_commands.Choice(
                        name=app_commands.locale_str(v, msgid=choice_msgid(arg.name, v)), value=v
                    )
                    for v in arg.choices
                ]
            if not arg.required:
                annotation = annotation | None
            params.append(
                inspect.Parameter(
                    arg.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    annotation=annotation,
                    default=inspect.Parameter.empty if arg.required else None,
                )
            )
            descriptions[arg.name] = app_commands.locale_str(
                _describe(lang, arg.description_msgid, arg.name), msgid=arg.description_msgid
            )
            renames[arg.name] = app_commands.locale_str(arg.name, msgid=option_msgid(arg.name))
        # discord.py reads a callback's parameters from its signature and their descriptions from this
        # attribute (what ``@app_commands.describe`` sets): both are generated here from the ArgSpecs.
        callback.__dict__["__signature__"] = inspect.Signature(params)
        callback.__dict__["__discord_app_commands_param_description__"] = descriptions
        callback.__dict__["__discord_app_commands_param_rename__"] = renames
        callback.__dict__["__discord_app_commands_param_choices__"] = choices
        command: app_commands.Command[Any, ..., Any] = app_commands.Command(
            name=app_commands.locale_str(spec.name, msgid=spec.name_msgid),
            description=app_commands.locale_str(
                _describe(lang, spec.help_msgid, spec.name), msgid=spec.help_msgid
            ),
            callback=callback,
        )
        if spec.admin_in_groups:  # e.g. /daily: only members who may manage the server see it in guilds
            command.default_permissions = discord.Permissions(manage_guild=True)
        command.allowed_contexts = contexts_of(spec)
        for arg in spec.args:
            if arg.complete:
                command.autocomplete(arg.name)(self._completer(arg.complete))
        return command

    def _completer(
        self, source: str
    ) -> Callable[[discord.Interaction[Any], str], Coroutine[Any, Any, list[app_commands.Choice[str]]]]:
        ctx = self.ctx

        async def complete(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            lang = await resolve_lang(self.incoming(interaction, ""), ctx)
            return [
                app_commands.Choice(name=name[:100], value=value[:100])
                for name, value in suggest(source, current, lang)
            ]

        return complete

    async def invoke(
        self, spec: CommandSpec, interaction: discord.Interaction, values: dict[str, Any]
    ) -> None:
        # Acknowledge first: the 3-second rule (404 10062 "Unknown interaction" otherwise). Commands that
        # show the caller's own data are answered ephemerally in a guild (the first follow-up of a deferred
        # response inherits the defer's visibility, so it is decided here).
        incoming = self.incoming(interaction, command_line(spec, values))
        verdict = self.ctx.admission.check(incoming.user_key, incoming.chat_key)
        if verdict is Verdict.DROP:  # a flood: no work, no answer
            return
        if verdict is Verdict.WARN:  # one polite "slow down", to the caller alone
            reply = error_reply("bot.error.slow_down", await resolve_lang(incoming, self.ctx))
            await interaction.response.send_message(
                self.sender.prepare(present(reply, "discord").text),
                ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        # a subscription where the bot may never post (a server where only the user installed the app)
        if spec.subscribes and not self.may_post(interaction):
            lang = await resolve_lang(incoming, self.ctx)
            reply = error_reply("bot.error.not_installed", lang, name=spec.name)
            await interaction.response.send_message(
                self.sender.prepare(present(reply, "discord").text),
                ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        private = privacy.answer_privately(spec.name, incoming.chat_kind, incoming.private_reply)
        await interaction.response.defer(thinking=True, ephemeral=spec.ephemeral or private)
        reply = await dispatch(incoming, self.ctx)
        ephemeral = reply.ephemeral or spec.ephemeral or private
        # a failure here reaches on_app_command_error (the request boundary)
        shown = answer(reply, incoming, self.ctx.buttons, alone=ephemeral)
        # a stored cast: one embed of its first page (the picture in it, uploaded with it), its pages as buttons
        embed = embed_of(shown, image=shown.picture is not None)
        outcome = await self.sender.send(
            interaction.followup,
            "" if embed is not None else shown.text,
            ephemeral=ephemeral,
            target_id=incoming.chat_id,
            embed=embed,
            view=view_of(shown),
            file=shown.picture,
            filename=pictures.FILENAME,
            documents=[(f.filename, f.data) for f in reply.files],
            description=shown.alt,
        )
        self.handled.append(outcome)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """The one listener for page buttons (``custom_id`` = :mod:`bot.commands.pages` data): it names the
        stored row, so buttons of any message work after a restart. Acknowledged at once by the edit
        (UPDATE_MESSAGE, type 7) or, when the row is gone, an ephemeral notice. A ``custom_id`` that is none of
        ours (client-supplied: anything, lone surrogates included) is acknowledged with an ephemeral error
        and reaches nothing else."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: Mapping[str, Any] = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        if clean(custom_id) != custom_id:  # controls, bidi marks, lone surrogates: never in our buttons
            await self.refuse_button(interaction)
            return
        incoming = self.incoming(interaction, "")
        # the custom_id is the client's word: its seal must hold for this channel and this presser
        opened = self.ctx.buttons.open("discord", incoming.chat_id, incoming.user_id, custom_id)
        if setting_buttons.is_setting(opened.data):
            await self.change_setting(interaction, opened)
            return
        if (line := word_buttons.decode(opened.data)) is not None:
            if not opened.valid:  # a word button is the line it was sealed with, here, or nothing
                lang = await resolve_lang(incoming, self.ctx)
                # a reading's /share or /note pressed by anyone but its owner opens as forged
                refusal = (
                    N_("chat.action.not_yours")
                    if action_buttons.owner_only(opened.data)
                    else "chat.button.expired"
                )
                await interaction.response.send_message(gettext(lang, refusal), ephemeral=True)
                return
            await self.choose_word(interaction, line)
            return
        if (day := daily_pages.decode(opened.data)) is not None:
            await self.show_day(interaction, opened, day)
            return
        ref = pages.decode(opened.data)
        shared = action_buttons.decode_shared(opened.data)
        if ref is None and shared is None:
            await self.refuse_button(interaction)
            return
        lang = await resolve_lang(incoming, self.ctx)
        verdict = self.ctx.admission.check(incoming.user_key, incoming.chat_key)
        if verdict is not Verdict.ADMIT:
            await interaction.response.send_message(gettext(lang, "bot.error.slow_down"), ephemeral=True)
            return
        if shared is not None:  # a shared reading's page: while its link lives, to whoever reads the channel
            access: pages.Access | None = "public" if opened.valid else None
            ref = pages.PageRef(incoming.user_id, 0, shared.page)
        else:
            assert ref is not None
            access = pages.access(opened.status, ref, incoming.user_id, incoming.chat_kind)
        if access is None:  # another channel's, another person's, forged, or an old one not its owner's
            await interaction.response.send_message(gettext(lang, "chat.button.expired"), ephemeral=True)
            return
        if shared is not None:
            reply = await action_buttons.load_shared(shared.token, lang, self.ctx)
        else:
            reply = await pages.load("discord", ref, lang, access, self.ctx)
        if isinstance(reply, str):  # the row is gone, or a group may not see this view
            await interaction.response.send_message(gettext(lang, reply), ephemeral=True)
            return
        shown = sealed(
            present(reply, "discord", ref.owner, ref.page, edit=True),
            self.ctx.buttons,
            incoming.chat_id,
            ref.owner,
            private=access == "full",
        )
        attachments = self.page_attachments(interaction, shown, reply)
        embed = embed_of(shown, image=bool(attachments))
        if attachments:
            await interaction.response.edit_message(
                embed=embed,
                view=view_of(shown),
                attachments=attachments,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        await interaction.response.edit_message(
            embed=embed, view=view_of(shown), allowed_mentions=discord.AllowedMentions.none()
        )

    async def show_day(
        self, interaction: discord.Interaction, opened: Opened, ref: daily_pages.DayRef
    ) -> None:
        """A page button of a delivered daily reading (:mod:`bot.commands.daily_pages`): the reading of that
        date of this channel's subscription shown in place (UPDATE_MESSAGE), when the seal holds here; else an
        ephemeral notice."""
        incoming = self.incoming(interaction, "")
        lang = await resolve_lang(incoming, self.ctx)
        notice: str | None = None
        if self.ctx.admission.check(incoming.user_key, incoming.chat_key) is not Verdict.ADMIT:
            notice = gettext(lang, "bot.error.slow_down")
        elif not daily_pages.allowed(opened.status):  # another channel's, another person's, forged
            notice = gettext(lang, "chat.button.expired")
        reply = (
            None if notice is not None else await daily_pages.load("discord", incoming.chat_id, ref, self.ctx)
        )
        if isinstance(reply, str):  # the subscription is gone
            notice = gettext(lang, reply)
        if notice is not None or not isinstance(reply, Reply):
            await interaction.response.send_message(notice or "", ephemeral=True)
            return
        shown = sealed(
            day_page(reply, "discord", ref.day, ref.page),
            self.ctx.buttons,
            incoming.chat_id,
            incoming.user_id,
            private=opened.status == OWN,
        )
        await interaction.response.edit_message(
            content=self.sender.split(shown.text)[0],
            view=view_of(shown),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def refuse_button(self, interaction: discord.Interaction) -> None:
        """A press whose ``custom_id`` is not one of our buttons: an ephemeral error in the presser's
        language (the interaction is acknowledged; nothing else is done)."""
        lang = await resolve_lang(self.incoming(interaction, ""), self.ctx)
        log.info(
            "discord: a press with a custom_id that is not ours (%d characters)", len(str(interaction.data))
        )
        await interaction.response.send_message(gettext(lang, "bot.error.bad_button"), ephemeral=True)

    def page_attachments(
        self, interaction: discord.Interaction, shown: Message, reply: Reply
    ) -> list[discord.Attachment | discord.File]:
        """The picture of a page edit: the message's own ``chart.png`` attachment kept as it is (nothing is
        drawn or uploaded per page view), or — on a message without it (sent before pictures) — the picture of
        the row's cast (``pages.load``) drawn and uploaded; empty for a cast without a picture."""
        if not shown.picture_page:
            return []
        message = interaction.message
        kept = [a for a in (message.attachments if message else []) if a.filename == pictures.FILENAME]
        if kept:
            return list(kept[:1])
        png = pictures.render(reply.picture, reply.lang)
        if png is None:
            return []
        return [discord.File(io.BytesIO(png), filename=pictures.FILENAME, description=shown.alt)]

    async def change_setting(self, interaction: discord.Interaction, opened: Opened) -> None:
        """A ``/settings`` button: the owner's ``/settings …`` line, run and shown in place (UPDATE_MESSAGE);
        anyone else (the seal holds for the owner alone), or a refused value, gets an ephemeral one-liner and
        nothing changes."""
        ref = setting_buttons.pressed(opened, str(interaction.user.id))
        incoming = self.incoming(interaction, ref.command_line() if ref is not None else "/settings")
        lang = await resolve_lang(incoming, self.ctx)
        notice: str | None = None
        if self.ctx.admission.check(incoming.user_key, incoming.chat_key) is not Verdict.ADMIT:
            notice = gettext(lang, "bot.error.slow_down")
        elif ref is None:  # settings are per user: another's button (or one sealed elsewhere) changes nothing
            notice = gettext(lang, "chat.settings.not_yours")
        if notice is not None:
            await interaction.response.send_message(notice, ephemeral=True)
            return
        reply = await dispatch(incoming, self.ctx)
        shown = sealed(
            present(reply, "discord", incoming.user_id, edit=True),
            self.ctx.buttons,
            incoming.chat_id,
            incoming.user_id,
            private=True,
        )
        if reply.view == "error":  # refused as the typed line would be (晝夜 by sunrise without a place)
            await interaction.response.send_message(
                self.sender.prepare(shown.text),
                ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        body = self.sender.split(shown.text)[0]  # an edit is one message
        await interaction.response.edit_message(
            content=body,
            view=view_of(shown),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def choose_word(self, interaction: discord.Interaction, line: str) -> None:
        """A choice of a ``choose`` reply (:mod:`bot.commands.word_buttons`): its command line, run as the
        presser typed it, answered as a new message (acknowledged first: a cast takes its time)."""
        incoming = self.incoming(interaction, line)
        if self.ctx.admission.check(incoming.user_key, incoming.chat_key) is not Verdict.ADMIT:
            lang = await resolve_lang(incoming, self.ctx)
            await interaction.response.send_message(gettext(lang, "bot.error.slow_down"), ephemeral=True)
            return
        if action_buttons.quiet(line):  # a journal verdict: a one-liner to the presser alone
            noted = await dispatch(incoming, self.ctx)
            await interaction.response.send_message(
                self.sender.prepare(present(noted, "discord").text),
                ephemeral=True,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        await interaction.response.defer(thinking=True)
        reply = await dispatch(incoming, self.ctx)
        shown = answer(reply, incoming, self.ctx.buttons, alone=reply.ephemeral)
        embed = embed_of(shown, image=shown.picture is not None)
        outcome = await self.sender.send(
            interaction.followup,
            "" if embed is not None else shown.text,
            ephemeral=reply.ephemeral,
            target_id=incoming.chat_id,
            embed=embed,
            view=view_of(shown),
            file=shown.picture,
            filename=pictures.FILENAME,
            documents=[(f.filename, f.data) for f in reply.files],
            description=shown.alt,
        )
        self.handled.append(outcome)

    @staticmethod
    def may_post(interaction: discord.Interaction) -> bool:
        """May the bot post to the interaction's channel later (a subscription's readings)? In its own DM and in
        a server that installed it, yes; in a private channel (a group DM) or a server where only the user
        installed the app (``authorizing_integration_owners`` without the server) it is no member: no."""
        if interaction.context.private_channel:
            return False
        return interaction.guild_id is None or interaction.is_guild_integration()

    @staticmethod
    def incoming(interaction: discord.Interaction, text: str) -> Incoming:
        user = interaction.user
        in_guild = interaction.guild_id is not None
        # others read a server's channel and a private channel (a group DM, a DM between two users, where a
        # user-installed app answers): only the bot's own DM is a private chat
        shared = in_guild or interaction.context.private_channel
        perms = interaction.permissions
        return Incoming(
            platform="discord",
            chat_id=str(interaction.channel_id or user.id),
            user_id=str(user.id),
            text=text,
            lang_hint=str(interaction.locale.value) if interaction.locale else None,
            chat_kind="group" if shared else "private",
            user_is_admin=(not in_guild) or bool(perms.administrator or perms.manage_guild),
            display_name=user.display_name,
            private_reply=True,  # an interaction can always be answered ephemerally
        )

    async def on_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        """The command tree's error handler: a command name Discord still shows but we no longer have (a
        client's stale command list after a rename or removal, or a changed signature) is answered "this
        command was renamed or removed" in the user's language, logged without a traceback; anything else
        is a bug: logged with its traceback, the user told that something went wrong."""
        if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
            log.info("discord: a stale command (%s); answered as renamed or removed", type(error).__name__)
            lang = await resolve_lang(self.incoming(interaction, ""), self.ctx)
            body = present(error_reply("bot.error.command_gone", lang), "discord").text
        else:
            log.error("discord: command failed: %r", error, exc_info=error)
            body = present(error_reply("bot.error.internal", self.ctx.settings.lang), "discord").text
        try:
            if interaction.response.is_done():
                await self.sender.send(interaction.followup, body, ephemeral=True)
            else:
                await interaction.response.send_message(
                    self.sender.prepare(body), ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
                )
        except discord.HTTPException as exc:
            log.warning("discord: could not report the error: %s", exc)

    # ------------------------------------------------------------------ lifecycle
    identify_interval = IDENTIFY_INTERVAL  # seconds between two IDENTIFYs of one max_concurrency bucket
    identify_gate: IdentifyGate | None = None  # with Redis: the spacing holds across processes

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Discord allows one IDENTIFY per ``max_concurrency`` bucket every 5 s, for the whole bot. Without
        Redis the spacing holds inside this process (discord.py's own rule); with it every process of the
        bot takes its bucket's turn from Redis first (:class:`bot.discord.identify.IdentifyGate`)."""
        gate = self.identify_gate
        if gate is not None and await gate.wait_turn(self, shard_id or 0):
            return
        if not initial:
            await asyncio.sleep(self.identify_interval)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(CatalogTranslator())
        if self.sync_on_start:
            await self.sync_commands()

    async def sync_commands(self) -> bool:
        """Bulk-overwrite the global slash commands unless Discord already holds exactly this schema
        (command creation is rate-limited per day). Returns True when a bulk overwrite was sent."""
        translator = self.tree.translator
        local = [
            await c.get_translated_payload(self.tree, translator) if translator else c.to_dict(self.tree)
            for c in self.tree.get_commands()
        ]
        remote: list[ApplicationCommandPayload] | None = None
        if self.application_id is not None:
            try:
                remote = await self.http.get_global_commands(self.application_id)
            except discord.HTTPException:
                remote = None
        if remote is not None and same_schema(local, remote):
            self.synced = [app_commands.AppCommand(data=d, state=self._connection) for d in remote]
            log.info("discord: %d slash commands already in sync", len(self.synced))
            return False
        self.synced = await self.tree.sync()
        log.info("discord: synced %d slash commands (bulk overwrite)", len(self.synced))
        return True

    async def on_ready(self) -> None:
        log.info("discord: ready as %s in %d guild(s)", self.user, len(self.guilds))

    async def on_message(self, message: discord.Message) -> None:
        """Optional prefix commands (``prefix`` set): ``!cast now`` → ``/cast now``."""
        if not self.prefix or message.author.bot or not message.content.startswith(self.prefix):
            return
        in_guild = message.guild is not None
        author = message.author
        perms = message.channel.permissions_for(author) if isinstance(author, discord.Member) else None
        incoming = Incoming(
            platform="discord",
            chat_id=str(message.channel.id),
            user_id=str(message.author.id),
            text="/" + message.content[len(self.prefix) :].lstrip(),
            lang_hint=None,
            chat_kind="group" if in_guild else "private",
            user_is_admin=(not in_guild) or bool(perms and (perms.administrator or perms.manage_guild)),
            display_name=message.author.display_name,
        )
        verdict = self.ctx.admission.check(incoming.user_key, incoming.chat_key)
        if verdict is Verdict.DROP:
            return
        if verdict is Verdict.WARN:
            reply = error_reply("bot.error.slow_down", await resolve_lang(incoming, self.ctx))
        else:
            reply = await dispatch(incoming, self.ctx)
        shown = present(reply, "discord", incoming.user_id, paged=False, picture=False)  # the whole text
        self.handled.append(await self.sender.send(message.channel, shown.text))


def embed_of(shown: Message, image: bool = False) -> discord.Embed | None:
    """The embed of a stored cast's page (title, description, footer = the options used; with ``image`` the
    message's own ``chart.png`` attachment as its image), or None for a message without a title."""
    if shown.title is None:
        return None
    embed = discord.Embed(title=shown.title, description=shown.text)
    if shown.footer:
        embed.set_footer(text=shown.footer)
    if image:
        embed.set_image(url=ATTACHMENT_URL)
    return embed


def view_of(shown: Message) -> discord.ui.View | None:
    """The buttons of a message (the current choice highlighted), one ``ui.View`` row per row; None without
    buttons. Never dispatched to: :meth:`SikpanClient.on_interaction` answers every button by its data."""
    if not shown.buttons:
        return None
    view = discord.ui.View(timeout=1.0)
    for row_index, row in enumerate(shown.buttons):
        for b in row:
            view.add_item(
                discord.ui.Button(
                    label=b.label,
                    custom_id=b.data,
                    style=discord.ButtonStyle.primary if b.current else discord.ButtonStyle.secondary,
                    row=row_index,
                )
            )
    return view


def _covers(local: Any, remote: Any) -> bool:
    """Does ``remote`` (Discord's view) carry everything ``local`` (our payload) says? Empty equals missing."""
    if isinstance(local, dict):
        remote = remote if isinstance(remote, dict) else {}
        return all(_covers(v, remote.get(k)) for k, v in local.items())
    if isinstance(local, list):
        remote = remote if isinstance(remote, list) else []
        return len(local) == len(remote) and all(_covers(a, b) for a, b in zip(local, remote))
    if local in (None, False, "", 0) and remote in (None, False, "", 0, [], {}):
        return True
    if (
        isinstance(local, int | float)
        and isinstance(remote, str | int | float)
        and not isinstance(local, bool)
    ):
        try:
            return float(local) == float(remote)
        except ValueError:
            return False
    return bool(local == remote)


def same_schema(local: Sequence[Mapping[str, Any]], remote: Sequence[Mapping[str, Any]]) -> bool:
    """True when the registered commands (``remote``) match our payload (``local``) command for command."""
    theirs = {(c.get("name"), c.get("type", 1)): c for c in remote}
    ours = {(c.get("name"), c.get("type", 1)): c for c in local}
    return theirs.keys() == ours.keys() and all(_covers(c, theirs[k]) for k, c in ours.items())


def _fan_out(callbacks: list[Callback]) -> Callable[..., Awaitable[None]]:
    async def call(*args: Any) -> None:
        for cb in list(callbacks):
            result = cb(*args)
            if asyncio.iscoroutine(result):
                await result

    return call


def build_client(
    ctx: AppContext,
    token: str,
    api_base_url: str = DEFAULT_API_BASE_URL,
    gateway_url: str = DEFAULT_GATEWAY_URL,
    *,
    sender: DiscordSender | None = None,
    sync: bool | None = None,
    prefix: str | None = None,
    guild_ready_timeout: float = 2.0,
) -> SikpanClient:
    """Build the client and its command tree (nothing connects until it is started with ``token``).

    Shards come from the settings (``DISCORD_SHARD_COUNT``, ``DISCORD_SHARD_IDS``). ``sync`` None: the
    settings decide (:func:`syncs_commands`), so of many replicas only one rewrites the slash commands.
    """
    install_redaction([token])
    configure_endpoints(api_base_url, gateway_url)
    settings = ctx.settings
    sender = sender or DiscordSender(on_blocked=_fan_out(ctx.on_blocked))
    client = SikpanClient(
        ctx,
        sender=sender,
        sync=syncs_commands(settings) if sync is None else sync,
        prefix=prefix,
        guild_ready_timeout=guild_ready_timeout,
        shard_count=settings.discord_shard_count,
        shard_ids=settings.discord_shard_ids,
    )
    if settings.redis_url:  # shard processes of one bot identify in turn across processes
        client.identify_gate = IdentifyGate.from_url(settings.redis_url)
    ctx.discord_client = client
    ctx.discord_sender = sender
    return client


def syncs_commands(settings: Settings) -> bool:
    """Whether this process syncs the application commands: ``DISCORD_SYNC_COMMANDS`` when set, else the
    process that runs shard 0 (every process when unsharded: one per bot; ``same_schema`` makes a repeat a
    no-op) — so N shard replicas send one bulk overwrite, not N."""
    if settings.discord_sync_commands is not None:
        return settings.discord_sync_commands
    return settings.discord_shard_ids is None or 0 in settings.discord_shard_ids


async def _login(client: discord.Client, token: str, attempts: int, stop: asyncio.Event) -> None:
    """Log in (GET /users/@me …), retried with back-off; a refused token fails at once; StartupError ends
    ``sikpan run`` with exit 1."""
    await start_with_retries(
        lambda: client.login(token),
        platform="discord",
        retry_on=(discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError),
        fatal=(discord.LoginFailure,),
        attempts=attempts,
        stop=stop,
    )


async def run_discord(ctx: AppContext, stop: asyncio.Event, **options: Any) -> None:
    """Run the Discord adapter until ``stop`` is set; ``options`` go to :func:`build_client`."""
    settings = ctx.settings
    token = settings.discord_token
    if not token:
        raise ValueError("DISCORD_BOT_TOKEN is not set")
    client = build_client(
        ctx,
        token,
        settings.discord_api_base_url or DEFAULT_API_BASE_URL,
        settings.discord_gateway_url or DEFAULT_GATEWAY_URL,
        **options,
    )
    async with client:
        # login (GET /users/@me …), retried with back-off; a refused token fails at once; StartupError
        # ends ``sikpan run`` with exit 1 (then the gateway connection reconnects by itself)
        await _login(client, token, settings.start_attempts, stop)
        runner = asyncio.create_task(client.connect(), name="discord-client")
        waiter = asyncio.create_task(stop.wait(), name="discord-stop")
        try:
            done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if runner in done:
                runner.result()  # re-raise a login/connection failure
        finally:
            waiter.cancel()
            # a stop during discord.py's guild-ready wait would let that task dispatch "ready" on a closed
            # client; end it first
            state = client._connection
            ready_tasks = [getattr(state, "_ready_task", None)]
            ready_tasks += list(getattr(state, "_ready_tasks", {}).values())  # one per shard
            for ready_task in ready_tasks:
                if ready_task is not None and not ready_task.done():
                    ready_task.cancel()
            await client.close()
            if client.identify_gate is not None:
                await client.identify_gate.close()
            if not runner.done():
                runner.cancel()
            await asyncio.gather(runner, waiter, return_exceptions=True)
            for _ in range(3):  # let the events scheduled by close() (on_disconnect …) run their course
                await asyncio.sleep(0)
    log.info("discord: stopped")


class SendOnlyClient(discord.Client):
    """A REST-only client for the scheduler role: logged in, never on the gateway (no events, no shard),
    so it is ready to send once the login succeeded."""

    def is_ready(self) -> bool:
        return self.user is not None and not self.is_closed()


async def run_discord_sender(ctx: AppContext, stop: asyncio.Event) -> None:
    """Discord for sending only (the scheduler role): login, then the sender until ``stop`` is set."""
    settings = ctx.settings
    token = settings.discord_token
    if not token:
        raise ValueError("DISCORD_BOT_TOKEN is not set")
    install_redaction([token])
    configure_endpoints(
        settings.discord_api_base_url or DEFAULT_API_BASE_URL,
        settings.discord_gateway_url or DEFAULT_GATEWAY_URL,
    )
    client = SendOnlyClient(
        intents=discord.Intents.none(),
        allowed_mentions=discord.AllowedMentions.none(),
        http_trace=rate_limit_trace(),
    )
    ctx.discord_client = client
    ctx.discord_sender = DiscordSender(on_blocked=_fan_out(ctx.on_blocked))
    async with client:
        await _login(client, token, settings.start_attempts, stop)
        log.info("discord: sending as %s (no gateway)", client.user)
        await stop.wait()
    log.info("discord: sender stopped")


__all__ = [
    "CatalogTranslator",
    "SendOnlyClient",
    "SikpanClient",
    "build_client",
    "command_line",
    "configure_endpoints",
    "rate_limit_trace",
    "run_discord",
    "run_discord_sender",
    "same_schema",
    "syncs_commands",
]
