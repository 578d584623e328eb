"""Buttons the server can trust (issue 36 item 2): every button's data carries a seal.

A button's data (Telegram ``callback_data``, Discord ``custom_id``) comes back from the client, and a client can
send any data (Discord custom_ids are client-supplied; Telegram is believed to refuse data not on the message,
but the server does not rely on it). So the data the bot puts on a button — ``p:<owner>:<number>:<page>``,
``s:<option>=<value>`` … — is sealed: ``<data>|<seal>``, where the seal is 16 characters (96 bits, base64url)
of an HMAC-SHA-256 over the platform, the chat the message was sent in, the audience and the data, keyed by
the server's button key (``SIKPAN_BUTTON_SECRET``, or a key generated once and kept in the database:
``Storage.server_secret``). The audience is ``*`` for a message everyone in the chat reads, else the user id of
the one person who reads it (a private chat, an ephemeral reply, a ``/settings`` message: its owner). So a
button is valid only in the chat it was sent in, for the data it names, and — when it was sent to one person
— only when that person presses it.

:meth:`ButtonSeal.open` says which: :data:`PUBLIC` (sealed for everyone in this chat), :data:`OWN` (sealed for
the presser alone), :data:`LEGACY` (no seal: a button sent before seals; the adapters accept it only where the
owner it names presses it) or :data:`FORGED` (a seal that does not hold here: another chat, another presser,
changed data — the adapters answer "this button has expired" and show nothing).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from typing import Final, Literal

DATA_LIMIT: Final = 64  # bytes: Telegram's callback_data (Discord's custom_id allows 100)
SEAL_CHARS: Final = 16  # base64url characters of the HMAC kept (96 bits)
SEPARATOR: Final = "|"
# what the data inside may take: the whole data, seal included, fits Telegram's 64 bytes
INNER_LIMIT: Final = DATA_LIMIT - len(SEPARATOR) - SEAL_CHARS
_SEAL_BYTES: Final = SEAL_CHARS * 3 // 4  # the HMAC's bytes those characters write
EVERYONE: Final = "*"  # the audience of a message everyone in the chat reads
KEY_BYTES: Final = 32

Status = Literal["public", "own", "legacy", "forged"]
PUBLIC: Final[Status] = "public"
OWN: Final[Status] = "own"
LEGACY: Final[Status] = "legacy"
FORGED: Final[Status] = "forged"
_SEAL = re.compile(rf"^[A-Za-z0-9_-]{{{SEAL_CHARS}}}$")


@dataclass(frozen=True)
class Opened:
    """What a pressed button's data turned out to be: its ``data`` without the seal, and its ``status``."""

    data: str
    status: Status

    @property
    def valid(self) -> bool:
        """Sealed by this server for this chat (and this presser, if it was sent to one person)."""
        return self.status in (PUBLIC, OWN)


@dataclass(frozen=True)
class ButtonSeal:
    """Seals and opens button data with one key (``bytes``, never printed)."""

    key: bytes = field(repr=False)

    @classmethod
    def random(cls) -> ButtonSeal:
        """A seal with a fresh key (a process of its own: tests, a context built without a database key)."""
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def from_secret(cls, secret: str) -> ButtonSeal:
        """A seal keyed by an operator's secret (any text; hashed to a key)."""
        return cls(hashlib.sha256(b"sikpan buttons\0" + secret.encode()).digest())

    def _mac(self, platform: str, chat_id: str, audience: str, data: str) -> str:
        """The first :data:`SEAL_CHARS` base64url characters of the HMAC: those of its first 12 bytes (base64
        writes 3 bytes as 4 characters). ``hmac.digest`` is the one-shot C HMAC, the same digest as
        ``hmac.new(…).digest()`` without its Python object: ≈ 5.7 → 3.5 µs a button (a ``/cast now`` reply
        seals 19)."""
        message = "\x1f".join((platform, chat_id, audience, data)).encode()
        digest = hmac.digest(self.key, message, hashlib.sha256)
        return base64.urlsafe_b64encode(digest[:_SEAL_BYTES]).decode()

    def seal(self, platform: str, chat_id: str, data: str, audience: str = EVERYONE) -> str:
        """``data`` sealed for ``chat_id`` of ``platform`` and ``audience`` (``*`` or one user id)."""
        return f"{data}{SEPARATOR}{self._mac(platform, chat_id, audience, data)}"

    def open(self, platform: str, chat_id: str, presser: str, raw: str) -> Opened:
        """Check the button data ``raw`` pressed by ``presser`` in ``chat_id``."""
        data, sep, mac = raw.rpartition(SEPARATOR)
        if not sep:
            return Opened(raw, LEGACY)
        if not _SEAL.match(mac):
            return Opened(data, FORGED)
        for audience, status in ((EVERYONE, PUBLIC), (presser, OWN)):
            if hmac.compare_digest(mac, self._mac(platform, chat_id, audience, data)):
                return Opened(data, status)
        return Opened(data, FORGED)


def unsealed(raw: str) -> str:
    """The data of a sealed button without its seal (nothing checked: for reading, never for trusting)."""
    data, sep, _ = raw.rpartition(SEPARATOR)
    return data if sep else raw


__all__ = [
    "DATA_LIMIT",
    "EVERYONE",
    "FORGED",
    "INNER_LIMIT",
    "LEGACY",
    "OWN",
    "PUBLIC",
    "ButtonSeal",
    "Opened",
    "unsealed",
]
