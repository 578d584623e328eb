"""Who a message is from, as a storage key part: shared platform identities are keyed per chat.

Telegram posts some messages under one shared account for everybody:

- ``1087968824`` "GroupAnonymousBot": an admin posting anonymously as the group;
- ``136817688`` "Channel_Bot": a message sent on behalf of a channel (``sender_chat`` is the channel);
- ``777000``: Telegram's service account (channel posts forwarded to a linked discussion group).

Keyed by that account alone they would be one user across every group (group 2's ``/settings`` showing
group 1's data). :func:`telegram_user_id` keys them per sending chat instead: ``1087968824@-100123``.
"""

from __future__ import annotations

from typing import Final

GROUP_ANONYMOUS_BOT: Final = 1087968824
CHANNEL_BOT: Final = 136817688
SERVICE_ACCOUNT: Final = 777000
SHARED_TELEGRAM_SENDERS: Final = frozenset({GROUP_ANONYMOUS_BOT, CHANNEL_BOT, SERVICE_ACCOUNT})


def telegram_user_id(user_id: int | None, chat_id: int, sender_chat_id: int | None = None) -> str:
    """The user part of the storage key of a Telegram message's sender."""
    if user_id is None:
        return str(sender_chat_id if sender_chat_id is not None else chat_id)
    if user_id in SHARED_TELEGRAM_SENDERS:
        return f"{user_id}@{sender_chat_id if sender_chat_id is not None else chat_id}"
    return str(user_id)


__all__ = [
    "CHANNEL_BOT",
    "GROUP_ANONYMOUS_BOT",
    "SERVICE_ACCOUNT",
    "SHARED_TELEGRAM_SENDERS",
    "telegram_user_id",
]
