"""The process's Prometheus metrics: one module that the command layer, the senders, the scheduler and the
webhook app call, and that ``/metrics`` (:mod:`bot.web`) exposes.

Metrics (names as Prometheus sees them)
    ``sikpan_commands_total{command, outcome}``        commands answered (outcome ``ok`` | ``error``)
    ``sikpan_command_seconds{command}``                 command latency (``dispatch``: parse → reply), histogram
    ``sikpan_sends_total{platform, outcome}``           replies and readings sent (``ok`` or the failure reason)
    ``sikpan_rate_limited_total{platform}``             429 answers: Telegram's ``RetryAfter`` the sender
                                                        honoured, every 429 Discord sent discord.py (seen
                                                        by the client's ``http_trace``, which retries them)
    ``sikpan_rate_limit_wait_seconds{platform}``        the ``retry_after`` of those 429s, histogram
    ``sikpan_deliveries_total{platform, status}``       daily readings by final status (sent, failed …)
    ``sikpan_webhook_updates_total{result}``            webhook POSTs: handled, duplicate, busy, refused …
    ``sikpan_queue_enqueued_total{result}``             claimed readings handed to the Redis job queue
                                                        (``queued``: new jobs; ``unreachable``: kept, retried)
    ``sikpan_queue_jobs_total{result}``                 queue jobs run by workers (sent, retry, not_ready …)
    ``sikpan_limiter_outage_waits_total``               sends that waited for Redis (the shared budget) to return
    ``sikpan_send_slots_held``                          send-window slots this process holds: granted, their
                                                        request not ended (gauge; with Redis under the
                                                        process's lease, freed within seconds of its death)

Operations (issue #35; the block "operations" below)
    ``process_*``, ``python_gc_*``, ``python_info``     prometheus-client's process, GC and platform collectors
    ``sikpan_build_info{version, python, engine, role}`` 1: the package version, Python, the database engine
    ``sikpan_queue_depth``                              jobs waiting in the Redis job queue (sampled at scrape)
    ``sikpan_oldest_undelivered_seconds``               age of the oldest ``claimed``/``sending`` daily reading
                                                        (since its due instant; 0 when none; sampled)
    ``sikpan_heartbeat_age_seconds{part}``              age of the heartbeat row this process's scheduler or
                                                        queue worker wrote last (read back; sampled)
    ``sikpan_webhook_in_flight``                        webhook updates being handled now
    ``sikpan_send_budget_occupancy{platform}``          share of the overall send window (28 in any second)
                                                        taken in the last window (0–1; sampled)
    ``sikpan_dropped_total{what}``                      work given up: ``reading_skipped`` (a daily reading past
                                                        its grace window), ``update_unreadable`` (an update the
                                                        library cannot read), ``update_unmarked`` (handled, not
                                                        marked done in the ledger)

The client library (``prometheus-client``, extra ``[webhook]``) is imported only when :func:`enable` is
called — by the roles that serve ``/metrics`` — so the console, the CLI and a plain install neither need it
nor pay for its import; until then every recording function is a no-op. Labels are bounded: command names
come from the registry (anything else is ``unknown``), platforms and outcomes are fixed words.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
RETRY_AFTER_BUCKETS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)


@dataclass(frozen=True)
class _Metrics:
    registry: CollectorRegistry
    commands: Any
    latency: Any
    sends: Any
    rate_limited: Any
    rate_limit_wait: Any
    deliveries: Any
    webhook_updates: Any
    queue_enqueued: Any
    queue_jobs: Any
    limiter_outage_waits: Any
    slots_held: Any
    inline_queries: Any
    inline_chosen: Any


_metrics: _Metrics | None = None
_slots_held = 0  # counted whether or not the metrics are enabled (the gauge reads it when scraped)


def enable() -> CollectorRegistry:
    """Start recording (idempotent); returns the registry ``/metrics`` exposes."""
    global _metrics
    if _metrics is None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        registry = CollectorRegistry(auto_describe=True)
        _metrics = _Metrics(
            registry=registry,
            commands=Counter(
                "sikpan_commands", "Commands answered", ("command", "outcome"), registry=registry
            ),
            latency=Histogram(
                "sikpan_command_seconds",
                "Command latency, parse to reply",
                ("command",),
                buckets=LATENCY_BUCKETS,
                registry=registry,
            ),
            sends=Counter("sikpan_sends", "Messages sent", ("platform", "outcome"), registry=registry),
            rate_limited=Counter(
                "sikpan_rate_limited", "429 answers honoured", ("platform",), registry=registry
            ),
            rate_limit_wait=Histogram(
                "sikpan_rate_limit_wait_seconds",
                "The retry_after of the 429 answers",
                ("platform",),
                buckets=RETRY_AFTER_BUCKETS,
                registry=registry,
            ),
            deliveries=Counter(
                "sikpan_deliveries",
                "Daily readings by final status",
                ("platform", "status"),
                registry=registry,
            ),
            webhook_updates=Counter(
                "sikpan_webhook_updates", "Webhook requests by result", ("result",), registry=registry
            ),
            queue_enqueued=Counter(
                "sikpan_queue_enqueued",
                "Claimed readings handed to the job queue",
                ("result",),
                registry=registry,
            ),
            queue_jobs=Counter(
                "sikpan_queue_jobs", "Queue jobs run by workers", ("result",), registry=registry
            ),
            limiter_outage_waits=Counter(
                "sikpan_limiter_outage_waits", "Sends that waited for the shared budget", registry=registry
            ),
            inline_queries=Counter(
                "sikpan_inline_queries",
                "Telegram inline queries by answer (cast, help, problem, refused, failed)",
                ("answer",),
                registry=registry,
            ),
            inline_chosen=Counter(
                "sikpan_inline_chosen",
                "Inline results users posted (chosen_inline_result), by command and kind",
                ("command", "kind"),
                registry=registry,
            ),
            slots_held=Gauge(
                "sikpan_send_slots_held",
                "Send-window slots this process holds (granted, request not ended)",
                registry=registry,
            ),
        )
        _enable_operations(registry)
        _metrics.slots_held.set_function(lambda: _slots_held)
    return _metrics.registry


def enabled() -> bool:
    return _metrics is not None


def command(name: str, seconds: float, ok: bool) -> None:
    """One command answered by ``dispatch`` after ``seconds``."""
    if _metrics is not None:
        _metrics.commands.labels(name, "ok" if ok else "error").inc()
        _metrics.latency.labels(name).observe(seconds)


def inline_query(answer: str) -> None:
    """One Telegram inline query answered: ``cast``, ``help``, ``problem``, ``refused`` or ``failed``."""
    if _metrics is not None:
        _metrics.inline_queries.labels(answer).inc()


def inline_chosen(command: str, kind: str) -> None:
    """One inline result a user posted (``chosen_inline_result``): the command and ``photo``/``text``/``help``."""
    if _metrics is not None:
        _metrics.inline_chosen.labels(command, kind).inc()


def sent(platform: str, outcome: str | None) -> None:
    """One send of a sender finished: ``outcome`` None when delivered, else its error word."""
    if _metrics is not None:
        _metrics.sends.labels(platform, outcome or "ok").inc()


class _Sender(Protocol):
    platform: str


class _Outcome(Protocol):
    @property
    def error(self) -> str | None: ...


P = ParamSpec("P")
S = TypeVar("S", bound=_Sender)
R = TypeVar("R", bound=_Outcome)


def counts_sends(
    send: Callable[Concatenate[S, P], Awaitable[R]],
) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """Decorates a sender's ``send``: each finished send is counted by its platform and outcome."""

    @functools.wraps(send)
    async def counted(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        outcome = await send(self, *args, **kwargs)
        sent(self.platform, outcome.error)
        return outcome

    return counted


def rate_limited(platform: str, retry_after: float | None = None) -> None:
    """The platform answered 429 (the sender, or discord.py, waits ``retry_after`` seconds as told)."""
    if _metrics is not None:
        _metrics.rate_limited.labels(platform).inc()
        if retry_after is not None:
            _metrics.rate_limit_wait.labels(platform).observe(retry_after)


def delivery(platform: str, status: str) -> None:
    """A daily reading reached its final status (``sent``, ``blocked``, ``failed``, ``uncertain`` …)."""
    if _metrics is not None:
        _metrics.deliveries.labels(platform, status).inc()


def webhook_update(result: str) -> None:
    if _metrics is not None:
        _metrics.webhook_updates.labels(result).inc()


def queue_enqueued(result: str, count: int = 1) -> None:
    """Readings handed to the job queue (``queued``: new jobs) or kept for later (``unreachable``)."""
    if _metrics is not None and count:
        _metrics.queue_enqueued.labels(result).inc(count)


def queue_job(result: str) -> None:
    """A queue worker ran one job (its result: ``sent``, ``retry``, ``not_ready``, ``gone`` …)."""
    if _metrics is not None:
        _metrics.queue_jobs.labels(result).inc()


def limiter_outage_wait() -> None:
    """A send waited because Redis (the shared budget) was unreachable."""
    if _metrics is not None:
        _metrics.limiter_outage_waits.inc()


def slots_held(delta: int) -> None:
    """This process took (+1) or gave back (-1) a send-window slot (:mod:`bot.limits`)."""
    global _slots_held
    _slots_held += delta


def held_slots() -> int:
    """The send-window slots this process holds now."""
    return _slots_held


def exposition(registry: CollectorRegistry) -> tuple[bytes, str]:
    """The text format of ``registry`` and its content type."""
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    return generate_latest(registry), CONTENT_TYPE_LATEST


# ---- operations (issue #35): process collectors, build info, sampled gauges, what is dropped ------------------


@dataclass(frozen=True)
class _Operations:
    build_info: Any
    queue_depth: Any
    oldest_undelivered: Any
    heartbeat_age: Any
    webhook_in_flight: Any
    budget_occupancy: Any
    dropped: Any


_operations: _Operations | None = None


def _enable_operations(registry: CollectorRegistry) -> None:
    """The default collectors (process, GC, platform: what the global registry would have) and the gauges of
    the operations block, on ``registry``."""
    global _operations
    from prometheus_client import Counter, Gauge, GCCollector, PlatformCollector, ProcessCollector

    ProcessCollector(registry=registry)
    GCCollector(registry=registry)
    PlatformCollector(registry=registry)
    _operations = _Operations(
        build_info=Gauge(
            "sikpan_build_info",
            "Always 1: the version, Python, database engine and role of this process",
            ("version", "python", "engine", "role"),
            registry=registry,
        ),
        queue_depth=Gauge("sikpan_queue_depth", "Jobs waiting in the Redis job queue", registry=registry),
        oldest_undelivered=Gauge(
            "sikpan_oldest_undelivered_seconds",
            "Age of the oldest claimed or sending daily reading, since its due instant",
            registry=registry,
        ),
        heartbeat_age=Gauge(
            "sikpan_heartbeat_age_seconds",
            "Age of this process's last scheduler or worker heartbeat row",
            ("part",),
            registry=registry,
        ),
        webhook_in_flight=Gauge(
            "sikpan_webhook_in_flight", "Webhook updates being handled now", registry=registry
        ),
        budget_occupancy=Gauge(
            "sikpan_send_budget_occupancy",
            "Share of the overall send window taken in the last window",
            ("platform",),
            registry=registry,
        ),
        dropped=Counter("sikpan_dropped", "Work given up, by what", ("what",), registry=registry),
    )
    for what in DROPPED:
        _operations.dropped.labels(what)  # every series exists from the start (rate() sees the first one)
    _operations.webhook_in_flight.set(0)


DROPPED = ("reading_skipped", "update_unreadable", "update_unmarked")


def build_info(version: str, python: str, engine: str, role: str) -> None:
    """``sikpan_build_info`` of this process (set once, by the role's metrics listener or webhook app)."""
    if _operations is not None:
        _operations.build_info.labels(version, python, engine, role).set(1)


def dropped(what: str, count: int = 1) -> None:
    """Work given up (one of :data:`DROPPED`)."""
    if _operations is not None and count:
        _operations.dropped.labels(what).inc(count)


def webhook_in_flight(delta: int) -> None:
    """A webhook update started (+1) or ended (-1) being handled."""
    if _operations is not None:
        _operations.webhook_in_flight.inc(delta)


def queue_depth(jobs: int) -> None:
    if _operations is not None:
        _operations.queue_depth.set(jobs)


def oldest_undelivered(seconds: float) -> None:
    if _operations is not None:
        _operations.oldest_undelivered.set(max(0.0, seconds))


def heartbeat_age(part: str, seconds: float) -> None:
    if _operations is not None:
        _operations.heartbeat_age.labels(part).set(max(0.0, seconds))


def budget_occupancy(platform: str, share: float) -> None:
    if _operations is not None:
        _operations.budget_occupancy.labels(platform).set(share)


__all__ = [
    "command",
    "counts_sends",
    "budget_occupancy",
    "build_info",
    "delivery",
    "dropped",
    "enable",
    "enabled",
    "exposition",
    "heartbeat_age",
    "oldest_undelivered",
    "queue_depth",
    "rate_limited",
    "sent",
    "webhook_in_flight",
    "webhook_update",
]
