"""Shared readings (issue #34 item 2, migration 0015): a cast its owner shares, named by an unguessable,
revocable token. The token is all a follower of the link has: it names one history row of one user."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.storage import Storage, utc_iso

TOKEN_BYTES = 16  # 128 bits of randomness
# secrets.token_urlsafe(16): 22 characters of base64url — within Telegram's deep-link start parameter
# (1–64 characters of A–Z a–z 0–9 _ -)
TOKEN = re.compile(r"^[A-Za-z0-9_-]{22}$")


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def is_token(text: str) -> bool:
    return TOKEN.match(text) is not None


@dataclass(frozen=True)
class Share:
    token: str
    user_key: str
    seq: int


class ShareStore:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def share(self, user_key: str, seq: int, now: datetime | None = None) -> str:
        """The live token of cast ``seq`` of ``user_key``: the one it has, else a new one (sharing twice gives
        the same link; after a revoke, a new one)."""
        row = await self.storage.fetchone(
            "SELECT token FROM shares WHERE user_key = ? AND seq = ? AND revoked_at IS NULL"
            " ORDER BY created_at LIMIT 1",
            (user_key, seq),
        )
        if row is not None:
            return str(row[0])
        token = new_token()
        await self.storage.execute(
            "INSERT INTO shares (token, user_key, seq, created_at) VALUES (?, ?, ?, ?)",
            (token, user_key, seq, utc_iso(now or datetime.now(UTC))),
        )
        return token

    async def revoke(self, user_key: str, seq: int, now: datetime | None = None) -> int:
        """Revoke every live token of cast ``seq`` of ``user_key``; the number revoked."""
        return await self.storage.execute(
            "UPDATE shares SET revoked_at = ? WHERE user_key = ? AND seq = ? AND revoked_at IS NULL",
            (utc_iso(now or datetime.now(UTC)), user_key, seq),
        )

    async def open(self, token: str) -> Share | None:
        """The cast a live token names, or None (unknown, malformed or revoked)."""
        if not is_token(token):
            return None
        row = await self.storage.fetchone(
            "SELECT token, user_key, seq FROM shares WHERE token = ? AND revoked_at IS NULL", (token,)
        )
        return Share(str(row[0]), str(row[1]), int(row[2])) if row is not None else None


__all__ = ["TOKEN", "Share", "ShareStore", "is_token", "new_token"]
