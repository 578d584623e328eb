"""python-telegram-bot's HTTP transport on aiohttp: :class:`AiohttpRequest`, a ``telegram.request.BaseRequest``.

Why (issue #18, measured by ``bench/bot.py transport``): PTB's default ``HTTPXRequest`` spends most of the bot's
CPU per command in httpx/httpcore, and its connection pool gets slower with the number of requests in flight
(encode/httpcore#1035); aiohttp's connector stays flat. The figures are in the README's performance section.

Two ways out, chosen per request: a JSON or multipart ``POST`` without a proxy — every send, edit and poll —
goes on :class:`bot.telegram.wire.Wire` (keep-alive HTTP/1.1 connections of our own: one write, the answer
read on an ``asyncio.Protocol``; about 0.6× aiohttp's CPU per request, ``bench/bot.py transport``); a request
through a proxy, a ``GET``, or an upload with a part that needs quoting goes on one ``aiohttp.ClientSession``.

The semantics the sender relies on (``bot.sending.request_not_sent``, docs/reliability.md) are kept on both:

- on the wire, a request that never left (no connection: refused, unreachable, DNS, the TLS handshake, the
  connect timeout) is ``NetworkError``/``TimedOut`` **from** :class:`bot.sending.NotSent`; anything after
  the write (a lost connection, a malformed answer, a timeout) is maybe sent; it never writes a request twice;
- on aiohttp, an error from the transport is raised as PTB's ``TimedOut`` (a timeout) or ``NetworkError``
  (anything else) **from** aiohttp's exception, so the cause tells whether the request can have reached Telegram:
  ``ClientConnectorError`` (refused, unreachable, DNS) and ``ConnectionTimeoutError`` (no connection within
  the pool + connect timeouts) were never sent; a read timeout (``SocketTimeoutError``), a dropped connection
  (``ServerDisconnectedError``, ``ClientOSError``) or the outer bound are *maybe sent*;
- aiohttp never resends a POST by itself (it retries a dropped keep-alive connection only for idempotent
  methods), so a lost ``sendMessage`` answer is never a second message;
- an HTTP answer goes back to ``BaseRequest`` as (status, body): ``RetryAfter``, ``ChatMigrated``,
  ``Forbidden``, ``InvalidToken`` … are PTB's own mapping, unchanged.

Timeouts (seconds; ``None``: no limit), as ``HTTPXRequest`` names them: ``connect_timeout`` to open a connection,
``pool_timeout`` to wait for a free one (the pool is a semaphore of ``connection_pool_size`` requests in flight,
waited for at most ``pool_timeout``; then ``TimedOut`` from a ``ConnectionTimeoutError``: not sent),
``read_timeout`` between bytes of the answer, ``write_timeout`` (``media_write_timeout`` for uploads) to send
the request. On the wire, ``read`` bounds each gap between bytes of the answer and ``write + read`` the whole
answer, counted from the write (one timer per request). aiohttp has no write timeout of its own: once it has
its slot, a request on it is bounded as a whole by the sum of the connect, write and read timeouts. A request
that outlasts its bound is ``TimedOut`` (maybe sent). PTB passes ``getUpdates`` a read
timeout of its long-poll ``timeout`` plus the default, as with httpx.

The sender's path (:meth:`AiohttpRequest.api_call`, what :func:`bot.sending.telegram_call` uses): the Bot API
parameters (plain JSON values; a PTB object — a keyboard, an ``InputFile``, an ``InputMedia`` — converted by
PTB's own ``RequestParameter``, as ``Bot`` would) are encoded here and posted at once, and the answer is parsed
once (:func:`api_answer`: the ``result``, or PTB's exception for the status and the ``ok: false`` envelope,
exactly as ``BaseRequest._request_wrapper`` maps them). No ``RequestData``/``RequestParameter`` objects per
plain request, no ``BaseRequest.post`` layers: the same parameters and parts on the wire, the same exceptions
(the tests compare both with PTB's). ``do_request`` (PTB's own calls: ``getMe``, ``setMyCommands`` …) takes the same
path from its ``RequestData``.

Bodies: parameters as one JSON object (``application/json``, which the Bot API accepts; UTF-8, not escaped); requests with files
as ``multipart/form-data`` (each parameter JSON-encoded, as PTB does for httpx). Proxies from the environment
(``HTTPS_PROXY``, ``NO_PROXY`` …) and ``~/.netrc`` credentials are honoured, as httpx does by default — read
once per origin (the Bot API's host) on a worker thread, not for every request: aiohttp's own ``trust_env``
makes two thread hops per request (the netrc file, the proxy variables), a third of a ``sendMessage``'s CPU.
The session keeps no cookies (``DummyCookieJar``: the Bot API sets none; a jar is filtered per request) and
asks for no compression (no ``Accept-Encoding``: an answer is a few hundred bytes of JSON, inflating it
costs more CPU than the bytes saved; a compressed answer is still decoded). URL objects are made once per
method URL.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, NamedTuple

import aiohttp
import yarl
from aiohttp.helpers import BasicAuth, basicauth_from_netrc, get_env_proxy_for_url, netrc_from_env
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.request import BaseRequest, RequestData

# not exported by telegram.request; python-telegram-bot is pinned to 22.x (constraints.txt) and
# tests/adapters/test_request.py compares the parameters with what ``Bot`` sends
from telegram.request._requestparameter import RequestParameter

from bot.sending import NotSent
from bot.telegram.wire import Wire

log = logging.getLogger(__name__)

# PTB's DefaultValue marks an argument that was not passed (then the instance's default applies).
_DEFAULT = BaseRequest.DEFAULT_NONE


def _sum(*values: float | None) -> float | None:
    """The sum of timeouts, None (no limit) when any is None."""
    total = 0.0
    for value in values:
        if value is None:
            return None
        total += value
    return total


class _Env(NamedTuple):
    """What the environment says for requests to one origin (aiohttp's ``trust_env``, read once)."""

    proxy: yarl.URL | None
    proxy_auth: BasicAuth | None
    auth: BasicAuth | None

    def auth_line(self) -> str:
        """The credentials as a header line of a request on :class:`~bot.telegram.wire.Wire` ("" without)."""
        return "" if self.auth is None else f"Authorization: {self.auth.encode()}\r\n"


def _env_for(url: str) -> _Env:
    """The proxy (``*_PROXY``, ``NO_PROXY``) and the ``~/.netrc`` credentials for ``url``, as aiohttp's
    ``trust_env=True`` finds them for each request (blocking: reads files)."""
    target = yarl.URL(url)
    try:
        proxy, proxy_auth = get_env_proxy_for_url(target)
    except LookupError:
        proxy, proxy_auth = None, None
    auth = None
    if target.host is not None:
        try:
            auth = basicauth_from_netrc(netrc_from_env(), target.host)
        except LookupError:
            auth = None
    return _Env(proxy, proxy_auth, auth)


class _Origin(NamedTuple):
    env: _Env
    auth_line: str  # env.auth_line(), made once


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL (the key the environment is read for)."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


# a file to upload: (filename, content, MIME type), as PTB's ``InputFile.field_tuple``
Upload = tuple[str | None, Any, str | None]
# top-level values sent as they are (PTB's ``RequestParameter`` leaves them unchanged too)
_PLAIN = frozenset({str, int, float, bool, dict})
_JSON = "application/json"
_JSON_HEADERS = {"Content-Type": _JSON}
_SAFE_NAME = re.compile(r"[A-Za-z0-9_.:+-]{1,128}")  # a part or file name written without any quoting


def api_parameters(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Upload] | None]:
    """The JSON values of a method's parameters and the files to upload (None: none), as
    ``RequestData([RequestParameter.from_input(k, v) …])`` gives them: None values left out; plain JSON
    values (str, numbers, bools, dicts, lists of them) as they are; anything else (a PTB object, an
    ``InputFile``, a ``StringEnum``, a datetime) through ``RequestParameter.from_input``."""
    values: dict[str, Any] = {}
    files: dict[str, Upload] | None = None
    for name, value in params.items():
        if value is None:
            continue
        kind = type(value)
        if kind in _PLAIN:
            values[name] = value
            continue
        if (kind is list or kind is tuple) and all(type(item) in _PLAIN for item in value):
            values[name] = list(value)
            continue
        parameter = RequestParameter.from_input(name, value)
        if parameter.value is not None:
            values[name] = parameter.value
        uploads = parameter.multipart_data
        if uploads:
            files = {**(files or {}), **uploads}
    return values, files


