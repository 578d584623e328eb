"""Log records as one JSON object a line (``SIKPAN_LOG_FORMAT=json``), carrying the ids of the work they are
about: the update (a Telegram ``update_id``, a Discord interaction id), the queue job and the delivery row.

The ids live in context variables set at the boundaries where that work starts — the webhook request and
the Telegram handler (update), the queue job (job, delivery), the scheduler's send of one reading (delivery)
— with :func:`ids`, which resets them when the block ends. Every task inherits its creator's context, so a
record logged anywhere below a boundary (the sender, the storage, a library) carries them; the plain-text
format leaves them out, as before.

A line: ``{"ts": "2026-12-07T13:02:11.532Z", "level": "INFO", "logger": "bot.queue", "message": "…",
"update_id": 12, "job_id": "sikpan:delivery:7", "delivery_id": 7}`` (the ids only when set; ``exc`` with
the traceback when there is one). Records are redacted before they reach here (:mod:`bot.config`).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any

update_id: ContextVar[int | str | None] = ContextVar("sikpan_update_id", default=None)
job_id: ContextVar[str | None] = ContextVar("sikpan_job_id", default=None)
delivery_id: ContextVar[int | None] = ContextVar("sikpan_delivery_id", default=None)

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


@contextlib.contextmanager
def ids(
    *, update: int | str | None = None, job: str | None = None, delivery: int | None = None
) -> Iterator[None]:
    """Set the given ids for the block (the others keep their values), reset after it."""
    tokens: list[tuple[ContextVar[Any], Token[Any]]] = []
    if update is not None:
        tokens.append((update_id, update_id.set(update)))
    if job is not None:
        tokens.append((job_id, job_id.set(job)))
    if delivery is not None:
        tokens.append((delivery_id, delivery_id.set(delivery)))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def current_ids() -> dict[str, int | str]:
    """The ids set in this context, by their JSON key."""
    found: dict[str, int | str] = {}
    for key, var in (("update_id", update_id), ("job_id", job_id), ("delivery_id", delivery_id)):
        value = var.get()
        if value is not None:
            found[key] = value
    return found


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line (see the module doc)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")[:-6] + "Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **current_ids(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exc"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter(kind: str) -> logging.Formatter:
    """The formatter of ``SIKPAN_LOG_FORMAT``: ``json`` or ``text`` (the default)."""
    return JsonFormatter() if kind == "json" else logging.Formatter(TEXT_FORMAT)


__all__ = [
    "FORMATS",
    "JsonFormatter",
    "current_ids",
    "delivery_id",
    "formatter",
    "ids",
    "job_id",
    "update_id",
]
