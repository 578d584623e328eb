"""bot.storage.webhook.UpdateLedger on SQLite and PostgreSQL: claims, leases, takeover, purge."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.storage.webhook import Claim, UpdateLedger
from tests.servers import REDIS_URL, require_redis

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def test_first_claim_is_mine_then_busy_then_done(store):
    a = UpdateLedger(store, "telegram:1", owner="a")
    b = UpdateLedger(store, "telegram:1", owner="b")
    assert await a.claim(7, T0) is Claim.MINE
    assert await b.claim(7, T0 + timedelta(seconds=5)) is Claim.BUSY  # a's lease (30 s) holds
    assert await a.claim(7, T0 + timedelta(seconds=5)) is Claim.BUSY  # a redelivery to a itself too
    await a.finish(7, T0 + timedelta(seconds=6))
    assert await b.claim(7, T0 + timedelta(hours=2)) is Claim.DONE
    assert await a.state(7) == "done"
    other_bot = UpdateLedger(store, "telegram:2", owner="c")
    assert await other_bot.claim(7, T0) is Claim.MINE  # update ids are per bot


async def test_an_expired_lease_is_taken_over_by_exactly_one_replica(store):
    dead = UpdateLedger(store, "telegram:1", owner="dead")
    assert await dead.claim(9, T0) is Claim.MINE
    later = T0 + timedelta(seconds=31)
    replicas = [UpdateLedger(store, "telegram:1", owner=f"r{i}") for i in range(6)]
    claims = await asyncio.gather(*(r.claim(9, later) for r in replicas))
    assert claims.count(Claim.MINE) == 1 and claims.count(Claim.BUSY) == 5
    winner = replicas[claims.index(Claim.MINE)]
    await dead.finish(9, later)  # the old owner (not dead after all) cannot mark it: not its row
    assert await dead.state(9) == "handling"
    await winner.finish(9, later)
    assert await dead.state(9) == "done"


async def test_renewing_keeps_the_lease_and_release_gives_it_back(store):
    a = UpdateLedger(store, "telegram:1", owner="a")
    b = UpdateLedger(store, "telegram:1", owner="b")
    assert await a.claim(11, T0) is Claim.MINE
    assert await a.renew(T0 + timedelta(seconds=25)) == 1
    assert await b.claim(11, T0 + timedelta(seconds=40)) is Claim.BUSY  # renewed until 55 s
    assert await b.claim(11, T0 + timedelta(seconds=56)) is Claim.MINE
    assert await b.claim(12, T0) is Claim.MINE
    await b.release(12)
    assert await a.claim(12, T0) is Claim.MINE  # released: handled afresh on redelivery


async def test_purge_forgets_handled_updates_after_a_day(store):
    a = UpdateLedger(store, "telegram:1", owner="a")
    for update_id in (1, 2):
        assert await a.claim(update_id, T0) is Claim.MINE
    await a.finish(1, T0)
    assert await a.purge(T0 + timedelta(hours=23)) == 0
    assert await a.purge(T0 + timedelta(hours=24, seconds=1)) == 1  # the done one
    assert await a.state(1) is None and await a.state(2) == "handling"
    assert await a.purge(T0 + timedelta(hours=25)) == 1  # an abandoned claim, a day past its lease


# ---- the same contract on Redis (SIKPAN_REDIS_URL) -------------------------------------------------------


def _redis_ledgers(*owners: str, lease: float = 30.0):
    import uuid

    from bot.storage.webhook import RedisUpdateLedger

    require_redis()
    bot = "telegram:" + uuid.uuid4().hex  # keys of this test only
    return [
        RedisUpdateLedger.connect(REDIS_URL, bot, owner=o, lease=timedelta(seconds=lease)) for o in owners
    ]


async def test_redis_first_claim_is_mine_then_busy_then_done():
    a, b = _redis_ledgers("a", "b")
    try:
        assert await a.claim(7, T0) is Claim.MINE
        assert await b.claim(7, T0) is Claim.BUSY
        await a.finish(7, T0)
        assert await b.claim(7, T0) is Claim.DONE
        assert await a.state(7) == "done"
        ttl = await a.client.pttl(a.key(7))
        assert 23 * 3600 * 1000 < ttl <= 24 * 3600 * 1000  # remembered a day, then gone by itself
    finally:
        await a.client.delete(a.key(7))
        await a.close()
        await b.close()


async def test_redis_an_expired_lease_is_taken_over_by_exactly_one_replica():
    dead, *replicas = _redis_ledgers("dead", *(f"r{i}" for i in range(6)), lease=0.3)
    try:
        assert await dead.claim(9, T0) is Claim.MINE
        assert await replicas[0].claim(9, T0) is Claim.BUSY
        await asyncio.sleep(0.45)  # the lease (Redis' TTL) runs out: the replica died
        claims = await asyncio.gather(*(r.claim(9, T0) for r in replicas))
        assert claims.count(Claim.MINE) == 1 and claims.count(Claim.BUSY) == 5
        winner = replicas[claims.index(Claim.MINE)]
        await dead.finish(9, T0)  # not its key any more: nothing changes
        assert await dead.state(9) == "handling"
        await winner.finish(9, T0)
        assert await dead.state(9) == "done"
        await dead.client.delete(dead.key(9))
    finally:
        for ledger in (dead, *replicas):
            await ledger.close()


async def test_redis_renew_keeps_the_lease_and_release_gives_it_back():
    a, b = _redis_ledgers("a", "b", lease=0.4)
    try:
        assert await a.claim(11, T0) is Claim.MINE
        for _ in range(3):
            await asyncio.sleep(0.2)
            assert await a.renew(T0, {11}) == 1
        assert await b.claim(11, T0) is Claim.BUSY  # 0.6 s later, renewed: still a's
        assert await b.renew(T0, {11}) == 0  # only the owner renews
        assert await b.claim(12, T0) is Claim.MINE
        await b.release(12)
        assert await a.claim(12, T0) is Claim.MINE
        await a.client.delete(a.key(11), a.key(12))
    finally:
        await a.close()
        await b.close()
