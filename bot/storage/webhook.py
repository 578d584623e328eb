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

:class:`RedisUpdateLedger` is the same contract on Redis (chosen when ``SIKPAN_REDIS_URL`` is set, so the
database sees no webhook writes): a key per update, ``h:<owner>`` with the lease as its TTL while handled,
``d:<owner>`` with a day's TTL when done; each step is one Lua script, atomic on the server. An expired lease
is simply a missing key: the next claim takes it.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any, Protocol

from bot.limits import redis_client, split_redis_url
from bot.storage import Storage, utc_iso

LEASE = timedelta(seconds=30)  # a handler's hold on an update; renewed every LEASE / 3 while it runs
KEEP = timedelta(hours=24)  # how long a handled update id is remembered


class Claim(enum.Enum):
    MINE = "mine"  # handle it now
    DONE = "done"  # handled already (by any replica): answer 200 and do nothing
    BUSY = "busy"  # another handler holds it: answer non-2xx so Telegram tries again later


class Ledger(Protocol):
    owner: str

    async def claim(self, update_id: int, now: datetime) -> Claim: ...

    async def finish(self, update_id: int, now: datetime) -> None: ...

    async def release(self, update_id: int) -> None: ...

    async def renew(self, now: datetime, update_ids: Collection[int] = ()) -> int: ...

    async def purge(self, now: datetime) -> int: ...

    async def state(self, update_id: int) -> str | None: ...

    async def close(self) -> None: ...


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

    async def renew(self, now: datetime, update_ids: Collection[int] = ()) -> int:
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

    async def close(self) -> None:
        return None  # the storage belongs to the context


_CLAIM = """
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], 'h:' .. ARGV[1], 'PX', ARGV[2])
  return 'mine'
end
if string.sub(v, 1, 2) == 'd:' then return 'done' end
return 'busy'
"""
_FINISH = """
local v = redis.call('GET', KEYS[1])
if (not v) or v == 'h:' .. ARGV[1] then
  redis.call('SET', KEYS[1], 'd:' .. ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == 'h:' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_RENEW = """
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == 'h:' .. ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    n = n + 1
  end
end
return n
"""


class RedisUpdateLedger:
    """:class:`UpdateLedger`'s contract on Redis (``redis.asyncio``, imported only when Redis is configured).

    Times are Redis' own (TTL), so ``now`` is not used: every replica agrees on one clock.
    """

    def __init__(
        self,
        client: Any,
        bot: str,
        *,
        owner: str | None = None,
        lease: timedelta = LEASE,
        keep: timedelta = KEEP,
        prefix: str = "sikpan:webhook:",
    ) -> None:
        self.client = client
        self.bot = bot
        self.owner = owner or uuid.uuid4().hex
        self.lease_ms = max(1, int(lease.total_seconds() * 1000))
        self.keep_ms = max(1, int(keep.total_seconds() * 1000))
        self.prefix = prefix
        self._claim = client.register_script(_CLAIM)
        self._finish = client.register_script(_FINISH)
        self._release = client.register_script(_RELEASE)
        self._renew = client.register_script(_RENEW)

    @classmethod
    def connect(cls, url: str, bot: str, **kwargs: Any) -> RedisUpdateLedger:
        """A ledger on ``SIKPAN_REDIS_URL``: its ``?prefix=`` (ours, not redis-py's) starts the keys."""
        kwargs.setdefault("prefix", split_redis_url(url)[1] + "webhook:")
        return cls(redis_client(url), bot, **kwargs)

    def key(self, update_id: int) -> str:
        return f"{self.prefix}{self.bot}:{update_id}"

    async def claim(self, update_id: int, now: datetime) -> Claim:
        answer = await self._claim(keys=[self.key(update_id)], args=[self.owner, self.lease_ms])
        return Claim(answer.decode() if isinstance(answer, bytes) else str(answer))

    async def finish(self, update_id: int, now: datetime) -> None:
        await self._finish(keys=[self.key(update_id)], args=[self.owner, self.keep_ms])

    async def release(self, update_id: int) -> None:
        await self._release(keys=[self.key(update_id)], args=[self.owner])

    async def renew(self, now: datetime, update_ids: Collection[int] = ()) -> int:
        if not update_ids:
            return 0
        keys = [self.key(u) for u in update_ids]
        return int(await self._renew(keys=keys, args=[self.owner, self.lease_ms]))

    async def purge(self, now: datetime) -> int:
        return 0  # keys expire by themselves

    async def state(self, update_id: int) -> str | None:
        value = await self.client.get(self.key(update_id))
        if value is None:
            return None
        return "done" if bytes(value).startswith(b"d:") else "handling"

    async def close(self) -> None:
        await self.client.aclose()


__all__ = ["KEEP", "LEASE", "Claim", "Ledger", "RedisUpdateLedger", "UpdateLedger"]
