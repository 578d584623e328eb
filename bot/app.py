"""The application: ``run`` starts the parts of one **role** in one event loop and supervises them.

Roles (``sikpan run --role``, or ``SIKPAN_ROLE``; :data:`ROLES` maps each to its runners)

==============  ===================================================================================
``all``         (default, one process) every adapter whose token is set — Telegram by long polling, or
                the webhook app when ``TELEGRAM_WEBHOOK_URL`` is set — and the daily scheduler (with
                ``SIKPAN_REDIS_URL`` and a Telegram token: a queue worker too); the console chat on
                stdin/stdout when no token is set
``telegram``    the Telegram adapter alone (polling or webhook, as configured); no scheduler
``discord``     the Discord adapter alone (``AutoShardedClient``: ``DISCORD_SHARD_COUNT``/``_IDS``); with
                ``SIKPAN_REDIS_URL`` also the scheduler of the Discord readings
``scheduler``   the daily scheduler, with send-only Telegram/Discord clients (no updates taken in); with
                ``SIKPAN_REDIS_URL`` it schedules the Telegram readings alone and queues them for the
                workers (Discord readings: the ``discord`` role's processes, which have the client)
``worker``      sends the queued daily readings (:func:`bot.scheduler.run_worker`, the arq queue of
                :mod:`bot.queue`; needs ``SIKPAN_REDIS_URL`` and ``TELEGRAM_BOT_TOKEN``), with the send
                budgets shared through Redis; any number side by side
``webhook``     the Telegram webhook app (:mod:`bot.web`; needs the token, ``TELEGRAM_WEBHOOK_URL`` and
                ``TELEGRAM_WEBHOOK_SECRET``): many replicas behind one URL, one database
==============  ===================================================================================

Any role also serves ``/metrics``, ``/livez``, ``/readyz`` and ``/healthz`` (:mod:`bot.monitor`, extra ``[webhook]``) on
``SIKPAN_METRICS_LISTEN``:``SIKPAN_METRICS_PORT`` when the port is set (the task ``metrics``: one that
cannot listen stops the process) — except that a process serving the webhook on that same port already
serves them there.

``run(settings, stop)`` resolves the role's runners first (a missing extra or setting fails before anything
opens: :class:`MissingExtra`, :class:`RoleError`), checks the database (:func:`bot.startup.check_database`),
opens it (migrating it), then starts the runners. It returns when ``stop`` is set (or the console reaches
end of input) and every task ended.

The chat libraries and the webhook server are optional extras (``pip install 'sikpan[telegram]'``,
``[discord]``, ``[webhook]``, ``[all]``): a module is imported only when its part is configured, and a
missing library raises :class:`MissingExtra` (``sikpan run`` turns it into a one-line message naming the
extra) before anything starts.

Supervision (:func:`_supervise`): a task that fails is logged and the others go on, except that an adapter
that cannot start (``StartupError`` after its retries), the last adapter gone, or a failed part the role
exists for (the scheduler of the ``scheduler`` role) stops everything, and ``run`` raises
:class:`bot.startup.StartupError` so the process exits non-zero.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
from collections.abc import Callable, Collection, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.config import ROLES as ROLE_NAMES
from bot.config import ConfigError, Settings
from bot.console import LineSource, run_console
from bot.context import AppContext, Clock, SystemClock, create_context
from bot.i18n import N_
from bot.scheduler import TransportFactory, run_scheduler, run_worker
from bot.startup import StartupError, check_database, open_database

log = logging.getLogger(__name__)

Runner = Callable[[AppContext, asyncio.Event], Coroutine[Any, Any, None]]

# The extra that installs each adapter's chat library, and the top-level module of that library.
EXTRAS: dict[str, tuple[str, str]] = {"telegram": ("telegram", "telegram"), "discord": ("discord", "discord")}
# The webhook app's libraries (extra [webhook]).
WEBHOOK_MODULES = ("starlette", "uvicorn", "prometheus_client")
# The Redis queue's libraries (extra [redis]).
REDIS_MODULES = ("redis", "arq")


class MissingExtra(RuntimeError):
    """A part is configured but the library it needs is not installed."""

    def __init__(self, platform: str, extra: str, module: str) -> None:
        super().__init__(f"{platform}: install sikpan[{extra}] (module {module!r} is missing)")
        self.platform = platform
        self.extra = extra
        self.module = module


class RoleError(ConfigError):
    """The role cannot run with these settings (a token or URL it needs is not set); exit status 2."""


@contextlib.contextmanager
def _extra(part: str, extra: str, libraries: Collection[str]) -> Iterator[None]:
    """Imports made inside, of an optional extra's modules, that fail on a missing library raise
    :class:`MissingExtra` naming ``part`` and ``extra`` (any other missing module is a bug: re-raised)."""
    try:
        yield
    except ModuleNotFoundError as err:
        if err.name is not None and err.name.split(".")[0] in libraries:
            raise MissingExtra(part, extra, err.name) from None
        raise


def transport_runner(platform: str, *, send_only: bool = False) -> Runner:
    """The run function of an adapter — or, ``send_only``, of a send-only client (the scheduler role: the
    sender, no updates taken in) — imported now (its chat library is an optional extra)."""
    extra, library = EXTRAS[platform]
    with _extra(platform, extra, (library,)):
        if platform == "telegram":
            from bot.telegram import run_telegram, run_telegram_sender

            return run_telegram_sender if send_only else run_telegram
        from bot.discord import run_discord, run_discord_sender

        return run_discord_sender if send_only else run_discord


def scheduler_runner(adapters: Collection[str], platforms: Sequence[str] | None = None) -> Runner:
    """:func:`bot.scheduler.run_scheduler` sending also through the daily transports of the chat clients this
    process runs (``adapters``: their runner names): Discord's :class:`bot.discord.transport.DiscordTransport`
    where the Discord client or its send-only client runs — the scheduler imports no adapter.
    ``platforms``: only these platforms' readings."""
    transports: list[TransportFactory] = []
    if {"discord", "discord-sender"} & set(adapters):
        extra, library = EXTRAS["discord"]
        with _extra("discord", extra, (library,)):
            from bot.discord.transport import DiscordTransport

        transports.append(DiscordTransport)
    return functools.partial(run_scheduler, platforms=platforms, transports=tuple(transports))


