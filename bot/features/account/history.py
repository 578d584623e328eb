"""/history /show /forget: the user's own casts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot.features.base import ArgSpec, CommandError, Incoming, Reply, caller, command, reply, stored_as_kind
from bot.features.common import replay, zone_of
from bot.i18n import N_
from bot.storage import HistoryEntry
from bot.storage.notes import JournalStore

if TYPE_CHECKING:
    from bot.context import AppContext

PAGE = 10


def local_time(stamp: str, zone: ZoneInfo) -> str:
    """A stored ISO instant as the user's wall clock (``2026-11-30 09:59``)."""
    try:
        at = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp[:16]
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def parse_number(text: str) -> int:
    s = text.strip().lstrip("#").removesuffix("번").removesuffix("號").removesuffix("号")
    if not s.isdigit() or not s.isascii() or len(s) > 9:
        raise CommandError("bot.error.bad_number", value=text[:20])
    return int(s)


def summary(entry: HistoryEntry) -> Mapping[str, Any]:
    """What a cast was, in characters only (the template localizes the labels): the row's own (its command's
    ``Stored.summary`` of the cast, kept when it was stored), or for a row stored before migration 0012 that
    of its stored view model (empty for a kind no command stores any more)."""
    if entry.summary is not None:
        return entry.summary
    stored = stored_as_kind(entry.kind)
    return stored.summary(entry.context) if stored is not None and stored.summary is not None else {}


def _line(kind: str) -> str:
    """The template of the tail of a row's line in /history ("" for none)."""
    stored = stored_as_kind(kind)
    return stored.line if stored is not None else ""


@command(
    "history",
    aliases=("기록", "記錄", "录"),
    help_msgid=N_("bot.help.history"),
    usage_msgid=N_("bot.usage.history"),
    args=(ArgSpec("before", "integer", description_msgid=N_("bot.arg.history.before")),),
    ephemeral=True,
    private_only=True,
    order=6,
)
async def history(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    before = parse_number(args[0]) if args else None
    if before is not None and before < 1:  # numbers start at 1: "before #0" would always be empty
        raise CommandError("bot.error.bad_number", value=args[0][:20])
    entries = await ctx.storage.list_history(incoming.user_key, limit=PAGE, before=before)
    total = await ctx.storage.count_history(incoming.user_key)
    zone = zone_of(await caller(incoming, ctx), ctx)
    outcomes = await JournalStore(ctx.storage).outcomes(incoming.user_key, (e.seq for e in entries))
    rows = [
        {
            "no": e.seq,
            "kind": e.kind,
            "command": e.command,
            "created_at": local_time(e.created_at, zone),
            "summary": summary(e),
            "line": _line(e.kind),
            "noted": e.seq in outcomes,
            "outcome": outcomes.get(e.seq),
        }
        for e in entries
    ]
    more = bool(entries) and entries[-1].seq > 1
    return reply("history", entries=rows, total=total, next_before=entries[-1].seq if more else None)


@command(
    "show",
    aliases=("보기", "示"),
    help_msgid=N_("bot.help.show"),
    usage_msgid=N_("bot.usage.show"),
    args=(ArgSpec("number", "integer", required=True, description_msgid=N_("bot.arg.show.number")),),
    private_only=True,
    order=7,
)
async def show(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if len(args) != 1:
        raise CommandError("bot.error.show_usage")
    seq = parse_number(args[0])
    entry = await ctx.storage.get_history(incoming.user_key, seq)
    shown = replay(entry) if entry is not None else None
    if shown is None:
        raise CommandError("bot.error.no_such_entry", number=seq)
    # the stored cast's text and pages; its picture went with the first reply (a page button puts it back)
    return replace(shown, picture=None)


# /forget deletes everything and cannot be undone: it asks first, and deletes on ``/forget yes``.
CONFIRM_WORDS = frozenset({"yes", "confirm", "예", "네", "확인", "是", "諾", "确认", "確認"})


@command(
    "forget",
    aliases=("삭제", "忘"),
    help_msgid=N_("bot.help.forget"),
    usage_msgid=N_("bot.usage.forget"),
    args=(ArgSpec("confirm", description_msgid=N_("bot.arg.forget.confirm"), choices=("yes",)),),
    ephemeral=True,
    private_only=True,
    order=12,
)
async def forget(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if not args:
        casts = await ctx.storage.count_history(incoming.user_key)
        return reply("forget", confirm=True, casts=casts, rows=0)
    if len(args) != 1 or args[0].strip().lower() not in CONFIRM_WORDS:
        raise CommandError("bot.error.forget_usage")
    deleted = await ctx.storage.forget(incoming.user_key)
    return reply("forget", confirm=False, rows=sum(deleted.values()), casts=deleted.get("history", 0))
