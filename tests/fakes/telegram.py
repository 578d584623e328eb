"""A fake Telegram Bot API server (aiohttp, 127.0.0.1, ephemeral port) for the real python-telegram-bot.

Usage::

    async with FakeTelegram(token="123:ABC", username="sikpan_bot") as tg:
        app = build_application(ctx, token=tg.token, base_url=tg.base_url)   # or env
        # TELEGRAM_API_BASE_URL = tg.base_url  ("http://127.0.0.1:PORT/bot", the token is appended)
        tg.user_says("/start", chat_id=42, language_code="ko")     # queued for getUpdates
        [call] = await tg.wait_sent(chat_id=42, count=1)            # a sendMessage call
        call.params["text"], call.params["parse_mode"], call.result  # what the bot sent

Protocol
    ``POST|GET /bot{token}/{method}`` with form, multipart or JSON bodies; replies with Telegram's envelope
    ``{"ok": true, "result": …}`` / ``{"ok": false, "error_code": N, "description": …, "parameters": …}``.
    A wrong token gets 401 "Unauthorized"; an unknown method 404 naming it (so gaps show).
    ``GET /file/bot{token}/{path}`` serves :attr:`FakeTelegram.files`.
    Methods: getMe, logOut, close, deleteWebhook, setWebhook, getWebhookInfo, getUpdates (real long poll that
    honours ``offset``; the hold is capped at :attr:`poll_hold` seconds so shutdown is fast; conflicts as
    below), sendMessage,
    sendPhoto, sendDocument, getFile, setMyCommands, getMyCommands, deleteMyCommands, setChatMenuButton,
    getChatMenuButton, answerCallbackQuery
    (text 0–200 characters, once per query, else 400), answerInlineQuery (below), editMessageText, editMessageCaption,
    editMessageMedia, deleteMessage, sendChatAction, getChatMember (``admins[chat_id] = {user ids}`` are
    "administrator", ``owners[chat_id] = user_id`` is "creator", everyone else "member").
    Form values other than text-like fields (text, caption, parse_mode …) are JSON-decoded, as PTB sends
    them JSON-encoded; "/cast 1" stays a string.

Validation like Telegram (on sendMessage / editMessageText / captions)
    text empty after stripping → 400 "Bad Request: message text is empty"; more than 4096 characters after
    entity parsing (UTF-16 code units) → 400 "Bad Request: message is too long"; with ``parse_mode=HTML``
    an unsupported tag, an unescaped ``<``, an unknown named entity or unbalanced tags → 400
    "Bad Request: can't parse entities: …". Captions: 1024 ("message caption is too long").

Photos (sendPhoto, editMessageMedia; multipart uploads as PTB sends them: the file part ``photo``, or
    ``attach://name`` in an InputMedia with the part ``name``; or the ``file_id`` of a photo sent before)
    The upload is decoded with Pillow: not a picture → 400 IMAGE_PROCESS_FAILED, > 10 MB → 400, width +
    height > 10,000 or a side ratio > 20 → 400 PHOTO_INVALID_DIMENSIONS. The answer's ``photo`` is the list
    of sizes Telegram keeps (longest side 90/320/800/1280/2560 up to the original), each with its own
    ``file_id``; the largest's bytes are in :attr:`photos` (and served by getFile + the file URL).
    No photo → 400 "there is no photo in the request".

Inline mode (``inline_query(query, user_id=…, language_code=…, chat_type=…)`` queues an ``inline_query`` update
    and returns it; ``chosen_inline_result(result_id, query, user_id=…)`` a ``chosen_inline_result``; getMe says
    ``supports_inline_queries`` as :attr:`supports_inline_queries` — BotFather's ``/setinline``)
    answerInlineQuery is checked as the Bot API checks it: a query id this fake issued, answered once and
    within :attr:`inline_deadline` seconds (else 400 "query is too old and response timeout expired or query
    ID is invalid"); at most 50 results (400 RESULTS_TOO_MUCH); each with a ``type`` and an ``id`` of 1–64
    bytes (400 RESULT_ID_INVALID), unique in the answer (400 RESULT_ID_DUPLICATE); types ``article`` (``title``
    and ``input_message_content`` required) and ``photo`` (``photo_file_id`` of a photo sent before, or
    ``photo_url`` with ``thumbnail_url``) — a missing field is 400 "can't parse inline query result: Can't find
    field …", another type 400 naming it; captions (1,024) and message texts (4,096) checked like a send's
    (length after entity parsing, HTML); ``cache_time`` ≥ 0; a ``button`` with ``text`` and either ``web_app`` or
    a ``start_parameter`` of 1–64 of ``A-Z a-z 0-9 _ -``. :attr:`inline_answers` keeps each answer by query id.

Edits are checked against the message as it stands (:attr:`messages`): an unknown message → 400 "message to
    edit not found"; editMessageText on a photo → 400 "there is no text in the message to edit";
    editMessageCaption on a text message → 400 "there is no caption in the message to edit"; the same content
    and keyboard again → 400 "message is not modified"; editMessageMedia may add a photo to a text message.

getUpdates conflicts, as the Bot API server (tdlib/telegram-bot-api ``Client::do_get_updates``,
    ``abort_long_poll``, ``fail_query_conflict``) answers them
    A getUpdates that would wait (``timeout`` > 0, nothing to return) while another long poll is held ends
    the *older* one with 409 "Conflict: terminated by other getUpdates request; make sure that only one bot
    instance is running" and is held itself; one answered at once (updates pending, or ``timeout`` 0)
    leaves the held poll alone. ``setWebhook`` ends a held poll with 409 "Conflict: terminated by setWebhook
    request"; getUpdates while a webhook is set is 409 "Conflict: can't use getUpdates method while webhook
    is active; use deleteWebhook to delete the webhook first". At most one 409 is answered per
    :attr:`conflict_spacing` (3 s, as the server): one due sooner is answered that long later.
    :attr:`conflicts` counts them. (Not modelled: the server's raising of ``timeout`` to 3 s for a repeated
    offset within 3 s.)

Injecting input
    ``user_says(text, chat_id=…, user_id=…, chat_type="private"|"group"|"supergroup", language_code=…,
    first_name=…, username=…)`` queues a ``message`` update; a leading ``/cmd`` or ``/cmd@bot`` gets a
    ``bot_command`` entity at offset 0 like real clients. Returns the update dict. ``make_update(...)``
    builds the same dict without queueing (for webhook tests, POST it yourself). ``push_update(dict)``
    queues any update; ``callback_query(data, chat_id=…, user_id=…)`` queues a button press;
    ``bot_removed(chat_id, status="kicked"|"left", chat_type=…)`` a ``my_chat_member`` update (the bot blocked
    or removed); ``group_migrated(chat_id, new_chat_id)`` the service message of a group that became a
    supergroup (``migrate_to_chat_id``). getUpdates honours ``allowed_updates`` as the Bot API does (kept until
    changed, :attr:`allowed_updates`; empty: every kind but ``chat_member`` and the reactions): an update of a
    kind not asked for is never delivered.

Fault injection (each rule matches a method and optionally a chat id; ``times=None`` means forever)
    ``fail(method, status, description, parameters=None, chat_id=None, times=1)`` — generic;
    ``rate_limit(retry_after, chat_id=None, times=1, method="sendMessage")`` — 429 with
    ``parameters.retry_after``; ``block(chat_id)`` — every send to it returns 403
    "Forbidden: bot was blocked by the user"; ``migrate(chat_id, new_chat_id)`` — 400 with
    ``migrate_to_chat_id``; ``overrides[method] = async fn(params) -> (status, payload)`` to replace a method;
    ``forget_file_ids()`` — every photo ``file_id`` issued so far is refused from then on (400).
    ``flood_limit=30`` (a field): at most that many sends accepted in any ``flood_window`` (1 s) window,
    beyond it 429 "Too Many Requests" with ``retry_after`` (:attr:`flood_rejections` counts them);
    ``flood_storm=0.1``: besides, that fraction of the sends gets 429 with ``retry_after`` 1 at random
    (seeded by ``flood_seed``; :attr:`storm_rejections`).
    ``lose_response(method, chat_id=None, times=1, delay=None)`` — the method is *performed* (a sent message
    is recorded in :attr:`sent`) but its answer is lost: the connection is dropped without a response, or,
    with ``delay``, the answer comes only after ``delay`` seconds (past the client's read timeout).

Recording
    :attr:`calls` — every request as :class:`Call` (method, params, files, at = ``time.monotonic()``, status,
    result); :attr:`sent` — successful sendMessage/sendPhoto calls; ``sent_to(chat_id)``;
    ``await wait_for(method, count=1, timeout=5.0, predicate=None)`` and
    ``await wait_sent(chat_id=None, count=1, timeout=5.0)`` return the matching successful calls or raise
    ``TimeoutError`` (every wait is bounded); ``await wait_polling(since, timeout=5.0)``: until a getUpdates
    that arrived after ``since`` is held or answered. :attr:`commands` holds the last ``setMyCommands`` per
    (scope, language_code). :attr:`webhook` is the current webhook dict (url, secret_token …) or None.
"""