def worker_runner() -> Runner:
    """:func:`bot.scheduler.run_worker` with the Telegram sender it sends through
    (:func:`bot.telegram.sender.start_sender`), imported now (``[telegram]``: :class:`MissingExtra` if not)."""
    extra, library = EXTRAS["telegram"]
    with _extra("telegram", extra, (library,)):
        from bot.telegram.sender import start_sender
    return functools.partial(run_worker, start_sender=start_sender)


def require_webhook_extra() -> None:
    """The webhook app's modules import (``bot.web``); :class:`MissingExtra` naming ``[webhook]`` if not."""
    with _extra("telegram webhook", "webhook", WEBHOOK_MODULES):
        import bot.web  # noqa: F401  (the webhook's libraries, loaded now so a gap fails before start)


def monitor_runner() -> Runner:
    """:func:`bot.monitor.run_monitor`, imported now; :class:`MissingExtra` naming ``[webhook]`` if its
    libraries (Starlette, uvicorn, prometheus-client) are absent."""
    runner: Runner
    with _extra("metrics listener", "webhook", WEBHOOK_MODULES):
        from bot.monitor import run_monitor as runner
    return runner


def configured_runners(settings: Settings) -> dict[str, Runner]:
    """``{platform: runner}`` for every token that is set; :class:`MissingExtra` when a library is absent."""
    tokens = {"telegram": settings.telegram_token, "discord": settings.discord_token}
    runners = {platform: transport_runner(platform) for platform, token in tokens.items() if token}
    if "telegram" in runners and settings.webhook:
        require_webhook_extra()
    return runners


@dataclass(frozen=True)
class Plan:
    """What a role runs: ``runners`` by task name; ``adapters`` (a failed start, or the last one gone,
    stops the process) and ``critical`` (any failure stops it) name some of them; ``console`` when the
    console chat runs instead."""

    runners: dict[str, Runner] = field(default_factory=dict)
    adapters: frozenset[str] = frozenset()
    critical: frozenset[str] = frozenset()
    console: bool = False


def _need(ok: object, role: str, what: str) -> None:
    if not ok:
        raise RoleError(N_("bot.error.role_needs"), f"--role {role} needs {what}", role=role, what=what)


def require_redis_extra() -> None:
    """The Redis queue's modules import (``bot.queue``: redis, arq); :class:`MissingExtra` naming ``[redis]``."""
    with _extra("redis queue", "redis", REDIS_MODULES):
        import bot.queue  # noqa: F401  (the queue's libraries, loaded now so a gap fails before start)


