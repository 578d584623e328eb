"""python-telegram-bot's ``BaseRequest`` on aiohttp, through PTB's public request API only.

PTB documents ``telegram.request.BaseRequest`` as the way to use another HTTP library: a subclass implements
``initialize``, ``shutdown``, ``read_timeout`` and ``do_request(url, method, request_data, …) -> (status,
body)``, and PTB's ``BaseRequest.post`` does the rest (the Bot API envelope, its errors). ``request_data`` is a
``telegram.request.RequestData``: ``parameters`` (the Bot API parameters as JSON values), ``json_parameters``
and ``multipart_data`` (a request with files). Measured against PTB's default ``HTTPXRequest`` with
``bench/bot.py`` (docs/adapters.md): httpx's request path costs the event loop about three times aiohttp's.

- Pool: at most ``connection_pool_size`` requests in flight (a semaphore, and as many connections:
  ``TCPConnector(limit=…)``); a request waits for a slot at most ``pool_timeout`` and then fails with
  ``TimedOut`` from aiohttp's ``ConnectionTimeoutError`` (as a connection not made within
  ``connect_timeout`` does). A connection that could not be made is ``NetworkError`` from
  ``ClientConnectorError``. Both prove the request never left (:func:`bot.telegram.sender.request_not_sent`);
  a read timeout (``TimedOut`` from ``SocketTimeoutError``) or a dropped connection after the write is
  *maybe sent*. aiohttp never resends a POST by itself.
- Bodies: a request without files is one JSON body of ``parameters`` (``application/json``, which the Bot
  API accepts); one with
  files is ``multipart/form-data`` with the other parameters as JSON-encoded fields, as PTB's own
  ``HTTPXRequest`` sends it.
- Proxy: the environment's (``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY``, ``NO_PROXY``), looked up once per
  origin with the standard library's ``urllib.request`` (aiohttp's ``trust_env`` reads the environment and
  ``~/.netrc`` again for every request). No cookie jar.
- Answers: PTB's parsing (``parse_json_payload``, which PTB documents for overriding), less the inline
  keyboard Telegram echoes back in the message a send or an edit answers with (:meth:`AiohttpRequest.parse_json_payload`).
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData


def _bypassed(host: str, no_proxy: str) -> bool:
    """``NO_PROXY``: ``*``, or a host or domain (``example.org`` also covers ``api.example.org``)."""
    for entry in (e.strip().lower().lstrip(".") for e in no_proxy.split(",")):
        if entry == "*" or (entry and (host.lower() == entry or host.lower().endswith("." + entry))):
            return True
    return False


class AiohttpRequest(BaseRequest):
    """A ``BaseRequest`` on one ``aiohttp.ClientSession`` (see the module docstring)."""

    def __init__(
        self,
        connection_pool_size: int = 1,
        *,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
    ) -> None:
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None
        self._slots = asyncio.Semaphore(connection_pool_size)
        self._proxies: dict[str, str | None] = {}  # origin → the environment's proxy for it (None: direct)

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size),
                cookie_jar=aiohttp.DummyCookieJar(),
            )

    async def shutdown(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _proxy(self, url: str) -> str | None:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._proxies:
            proxies = urllib.request.getproxies()  # the environment's *_proxy variables
            bypass = _bypassed(parts.hostname or "", proxies.get("no", ""))
            self._proxies[origin] = None if bypass else proxies.get(parts.scheme) or proxies.get("all")
        return self._proxies[origin]

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        """PTB's parsing of an answer, less ``result.reply_markup`` when the result is a message (a send or
        an edit answers with the message it made, keyboard included): PTB would build an
        ``InlineKeyboardMarkup`` of that echo for the returned ``Message`` (parsing and ``Message.de_json`` of
        a ``/cast now`` reply with its 19 buttons ≈ 1.0 → 0.5 ms, the mean of the three commands 0.82 → 0.48 ms;
        in process, fresh replies, medians) and nothing reads it —
        the sender keeps a sent message's id and its photo's ``file_id``. A list of updates (``getUpdates``)
        keeps its messages' keyboards, which a button press reads (``bot.telegram.shows``). 6 lines."""
        data = BaseRequest.parse_json_payload(payload)
        result = data.get("result")
        if isinstance(result, dict) and "message_id" in result:
            result.pop("reply_markup", None)
        return data

    def _timeout(self, value: Any, default: float | None) -> float | None:
        return default if value is BaseRequest.DEFAULT_NONE else value

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            await self.initialize()
        assert self._session is not None
        connect = self._timeout(connect_timeout, self._connect_timeout)
        pool = self._timeout(pool_timeout, self._pool_timeout)
        read = self._timeout(read_timeout, self._read_timeout)
        timeout = aiohttp.ClientTimeout(connect=connect, sock_read=read)
        body: Any = None
        headers: dict[str, str] | None = None
        if request_data is not None:
            if request_data.contains_files:
                # aiohttp has no write timeout: an upload is bounded as a whole (connect + write + read)
                write = self._timeout(write_timeout, self._write_timeout)
                parts = (connect, write, read)
                if all(t is not None for t in parts):
                    timeout = aiohttp.ClientTimeout(
                        total=sum(t for t in parts if t is not None), connect=connect, sock_read=read
                    )
                form = aiohttp.FormData(quote_fields=False)
                for name, value in request_data.json_parameters.items():
                    form.add_field(name, value)
                for name, (filename, content, mimetype) in request_data.multipart_data.items():
                    form.add_field(name, content, filename=filename, content_type=mimetype)
                body = form
            else:
                body = json.dumps(request_data.parameters, ensure_ascii=False).encode()
                headers = {"Content-Type": "application/json"}
        try:
            async with asyncio.timeout(pool):
                await self._slots.acquire()
        except TimeoutError:
            cause = aiohttp.ConnectionTimeoutError(f"no free connection within {pool} s")
            raise TimedOut("Pool timeout: all connections are in use") from cause
        try:
            async with self._session.request(
                method, url, data=body, headers=headers, timeout=timeout, proxy=self._proxy(url)
            ) as response:
                return response.status, await response.read()
        except aiohttp.ConnectionTimeoutError as exc:  # no connection made in time
            raise TimedOut("Connect timeout: no connection to the Bot API in time") from exc
        except (TimeoutError, aiohttp.ServerTimeoutError) as exc:  # the answer did not come in time
            raise TimedOut from exc
        except aiohttp.ClientError as exc:  # ClientConnectorError: none made; others: after the write
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc
        finally:
            self._slots.release()


__all__ = ["AiohttpRequest"]
