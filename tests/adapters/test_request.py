"""The aiohttp transport of python-telegram-bot (``bot.telegram.request.AiohttpRequest``) against the fake Bot API.

What the sender relies on (bot/sending.py, docs/reliability.md): parameters and files arrive as the Bot API
defines them; a request that never got a connection is ``TimedOut`` *from* a cause that
``request_not_sent`` recognises (so it may be retried), one whose answer did not come in time is not.
The lost-answer, read-timeout, refused-connection, 429 and 401/404 scenarios run through this transport in
``tests/reliability/test_telegram_faults.py``.
"""

from __future__ import annotations

import asyncio

import pytest
import telegram
from telegram.error import NetworkError, TimedOut

from bot.config import Settings
from bot.context import create_context
from bot.sending import request_not_sent
from bot.telegram import build_application
from bot.telegram.request import AiohttpRequest
from tests.fakes.telegram import FakeTelegram


def _png() -> bytes:
    """A real 8×8 PNG (the fake Bot API decodes uploads as Telegram does)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, format="PNG")
    return out.getvalue()


PNG_8X8 = _png()


async def test_parameters_arrive_as_json_objects_and_text_unchanged(tg: FakeTelegram) -> None:
    async with telegram.Bot(tg.token, base_url=tg.base_url, request=AiohttpRequest()) as bot:
        await bot.set_my_commands([telegram.BotCommand("cast", "점 치기")], language_code="ko")
        markup = telegram.InlineKeyboardMarkup([[telegram.InlineKeyboardButton("解", callback_data="p:1")]])
        message = await bot.send_message(71, "<b>甲子</b> 하루 😀", parse_mode="HTML", reply_markup=markup)
    assert tg.commands[('{"type": "default"}', "ko")] == [{"command": "cast", "description": "점 치기"}]
    call = tg.sent_to(71)[0]
    assert call.params["text"] == "<b>甲子</b> 하루 😀"
    assert call.params["reply_markup"] == {"inline_keyboard": [[{"text": "解", "callback_data": "p:1"}]]}
    assert message.text == "甲子 하루 😀" and message.chat.id == 71


async def test_a_photo_is_uploaded_as_multipart(tg: FakeTelegram) -> None:
    async with telegram.Bot(tg.token, base_url=tg.base_url, request=AiohttpRequest()) as bot:
        await bot.send_photo(72, PNG_8X8, caption="<i>盤</i>", parse_mode="HTML")
    call = next(c for c in tg.calls if c.method == "sendPhoto")
    assert call.params["chat_id"] == 72 and call.params["caption"] == "<i>盤</i>"
    assert list(call.files.values()) == [PNG_8X8]


async def test_a_request_that_gets_no_connection_from_the_pool_is_provably_unsent(tg: FakeTelegram) -> None:
    tg.lose_response("sendMessage", chat_id=73, delay=1.0)  # holds the one connection for a second
    request = AiohttpRequest(connection_pool_size=1, pool_timeout=0.2, read_timeout=3.0)
    async with telegram.Bot(tg.token, base_url=tg.base_url, request=request) as bot:
        first = asyncio.create_task(bot.send_message(73, "first"))
        await tg.wait_sent(73)
        with pytest.raises(TimedOut) as caught:
            await bot.send_message(74, "second")
        await first
    assert request_not_sent(caught.value)
    assert tg.sent_to(74) == []  # never reached the server


async def test_a_read_timeout_is_maybe_sent_and_a_refused_connection_is_not(tg: FakeTelegram) -> None:
    tg.lose_response("sendMessage", chat_id=75, delay=1.0)
    async with telegram.Bot(tg.token, base_url=tg.base_url, request=AiohttpRequest(read_timeout=0.2)) as bot:
        with pytest.raises(TimedOut) as late:
            await bot.send_message(75, "late")
    assert not request_not_sent(late.value) and len(tg.sent_to(75)) == 1

    async with FakeTelegram() as gone:
        url, token = gone.base_url, gone.token
    request = AiohttpRequest(connect_timeout=1.0)
    bot = telegram.Bot(token, base_url=url, request=request)
    await request.initialize()  # no getMe: the server is gone
    try:
        with pytest.raises(NetworkError) as refused:
            await bot.send_message(76, "nobody there")
    finally:
        await request.shutdown()
    assert not isinstance(refused.value, TimedOut) and request_not_sent(refused.value)


async def test_the_bot_sends_through_aiohttp_and_polls_on_its_own_connection(tmp_path) -> None:
    ctx = await create_context(Settings(db_path=str(tmp_path / "x.db")))
    try:
        app = build_application(
            ctx, "7000000001:AAtest-token-not-a-real-one-0000000", "http://127.0.0.1:9/bot"
        )
    finally:
        await ctx.close()
    assert isinstance(app.bot.request, AiohttpRequest)
    updates = app.bot._request[0]  # PTB keeps (getUpdates request, request)
    assert isinstance(updates, AiohttpRequest) and updates is not app.bot.request


async def test_the_environment_s_proxy_is_used_and_read_once(tg: FakeTelegram, monkeypatch, tmp_path) -> None:
    """``HTTP_PROXY`` routes the requests through the proxy (absolute URIs, as a forward proxy receives them),
    ``NO_PROXY`` naming the host sends them directly; the environment is read once per origin."""
    from aiohttp import ClientSession, web

    from bot.telegram import request as request_module

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
    reads: list[str] = []
    real = request_module._env_for
    monkeypatch.setattr(request_module, "_env_for", lambda url: reads.append(url) or real(url))
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    try:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
        async with telegram.Bot(tg.token, base_url=tg.base_url, request=AiohttpRequest()) as bot:
            await bot.send_message(73, "one")
            await bot.send_message(73, "two")
        assert [u.rsplit("/", 1)[1] for u in seen] == ["getMe", "sendMessage", "sendMessage"]
        assert all(u.startswith(tg.base_url) for u in seen)
        assert len(reads) == 1  # one origin, read once
        seen.clear()
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        async with telegram.Bot(tg.token, base_url=tg.base_url, request=AiohttpRequest()) as bot:
            await bot.send_message(73, "three")
        assert seen == []  # NO_PROXY: straight to the API
        assert [c.params["text"] for c in tg.sent_to(73)] == ["one", "two", "three"]
    finally:
        await runner.cleanup()
