"""The loopback lifecycle both fake servers share: serve an aiohttp app on an ephemeral 127.0.0.1 port."""

from __future__ import annotations

from typing import Self

from aiohttp import web


class LoopbackServer:
    """Mixin: ``await self._serve(app)`` in ``start()``; ``close()`` and ``async with`` come with it.

    The class using it sets ``host`` and initialises ``_runner = None`` and ``port = 0``.
    """

    host: str
    port: int
    _runner: web.AppRunner | None

    async def start(self) -> Self:
        raise NotImplementedError

    async def _serve(self, app: web.Application) -> Self:
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
