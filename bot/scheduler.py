"""The daily-reading scheduler: database rows, not in-memory timers; exactly once per (subscription, day).

Rows (``bot/migrations/0002_daily.sql``)
    ``subscriptions``: one per chat (platform, chat id, chat kind, local wall time ``HH:MM``, IANA zone,
    language, kind ``liuren``/``liuyao``, options, active flag, ``since``).
    ``deliveries``: one per (subscription, local date) — ``UNIQUE(subscription_id, local_date)`` — with a
    status: ``claimed`` (ours, not yet attempted) → ``sending`` (the request is in flight) → ``sent``;
    or ``skipped`` (missed by more than the grace window), ``blocked`` (the chat refuses the bot; the
    subscription is disabled), ``failed`` (a bad request, or retries exhausted), ``uncertain`` (the process
    died while the request was in flight, or the platform's answer was lost: maybe delivered; never resent).
    ``sending`` is written after the pacing wait, immediately before the request (``before_request`` of the
    senders), so readings queued behind the pacer stay ``claimed`` through a stop or a crash.

Loop (:meth:`DailyScheduler.run`)
    1. Recovery: ``sending`` rows become ``uncertain`` (they may have been delivered: we never send twice);
       ``claimed`` rows (never attempted) are sent now if still within the grace window, else ``skipped``.
    2. What is due is in the database (``bot/migrations/0006_next_due.sql``): every active subscription
       carries ``next_due_at``/``next_local_date``, the first due not handled yet, computed when the row is
       written (``bot.schedule_time.pending_due``: DST gaps shift forward, folds use the first occurrence).
    3. Claim (:meth:`bot.storage.DailyStore.claim_due`): one transaction selects the rows with
       ``next_due_at <= now`` of the platforms this scheduler sends to (an index on ``next_due_at``; on
       PostgreSQL ``FOR UPDATE SKIP LOCKED``, so schedulers side by side take disjoint rows), inserts their
       delivery rows — ``claimed``, or ``skipped`` when older than the grace window (default 2 h; logged) —
       and advances each ``next_due_at`` (``bot.schedule_time.due_after``; days missed while nothing ran
       collapse into the latest). A delivery row that exists already (the UNIQUE key) is not ours.
    4. Sleep on the injected clock until the earliest ``next_due_at`` (``MIN`` over the index), napping at
       most ``poll_every`` seconds of real time, so a subscription written by any process is found without
       any message between processes; ``notify()`` only shortens the nap of this process.
    5. Without Redis: render (shared: :class:`bot.daily.DailyRenderer`) and enqueue on the platform's
       in-process queue; workers send through the adapter's sender (``ctx.telegram_sender``,
       ``ctx.discord_sender``), which paces (Telegram 28 msg/s overall, 1/s per chat, 20/min per
       group; Discord by its rate-limit headers) and honours RetryAfter with the server's value. Outcomes
       (:func:`send_and_record`): sent; Forbidden / chat not found → ``blocked`` and the subscription
       disabled with its reason; anything else retried with exponential backoff up to ``max_attempts``
       times, then ``failed``.
       With ``SIKPAN_REDIS_URL``: the claimed rows go to the arq job queue (:mod:`bot.queue`, job id =
       delivery id) and queue workers (:func:`run_worker`, :class:`DeliveryWorker`) render and send them
       through the same sender, whose budgets then live in Redis (:mod:`bot.limits`). Rows the queue could
       not take (Redis unreachable) stay ``claimed`` and are queued again at the next pass; after a Redis
       restart (a new ``run_id``) every row of ours still ``claimed`` is queued again; a row still
       ``claimed`` ``requeue_after`` (10 min) after its claim too. A job id already queued is one job.

Across processes (issue #17; ``bot/migrations/0005_daily_owners.sql``)
    Every scheduler run (and every queue worker) has a random token, a row in ``schedulers`` with a
    heartbeat, and its name in ``deliveries.claimed_by`` of the rows it claims (a worker: of the rows it
    sends). Only the row's own scheduler moves it from ``claimed`` to ``sending`` (one conditional UPDATE,
    right before the request); a queue worker takes any ``claimed`` row, the first one alone: at most once,
    whatever the others believe, and whatever the queue runs twice. Recovery takes over rows by age — of
    schedulers or workers whose heartbeat is older than ``stale_after``, or that left (a clean stop frees
    its never-attempted rows) — never "everything claimed is mine".
    SQLite: one scheduler per database and platform, elected by lock files the kernel frees when their holder
    dies; the others wait. Recovery takes only rows of the platforms this scheduler can send to.
    PostgreSQL: any number side by side; takeovers use ``FOR UPDATE SKIP LOCKED`` and run at every heartbeat.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Protocol

from bot import logs, metrics, pictures
from bot.context import AppContext, Clock, Heartbeat
from bot.daily import DailyRenderer, join_parts
from bot.faults import connection_lost, database_errors
from bot.features.daily.reading import Moment, subscription_moment
from bot.features.daily.reading import picture as daily_picture
from bot.presentation import Message, daily_message, sealed
from bot.sending import BeforeRequest, SendOutcome
from bot.storage import DailyStore, Subscription, utc_iso
from engine.errors import EngineInputError

log = logging.getLogger(__name__)

GRACE = timedelta(hours=2)
PRUNE_EVERY = timedelta(hours=1)  # how often a scheduler deletes delivery rows past their retention
STALE_AFTER = timedelta(seconds=90)  # a scheduler silent this long is gone: its rows are taken over
HEARTBEAT_EVERY = 15.0  # seconds (real time)
POLL_EVERY = 5.0  # seconds (real time) between looks at the due index (rows written by other processes)
# A database connection lost (bot.storage.faults): the job is run again after this back-off, doubling up to
# DB_RETRY_MAX (seconds), and an outcome already known (the request was made) is written again until it is
# stored or OUTCOME_PATIENCE has passed.
DB_RETRY_FIRST = 0.25
DB_RETRY_MAX = 2.0
OUTCOME_PATIENCE = 90.0
# A queue job that met an unexpected error (not a lost connection) runs again after this (seconds): arq would
# end it, and its row (still ``claimed`` unless its request was made) would wait for ``requeue_after``.
JOB_ERROR_RETRY = 30.0
STATUSES = ("claimed", "sending", "sent", "skipped", "blocked", "failed", "uncertain")


# ---- transports ------------------------------------------------------------------------------------------


class Transport(Protocol):
    platform: str
    channel: str  # the bot.views channel its texts are rendered for

    def configured(self) -> bool: ...  # will this platform run in this process at all?

    def ready(self) -> bool: ...  # can it send now (the adapter has started)?

    async def send(
        self,
        sub: Subscription,
        text: str,
        *,
        before_request: BeforeRequest | None = None,
        moment: Moment | None = None,
    ) -> SendOutcome: ...  # ``before_request``: awaited after pacing, right before the first request;

    # ``moment``: the reading's moment, for its picture (``daily_picture``)


async def reading_picture(ctx: AppContext, sub: Subscription, moment: Moment | None) -> bytes | None:
    """The picture of the day's 課 (or 卦) for a subscription, when its owner's ``daily_picture`` setting is
    on (the default; ``/settings daily_picture off``). Drawn once per shared body (:func:`bot.features.daily.reading.picture`),
    on the event loop like every picture (:mod:`bot.pictures`); a picture that cannot be drawn leaves the
    reading as text."""
    if moment is None:
        return None
    user = await ctx.storage.get_user(sub.user_key)
    if user is not None and str(user.options.get("daily_picture", "on")) == "off":
        return None
    try:
        return daily_picture(moment, sub.lang)
    except (EngineInputError, ValueError, OSError) as exc:
        log.warning("daily: no picture for subscription %s (%s); sent as text", sub.id, exc)
        return None


def reading_message(
    ctx: AppContext, sub: Subscription, text: str, channel: str, moment: Moment | None, picture: bytes | None
) -> Message:
    """A reading's message (:func:`bot.presentation.daily_message`) with the buttons of its pages
    (:mod:`bot.commands.daily_pages`, naming the subscriber's local date of the reading), sealed for the chat it
    goes to: for everyone in a group or channel, for the subscriber alone in a private chat."""
    day = moment.local.date() if moment is not None else None
    shown = daily_message(text, sub.lang, channel, picture, day)
    owner = sub.user_key.partition(":")[2]
    return sealed(shown, ctx.buttons, sub.chat_id, owner, private=sub.chat_kind == "private")


def button_rows(shown: Message) -> tuple[tuple[tuple[str, str], ...], ...]:
    """A message's buttons as (label, data) rows: what the senders make into the platform's buttons."""
    return tuple(tuple((b.label, b.data) for b in row) for row in shown.buttons)


class TelegramTransport:
    """Sends through the adapter's :class:`bot.telegram.sender.TelegramSender` (its pacing and error policy)."""

    platform = "telegram"
    channel = "telegram"

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def configured(self) -> bool:
        return bool(self.ctx.settings.telegram_token) or self.ctx.telegram_sender is not None

    def ready(self) -> bool:
        if self.ctx.telegram_sender is None:
            return False
        app = self.ctx.telegram_application
        return app is None or bool(app.running)

    async def send(
        self,
        sub: Subscription,
        text: str,
        *,
        before_request: BeforeRequest | None = None,
        moment: Moment | None = None,
    ) -> SendOutcome:
        """The reading as text, or — with its picture — one ``sendPhoto`` whose caption is the reading: a
        photo delivery is one request (``sending`` is marked right before it, at most once). A reading longer
        than a caption (a Korean 大六壬 reading, ≈ 1,800 characters) is cut at a line and ends with a pointer
        to ``/today``, which shows it whole."""
        sender = self.ctx.telegram_sender
        assert sender is not None  # ready() was checked
        chat: int | str = int(sub.chat_id) if sub.chat_id.lstrip("-").isdigit() else sub.chat_id
        shown = reading_message(
            self.ctx, sub, text, self.channel, moment, await reading_picture(self.ctx, sub, moment)
        )
        outcome: SendOutcome = await sender.send(
            chat,
            shown.text,
            chat_kind=sub.chat_kind,
            reply_markup=sender.keyboard(button_rows(shown)),
            before_request=before_request,
            photo=shown.picture,
            caption=shown.caption,
            filename=pictures.FILENAME,
        )
        return outcome


TransportFactory = Callable[[AppContext], Transport]


def default_transports(ctx: AppContext) -> dict[str, Transport]:
    """The transports the scheduler builds by itself. An adapter's own (Discord's:
    :class:`bot.discord.transport.DiscordTransport`) come in through :func:`run_scheduler`'s ``transports``,
    chosen by :mod:`bot.app` where that adapter runs: the scheduler imports no adapter."""
    return {"telegram": TelegramTransport(ctx)}


# ---- clock -----------------------------------------------------------------------------------------------


async def sleep_until(clock: Clock, instant: datetime) -> None:
    """Sleep on ``clock`` until ``instant`` (``SystemClock`` naps and re-reads the wall clock; test clocks
    return when the test has moved time that far)."""
    await clock.sleep_until(instant)


# ---- the scheduler ---------------------------------------------------------------------------------------


def db_backoff(failures: int) -> float:
    """Seconds before a try after ``failures`` consecutive lost database connections (0.25 s doubling to 2).

    The count is shared by every job of a worker, so an outage can push it past a thousand: the doubling
    stops once the cap is reached (2.0 ** 1024 overflows a float, and that error once left a job's reading
    ``claimed`` for good, tests/scale/test_db_outage.py)."""
    delay = DB_RETRY_FIRST
    for _ in range(max(0, failures - 1)):
        if delay >= DB_RETRY_MAX:
            break
        delay *= 2.0
    return min(DB_RETRY_MAX, delay)


async def write_outcome(op: Callable[[], Awaitable[Any]], what: str) -> None:
    """Store a delivery's outcome, retried while the database connection is lost (up to
    :data:`OUTCOME_PATIENCE`): the request was made, so what happened must reach the row — a row left
    ``sending`` would turn ``uncertain`` at recovery although its reading was sent."""
    loop = asyncio.get_running_loop()
    end = loop.time() + OUTCOME_PATIENCE
    failures = 0
    while True:
        try:
            await op()
            return
        except database_errors() as exc:
            if not connection_lost(exc) or loop.time() >= end:
                raise
            failures += 1
            if failures == 1:
                log.warning("daily: the database is unreachable (%r); %s kept and written again", exc, what)
            await asyncio.sleep(db_backoff(failures))


class LostDatabase:
    """A ``before_request`` that turns a lost database connection into "not sent" (no request is made, the
    window slot is settled) and remembers it, so the caller runs the job again after a back-off."""

    def __init__(self, ask: BeforeRequest) -> None:
        self.ask = ask
        self.error: BaseException | None = None
        self.asked = False  # awaited by the sender: from here on a request may have been made

    async def __call__(self) -> bool:
        self.asked = True
        try:
            return await self.ask()
        except database_errors() as exc:
            if not connection_lost(exc):
                raise
            self.error = exc
            return False

    def lost_before_asking(self, exc: BaseException) -> bool:
        """True when ``exc``, raised by a send that never awaited this ``before_request`` (so never reached its
        first request: the transport's own reads before it, e.g. the picture setting), is a lost database
        connection; remembered like one met while asking, so the send counts as not attempted."""
        if self.asked or not isinstance(exc, database_errors()) or not connection_lost(exc):
            return False
        self.error = exc
        return True


@dataclass(slots=True)
class _Job:
    delivery_id: int
    sub: Subscription
    local_date: date
    due: datetime
    parts: tuple[str, str]  # head and body (shared between readings), joined when sent
    attempts: int = 0
    lost: int = 0  # tries that met a lost database connection (their back-off)
    unsent: bool = False  # its ``sending`` may have been committed, and no request was made: release first

    @property
    def text(self) -> str:
        return join_parts(*self.parts)


@dataclass
class SchedulerStats:
    claimed: int = 0
    sent: int = 0
    skipped: int = 0
    blocked: int = 0
    failed: int = 0
    retried: int = 0
    uncertain: int = 0
    queued: int = 0  # handed to the Redis job queue (bot.queue)


class JobQueue(Protocol):
    """Where claimed rows go when a Redis job queue runs (:class:`bot.queue.DeliveryQueue`)."""

    platforms: frozenset[str]  # the platforms whose readings the queue workers send (the others: in-process)

    async def enqueue(self, delivery_ids: Sequence[int]) -> int: ...  # how many were new to the queue

    async def epoch(self) -> str: ...  # changes when the queue's server lost its data (a restart)

    async def close(self) -> None: ...


CLAIM_BATCH = 5000  # rows per claim transaction (a minute's rows of 100,000 subscriptions: one or two)
REQUEUE_AFTER = timedelta(
    minutes=10
)  # a row of ours still ``claimed`` this long after its claim is queued again


class DailyScheduler:
    """Claims what is due (from the database), renders and sends it — or hands it to the job queue (see the
    module doc)."""

    def __init__(
        self,
        ctx: AppContext,
        *,
        grace: timedelta = GRACE,
        transports: Mapping[str, Transport] | None = None,
        workers: int = 32,
        max_attempts: int = 3,
        backoff: float = 2.0,
        renderer: DailyRenderer | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        shutdown_timeout: float = 5.0,
        stale_after: timedelta = STALE_AFTER,
        heartbeat_every: float = HEARTBEAT_EVERY,
        poll_every: float = POLL_EVERY,
        queue: JobQueue | None = None,
        requeue_after: timedelta = REQUEUE_AFTER,
    ) -> None:
        self.ctx = ctx
        self.requeue_after = requeue_after
        self.token = uuid.uuid4().hex
        self.stale_after = stale_after
        self.heartbeat_every = heartbeat_every
        self.poll_every = poll_every
        self._registered = False
        self._pruned_at: datetime | None = None
        self.shutdown_timeout = shutdown_timeout
        self.store = DailyStore(ctx.storage)
        self.grace = grace
        self.transports: dict[str, Transport] = dict(
            transports if transports is not None else default_transports(ctx)
        )
        self.workers = workers
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.renderer = renderer or DailyRenderer()
        self.stats = SchedulerStats()
        self.queue = queue
        self._queue_epoch: str | None = None
        self._unqueued: set[int] = set()  # claimed rows the queue could not take yet (Redis unreachable)
        self._queue_down = False
        self._sleep = sleep
        self._wake = asyncio.Event()
        self._queues: dict[str, asyncio.Queue[_Job | None]] = {}
        self._worker_tasks: list[asyncio.Task[None]] = []
        self._retry_tasks: set[asyncio.Task[None]] = set()
        self._stopping = False
        self.waiting = False
        self.cycles = 0  # passes of the main loop (tests wait for the next one)
        self.idle = asyncio.Event()  # set while sleeping with nothing to do now (tests wait on it)
        self.sleeping_until: datetime | None = None

    # -- notifications from commands and senders --

    def notify(self, sub_id: int | None = None) -> None:
        """A subscription of this process changed: look at the database now rather than at the next nap.

        Only a shortcut: ``next_due_at`` is in the database, so a change made by any process is found at
        the next look (every ``poll_every`` seconds) without it."""
        self.idle.clear()
        self._wake.set()

    async def on_blocked(self, platform: str, chat_id: str, reason: str) -> None:
        """Sender callback: the chat refuses the bot → disable its subscription (with the reason)."""
        ids = await self.store.disable(
            platform, str(chat_id), f"forbidden: {reason}", await self.ctx.clock.now()
        )
        for sid in ids:
            log.info("daily: subscription %s (%s:%s) disabled: %s", sid, platform, chat_id, reason)
            self.notify(sid)

    async def on_migrated(self, platform: str, old: str, new: str) -> None:
        await self.store.migrate_chat(platform, str(old), str(new))
        self.notify(None)

    # -- one pass --

    def _queued(self, platform: str) -> bool:
        """Do the queue workers send this platform's readings (else this scheduler, in-process)?"""
        return self.queue is not None and platform in self.queue.platforms

    def _sendable(self) -> tuple[list[str], list[str]]:
        """(platforms whose due rows this scheduler claims now, configured platforms not ready yet)."""
        ready: list[str] = []
        starting: list[str] = []
        for name in self.platforms():
            if self._queued(name) or self.transports[name].ready():
                ready.append(name)  # with a job queue the workers send: claiming needs no adapter here
            else:
                starting.append(name)
        return ready, starting

    async def tick(self, now: datetime) -> datetime | None:
        """Claim (or skip) everything due at ``now`` and send it or queue it; returns the next due instant of
        the platforms this scheduler claims (None: nothing planned)."""
        await self.store.fill_next_due(now)  # rows an older binary wrote (cheap: the index has no NULLs)
        ready, starting = self._sendable()
        total_claimed = total_skipped = 0
        while ready:
            claimed, skipped = await self.store.claim_due(now, self.token, ready, self.grace, CLAIM_BATCH)
            total_claimed += len(claimed)
            total_skipped += len(skipped)
            metrics.dropped("reading_skipped", len(skipped))
            for sub in skipped:
                log.warning(
                    "daily: skipped %s for subscription %s (%s:%s): due %s, now %s is past the %s grace",
                    sub.next_local_date,
                    sub.id,
                    sub.platform,
                    sub.chat_id,
                    utc_iso(sub.next_due_at) if sub.next_due_at else "-",
                    utc_iso(now),
                    self.grace,
                )
            self.stats.skipped += len(skipped)
            for delivery_id, sub in claimed:
                if self._queued(sub.platform):
                    self._unqueued.add(delivery_id)  # handed to the job queue below
                    self.stats.claimed += 1
                else:
                    assert sub.next_local_date is not None and sub.next_due_at is not None
                    await self._enqueue(delivery_id, sub, sub.next_local_date, sub.next_due_at, now)
            if len(claimed) + len(skipped) < CLAIM_BATCH:
                break
        self.renderer.end_pass()  # the moments due now are done: their heads are never rendered again
        queued_before = self.stats.queued
        await self._hand_off()
        later = [await self.store.earliest_due(ready)]
        first_starting = await self.store.earliest_due(starting)
        self.waiting = first_starting is not None and first_starting <= now  # looked at again every 0.5 s
        if first_starting is not None and first_starting > now:
            later.append(first_starting)  # wake then: the adapter may be ready by that time
        nxt = min((t for t in later if t is not None), default=None)
        if total_claimed or total_skipped:  # one line per pass that claimed something, none when idle
            log.info(
                "daily: claimed %d (%s), skipped %d, queued %d, %d waiting for the queue; next due %s",
                total_claimed,
                ", ".join(ready),
                total_skipped,
                self.stats.queued - queued_before,
                len(self._unqueued),
                utc_iso(nxt) if nxt is not None else "-",
            )
        return nxt

    async def _hand_off(self) -> None:
        """Give the claimed rows not queued yet to the job queue; Redis unreachable → kept, tried again at
        the next pass (the rows stay ``claimed``: nothing is lost, and a job id is its delivery id, so a
        row queued twice runs once)."""
        if self.queue is None or not self._unqueued:
            return
        ids = sorted(self._unqueued)
        try:
            new = await self.queue.enqueue(ids)
        except (OSError, ConnectionError, TimeoutError) as exc:
            metrics.queue_enqueued("unreachable", len(ids))
            if not self._queue_down:  # once per outage, not at every look
                log.warning("daily: the job queue is unreachable (%s); %d readings wait", exc, len(ids))
            self._queue_down = True
            return
        self.stats.queued += new
        metrics.queue_enqueued("queued", new)
        if self._queue_down:
            log.warning("daily: the job queue is back; %d readings queued", len(ids))
        self._queue_down = False
        self._unqueued.difference_update(ids)

    async def _check_queue(self) -> None:
        """At every heartbeat: when the queue's server lost its data (a restart without persistence), queue
        every row of ours that was never attempted again."""
        if self.queue is None:
            return
        try:
            epoch = await self.queue.epoch()
        except (OSError, ConnectionError, TimeoutError) as exc:
            log.warning("daily: the job queue is unreachable (%s)", exc)
            return
        now = await self.ctx.clock.now()
        if self._queue_epoch is not None and epoch != self._queue_epoch:
            mine = await self.store.claimed_by(self.token)
            log.warning("daily: the job queue restarted; %d claimed readings queued again", len(mine))
            self._unqueued.update(mine)
        else:
            # rows whose job ended without settling them (a job timeout): queued again (a live job with the
            # same id is left alone, so this costs a look per old row)
            self._unqueued.update(await self.store.claimed_by(self.token, before=now - self.requeue_after))
        self._queue_epoch = epoch
        await self._hand_off()

    async def _enqueue(
        self, delivery_id: int, sub: Subscription, d: date, due: datetime, now: datetime
    ) -> None:
        transport = self.transports[sub.platform]
        try:
            parts = self.renderer.parts(subscription_moment(sub, due), sub.lang, transport.channel)
        except Exception as exc:  # an engine or template bug: record it, never loop on it
            log.exception("daily: could not render subscription %s for %s", sub.id, d)
            await self.store.mark(delivery_id, "failed", now, f"render: {exc!r}")
            self.stats.failed += 1
            return
        self.stats.claimed += 1
        self._put(sub.platform, _Job(delivery_id, sub, d, due, parts))

    def _put(self, platform: str, job: _Job) -> None:
        self._queue(platform).put_nowait(job)  # unbounded: never blocks

    async def recover(self, now: datetime) -> None:
        """Rows of schedulers that are gone: in-flight ones become ``uncertain``; claimed ones are ours now and
        sent (within grace) or skipped. At start, and at every heartbeat where many schedulers run."""
        # queue workers send from their own processes: their rows are theirs until their heartbeat is stale
        by_age = self.ctx.storage.backend.multi_scheduler or self.queue is not None
        stale_before = now - self.stale_after if by_age else None
        uncertain, claimed = await self.store.recover(now, self.token, stale_before, self.platforms())
        if uncertain:
            log.warning("daily: %d deliveries were in flight when the process stopped; not resent", uncertain)
            self.stats.uncertain += uncertain
        ready: dict[str, bool] = {}
        for delivery_id, sub_id, d, due in claimed:
            sub = await self.store.get(sub_id)
            transport = self.transports.get(sub.platform) if sub is not None else None
            if sub is not None and sub.active and (transport is None or not transport.configured()):
                continue  # left claimed for a process that has this platform
            if sub is None or not sub.active:
                await self.store.mark(delivery_id, "skipped", now, "subscription inactive")
                continue
            if now - due > self.grace:
                log.warning(
                    "daily: claimed delivery %s (%s) is past the grace window; skipped", delivery_id, d
                )
                await self.store.mark(delivery_id, "skipped", now, "past the grace window after a restart")
                self.stats.skipped += 1
                continue
            if self._queued(sub.platform):
                self._unqueued.add(delivery_id)  # a worker sends it (queued twice, it still runs once)
                continue
            if sub.platform not in ready:
                ready[sub.platform] = await self._wait_ready(sub.platform)
            if not ready[sub.platform]:
                log.warning(
                    "daily: the %s adapter did not start; delivery %s stays claimed",
                    sub.platform,
                    delivery_id,
                )
                continue
            await self._enqueue(delivery_id, sub, d, due, now)

    async def _wait_ready(self, platform: str, timeout: float = 60.0) -> bool:
        transport = self.transports[platform]
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not transport.ready():
            if loop.time() > end:
                return False
            await asyncio.sleep(0.05)
        return True

    # -- sending --

    def _queue(self, platform: str) -> asyncio.Queue[_Job | None]:
        queue = self._queues.get(platform)
        if queue is None:
            queue = self._queues[platform] = asyncio.Queue()
            for i in range(self.workers):
                self._worker_tasks.append(
                    asyncio.create_task(self._worker(platform, queue), name=f"daily-{platform}-{i}")
                )
        return queue

    async def _worker(self, platform: str, queue: asyncio.Queue[_Job | None]) -> None:
        while True:
            job = await queue.get()
            try:
                if job is None:
                    return
                if self._stopping:
                    continue  # left ``claimed``: sent after the next start
                await self._send(platform, job)
            except Exception:
                # the worker task's boundary: one broken delivery must not stop the queue
                log.exception("daily: worker failed on delivery %s", job.delivery_id if job else "-")
            finally:
                queue.task_done()

    async def _send(self, platform: str, job: _Job) -> None:
        with logs.ids(delivery=job.delivery_id):  # the logs of this send carry its delivery id
            await self._send_job(platform, job)

    async def _send_job(self, platform: str, job: _Job) -> None:
        clock = self.ctx.clock
        if job.unsent:  # its ``sending`` may have been committed before the connection was lost: not sent
            try:
                await self.store.release_unsent(job.delivery_id, self.token)
            except database_errors() as exc:
                if not connection_lost(exc):
                    raise
                self._retry_lost(platform, job, exc)
                return
            job.unsent = False
        job.attempts += 1

        async def start() -> bool:
            # ``sending`` is written after the pacing wait, immediately before the request: a row that was
            # never tried stays ``claimed`` (sent after a restart); a stop during the wait sends nothing
            if self._stopping:
                return False
            # only the row's own scheduler gets True: a row taken over meanwhile is not sent from here
            return await self.store.start_sending(job.delivery_id, self.token, await clock.now())

        before_request = LostDatabase(start)
        result = await send_and_record(
            self.store,
            self.transports[platform],
            job.delivery_id,
            job.sub,
            job.text,
            before_request,
            job.attempts,
            self.max_attempts,
            clock,
            self.stats,
            subscription_moment(job.sub, job.due),
        )
        if result == "not_attempted":
            job.attempts -= 1  # left ``claimed``: never tried, sent after the next start
            if before_request.error is not None and not self._stopping:  # the database is unreachable
                job.unsent = True
                self._retry_lost(platform, job, before_request.error)
        elif result == "blocked":
            self.notify(job.sub.id)
        elif result == "retry":
            delay = self.backoff * 2 ** (job.attempts - 1)
            log.warning("daily: delivery %s: retry %d in %.1fs", job.delivery_id, job.attempts, delay)
            task = asyncio.create_task(self._requeue(platform, job, delay))
            self._retry_tasks.add(task)
            task.add_done_callback(self._retry_tasks.discard)

    def _retry_lost(self, platform: str, job: _Job, error: BaseException) -> None:
        """The database connection was lost before the request: the job runs again after a back-off."""
        job.lost += 1
        delay = db_backoff(job.lost)
        log.warning(
            "daily: delivery %s: the database is unreachable (%r); again in %.2fs",
            job.delivery_id,
            error,
            delay,
        )
        task = asyncio.create_task(self._requeue(platform, job, delay))
        self._retry_tasks.add(task)
        task.add_done_callback(self._retry_tasks.discard)

    async def _requeue(self, platform: str, job: _Job, delay: float) -> None:
        await self._sleep(delay)
        await self._queue(platform).put(job)

    async def drain(self) -> None:
        """Wait until every enqueued reading (and pending retry) is sent or settled."""
        while True:
            for queue in list(self._queues.values()):
                await queue.join()
            if not self._retry_tasks and all(q.empty() for q in self._queues.values()):
                return
            await asyncio.sleep(0.01)

    def pending(self) -> int:
        return sum(q.qsize() for q in self._queues.values()) + len(self._retry_tasks)

    # -- main loop --

    def install(self) -> None:
        """Register as ``ctx.daily_scheduler`` and as the senders' blocked/migrated callback."""
        self.ctx.daily_scheduler = self
        for callbacks, cb in (
            (self.ctx.on_blocked, self.on_blocked),
            (self.ctx.on_migrated, self.on_migrated),
        ):
            if cb not in callbacks:
                callbacks.append(cb)

    def platforms(self) -> list[str]:
        """The platforms this scheduler can send to (their readings are its to claim and recover)."""
        return sorted(name for name, t in self.transports.items() if t.configured())

    async def _lead(self, stop: asyncio.Event) -> bool:
        """Wait until this process may schedule (SQLite elects one per database); False when stopped."""
        backend = self.ctx.storage.backend
        told = False
        while not backend.try_lead(self.platforms()):
            if not told:
                log.info("daily: another process schedules the daily readings of this database; waiting")
                told = True
            try:
                await asyncio.wait_for(stop.wait(), timeout=1.0)
            except TimeoutError:
                continue
            return False
        return True

    async def prune(self, now: datetime) -> int:
        """Retention: finished delivery rows older than ``SIKPAN_KEEP_DELIVERIES`` days go (at most once an
        hour, in batches; every scheduler may do it, the statement is idempotent)."""
        days = self.ctx.settings.keep_deliveries_days
        if not days or (self._pruned_at is not None and now - self._pruned_at < PRUNE_EVERY):
            return 0
        self._pruned_at = now
        total = 0
        while (deleted := await self.store.prune_deliveries(now - timedelta(days=days))) > 0:
            total += deleted
        if total:
            log.info("daily: %d delivery rows older than %d days pruned", total, days)
        return total

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_every)
            try:
                now = await self.ctx.clock.now()
                await self.store.heartbeat(self.token, now)
                await self.prune(now)
                if self.ctx.storage.backend.multi_scheduler or self.queue is not None:
                    await self.recover(now)  # rows of a scheduler (or a queue worker) that died meanwhile
                await self._check_queue()
            except Exception as exc:  # the heartbeat task's boundary: the database away, beat again next time
                log.warning("daily: heartbeat failed: %r", exc)

    async def run(self, stop: asyncio.Event) -> None:
        self.install()
        clock = self.ctx.clock
        if not await self._lead(stop):
            return
        stop_task = asyncio.create_task(stop.wait())
        beat = asyncio.create_task(self._heartbeat(), name="daily-heartbeat")
        try:
            await self.store.register(self.token, await clock.now())
            self._registered = True
            self.ctx.heartbeats["scheduler"] = Heartbeat(self.token, self.heartbeat_every)
            await self.recover(await clock.now())
            while not stop.is_set():
                now = await clock.now()
                nxt = await self.tick(now)
                if stop.is_set():
                    break
                self._wake.clear()
                self.sleeping_until = nxt
                waits: set[asyncio.Task[Any]] = {stop_task, asyncio.create_task(self._wake.wait())}
                if nxt is not None and nxt > now:
                    waits.add(asyncio.create_task(sleep_until(clock, nxt)))
                elif nxt is not None:  # due, but held by another scheduler's claim right now: look again
                    waits.add(asyncio.create_task(asyncio.sleep(0.05)))
                if self.waiting or self._unqueued:  # an adapter still starting, or the queue unreachable
                    waits.add(asyncio.create_task(asyncio.sleep(0.5)))
                waits.add(asyncio.create_task(asyncio.sleep(self.poll_every)))  # other processes' changes
                self.cycles += 1
                self.idle.set()
                done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                self.idle.clear()
                self.sleeping_until = None
                for task in pending:
                    if task is not stop_task:
                        task.cancel()
                await asyncio.gather(*(t for t in pending if t is not stop_task), return_exceptions=True)
        finally:
            stop_task.cancel()
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
            await self.close()

    async def close(self) -> None:
        """Stop the workers; readings still queued stay ``claimed`` and go out after the next start."""
        self._stopping = True
        if self.queue is not None:
            await self.queue.close()
        for task in list(self._retry_tasks):
            task.cancel()
        for queue in self._queues.values():  # workers skip what is queued and finish what is in flight
            for _ in range(self.workers):
                queue.put_nowait(None)
        if self._worker_tasks:
            await asyncio.wait(self._worker_tasks, timeout=self.shutdown_timeout)
        for task in self._worker_tasks:
            task.cancel()
        await asyncio.gather(*self._retry_tasks, *self._worker_tasks, return_exceptions=True)
        self._worker_tasks.clear()
        self._queues.clear()
        beat = self.ctx.heartbeats.get("scheduler")
        if beat is not None and beat.token == self.token:
            del self.ctx.heartbeats["scheduler"]  # stopped: no longer a heartbeat readiness waits for
        if self._registered:  # rows never attempted are free for the next scheduler at once
            self._registered = False
            await self.store.unregister(self.token)
        self.ctx.storage.backend.resign()


