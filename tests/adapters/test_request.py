"""The aiohttp transport of python-telegram-bot (``bot.telegram.request.AiohttpRequest``) against the fake Bot API.

What the sender relies on (bot/sending.py, docs/reliability.md): parameters and files arrive as the Bot API
defines them; a request that never got a connection is ``TimedOut`` *from* a cause that
``request_not_sent`` recognises (so it may be retried), one whose answer did not come in time is not.
The lost-answer, read-timeout, refused-connection, 429 and 401/404 scenarios run through this transport in
``tests/reliability/test_telegram_faults.py``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import telegram
from telegram.error import NetworkError, TelegramError, TimedOut
from telegram.request import BaseRequest

from bot.config import Settings
from bot.context import create_context
from bot.sending import NotSent, request_not_sent
from bot.telegram import build_application
from bot.telegram.request import AiohttpRequest, api_answer, api_parameters
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
    assert isinstance(refused.value.__cause__, NotSent)  # the wire's: no connection could be made


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


# ------------------------------------------------------------------ the direct path (api_call), PTB as the oracle
class _Answers(BaseRequest):
    """A ``BaseRequest`` answering every request with a given (status, body): PTB's own ``post`` maps it."""

    def __init__(self, code: int, payload: bytes) -> None:
        self.answer = (code, payload)

    @property
    def read_timeout(self) -> float | None:
        return None

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        return self.answer


ANSWERS = [
    (200, b'{"ok": true, "result": {"message_id": 5, "text": "\xed\x95\x9c"}}'),
    (200, b'{"ok": true, "result": true}'),
    (200, b"<html>not json</html>"),
    (400, b'{"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}'),
    (400, b'{"ok": false, "error_code": 400, "description": "Bad Request: group chat was upgraded",'
          b' "parameters": {"migrate_to_chat_id": -1001234}}'),
    (400, b'{"ok": false, "error_code": 400, "description": "x", "parameters": {"other": 1}}'),
    (401, b'{"ok": false, "error_code": 401, "description": "Unauthorized"}'),
    (403, b'{"ok": false, "error_code": 403, "description": "Forbidden: bot was blocked by the user"}'),
    (404, b'{"ok": false, "error_code": 404, "description": "Not Found"}'),
    (409, b'{"ok": false, "error_code": 409, "description": "Conflict: terminated by other getUpdates"}'),
    (429, b'{"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 3",'
          b' "parameters": {"retry_after": 3}}'),
    (429, b'{"ok": false, "error_code": 429, "description": "Too Many Requests"}'),
    (500, b'{"ok": false, "error_code": 500, "description": "Internal Server Error"}'),
    (502, b"<html><body>502 Bad Gateway</body></html>"),
    (599, b"{}"),
]  # fmt: skip


def _described(exc: BaseException) -> tuple[Any, ...]:
    """An exception as the sender reads it: type, message, ``retry_after``, ``new_chat_id``, kind of cause."""
    cause = exc.__cause__
    return (
        type(exc),
        str(exc),
        getattr(exc, "_retry_after", None),
        getattr(exc, "new_chat_id", None),
        None if cause is None else type(cause),
    )


@pytest.mark.parametrize(("code", "payload"), ANSWERS)
async def test_an_answer_is_mapped_as_python_telegram_bot_maps_it(code: int, payload: bytes) -> None:
    """``api_answer`` against PTB's own ``BaseRequest.post`` for the same answer: the same result, or the same
    exception (type, message, ``retry_after``, ``new_chat_id``, the kind of cause ``request_not_sent`` reads)."""
    try:
        theirs: Any = ("result", await _Answers(code, payload).post("http://x/botT/sendMessage"))
    except TelegramError as exc:
        theirs = _described(exc)
    try:
        mine: Any = ("result", api_answer(code, payload))
    except TelegramError as exc:
        mine = _described(exc)
        if code in (500, 502):  # the Bot API's error envelope: not performed; a proxy's page: maybe
            assert request_not_sent(exc) == (code == 500)
    assert mine == theirs


# Successful answers of a send as the Bot API writes them (compact, ``message_id`` first) and as other
# writers might (spaces, another order): ``sent_id`` reads the id off the head only in the first shape.
SENT_ANSWERS = [
    (b'{"ok":true,"result":{"message_id":42,"from":{"id":1,"is_bot":true,"first_name":"b"},'
     b'"chat":{"id":7,"type":"private"},"date":1,"text":"\\"message_id\\": 9",'
     b'"entities":[{"offset":0,"length":1,"type":"bold"}]}}', {"message_id": 42}),
    (b'{ "ok" : true , "result" : { "message_id" : 1002 , "date": 1}}', {"message_id": 1002}),
    (b'{"ok":true,"result":{"message_id":3}}', {"message_id": 3}),
    (b'{"ok":true,"result":{"date":1,"message_id":8}}', {"date": 1, "message_id": 8}),  # not first: read whole
    (b'{"ok":true,"result":true}', True),  # not a Message: read whole
    (b'{"result":{"message_id":4},"ok":true}', {"message_id": 4}),  # another order: read whole
]  # fmt: skip


