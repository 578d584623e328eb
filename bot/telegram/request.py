"""python-telegram-bot's HTTP transport on aiohttp: :class:`AiohttpRequest`, a ``telegram.request.BaseRequest``.

Why (issue #18, measured by ``bench/bot.py transport``): PTB's default ``HTTPXRequest`` spends most of the bot's
CPU per command in httpx/httpcore, and its connection pool gets slower with the number of requests in flight
(encode/httpcore#1035); aiohttp's connector stays flat. The figures are in the README's performance section.

The semantics the sender relies on (``bot.sending.request_not_sent``, docs/reliability.md) are kept:

- an error from the transport is raised as PTB's ``TimedOut`` (a timeout) or ``NetworkError`` (anything else)
  **from** aiohttp's exception, so the cause tells whether the request can have reached Telegram:
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
the request. aiohttp has no write timeout of its own: once it has its slot, a request is bounded as a whole by
the sum of the connect, write and read timeouts, and a request that outlasts it is ``TimedOut`` (maybe sent). PTB passes ``getUpdates`` a read
timeout of its long-poll ``timeout`` plus the default, as with httpx.

Bodies: parameters as one JSON object (``application/json``, which the Bot API accepts; UTF-8, not escaped); requests with files
as ``multipart/form-data`` (each parameter JSON-encoded, as PTB does for httpx). Proxies from the environment
(``HTTPS_PROXY``, ``NO_PROXY`` …) and ``~/.netrc`` credentials are honoured, as httpx does by default — read
once per origin (the Bot API's host) on a worker thread, not for every request: aiohttp's own ``trust_env``
makes two thread hops per request (the netrc file, the proxy variables), a third of a ``sendMessage``'s CPU.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, NamedTuple

import aiohttp
import yarl
from aiohttp.helpers import BasicAuth, basicauth_from_netrc, get_env_proxy_for_url, netrc_from_env
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

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


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL (the key the environment is read for)."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


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
        self._envs: dict[str, _Env] = {}  # origin → the environment's proxy and credentials for it

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
        )

    async def shutdown(self) -> None:
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
        session, slots = self._session, self._pool
        if session is None or session.closed or slots is None:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data is not None and request_data.contains_files
        read: float | None = self._read_timeout if read_timeout is _DEFAULT else read_timeout
        connect: float | None = self._connect_timeout if connect_timeout is _DEFAULT else connect_timeout
        pool: float | None = self._pool_timeout if pool_timeout is _DEFAULT else pool_timeout
        write: float | None = write_timeout
        if write_timeout is _DEFAULT:
            write = self._media_write_timeout if files else self._write_timeout

        origin = _origin(url)
        env = self._envs.get(origin)
        if env is None:
            env = await asyncio.to_thread(_env_for, url)
            if len(self._envs) < 16:  # the API's host (and its file host): a handful at most
                self._envs[origin] = env
        kwargs: dict[str, Any] = {"timeout": self._client_timeout(read, connect)}
        if env.proxy is not None:
            kwargs["proxy"], kwargs["proxy_auth"] = env.proxy, env.proxy_auth
        if env.auth is not None:
            kwargs["auth"] = env.auth
        if request_data is not None:
            if files:
                form = aiohttp.FormData(quote_fields=False)
                for name, value in request_data.json_parameters.items():
                    form.add_field(name, value)
                for name, (filename, content, mimetype) in request_data.multipart_data.items():
                    form.add_field(name, content, filename=filename, content_type=mimetype)
                kwargs["data"] = form
            else:
                # the parameters as one JSON object (PTB's ``json_payload`` would nest JSON strings)
                kwargs["data"] = json.dumps(request_data.parameters, ensure_ascii=False).encode()
                kwargs["headers"] = {"Content-Type": "application/json"}
        try:
            if slots.locked():  # every slot taken: wait for one, at most ``pool`` seconds
                async with asyncio.timeout(pool):
                    await slots.acquire()
            else:
                await slots.acquire()  # free: taken at once (no timer armed)
        except TimeoutError:
            raise TimedOut(
                "Pool timeout: every connection is in use; the request was not sent"
            ) from aiohttp.ConnectionTimeoutError(f"no free connection within {pool} s")
        try:
            # one turn of the loop first: a pooled keep-alive connection the server has closed meanwhile is
            # noticed (its EOF processed) and not reused — a write to it would fail as "maybe sent"
            await asyncio.sleep(0)
            async with asyncio.timeout(_sum(connect, write, read)):
                async with session.request(method, url, **kwargs) as response:
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


__all__ = ["AiohttpRequest"]