from __future__ import annotations

import asyncio
import collections
import html
import io
import itertools
import json
import math
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

from aiohttp import web

from tests.fakes._server import LoopbackServer

TEXT_LIMIT = 4096
FLOOD_METHODS = frozenset({"sendMessage", "sendPhoto", "sendDocument"})  # what the flood limit counts
CAPTION_LIMIT = 1024
DOCUMENT_MAX_BYTES = 50 * 1024 * 1024  # "bots can currently send files of any type of up to 50 MB in size"
UPLOAD_NAMES = "__upload_names__"  # the fake's own key in a call's params: each upload part's file name
PHOTO_MAX_BYTES = 10 * 1024 * 1024  # sendPhoto: "The photo must be at most 10 MB in size"
PHOTO_SIDES = (90, 320, 800, 1280, 2560)  # the longest side of each size Telegram keeps of a photo
# Bot API fields that are strings and must not be JSON-decoded.
STRING_FIELDS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "callback_query_id",
        "secret_token",
        "url",
        "language_code",
        "description",
        "short_description",
        "name",
        "query",
        "emoji",
        "action",
        "inline_message_id",
        "inline_query_id",
        "next_offset",
        "file_id",
        "photo",
        "document",
        "ip_address",
        "business_connection_id",
        "message_effect_id",
    }
)
TELEGRAM_TAGS = frozenset(
    {
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "a",
        "code",
        "pre",
        "blockquote",
        "tg-emoji",
    }
)


# the update kinds the Bot API delivers when ``allowed_updates`` is empty ("all update types except
# chat_member, message_reaction, and message_reaction_count")
DEFAULT_UPDATE_KINDS = frozenset(
    {"message", "edited_message", "channel_post", "edited_channel_post", "business_connection",
     "business_message", "edited_business_message", "deleted_business_messages", "inline_query",
     "chosen_inline_result", "callback_query", "shipping_query", "pre_checkout_query", "purchased_paid_media",
     "poll", "poll_answer", "my_chat_member", "chat_join_request", "chat_boost", "removed_chat_boost"}
)  # fmt: skip


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class EntityParseError(ValueError):
    pass


class _TelegramHTML(HTMLParser):
    """Parses Telegram's HTML subset; collects visible text; raises on what Telegram rejects."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.stack: list[str] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in TELEGRAM_TAGS:
            raise EntityParseError(f'Unsupported start tag "{tag}"')
        if tag == "span" and dict(attrs).get("class") != "tg-spoiler":
            raise EntityParseError('Tag "span" must have class "tg-spoiler"')
        self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise EntityParseError(f'Unsupported start tag "{tag}"')

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            raise EntityParseError(f'Unmatched end tag "{tag}"')
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if "<" in data:
            raise EntityParseError("Unsupported start tag")
        self.parts.append(data)

    def handle_entityref(self, name: str) -> None:
        if name not in ("lt", "gt", "amp", "quot"):
            raise EntityParseError(f'Unsupported HTML entity "&{name};"')
        self.parts.append(html.unescape(f"&{name};"))

    def handle_charref(self, name: str) -> None:
        self.parts.append(html.unescape(f"&#{name};"))

    def handle_comment(self, data: str) -> None:
        raise EntityParseError("Unsupported start tag")

    def handle_decl(self, decl: str) -> None:
        raise EntityParseError("Unsupported start tag")

    def unknown_decl(self, data: str) -> None:
        raise EntityParseError("Unsupported start tag")


def visible_text(text: str, parse_mode: str | None) -> str:
    """The text Telegram would show (entities parsed); raises EntityParseError like Telegram's 400."""
    if not parse_mode or parse_mode.upper() != "HTML":
        return text
    # HTMLParser silently treats a lone "<" followed by a non-letter as data; Telegram rejects it.
    for m in re.finditer(r"<", text):
        if not re.match(r"</?[a-zA-Z]", text[m.start() : m.start() + 3]):
            raise EntityParseError(f"Unexpected '<' at byte offset {len(text[: m.start()].encode())}")
    parser = _TelegramHTML()
    parser.feed(text)
    parser.close()
    if parser.rawdata:  # an unterminated tag left in the buffer
        raise EntityParseError("Unclosed start tag")
    if parser.stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{parser.stack[-1]}"')
    return "".join(parser.parts)


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    files: dict[str, bytes]
    at: float
    status: int = 200
    result: Any = None

    @property
    def html(self) -> str:
        """The HTML a send or an edit asked for: its ``text``, or a photo's ``caption``."""
        return str(self.params.get("text") or self.params.get("caption") or "")

    @property
    def shown(self) -> str:
        """What the sent message shows: its text, or a photo's caption."""
        result = self.result if isinstance(self.result, dict) else {}
        return str(result.get("text") or result.get("caption") or "")