@pytest.mark.parametrize(("code", "payload"), ANSWERS)
def test_sent_id_maps_every_answer_as_before_but_a_sent_messages_result(code: int, payload: bytes) -> None:
    """With ``sent_id`` every answer gives what it gives without (the same result or exception), except
    that a Message's result is only its ``message_id``."""

    def answer(**options: Any) -> Any:
        try:
            return ("result", api_answer(code, payload, **options))
        except TelegramError as exc:
            return _described(exc)

    whole = answer()
    if whole[0] == "result" and isinstance(whole[1], dict) and "message_id" in whole[1]:
        assert answer(sent_id=True) == ("result", {"message_id": whole[1]["message_id"]})
    else:
        assert answer(sent_id=True) == whole


@pytest.mark.parametrize(("payload", "expected"), SENT_ANSWERS)
def test_sent_id_reads_the_id_off_the_head_of_a_bot_api_answer(payload: bytes, expected: Any) -> None:
    whole = api_answer(200, payload)
    got = api_answer(200, payload, sent_id=True)
    assert got == expected
    if isinstance(whole, dict) and list(whole)[:1] != ["message_id"]:
        assert got == whole  # read whole: the head is not the Bot API's
    elif isinstance(whole, dict):
        assert got == {"message_id": whole["message_id"]}


def _parameter_cases() -> list[dict[str, Any]]:
    from datetime import UTC, datetime

    from telegram import BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, InputMediaPhoto
    from telegram.constants import ParseMode

    markup = InlineKeyboardMarkup([[InlineKeyboardButton("解", callback_data="p:1")]])
    return [
        {"chat_id": 1, "text": "<b>甲</b>", "parse_mode": "HTML", "link_preview_options": {"is_disabled": True},
         "reply_parameters": None, "reply_markup": {"inline_keyboard": [[{"text": "盤", "callback_data": "p"}]]}},
        {"chat_id": -100, "text": "x", "parse_mode": ParseMode.HTML, "reply_markup": markup, "show_alert": False},
        {"commands": [BotCommand("cast", "점")], "language_code": "ko", "scope": None},
        {"allowed_updates": ("message", "callback_query"), "offset": 3, "timeout": 10, "ratio": 0.5},
        {"chat_id": 1, "until_date": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "ids": [1, 2, None]},
        {"chat_id": 1, "photo": InputFile(PNG_8X8, filename="chart.png"), "caption": "盤"},
        {"chat_id": 1, "message_id": 2, "media": InputMediaPhoto(
            InputFile(PNG_8X8, filename="chart.png", attach=True), caption="<i>盤</i>", parse_mode="HTML")},
    ]  # fmt: skip


@pytest.mark.parametrize("index", range(7))
def test_parameters_are_what_python_telegram_bot_makes_of_them(index: int) -> None:
    """``api_parameters`` against ``RequestData([RequestParameter.from_input(…)])`` (what ``Bot`` builds):
    the same JSON values (as they go on the wire) and the same files under the same part names."""
    from telegram.request import RequestData
    from telegram.request._requestparameter import RequestParameter

    params = _parameter_cases()[index]
    data = RequestData([RequestParameter.from_input(k, v) for k, v in params.items() if v is not None])
    values, files = api_parameters(params)
    assert json.dumps(values, ensure_ascii=False) == json.dumps(data.parameters, ensure_ascii=False)
    assert files == (data.multipart_data if data.contains_files else None)


