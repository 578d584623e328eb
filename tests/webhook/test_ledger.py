"""bot.storage.webhook.UpdateLedger on SQLite and PostgreSQL: claims, leases, takeover, purge."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from bot.storage import Storage
from bot.storage.webhook import Claim, UpdateLedger

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


async def test_first_claim_is_mine_then_busy_then_done(target):
    store = await Storage.open(target)
    try:
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
    finally:
        await store.close()


async def test_an_expired_lease_is_taken_over_by_exactly_one_replica(target):
    store = await Storage.open(target)
    try:
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
    finally:
        await store.close()


async def test_renewing_keeps_the_lease_and_release_gives_it_back(target):
    store = await Storage.open(target)
    try:
        a = UpdateLedger(store, "telegram:1", owner="a")
        b = UpdateLedger(store, "telegram:1", owner="b")
        assert await a.claim(11, T0) is Claim.MINE
        assert await a.renew(T0 + timedelta(seconds=25)) == 1
        assert await b.claim(11, T0 + timedelta(seconds=40)) is Claim.BUSY  # renewed until 55 s
        assert await b.claim(11, T0 + timedelta(seconds=56)) is Claim.MINE
        assert await b.claim(12, T0) is Claim.MINE
        await b.release(12)
        assert await a.claim(12, T0) is Claim.MINE  # released: handled afresh on redelivery
    finally:
        await store.close()


async def test_purge_forgets_handled_updates_after_a_day(target):
    store = await Storage.open(target)
    try:
        a = UpdateLedger(store, "telegram:1", owner="a")
        for update_id in (1, 2):
            assert await a.claim(update_id, T0) is Claim.MINE
        await a.finish(1, T0)
        assert await a.purge(T0 + timedelta(hours=23)) == 0
        assert await a.purge(T0 + timedelta(hours=24, seconds=1)) == 1  # the done one
        assert await a.state(1) is None and await a.state(2) == "handling"
        assert await a.purge(T0 + timedelta(hours=25)) == 1  # an abandoned claim, a day past its lease
    finally:
        await store.close()
