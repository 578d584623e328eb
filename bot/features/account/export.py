"""/export: the user's own data as files, in a private chat (issue #34 item 6).

Two files: the user's rows of every table with a ``user_key`` column — settings, history, notes,
subscriptions and their deliveries — in the format of ``sikpan export`` (:mod:`bot.storage.portable`, a
header naming the user; ``sikpan import`` reads it back into a new database), and the history as CSV for a
spreadsheet (UTF-8 with a byte-order mark, so that spreadsheet programs read Hangul and Hanja; headers in the
user's language). ``sikpan export --user KEY`` writes the first for an operator.
"""

from __future__ import annotations

import csv
import gzip
import io
from typing import TYPE_CHECKING

from bot.features.account.history import local_time, summary
from bot.features.base import Attachment, Incoming, Reply, caller, command, reply, resolve_lang
from bot.features.common import zone_of
from bot.i18n import N_, gettext
from bot.msgids import msgid
from bot.storage.notes import JournalStore
from bot.storage.portable import write

if TYPE_CHECKING:
    from bot.context import AppContext

# Above this the data file is sent gzip-compressed (Discord takes 10 MB per upload from a bot).
COMPRESS_ABOVE = 4 * 1024 * 1024
HISTORY_PAGE = 500
CSV_COLUMNS = (
    N_("bot.export.col.no"),
    N_("bot.export.col.at"),
    N_("bot.export.col.kind"),
    N_("bot.export.col.command"),
    N_("bot.export.col.summary"),
    N_("bot.export.col.outcome"),
    N_("bot.export.col.note"),
)


def file_stem(incoming: Incoming, stamp: str) -> str:
    """``sikpan-telegram-123-20261207``: ASCII only (a platform's user id is digits)."""
    user = "".join(c for c in incoming.user_id if c.isascii() and (c.isalnum() or c in "-_"))[:32]
    return f"sikpan-{incoming.platform}-{user or 'user'}-{stamp}"


async def data_file(incoming: Incoming, ctx: AppContext, stem: str) -> tuple[Attachment, dict[str, int]]:
    out = io.StringIO()
    moved = await write(ctx.storage, out, incoming.user_key)
    data = out.getvalue().encode("utf-8")
    if len(data) > COMPRESS_ABOVE:
        return Attachment(f"{stem}.jsonl.gz", gzip.compress(data, mtime=0)), dict(moved.rows)
    return Attachment(f"{stem}.jsonl", data), dict(moved.rows)


async def history_file(incoming: Incoming, ctx: AppContext, lang: str, stem: str) -> Attachment:
    zone = zone_of(await caller(incoming, ctx), ctx)
    notes = {n.seq: n for n in await JournalStore(ctx.storage).noted(incoming.user_key)}
    out = io.StringIO()
    table = csv.writer(out)
    table.writerow([gettext(lang, c) for c in CSV_COLUMNS])
    before: int | None = None
    rows: list[list[str]] = []
    while True:  # newest first, a page at a time
        entries = await ctx.storage.list_history(incoming.user_key, limit=HISTORY_PAGE, before=before)
        for e in entries:
            s = summary(e)
            note = notes.get(e.seq)
            outcome = note.outcome if note is not None else None
            rows.append(
                [
                    str(e.seq),
                    local_time(e.created_at, zone),
                    e.kind,
                    e.command,
                    " ".join(str(v) for v in s.values() if isinstance(v, str | int)),
                    gettext(lang, msgid("bot.note.outcome", outcome)) if outcome else "",
                    note.text if note is not None else "",
                ]
            )
        if len(entries) < HISTORY_PAGE or entries[-1].seq <= 1:
            break
        before = entries[-1].seq
    table.writerows(reversed(rows))  # oldest first, as a journal reads
    return Attachment(f"{stem}-history.csv", ("\ufeff" + out.getvalue()).encode("utf-8"))


@command(
    "export",
    aliases=("내보내기", "出"),
    help_msgid=N_("bot.help.export"),
    usage_msgid=N_("bot.usage.export"),
    ephemeral=True,
    private_only=True,
    order=12,
)
async def export(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    lang = await resolve_lang(incoming, ctx)
    stem = file_stem(incoming, (await ctx.clock.now()).strftime("%Y%m%d"))
    data, rows = await data_file(incoming, ctx, stem)
    history = await history_file(incoming, ctx, lang, stem)
    answer = reply(
        "export",
        casts=rows.get("history", 0),
        notes=rows.get("notes", 0),
        subscriptions=rows.get("subscriptions", 0),
        data=data.filename,
    )
    return Reply(answer.view, answer.lang, answer.context, ephemeral=True, files=(data, history))
