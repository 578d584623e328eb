"""The Telegram adapter (python-telegram-bot 22): updates in, ``dispatch`` → ``bot.presentation.present`` → one sender out.

- :func:`build_application` is a factory: it builds the ``Application`` (``ApplicationBuilder`` with a
  :class:`PollingBot`, :class:`bot.telegram.aiohttprequest.AiohttpRequest` — PTB's ``BaseRequest`` on aiohttp —
  for requests and another for ``getUpdates``) and its handlers
  (:func:`add_handlers`) but starts nothing (no polling, no network) until :func:`run_telegram` (or a test)
  starts it.
- Endpoint: ``base_url`` is the prefix the token is appended to (``TELEGRAM_API_BASE_URL``, default
  ``https://api.telegram.org/bot``); the file URL is derived from it (``…/bot`` → ``…/file/bot``).
- Updates: long polling by default — PTB's ``Updater`` (``updater.start_polling``) feeds the application's
  ``update_queue``; on stop the updates taken are handled, then confirmed (:func:`poll`). Webhook mode when
  ``TELEGRAM_WEBHOOK_URL`` is set (``Settings``: the environment or ``.env``): the ASGI app of
  :mod:`bot.web` reads each update with ``Update.de_json`` and awaits ``Application.process_update`` before
  its 200 (secret required, redeliveries deduplicated across replicas, ``/healthz``, ``/metrics``) on
  ``TELEGRAM_WEBHOOK_LISTEN`` : ``TELEGRAM_WEBHOOK_PORT``, path ``TELEGRAM_WEBHOOK_PATH``.
- Handlers: ``CommandHandler`` for the commands (and ASCII aliases), a ``MessageHandler`` with the
  :class:`_ForUs` filter for what it cannot match (below) and for plain text addressed to the bot,
  ``CallbackQueryHandler`` for page and settings buttons, a ``MessageHandler`` for group migrations
  (``ctx.on_migrated``), ``ChatMemberHandler`` for ``my_chat_member`` (a user blocked the bot, a group
  removed it: ``ctx.on_blocked``), ``InlineQueryHandler`` and ``ChosenInlineResultHandler`` for the inline
  mode (``@bot 庚辰 8`` in any chat: :mod:`bot.telegram.inline`); a last group marks every update handled (:meth:`TelegramAdapter.wait_handled`);
  the error handler (:meth:`TelegramAdapter.on_error`) is each update's outer boundary (a bug is logged,
  the chat told).
- Commands: a message whose first entity is a ``bot_command`` at offset 0 (what real clients send). In
  groups ``/cmd@botname`` addressed to another bot is ignored, and unknown commands are answered only
  when addressed to this bot by name (other bots' commands are not ours). In private chats a leading
  ``/`` (or full-width ``／``) is enough, so Korean/Chinese aliases such as ``/점`` work too.
- Language: the user's setting, else ``from_user.language_code``, else ``SIKPAN_LANG`` (by ``dispatch``).
- Group admin status is asked (``getChatMember``) only for commands that need it (``admin_in_groups``).
- Replies go through :class:`bot.telegram.sender.TelegramSender` (stored as ``ctx.telegram_sender`` so the
  scheduler sends through the same paced queue). Chats that block the bot are reported to every callback
  in ``ctx.on_blocked`` (``fn(platform, chat_id, reason)``, sync or async); group migrations to
  ``ctx.on_migrated`` (``fn(platform, old_id, new_id)``).
- Updates are handled concurrently (``ApplicationBuilder.concurrent_updates``: at most ``concurrent_updates``
  at a time), so one slow chart does not hold up others. A handler never waits for a chat's send budget:
  its reply goes to the chat's queue in the sender (:meth:`bot.telegram.sender.TelegramSender.reply`,
  bounded in depth and age) and the handler returns as soon as the reply would wait, so a busy group
  (20 messages a minute) never holds PTB's update slots, the polling or the webhook's answers. At a stop
  the queued replies get a few seconds (``TelegramSender.drain``), then are recorded as not sent.
- The command menu is registered on start (``setMyCommands``, default and ``language_code="ko"``).
- Tokens never reach the logs (:func:`bot.config.install_redaction`).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Chat,
    ChatMemberUpdated,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    InputMediaPhoto,
    MenuButtonCommands,
    Message,
    MessageEntity,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import BadRequest, Conflict, InvalidToken, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    ExtBot,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import BaseRequest

from bot import logs, pictures
from bot.admission import Verdict
from bot.commands import (
    Incoming,
    action_buttons,
    daily_pages,
    dispatch,
    error_reply,
    load_commands,
    lookup,
    pages,
    resolve_lang,
    setting_buttons,
    split_command,
    word_buttons,
)
from bot.config import install_redaction
from bot.context import LoopBeat
from bot.features.question import question_command
from bot.i18n import N_, gettext
from bot.identity import telegram_user_id
from bot.limits import limiter_of
from bot.presentation import CURRENT, Rows, answer, day_page, decode_part, present, sealed
from bot.seal import OWN, Opened
from bot.sending import SendOutcome
from bot.startup import StartupError
from bot.telegram.aiohttprequest import AiohttpRequest
from bot.telegram.inline import InlineMode
from bot.telegram.sender import NO_PREVIEW, TelegramSender, start_telegram, telegram_request

if TYPE_CHECKING:
    from bot.config import Settings
    from bot.context import AppContext, Callback

log = logging.getLogger(__name__)

# The application as ApplicationBuilder().build() makes it (default context, bot and job-queue types).
AnyApplication = Application[Any, Any, Any, Any, Any, Any]

DEFAULT_BASE_URL = "https://api.telegram.org/bot"
GROUP_ANONYMOUS_BOT = 1087968824  # "GroupAnonymousBot": an anonymous group admin
_COMMAND_WORD = re.compile(r"^[/／]([^\s@]+)(?:@(\S+))?")


def file_url_for(base_url: str) -> str:
    """``https://host/bot`` → ``https://host/file/bot`` (the Bot API's file prefix)."""
    if base_url.rstrip("/").endswith("/bot"):
        return base_url.rstrip("/")[: -len("/bot")] + "/file/bot"
    return base_url.rstrip("/") + "/file/bot"


