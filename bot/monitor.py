"""``/livez``, ``/readyz``, ``/healthz`` and ``/metrics`` over HTTP: the routes the webhook app
(:mod:`bot.web`) serves on its port, and the listener every other long-running role serves when
``SIKPAN_METRICS_PORT`` is set (extra ``[webhook]``: Starlette, uvicorn, prometheus-client).

Routes
    ``GET /livez`` — liveness: 200 ``{"loop": "ok"}`` whenever the event loop answers (nothing else is
    asked: a database outage must not get the process restarted).
    ``GET /readyz`` — readiness: 200 when the database (and Redis, when ``SIKPAN_REDIS_URL`` is set) answer
    within :data:`HEALTH_TIMEOUT` seconds **and** every heartbeat this process writes (its scheduler's, its
    queue worker's: ``ctx.heartbeats``) is read back from the database younger than
    :data:`bot.context.HEARTBEAT_MISSED` × its period — a stuck loop or a dead heartbeat task turns it 503
    (``"worker": "down: stale 52s"``); 503 while the process stops.
    ``GET /healthz`` — as before #35: the dependencies only (database, Redis), 503 while stopping; kept for
    the load balancers and scripts that ask it (``python -m bot.healthcheck`` asks ``/readyz``).
    ``GET /metrics`` — :mod:`bot.metrics` in Prometheus' text format; the sampled gauges (queue depth, the
    oldest undelivered reading, heartbeat ages, send-budget occupancy) are read just before (:func:`sampler`).

The listener (:func:`run_monitor`, a runner of :mod:`bot.app` like the adapters): ``SIKPAN_METRICS_LISTEN``
(default ``127.0.0.1``: a laptop's ``sikpan run`` exposes nothing) on ``SIKPAN_METRICS_PORT`` (default unset:
no listener). It turns :mod:`bot.metrics` on before anything else of the role runs, so a scheduler or a
worker counts its deliveries, queue jobs and sends from its first one.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import logging
import platform
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot import metrics
from bot.context import HEARTBEAT_MISSED
from bot.limits import Window, redis_client, split_redis_url, window_occupancy
from bot.storage import parse_utc
from bot.storage.urls import is_postgres_url

if TYPE_CHECKING:
    from bot.context import AppContext

log = logging.getLogger(__name__)

HEALTH_TIMEOUT = 2.0

HealthCheck = Callable[[], Awaitable[None]]


@dataclass
class Health:
    """The checks of ``/healthz`` (``checks``: the dependencies) and ``/readyz`` (those and ``readiness()``,
    the heartbeats, asked at each request), whether the process is stopping (``label`` names it in the
    report), and ``sample``: what ``/metrics`` reads first (:func:`sampler`)."""

    checks: dict[str, HealthCheck] = field(default_factory=dict)
    label: str = "process"
    stopping: bool = False
    readiness: Callable[[], dict[str, HealthCheck]] = dict
    sample: HealthCheck | None = None

    async def report(self, *, ready: bool = False) -> tuple[bool, dict[str, str]]:
        report: dict[str, str] = {}
        healthy = not self.stopping
        if self.stopping:
            report[self.label] = "stopping"
        checks = {**self.checks, **self.readiness()} if ready else self.checks
        for name, check in checks.items():
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


class HeartbeatStale(RuntimeError):
    """A heartbeat of this process is older than it may be, or its row is gone."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "stale"


async def heartbeat_ages(ctx: AppContext) -> dict[str, float | None]:
    """The age in seconds of each heartbeat row this process writes (``ctx.heartbeats``), read back from the
    database on ``ctx.clock``; None when its row is missing."""
    ages: dict[str, float | None] = {}
    for part, beat in list(ctx.heartbeats.items()):
        row = await ctx.storage.fetchone("SELECT heartbeat_at FROM schedulers WHERE token = ?", (beat.token,))
        if row is None or row[0] is None:
            ages[part] = None
            continue
        ages[part] = ((await ctx.clock.now()) - parse_utc(str(row[0]))).total_seconds()
    return ages


ROW_RESOLUTION = 1.0  # seconds: a heartbeat row stores whole seconds (bot.storage.utc_iso)


def heartbeat_checks(ctx: AppContext) -> dict[str, HealthCheck]:
    """One readiness check per heartbeat of this process (as it is now: they come and go with the parts)."""

    def check_of(part: str) -> HealthCheck:
        async def check() -> None:
            beat = ctx.heartbeats.get(part)
            if beat is None:
                return  # the part stopped meanwhile
            age = (await heartbeat_ages(ctx)).get(part)
            limit = beat.every * HEARTBEAT_MISSED + ROW_RESOLUTION
            if age is None:
                if time.monotonic() - beat.since <= limit:
                    return  # just started: its first row is being written
                raise HeartbeatStale("no heartbeat row")
            metrics.heartbeat_age(part, age)
            if age > limit:
                raise HeartbeatStale(f"stale {age:.0f}s")

        return check

    def loop_check(name: str) -> HealthCheck:
        async def check() -> None:
            beat = ctx.loops.get(name)
            if beat is None:
                return  # the loop ended meanwhile
            age = time.monotonic() - beat.last()
            if age > beat.limit:
                raise HeartbeatStale(f"stuck {age:.0f}s")

        return check

    return {
        **{part: check_of(part) for part in ctx.heartbeats},
        **{name: loop_check(name) for name in ctx.loops},
    }


