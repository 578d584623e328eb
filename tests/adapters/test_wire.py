"""``bot.telegram.wire``: the Bot API's JSON requests on keep-alive HTTP/1.1 connections of our own.

Answers are read whatever the framing and however the bytes are cut; connections are reused, and dropped
when the server closed them, when they idled too long or when the answer says so; the not-sent / maybe-sent
line (``bot.sending.request_not_sent``) holds: no connection → ``NotSent``, anything after the write →
maybe sent; TLS checks the certificate. The transport's other scenarios (a lost answer, a read timeout, a
refused connection, 429, 401) run through it in ``tests/adapters/test_request.py`` and
``tests/reliability/test_telegram_faults.py``.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import ssl
import subprocess
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import yarl

from bot.sending import NotSent
from bot.telegram.wire import ProtocolError, Wire, _Answer

BODY = '{"ok": true, "result": {"message_id": 1, "text": "甲子 하루"}}'.encode()


def _feed(raw: bytes, seed: int) -> _Answer:
    """``raw`` fed in random pieces (one byte to all of it); the answer once complete."""
    rng = random.Random(seed)
    answer = _Answer()
    i = 0
    while i < len(raw):
        n = rng.randint(1, len(raw) - i)
        if answer.feed(raw[i : i + n]):
            assert i + n == len(raw), "complete before its last byte"
            return answer
        i += n
    if answer.ended():  # an answer delimited by the end of the connection
        return answer
    raise AssertionError("the answer never completed")


def _chunked(body: bytes, sizes: list[int]) -> bytes:
    out, i = b"", 0
    for size in sizes:
        piece = body[i : i + size]
        i += size
        out += b"%x;ext=1\r\n" % len(piece) + piece + b"\r\n"
    return out + b"0\r\nX-Trailer: t\r\n\r\n"


ANSWERS = [
    # (raw answer, status, body, connection closed after it)
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY,
     200, BODY, False),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + _chunked(BODY, [5, 1, 30, 200]), 200, BODY, False),
    (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\ncontent-length: %d\r\n\r\n" % len(BODY)
     + BODY, 429, BODY, False),
    (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(gzip.compress(BODY))
     + gzip.compress(BODY), 200, BODY, False),
    (b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: %d\r\n\r\n" % len(zlib.compress(BODY))
     + zlib.compress(BODY), 200, BODY, False),
    (b"HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbad", 502, b"bad", True),
    (b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, b"ok", True),
    (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", 200, b"ok", False),
    (b"HTTP/1.1 200 OK\r\n\r\n" + BODY, 200, BODY, True),  # until the connection ends
    (b"HTTP/1.1 204 No Content\r\n\r\n", 204, b"", False),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, b"", False),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "status", "body", "close"), ANSWERS)
def test_an_answer_is_read_whatever_its_framing_and_however_it_is_cut(raw, status, body, close) -> None:
    for seed in range(40):
        answer = _feed(raw, seed)
        assert (answer.status, answer.content(), answer.close) == (status, body, close)


def test_bytes_after_an_answer_close_its_connection() -> None:
    answer = _Answer()
    assert answer.feed(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n")
    assert answer.content() == b"ok" and answer.close


@pytest.mark.parametrize(
    "raw",
    [
        b"HTTP/2 200 OK\r\n\r\n",
        b"ICY 200 OK\r\n\r\n",
        b"HTTP/1.1 2000 OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n folded: header\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX",
    ],
)
def test_a_malformed_answer_is_a_protocol_error(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        _Answer().feed(raw)


def test_a_corrupt_compressed_answer_is_a_protocol_error() -> None:
    answer = _Answer()
    assert answer.feed(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope")
    with pytest.raises(ProtocolError):
        answer.content()


# ------------------------------------------------------------------ against a server
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    return head, await reader.readexactly(length)


def _ok(body: bytes = BODY) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body


class Server:
    """A raw HTTP server on 127.0.0.1: ``answer(index, head, body, writer)`` writes each answer."""

    def __init__(
        self, answer: Callable[..., Awaitable[bool]], ssl_context: ssl.SSLContext | None = None
    ) -> None:
        self.answer = answer
        self.ssl = ssl_context
        self.connections = 0
        self.requests: list[tuple[bytes, bytes]] = []

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                try:
                    head, body = await _read_request(reader)
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                self.requests.append((head, body))
                if not await self.answer(len(self.requests) - 1, head, body, writer):
                    return
        finally:
            writer.close()

    async def __aenter__(self) -> yarl.URL:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.ssl)
        port = self.server.sockets[0].getsockname()[1]
        return yarl.URL(f"{'https' if self.ssl else 'http'}://127.0.0.1:{port}/bot1:T/sendMessage")

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()


async def _post(wire: Wire, url: yarl.URL, **timeouts: float | None) -> tuple[int, bytes]:
    limits = {"connect": 2.0, "write": 2.0, "read": 2.0, **timeouts}
    return await wire.post(url, b'{"chat_id": 1}', "Content-Type: application/json\r\n", **limits)


async def _answered(keep_open: bool, count: int) -> tuple[Server, Wire, yarl.URL]:
    """``count`` requests, each answered 200 (the server closing the connection behind each answer unless
    ``keep_open``), all of them answered."""

    async def answer(index: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(_ok())
        return keep_open

    server = Server(answer)
    async with server as url:
        wire = Wire("sikpan-test")
        try:
            for _ in range(count):
                assert await _post(wire, url) == (200, BODY)
        finally:
            await wire.close()
    return server, wire, url


async def test_a_request_is_one_post_of_json_and_connections_are_reused() -> None:
    server, wire, url = await _answered(True, 3)
    assert server.connections == 1 and wire.opened == 1
    head, body = server.requests[0]
    lines = head.decode().split("\r\n")
    assert lines[0] == "POST /bot1:T/sendMessage HTTP/1.1"
    assert {f"Host: 127.0.0.1:{url.port}", "User-Agent: sikpan-test", "Content-Type: application/json",
            "Content-Length: 14"} <= set(lines)  # fmt: skip
    assert body == b'{"chat_id": 1}'


async def test_a_connection_the_server_closed_or_that_idled_too_long_is_not_reused() -> None:
    async def answer(index: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(_ok())
        await writer.drain()
        return index != 0  # the first connection is closed by the server after its answer

    server = Server(answer)
    async with server as url:
        wire = Wire("sikpan-test")
        try:
            assert await _post(wire, url) == (200, BODY)
            await asyncio.sleep(0.05)  # the server's FIN arrives
            assert await _post(wire, url) == (200, BODY)  # on a new connection, not a failed write
            wire.keepalive = 0.0  # from now on every idle connection is too old
            assert await _post(wire, url) == (200, BODY)
        finally:
            await wire.close()
    assert server.connections == 3 and wire.opened == 3


async def test_a_connection_closed_with_its_answer_is_not_written_to_again() -> None:
    """The server answers and closes at once (a restart, a drained balancer): the next request, made
    straight away — before the loop has had a turn to read the EOF — goes on a new connection and is
    answered; it is not written into the closed one (which would make it "maybe sent")."""
    server, wire, _ = await _answered(False, 5)
    assert server.connections == 5 and wire.opened == 5 and len(server.requests) == 5


async def test_connection_close_in_the_answer_is_honoured() -> None:
    async def answer(index: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")
        return True  # the server would go on: the client does not

    server = Server(answer)
    async with server as url:
        wire = Wire("sikpan-test")
        try:
            assert await _post(wire, url) == (200, b"ok")
            assert await _post(wire, url) == (200, b"ok")
        finally:
            await wire.close()
    assert wire.opened == 2


async def test_no_connection_is_not_sent_and_anything_after_the_write_is_maybe_sent() -> None:
    async with Server(lambda *a: asyncio.sleep(0, True)) as url:
        pass  # the server is gone: its port refuses
    wire = Wire("sikpan-test")
    with pytest.raises(NotSent):
        await _post(wire, url)

    async def drop(index: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        if index == 0:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")  # cut short
        elif index == 1:
            writer.write(b"NOT HTTP\r\n\r\n")
        else:
            await asyncio.sleep(1.0)  # silent past the read timeout
            return True
        await writer.drain()
        return False

    async with Server(drop) as url:
        try:
            with pytest.raises(ConnectionError):
                await _post(wire, url)
            with pytest.raises(ProtocolError):
                await _post(wire, url)
            with pytest.raises(TimeoutError):
                await _post(wire, url, read=0.2)
        finally:
            await wire.close()


async def test_a_slow_answer_is_bounded_as_a_whole_not_only_between_bytes() -> None:
    async def drip(index: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n")
        for _ in range(50):
            await asyncio.sleep(0.05)  # a byte every 50 ms: never a gap of the read timeout
            writer.write(b"x")
        return True

    async with Server(drip) as url:
        wire = Wire("sikpan-test")
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            with pytest.raises(TimeoutError):
                await _post(wire, url, write=0.2, read=0.3)
        finally:
            await wire.close()
    assert 0.45 <= loop.time() - started < 1.5  # write + read after the request was written


def _certificate(tmp: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl), its key."""
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


async def test_tls_checks_the_certificate_and_a_failed_handshake_is_not_sent(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path)
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert, key)

    async def answer(index: int, head: bytes, body: bytes, writer: asyncio.StreamWriter) -> bool:
        writer.write(_ok())
        return True

    server = Server(answer, server_context)
    async with server as url:
        untrusting = Wire("sikpan-test")  # the system's CAs: a self-signed certificate is refused
        with pytest.raises(NotSent) as refused:
            await _post(untrusting, url)
        assert isinstance(refused.value.__cause__, ssl.SSLCertVerificationError)
        assert server.requests == []  # nothing was sent
        trusting = Wire("sikpan-test")
        trusting._ssl = ssl.create_default_context(cafile=str(cert))
        try:
            assert await _post(trusting, url) == (200, BODY)
            assert await _post(trusting, url) == (200, BODY)
        finally:
            await trusting.close()
            await untrusting.close()
    assert server.connections == 1 and trusting.opened == 1  # (a failed handshake never reaches the handler)