def _fan_out(callbacks: list[Callback]) -> Any:
    async def call(*args: Any) -> None:
        for cb in list(callbacks):
            result = cb(*args)
            if asyncio.iscoroutine(result):
                await result

    return call


def _sender_chat_id(message: Message | None) -> int | None:
    """The chat a message was sent on behalf of (an anonymous admin, a channel), if any."""
    return message.sender_chat.id if message is not None and message.sender_chat is not None else None


def _chat_kind(chat_type: str) -> str:
    if chat_type == ChatType.PRIVATE:
        return "private"
    if chat_type == ChatType.CHANNEL:
        return "channel"
    return "group"


def _presser(update: Update, chat: Chat) -> Incoming:
    """Who pressed a button (a callback query) in ``chat``, as a command with no text (for the language and
    the seal)."""
    user = update.effective_user
    return Incoming(
        platform="telegram",
        chat_id=str(chat.id),
        user_id=str(user.id) if user is not None else "",
        text="",
        lang_hint=user.language_code if user is not None else None,
        chat_kind=_chat_kind(chat.type),
    )


class TelegramAdapter:
    """Turns updates into :class:`~bot.commands.Incoming`, dispatches and sends the rendered reply."""

    def __init__(self, ctx: AppContext, sender: TelegramSender) -> None:
        self.ctx = ctx
        self.sender = sender
        self.inline = InlineMode(ctx, sender)  # inline queries: @bot 庚辰 8 in any chat
        self.username: str = ""
        self.handled: dict[int, SendOutcome | None] = {}  # update_id → outcome (None: not for us)
        self._outcomes: dict[int, SendOutcome] = {}  # update_id → the outcome of a handler, until finish
        self._queued: set[int] = set()  # update_ids whose reply waits in its chat's queue (marked when sent)
        self._waiting: dict[
            int, list[asyncio.Future[None]]
        ] = {}  # update_id → who waits for it (wait_handled)

    def _mark(self, update: Update, outcome: SendOutcome | None) -> None:
        self._mark_id(update.update_id, outcome)

    def _mark_id(self, update_id: int, outcome: SendOutcome | None) -> None:
        self.handled[update_id] = outcome
        if len(self.handled) > 10000:  # keep it bounded
            for key in sorted(self.handled)[:5000]:
                del self.handled[key]
        if self._waiting:  # a test or a benchmark waits (wait_handled); nobody in production
            for waiter in self._waiting.pop(update_id, ()):
                if not waiter.done():
                    waiter.set_result(None)

    async def wait_handled(self, update_id: int, timeout: float = 10.0) -> SendOutcome | None:
        """Wait until the update has been answered (all parts sent); for tests and benchmarks."""
        if update_id not in self.handled:
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.setdefault(update_id, []).append(waiter)
            try:
                async with asyncio.timeout(timeout):
                    await waiter
            finally:
                waiters = self._waiting.get(update_id)
                if waiters is not None and waiter in waiters:
                    waiters.remove(waiter)
                    if not waiters:
                        del self._waiting[update_id]
        return self.handled[update_id]

    def command_text(self, message: Message | None) -> str | None:
        """The command line without ``@botname``, or None when the message is not for us."""
        if message is None or not message.text:
            return None
        text = message.text
        entities = message.entities or ()
        has_entity = any(e.type == "bot_command" and e.offset == 0 for e in entities)
        private = message.chat.type == ChatType.PRIVATE
        if not has_entity and not (private and text.lstrip()[:1] in ("/", "／")):
            return None
        m = _COMMAND_WORD.match(text.lstrip())
        if m is None:
            return None
        name, addressee = m.group(1), m.group(2)
        if addressee is not None and self.username and addressee.lower() != self.username.lower():
            return None  # /cmd@otherbot
        if not private and addressee is None and lookup(name) is None:
            return None  # an unknown command in a group without our name: not ours
        return "/" + name + text.lstrip()[m.end() :]

    async def is_admin(self, update: Update) -> bool:
        message = update.effective_message
        user = update.effective_user
        chat = update.effective_chat
        if chat is None or chat.type == ChatType.PRIVATE:
            return True
        if message is not None and _sender_chat_id(message) == chat.id:
            return True  # an anonymous admin posting as the group
        if user is None or user.id == GROUP_ANONYMOUS_BOT:
            return user is not None
        try:
            member = await self.sender.bot.get_chat_member(chat.id, user.id)
        except TelegramError:
            log.warning("telegram: could not read the member status in chat %s", chat.id)
            return False
        return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)

    @staticmethod
    def admission_keys(update: Update) -> tuple[str, str]:
        """(user key, chat key) of an update, as :meth:`incoming` builds them."""
        chat, user, message = update.effective_chat, update.effective_user, update.effective_message
        assert chat is not None
        user_id = telegram_user_id(
            user.id if user is not None else None,
            chat.id,
            _sender_chat_id(message),
        )
        return f"telegram:{user_id}", f"telegram:{chat.id}"

    async def incoming(self, update: Update, text: str) -> Incoming:
        chat = update.effective_chat
        user = update.effective_user
        assert chat is not None
        kind = _chat_kind(chat.type)
        admin = True
        parsed = split_command(text)
        spec = lookup(parsed[0]) if parsed else None
        if kind != "private" and spec is not None and spec.admin_in_groups:
            admin = await self.is_admin(update)
        message = update.effective_message
        return Incoming(
            platform="telegram",
            chat_id=str(chat.id),
            # shared accounts (anonymous admin, channel senders) are keyed per sending chat
            user_id=telegram_user_id(
                user.id if user is not None else None,
                chat.id,
                _sender_chat_id(message),
            ),
            text=text,
            lang_hint=user.language_code if user is not None else None,
            chat_kind=kind,
            user_is_admin=admin,
            display_name=user.full_name if user is not None else None,
            bot_name=self.username,
        )

    async def on_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The handler of commands (``CommandHandler`` and the :class:`_ForUs` ``MessageHandler``) and of
        plain text addressed to the bot (answered with a hint); the outcome is kept for :meth:`finish`.
        Its log lines carry the ``update_id`` (:mod:`bot.logs`)."""
        with logs.ids(update=update.update_id):
            outcome = await self.handle(update)
        if outcome is not None:
            self._outcomes[update.update_id] = outcome

    async def on_migrated(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group became a supergroup (the service message ``migrate_to_chat_id``): reported to
        ``ctx.on_migrated`` as a send answered ``ChatMigrated`` reports it."""
        message = update.effective_message
        if message is not None and message.migrate_to_chat_id is not None:
            log.info("telegram: chat %s migrated to %s", message.chat.id, message.migrate_to_chat_id)
            await _fan_out(self.ctx.on_migrated)(
                "telegram", str(message.chat.id), str(message.migrate_to_chat_id)
            )

    async def on_member(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot's own membership changed (``my_chat_member``): blocked by a user, removed from a group or
        a channel — reported to ``ctx.on_blocked`` as a send answered ``Forbidden`` reports it."""
        change: ChatMemberUpdated | None = update.my_chat_member
        if change is None:
            return
        if change.new_chat_member.status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT):
            log.info("telegram: chat %s removed the bot (%s)", change.chat.id, change.new_chat_member.status)
            await _fan_out(self.ctx.on_blocked)(
                "telegram", str(change.chat.id), str(change.new_chat_member.status)
            )

    async def finish(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The last handler group: every update is marked handled (:meth:`wait_handled`), answered or not
        (one whose reply waits in its chat's queue: once the reply is sent or dropped)."""
        if update.update_id not in self._queued:
            self._mark(update, self._outcomes.pop(update.update_id, None))

    def wants_hint(self, message: Message | None) -> bool:
        """Plain text in a private chat, or a message that mentions us in a group: not a command, but
        someone talking to the bot (answered with a one-line hint and an example)."""
        if message is None or not message.text or message.text.lstrip()[:1] in ("/", "／"):
            return False
        if message.chat.type == ChatType.PRIVATE:
            return True
        name = self.username.lower()
        return bool(name) and any(
            e.type == "mention" and message.text[e.offset + 1 : e.offset + e.length].lower() == name
            for e in message.entities or ()
        )

    def question_text(self, message: Message | None) -> str | None:
        """A question in one's own words (「오늘 재물운 어때?」) in a private chat, or in a group when it mentions
        us (「@bot 내일 면접 붙을까」): the command line that answers it (``bot.features.question``), or None.
        A group's other talk is not ours: never read (:meth:`wants_hint`)."""
        if message is None or not message.text or not self.wants_hint(message):
            return None
        text = message.text
        # the @names are not the question (a bot's name may hold a word); PTB counts their UTF-16 offsets
        for name in message.parse_entities([MessageEntity.MENTION]).values():
            text = text.replace(name, " ")
        return question_command(text)

    async def handle(self, update: Update) -> SendOutcome | None:
        message = update.effective_message
        text = self.command_text(message) or self.question_text(message)
        if text is None and message is not None and self.wants_hint(message):
            if self.ctx.admission.check(*self.admission_keys(update)) is not Verdict.ADMIT:
                return None
            incoming = await self.incoming(update, "/start")
            lang = await resolve_lang(incoming, self.ctx)
            private = incoming.chat_kind == "private"
            return await self.send(
                incoming,
                html.escape(gettext(lang, "chat.hint")),
                reply_to=None if private else message.message_id,
                update_id=update.update_id,
            )
        if text is None:
            return None
        assert message is not None
        # admission first, before any work for the update (no member lookup, no database, no chart)
        verdict = self.ctx.admission.check(*self.admission_keys(update))
        if verdict is Verdict.DROP:
            return None
        # a place in the chat's queue before the work: a chat whose queue is full costs no chart
        if not self.sender.hold(message.chat.id, always=verdict is Verdict.WARN):
            return None
        try:
            incoming = await self.incoming(update, text)
            if verdict is Verdict.WARN:  # one polite "slow down" per flood
                reply = error_reply("bot.error.slow_down", await resolve_lang(incoming, self.ctx))
            else:
                reply = await dispatch(incoming, self.ctx)
            message_out = answer(reply, incoming, self.ctx.buttons)
        except BaseException:
            self.sender.release(message.chat.id)
            raise
        if reply.files:  # the text is the first file's caption; the others follow as documents of their own
            first = reply.files[0]
            outcome = await self.send(
                incoming,
                message_out.text,
                photo=first.data,
                filename=first.filename,
                document=True,
                update_id=update.update_id,
                held=True,
            )
            for attachment in reply.files[1:]:  # queued behind it in the chat's queue: they arrive in order
                await self.sender.reply(
                    int(incoming.chat_id),
                    "",
                    photo=attachment.data,
                    filename=attachment.filename,
                    document=True,
                )
            return outcome
        return await self.send(
            incoming,
            message_out.text,
            reply_to=message.message_id if incoming.chat_kind != "private" else None,
            reply_markup=markup_of(message_out.buttons),
            photo=message_out.picture,
            caption=message_out.caption,
            update_id=update.update_id,
            held=True,
        )

    async def send(
        self,
        incoming: Incoming,
        body: str,
        reply_to: int | None = None,
        reply_markup: InlineKeyboardMarkup | None = None,
        photo: bytes | None = None,
        caption: str | None = None,
        update_id: int | None = None,
        held: bool = False,
        filename: str = pictures.FILENAME,
        document: bool = False,
    ) -> SendOutcome | None:
        """Send a reply (:func:`bot.presentation.present` decided its text, photo and caption) through the
        chat's queue (:meth:`bot.telegram.sender.TelegramSender.reply`): its outcome, or None when the reply
        waits for the chat's budget — the handler returns then, and the update ``update_id`` is marked
        handled (:meth:`wait_handled`) once the reply is sent or dropped."""
        if update_id is not None:
            self._queued.add(update_id)

        def done(outcome: SendOutcome) -> None:
            if update_id is not None and update_id in self._queued:
                self._queued.discard(update_id)
                self._mark_id(update_id, outcome)

        try:
            outcome = await self.sender.reply(
                int(incoming.chat_id),
                body,
                chat_kind=incoming.chat_kind,
                reply_to_message_id=reply_to,
                reply_markup=reply_markup,
                photo=photo,
                caption=caption,
                filename=filename,
                on_done=done,
                held=held,
                document=document,
            )
        except BaseException:
            if update_id is not None:
                self._queued.discard(update_id)
            raise
        if outcome is not None and update_id is not None:
            self._queued.discard(update_id)  # answered now: ``finish`` marks it
        return outcome

    async def on_callback(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A page or settings button: its seal is checked for this chat and presser (:mod:`bot.seal`), then
        the page of the stored cast (or the settings) replaces the message in place. Every callback query is
        answered (``answerCallbackQuery``), also when the button has expired, the row is gone or the edit
        fails."""
        query = update.callback_query
        assert query is not None
        notice: str | None = None
        chat = update.effective_chat
        user = update.effective_user
        try:
            if chat is not None:
                presser = str(user.id) if user is not None else ""
                opened = self.ctx.buttons.open("telegram", str(chat.id), presser, query.data or "")
                if setting_buttons.is_setting(opened.data):
                    notice = await self.change_setting(update, opened)
                elif word_buttons.decode(opened.data) is not None:
                    notice = await self.choose_word(update, opened)
                elif daily_pages.decode(opened.data) is not None:
                    notice = await self.show_day(update, opened)
                else:
                    notice = await self.show_page(update, opened)
        finally:
            try:
                await self.sender.bot.answer_callback_query(
                    query.id, text=notice, show_alert=notice is not None
                )
            except TelegramError as exc:  # a query older than Telegram keeps: nothing left to answer
                log.info("telegram: callback query not answered: %s", exc)

    async def show_page(self, update: Update, opened: Opened) -> str | None:
        """Edit the message to the page the button names, when its seal lets this presser see it here
        (:func:`bot.commands.pages.access`: else "this button has expired", nothing shown); returns a
        notice for the presser, if any."""
        query = update.callback_query
        chat = update.effective_chat
        assert query is not None
        ref, part = decode_part(opened.data)
        message = query.message
        shared = action_buttons.decode_shared(opened.data)
        if (ref is None and shared is None) or chat is None or message is None:
            return None
        verdict = self.ctx.admission.check(*self.admission_keys(update))
        presser = _presser(update, chat)
        lang = await resolve_lang(presser, self.ctx)
        if verdict is not Verdict.ADMIT:
            return gettext(lang, "bot.error.slow_down")
        if shared is not None:  # a shared reading's page: while its link lives, to whoever reads the chat
            if not opened.valid:
                return gettext(lang, "chat.button.expired")
            ref, part = pages.PageRef(presser.user_id, 0, shared.page), shared.part
            reply = await action_buttons.load_shared(shared.token, lang, self.ctx)
            access: pages.Access | None = "public"
        else:
            assert ref is not None
            access = pages.access(opened.status, ref, presser.user_id, presser.chat_kind)
        if access is None:  # another chat's, another person's, forged, or an old one not its owner's
            return gettext(lang, "chat.button.expired")
        if isinstance(message, Message) and shows(message, query.data or ""):
            return None  # the page shown is the one pressed: no edit (Telegram refuses an unchanged one)
        if shared is None:
            reply = await pages.load("telegram", ref, lang, access, self.ctx)
        if isinstance(reply, str):  # the row is gone, or a group may not see this view
            return gettext(lang, reply)
        on_photo = isinstance(message, Message) and bool(message.photo)
        shown = sealed(
            present(reply, "telegram", ref.owner, ref.page, edit=True, on_photo=on_photo, part=part),
            self.ctx.buttons,
            str(chat.id),
            ref.owner,
            private=access == "full",
        )
        markup = markup_of(shown.buttons)
        try:
            if on_photo and shown.caption is not None:
                # the picture stays: only the caption changes (nothing is drawn or uploaded again)
                await self.edit_caption(chat.id, message.message_id, shown.caption, markup)
            elif shown.picture_page and (png := pictures.render(reply.picture, lang)) is not None:
                # the picture's own page (盤) on a message without it (sent before pictures, or as
                # text): the picture of the row's cast is drawn and added to the message
                await self.sender.bot.edit_message_media(
                    chat_id=chat.id,
                    message_id=message.message_id,
                    media=InputMediaPhoto(
                        # attach=True: the upload is named by ``attach://<name>`` in the media, as the
                        # Bot API requires for editMessageMedia
                        InputFile(png, filename=pictures.FILENAME, attach=True),
                        caption=shown.caption,
                        parse_mode=ParseMode.HTML,
                    ),
                    reply_markup=markup,
                )
            else:
                await self.edit_text(chat.id, message.message_id, shown.text, markup)
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():  # the same page pressed again is no error
                log.warning("telegram: page edit in chat %s failed: %s", chat.id, exc.message)
        return None

    async def show_day(self, update: Update, opened: Opened) -> str | None:
        """Edit a delivered daily reading to the page its button names (:mod:`bot.commands.daily_pages`): the
        reading of that date of this chat's subscription, when the seal holds here (for everyone in this chat,
        or for the presser alone); returns a notice for the presser, if any."""
        query = update.callback_query
        chat = update.effective_chat
        assert query is not None
        ref = daily_pages.decode(opened.data)
        message = query.message
        if ref is None or chat is None or message is None:
            return None
        presser = _presser(update, chat)
        lang = await resolve_lang(presser, self.ctx)
        if self.ctx.admission.check(*self.admission_keys(update)) is not Verdict.ADMIT:
            return gettext(lang, "bot.error.slow_down")
        if not daily_pages.allowed(opened.status):  # another chat's, another person's, forged or unsealed
            return gettext(lang, "chat.button.expired")
        if isinstance(message, Message) and shows(message, query.data or ""):
            return None  # the page shown is the one pressed: no edit
        reply = await daily_pages.load("telegram", str(chat.id), ref, self.ctx)
        if isinstance(reply, str):  # the subscription is gone
            return gettext(lang, reply)
        on_photo = isinstance(message, Message) and bool(message.photo)
        shown = sealed(
            day_page(reply, "telegram", ref.day, ref.page, on_photo=on_photo, part=ref.part),
            self.ctx.buttons,
            str(chat.id),
            presser.user_id,
            private=opened.status == OWN,
        )
        markup = markup_of(shown.buttons)
        try:
            if on_photo and shown.caption is not None:
                await self.edit_caption(chat.id, message.message_id, shown.caption, markup)
            else:
                await self.edit_text(chat.id, message.message_id, shown.text, markup)
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():
                log.warning("telegram: daily page edit in chat %s failed: %s", chat.id, exc.message)
        return None

    async def change_setting(self, update: Update, opened: Opened) -> str | None:
        """A ``/settings`` button: the owner's ``/settings …`` line, run and shown in place of the message;
        anyone else (the seal holds for the owner alone) is told it is not theirs (nothing changes). Returns
        a notice for the presser, if any."""
        query = update.callback_query
        chat = update.effective_chat
        user = update.effective_user
        assert query is not None
        if chat is None or user is None or query.message is None:
            return None
        ref = setting_buttons.pressed(opened, str(user.id))
        presser = Incoming(
            platform="telegram",
            chat_id=str(chat.id),
            user_id=str(user.id),
            text=ref.command_line() if ref is not None else "/settings",
            lang_hint=user.language_code,
            chat_kind=_chat_kind(chat.type),
            display_name=user.full_name,
        )
        lang = await resolve_lang(presser, self.ctx)
        if self.ctx.admission.check(*self.admission_keys(update)) is not Verdict.ADMIT:
            return gettext(lang, "bot.error.slow_down")
        if ref is None:  # settings are per user: another's button (or one sealed elsewhere) changes nothing
            return gettext(lang, "chat.settings.not_yours")
        reply = await dispatch(presser, self.ctx)
        if reply.view == "error":  # refused as the typed line would be (e.g. 晝夜 by sunrise without a place)
            return present(reply, "console").text[:200]  # answerCallbackQuery takes 0–200 characters
        shown = sealed(
            present(reply, "telegram", presser.user_id, edit=True),
            self.ctx.buttons,
            str(chat.id),
            presser.user_id,
            private=True,
        )
        try:
            await self.edit_text(chat.id, query.message.message_id, shown.text, markup_of(shown.buttons))
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():
                log.warning("telegram: settings edit in chat %s failed: %s", chat.id, exc.message)
        return None

    async def choose_word(self, update: Update, opened: Opened) -> str | None:
        """A choice of a ``choose`` reply (:mod:`bot.commands.word_buttons`): its command line, run as the
        presser typed it and answered as a new message (a cast, with its pages); only where its seal holds
        (the chat it was sent in, and the one person when it was sent to one). Returns a notice, if any."""
        line = word_buttons.decode(opened.data)
        if line is None or update.effective_chat is None:
            return None
        incoming = await self.incoming(update, line)
        if not opened.valid:  # a reading's /share or /note pressed by anyone but its owner opens as forged
            refusal = (
                N_("chat.action.not_yours")
                if action_buttons.owner_only(opened.data)
                else "chat.button.expired"
            )
            return gettext(await resolve_lang(incoming, self.ctx), refusal)
        if self.ctx.admission.check(*self.admission_keys(update)) is not Verdict.ADMIT:
            return gettext(await resolve_lang(incoming, self.ctx), "bot.error.slow_down")
        if action_buttons.quiet(line):  # a journal verdict: answered to the presser alone, as a notice
            noted = await dispatch(replace(incoming, private_reply=True), self.ctx)
            return present(noted, "console").text[:200]  # answerCallbackQuery takes 0–200 characters
        reply = await dispatch(incoming, self.ctx)
        shown = answer(reply, incoming, self.ctx.buttons)
        await self.send(
            incoming,
            shown.text,
            reply_markup=markup_of(shown.buttons),
            photo=shown.picture,
            caption=shown.caption,
            update_id=update.update_id,  # handled once the reply is sent (or dropped), as a command's
        )
        return None

    async def edit_text(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None
    ) -> None:
        """``editMessageText`` of one of our messages (Telegram HTML, no link preview)."""
        await self.sender.bot.edit_message_text(
            text,
            chat_id=chat_id,
            message_id=message_id,
            parse_mode=ParseMode.HTML,
            link_preview_options=NO_PREVIEW,
            reply_markup=markup,
        )

    async def edit_caption(
        self, chat_id: int, message_id: int, caption: str, markup: InlineKeyboardMarkup | None
    ) -> None:
        """``editMessageCaption`` of one of our photo messages (Telegram HTML): the picture stays."""
        await self.sender.bot.edit_message_caption(
            chat_id=chat_id,
            message_id=message_id,
            caption=caption,
            parse_mode=ParseMode.HTML,
            reply_markup=markup,
        )

    async def on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The ``Application``'s error handler, each update's outer boundary: ``dispatch`` answers every
        command error itself, so what arrives here is a bug in rendering or sending — logged with the update,
        and the chat is told that something went wrong (best effort: a failure to tell it is logged too)."""
        error = context.error
        if not isinstance(update, Update):  # not an update's error (a task's): logged
            log.error("telegram: %r", error, exc_info=error)
            return
        chat = update.effective_chat
        log.error(
            "telegram: update %s in chat %s failed: %r",
            update.update_id,
            chat.id if chat is not None else "-",
            error,
            exc_info=error,
        )
        if chat is not None:
            body = present(error_reply("bot.error.internal", self.ctx.settings.lang), "telegram").text
            try:
                await self.sender.reply(chat.id, body, chat_kind=_chat_kind(chat.type))
            except Exception:  # still the request's outer boundary: nothing more to do than log it
                log.exception("telegram: the internal-error reply to chat %s failed", chat.id)


def markup_of(rows: Rows) -> InlineKeyboardMarkup | None:
    """The inline keyboard of a message's buttons (each sends its data back as a callback query)."""
    if not rows:
        return None
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(b.label, callback_data=b.data) for b in row] for row in rows]
    )


