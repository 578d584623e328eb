"""Telegram fault scenarios through the fake Bot API and the real python-telegram-bot ``Bot``, on the bot's
transport (``bot.telegram.aiohttprequest.AiohttpRequest``) and on PTB's default (``HTTPXRequest``).

#12.3 a send is retried only when Telegram provably did not perform it: a lost answer or a read timeout
after the request was written is *maybe sent* (``uncertain``) and never sent again.
#12.8 dropped replies are counted and logged at ERROR (a 429 storm outlasting the attempts, a 404/401
refused token) instead of a WARNING or an exception out of the sender.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import pytest
import telegram
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, HTTPXRequest

from bot.telegram.aiohttprequest import AiohttpRequest
from bot.telegram.sender import TelegramSender, request_not_sent
from tests.fakes.telegram import FakeTelegram


@pytest.fixture
async def tg():
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture(params=["aiohttp", "httpx"])
def transport(request: pytest.FixtureRequest) -> str:
    """Each scenario through the bot's transport (``bot.telegram.aiohttprequest``) and PTB's default (httpx)."""
    return str(request.param)


def _request(transport: str, **timeouts: Any) -> BaseRequest:
    kind = AiohttpRequest if transport == "aiohttp" else HTTPXRequest
    return kind(**timeouts)


def _bot(transport: str, base_url: str, token: str, read_timeout: float = 0.5) -> telegram.Bot:
    request = _request(
        transport, read_timeout=read_timeout, write_timeout=2.0, connect_timeout=1.0, pool_timeout=1.0
    )
    return telegram.Bot(token, base_url=base_url, request=request)


def _send_calls(tg: FakeTelegram, chat_id: int) -> list:
    return [c for c in tg.calls if c.method == "sendMessage" and str(c.params.get("chat_id")) == str(chat_id)]


async def test_a_lost_answer_is_uncertain_and_never_produces_a_second_message(transport, tg, caplog):
    tg.lose_response("sendMessage", chat_id=61)  # Telegram sends the message, the answer is lost
    async with _bot(transport, tg.base_url, tg.token) as bot:
        sender = TelegramSender(bot, backoff=0.01)
        with caplog.at_level(logging.ERROR, logger="bot.telegram.sender"):
            outcome = await sender.send(61, "<b>갑자</b> 하루")
        await asyncio.sleep(0.3)
    assert not outcome.ok and outcome.error == "uncertain"
    assert len(tg.sent_to(61)) == 1  # delivered once …
    assert len(_send_calls(tg, 61)) == 1  # … and never requested again
    assert sender.dropped["uncertain"] == 1
    assert any(r.levelno == logging.ERROR and "61" in r.getMessage() for r in caplog.records)


async def test_a_read_timeout_after_the_request_was_written_is_not_resent(transport, tg):
    tg.lose_response("sendMessage", chat_id=62, delay=1.5)  # the answer comes after the client gave up
    async with _bot(transport, tg.base_url, tg.token, read_timeout=0.3) as bot:
        sender = TelegramSender(bot, backoff=0.01)
        outcome = await sender.send(62, "하루")
        await asyncio.sleep(1.6)  # any resend would have arrived by now
    assert outcome.error == "uncertain"
    assert len(_send_calls(tg, 62)) == 1 and len(tg.sent_to(62)) == 1


async def test_an_error_envelope_is_provably_unsent_and_is_retried(transport, tg):
    # a 500 whose body is the Bot API's {"ok": false} envelope: the method was not performed
    tg.fail("sendMessage", 500, "Internal Server Error: restart", chat_id=63, times=2)
    async with _bot(transport, tg.base_url, tg.token) as bot:
        outcome = await TelegramSender(bot, backoff=0.01).send(63, "하루")
    assert outcome.ok
    assert [c.status for c in _send_calls(tg, 63)] == [500, 500, 200]
    assert len(tg.sent_to(63)) == 1


async def test_a_refused_connection_is_retried_then_dropped_at_error(transport, caplog):
    async with FakeTelegram() as down:
        bot = _bot(transport, down.base_url, down.token)
        await bot.initialize()
    await asyncio.sleep(0.1)  # the client has seen its kept-alive connection closed
    try:  # the server is gone now: every connection is refused, so nothing can have been sent
        sender = TelegramSender(bot, max_attempts=3, backoff=0.01, pace=False)
        with caplog.at_level(logging.INFO, logger="bot.telegram.sender"):
            outcome = await sender.send(64, "하루")
    finally:
        await bot.shutdown()
    assert not outcome.ok and outcome.error == "gave_up"
    assert sender.dropped == {"gave_up": 1}
    dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == 1 and dropped[0].levelno == logging.ERROR


async def test_a_429_storm_longer_than_the_attempts_is_counted_and_logged_at_error(transport, tg, caplog):
    tg.rate_limit(1, chat_id=65, times=None)  # a storm: every attempt gets 429 retry_after=1
    async with _bot(transport, tg.base_url, tg.token) as bot:
        sender = TelegramSender(bot, max_attempts=2)
        with caplog.at_level(logging.INFO, logger="bot.telegram.sender"):
            outcome = await sender.send(65, "하루")
    assert outcome.error == "gave_up" and sender.dropped["gave_up"] == 1
    assert [c.status for c in _send_calls(tg, 65)] == [429, 429]
    assert any(r.levelno == logging.ERROR and "65" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("status", [404, 401])
async def test_a_refused_token_on_send_is_handled_counted_and_logged(transport, tg, caplog, status):
    tg.fail("sendMessage", status, "Not Found" if status == 404 else "Unauthorized", chat_id=66)
    async with _bot(transport, tg.base_url, tg.token) as bot:
        sender = TelegramSender(bot)
        with caplog.at_level(logging.ERROR, logger="bot.telegram.sender"):
            outcome = await sender.send(66, "하루")  # used to raise InvalidToken out of the sender
    assert outcome.error == "invalid_token" and sender.dropped["invalid_token"] == 1
    assert len(_send_calls(tg, 66)) == 1
    assert any(r.levelno == logging.ERROR for r in caplog.records)


async def test_a_lone_surrogate_in_a_reply_is_delivered_not_a_crash(transport, tg):
    async with _bot(transport, tg.base_url, tg.token) as bot:
        outcome = await TelegramSender(bot).send(67, "<b>갑자</b> \ud800 \u202e하루")
    assert outcome.ok
    assert tg.sent_to(67)[0].result["text"] == "갑자  하루"


async def test_a_request_that_gets_no_connection_from_the_pool_is_provably_unsent(transport, tg):
    tg.lose_response("sendMessage", chat_id=73, delay=1.0)  # holds the one connection for a second
    request = _request(transport, connection_pool_size=1, pool_timeout=0.2, read_timeout=3.0)
    async with telegram.Bot(tg.token, base_url=tg.base_url, request=request) as bot:
        first = asyncio.create_task(bot.send_message(73, "first"))
        await tg.wait_sent(73)
        with pytest.raises(TimedOut) as caught:
            await bot.send_message(74, "second")
        with contextlib.suppress(TimedOut, NetworkError):
            await first
    assert request_not_sent(caught.value)
    assert tg.sent_to(74) == []  # never reached the server


async def test_a_read_timeout_is_maybe_sent_and_a_refused_connection_is_not(transport, tg):
    tg.lose_response("sendMessage", chat_id=75, delay=1.0)
    async with _bot(transport, tg.base_url, tg.token, read_timeout=0.2) as bot:
        with pytest.raises(TimedOut) as late:
            await bot.send_message(75, "late")
    assert not request_not_sent(late.value) and len(tg.sent_to(75)) == 1
    async with FakeTelegram() as gone:
        url, token = gone.base_url, gone.token
    request = _request(transport, connect_timeout=1.0)
    bot = telegram.Bot(token, base_url=url, request=request)
    await request.initialize()  # no getMe: the server is gone
    try:
        with pytest.raises(NetworkError) as refused:
            await bot.send_message(76, "nobody there")
    finally:
        await request.shutdown()
    assert request_not_sent(refused.value)  # no connection could be made


async def test_the_environment_s_proxy_is_used_unless_no_proxy_names_the_host(
    transport, tg, monkeypatch, tmp_path
):
    """``HTTP_PROXY`` routes the requests through the proxy (absolute URIs, as a forward proxy receives
    them), ``NO_PROXY`` naming the host sends them directly."""
    from aiohttp import ClientSession, web

    seen: list[str] = []

    async def forward(request: web.Request) -> web.Response:  # a minimal forward proxy
        seen.append(str(request.url))
        async with ClientSession() as session:
            async with session.request(
                request.method, str(request.url), data=await request.read(), headers=request.headers
            ) as upstream:
                return web.Response(status=upstream.status, body=await upstream.read(), headers={
                    "Content-Type": upstream.headers.get("Content-Type", "application/json")})  # fmt: skip

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", forward)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    for name in (
        "NO_PROXY",
        "no_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
        "http_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    try:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
        async with telegram.Bot(
            tg.token, base_url=tg.base_url, request=_request(transport, connection_pool_size=4)
        ) as bot:
            await bot.send_message(73, "one")
            await bot.send_message(73, "two")
        assert [u.rsplit("/", 1)[1] for u in seen] == ["getMe", "sendMessage", "sendMessage"]
        assert all(u.startswith(tg.base_url) for u in seen)
        seen.clear()
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        async with telegram.Bot(
            tg.token, base_url=tg.base_url, request=_request(transport, connection_pool_size=4)
        ) as bot:
            await bot.send_message(73, "three")
        assert seen == []  # NO_PROXY: straight to the API
        assert [c.params["text"] for c in tg.sent_to(73)] == ["one", "two", "three"]
    finally:
        await runner.cleanup()