def _plan_all(settings: Settings) -> Plan:
    runners = configured_runners(settings)
    if not runners:
        return Plan(console=True)
    parts: dict[str, Runner] = {**runners, "scheduler": scheduler_runner(runners)}
    if settings.redis_url and settings.telegram_token:
        # the scheduler queues the Telegram readings (bot.queue): this process works the queue too
        require_redis_extra()
        parts["worker"] = worker_runner()
    return Plan(parts, adapters=frozenset(runners))


def _plan_telegram(settings: Settings) -> Plan:
    _need(settings.telegram_token, "telegram", "TELEGRAM_BOT_TOKEN")
    runners = {"telegram": transport_runner("telegram")}
    if settings.webhook:
        require_webhook_extra()
    return Plan(runners, adapters=frozenset(runners))


def _plan_discord(settings: Settings) -> Plan:
    _need(settings.discord_token, "discord", "DISCORD_BOT_TOKEN")
    runners = {"discord": transport_runner("discord")}
    if settings.redis_url:
        # with the Redis queue the scheduler role schedules Telegram alone: the Discord readings are
        # scheduled here, where the Discord client is (several replicas: the database decides the claims)
        return Plan(
            {**runners, "scheduler": scheduler_runner(runners, platforms=("discord",))},
            adapters=frozenset(runners),
        )
    return Plan(runners, adapters=frozenset(runners))


def _plan_webhook(settings: Settings) -> Plan:
    _need(settings.telegram_token, "webhook", "TELEGRAM_BOT_TOKEN")
    _need(settings.webhook, "webhook", "TELEGRAM_WEBHOOK_URL")
    _need(settings.telegram_webhook_secret, "webhook", "TELEGRAM_WEBHOOK_SECRET")
    runners = {"telegram": transport_runner("telegram")}
    require_webhook_extra()
    return Plan(runners, adapters=frozenset(runners))


def _plan_scheduler(settings: Settings) -> Plan:
    _need(settings.has_tokens, "scheduler", "TELEGRAM_BOT_TOKEN / DISCORD_BOT_TOKEN")
    if settings.redis_url:
        # the Telegram readings go to the queue (the workers send them): no client here; the Discord readings
        # are scheduled by the ``discord`` role's processes, which have the client
        _need(settings.telegram_token, "scheduler", "TELEGRAM_BOT_TOKEN")
        require_redis_extra()
        return Plan(
            {"scheduler": scheduler_runner((), platforms=("telegram",))},
            critical=frozenset({"scheduler"}),
        )
    tokens = {"telegram": settings.telegram_token, "discord": settings.discord_token}
    senders = {f"{p}-sender": transport_runner(p, send_only=True) for p, token in tokens.items() if token}
    return Plan(
        {**senders, "scheduler": scheduler_runner(senders)},
        adapters=frozenset(senders),
        critical=frozenset({"scheduler"}),
    )


def _plan_worker(settings: Settings) -> Plan:
    """Queued daily readings (``bot.queue``) sent through a Telegram sender of its own (no updates taken in)."""
    _need(settings.redis_url, "worker", "SIKPAN_REDIS_URL")
    _need(settings.telegram_token, "worker", "TELEGRAM_BOT_TOKEN")
    worker = worker_runner()  # python-telegram-bot present (MissingExtra naming [telegram] if not)
    require_redis_extra()
    return Plan({"worker": worker}, critical=frozenset({"worker"}))


# The roles of ``sikpan run --role``: each resolves its runners from the settings (or refuses).
ROLES: dict[str, Callable[[Settings], Plan]] = {
    "all": _plan_all,
    "telegram": _plan_telegram,
    "discord": _plan_discord,
    "scheduler": _plan_scheduler,
    "worker": _plan_worker,
    "webhook": _plan_webhook,
}
assert tuple(ROLES) == ROLE_NAMES


