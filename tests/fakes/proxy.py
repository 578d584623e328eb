"""A TCP proxy a test can cut and restore: what a network partition or a stopped server (PostgreSQL, Redis)
looks like to the process on the other side, without stopping the shared server."""

from __future__ import annotations

import asyncio
import contextlib
import socket


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proxy:
    """127.0.0.1:port → upstream; ``cut()`` closes the listener and every connection, ``resume()`` listens
    again on the same port. ``async with`` resumes on entry and cuts on exit."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.port = _free_port()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def resume(self) -> None:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def cut(self) -> None:
        if self.server is None:
            return
        self.server.close()
        for writer in list(self.writers):
            writer.transport.abort()
        self.writers.clear()
        await self.server.wait_closed()
        self.server = None

    async def __aenter__(self) -> Proxy:
        await self.resume()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.cut()
