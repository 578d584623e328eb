"""/healthz answers for the database (and Redis when configured): 200 when they answer, 503 when not.

The database is PostgreSQL behind a TCP proxy the test can cut (what a network partition or a stopped
server looks like to the replica), then restore."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit, urlunsplit

from tests.fakes.proxy import Proxy
from tests.servers import fresh_pg_url
from tests.webhook.conftest import free_port, webhook, webhook_settings


async def health(hook) -> tuple[int, dict]:
    async with hook.http.get(hook.monitor + "/healthz") as r:
        return r.status, await r.json()


async def test_healthz_is_503_while_the_database_is_down(tg):
    with fresh_pg_url() as url:
        parts = urlsplit(url)
        proxy = Proxy(parts.hostname or "127.0.0.1", parts.port or 5432)
        await proxy.resume()
        via_proxy = urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{proxy.port}"))
        async with webhook(webhook_settings(tg, via_proxy, free_port())) as hook:
            assert await health(hook) == (200, {"database": "ok"})
            await proxy.cut()
            status, report = await health(hook)
            assert status == 503 and report["database"].startswith("down"), report
            # an update meanwhile is not lost: 503, so Telegram redelivers it
            async with hook.http.post(
                hook.url,
                json=tg.make_update("/start", chat_id=61),
                headers={"X-Telegram-Bot-Api-Secret-Token": "s3cret-Value_1"},
            ) as r:
                assert r.status == 503
            await proxy.resume()
            for _ in range(100):  # the pool reconnects
                status, report = await health(hook)
                if status == 200:
                    break
                await asyncio.sleep(0.1)
            assert (status, report) == (200, {"database": "ok"})
            await proxy.cut()  # let the webhook stop with the database gone: it still exits
        # (the context manager waited for run_telegram to end)


async def test_healthz_is_503_when_redis_does_not_answer(tg, tmp_path):
    dead_port = free_port()  # nothing listens there
    settings = webhook_settings(
        tg, str(tmp_path / "hook.db"), free_port(), redis_url=f"redis://127.0.0.1:{dead_port}/0"
    )
    async with webhook(settings, healthy=False) as hook:
        status, report = await health(hook)
        assert status == 503
        assert report["database"] == "ok" and report["redis"].startswith("down"), report


async def test_healthz_is_200_when_redis_answers(tg, tmp_path):
    """With a ``?prefix=`` (ours: redis-py refuses unknown URL arguments) both the check and the update
    ledger connect, and the ledger's keys start with the prefix."""
    import redis.asyncio as aioredis

    from tests.servers import REDIS_URL, fresh_redis_url

    with fresh_redis_url() as url:
        settings = webhook_settings(tg, str(tmp_path / "hook.db"), free_port(), redis_url=url)
        async with webhook(settings) as hook:
            assert await health(hook) == (200, {"database": "ok", "redis": "ok"})
            assert (await hook.post(tg.make_update("/start", chat_id=62))).status == 200
            assert len(tg.sent_to(62)) == 1
            prefix = url.split("prefix=")[1]
            client = aioredis.Redis.from_url(REDIS_URL)
            try:
                keys = [k async for k in client.scan_iter(match=f"{prefix}webhook:*")]
            finally:
                await client.aclose()
            assert len(keys) == 1, keys