async def send_and_record(
    store: DailyStore,
    transport: Transport,
    delivery_id: int,
    sub: Subscription,
    text: str,
    before_request: LostDatabase,
    attempt: int,
    max_attempts: int,
    clock: Clock,
    stats: SchedulerStats,
    moment: Moment | None = None,
) -> str:
    """Send one reading through the platform's sender and write the outcome to its delivery row; returns
    ``not_attempted`` | ``uncertain`` | ``sent`` | ``blocked`` | ``failed`` | ``retry`` (the row is ``claimed``
    again: provably not delivered). Shared by the scheduler's in-process workers and the queue workers.
    ``moment``: the reading's moment, for its picture (:func:`reading_picture`). Every settled outcome is
    counted (:func:`bot.metrics.delivery`). A lost database connection raised by the transport before it
    awaited ``before_request`` (the picture setting's read: no request made) is ``not_attempted`` with
    ``before_request.error`` set, like one met by ``before_request`` itself — never a failed attempt."""
    try:
        outcome = await transport.send(sub, text, before_request=before_request, moment=moment)
        ok, error, parts = outcome.ok, outcome.error, outcome.parts
    except Exception as exc:  # the sender handles platform errors; this is the unexpected rest
        if before_request.lost_before_asking(exc):  # no request made: the caller's lost-database back-off
            return "not_attempted"
        log.exception("daily: sending delivery %s failed", delivery_id)
        ok, error, parts = False, f"exception: {exc!r}", 0
    now = await clock.now()
    if error == "not_attempted":
        return "not_attempted"
    if error == "uncertain":
        # the platform may have accepted it (a lost answer, a read timeout): never sent again
        await write_outcome(
            lambda: store.mark(delivery_id, "uncertain", now, "maybe delivered; not resent"),
            f"delivery {delivery_id}: uncertain",
        )
        stats.uncertain += 1
        metrics.delivery(sub.platform, "uncertain")
        log.error("daily: delivery %s may or may not have arrived; not resent", delivery_id)
        return "uncertain"
    if ok:
        await write_outcome(lambda: store.mark(delivery_id, "sent", now), f"delivery {delivery_id}: sent")
        stats.sent += 1
        metrics.delivery(sub.platform, "sent")
        return "sent"
    if error in ("forbidden", "chat_not_found"):
        await write_outcome(
            lambda: store.mark(delivery_id, "blocked", now, error), f"delivery {delivery_id}: blocked"
        )
        await write_outcome(
            lambda: store.disable(sub.platform, sub.chat_id, f"{error}", now), "a disabled chat"
        )
        stats.blocked += 1
        metrics.delivery(sub.platform, "blocked")
        log.info("daily: %s:%s refuses the bot; subscription %s disabled", sub.platform, sub.chat_id, sub.id)
        return "blocked"
    if error == "bad_request" or parts > 0 or attempt >= max_attempts:
        # a bug, or a partly delivered reading (resending would repeat parts), or out of attempts
        await write_outcome(
            lambda: store.mark(delivery_id, "failed", now, error), f"delivery {delivery_id}: failed"
        )
        stats.failed += 1
        metrics.delivery(sub.platform, "failed")
        log.error("daily: delivery %s failed for good: %s (attempt %d)", delivery_id, error, attempt)
        return "failed"
    await write_outcome(
        lambda: store.mark(delivery_id, "claimed", now, error), f"delivery {delivery_id}: retry"
    )
    stats.retried += 1
    log.warning("daily: delivery %s: %s (attempt %d); to be retried", delivery_id, error, attempt)
    return "retry"