def _form(values: Mapping[str, Any], files: Mapping[str, Upload]) -> aiohttp.FormData:
    """A multipart body as PTB sends one: each parameter JSON-encoded (a string as it is), then the files."""
    form = aiohttp.FormData(quote_fields=False)
    for name, value in values.items():
        form.add_field(name, value if isinstance(value, str) else json.dumps(value))
    for name, (filename, content, mimetype) in files.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form


def _multipart(values: Mapping[str, Any], files: Mapping[str, Upload]) -> tuple[bytes, str] | None:
    """The multipart body :func:`_form` makes, as bytes, and its Content-Type — the same parts (names,
    filenames, content types, values) in the same order; None when a part is not plain (a file handle, a
    name that would need quoting): then :func:`_form` on aiohttp's session."""
    boundary = os.urandom(16).hex()
    dash = f"--{boundary}\r\n".encode()
    chunks: list[bytes] = []
    for name, value in values.items():
        if not _SAFE_NAME.fullmatch(name):
            return None
        text = value if isinstance(value, str) else json.dumps(value)
        chunks += (
            dash,
            b'Content-Type: text/plain; charset=utf-8\r\nContent-Disposition: form-data; name="%s"\r\n\r\n'
            % name.encode(),
            text.encode(),
            b"\r\n",
        )
    for name, (filename, content, mimetype) in files.items():
        if type(content) is not bytes or not _SAFE_NAME.fullmatch(name):
            return None
        if filename is not None and not _SAFE_NAME.fullmatch(filename):
            return None
        disposition = f'form-data; name="{name}"' + ("" if filename is None else f'; filename="{filename}"')
        chunks += (
            dash,
            f"Content-Type: {mimetype or 'application/octet-stream'}\r\n"
            f"Content-Disposition: {disposition}\r\n\r\n".encode(),
            content,
            b"\r\n",
        )
    chunks.append(f"--{boundary}--\r\n".encode())
    return b"".join(chunks), f"multipart/form-data; boundary={boundary}"


