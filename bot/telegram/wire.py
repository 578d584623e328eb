"""A small keep-alive HTTP/1.1 client for the Bot API's JSON requests (issue #18): :class:`Wire`.

Why: per ``sendMessage`` aiohttp's ``ClientSession.request`` spends about 0.2 ms of CPU on building its
request and response objects (headers multidicts, the connector's bookkeeping, the payload and stream
classes, traces, timers per read) — twice the cost of the request's own I/O and JSON (``bench/bot.py wire``
measures both on one machine). A Bot API call is always the same shape: a ``POST`` of a JSON body to one
host, a JSON answer of a few hundred bytes. :class:`Wire` writes it as one buffer and reads the answer on
an ``asyncio.Protocol`` — nothing else. What it does not do stays with aiohttp
(:class:`bot.telegram.request.AiohttpRequest` decides): uploads (multipart), proxies (``HTTPS_PROXY`` …).

- Connections: TLS for ``https`` (``ssl.create_default_context()``: the system's CAs, the host name
  checked), one request at a time each, kept alive and reused last-in first-out; one the server has closed
  (its EOF seen) or that has been idle for :attr:`Wire.keepalive` seconds (15 s, aiohttp's own default, so
  the server's idle close is not raced) is dropped, and so is one whose socket is readable while idle (an
  EOF — the server closed it — or bytes nobody asked for, not yet processed by the loop: one ``select``
  per reuse, instead of a turn of the loop per request as with aiohttp). An answer that says ``Connection: close``, is
  delimited by the end of the connection, or has bytes after its end closes its connection.
- Answers: ``Content-Length`` or ``Transfer-Encoding: chunked`` (extensions and trailers skipped), read
  until EOF otherwise; ``1xx`` interim answers skipped; ``Content-Encoding: gzip``/``deflate`` decoded
  (none is asked for). Anything else malformed is :class:`ProtocolError` and the connection is dropped.
- Errors — the not-sent / maybe-sent line the sender relies on (``bot.sending.request_not_sent``):
  :class:`bot.sending.NotSent` when no connection could be made (refused, unreachable, DNS, a failed TLS
  handshake, the connect timeout): the request never left; after the request was written, a lost
  connection (``ConnectionError``), a malformed answer (:class:`ProtocolError`) or a timeout
  (``TimeoutError``) may have been performed by Telegram: maybe sent. A write is never repeated.
- Timeouts, one timer per request: ``connect`` for a new connection; from the moment the request is
  written, at most ``read`` seconds between bytes of the answer and ``write + read`` for the whole of it
  (the timer re-arms itself from the last byte seen, not on every chunk).
"""

from __future__ import annotations

import asyncio
import select
import ssl
import zlib
from collections.abc import Callable
from typing import Final, cast

import yarl

from bot.sending import NotSent

KEEPALIVE: Final = 15.0  # seconds a connection may stay idle before it is dropped instead of reused
MAX_HEAD: Final = 64 * 1024  # bytes of status line and headers at most


class ProtocolError(ConnectionError):
    """The answer is not HTTP/1.1 as this client reads it (the connection is dropped)."""


