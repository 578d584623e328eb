"""/history /show /forget: the user's own casts."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot.commands._common import zone_of
from bot.commands.base import ArgSpec, CommandError, Incoming, Reply, caller, command, reply
from bot.i18n import N_

if TYPE_CHECKING:
    from bot.context import AppContext

PAGE = 10


def _local(stamp: str, zone: ZoneInfo) -> str:
    """A stored ISO instant as the user's wall clock (``2026-11-30 09:59``)."""
    try:
        at = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp[:16]
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(zone).strftime("%Y-%m-%d %H:%M")


def _number(text: str) -> int:
    s = text.strip().lstrip("#").removesuffix("번").removesuffix("號").removesuffix("号")
    if not s.isdigit() or not s.isascii() or len(s) > 9:
        raise CommandError("bot.error.bad_number", value=text[:20])
    return int(s)


def summary(kind: str, context: Mapping[str, Any]) -> dict[str, Any]:
    """What a cast was, in characters only (the template localizes the labels)."""
    if kind == "cast":
        return {"day": context.get("day"), "ju": context.get("ju"), "first": _first_branch(context)}
    if kind == "liuyao":
        main, changed = context.get("main") or {}, context.get("changed") or {}
        return {"main": main.get("name"), "changed": changed.get("name")}
    if kind == "shensha":
        return {"day": context.get("day"), "month": context.get("month")}
    if kind == "qizheng":
        return {"year": context.get("year"), "ming": context.get("ming_gong")}
    if kind == "daily":  # /today: the day's 干支 and which reading it carried
        body = context.get("body") or {}
        return {"day": (body.get("pillars") or {}).get("day"), "reading": body.get("kind")}
    return {}


def _first_branch(context: Mapping[str, Any]) -> str | None:
    trans = context.get("transmissions") or []
    return "".join(t.get("branch", "") for t in trans) or None


@command(
    "history",
    aliases=("기록", "記錄", "录"),
    help_msgid=N_("bot.help.history"),
    args=(ArgSpec("before", "integer", description_msgid=N_("bot.arg.history.before")),),
    ephemeral=True,
)
async def history(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    before = _number(args[0]) if args else None
    if before is not None and before < 1:  # numbers start at 1: "before #0" would always be empty
        raise CommandError("bot.error.bad_number", value=args[0][:20])
    entries = await ctx.storage.list_history(incoming.user_key, limit=PAGE, before=before)
    total = await ctx.storage.count_history(incoming.user_key)
    zone = zone_of(await caller(incoming, ctx), ctx)
    rows = [
        {
            "no": e.seq,
            "kind": e.kind,
            "command": e.command,
            "created_at": _local(e.created_at, zone),
            "summary": summary(e.kind, e.context),
        }
        for e in entries
    ]
    more = bool(entries) and entries[-1].seq > 1
    return reply("history", entries=rows, total=total, next_before=entries[-1].seq if more else None)


@command(
    "show",
    aliases=("보기", "示"),
    help_msgid=N_("bot.help.show"),
    args=(ArgSpec("number", "integer", required=True, description_msgid=N_("bot.arg.show.number")),),
)
async def show(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if len(args) != 1:
        raise CommandError("bot.error.show_usage")
    seq = _number(args[0])
    entry = await ctx.storage.get_history(incoming.user_key, seq)
    if entry is None:
        raise CommandError("bot.error.no_such_entry", number=seq)
    return reply(entry.view, **dict(entry.context), no=entry.seq)


# /forget deletes everything and cannot be undone: it asks first, and deletes on ``/forget yes``.
CONFIRM_WORDS = frozenset({"yes", "confirm", "예", "네", "확인", "是", "諾", "确认", "確認"})


@command(
    "forget",
    aliases=("삭제", "忘"),
    help_msgid=N_("bot.help.forget"),
    args=(ArgSpec("confirm", description_msgid=N_("bot.arg.forget.confirm"), choices=("yes",)),),
    ephemeral=True,
)
async def forget(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if not args:
        casts = await ctx.storage.count_history(incoming.user_key)
        return reply("forget", confirm=True, casts=casts, rows=0)
    if len(args) != 1 or args[0].strip().lower() not in CONFIRM_WORDS:
        raise CommandError("bot.error.forget_usage")
    deleted = await ctx.storage.forget(incoming.user_key)
    return reply("forget", confirm=False, rows=sum(deleted.values()), casts=deleted.get("history", 0))