def shows(message: Message, data: str) -> bool:
    """Whether the button with this callback data is the message's current page (its label marked)."""
    markup = message.reply_markup
    for row in markup.inline_keyboard if markup is not None else ():
        for button in row:
            if button.callback_data == data:
                return button.text.startswith(CURRENT)
    return False


def command_menu(lang: str, *, groups: bool = False) -> list[BotCommand]:
    """``setMyCommands`` entries (names a–z 0–9 _; descriptions 1–256) in ``lang``; ``groups``: the list
    group chats show, without the commands answered only in private (``/history``, ``/settings`` …)."""
    menu = []
    for spec in load_commands().values():
        if spec.hidden or not re.fullmatch(r"[a-z0-9_]{1,32}", spec.name):
            continue
        if groups and spec.private_only:
            continue
        description = gettext(lang, spec.help_msgid).split("\n", 1)[0].strip()[:256] or spec.name
        menu.append(BotCommand(spec.name, description))
    return menu


@dataclass
class PollingState:
    """What :class:`PollingBot` keeps of the polling (see there)."""

    requests: tuple[BaseRequest, BaseRequest]
    holding: bool = False
    next_offset: int = 0  # every update below it has been taken
    last_poll: float = field(default_factory=time.monotonic)  # when a getUpdates last ended (readiness)
    refused: asyncio.Event = field(default_factory=asyncio.Event)  # getUpdates answered 401 (revoked)


