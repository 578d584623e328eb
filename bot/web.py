"""The Telegram webhook as an ASGI app (Starlette), served by uvicorn: ``sikpan run --role webhook``, or any
role that runs Telegram while ``TELEGRAM_WEBHOOK_URL`` is set (extra ``[webhook]``).

Routes
    ``POST /{TELEGRAM_WEBHOOK_PATH}`` — an update from Telegram. The ``X-Telegram-Bot-Api-Secret-Token``
    header must equal ``TELEGRAM_WEBHOOK_SECRET`` (missing → 401, wrong → 403; nothing is read or handled).
    The update is **handled before the answer**: read with ``Update.de_json`` and fed to the same PTB
    ``Application`` polling feeds (``await application.process_update(update)``: its handlers, its error
    handler; the reply is sent — or, when the chat's send budget makes it wait, left in the chat's queue of
    the sender, :meth:`bot.telegram.sender.TelegramSender.reply`: a busy group never holds the webhook's
    requests), then 200. A replica that dies or is stopped mid-update never answered, so Telegram redelivers
    (a reply still queued at a ``kill -9`` is lost: its update was answered).
    Redeliveries are deduplicated by ``update_id`` across replicas (:class:`bot.storage.webhook.UpdateLedger`
    on the database, or :class:`~bot.storage.webhook.RedisUpdateLedger` when ``SIKPAN_REDIS_URL`` is set): handled already → 200 and nothing done; being handled elsewhere → 503 (Telegram
    tries again later). Malformed bodies → 400 (JSON nested too deep for the parser included); an
    ``update_id`` outside 0 … 2**63 − 1 (no id Telegram gives, none the ledger holds) → 200 and dropped.
    Nothing else: ``GET /livez``, ``/readyz``, ``/healthz`` and ``GET /metrics``
    (:func:`bot.monitor.monitor_routes`: the database and Redis answer → 200, else 503, and 503 while
    stopping, so a load balancer takes the replica out first; the metrics of :mod:`bot.metrics`) are on a
    listener of their own, ``SIKPAN_METRICS_LISTEN`` (default ``127.0.0.1``) : ``SIKPAN_METRICS_PORT``
    (default 9100 for a process serving the webhook, :attr:`bot.config.Settings.monitor_port`), not on the
    public webhook listener — unless ``SIKPAN_METRICS_PORT`` names the webhook's port, which puts them here
    (chosen explicitly). The update being handled is counted in ``sikpan_webhook_in_flight`` and its
    ``update_id`` is on every log line meanwhile (:mod:`bot.logs`).

Stopping (:func:`serve_webhook`, when ``stop`` is set — SIGTERM): ``/healthz`` turns 503, uvicorn closes
the listening socket (no new connections) and lets every request in flight finish (handled, answered),
then the PTB application stops. Requests beyond ``limit_concurrency`` get 503 instead of queueing.

Start-up: the server listens first, then ``setWebhook`` (URL, secret, ``allowed_updates``) — idempotent, so
every replica may call it; ``drop_pending_updates`` is never set (nothing queued at Telegram is lost).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from telegram import Update

from bot import logs, metrics
from bot.monitor import (
    Health,
    QuietServer,
    describe_process,
    monitor_routes,
    process_health,
    server_config,
    start_serving,
    stop_serving,
)
from bot.storage.webhook import LEASE, Claim, Ledger, RedisUpdateLedger, UpdateLedger

if TYPE_CHECKING:
    from telegram.ext import Application

    from bot.context import AppContext

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_BODY = 1 << 20  # an update is a few kilobytes; refuse megabytes
MAX_UPDATE_ID = (
    2**63 - 1
)  # the ledger's column (SQLite INTEGER, PostgreSQL BIGINT); Telegram's ids are 32-bit
PURGE_EVERY = 600.0  # seconds between deletions of update ids older than a day


@dataclass
class WebhookState:
    """What the routes share: the PTB application, the ledger, the health checks (``stopping`` once stop is
    set)."""

    ctx: AppContext
    application: Application[Any, Any, Any, Any, Any, Any]
    ledger: Ledger
    secret: str
    health: Health = field(default_factory=lambda: Health(label="webhook"))
    webhook_set: bool = False  # setWebhook answered (the server was listening before it)
    in_flight: set[int] = field(default_factory=set)
    handled: int = 0

    @property
    def stopping(self) -> bool:
        return self.health.stopping


def _refused(status: int, result: str) -> Response:
    metrics.webhook_update(result)
    return Response(status_code=status)


async def _update(request: Request) -> Response:
    state: WebhookState = request.app.state.webhook
    given = request.headers.get(SECRET_HEADER)
    if given is None:
        return _refused(401, "unauthorized")
    if not hmac.compare_digest(given.encode(), state.secret.encode()):
        return _refused(403, "forbidden")
    if state.stopping:
        return _refused(503, "stopping")  # another replica takes the redelivery
    try:
        data = json.loads(await request.body())
    except ClientDisconnect:
        return _refused(400, "cut")
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested deeper than json reads
        return _refused(400, "malformed")
    update_id = data.get("update_id") if isinstance(data, dict) else None
    if not isinstance(update_id, int) or isinstance(update_id, bool):
        return _refused(400, "malformed")
    if not 0 <= update_id <= MAX_UPDATE_ID:
        # not an id Telegram gives (and not one the ledger's 64-bit column holds): answered 200 so it is not
        # sent again, and dropped
        log.warning("webhook: update id out of range (%d digits); dropped", len(str(update_id)))
        return _refused(200, "out_of_range")
    ledger = state.ledger
    now = await state.ctx.clock.now()
    try:
        claim = await ledger.claim(update_id, now)
    except Exception as exc:  # request boundary: the database failed (any driver error): Telegram redelivers
        log.warning("webhook: update %s not claimed: %r", update_id, exc)
        return _refused(503, "db_down")
    if claim is Claim.DONE:
        return _refused(200, "duplicate")
    if claim is Claim.BUSY:
        metrics.webhook_update("busy")
        return Response(status_code=503, headers={"Retry-After": "5"})
    state.in_flight.add(update_id)
    metrics.webhook_in_flight(1)
    try:
        with logs.ids(update=update_id):  # every line logged while it is handled carries its id
            await _handle(state, update_id, data)
    finally:
        state.in_flight.discard(update_id)
        metrics.webhook_in_flight(-1)
    try:
        await ledger.finish(update_id, await state.ctx.clock.now())
    except Exception as exc:  # request boundary: handled and replied, so 200 anyway (the lease runs out)
        log.warning("webhook: update %s handled but not marked done: %r", update_id, exc)
        metrics.dropped("update_unmarked")
    state.handled += 1
    metrics.webhook_update("handled")
    return Response(status_code=200)


async def _handle(state: WebhookState, update_id: int, data: dict[str, Any]) -> None:
    application = state.application
    try:
        update = Update.de_json(data, application.bot)
    except (
        AttributeError,
        KeyError,
        TypeError,
        ValueError,
        RecursionError,
    ) as exc:  # PTB cannot read it: never will
        log.warning("webhook: update %s could not be read (%r); ignored", update_id, exc)
        metrics.dropped("update_unreadable")
    else:
        await application.process_update(update)  # handled (replied) before we answer


def build_app(state: WebhookState, path: str) -> Starlette:
    """The ASGI app (routes above) around ``state``."""
    metrics.enable()
    monitor = monitor_routes(state.health) if state.ctx.settings.monitor_on_webhook else []
    app = Starlette(
        routes=[Route("/" + path.strip("/"), _update, methods=["POST"]), *monitor],
        max_body_size=MAX_BODY,
    )
    app.state.webhook = state
    return app


async def _every(seconds: float, job: Callable[[], Awaitable[Any]], what: str) -> None:
    while True:
        await asyncio.sleep(seconds)
        try:
            await job()
        except Exception as exc:  # process boundary of a housekeeping task: the database is away, next round
            log.warning("webhook: %s failed: %r", what, exc)


async def serve_webhook(
    ctx: AppContext,
    application: Application[Any, Any, Any, Any, Any, Any],
    stop: asyncio.Event,
    *,
    sock: socket.socket | None = None,
    grace: int = 25,
    limit_concurrency: int = 512,
    allowed_updates: Sequence[str] = (),
) -> None:
    """Serve the webhook until ``stop`` is set, then drain (see the module docstring).

    ``application`` is initialized and started by the caller. ``sock``: an already bound socket (tests);
    otherwise ``TELEGRAM_WEBHOOK_LISTEN``:``TELEGRAM_WEBHOOK_PORT``. ``allowed_updates``: the kinds of
    update ``setWebhook`` asks for (``bot.telegram.ALLOWED_UPDATES``: what the application's handlers take).
    """
    settings = ctx.settings
    secret = settings.telegram_webhook_secret
    url = settings.telegram_webhook_url
    if not secret or not url:  # load_settings refuses a URL without a secret; this guards other callers
        raise ValueError("a webhook needs TELEGRAM_WEBHOOK_URL and TELEGRAM_WEBHOOK_SECRET")
    bot_key = f"telegram:{application.bot.id}"
    ledger: Ledger = (
        RedisUpdateLedger.connect(settings.redis_url, bot_key)
        if settings.redis_url
        else UpdateLedger(ctx.storage, bot_key)
    )
    health = process_health(ctx, "webhook")
    describe_process(ctx)
    state = WebhookState(ctx=ctx, application=application, ledger=ledger, secret=secret, health=health)
    ctx.webhook_state = state
    config = server_config(
        build_app(state, settings.telegram_webhook_path),
        settings.telegram_webhook_listen,
        settings.telegram_webhook_port,
        limit_concurrency=limit_concurrency,
        timeout_graceful_shutdown=grace,
        timeout_keep_alive=30,
    )
    server = QuietServer(config)
    renew = asyncio.create_task(_every(LEASE.total_seconds() / 3, _renew(state), "lease renewal"))
    purge = asyncio.create_task(_every(PURGE_EVERY, _purge(state), "purge"))
    stopper = asyncio.create_task(stop.wait())
    serving: asyncio.Task[None] | None = None
    try:
        serving = await start_serving(server, sock)  # the port is taken, or similar: raises it
        settings = state.ctx.settings
        await application.bot.set_webhook(
            url=url,
            secret_token=secret,
            allowed_updates=list(allowed_updates),
            drop_pending_updates=settings.telegram_webhook_drop_pending,
            max_connections=settings.telegram_webhook_max_connections,
            ip_address=settings.telegram_webhook_ip_address,
        )
        state.webhook_set = True
        log.info(
            "telegram: webhook for @%s on %s:%s/%s",
            application.bot.username,
            settings.telegram_webhook_listen,
            settings.telegram_webhook_port,
            settings.telegram_webhook_path,
        )
        await asyncio.wait({serving, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        health.stopping = True  # /healthz says 503; new updates go to another replica
        started = time.monotonic()
        log.info("telegram: webhook stopping, %d updates in flight", len(state.in_flight))
        if serving is not None:  # uvicorn: close the listener, finish the requests in flight
            await stop_serving(server, serving)
        log.info(
            "telegram: webhook drained in %.1fs (%d updates handled)",
            time.monotonic() - started,
            state.handled,
        )
        for task in (renew, purge, stopper):
            task.cancel()
        await asyncio.gather(renew, purge, stopper, return_exceptions=True)
        await ledger.close()


def _renew(state: WebhookState) -> Callable[[], Awaitable[Any]]:
    async def job() -> None:
        if state.in_flight:
            await state.ledger.renew(await state.ctx.clock.now(), set(state.in_flight))

    return job


def _purge(state: WebhookState) -> Callable[[], Awaitable[Any]]:
    async def job() -> None:
        await state.ledger.purge(await state.ctx.clock.now())

    return job


__all__ = ["SECRET_HEADER", "WebhookState", "build_app", "serve_webhook"]
