"""Incoming Telegram updates as small typed values, read straight from the Bot API's JSON (issue #18).

python-telegram-bot turns every update into an ``Update`` (``TelegramObject.de_json`` of the message, its
chat, its user, entities …) and routes it through ``Application.process_update`` and its handlers: a tenth of
the event loop's time per command. The adapter reads a handful of fields, so :func:`parse_update` takes those
and nothing else from the ``Update`` object of the Bot API (https://core.telegram.org/bots/api#update):

- ``update_id``;
- a ``message``: ``message_id``, ``chat`` (``id``, ``type``), ``from`` (``id``, ``language_code``, the full
  name as PTB's ``User.full_name`` builds it: ``first_name`` + " " + ``last_name``), ``sender_chat.id``,
  ``text``, ``entities`` (``type``, ``offset``, ``length``), whether it has a ``photo``;
- a ``callback_query``: ``id``, ``data``, ``from``, and its ``message`` (chat, ``message_id``, photo or not;
  an *inaccessible* message — ``date`` 0 — has the chat and the id too).

Anything else (an update of another kind, or one whose fields do not have the types the Bot API gives them)
is ``None``: logged and ignored, never an exception. The values are named tuples (immutable; made in about
three quarters of the time frozen dataclasses take, five or six per update).
"""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

log = logging.getLogger(__name__)

# the kinds of update the bot asks for (getUpdates, setWebhook): what the adapter handles
ALLOWED_UPDATES = ["message", "callback_query"]


class Chat(NamedTuple):
    id: int
    type: str  # "private", "group", "supergroup", "channel"


class User(NamedTuple):
    id: int
    language_code: str | None
    full_name: str


class Entity(NamedTuple):
    type: str
    offset: int  # in UTF-16 code units, as the Bot API counts
    length: int


class Message(NamedTuple):
    message_id: int
    chat: Chat
    from_user: User | None = None
    sender_chat_id: int | None = None
    text: str | None = None
    entities: tuple[Entity, ...] = ()
    has_photo: bool = False


class CallbackQuery(NamedTuple):
    id: str
    from_user: User
    data: str | None = None
    message: Message | None = None


class Update(NamedTuple):
    update_id: int
    message: Message | None = None
    callback_query: CallbackQuery | None = None

    @property
    def effective_message(self) -> Message | None:
        if self.message is not None:
            return self.message
        return self.callback_query.message if self.callback_query is not None else None

    @property
    def effective_chat(self) -> Chat | None:
        message = self.effective_message
        return message.chat if message is not None else None

    @property
    def effective_user(self) -> User | None:
        if self.message is not None:
            return self.message.from_user
        return self.callback_query.from_user if self.callback_query is not None else None


class Malformed(ValueError):
    """A field is missing or not of the Bot API's type."""


def _int(value: Any, what: str) -> int:
    if type(value) is not int:  # bool is an int subclass: not an id
        raise Malformed(f"{what} is not an integer")
    return value


def _str(value: Any, what: str) -> str:
    if type(value) is not str:
        raise Malformed(f"{what} is not a string")
    return value


def _opt_str(value: Any, what: str) -> str | None:
    return None if value is None else _str(value, what)


def _object(value: Any, what: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise Malformed(f"{what} is not an object")
    return value


def _user(data: Any) -> User:
    user = _object(data, "from")
    first = _str(user.get("first_name"), "from.first_name")
    last = _opt_str(user.get("last_name"), "from.last_name")
    return User(
        id=_int(user.get("id"), "from.id"),
        language_code=_opt_str(user.get("language_code"), "from.language_code"),
        full_name=f"{first} {last}" if last else first,
    )


def _entities(data: Any) -> tuple[Entity, ...]:
    if data is None:
        return ()
    if type(data) is not list:
        raise Malformed("entities is not an array")
    out = []
    for item in data:
        entity = _object(item, "entity")
        out.append(
            Entity(
                type=_str(entity.get("type"), "entity.type"),
                offset=_int(entity.get("offset"), "entity.offset"),
                length=_int(entity.get("length"), "entity.length"),
            )
        )
    return tuple(out)


def _message(data: Any) -> Message:
    message = _object(data, "message")
    chat = _object(message.get("chat"), "message.chat")
    sender = message.get("from")
    sender_chat = message.get("sender_chat")
    return Message(
        message_id=_int(message.get("message_id"), "message.message_id"),
        chat=Chat(id=_int(chat.get("id"), "chat.id"), type=_str(chat.get("type"), "chat.type")),
        from_user=None if sender is None else _user(sender),
        sender_chat_id=None
        if sender_chat is None
        else _int(_object(sender_chat, "sender_chat").get("id"), "sender_chat.id"),
        text=_opt_str(message.get("text"), "message.text"),
        entities=_entities(message.get("entities")),
        has_photo=bool(message.get("photo")),
    )


def _callback_query(data: Any) -> CallbackQuery:
    query = _object(data, "callback_query")
    message = query.get("message")
    return CallbackQuery(
        id=_str(query.get("id"), "callback_query.id"),
        from_user=_user(query.get("from")),
        data=_opt_str(query.get("data"), "callback_query.data"),
        message=None if message is None else _message(message),
    )


def parse_update(data: Any) -> Update | None:
    """The :class:`Update` of one Bot API update (a decoded JSON object), or None — logged — when it is not a
    message or a callback query, or is malformed."""
    try:
        update_id = _int(_object(data, "update").get("update_id"), "update_id")
        if "message" in data:
            return Update(update_id, message=_message(data["message"]))
        if "callback_query" in data:
            return Update(update_id, callback_query=_callback_query(data["callback_query"]))
    except Malformed as exc:
        log.warning("telegram: an update could not be read (%s); ignored", exc)
        return None
    log.info(
        "telegram: update %s is of a kind not handled (%s); ignored",
        update_id,
        ", ".join(k for k in sorted(data) if k != "update_id"),
    )
    return None


__all__ = ["ALLOWED_UPDATES", "CallbackQuery", "Chat", "Entity", "Message", "Update", "User", "parse_update"]