class DeliveryWorker:
    """A queue worker's side (:mod:`bot.queue`): one delivery row → render → the one sender → its outcome.

    The row's state decides, never the queue: only a ``claimed`` row is sent, and only by whoever moves it
    to ``sending`` first (:meth:`DailyStore.start_sending` with ``take``); a job run again after a crash
    finds it ``sending``/``sent``/``uncertain`` and does nothing. The worker has a row in ``schedulers``
    with a heartbeat, so the rows it was sending when it died become ``uncertain`` by age (never resent)."""

    def __init__(
        self,
        ctx: AppContext,
        *,
        transports: Mapping[str, Transport] | None = None,
        grace: timedelta = GRACE,
        max_attempts: int = 3,
        backoff: float = 2.0,
        renderer: DailyRenderer | None = None,
        heartbeat_every: float = HEARTBEAT_EVERY,
    ) -> None:
        self.ctx = ctx
        self.token = "worker-" + uuid.uuid4().hex
        self.store = DailyStore(ctx.storage)
        self.transports: dict[str, Transport] = dict(
            transports if transports is not None else default_transports(ctx)
        )
        self.grace = grace
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.renderer = renderer or DailyRenderer()
        self.heartbeat_every = heartbeat_every
        self.stats = SchedulerStats()
        self.stopping = False
        self._db_failures = 0  # consecutive jobs that met a lost database connection (their back-off)
        # rows whose ``start_sending`` lost its answer (maybe committed) and that were not sent: released
        # (``sending`` → ``claimed``) when their job runs again
        self._unsent: set[int] = set()

    async def deliver(self, delivery_id: int) -> tuple[str, float | None]:
        """Run one queue job: (its result, seconds after which the queue runs it again, or None). Logs one
        INFO line per job (arq's own two per job are turned off: :func:`bot.queue.run_queue_worker`).

        A lost database connection (a restart, a network cut: :func:`bot.faults.connection_lost`)
        before the request leaves the row ``claimed`` and runs the job again after a back-off
        (:func:`db_backoff`, the worker's consecutive failures), so the reading goes out seconds after the
        database is back — not when the scheduler's ``requeue_after`` finds the row. So does a lost connection
        met by the transport's own reads before the request (:meth:`LostDatabase.lost_before_asking`). Any
        other error the job meets runs it again after :data:`JOB_ERROR_RETRY` (logged with its traceback)
        instead of ending it: the row's state decides the re-run (only a ``claimed`` row is sent), so it
        never sends twice, and a reading stuck on a passing fault is not 10 minutes late."""
        started = asyncio.get_running_loop().time()
        with logs.ids(delivery=delivery_id):
            try:
                result = await self._deliver(delivery_id)
            except Exception as exc:  # the job's boundary: a job that raised would end, its row left claimed
                if isinstance(exc, database_errors()) and connection_lost(exc):
                    result = self._lost_database(delivery_id, exc)
                else:
                    log.exception("queue: delivery %s: unexpected error; its job runs again", delivery_id)
                    result = "error", JOB_ERROR_RETRY
            else:
                if result[0] != "db_unreachable":
                    self._db_failures = 0
            metrics.queue_job(result[0])
            log.info(
                "queue: delivery %s: %s in %.2fs%s",
                delivery_id,
                result[0],
                asyncio.get_running_loop().time() - started,
                f", again in {result[1]:.1f}s" if result[1] is not None else "",
            )
        return result

    async def _release(self, delivery_id: int) -> None:
        await self.store.release_unsent(delivery_id, self.token)
        self._unsent.discard(delivery_id)

    def _lost_database(self, delivery_id: int, exc: BaseException) -> tuple[str, float]:
        self._db_failures += 1
        delay = db_backoff(self._db_failures)
        if self._db_failures == 1:
            log.warning(
                "daily: the database is unreachable (%r); delivery %s again in %.2fs", exc, delivery_id, delay
            )
        return "db_unreachable", delay

    async def _deliver(self, delivery_id: int) -> tuple[str, float | None]:
        clock = self.ctx.clock
        found = await self.store.job(delivery_id)
        if found is None:
            return "gone", None
        row, sub = found
        if row.status != "claimed":
            return row.status, None  # sent, in flight elsewhere, or settled: never again
        now = await clock.now()
        if not sub.active:
            await self.store.mark(delivery_id, "skipped", now, "subscription inactive")
            return "skipped", None
        if now - row.due_at > self.grace:
            await self.store.mark(delivery_id, "skipped", now, "past the grace window in the queue")
            self.stats.skipped += 1
            metrics.dropped("reading_skipped")
            return "skipped", None
        transport = self.transports.get(sub.platform)
        if transport is None or not transport.ready():
            return "not_ready", 5.0  # this worker cannot send to the platform (yet): the job waits
        moment = subscription_moment(sub, row.due_at)
        try:
            # head and body strings shared between readings (bot.daily head forms), joined for this one
            text = join_parts(*self.renderer.parts(moment, sub.lang, transport.channel))
        except Exception as exc:  # an engine or template bug: record it, never loop on it
            log.exception("daily: could not render subscription %s for %s", sub.id, row.local_date)
            await self.store.mark(delivery_id, "failed", now, f"render: {exc!r}")
            return "failed", None

        async def start() -> bool:
            if self.stopping:
                return False
            return await self.store.start_sending(delivery_id, self.token, await clock.now(), take=True)

        before_request = LostDatabase(start)
        attempt = row.attempts + 1
        result = await send_and_record(
            self.store,
            transport,
            delivery_id,
            sub,
            text,
            before_request,
            attempt,
            self.max_attempts,
            clock,
            self.stats,
            moment,
        )
        if result == "not_attempted" and before_request.error is not None:
            # its ``sending`` may have been committed, and no request was made: released here, by the one
            # process that knows (the job may run again on another worker), once the database answers
            self._unsent.add(delivery_id)
            await write_outcome(lambda: self._release(delivery_id), f"delivery {delivery_id}: not sent")
            return self._lost_database(delivery_id, before_request.error)
        if result == "not_attempted":
            return result, 1.0  # stopping, or taken by another worker meanwhile (then the rerun is a no-op)
        if result == "retry":
            return result, self.backoff * 2 ** (attempt - 1)
        return result, None

    async def heartbeat(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.store.heartbeat(self.token, await self.ctx.clock.now())
                for delivery_id in list(self._unsent):  # not released within OUTCOME_PATIENCE: again now
                    await self._release(delivery_id)
            except database_errors() as exc:  # beats again at the next turn; a lost beat only ages
                if not connection_lost(exc):
                    raise
                log.warning("daily: worker heartbeat not written (%r)", exc)
            try:
                await asyncio.wait_for(stop.wait(), timeout=self.heartbeat_every)
            except TimeoutError:
                continue


# starts a Telegram sender of this process (``bot.telegram.sender.start_sender``: given by ``bot.app``, so
# that the scheduler imports no adapter) and returns its ``Bot``
SenderStarter = Callable[[AppContext, Callable[[str, str, str], Awaitable[None]]], Awaitable[Any]]


async def run_worker(
    ctx: AppContext, stop: asyncio.Event, *, start_sender: SenderStarter | None = None, **options: Any
) -> None:
    """Entry point of the ``worker`` role: send queued daily readings until ``stop`` (needs
    ``SIKPAN_REDIS_URL``). Telegram sends go through a :class:`bot.telegram.sender.TelegramSender` of this
    process (no polling; ``start_sender`` starts it) with the shared Redis budgets; ``options`` go to
    :func:`bot.queue.run_queue_worker`."""
    url = ctx.settings.redis_url
    if not url:
        raise ValueError("the worker role needs SIKPAN_REDIS_URL")
    from bot.queue import run_queue_worker  # the redis extra: only where a Redis URL is configured

    own_bot = await start_senders(ctx, start_sender)
    worker = DeliveryWorker(ctx, heartbeat_every=float(options.pop("heartbeat_every", HEARTBEAT_EVERY)))
    beat_stop = asyncio.Event()
    beat = asyncio.create_task(worker.heartbeat(beat_stop), name="worker-heartbeat")
    ctx.heartbeats["worker"] = Heartbeat(worker.token, worker.heartbeat_every)
    try:
        await run_queue_worker(url, worker.deliver, stop, **options)
    finally:
        mine = ctx.heartbeats.get("worker")
        if mine is not None and mine.token == worker.token:
            del ctx.heartbeats["worker"]
        worker.stopping = True
        beat_stop.set()
        await asyncio.gather(beat, return_exceptions=True)
        await worker.store.unregister(worker.token)
        if own_bot is not None:
            await own_bot.shutdown()


async def start_senders(ctx: AppContext, start_sender: SenderStarter | None) -> Any:
    """The senders of a process that sends without running the chat adapters (the worker role; a
    ``scheduler`` role without Redis, which sends Telegram readings itself, needs them too): a ``Bot`` on the
    configured API with the process's budgets (shared through Redis when configured). Discord needs its
    client: Discord readings stay with the process that runs the Discord adapter. Returns the ``Bot`` it
    started (``await bot.shutdown()`` at the end), or None."""
    token = ctx.settings.telegram_token
    if not token or ctx.telegram_sender is not None or start_sender is None:
        return None  # no Telegram, or its adapter runs in this process (role all): its sender serves
    store = DailyStore(ctx.storage)

    async def on_migrated(platform: str, old: str, new: str) -> None:
        await store.migrate_chat(platform, old, new)

    return await start_sender(ctx, on_migrated)


def daily_queue(ctx: AppContext) -> JobQueue | None:
    """The job queue of this process's schedulers: :class:`bot.queue.DeliveryQueue` when a Redis URL is
    configured, else None (the scheduler sends in-process)."""
    if not ctx.settings.redis_url:
        return None
    from bot.queue import DeliveryQueue  # the redis extra: only where a Redis URL is configured

    return DeliveryQueue(ctx.settings.redis_url)


async def run_scheduler(
    ctx: AppContext,
    stop: asyncio.Event,
    *,
    platforms: Sequence[str] | None = None,
    transports: Sequence[TransportFactory] = (),
) -> None:
    """Entry point used by ``bot.app.run``: the scheduler of this application until ``stop`` is set.

    ``platforms``: only these platforms' readings (default: every platform whose token is set). A process
    of the ``scheduler`` role with Redis passes the queue's platforms (``telegram``: the workers send them);
    Discord readings are scheduled by the process that runs the Discord client. ``transports``: the
    adapters' transports this process sends through besides :func:`default_transports` (each built on
    ``ctx``; one per platform, replacing a default one of the same platform)."""
    scheduler = scheduler_of(ctx)
    if scheduler is None:
        chosen = default_transports(ctx)
        for make in transports:
            transport = make(ctx)
            chosen[transport.platform] = transport
        if platforms is not None:
            chosen = {name: t for name, t in chosen.items() if name in platforms}
        scheduler = DailyScheduler(ctx, transports=chosen, queue=daily_queue(ctx))
    await scheduler.run(stop)


def scheduler_of(ctx: AppContext) -> DailyScheduler | None:
    """The scheduler installed on ``ctx`` (``ctx.daily_scheduler``), if any."""
    s = ctx.daily_scheduler
    return s if isinstance(s, DailyScheduler) else None


__all__ = [
    "GRACE",
    "STALE_AFTER",
    "DailyScheduler",
    "DeliveryWorker",
    "JobQueue",
    "SchedulerStats",
    "TelegramTransport",
    "Transport",
    "TransportFactory",
    "default_transports",
    "daily_queue",
    "run_scheduler",
    "run_worker",
    "start_senders",
    "send_and_record",
    "scheduler_of",
    "sleep_until",
]