class _Answer:
    """One HTTP answer, fed in pieces: :meth:`feed` returns True once it is complete."""

    __slots__ = ("body", "buffer", "chunk", "close", "encoding", "length", "state", "status")

    def __init__(self) -> None:
        self.buffer = bytearray()  # bytes not parsed yet
        self.body = bytearray()
        self.status = 0
        self.state = "head"  # head | length | chunk-size | chunk | chunk-end | trailers | eof | done
        self.length = 0  # bytes of body still to read ("length"), of the current chunk ("chunk")
        self.chunk = 0
        self.close = False  # the connection cannot carry another request after this answer
        self.encoding = ""

    def feed(self, data: bytes) -> bool:
        buffer = self.buffer
        buffer += data
        while True:
            state = self.state
            if state == "head":
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    if len(buffer) > MAX_HEAD:
                        raise ProtocolError("the answer's head is too long")
                    return False
                head = bytes(buffer[:end])
                del buffer[: end + 4]
                self._head(head)
            elif state == "length":
                if len(buffer) < self.length:
                    return False
                self.body += buffer[: self.length]
                del buffer[: self.length]
                self.state = "done"
            elif state == "chunk-size":
                end = buffer.find(b"\r\n")
                if end < 0:
                    if len(buffer) > 1024:
                        raise ProtocolError("a chunk size line is too long")
                    return False
                line = bytes(buffer[:end]).split(b";", 1)[0].strip()
                del buffer[: end + 2]
                try:
                    size = int(line, 16)
                except ValueError:
                    raise ProtocolError(f"bad chunk size {line!r}") from None
                if size < 0:
                    raise ProtocolError(f"bad chunk size {line!r}")
                self.chunk = size
                self.state = "chunk" if size else "trailers"
            elif state == "chunk":
                if len(buffer) < self.chunk + 2:
                    return False
                if buffer[self.chunk : self.chunk + 2] != b"\r\n":
                    raise ProtocolError("a chunk does not end with CRLF")
                self.body += buffer[: self.chunk]
                del buffer[: self.chunk + 2]
                self.state = "chunk-size"
            elif state == "trailers":
                if buffer[:2] == b"\r\n":
                    del buffer[:2]
                    self.state = "done"
                    continue
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    if len(buffer) > MAX_HEAD:
                        raise ProtocolError("the answer's trailers are too long")
                    return False
                del buffer[: end + 4]
                self.state = "done"
            elif state == "eof":
                self.body += buffer
                buffer.clear()
                return False
            else:  # done
                if buffer:
                    self.close = True  # bytes after the answer: never reuse this connection
                return True

    def _head(self, head: bytes) -> None:
        lines = head.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if version not in ("HTTP/1.1", "HTTP/1.0") or not code.isdigit() or rest[3:4] not in ("", " "):
            raise ProtocolError(f"bad status line {lines[0][:100]!r}")
        status = int(code)
        if 100 <= status < 200:  # an interim answer (100 Continue, 103): the real one follows
            return
        self.status = status
        length: int | None = None
        chunked = False
        keep_alive = version == "HTTP/1.1"
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon or not name or name != name.strip() or line[:1] in (" ", "\t"):
                raise ProtocolError(f"bad header line {line[:100]!r}")
            name = name.lower()
            value = value.strip()
            if name == "content-length":
                if not value.isdigit() or (length is not None and int(value) != length):
                    raise ProtocolError(f"bad Content-Length {value[:40]!r}")
                length = int(value)
            elif name == "transfer-encoding":
                codings = [c.strip().lower() for c in value.split(",")]
                if codings[-1:] != ["chunked"] or any(c not in ("chunked", "identity") for c in codings):
                    raise ProtocolError(f"unsupported Transfer-Encoding {value[:40]!r}")
                chunked = True
            elif name == "connection":
                tokens = {t.strip().lower() for t in value.split(",")}
                if "close" in tokens:
                    keep_alive = False
                elif "keep-alive" in tokens:
                    keep_alive = True
            elif name == "content-encoding":
                self.encoding = value.lower()
        self.close = not keep_alive
        if status in (204, 304):
            self.state = "done"
        elif chunked:
            self.state = "chunk-size"
        elif length is not None:
            self.length = length
            self.state = "length" if length else "done"
        else:  # delimited by the end of the connection
            self.state = "eof"
            self.close = True

    def ended(self) -> bool:
        """The connection ended: True when that ends the answer (one read until EOF)."""
        if self.state == "eof":
            self.state = "done"
            return True
        return False

    def content(self) -> bytes:
        body = bytes(self.body)
        encoding = self.encoding
        if not encoding or encoding == "identity":
            return body
        if encoding in ("gzip", "x-gzip"):
            return _inflate(body, 16 + zlib.MAX_WBITS)
        if encoding == "deflate":
            try:
                return _inflate(body, zlib.MAX_WBITS)
            except ProtocolError:  # raw deflate, as some servers send it
                return _inflate(body, -zlib.MAX_WBITS)
        raise ProtocolError(f"unsupported Content-Encoding {encoding!r}")


