"""Wall-clock schedule arithmetic for daily readings: when is "07:30 in Asia/Seoul" next due?

Pure functions over :mod:`zoneinfo`; the scheduler (``bot/scheduler.py``) stores subscriptions and
deliveries in the database and uses these to know what is due.

DST policy (documented in docs/daily.md):
- a wall time that occurs twice (fold, e.g. 01:30 on the New York fall-back night) is due at its
  **first** occurrence (``fold=0``);
- a wall time that does not exist (gap, e.g. 02:30 on the New York spring-forward night) is due at the
  instant the clock would show it had it not jumped, i.e. shifted forward by the gap (02:30 EST = 03:30 EDT).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo


def parse_hhmm(text: str) -> time | None:
    """``"07:30"`` / ``"7:30"`` / ``"0730"`` → time(7, 30); None when it is not a valid wall time."""
    t = text.strip().replace("：", ":")
    if ":" in t:
        hh, _, mm = t.partition(":")
    elif len(t) == 4 and t.isdigit():
        hh, mm = t[:2], t[2:]
    else:
        return None
    if not (hh.isdigit() and mm.isdigit() and len(mm) == 2 and 1 <= len(hh) <= 2):
        return None
    h, m = int(hh), int(mm)
    if not (0 <= h < 24 and 0 <= m < 60):
        return None
    return time(h, m)


def due_instant(local_date: date, at: time, zone: ZoneInfo) -> datetime:
    """The UTC instant at which the wall clock of ``zone`` reads ``at`` on ``local_date`` (policy above)."""
    wall = datetime.combine(local_date, at, tzinfo=zone).replace(fold=0)
    return wall.astimezone(UTC)


def local_date_of(instant: datetime, zone: ZoneInfo) -> date:
    return instant.astimezone(zone).date()


def next_due(at: time, zone: ZoneInfo, after: datetime) -> tuple[date, datetime]:
    """The first (local date, UTC instant) strictly after ``after`` when ``at`` is due in ``zone``."""
    d = local_date_of(after, zone) - timedelta(days=1)
    while True:
        instant = due_instant(d, at, zone)
        if instant > after:
            return d, instant
        d += timedelta(days=1)


def latest_due(at: time, zone: ZoneInfo, now: datetime) -> tuple[date, datetime]:
    """The last (local date, UTC instant) at or before ``now`` when ``at`` was due in ``zone``."""
    d = local_date_of(now, zone) + timedelta(days=1)
    while True:
        instant = due_instant(d, at, zone)
        if instant <= now:
            return d, instant
        d -= timedelta(days=1)


def pending_due(
    at: time, zone: ZoneInfo, now: datetime, since: datetime, done: date | None = None
) -> tuple[date, datetime]:
    """The first due (local date, UTC instant) of a subscription that is not handled yet, as of ``now``.

    The latest due at or before ``now`` counts when it is not older than ``since`` (the subscription's start)
    — it may be in the past: the scheduler sends it within its grace window or records it skipped — else the
    next one after ``now``. ``done``: the latest local date that already has a delivery; only later dates.
    """
    d, due = latest_due(at, zone, now)
    if due >= since and (done is None or d > done):
        return d, due
    d, due = next_due(at, zone, now)
    while done is not None and d <= done:
        d, due = next_due(at, zone, due)
    return d, due


def due_after(
    at: time, zone: ZoneInfo, handled: date, handled_due: datetime, now: datetime
) -> tuple[date, datetime]:
    """The due to wait for once the day ``handled`` (due at ``handled_due``) is claimed or skipped.

    The next due after it — unless that is already past at ``now`` too (the bot was down for days): then the
    latest due at or before ``now``, so missed days collapse into one (sent within grace, else skipped).
    """
    d, due = next_due(at, zone, handled_due)
    while d <= handled:
        d, due = next_due(at, zone, due)
    if due <= now:
        latest_d, latest = latest_due(at, zone, now)
        if latest_d > d:
            return latest_d, latest
    return d, due