class _Capture:
    """A server recording each request's method, path, headers and body; answers ``{"ok": true, …}``."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []

    async def __aenter__(self) -> str:
        from aiohttp import web

        async def record(request: web.Request) -> web.Response:
            body = await request.read()
            self.requests.append((request.method, request.path, dict(request.headers), body))
            method = request.path.rsplit("/", 1)[1]
            result: Any = {"message_id": 1, "date": 0, "chat": {"id": 1, "type": "private"}}
            if method == "getMe":
                result = {"id": 1, "is_bot": True, "first_name": "B", "username": "b_bot"}
            elif method.startswith("set"):
                result = True
            return web.json_response({"ok": True, "result": result})

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", record)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return f"http://127.0.0.1:{port}/bot"

    async def __aexit__(self, *exc: object) -> None:
        await self.runner.cleanup()


def _wire(request: tuple[str, str, dict[str, str], bytes]) -> Any:
    """A request as the server reads it: method, path, the headers that matter, the parameters (a JSON body
    parsed; a multipart body as its parts: name, filename, content type, bytes)."""
    import email.parser
    import email.policy

    method, path, headers, body = request
    kept = {k.lower(): v for k, v in headers.items() if k.lower() not in ("content-length", "host")}
    ctype = kept.pop("content-type", "")
    if ctype == "application/json":
        return method, path, kept, ctype, json.loads(body)
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {ctype}\r\n\r\n".encode() + body
    )
    parts = sorted(
        (p.get_param("name", header="content-disposition"), p.get_filename(), p.get_content_type(),
         p.get_payload(decode=True) if p.get_filename() else _field(p.get_payload(decode=True)))
        for p in message.iter_parts()
    )  # fmt: skip
    return method, path, kept, ctype.split(";")[0], parts


def _field(value: bytes) -> Any:
    """A form field as the Bot API reads it: JSON when it is JSON (an object's keys in any order), else text."""
    try:
        return json.dumps(json.loads(value), sort_keys=True)
    except ValueError:
        return value.decode()


async def test_the_direct_path_puts_on_the_wire_what_bot_send_message_does() -> None:
    """``telegram_call`` on the bot's transport (``api_call``: no ``RequestData``, no ``BaseRequest.post``)
    against ``Bot.send_message`` / ``send_photo`` / ``set_my_commands`` on the same transport: the same
    method, path, headers and parameters (JSON), the same parts (multipart)."""
    from telegram import BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, InputFile

    from bot.sending import telegram_call

    capture = _Capture()
    async with capture as base_url:
        async with telegram.Bot("1:T", base_url=base_url, request=AiohttpRequest()) as bot:
            markup = InlineKeyboardMarkup([[InlineKeyboardButton("盤", callback_data="p:1")]])
            keyboard = {"inline_keyboard": [[{"text": "盤", "callback_data": "p:1"}]]}
            capture.requests.clear()  # getMe
            await bot.send_message(
                chat_id=9, text="<b>甲子</b> 하루 😀", parse_mode="HTML", disable_web_page_preview=True,
                reply_to_message_id=7, allow_sending_without_reply=True, reply_markup=markup,
            )  # fmt: skip
            await telegram_call(bot, "sendMessage", {
                "chat_id": 9, "text": "<b>甲子</b> 하루 😀", "parse_mode": "HTML",
                "link_preview_options": {"is_disabled": True},
                "reply_parameters": {"message_id": 7, "allow_sending_without_reply": True},
                "reply_markup": keyboard,
            })  # fmt: skip
            await bot.send_photo(9, InputFile(PNG_8X8, filename="chart.png"), caption="<i>盤</i>",
                                 parse_mode="HTML", reply_markup=markup)  # fmt: skip
            await telegram_call(bot, "sendPhoto", {
                "chat_id": 9, "photo": InputFile(PNG_8X8, filename="chart.png"), "caption": "<i>盤</i>",
                "parse_mode": "HTML", "reply_markup": keyboard,
            })  # fmt: skip
            await bot.set_my_commands([BotCommand("cast", "점 치기")], language_code="ko")
            await telegram_call(bot, "setMyCommands", {"commands": [BotCommand("cast", "점 치기")],
                                                        "language_code": "ko"})  # fmt: skip
    wires = [_wire(r) for r in capture.requests]
    assert len(wires) == 6
    for theirs, mine in zip(wires[::2], wires[1::2], strict=True):
        assert mine == theirs
    assert wires[0][3] == "application/json" and wires[2][3] == "multipart/form-data"
    assert "accept-encoding" not in wires[0][2]  # no compressed answers asked for (module docstring)


async def test_a_multipart_body_of_our_own_has_the_parts_aiohttp_s_form_has() -> None:
    """The upload's body on the wire (``_multipart``) against aiohttp's ``FormData`` (what PTB's path sends):
    the same parts, names, filenames, content types and bytes; a part that would need quoting goes to
    aiohttp."""
    from bot.telegram.request import _form, _multipart

    values = {"chat_id": 9, "caption": "<i>盤</i> 하루", "parse_mode": "HTML", "reply_markup": {"a": [1]}}
    files = {"photo": ("chart.png", PNG_8X8, "image/png")}
    body, ctype = _multipart(values, files) or (b"", "")
    payload = _form(values, files)()

    class Sink:
        data = b""

        async def write(self, chunk: bytes) -> None:
            self.data += bytes(chunk)

    sink = Sink()
    await payload.write(sink)  # type: ignore[arg-type]
    mine = _wire(("POST", "/", {"Content-Type": ctype}, body))
    theirs = _wire(("POST", "/", {"Content-Type": payload.content_type}, sink.data))
    assert mine == theirs and len(mine[4]) == 5
    assert _multipart(values, {"photo": ('a "b".png', PNG_8X8, "image/png")}) is None