def _inflate(body: bytes, wbits: int) -> bytes:
    try:
        decoder = zlib.decompressobj(wbits)
        data = decoder.decompress(body) + decoder.flush()
    except zlib.error as exc:
        raise ProtocolError(f"the answer does not decompress: {exc}") from exc
    if not decoder.eof:
        raise ProtocolError("the compressed answer is cut short")
    return data


class _Connection(asyncio.Protocol):
    """One connection: at most one request in flight; its answer resolves :attr:`waiter`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.answer: _Answer | None = None
        self.waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self.closed = False
        self.idle_since = 0.0
        self.last_read = 0.0
        self.timer: asyncio.TimerHandle | None = None  # the answer's timeouts (Wire._watch)
        self.fd = -1  # the socket's descriptor (read once: quiet() polls it on every reuse)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not asyncio.Transport subclasses
        sock = transport.get_extra_info("socket")
        self.fd = -1 if sock is None else sock.fileno()

    def data_received(self, data: bytes) -> None:
        answer = self.answer
        if answer is None:  # bytes nobody asked for: this connection is not to be trusted again
            self.close()
            return
        self.last_read = self.loop.time()
        try:
            done = answer.feed(data)
        except ProtocolError as exc:
            self._fail(exc)
            return
        if done:
            self._finish(answer)

    def eof_received(self) -> bool:
        self.closed = True
        answer = self.answer
        if answer is not None:
            if answer.ended():
                self._finish(answer)
            else:
                self._fail(ConnectionResetError("the server closed the connection before the answer ended"))
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.answer is not None:
            self._fail(
                ConnectionResetError(f"the connection was lost: {exc}" if exc else "the connection was lost")
            )

    def _finish(self, answer: _Answer) -> None:
        self.answer = None
        waiter, self.waiter = self.waiter, None
        try:
            result = (answer.status, answer.content())
        except ProtocolError as exc:
            self.close()
            if waiter is not None and not waiter.done():
                waiter.set_exception(exc)
            return
        if answer.close:
            self.close()
        if waiter is not None and not waiter.done():
            waiter.set_result(result)

    def _fail(self, exc: BaseException) -> None:
        self.answer = None
        waiter, self.waiter = self.waiter, None
        self.close()
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    def quiet(self) -> bool:
        """Open, and nothing waiting unread on its socket (no EOF, no bytes) — polled, not waited for."""
        transport = self.transport
        fd = self.fd
        if transport is None or transport.is_closing() or fd < 0:  # closing first: a closed fd may be reused
            return False
        try:
            readable, _, _ = select.select((fd,), (), (), 0)
        except (OSError, ValueError):
            return False
        return not readable

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


Origin = tuple[str, str, int]  # scheme, host, port


class Wire:
    """Keep-alive connections per origin and :meth:`post`; see the module docstring. Made on the running loop."""

    def __init__(self, user_agent: str, *, keepalive: float = KEEPALIVE) -> None:
        self.loop = asyncio.get_running_loop()
        self.keepalive = keepalive
        self._agent = user_agent.encode("latin-1")
        self._idle: dict[Origin, list[_Connection]] = {}
        self._heads: dict[
            tuple[str, str], bytes
        ] = {}  # (URL, extra header lines) → the request's head up to Content-Length
        self._ssl: ssl.SSLContext | None = None
        self.opened = 0  # connections made (for tests)

    def _context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    def _head(self, url: yarl.URL, extra: str) -> bytes:
        key = (str(url), extra)
        head = self._heads.get(key)
        if head is None:
            host = url.host or ""
            if ":" in host:
                host = f"[{host}]"
            if not url.is_default_port():
                host = f"{host}:{url.port}"
            head = (
                f"POST {url.raw_path_qs} HTTP/1.1\r\nHost: {host}\r\n".encode("latin-1")
                + b"User-Agent: "
                + self._agent
                + b"\r\nAccept: */*\r\n"
                + extra.encode("latin-1")
                + b"Content-Length: "
            )
            if len(self._heads) < 256:
                self._heads[key] = head
        return head

    async def _connect(self, origin: Origin, connect: float | None) -> _Connection:
        scheme, host, port = origin
        make: Callable[[], _Connection] = lambda: _Connection(self.loop)  # noqa: E731
        try:
            async with asyncio.timeout(connect):
                if scheme == "https":
                    _, protocol = await self.loop.create_connection(
                        make, host, port, ssl=self._context(), server_hostname=host
                    )
                else:
                    _, protocol = await self.loop.create_connection(make, host, port)
        except TimeoutError as exc:
            raise NotSent(f"no connection to {host}:{port} within {connect} s") from exc
        except (OSError, ssl.SSLError) as exc:  # refused, unreachable, DNS, the TLS handshake
            raise NotSent(f"no connection to {host}:{port}: {exc}") from exc
        self.opened += 1
        return protocol

    def _take(self, origin: Origin) -> _Connection | None:
        """An idle connection to ``origin`` that can carry a request, the latest used first: not closed, not
        idle past :attr:`keepalive`, and with nothing waiting to be read — an idle connection that is readable
        has an EOF (or bytes nobody asked for) the loop has not processed yet, and a request written to it
        would be "maybe sent"; it is dropped instead. Each such check is one ``select`` of its socket, no turn
        of the loop."""
        idle = self._idle.get(origin)
        now = self.loop.time()
        while idle:
            conn = idle.pop()
            if not conn.closed and now - conn.idle_since < self.keepalive and conn.quiet():
                return conn
            conn.close()
        return None

    async def post(
        self,
        url: yarl.URL,
        body: bytes,
        extra_headers: str,
        *,
        connect: float | None,
        write: float | None,
        read: float | None,
    ) -> tuple[int, bytes]:
        """POST ``body`` to ``url`` (``extra_headers``: lines ending in CRLF, e.g. its Content-Type): the
        answer's (status, body). Raises :class:`bot.sending.NotSent` (never sent), else ``TimeoutError``,
        ``ConnectionError`` (:class:`ProtocolError` included): maybe sent."""
        origin: Origin = (url.scheme, url.host or "", url.port or 0)
        conn = self._take(origin)
        if conn is None:
            conn = await self._connect(origin, connect)
        transport = conn.transport
        if conn.closed or transport is None or transport.is_closing():
            conn.close()  # closed before anything was written (the server's EOF came first)
            raise NotSent("the connection closed before the request was written")
        waiter: asyncio.Future[tuple[int, bytes]] = self.loop.create_future()
        conn.waiter = waiter
        conn.answer = _Answer()
        written = self.loop.time()
        conn.last_read = written
        transport.write(self._head(url, extra_headers) + b"%d\r\n\r\n" % len(body) + body)
        if read is not None:
            self._watch(conn, waiter, written, read, write)
        try:
            status, payload = await waiter
        except BaseException:
            conn.answer = None
            conn.waiter = None
            conn.close()  # a request cut short (an error, a timeout, a cancellation): its state is unknown
            raise
        finally:
            if conn.timer is not None:
                conn.timer.cancel()
                conn.timer = None
        if not conn.closed:
            conn.idle_since = self.loop.time()
            self._idle.setdefault(origin, []).append(conn)
        return status, payload

    def _watch(
        self,
        conn: _Connection,
        waiter: asyncio.Future[tuple[int, bytes]],
        written: float,
        read: float,
        write: float | None,
    ) -> None:
        """One timer for the answer's timeouts (module docstring), ``conn.timer``: it fires at the earliest
        deadline and re-arms itself when bytes came in meanwhile (no timer per chunk)."""
        total = None if write is None else written + write + read

        def check() -> None:
            conn.timer = None
            if waiter.done():
                return
            now = self.loop.time()
            gap_end = conn.last_read + read
            if now >= gap_end:
                waiter.set_exception(TimeoutError(f"no byte of the answer within {read} s"))
            elif total is not None and now >= total:
                waiter.set_exception(
                    TimeoutError(f"the answer took longer than {write + read if write else read} s")
                )
            else:
                conn.timer = self.loop.call_at(gap_end if total is None else min(gap_end, total), check)

        conn.timer = self.loop.call_at(written + read if total is None else min(written + read, total), check)

    async def close(self) -> None:
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()


__all__ = ["KEEPALIVE", "ProtocolError", "Wire"]
