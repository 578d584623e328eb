"""/healthz answers for the database (and Redis when configured): 200 when they answer, 503 when not.

The database is PostgreSQL behind a TCP proxy the test can cut (what a network partition or a stopped
server looks like to the replica), then restore."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit

from tests.servers import fresh_pg_url
from tests.webhook.conftest import free_port, webhook, webhook_settings


class Proxy:
    """127.0.0.1:port → upstream; ``cut()`` closes the listener and every connection, ``resume()`` listens
    again on the same port."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.port = free_port()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def resume(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def cut(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in list(self.writers):
            writer.transport.abort()
        self.writers.clear()
        await self.server.wait_closed()


async def health(hook) -> tuple[int, dict]:
    async with hook.http.get(hook.base + "/healthz") as r:
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


def _redis_unavailable() -> str | None:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=2) as s:
            s.sendall(b"PING\r\n")
            return None if s.recv(16).startswith(b"+PONG") else "Redis at 127.0.0.1:6379 did not PONG"
    except OSError as err:
        return f"no Redis at 127.0.0.1:6379: {err}"


async def test_healthz_is_200_when_redis_answers(tg, tmp_path):
    import pytest

    from tests.servers import in_ci

    reason = _redis_unavailable()
    if reason is not None:
        if in_ci():
            pytest.fail(f"CI=true but the Redis test cannot run: {reason}", pytrace=False)
        pytest.skip(reason)
    settings = webhook_settings(
        tg, str(tmp_path / "hook.db"), free_port(), redis_url="redis://127.0.0.1:6379/0"
    )
    async with webhook(settings) as hook:
        assert await health(hook) == (200, {"database": "ok", "redis": "ok"})
