"""Fixtures of the webhook suite: the fake Telegram, a database on each engine, and the webhook app of
``bot.telegram.run_telegram`` (Settings with ``TELEGRAM_WEBHOOK_URL``) running in the test's loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from bot.config import Settings
from bot.context import AppContext, create_context
from tests.fakes.telegram import FakeTelegram
from tests.servers import store, target

__all__ = ["store", "target"]  # the fixtures of tests.servers: each test once per engine

SECRET = "s3cret-Value_1"
HEADER = "X-Telegram-Bot-Api-Secret-Token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(token="7012345678:AAHfake-TelegramToken_for-tests-0123456") as fake:
        yield fake


def webhook_settings(tg: FakeTelegram, db: str, port: int, **extra: Any) -> Settings:
    return Settings(
        telegram_token=tg.token,
        telegram_api_base_url=tg.base_url,
        db_path=db,
        sqlite_shared=True,  # the tests' processes (or tasks) all open this one file
        lang="ko",
        tz="Asia/Seoul",
        telegram_webhook_url="https://bot.example.org/hook",
        telegram_webhook_secret=SECRET,
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=port,
        telegram_webhook_path="hook",
        telegram_send_rate=1000.0,
        **{"metrics_port": free_port(), **extra},  # /metrics and /healthz on a port of their own
    )


@dataclass
class Hook:
    """A running webhook: its URL, context, stop event and an HTTP session to post with; ``monitor``: the base
    URL of ``/healthz`` and ``/metrics`` (their own listener, or the webhook's when its port was named)."""

    url: str
    base: str
    ctx: AppContext
    stop: asyncio.Event
    http: aiohttp.ClientSession
    monitor: str

    async def post(self, update: dict[str, Any], secret: str | None = SECRET) -> aiohttp.ClientResponse:
        headers = {HEADER: secret} if secret is not None else {}
        async with self.http.post(self.url, json=update, headers=headers) as response:
            await response.read()
            return response


@contextlib.asynccontextmanager
async def webhook(settings: Settings, healthy: bool = True) -> AsyncIterator[Hook]:
    """Run the webhook (and, as ``sikpan run`` does, the listener of /healthz and /metrics) until the block
    ends; waits until it listens (and, if ``healthy``, /healthz is 200)."""
    import bot.telegram as tgmod
    from bot.monitor import run_monitor

    ctx = await create_context(settings)
    stop = asyncio.Event()
    task = asyncio.create_task(tgmod.run_telegram(ctx, stop))
    if not settings.monitor_on_webhook:
        monitor = asyncio.create_task(run_monitor(ctx, stop))
        task = asyncio.ensure_future(asyncio.gather(task, monitor))
    base = f"http://127.0.0.1:{settings.telegram_webhook_port}"
    health = f"http://127.0.0.1:{settings.monitor_port}"
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(200):  # listening, and setWebhook done
                if task.done():
                    task.result()
                state = ctx.webhook_state
                if state is not None and state.webhook_set and not state.stopping:
                    with contextlib.suppress(aiohttp.ClientConnectionError):
                        async with http.get(health + "/healthz") as r:
                            if r.status == 200 or not healthy:
                                break
                await asyncio.sleep(0.05)
            else:
                raise TimeoutError("the webhook did not start")
            yield Hook(base + "/hook", base, ctx, stop, http, health)
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
        await ctx.close()
