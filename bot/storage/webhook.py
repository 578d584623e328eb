"""Which Telegram updates the webhook replicas have handled (``webhook_updates``, migration 0007).

Telegram redelivers an update whose POST failed, timed out or was cut, maybe to another replica behind the
same URL. :class:`UpdateLedger` makes each update handled once across every replica of one database:

- :meth:`UpdateLedger.claim` — one upsert: a new update is ours (``MINE``); an update another replica is
  handling under a live lease is ``BUSY`` (answer non-2xx: Telegram tries again later); a handled one is
  ``DONE`` (answer 200, handle nothing); one whose handler's lease expired (the replica died mid-update) is
  taken over by exactly one replica (the conditional ``DO UPDATE … WHERE``).
- :meth:`finish` marks it done (kept :data:`KEEP`: Telegram stops redelivering after a day); :meth:`release`
  gives it back when the handling failed before anything was sent; :meth:`renew` extends the leases of the
  updates this replica is still handling; :meth:`purge` deletes rows past their time.
"""

from __future__ import annotations

import enum
import uuid
from datetime import datetime, timedelta

from bot.storage import Storage, utc_iso

LEASE = timedelta(seconds=30)  # a handler's hold on an update; renewed every LEASE / 3 while it runs
KEEP = timedelta(hours=24)  # how long a handled update id is remembered


class Claim(enum.Enum):
    MINE = "mine"  # handle it now
    DONE = "done"  # handled already (by any replica): answer 200 and do nothing
    BUSY = "busy"  # another handler holds it: answer non-2xx so Telegram tries again later


class UpdateLedger:
    """The ``webhook_updates`` rows of one bot, as seen by one replica (``owner``, random per process)."""

    def __init__(
        self,
        storage: Storage,
        bot: str,
        *,
        owner: str | None = None,
        lease: timedelta = LEASE,
        keep: timedelta = KEEP,
    ) -> None:
        self.storage = storage
        self.bot = bot
        self.owner = owner or uuid.uuid4().hex
        self.lease = lease
        self.keep = keep

    async def claim(self, update_id: int, now: datetime) -> Claim:
        row = await self.storage.fetchone(
            "INSERT INTO webhook_updates (bot, update_id, state, owner, expires_at)"
            " VALUES (?, ?, 'handling', ?, ?)"
            " ON CONFLICT (bot, update_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at"
            " WHERE webhook_updates.state = 'handling' AND webhook_updates.expires_at < ?"
            " RETURNING owner",
            (self.bot, update_id, self.owner, utc_iso(now + self.lease), utc_iso(now)),
        )
        if row is not None:
            return Claim.MINE
        row = await self.storage.fetchone(
            "SELECT state FROM webhook_updates WHERE bot = ? AND update_id = ?", (self.bot, update_id)
        )
        if row is None:  # purged between the two statements: a day old, nothing to handle
            return Claim.DONE
        return Claim.DONE if row[0] == "done" else Claim.BUSY

    async def finish(self, update_id: int, now: datetime) -> None:
        await self.storage.execute(
            "UPDATE webhook_updates SET state = 'done', expires_at = ?"
            " WHERE bot = ? AND update_id = ? AND owner = ?",
            (utc_iso(now + self.keep), self.bot, update_id, self.owner),
        )

    async def release(self, update_id: int) -> None:
        """Forget our claim (the handling failed before a reply): the redelivery handles it afresh."""
        await self.storage.execute(
            "DELETE FROM webhook_updates WHERE bot = ? AND update_id = ? AND owner = ? AND state = 'handling'",
            (self.bot, update_id, self.owner),
        )

    async def renew(self, now: datetime) -> int:
        """Extend the lease of every update this replica is still handling; returns how many."""
        return await self.storage.execute(
            "UPDATE webhook_updates SET expires_at = ? WHERE owner = ? AND state = 'handling'",
            (utc_iso(now + self.lease), self.owner),
        )

    async def purge(self, now: datetime) -> int:
        """Delete handled updates past :data:`KEEP` (and claims abandoned as long); returns how many."""
        return await self.storage.execute(
            "DELETE FROM webhook_updates WHERE bot = ? AND expires_at < ? AND (state = 'done' OR expires_at < ?)",
            (self.bot, utc_iso(now), utc_iso(now - self.keep)),
        )

    async def state(self, update_id: int) -> str | None:
        row = await self.storage.fetchone(
            "SELECT state FROM webhook_updates WHERE bot = ? AND update_id = ?", (self.bot, update_id)
        )
        return str(row[0]) if row else None


__all__ = ["KEEP", "LEASE", "Claim", "UpdateLedger"]