def _envelope(payload: bytes) -> Any:
    """The JSON of an answer (PTB's ``parse_json_payload``: UTF-8, undecodable bytes replaced)."""
    text = payload.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError as exc:
        log.error("telegram: the Bot API answered what is not JSON: %r", text[:500])
        raise TelegramError("Invalid server response") from exc


# The head of a successful answer whose result is a Message: the Bot API writes ``message_id`` first.
_SENT_HEAD = re.compile(
    rb'\{\s*"ok"\s*:\s*true\s*,\s*"result"\s*:\s*\{\s*"message_id"\s*:\s*(\d{1,18})\s*[,}]'
)


def api_answer(code: int, payload: bytes, *, sent_id: bool = False) -> Any:
    """The ``result`` of an HTTP answer, or the exception python-telegram-bot raises for it
    (``BaseRequest._request_wrapper`` and ``post``, mapped the same way): ``ChatMigrated`` /
    ``RetryAfter`` from the envelope's ``parameters``; by status 403 ``Forbidden``, 401/404
    ``InvalidToken``, 400 ``BadRequest``, 409 ``Conflict``, others ``NetworkError`` — with the envelope's
    ``description`` as the message, and **from** the parse error when the body is not JSON (so
    :func:`bot.sending.request_not_sent` tells a Bot API refusal, no cause, from a proxy's page).

    ``sent_id``: the caller needs only the ``message_id`` of the Message a send answers with — a successful
    answer that starts ``{"ok": true, "result": {"message_id": N`` (the Bot API's order) gives
    ``{"message_id": N}`` without parsing the rest (the Message echoes the whole text, its entities, the
    keyboard, a photo's sizes: several kB of JSON per reply); any other answer is read whole, as without it."""
    if 200 <= code <= 299:
        if sent_id and (head := _SENT_HEAD.match(payload)) is not None:
            return {"message_id": int(head.group(1))}
        return _envelope(payload)["result"]
    try:
        message = f"{HTTPStatus(code).phrase} ({code})"
    except ValueError:
        message = f"Unknown HTTPError ({code})"
    parsing: TelegramError | None = None
    try:
        data = _envelope(payload)
    except TelegramError as exc:
        message += f". Parsing the server response {payload!r} failed"
        parsing = exc
    else:
        message = data.get("description") or message
        parameters = data.get("parameters")
        if parameters:
            migrate_to = parameters.get("migrate_to_chat_id")
            if migrate_to:
                raise ChatMigrated(migrate_to)
            retry_after = parameters.get("retry_after")
            if retry_after:
                raise RetryAfter(retry_after)
            message += f". The server response contained unknown parameters: {parameters}"
    error: TelegramError
    if code == HTTPStatus.FORBIDDEN:
        error = Forbidden(message)
    elif code in (HTTPStatus.NOT_FOUND, HTTPStatus.UNAUTHORIZED):
        error = InvalidToken(message)
    elif code == HTTPStatus.BAD_REQUEST:
        error = BadRequest(message)
    elif code == HTTPStatus.CONFLICT:
        error = Conflict(message)
    else:
        error = NetworkError(message)
    if parsing is not None:
        raise error from parsing
    raise error