class PollingBot(ExtBot[None]):
    """The application's bot: PTB's ``ExtBot`` whose ``get_updates`` (what PTB's ``Updater`` polls with)
    remembers how far updates were taken, can hold the ``Updater``'s confirming call at stop, and tells a
    refused token (401) to :func:`poll`.

    At stop PTB's ``Updater.stop`` ends its poll with one more ``getUpdates`` whose offset confirms what it
    took, before ``Application.stop`` has handled it; :func:`poll` sets :attr:`holding` first (that call is not
    made), lets ``Application.stop`` handle every update taken, then confirms them itself (:meth:`confirm`):
    a stop that does not finish (kill -9 during the drain) gets them again on the next start."""

    def __init__(
        self, token: str, *, request: BaseRequest, get_updates_request: BaseRequest, **kwargs: Any
    ) -> None:
        super().__init__(token, request=request, get_updates_request=get_updates_request, **kwargs)
        # PTB's bot takes no new public attributes after __init__: the polling state is one object
        self._polling = PollingState((request, get_updates_request))

    @property
    def polling(self) -> PollingState:
        return self._polling

    async def get_updates(
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: Any = None,
        allowed_updates: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> tuple[Update, ...]:
        state = self._polling
        if state.holding:
            return ()
        try:
            updates = await super().get_updates(offset, limit, timeout, allowed_updates, **kwargs)
        except InvalidToken:
            state.refused.set()
            raise
        finally:
            state.last_poll = time.monotonic()  # the loop turned (an answer or an error): /readyz
        if updates:
            state.next_offset = max(state.next_offset, updates[-1].update_id + 1)
        return updates

    async def close_requests(self) -> None:
        """Close the HTTP clients (``shutdown`` does it for an initialized bot; this for one that failed to)."""
        for request in self._polling.requests:
            await request.shutdown()

    async def confirm(self) -> None:
        """Confirm the updates taken (``getUpdates`` with the offset past them, ``timeout`` 0)."""
        offset = self._polling.next_offset
        if not offset:
            return
        try:
            await super().get_updates(offset, 1, 0, ALLOWED_UPDATES)
        except TelegramError as exc:
            log.warning(
                "telegram: the updates taken up to %d could not be confirmed (%s); a restart gets them again",
                offset - 1,
                exc,
            )


# the kinds of update the bot asks for (getUpdates, setWebhook): what its handlers take
ALLOWED_UPDATES = [
    Update.MESSAGE,
    Update.CALLBACK_QUERY,
    Update.MY_CHAT_MEMBER,
    Update.INLINE_QUERY,
    Update.CHOSEN_INLINE_RESULT,
]


class _ForUs(filters.MessageFilter):
    """A text message for the bot that ``CommandHandler`` does not take: an alias (``/점``), a full-width
    ``／``, an unknown command (in groups only when addressed by name), or plain text addressed to the bot
    (:meth:`TelegramAdapter.command_text`, :meth:`TelegramAdapter.wants_hint`)."""

    def __init__(self, adapter: TelegramAdapter) -> None:
        super().__init__(name="sikpan.for_us")
        self.adapter = adapter

    def filter(self, message: Message) -> bool:
        return self.adapter.command_text(message) is not None or self.adapter.wants_hint(message)


def command_names() -> list[str]:
    """The names ``CommandHandler`` takes (``/name``, ``/name@bot``): every command and alias of
    Telegram's command syntax (1–32 of a–z 0–9 _); the others (``/점``) go to the :class:`_ForUs` handler."""
    names = set()
    for spec in load_commands().values():
        for name in (spec.name, *spec.aliases):
            if re.fullmatch(r"[a-z0-9_]{1,32}", name):
                names.add(name)
    return sorted(names)


def add_handlers(app: AnyApplication, adapter: TelegramAdapter) -> None:
    """The handlers: commands (``CommandHandler``, and a ``MessageHandler`` for what it cannot match),
    buttons (``CallbackQueryHandler``), plain text addressed to the bot, group migrations, chats that
    remove the bot, inline queries and the inline results chosen (:mod:`bot.telegram.inline`); a last group
    marks every update handled; the error handler is each update's boundary."""
    text = filters.UpdateType.MESSAGE & filters.TEXT
    app.add_handler(CommandHandler(command_names(), adapter.on_message, filters=filters.UpdateType.MESSAGE))
    app.add_handler(MessageHandler(text & _ForUs(adapter), adapter.on_message))
    app.add_handler(CallbackQueryHandler(adapter.on_callback))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, adapter.on_migrated))
    app.add_handler(ChatMemberHandler(adapter.on_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(InlineQueryHandler(adapter.inline.on_query))
    app.add_handler(ChosenInlineResultHandler(adapter.inline.on_chosen))
    app.add_handler(TypeHandler(Update, adapter.finish), group=1)
    app.add_error_handler(adapter.on_error)


def build_application(
    ctx: AppContext,
    token: str,
    base_url: str = DEFAULT_BASE_URL,
    *,
    base_file_url: str | None = None,
    sender: TelegramSender | None = None,
    concurrent_updates: int = 256,
    pace: bool = True,
    rate: float = 28.0,
) -> AnyApplication:
    """Build the ``Application`` (its bot, handlers, the sender, the adapter) without starting anything.
    Requests go through :class:`bot.telegram.aiohttprequest.AiohttpRequest` (PTB's ``BaseRequest`` on aiohttp,
    :func:`bot.telegram.sender.telegram_request`); ``getUpdates`` on its own connection. Updates are handled concurrently, at most ``concurrent_updates`` at a time."""
    install_redaction([token])
    bot = PollingBot(
        token,
        base_url=base_url,
        base_file_url=base_file_url or file_url_for(base_url),
        request=telegram_request(max(8, min(concurrent_updates, 512))),
        get_updates_request=AiohttpRequest(1, connect_timeout=5.0, read_timeout=10.0),
    )
    app = ApplicationBuilder().bot(bot).concurrent_updates(concurrent_updates).build()
    if sender is None:
        sender = TelegramSender(
            app.bot,
            on_blocked=_fan_out(ctx.on_blocked),
            on_migrated=_fan_out(ctx.on_migrated),
            pace=pace,
            limiter=limiter_of(ctx),
            overall_rate=rate,
        )
    adapter = TelegramAdapter(ctx, sender)
    add_handlers(app, adapter)
    app.bot_data["adapter"] = adapter
    ctx.telegram_sender = sender
    ctx.telegram_application = app
    return app


def _polling_error(exc: TelegramError) -> None:
    """PTB's ``Updater`` error callback: a failed poll (it retries with back-off, 429 as told)."""
    if isinstance(exc, Conflict):
        log.warning(
            "telegram: getUpdates conflict (%s): another instance is polling with this token, or a webhook is set",
            exc.message,
        )
    else:
        log.warning("telegram: getUpdates failed (%s: %s)", type(exc).__name__, exc)


POLLING_LOOP = "telegram_polling"  # its name in ``ctx.loops`` and in /readyz's report
POLL_STUCK_AFTER = 60.0  # seconds past the long-poll timeout without a getUpdates ending: the poller is stuck


async def poll(app: AnyApplication, stop: asyncio.Event, *, timeout: int = 10) -> None:
    """Long polling with PTB's ``Updater`` until ``stop`` is set; returns once the updates taken are handled
    and confirmed (:class:`PollingBot`). The application must be started. Raises ``InvalidToken`` when the
    token is refused (revoked) while polling."""
    bot = app.bot
    assert isinstance(bot, PollingBot) and app.updater is not None
    await app.updater.start_polling(
        timeout=timeout, allowed_updates=ALLOWED_UPDATES, error_callback=_polling_error
    )
    state = bot.polling
    state.last_poll = time.monotonic()
    # readiness: a getUpdates ends within its long-poll timeout, or PTB's back-off after an error (≤ 30 s)
    loops = app.bot_data["adapter"].ctx.loops
    loops[POLLING_LOOP] = LoopBeat(lambda: state.last_poll, timeout + POLL_STUCK_AFTER)
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(state.refused.wait())]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        loops.pop(POLLING_LOOP, None)
        for waiter in waits:
            waiter.cancel()
        state.holding = True
        try:
            if app.updater.running:
                # the poll in flight is cut (its confirming call held); a polling task that ended with a
                # refused token raises it here again: reported below
                with contextlib.suppress(InvalidToken):
                    await app.updater.stop()
            if app.running:
                await app.stop()  # every update taken is handled
        finally:
            state.holding = False
        if not state.refused.is_set():
            await bot.confirm()
    if state.refused.is_set():
        log.error("telegram: the Bot API refused the token: revoked? Polling ends")
        raise InvalidToken("the Bot API refused the token while polling")


async def guard_webhook(bot: Any, settings: Settings) -> None:
    """Long polling deletes the token's webhook (PTB's ``start_polling`` calls ``deleteWebhook``): every
    webhook replica would go deaf. So while a webhook is set (``getWebhookInfo``) polling refuses to start —
    :class:`StartupError` ``bot.error.webhook_active``, exit 2 — unless told to replace it
    (``TELEGRAM_REPLACE_WEBHOOK=1`` or ``sikpan run --replace-webhook``)."""
    info = await bot.get_webhook_info()
    if not info.url:
        return
    host = urlsplit(info.url).hostname or "?"
    if not settings.telegram_replace_webhook:
        raise StartupError("bot.error.webhook_active", status=2, host=host)
    log.warning("telegram: the webhook to %s is replaced by long polling (told to)", host)


async def prepare(app: AnyApplication) -> None:
    """After ``initialize``: learn our username and register the command menu (best effort)."""
    adapter: TelegramAdapter = app.bot_data["adapter"]
    adapter.username = app.bot.username or ""
    if not app.bot.supports_inline_queries:  # getMe says whether BotFather's /setinline is on
        log.info("telegram: inline mode is off for @%s (BotFather: /setinline)", adapter.username)
    try:
        # one list per scope (private chats list everything; groups leave out what is answered only in
        # private) and per language (the users' app language: ko, zh; others get the bot's default)
        for scope, groups in (
            (BotCommandScopeDefault(), False),
            (BotCommandScopeAllPrivateChats(), False),
            (BotCommandScopeAllGroupChats(), True),
        ):
            for code, lang in ((None, adapter.ctx.settings.lang), ("ko", "ko"), ("zh", "lzh")):
                await app.bot.set_my_commands(
                    command_menu(lang, groups=groups), scope=scope, language_code=code
                )
        await app.bot.set_chat_menu_button(menu_button=MenuButtonCommands())  # the "≡" menu lists them
    except TelegramError as exc:  # the menu is a convenience; never fail the start on it
        log.warning("telegram: could not register the command menu: %s", exc)


def webhook_options(settings: Settings) -> dict[str, Any] | None:
    """The webhook settings (``TELEGRAM_WEBHOOK_*``, from the environment or ``.env``), or None for polling."""
    if not settings.webhook:
        return None
    return {
        "listen": settings.telegram_webhook_listen,
        "port": settings.telegram_webhook_port,
        "url_path": settings.telegram_webhook_path,
        "webhook_url": settings.telegram_webhook_url,
        "secret_token": settings.telegram_webhook_secret,
    }


async def start_application(ctx: AppContext, stop: asyncio.Event) -> AnyApplication:
    """Build the application and ``initialize`` it (``getMe``, retried with back-off: 502, unreachable API;
    a refused token fails at once). Either way a :class:`~bot.startup.StartupError` ends ``sikpan run`` with
    exit 1 instead of a process that never answers."""
    settings = ctx.settings
    token = settings.telegram_token
    if not token:
        raise ValueError("TELEGRAM_BOT_TOKEN is not set")
    app = build_application(
        ctx, token, settings.telegram_api_base_url or DEFAULT_BASE_URL, rate=settings.telegram_send_rate
    )
    bot = app.bot
    assert isinstance(bot, PollingBot)
    await start_telegram(app.initialize, bot.close_requests, attempts=settings.start_attempts, stop=stop)
    return app


async def run_telegram(ctx: AppContext, stop: asyncio.Event, *, poll_timeout: int = 10) -> None:
    """Run the Telegram adapter until ``stop`` is set: long polling, or the webhook app (:mod:`bot.web`)
    when ``TELEGRAM_WEBHOOK_URL`` is set."""
    app = await start_application(ctx, stop)
    async with app:  # initialize (done above: a no-op) … shutdown
        await prepare(app)
        await app.start()
        try:
            if ctx.settings.webhook:
                from bot.web import serve_webhook  # the [webhook] extra, only when a webhook is set

                await serve_webhook(ctx, app, stop, allowed_updates=ALLOWED_UPDATES)  # returns when drained
            else:
                await guard_webhook(app.bot, ctx.settings)
                log.info("telegram: polling as @%s", app.bot.username)
                await poll(app, stop, timeout=poll_timeout)  # returns once stopped, drained and confirmed
        finally:
            if app.running:
                await app.stop()
            # the replies still queued for their chats' budgets: a few seconds, then recorded as not sent
            adapter: TelegramAdapter = app.bot_data["adapter"]
            await adapter.sender.drain()
    log.info("telegram: stopped")


async def run_telegram_sender(ctx: AppContext, stop: asyncio.Event) -> None:
    """Telegram for sending only (the scheduler role): the bot and its sender, no updates taken in."""
    app = await start_application(ctx, stop)
    async with app:
        await app.start()
        try:
            await stop.wait()
        finally:
            if app.running:
                await app.stop()


__all__ = [
    "TelegramAdapter",
    "build_application",
    "command_menu",
    "file_url_for",
    "poll",
    "prepare",
    "run_telegram",
    "run_telegram_sender",
    "start_application",
    "webhook_options",
]
