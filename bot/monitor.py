"""``/metrics`` and ``/healthz`` over HTTP: the routes the webhook app (:mod:`bot.web`) serves on its port,
and the listener every other long-running role serves when ``SIKPAN_METRICS_PORT`` is set (extra
``[webhook]``: Starlette, uvicorn, prometheus-client).

Routes
    ``GET /healthz`` — 200 ``{"database": "ok"[, "redis": "ok"]}`` when the database (and Redis, when
    ``SIKPAN_REDIS_URL`` is set) answer within :data:`HEALTH_TIMEOUT` seconds; 503 with the failing check's
    ``down: …`` otherwise, and 503 while the process stops (a load balancer or Docker takes it out first).
    ``GET /metrics`` — :mod:`bot.metrics` in Prometheus' text format.

The listener (:func:`run_monitor`, a runner of :mod:`bot.app` like the adapters): ``SIKPAN_METRICS_LISTEN``
(default ``127.0.0.1``: a laptop's ``sikpan run`` exposes nothing) on ``SIKPAN_METRICS_PORT`` (default unset:
no listener). It turns :mod:`bot.metrics` on before anything else of the role runs, so a scheduler or a
worker counts its deliveries, queue jobs and sends from its first one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot import metrics
from bot.limits import redis_client

if TYPE_CHECKING:
    from bot.context import AppContext

log = logging.getLogger(__name__)

HEALTH_TIMEOUT = 2.0

HealthCheck = Callable[[], Awaitable[None]]


@dataclass
class Health:
    """The checks of ``/healthz`` and whether the process is stopping (``label`` names it in the report)."""

    checks: dict[str, HealthCheck] = field(default_factory=dict)
    label: str = "process"
    stopping: bool = False

    async def report(self) -> tuple[bool, dict[str, str]]:
        report: dict[str, str] = {}
        healthy = not self.stopping
        if self.stopping:
            report[self.label] = "stopping"
        for name, check in self.checks.items():
            try:
                await asyncio.wait_for(check(), HEALTH_TIMEOUT)
                report[name] = "ok"
            except Exception as exc:  # the health boundary: any failure of a check is "unhealthy", reported
                report[name] = f"down: {type(exc).__name__}"
                healthy = False
        return healthy, report


def database_check(ctx: AppContext) -> HealthCheck:
    async def check() -> None:
        await ctx.storage.fetchone("SELECT 1")

    return check


def redis_check(url: str) -> HealthCheck:
    """PING Redis with a client of its own (so a broken pool of the limiter does not hide a live server)."""

    async def check() -> None:
        client = redis_client(url)
        try:
            await client.ping()
        finally:
            await client.aclose()

    return check


def process_checks(ctx: AppContext) -> dict[str, HealthCheck]:
    """What every role needs: the database, and Redis when ``SIKPAN_REDIS_URL`` is set."""
    checks = {"database": database_check(ctx)}
    if ctx.settings.redis_url:
        checks["redis"] = redis_check(ctx.settings.redis_url)
    return checks


def monitor_routes(health: Health) -> list[Route]:
    """``GET /healthz`` (answered from ``health``) and ``GET /metrics``."""

    async def healthz(request: Request) -> Response:
        healthy, report = await health.report()
        return JSONResponse(report, status_code=200 if healthy else 503)

    async def exposition(request: Request) -> Response:
        body, content_type = metrics.exposition(metrics.enable())
        return Response(body, media_type=content_type)

    return [Route("/healthz", healthz, methods=["GET"]), Route("/metrics", exposition, methods=["GET"])]


class QuietServer(uvicorn.Server):
    """uvicorn without its own signal handlers: ``sikpan run`` owns SIGTERM/SIGINT (they set ``stop``)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def server_config(app: Starlette, host: str, port: int, **options: Any) -> uvicorn.Config:
    """uvicorn's settings for our apps: the process's logging (and token redaction), no access log, no
    ``Server`` header, no lifespan; ``options`` add to them (concurrency limit, graceful timeout …)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        lifespan="off",
        log_config=None,
        access_log=False,
        server_header=False,
        **options,
    )


async def start_serving(server: uvicorn.Server, sock: socket.socket | None = None) -> asyncio.Task[None]:
    """Start ``server`` and return its task once it listens; raises what stopped it at start (a port taken)."""
    serving = asyncio.create_task(server.serve(sockets=[sock] if sock else None), name="http-server")
    while not server.started and not serving.done():
        await asyncio.sleep(0.02)
    if serving.done():
        serving.result()
        raise RuntimeError("the HTTP server stopped at start")
    return serving


async def stop_serving(server: uvicorn.Server, serving: asyncio.Task[None]) -> None:
    """Close the listener and let the requests in flight finish (uvicorn's graceful shutdown)."""
    server.should_exit = True
    with contextlib.suppress(asyncio.CancelledError):
        await serving


async def run_monitor(ctx: AppContext, stop: asyncio.Event, *, sock: socket.socket | None = None) -> None:
    """Serve ``/healthz`` and ``/metrics`` on ``SIKPAN_METRICS_LISTEN``:``SIKPAN_METRICS_PORT`` until ``stop``.

    ``sock``: an already bound socket (tests). ``/healthz`` turns 503 once ``stop`` is set, before the
    listener closes.
    """
    metrics.enable()  # first: the role's other runners record from their first send on
    settings = ctx.settings
    port = settings.monitor_port
    if port is None and sock is None:
        raise ValueError("the metrics listener needs SIKPAN_METRICS_PORT")
    health = Health(process_checks(ctx), label=settings.role)
    app = Starlette(routes=monitor_routes(health))
    server = QuietServer(server_config(app, settings.metrics_listen, port or 0, timeout_graceful_shutdown=5))
    serving = await start_serving(server, sock)
    log.info("metrics: /metrics and /healthz on %s:%s", settings.metrics_listen, port)
    stopper = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({serving, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        health.stopping = True
        stopper.cancel()
        await stop_serving(server, serving)
        await asyncio.gather(stopper, return_exceptions=True)


__all__ = [
    "HEALTH_TIMEOUT",
    "Health",
    "HealthCheck",
    "QuietServer",
    "database_check",
    "monitor_routes",
    "process_checks",
    "redis_check",
    "run_monitor",
    "server_config",
    "start_serving",
    "stop_serving",
]