class AiohttpRequest(BaseRequest):
    """``BaseRequest`` on one ``aiohttp.ClientSession`` (created by :meth:`initialize`, on the running loop)."""

    __slots__ = (
        "_connect_timeout",
        "_envs",
        "_media_write_timeout",
        "_pool",
        "_pool_size",
        "_pool_timeout",
        "_read_timeout",
        "_session",
        "_timeouts",
        "_urls",
        "_use_wire",
        "_wire",
        "_write_timeout",
    )

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        *,
        wire: bool = True,
    ) -> None:
        if connection_pool_size < 1:
            raise ValueError("connection_pool_size must be positive")
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None
        self._pool: asyncio.Semaphore | None = None
        self._timeouts: dict[tuple[float | None, float | None], aiohttp.ClientTimeout] = {}
        self._envs: dict[str, _Origin] = {}  # origin → the environment's proxy and credentials for it
        self._wire: Wire | None = None
        self._use_wire = wire  # False: every request on aiohttp's session (bench/bot.py transport compares)
        self._urls: dict[str, tuple[yarl.URL, str]] = {}  # a method's URL → its URL object, its origin

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is not None and not self._session.closed:
            return
        self._pool = asyncio.Semaphore(self._pool_size)
        connector = aiohttp.TCPConnector(limit=self._pool_size, limit_per_host=self._pool_size)
        self._session = aiohttp.ClientSession(
            connector=connector,
            headers={"User-Agent": self.USER_AGENT},
            timeout=aiohttp.ClientTimeout(total=None),
            trust_env=False,  # read once per origin instead (_env_for)
            cookie_jar=aiohttp.DummyCookieJar(),
            skip_auto_headers=("Accept-Encoding",),
        )
        self._wire = Wire(self.USER_AGENT) if self._use_wire else None

    async def shutdown(self) -> None:
        wire, self._wire = self._wire, None
        if wire is not None:
            await wire.close()
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    def _client_timeout(self, read: float | None, connect: float | None) -> aiohttp.ClientTimeout:
        key = (read, connect)
        timeout = self._timeouts.get(key)
        if timeout is None:
            timeout = aiohttp.ClientTimeout(total=None, connect=connect, sock_connect=connect, sock_read=read)
            if len(self._timeouts) < 64:  # a handful of combinations in practice (getUpdates, the rest)
                self._timeouts[key] = timeout
        return timeout

    async def api_call(
        self, url: str, params: Mapping[str, Any], *, read_timeout: Any = _DEFAULT, sent_id: bool = False
    ) -> Any:
        """One Bot API method at ``url`` with ``params`` (see :func:`api_parameters`): its ``result`` as JSON,
        or PTB's exception (:func:`api_answer`, with ``sent_id``; the transport's as in :meth:`do_request`)."""
        values, files = api_parameters(params)
        if files is None:
            body: Any = json.dumps(values, ensure_ascii=False).encode()
            code, payload = await self._post(url, body, _JSON_HEADERS, False, read_timeout, wire_type=_JSON)
        elif (multipart := _multipart(values, files)) is not None:
            code, payload = await self._post(
                url, multipart[0], {"Content-Type": multipart[1]}, True, read_timeout, wire_type=multipart[1]
            )
        else:
            code, payload = await self._post(url, _form(values, files), None, True, read_timeout)
        return api_answer(code, payload, sent_id=sent_id)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = _DEFAULT,
        write_timeout: Any = _DEFAULT,
        connect_timeout: Any = _DEFAULT,
        pool_timeout: Any = _DEFAULT,
    ) -> tuple[int, bytes]:
        if request_data is None:
            return await self._post(
                url, None, None, False, read_timeout, write_timeout, connect_timeout, pool_timeout, method
            )
        if request_data.contains_files:
            body: Any = _form(request_data.parameters, request_data.multipart_data)
            headers = None
        else:
            # the parameters as one JSON object (PTB's ``json_payload`` would nest JSON strings)
            body = json.dumps(request_data.parameters, ensure_ascii=False).encode()
            headers = _JSON_HEADERS
        return await self._post(
            url,
            body,
            headers,
            request_data.contains_files,
            read_timeout,
            write_timeout,
            connect_timeout,
            pool_timeout,
            method,
            wire_type=None if headers is None else _JSON,
        )

    def _target(self, url: str) -> tuple[yarl.URL, str]:
        """A method URL's URL object and origin (``scheme://host[:port]``), made once per URL."""
        target = self._urls.get(url)
        if target is None:
            target = (yarl.URL(url), _origin(url))
            if len(self._urls) < 256:  # the methods the bot calls: a few dozen
                self._urls[url] = target
        return target

    async def _post(
        self,
        url: str,
        body: Any,
        headers: Mapping[str, str] | None,
        files: bool,
        read_timeout: Any = _DEFAULT,
        write_timeout: Any = _DEFAULT,
        connect_timeout: Any = _DEFAULT,
        pool_timeout: Any = _DEFAULT,
        method: str = "POST",
        *,
        wire_type: str | None = None,
    ) -> tuple[int, bytes]:
        """The request (``body``: bytes, a form or None) on a slot of the pool: (status, body) of the answer,
        or ``TimedOut``/``NetworkError`` from the transport's error (module docstring). ``wire_type``: the
        Content-Type of a ``body`` of bytes that may go on the wire (a POST without a proxy)."""
        session, slots = self._session, self._pool
        if session is None or session.closed or slots is None:
            # as PTB's ``BaseRequest`` wraps a transport's unknown error: maybe sent
            raise NetworkError("This AiohttpRequest is not initialized!") from RuntimeError("not initialized")
        read: float | None = self._read_timeout if read_timeout is _DEFAULT else read_timeout
        connect: float | None = self._connect_timeout if connect_timeout is _DEFAULT else connect_timeout
        pool: float | None = self._pool_timeout if pool_timeout is _DEFAULT else pool_timeout
        write: float | None = write_timeout
        if write_timeout is _DEFAULT:
            write = self._media_write_timeout if files else self._write_timeout

        target, origin = self._target(url)
        known = self._envs.get(origin)
        if known is None:
            found = await asyncio.to_thread(_env_for, url)
            known = _Origin(found, found.auth_line())
            if len(self._envs) < 16:  # the API's host (and its file host): a handful at most
                self._envs[origin] = known
        env = known.env
        wire = self._wire
        if wire is not None and wire_type is not None and env.proxy is None and method == "POST":
            lines = f"Content-Type: {wire_type}\r\n{known.auth_line}"
            return await self._post_wire(wire, slots, target, body, lines, read, write, connect, pool)
        kwargs: dict[str, Any] = {"timeout": self._client_timeout(read, connect)}
        if env.proxy is not None:
            kwargs["proxy"], kwargs["proxy_auth"] = env.proxy, env.proxy_auth
        if env.auth is not None:
            kwargs["auth"] = env.auth
        if body is not None:
            kwargs["data"] = body
        if headers is not None:
            kwargs["headers"] = headers
        await _take_slot(slots, pool)
        try:
            # one turn of the loop first: a pooled keep-alive connection the server has closed meanwhile is
            # noticed (its EOF processed) and not reused — a write to it would fail as "maybe sent"
            await asyncio.sleep(0)
            async with asyncio.timeout(_sum(connect, write, read)):
                async with session.request(method, target, **kwargs) as response:
                    return response.status, await response.read()
        except aiohttp.ConnectionTimeoutError as err:  # no connection in time: the request was not sent
            raise TimedOut("Timed out waiting for a connection; the request was not sent") from err
        except TimeoutError as err:  # a read timeout (SocketTimeoutError) or the outer bound: maybe sent
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{type(err).__name__}: {err}") from err
        except OSError as err:  # a socket error aiohttp did not wrap
            raise NetworkError(f"{type(err).__name__}: {err}") from err
        finally:
            slots.release()

    @staticmethod
    async def _post_wire(
        wire: Wire,
        slots: asyncio.Semaphore,
        target: yarl.URL,
        body: bytes,
        headers: str,
        read: float | None,
        write: float | None,
        connect: float | None,
        pool: float | None,
    ) -> tuple[int, bytes]:
        """A JSON request without a proxy on :class:`~bot.telegram.wire.Wire`; its errors as PTB's (module
        docstring: ``NotSent`` is the cause of a request that never left)."""
        await _take_slot(slots, pool)
        try:
            return await wire.post(target, body, headers, connect=connect, write=write, read=read)
        except NotSent as err:  # no connection: the request was not sent
            if isinstance(err.__cause__, TimeoutError):
                raise TimedOut(f"{err}; the request was not sent") from err
            raise NetworkError(f"{err}; the request was not sent") from err
        except TimeoutError as err:  # no answer in time after the request was written: maybe sent
            raise TimedOut from err
        except OSError as err:  # the connection lost (ConnectionError), a malformed answer (ProtocolError)
            raise NetworkError(f"{type(err).__name__}: {err}") from err
        finally:
            slots.release()


async def _take_slot(slots: asyncio.Semaphore, pool: float | None) -> None:
    """One of the ``connection_pool_size`` slots: at once when one is free (no timer armed), else waited for
    at most ``pool`` seconds — then ``TimedOut`` from a ``ConnectionTimeoutError``: the request was not sent."""
    if not slots.locked():
        await slots.acquire()
        return
    try:
        async with asyncio.timeout(pool):
            await slots.acquire()
    except TimeoutError:
        raise TimedOut(
            "Pool timeout: every connection is in use; the request was not sent"
        ) from aiohttp.ConnectionTimeoutError(f"no free connection within {pool} s")


__all__ = ["AiohttpRequest", "api_answer", "api_parameters"]