@dataclass
class _Rule:
    method: str
    status: int
    description: str
    parameters: dict[str, Any] | None
    chat_id: Any
    times: int | None

    def matches(self, method: str, params: dict[str, Any]) -> bool:
        if self.method != method and self.method != "*":
            return False
        if self.chat_id is not None and str(params.get("chat_id")) != str(self.chat_id):
            return False
        return self.times is None or self.times > 0


@dataclass
class FakeTelegram(LoopbackServer):
    token: str = "123456:TEST-token-do-not-log"
    username: str = "sikpan_bot"
    bot_id: int = 123456
    poll_hold: float = 1.0
    host: str = "127.0.0.1"
    calls: list[Call] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    overrides: dict[str, Callable[[dict[str, Any]], Awaitable[tuple[int, Any]]]] = field(default_factory=dict)
    commands: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    # setChatMenuButton, per chat id ("": the bot's default menu button, set without a chat)
    menu_buttons: dict[str, dict[str, Any]] = field(default_factory=dict)
    webhook: dict[str, Any] | None = None
    # Telegram's global flood limit ("about 30 messages per second" for a bot): with ``flood_limit`` set, a
    # send beyond that many accepted sends in any ``flood_window`` seconds gets 429 with ``retry_after``
    flood_limit: int | None = None
    flood_window: float = 1.0
    # besides the limit, this fraction of the flood-counted sends (drawn from ``flood_seed``) gets 429 with
    # retry_after 1 at random: a storm the sender must wait out without losing or doubling a message
    flood_storm: float = 0.0
    flood_seed: int = 429
    admins: dict[int, set[int]] = field(default_factory=dict)  # chat id → user ids that are administrators
    owners: dict[int, int] = field(default_factory=dict)  # chat id → the creator's user id
    # the bot's messages as they stand now, by (chat id, message id): edits are checked against them
    messages: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    photos: dict[str, bytes] = field(default_factory=dict)  # file_id of the largest size → the bytes sent
    documents: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # file_id → (file name, bytes)
    conflict_spacing: float = 3.0  # seconds: at most one 409 answer per this long (the Bot API server's)
    supports_inline_queries: bool = True  # getMe's: BotFather's /setinline is on
    inline_deadline: float = 10.0  # seconds after an inline query within which it may be answered
    inline_answers: dict[str, dict[str, Any]] = field(default_factory=dict)  # query id → its answer

    def __post_init__(self) -> None:
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        self._answered_queries: set[str] = set()
        self._inline_queries: dict[str, float] = {}  # inline query id → when it was made (monotonic)
        self._message_ids = itertools.count(1000)
        self._rules: list[_Rule] = []
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.confirmed_offset = 0
        self.allowed_updates: list[str] = []  # getUpdates' allowed_updates (empty: the default kinds)
        self._losses: list[_Loss] = []
        self._accepted: collections.deque[float] = collections.deque()  # monotonic times of accepted sends
        self.flood_rejections = 0  # sends answered 429 by the flood limit
        self.storm_rejections = 0  # sends answered 429 by ``flood_storm``
        self._storm = random.Random(self.flood_seed)
        self._file_ids = itertools.count(1)
        self._sent_photos: list[list[dict[str, Any]]] = []
        self._long_poll: _LongPoll | None = None  # the getUpdates being held, if any
        self._next_conflict = 0.0  # monotonic time before which a 409 is answered only after a delay
        self.conflicts = 0  # 409 answers to getUpdates
        self._closing = False  # close() ends a long poll still held: the server stops without waiting for it

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> FakeTelegram:
        self._closing = False
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.*}", self._file)
        return await self._serve(app)

    async def close(self) -> None:
        """Stop serving; a long poll still held (its client gone or going) is answered at once first, so
        the server does not wait out its hold."""
        self._closing = True
        await self._notify()
        await super().close()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://{self.host}:{self.port}/file/bot"

    # ------------------------------------------------------------------ injection
    def make_update(
        self,
        text: str,
        *,
        chat_id: int = 1001,
        user_id: int | None = None,
        chat_type: str = "private",
        language_code: str | None = "ko",
        first_name: str = "Tester",
        username: str | None = None,
        chat_title: str | None = None,
    ) -> dict[str, Any]:
        user_id = chat_id if user_id is None and chat_type == "private" else (user_id or 2001)
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": first_name}
        if language_code:
            user["language_code"] = language_code
        if username:
            user["username"] = username
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = first_name
        else:
            chat["title"] = chat_title or "group"
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": user,
            "text": text,
        }
        m = re.match(r"/[A-Za-z0-9_]+(?:@[A-Za-z0-9_]+)?", text)
        entities = []
        if m:
            entities.append({"type": "bot_command", "offset": 0, "length": utf16_len(m.group(0))})
        for mention in re.finditer(r"@[A-Za-z0-9_]{5,32}", text):  # @username, as clients mark it
            if m is None or mention.start() >= m.end():
                offset = utf16_len(text[: mention.start()])
                entities.append({"type": "mention", "offset": offset, "length": utf16_len(mention.group(0))})
        if entities:
            message["entities"] = entities
        return {"update_id": next(self._update_ids), "message": message}

    def user_says(self, text: str, **kwargs: Any) -> dict[str, Any]:
        update = self.make_update(text, **kwargs)
        self.push_update(update)
        return update

    def callback_query(
        self,
        data: str,
        *,
        chat_id: int = 1001,
        user_id: int | None = None,
        message_id: int = 1,
        chat_type: str = "private",
        language_code: str | None = None,
        message: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Queue a button press on the bot's message ``message_id`` (``message``: that message as sent, e.g.
        ``call.result`` of its sendMessage/sendPhoto, so a photo is edited as a caption)."""
        user_id = user_id or chat_id
        sender: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": "Tester"}
        if language_code:
            sender["language_code"] = language_code
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type != "private":
            chat["title"] = "group"
        shown = dict(message) if message else {"text": "…"}
        shown.update({"message_id": message_id, "date": int(time.time()), "chat": chat})
        update = {
            "update_id": next(self._update_ids),
            "callback_query": {
                "id": str(next(self._message_ids)),
                "from": sender,
                "chat_instance": "1",
                "data": data,
                "message": shown,
            },
        }
        self.push_update(update)
        return update

    def bot_removed(
        self, chat_id: int, *, status: str = "kicked", chat_type: str = "private"
    ) -> dict[str, Any]:
        """Queue a ``my_chat_member`` update: the bot's status in ``chat_id`` changed from ``member`` to
        ``status`` (``kicked``: a user blocked it, or a group banned it; ``left``: removed from a group)."""
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type != "private":
            chat["title"] = "group"
        person = {"id": chat_id if chat_type == "private" else 2001, "is_bot": False, "first_name": "Tester"}
        me = {"id": self.bot_id, "is_bot": True, "first_name": "sikpan", "username": self.username}
        new: dict[str, Any] = {"user": me, "status": status}
        if status == "kicked":
            new["until_date"] = 0
        update = {
            "update_id": next(self._update_ids),
            "my_chat_member": {
                "chat": chat,
                "from": person,
                "date": int(time.time()),
                "old_chat_member": {"user": me, "status": "member"},
                "new_chat_member": new,
            },
        }
        self.push_update(update)
        return update

    def group_migrated(self, chat_id: int, new_chat_id: int) -> dict[str, Any]:
        """Queue the service message a group sends when it becomes a supergroup (``migrate_to_chat_id``)."""
        update = {
            "update_id": next(self._update_ids),
            "message": {
                "message_id": next(self._message_ids),
                "date": int(time.time()),
                "chat": {"id": chat_id, "type": "group", "title": "group"},
                "from": {"id": 2001, "is_bot": False, "first_name": "Tester"},
                "migrate_to_chat_id": new_chat_id,
            },
        }
        self.push_update(update)
        return update

    def _user(self, user_id: int, language_code: str | None) -> dict[str, Any]:
        user: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": "Tester"}
        if language_code:
            user["language_code"] = language_code
        return user

    def inline_query(
        self,
        query: str,
        *,
        user_id: int = 1001,
        language_code: str | None = "ko",
        chat_type: str = "supergroup",
        offset: str = "",
    ) -> dict[str, Any]:
        """Queue an ``inline_query`` update: ``@bot <query>`` typed by ``user_id`` in a chat of ``chat_type``
        ("sender": the private chat with the bot, "private", "group", "supergroup", "channel")."""
        query_id = str(next(self._message_ids)) + "77"
        self._inline_queries[query_id] = time.monotonic()
        update = {
            "update_id": next(self._update_ids),
            "inline_query": {"id": query_id, "from": self._user(user_id, language_code), "query": query,
                             "offset": offset, "chat_type": chat_type},
        }  # fmt: skip
        self.push_update(update)
        return update

    def chosen_inline_result(
        self, result_id: str, query: str, *, user_id: int = 1001, language_code: str | None = "ko"
    ) -> dict[str, Any]:
        """Queue a ``chosen_inline_result`` update: the user posted the result ``result_id`` of ``query``
        (Telegram sends it when BotFather's ``/setinlinefeedback`` is on)."""
        update = {
            "update_id": next(self._update_ids),
            "chosen_inline_result": {"result_id": result_id, "from": self._user(user_id, language_code),
                                     "query": query},
        }  # fmt: skip
        self.push_update(update)
        return update

    def push_update(self, update: dict[str, Any]) -> None:
        self._updates.append(update)
        asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def fail(
        self,
        method: str,
        status: int,
        description: str,
        parameters: dict[str, Any] | None = None,
        *,
        chat_id: Any = None,
        times: int | None = 1,
    ) -> None:
        self._rules.append(_Rule(method, status, description, parameters, chat_id, times))

    def rate_limit(
        self, retry_after: int, *, chat_id: Any = None, times: int | None = 1, method: str = "sendMessage"
    ) -> None:
        self.fail(
            method,
            429,
            f"Too Many Requests: retry after {retry_after}",
            {"retry_after": retry_after},
            chat_id=chat_id,
            times=times,
        )

    def forget_file_ids(self) -> None:
        """Every photo ``file_id`` issued so far stops being valid (as after Telegram's storage dropped the
        files, or for another bot's ids): sending one again → 400 "wrong file identifier/HTTP URL specified"."""
        self._sent_photos.clear()

    def block(self, chat_id: Any) -> None:
        for method in ("sendMessage", "sendPhoto", "sendDocument", "sendChatAction"):
            self.fail(method, 403, "Forbidden: bot was blocked by the user", chat_id=chat_id, times=None)

    def migrate(self, chat_id: Any, new_chat_id: int) -> None:
        self.fail(
            "sendMessage",
            400,
            "Bad Request: group chat was upgraded to a supergroup chat",
            {"migrate_to_chat_id": new_chat_id},
            chat_id=chat_id,
            times=None,
        )

    # ------------------------------------------------------------------ recording
    @property
    def sent(self) -> list[Call]:
        return [
            c
            for c in self.calls
            if c.method in ("sendMessage", "sendPhoto", "sendDocument") and c.status == 200
        ]

    def sent_to(self, chat_id: Any) -> list[Call]:
        return [c for c in self.sent if str(c.params.get("chat_id")) == str(chat_id)]

    async def wait_for(
        self,
        method: str | tuple[str, ...],
        count: int = 1,
        timeout: float = 5.0,
        predicate: Callable[[Call], bool] | None = None,
    ) -> list[Call]:
        methods = (method,) if isinstance(method, str) else method

        def found() -> list[Call]:
            return [
                c
                for c in self.calls
                if c.method in methods and c.status == 200 and (predicate is None or predicate(c))
            ]

        async def waiter() -> list[Call]:
            async with self._changed:
                await self._changed.wait_for(lambda: len(found()) >= count)
            return found()

        try:
            return await asyncio.wait_for(waiter(), timeout)
        except TimeoutError:
            raise TimeoutError(f"{method}: wanted {count}, got {len(found())} within {timeout}s") from None

    async def wait_polling(self, since: float, timeout: float = 5.0) -> None:
        """Until a getUpdates that arrived after ``since`` (``time.monotonic()``) is held as a long poll or has
        been answered: a client started after ``since`` is up and polling (a held poll is recorded in
        :attr:`calls` only when it ends, up to :attr:`poll_hold` later). Else ``TimeoutError``."""

        def polling() -> bool:
            held = self._long_poll
            return (held is not None and held.at > since) or any(
                c.method == "getUpdates" and c.status == 200 and c.at > since for c in self.calls
            )

        async def waiter() -> None:
            async with self._changed:
                await self._changed.wait_for(polling)

        try:
            await asyncio.wait_for(waiter(), timeout)
        except TimeoutError:
            raise TimeoutError(f"no getUpdates since {since} within {timeout}s") from None

    async def wait_sent(self, chat_id: Any = None, count: int = 1, timeout: float = 5.0) -> list[Call]:
        """The bot's messages (sendMessage and sendPhoto) to ``chat_id``."""
        return await self.wait_for(
            ("sendMessage", "sendPhoto"),
            count,
            timeout,
            None if chat_id is None else (lambda c: str(c.params.get("chat_id")) == str(chat_id)),
        )

    # ------------------------------------------------------------------ HTTP
    async def _params(self, request: web.Request) -> tuple[dict[str, Any], dict[str, bytes]]:
        raw: dict[str, Any] = dict(request.query)
        files: dict[str, bytes] = {}
        names: dict[str, str] = {}  # an upload's file name (the part's Content-Disposition filename)
        ctype = request.content_type
        if ctype == "application/json":
            body = await request.json() if request.can_read_body else {}
            return {**raw, **(body or {})}, files
        if ctype == "multipart/form-data":
            reader = await request.multipart()
            async for part in reader:
                if part.filename is not None:  # type: ignore[union-attr]
                    files[part.name or ""] = await part.read()  # type: ignore[union-attr]
                    names[part.name or ""] = part.filename  # type: ignore[union-attr]
                else:
                    raw[part.name or ""] = await part.text()  # type: ignore[union-attr]
        elif request.can_read_body:
            raw.update(await request.post())
        params: dict[str, Any] = {}
        for key, value in raw.items():
            if not isinstance(value, str) or key in STRING_FIELDS:
                params[key] = value
                continue
            try:
                params[key] = json.loads(value)
            except ValueError:
                params[key] = value
        if names:
            params[UPLOAD_NAMES] = names
        return params, files

    @staticmethod
    def _reply(status: int, payload: dict[str, Any]) -> web.Response:
        return web.Response(status=status, text=json.dumps(payload), content_type="application/json")

    def _error(self, status: int, description: str, parameters: dict[str, Any] | None = None) -> web.Response:
        payload: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
        if parameters:
            payload["parameters"] = parameters
        return self._reply(status, payload)

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params, files = await self._params(request)
        call = Call(method, params, files, time.monotonic())
        response = await self._dispatch(request.match_info["token"], method, params, files, call)
        self.calls.append(call)
        await self._notify()
        loss = next((r for r in self._losses if r.matches(method, params)), None)
        if loss is not None and call.status == 200:
            if loss.times is not None:
                loss.times -= 1
            if loss.delay is None:  # performed, but the answer never leaves: drop the connection
                if request.transport is not None:
                    request.transport.abort()
                raise ConnectionResetError("the fake dropped the answer")
            await asyncio.sleep(loss.delay)
        return response

    def lose_response(
        self,
        method: str = "sendMessage",
        *,
        chat_id: Any = None,
        times: int | None = 1,
        delay: float | None = None,
    ) -> None:
        self._losses.append(_Loss(method, chat_id, times, delay))

    async def _dispatch(
        self, token: str, method: str, params: dict[str, Any], files: dict[str, bytes], call: Call
    ) -> web.Response:
        if token != self.token:
            call.status = 401
            return self._error(401, "Unauthorized")
        for rule in self._rules:
            if rule.matches(method, params):
                if rule.times is not None:
                    rule.times -= 1
                call.status = rule.status
                return self._error(rule.status, rule.description, rule.parameters)
        if self.flood_storm and method in FLOOD_METHODS and self._storm.random() < self.flood_storm:
            self.storm_rejections += 1
            call.status = 429
            return self._error(429, "Too Many Requests: retry after 1", {"retry_after": 1})
        if self.flood_limit is not None and method in FLOOD_METHODS:
            now = time.monotonic()
            while self._accepted and now - self._accepted[0] >= self.flood_window:
                self._accepted.popleft()
            if len(self._accepted) >= self.flood_limit:
                self.flood_rejections += 1
                wait = max(1, math.ceil(self.flood_window - (now - self._accepted[0])))
                call.status = 429
                return self._error(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
            self._accepted.append(now)
        if method in self.overrides:
            status, payload = await self.overrides[method](params)
            call.status, call.result = status, payload.get("result")
            return self._reply(status, payload)
        handler = getattr(self, f"_m_{method.lower()}", None)
        if handler is None:
            call.status = 404
            return self._error(404, f"Not Found: method {method!r} is not implemented by the fake")
        try:
            result = await handler(params, files)
        except _ApiError as exc:
            call.status = exc.status
            return self._error(exc.status, exc.description)
        call.result = result
        return self._reply(200, {"ok": True, "result": result})

    async def _file(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        data = self.files.get(request.match_info["path"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data)

    # ------------------------------------------------------------------ methods
    def _me(self) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": "sikpan",
            "username": self.username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": self.supports_inline_queries,
        }

    async def _m_getme(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return self._me()

    async def _m_logout(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_close(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_deletewebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _m_setwebhook(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        url = params.get("url", "")
        if not str(url).startswith(("https://", "http://")):
            raise _ApiError(400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise _ApiError(400, "Bad Request: secret token contains unallowed characters")
        self.webhook = dict(params)
        await self._end_long_poll("Conflict: terminated by setWebhook request")
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _m_getwebhookinfo(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        """As the Bot API answers: ``url`` "" when none is set; with one, its ``max_connections`` (default 40)
        and the ``allowed_updates`` it was set with."""
        info: dict[str, Any] = {"url": (self.webhook or {}).get("url", ""), "has_custom_certificate": False,
                                "pending_update_count": len(self._updates)}  # fmt: skip
        if self.webhook is not None:
            info["max_connections"] = int(self.webhook.get("max_connections") or 40)
            allowed = self.webhook.get("allowed_updates")
            if allowed:
                info["allowed_updates"] = json.loads(allowed) if isinstance(allowed, str) else list(allowed)
        return info

    async def _conflict(self, description: str) -> _ApiError:
        """A 409 for getUpdates: at once, or — within :attr:`conflict_spacing` of the last one — that much later."""
        now = time.monotonic()
        if now < self._next_conflict:
            await asyncio.sleep(self.conflict_spacing)
        else:
            self._next_conflict = now + self.conflict_spacing
        self.conflicts += 1
        return _ApiError(409, description)

    async def _end_long_poll(self, description: str) -> None:
        poll, self._long_poll = self._long_poll, None
        if poll is not None:
            poll.ended = description
            await self._notify()

    async def _m_getupdates(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        if self.webhook is not None:
            raise await self._conflict(
                "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
                "the webhook first"
            )
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        hold = min(float(params.get("timeout") or 0), self.poll_hold)
        if params.get("allowed_updates") is not None:  # kept until changed, as the Bot API keeps it
            self.allowed_updates = list(params["allowed_updates"])
        kinds = set(self.allowed_updates) or DEFAULT_UPDATE_KINDS
        # updates of a kind not asked for are never delivered
        self._updates = [u for u in self._updates if any(k in kinds for k in u if k != "update_id")]
        if offset:
            self.confirmed_offset = max(self.confirmed_offset, offset)
            self._updates = [u for u in self._updates if u["update_id"] >= offset]

        def pending() -> list[dict[str, Any]]:
            return [u for u in self._updates if u["update_id"] >= offset][:limit]

        if not pending() and float(params.get("timeout") or 0) > 0:
            # a long poll: the one held before (another instance's, or a request its client gave up) ends
            await self._end_long_poll(
                "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
            )
            poll = self._long_poll = _LongPoll(time.monotonic())
            await self._notify()  # wait_polling
            try:
                async with self._changed:
                    await asyncio.wait_for(
                        self._changed.wait_for(
                            lambda: bool(pending()) or poll.ended is not None or self._closing
                        ),
                        hold,
                    )
            except TimeoutError:
                pass
            finally:
                if self._long_poll is poll:
                    self._long_poll = None
            if poll.ended is not None:
                raise await self._conflict(poll.ended)
        return pending()

    def _check_text(self, text: Any, parse_mode: Any, limit: int, what: str) -> str:
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        try:
            shown = visible_text(text, parse_mode)
        except EntityParseError as exc:
            raise _ApiError(400, f"Bad Request: can't parse entities: {exc}") from None
        if not shown.strip():
            raise _ApiError(400, f"Bad Request: {what} is empty")
        if utf16_len(shown) > limit:
            raise _ApiError(400, "Bad Request: message is too long" if what == "message text" else
                            "Bad Request: message caption is too long")  # fmt: skip
        return shown

    @staticmethod
    def _markup(params: dict[str, Any]) -> dict[str, Any]:
        """The ``reply_markup`` of a message as Telegram echoes it; an inline button's ``callback_data`` must
        be 1–64 bytes (else 400 BUTTON_DATA_INVALID), its text non-empty."""
        markup = params.get("reply_markup")
        if not markup:
            return {}
        for row in markup.get("inline_keyboard", []):
            for button in row:
                data = button.get("callback_data")
                if data is not None and not 1 <= len(str(data).encode()) <= 64:
                    raise _ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
                if not str(button.get("text", "")).strip():
                    raise _ApiError(400, "Bad Request: text buttons are unallowed in the inline keyboard")
        return {"reply_markup": markup} if "inline_keyboard" in markup else {}

    def _message(self, params: dict[str, Any], **extra: Any) -> dict[str, Any]:
        extra = {**self._markup(params), **extra}
        chat_id = params.get("chat_id")
        kind = "private" if isinstance(chat_id, int) and chat_id > 0 else "supergroup"
        chat: dict[str, Any] = {"id": chat_id, "type": kind}
        if kind != "private":
            chat["title"] = "group"
        message = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": chat,
            "from": {"id": self.bot_id, "is_bot": True, "first_name": "sikpan", "username": self.username},
            **extra,
        }
        self.messages[(str(chat_id), message["message_id"])] = message
        return message

    # ------------------------------------------------------------------ photos
    def _photo_sizes(self, data: bytes) -> list[dict[str, Any]]:
        """Decode an uploaded photo as Telegram does and answer its PhotoSize list: the sizes Telegram
        makes (longest side 90, 320, 800, 1280, 2560, none larger than the original), each with its own
        ``file_id`` (the bytes of the largest are kept for ``getFile``). What is not a picture → 400
        IMAGE_PROCESS_FAILED; more than 10 MB → 400; width + height over 10,000 or a side ratio over 20
        → 400 PHOTO_INVALID_DIMENSIONS (the Bot API's sendPhoto limits)."""
        from PIL import Image, UnidentifiedImageError

        if len(data) > PHOTO_MAX_BYTES:
            raise _ApiError(400, "Bad Request: file is too big")
        try:
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                width, height = image.size
        except (UnidentifiedImageError, OSError, ValueError):
            raise _ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED") from None
        if width + height > 10_000 or max(width, height) > 20 * min(width, height):
            raise _ApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
        sizes = []
        longest = max(width, height)
        for side in PHOTO_SIDES:
            scale = min(1.0, side / longest)
            w, h = max(1, round(width * scale)), max(1, round(height * scale))
            if sizes and (w, h) == (sizes[-1]["width"], sizes[-1]["height"]):
                break
            n = next(self._file_ids)
            sizes.append({"file_id": f"AgACAgphoto{n}", "file_unique_id": f"AQADphoto{n}", "width": w,
                          "height": h, "file_size": len(data) if scale == 1.0 else len(data) * w // width})  # fmt: skip
            if scale == 1.0:
                break
        self.files[f"photos/{sizes[-1]['file_id']}.png"] = data
        self.photos[sizes[-1]["file_id"]] = data
        return sizes

    def _photo(self, value: Any, files: dict[str, bytes]) -> list[dict[str, Any]]:
        """The PhotoSize list of a ``photo`` field: an upload (multipart part, or ``attach://name``) or the
        ``file_id`` of a photo sent before (reused without upload)."""
        if isinstance(value, str) and value.startswith("attach://"):
            data = files.get(value[len("attach://") :])
            if data is None:
                raise _ApiError(400, "Bad Request: wrong HTTP URL specified")
            return self._photo_sizes(data)
        if isinstance(value, str) and value:
            for sizes in self._sent_photos:
                if any(size["file_id"] == value for size in sizes):
                    return sizes
            raise _ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        raise _ApiError(400, "Bad Request: there is no photo in the request")

    def _stored(self, params: dict[str, Any]) -> dict[str, Any]:
        """The bot's message an edit names (400 "message to edit not found" as Telegram answers)."""
        key = (str(params.get("chat_id")), params.get("message_id"))
        message = self.messages.get(key)
        if message is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        return message

    def _edited(self, message: dict[str, Any], params: dict[str, Any], **content: Any) -> dict[str, Any]:
        """Apply an edit; the same content and keyboard again → 400 "message is not modified"."""
        markup = self._markup(params)
        new = {k: v for k, v in message.items() if k not in ("text", "caption", "reply_markup")}
        new.update({k: v for k, v in content.items() if v is not None}, **markup)
        if new == message:
            raise _ApiError(400, "Bad Request: message is not modified: specified new message content and "
                            "reply markup are exactly the same as a current content and reply markup of the message")  # fmt: skip
        new["edit_date"] = int(time.time())
        self.messages[(str(message["chat"]["id"]), message["message_id"])] = new
        return dict(new)

    async def _m_sendmessage(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        if params.get("chat_id") in (None, ""):
            raise _ApiError(400, "Bad Request: chat_id is empty")
        shown = self._check_text(params.get("text"), params.get("parse_mode"), TEXT_LIMIT, "message text")
        return self._message(params, text=shown)

    async def _m_sendphoto(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        if params.get("chat_id") in (None, ""):
            raise _ApiError(400, "Bad Request: chat_id is empty")
        caption = None
        if params.get("caption"):  # checked before the upload is processed, as Telegram does
            caption = self._check_text(
                params["caption"], params.get("parse_mode"), CAPTION_LIMIT, "message caption"
            )
        photo = files.get("photo")
        sizes = self._photo_sizes(photo) if photo is not None else self._photo(params.get("photo"), files)
        self._sent_photos.append(sizes)
        extra: dict[str, Any] = {"photo": sizes}
        if caption is not None:
            extra["caption"] = caption
        return self._message(params, **extra)

    async def _m_editmessagemedia(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        """``media`` is an InputMedia (JSON); a photo given as ``attach://name`` is the multipart part
        ``name``. A text message gets the media (the Bot API allows adding media to text messages); its
        caption is the media's ``caption`` (limit 1,024)."""
        message = self._stored(params)
        media = params.get("media")
        if isinstance(media, str):
            try:
                media = json.loads(media)
            except ValueError:
                raise _ApiError(
                    400, "Bad Request: can't parse InputMedia: Can't parse media JSON object"
                ) from None
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise _ApiError(
                400, "Bad Request: can't parse InputMedia: media type is not supported by the fake"
            )
        caption = None
        if media.get("caption"):
            caption = self._check_text(
                media["caption"], media.get("parse_mode"), CAPTION_LIMIT, "message caption"
            )
        sizes = self._photo(media.get("media"), files)
        self._sent_photos.append(sizes)
        base = {k: v for k, v in message.items() if k not in ("text", "entities", "photo", "caption")}
        self.messages[(str(message["chat"]["id"]), message["message_id"])] = base
        return self._edited(base, params, photo=sizes, caption=caption)

    async def _m_senddocument(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        """A file as a document: the multipart part ``document`` (its file name kept) or the ``file_id`` of
        one sent before; at most 50 MB (the Bot API's upload limit for bots: 413 above); the caption as for
        photos. Kept in :attr:`documents` (file_id → (file name, bytes)) and served by getFile."""
        if params.get("chat_id") in (None, ""):
            raise _ApiError(400, "Bad Request: chat_id is empty")
        caption = None
        if params.get("caption"):
            caption = self._check_text(
                params["caption"], params.get("parse_mode"), CAPTION_LIMIT, "message caption"
            )
        data = files.get("document")
        if data is None:
            known = str(params.get("document", ""))
            if known not in self.documents:
                raise _ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
            name, data = self.documents[known]
        else:
            if len(data) > DOCUMENT_MAX_BYTES:
                raise _ApiError(413, "Request Entity Too Large")
            if not data:
                raise _ApiError(400, "Bad Request: file must be non-empty")
            name = params.get(UPLOAD_NAMES, {}).get("document") or "document"
        n = next(self._file_ids)
        file_id = f"BQACAgdoc{n}"
        self.documents[file_id] = (name, data)
        self.files[f"documents/{file_id}"] = data
        extra: dict[str, Any] = {
            "document": {"file_id": file_id, "file_unique_id": f"AgADdoc{n}", "file_name": name,
                         "file_size": len(data)},
        }  # fmt: skip
        if caption is not None:
            extra["caption"] = caption
        return self._message(params, **extra)

    async def _m_getfile(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        file_id = str(params.get("file_id"))
        path = next((p for p in self.files if p.endswith(file_id) or p == file_id), None)
        if path is None:
            raise _ApiError(400, "Bad Request: invalid file_id")
        return {"file_id": file_id, "file_unique_id": file_id, "file_size": len(self.files[path]),
                "file_path": path}  # fmt: skip

    async def _m_setmycommands(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        commands = params.get("commands") or []
        for c in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", c.get("command", "")):
                raise _ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(c.get("description", "")) <= 256:
                raise _ApiError(400, "Bad Request: command description is empty or too long")
        scope = json.dumps(params.get("scope") or {"type": "default"}, sort_keys=True)
        self.commands[(scope, params.get("language_code") or "")] = commands
        return True

    async def _m_getmycommands(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        scope = json.dumps(params.get("scope") or {"type": "default"}, sort_keys=True)
        return self.commands.get((scope, params.get("language_code") or ""), [])

    async def _m_setchatmenubutton(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        button = params.get("menu_button") or {"type": "default"}
        if button.get("type") not in ("commands", "web_app", "default"):
            raise _ApiError(400, "Bad Request: unsupported menu button type")
        self.menu_buttons[str(params.get("chat_id") or "")] = button  # "": the bot's default button
        return True

    async def _m_getchatmenubutton(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        chat = str(params.get("chat_id") or "")
        return self.menu_buttons.get(chat) or self.menu_buttons.get("") or {"type": "default"}

    async def _m_deletemycommands(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        scope = json.dumps(params.get("scope") or {"type": "default"}, sort_keys=True)
        self.commands.pop((scope, params.get("language_code") or ""), None)
        return True

    async def _m_answercallbackquery(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        # the Bot API: text 0–200 characters; a query is answered once (then its id is no longer valid)
        if len(str(params.get("text") or "")) > 200:
            raise _ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        query_id = str(params.get("callback_query_id") or "")
        if not query_id or query_id in self._answered_queries:
            raise _ApiError(
                400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
            )
        self._answered_queries.add(query_id)
        return True

    async def _m_answerinlinequery(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        query_id = str(params.get("inline_query_id") or "")
        made = self._inline_queries.get(query_id)
        if made is None or time.monotonic() - made > self.inline_deadline:
            raise _ApiError(
                400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
            )
        results = params.get("results")
        if not isinstance(results, list):
            raise _ApiError(400, "Bad Request: can't parse inline query results JSON object")
        if len(results) > 50:
            raise _ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        ids: set[str] = set()
        for result in results:
            self._inline_result(result, ids)
        cache_time = params.get("cache_time", 300)
        if not isinstance(cache_time, int) or cache_time < 0:
            raise _ApiError(400, "Bad Request: can't parse cache_time")
        button = params.get("button")
        if button is not None:
            if not isinstance(button, dict) or not str(button.get("text") or "").strip():
                raise _ApiError(
                    400, "Bad Request: can't parse inline query results button: Can't find field \"text\""
                )
            start = button.get("start_parameter")
            if (start is None) == (button.get("web_app") is None):
                raise _ApiError(
                    400, "Bad Request: inline query results button must have web_app or start_parameter"
                )
            if start is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", str(start)):
                raise _ApiError(400, "Bad Request: START_PARAM_INVALID")
        self._inline_queries.pop(query_id)  # answered once: the id is no longer valid
        self.inline_answers[query_id] = {"results": results, "cache_time": cache_time,
                                         "is_personal": bool(params.get("is_personal")), "button": button,
                                         "next_offset": params.get("next_offset")}  # fmt: skip
        return True

    def _inline_result(self, result: Any, ids: set[str]) -> None:
        """One InlineQueryResult as the Bot API checks it (see the module docstring)."""

        def need(name: str) -> Any:
            value = result.get(name)
            if value is None or value == "":
                raise _ApiError(
                    400, f"Bad Request: can't parse inline query result: Can't find field \"{name}\""
                )
            return value

        if not isinstance(result, dict):
            raise _ApiError(400, "Bad Request: can't parse inline query result: expected an Object")
        result_id = need("id")
        if not isinstance(result_id, str) or not 1 <= len(result_id.encode()) <= 64:
            raise _ApiError(400, "Bad Request: RESULT_ID_INVALID")
        if result_id in ids:
            raise _ApiError(400, "Bad Request: RESULT_ID_DUPLICATE")
        ids.add(result_id)
        kind = need("type")
        if kind == "article":
            need("title")
            self._message_content(need("input_message_content"))
        elif kind == "photo":
            if result.get("photo_file_id") is not None:
                file_id = result["photo_file_id"]
                if not any(size["file_id"] == file_id for sizes in self._sent_photos for size in sizes):
                    raise _ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
            else:
                need("photo_url")
                need("thumbnail_url")
            if result.get("caption"):
                self._check_text(
                    result["caption"], result.get("parse_mode"), CAPTION_LIMIT, "message caption"
                )
            if result.get("input_message_content") is not None:
                self._message_content(result["input_message_content"])
        else:
            raise _ApiError(
                400, f"Bad Request: the fake answers inline results of type article and photo, not {kind!r}"
            )
        self._markup({"reply_markup": result.get("reply_markup")})

    def _message_content(self, content: Any) -> None:
        """An InputTextMessageContent: ``message_text`` as a sendMessage's text."""
        if not isinstance(content, dict) or "message_text" not in content:
            raise _ApiError(
                400, "Bad Request: can't parse inline query result: Can't find field \"message_text\""
            )
        self._check_text(content["message_text"], content.get("parse_mode"), TEXT_LIMIT, "message text")

    async def _m_editmessagetext(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        shown = self._check_text(params.get("text"), params.get("parse_mode"), TEXT_LIMIT, "message text")
        message = self._stored(params)
        if "text" not in message:
            raise _ApiError(400, "Bad Request: there is no text in the message to edit")
        return self._edited(message, params, text=shown)

    async def _m_editmessagecaption(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        shown = self._check_text(
            params.get("caption"), params.get("parse_mode"), CAPTION_LIMIT, "message caption"
        )
        message = self._stored(params)
        if "photo" not in message and "document" not in message:
            raise _ApiError(400, "Bad Request: there is no caption in the message to edit")
        return self._edited(message, params, caption=shown)

    async def _m_deletemessage(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_sendchataction(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        return True

    async def _m_getchatmember(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        user = {"id": user_id, "is_bot": False, "first_name": "Tester"}
        if self.owners.get(chat_id) == user_id:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in self.admins.get(chat_id, set()):
            return {"status": "administrator", "user": user, "can_be_edited": False, "is_anonymous": False,
                    "can_manage_chat": True, "can_delete_messages": True, "can_manage_video_chats": True,
                    "can_restrict_members": True, "can_promote_members": False, "can_change_info": True,
                    "can_invite_users": True, "can_post_stories": False, "can_edit_stories": False,
                    "can_delete_stories": False}  # fmt: skip
        return {"status": "member", "user": user}


@dataclass
class _LongPoll:
    at: float  # time.monotonic() when it began to be held
    ended: str | None = None  # the 409's description once another request ended it


@dataclass
class _Loss:
    method: str
    chat_id: Any
    times: int | None
    delay: float | None

    def matches(self, method: str, params: dict[str, Any]) -> bool:
        if self.method != method or (self.times is not None and self.times <= 0):
            return False
        return self.chat_id is None or str(params.get("chat_id")) == str(self.chat_id)


class _ApiError(Exception):
    def __init__(self, status: int, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
