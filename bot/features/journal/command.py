"""/note N [맞음|틀림|반반] [what happened] and /journal [art]: a practitioner records, after the event, what
happened and whether a cast's reading held, and sees how the readings held up — overall, per art and per
topic (the 六爻 用神 or the 大六壬 類神 the cast was asked about). Private: only the owner of the casts reads
or writes their notes (``private_only``); /forget deletes them with the rest (migration 0016)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from bot.features.account.history import local_time, parse_number
from bot.features.base import (
    ArgSpec,
    CommandError,
    Incoming,
    Reply,
    caller,
    command,
    lookup,
    reply,
    stored_as_kind,
)
from bot.features.common import zone_of
from bot.i18n import N_
from bot.storage.notes import OUTCOMES, TEXT_LIMIT, JournalStore, NotedCast

if TYPE_CHECKING:
    from bot.context import AppContext

# the words of a verdict, as typed (Korean, 文言, English); the first of each is the button's / help's word
OUTCOME_WORDS: Mapping[str, str] = {
    **dict.fromkeys(("맞음", "맞았음", "맞았다", "적중", "驗", "應", "中", "held", "hit"), "held"),
    **dict.fromkeys(
        ("틀림", "틀렸음", "틀렸다", "빗나감", "不驗", "不應", "不中", "missed", "miss"), "missed"
    ),
    **dict.fromkeys(("반반", "반쯤", "半驗", "半", "partly", "half"), "partly"),
}
DELETE_WORDS = frozenset({"지움", "지우기", "삭제", "刪", "除", "delete"})
RECENT = 10  # noted casts listed by /journal


def outcome_of(word: str) -> str | None:
    return OUTCOME_WORDS.get(word.strip().lower())


@command(
    "note",
    aliases=("메모", "기록하기", "記"),
    help_msgid=N_("bot.help.note"),
    usage_msgid=N_("bot.usage.note"),
    args=(
        ArgSpec("number", "integer", required=True, description_msgid=N_("bot.arg.note.number")),
        # no fixed choices: the verdict is a word of the user's language (맞음 · 驗 · held …, OUTCOME_WORDS)
        ArgSpec("outcome", description_msgid=N_("bot.arg.note.outcome")),
        ArgSpec("text", description_msgid=N_("bot.arg.note.text")),
    ),
    ephemeral=True,
    private_only=True,
    order=7,
)
async def note(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if not args:
        raise CommandError("bot.error.note_usage")
    seq = parse_number(args[0])
    entry = await ctx.storage.get_history(incoming.user_key, seq)
    journal = JournalStore(ctx.storage)
    rest = list(args[1:])
    if entry is None and not (rest and rest[0] in DELETE_WORDS):
        raise CommandError("bot.error.no_such_entry", number=seq)
    if rest and rest[0] in DELETE_WORDS and len(rest) == 1:
        deleted = await journal.delete(incoming.user_key, seq)
        return reply("note", no=seq, deleted=deleted)
    outcome = outcome_of(rest[0]) if rest else None
    if outcome is not None:
        rest = rest[1:]
    text = " ".join(rest).strip()
    if len(text) > TEXT_LIMIT:
        raise CommandError("bot.error.note_too_long", limit=TEXT_LIMIT)
    if outcome is None and not text:  # /note N: what is written of it
        current = await journal.get(incoming.user_key, seq)
        return reply(
            "note", no=seq, command=entry.command if entry else "", note=_shown(current), written=False
        )
    saved = await journal.write(
        incoming.user_key, seq, outcome=outcome, text=text or None, now=await ctx.clock.now()
    )
    return reply("note", no=seq, command=entry.command if entry else "", note=_shown(saved), written=True)


def _shown(note: Any) -> dict[str, Any] | None:
    if note is None:
        return None
    return {"outcome": note.outcome, "text": note.text}


def topic_of(kind: str, inputs_text: str) -> str:
    """The topic a cast was asked about, as stored with it: the 六爻 用神, the 大六壬 category or topic."""
    try:
        inputs = json.loads(inputs_text)
    except ValueError:
        return ""
    if not isinstance(inputs, dict):
        return ""
    for key in ("topic", "category", "use"):
        value = inputs.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def tally(casts: Iterable[NotedCast]) -> dict[str, Any]:
    """Counts per outcome and the share that held (a half counts half), of the casts with a verdict."""
    counts = Counter(c.outcome for c in casts if c.outcome in OUTCOMES)
    judged = sum(counts.values())
    held = counts["held"] + counts["partly"] / 2
    return {
        "held": counts["held"],
        "missed": counts["missed"],
        "partly": counts["partly"],
        "judged": judged,
        "percent": round(100 * held / judged) if judged else None,
    }


def _art(kind: str) -> str:
    stored = stored_as_kind(kind)
    return stored.title_msgid if stored is not None and stored.title_msgid else ""


@command(
    "journal",
    aliases=("일지", "점일지", "驗錄"),
    help_msgid=N_("bot.help.journal"),
    usage_msgid=N_("bot.usage.journal"),
    args=(ArgSpec("art", description_msgid=N_("bot.arg.journal.art")),),
    ephemeral=True,
    private_only=True,
    order=7,
)
async def journal(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    casts = await JournalStore(ctx.storage).noted(incoming.user_key)
    if args:  # one art: its command name or an alias (/journal liuyao, /journal 육효)
        spec = lookup(args[0].lstrip("/"))
        kind = spec.stored.kind if spec is not None and spec.stored is not None else None
        if kind is None:
            raise CommandError("bot.error.journal_art", value=args[0][:20])
        casts = [c for c in casts if c.kind == kind]
    zone = zone_of(await caller(incoming, ctx), ctx)
    arts: dict[str, list[NotedCast]] = {}
    topics: dict[str, list[NotedCast]] = {}
    for c in casts:
        arts.setdefault(c.kind, []).append(c)
        topic = topic_of(c.kind, c.inputs)
        if topic:
            topics.setdefault(topic, []).append(c)
    return reply(
        "journal",
        total=tally(casts),
        noted=len(casts),
        arts=[{"kind": k, "title": _art(k), **tally(v)} for k, v in arts.items()],
        topics=[{"topic": t, **tally(v)} for t, v in sorted(topics.items())],
        recent=[
            {
                "no": c.seq,
                "created_at": local_time(c.created_at, zone),
                "outcome": c.outcome,
                "text": c.text,
            }
            for c in casts[:RECENT]
        ],
    )