def process_health(ctx: AppContext, label: str) -> Health:
    """The health of a role's process: its dependencies, its heartbeats, its sampled gauges."""
    return Health(
        process_checks(ctx), label=label, readiness=lambda: heartbeat_checks(ctx), sample=sampler(ctx)
    )


QUEUE_SUFFIX = "daily"  # the arq queue's name after the key prefix (bot.queue.queue_name)


def sampler(ctx: AppContext) -> HealthCheck:
    """What ``/metrics`` reads before it answers: the queue depth (Redis), the oldest undelivered reading and
    the heartbeat ages (the database), the occupancy of the overall Telegram send window (the limiter). A
    part that fails (a server away) leaves its gauge at its last value and is logged at DEBUG."""
    settings = ctx.settings

    async def queue() -> None:
        if not settings.redis_url:
            return
        _, prefix = split_redis_url(settings.redis_url)
        client = redis_client(settings.redis_url)  # a connection per scrape, as the Redis health check
        try:
            metrics.queue_depth(int(await client.zcard(prefix + QUEUE_SUFFIX)))
        finally:
            await client.aclose()

    async def oldest() -> None:
        row = await ctx.storage.fetchone(
            "SELECT MIN(due_at) FROM deliveries WHERE status IN ('claimed', 'sending')"
        )
        due = row[0] if row is not None else None
        age = 0.0 if due is None else ((await ctx.clock.now()) - parse_utc(str(due))).total_seconds()
        metrics.oldest_undelivered(age)

    async def heartbeats() -> None:
        for part, age in (await heartbeat_ages(ctx)).items():
            if age is not None:
                metrics.heartbeat_age(part, age)

    async def occupancy() -> None:
        limiter = ctx.limiter
        if limiter is None or not settings.telegram_token:
            return
        share = await window_occupancy(limiter, "telegram:all", Window.of_rate(settings.telegram_send_rate))
        if share is not None:
            metrics.budget_occupancy("telegram", share)

    async def sample() -> None:
        for part in (queue, oldest, heartbeats, occupancy):
            try:
                await asyncio.wait_for(part(), HEALTH_TIMEOUT)
            except Exception as exc:  # the /metrics request's boundary: a gauge not read this time
                log.debug("metrics: %s not sampled: %r", part.__name__, exc)

    return sample


def describe_process(ctx: AppContext) -> None:
    """``sikpan_build_info`` of this process: the package version, Python, the database engine, the role."""
    try:
        version = importlib.metadata.version("sikpan")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    engine = "postgresql" if is_postgres_url(ctx.settings.db_path) else "sqlite"
    metrics.build_info(version, platform.python_version(), engine, ctx.settings.role)


def process_checks(ctx: AppContext) -> dict[str, HealthCheck]:
    """What every role needs: the database, and Redis when ``SIKPAN_REDIS_URL`` is set."""
    checks = {"database": database_check(ctx)}
    if ctx.settings.redis_url:
        checks["redis"] = redis_check(ctx.settings.redis_url)
    return checks


def monitor_routes(health: Health) -> list[Route]:
    """``GET /livez``, ``/readyz``, ``/healthz`` (answered from ``health``) and ``GET /metrics``."""

    async def livez(request: Request) -> Response:
        return JSONResponse({"loop": "ok"})

    async def readyz(request: Request) -> Response:
        ready, report = await health.report(ready=True)
        return JSONResponse(report, status_code=200 if ready else 503)

    async def healthz(request: Request) -> Response:
        healthy, report = await health.report()
        return JSONResponse(report, status_code=200 if healthy else 503)

    async def exposition(request: Request) -> Response:
        registry = metrics.enable()
        if health.sample is not None:
            await health.sample()
        body, content_type = metrics.exposition(registry)
        return Response(body, media_type=content_type)

    return [
        Route("/livez", livez, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", exposition, methods=["GET"]),
    ]


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
    """Serve ``/livez``, ``/readyz``, ``/healthz`` and ``/metrics`` on ``SIKPAN_METRICS_LISTEN``:
    ``SIKPAN_METRICS_PORT`` until ``stop``.

    ``sock``: an already bound socket (tests). ``/readyz`` and ``/healthz`` turn 503 once ``stop`` is set, before the
    listener closes.
    """
    metrics.enable()  # first: the role's other runners record from their first send on
    settings = ctx.settings
    port = settings.monitor_port
    if port is None and sock is None:
        raise ValueError("the metrics listener needs SIKPAN_METRICS_PORT")
    describe_process(ctx)
    health = process_health(ctx, settings.role)
    app = Starlette(routes=monitor_routes(health))
    server = QuietServer(server_config(app, settings.metrics_listen, port or 0, timeout_graceful_shutdown=5))
    serving = await start_serving(server, sock)
    log.info("metrics: /metrics, /livez, /readyz and /healthz on %s:%s", settings.metrics_listen, port)
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
    "HeartbeatStale",
    "describe_process",
    "heartbeat_ages",
    "heartbeat_checks",
    "process_health",
    "sampler",
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