def plan(settings: Settings) -> Plan:
    """The runners of ``settings.role``; :class:`RoleError` / :class:`MissingExtra` when it cannot run.

    With ``SIKPAN_METRICS_PORT`` the metrics listener comes first (it turns the metrics on before the other
    runners record anything) and is critical; not when the webhook app already serves that port."""
    parts = ROLES[settings.role](settings)
    if settings.redis_url and not parts.console and not settings.shared_database:
        # Redis shares the send budgets, the queue and the update ids among processes: with a SQLite file of
        # its own (a typo'd SIKPAN_DB falls back to ./sikpan.db) a process takes shared work and cannot see
        # its rows. Refused unless the operator says every process opens this one file (one host).
        raise RoleError(
            N_("bot.error.redis_needs_shared_db"),
            f"--role {settings.role} uses Redis (SIKPAN_REDIS_URL) but SIKPAN_DB is a SQLite file of its own"
            " (set a postgresql:// URL, or SIKPAN_SQLITE_SHARED=1 when every process opens this one file)",
            role=settings.role,
            path=settings.db_path,
        )
    if settings.monitor_port is None or settings.monitor_on_webhook:
        return parts
    return dataclasses.replace(
        parts,
        runners={"metrics": monitor_runner(), **parts.runners},
        critical=parts.critical | {"metrics"},
    )


async def run(
    settings: Settings,
    stop: asyncio.Event,
    *,
    console_io: tuple[LineSource, Any] | None = None,
    clock: Clock | None = None,
) -> None:
    """Start the parts of ``settings.role`` and wait until ``stop`` is set.

    Raises :class:`bot.startup.StartupError` when the database is unusable (checked before it is opened)
    or an adapter cannot start (after its retries): everything else is stopped first, so the process
    exits non-zero.
    """
    parts = plan(settings)  # before the database is opened: a missing extra or setting fails first
    await asyncio.to_thread(check_database, settings.db_path)
    ctx = await open_database(
        lambda: create_context(settings, clock or SystemClock()), attempts=settings.start_attempts, stop=stop
    )
    tasks: dict[str, asyncio.Task[None]] = {}
    try:
        for name, runner in parts.runners.items():
            tasks[name] = asyncio.create_task(runner(ctx, stop), name=name)
        if parts.console:
            tasks["console"] = asyncio.create_task(run_console(ctx, stop, io=console_io), name="console")
        failed = await _supervise(tasks, stop, adapters=parts.adapters, critical=parts.critical)
        if failed:
            name, first = failed[0]
            if isinstance(first, StartupError):
                raise first
            raise StartupError("bot.error.adapter_start", platform=name, attempts=1, detail=repr(first)[:200])
    finally:
        for task in tasks.values():
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        await ctx.close()


ADAPTERS = frozenset({"telegram", "discord"})


async def _supervise(
    tasks: dict[str, asyncio.Task[None]],
    stop: asyncio.Event,
    *,
    adapters: frozenset[str] = ADAPTERS,
    critical: frozenset[str] = frozenset(),
) -> list[tuple[str, BaseException]]:
    """The process boundary: a task that fails is logged (with its name) and the others go on.

    An adapter that cannot start (after its retries), or the last adapter gone, stops everything: a deaf
    bot must not keep running. Returns those adapter failures (the caller exits non-zero).
    """
    failed: list[tuple[str, BaseException]] = []
    stop_task = asyncio.create_task(stop.wait(), name="stop")
    pending: set[asyncio.Task[Any]] = set(tasks.values())
    while pending and not stop.is_set():
        done, pending = await asyncio.wait(pending | {stop_task}, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if task is stop_task:
                continue
            pending.discard(task)
            if task.cancelled():
                continue
            exc = task.exception()
            if isinstance(exc, StartupError):
                log.error("%s could not start: %s", task.get_name(), exc.params.get("detail"))
            elif exc is not None:
                log.error("%s stopped with an error", task.get_name(), exc_info=exc)
            adapters_left = [t for t in pending if t.get_name() in adapters]
            if task.get_name() in adapters and exc is not None:
                if isinstance(exc, StartupError) or not adapters_left:
                    failed.append((task.get_name(), exc))
                    stop.set()
            if task.get_name() in critical and exc is not None:
                failed.append((task.get_name(), exc))
                stop.set()
            if task.get_name() == "console":
                stop.set()  # end of input on the console ends the program
        pending.discard(stop_task)
    stop.set()
    # Give every adapter a moment to wind down on its own (they watch ``stop``), then cancel.
    if pending:
        _, still = await asyncio.wait(pending, timeout=10)
        for task in still:
            task.cancel()
        if still:
            await asyncio.gather(*still, return_exceptions=True)
    stop_task.cancel()
    await asyncio.gather(stop_task, return_exceptions=True)
    return failed


__all__ = [
    "ROLES",
    "AppContext",
    "Clock",
    "MissingExtra",
    "Plan",
    "RoleError",
    "plan",
    "SystemClock",
    "configured_runners",
    "create_context",
    "run",
    "scheduler_runner",
    "transport_runner",
    "worker_runner",
]
