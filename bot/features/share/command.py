"""/share N [끄기]: a link that opens one cast for whoever follows it (``t.me/<bot>?start=<token>``, Discord's
``/start token:``), revoked with ``/share N 끄기``; ``/start <token>`` opens it (:func:`shared_reply`). What the
link shows is what a group may see of the cast (``Stored.public``, as :mod:`bot.privacy`), cast again from its
history row (``bot.features.common.replay``): never the owner's history, birth data, settings or notes. A cast
made of personal data alone (七政四餘: a birth chart) is not shared.

/ask [art]: another question — the topics of an art to choose from (a ``choose`` reply: typed, or pressed as
buttons), the line a reading's "another question" button runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.features.account.history import parse_number
from bot.features.base import (
    ArgSpec,
    CommandError,
    Incoming,
    Reply,
    allowed,
    command,
    lookup,
    reply,
    stored_as_view,
)
from bot.features.common import OFF_WORDS, replay
from bot.i18n import N_
from bot.storage.shares import ShareStore
from engine import lexicon

if TYPE_CHECKING:
    from bot.context import AppContext

# the views whose readings are asked about a topic, and the line that asks one now
ASKING: dict[str, tuple[str, str]] = {"cast": ("liuren", "/cast now"), "liuyao": ("liuyao", "/liuyao")}
# the kinds of targets "another question" offers (the 大六壬 topics of seed 003, the 六爻 questions)
_OFFERED = frozenset({"topic", "category"})


def shareable(view: str) -> bool:
    """Does a group — and so a shared link — see anything of a cast of ``view``?"""
    spec = stored_as_view(view)
    return spec is not None and spec.stored is not None and bool(spec.stored.public)


@command(
    "share",
    aliases=("공유", "分享"),
    help_msgid=N_("bot.help.share"),
    usage_msgid=N_("bot.usage.share"),
    args=(
        ArgSpec("number", "integer", required=True, description_msgid=N_("bot.arg.share.number")),
        ArgSpec("off", description_msgid=N_("bot.arg.share.off")),
    ),
    order=7,
)
async def share(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if not args or len(args) > 2:
        raise CommandError("bot.error.share_usage")
    seq = parse_number(args[0])
    store = ShareStore(ctx.storage)
    now = await ctx.clock.now()
    if len(args) == 2:
        if args[1].strip().lower() not in OFF_WORDS:
            raise CommandError("bot.error.share_usage")
        revoked = await store.revoke(incoming.user_key, seq, now)
        return reply("share", no=seq, revoked=revoked)
    entry = await ctx.storage.get_history(incoming.user_key, seq)
    if entry is None:
        raise CommandError("bot.error.no_such_entry", number=seq)
    if not shareable(entry.view):
        raise CommandError("bot.error.share_private", number=seq)
    token = await store.share(incoming.user_key, seq, now)
    return reply("share", no=seq, token=token, platform=incoming.platform, bot=incoming.bot_name)


async def shared_reply(token: str, ctx: AppContext) -> Reply:
    """The cast a live share token names, as a group would see it (``shared``: the token, which its page
    buttons name instead of the owner); ``CommandError`` (``bot.error.share_gone``) for a token that is
    unknown, revoked, or whose cast is gone."""
    share = await ShareStore(ctx.storage).open(token.strip())
    entry = await ctx.storage.get_history(share.user_key, share.seq) if share is not None else None
    cast = replay(entry) if entry is not None else None
    if share is None or entry is None or cast is None:
        raise CommandError("bot.error.share_gone")
    spec = stored_as_view(entry.view)
    public = allowed(cast.context, spec.stored.public) if spec is not None and spec.stored else None
    if public is None:
        raise CommandError("bot.error.share_gone")
    return reply(entry.view, **{**public, "shared": share.token}, picture=cast.picture)


def choices(art: str) -> list[dict[str, Any]]:
    return [
        {"target": m.target, "kind": m.kind, "ko": m.ko, "lzh": m.lzh}
        for m in lexicon.targets(art)
        if m.kind in _OFFERED
    ]


@command(
    "ask",
    aliases=("다른질문", "他問"),
    args=(ArgSpec("art"),),
    hidden=True,
)
async def ask(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    spec = lookup(args[0].lstrip("/")) if args else lookup("cast")
    view = spec.stored.view if spec is not None and spec.stored is not None else ""
    if view not in ASKING or len(args) > 1:
        raise CommandError("bot.error.ask_art", value=(args[0] if args else "")[:20])
    art, line = ASKING[view]
    return reply("choose", word="", art=art, line=line, choices=choices(art), by_asker=False, asking=True)


__all__ = ["ASKING", "ask", "choices", "share", "shareable", "shared_reply"]
