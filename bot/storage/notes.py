"""The journal of outcomes (issue #34 item 5, migration 0016): per user and cast, what happened and whether
the reading held. Read and written only for the user who owns the cast."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.storage import Storage, utc_iso

OUTCOMES = ("held", "missed", "partly")
TEXT_LIMIT = 500


@dataclass(frozen=True)
class Note:
    seq: int
    outcome: str | None  # one of OUTCOMES, or None
    text: str
    updated_at: str


@dataclass(frozen=True)
class NotedCast:
    """A cast with its note, for the journal's tally."""

    seq: int
    kind: str
    inputs: str  # the history row's inputs (JSON text)
    outcome: str | None
    text: str
    created_at: str


class JournalStore:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def write(
        self,
        user_key: str,
        seq: int,
        *,
        outcome: str | None = None,
        text: str | None = None,
        now: datetime | None = None,
    ) -> Note:
        """Set the outcome and/or the text of cast ``seq`` (what is None stays as it was)."""
        if outcome is not None and outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}")
        stamp = utc_iso(now or datetime.now(UTC))
        row = await self.storage.fetchone(
            "INSERT INTO notes (user_key, seq, outcome, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (user_key, seq) DO UPDATE SET outcome = COALESCE(?, notes.outcome),"
            " text = COALESCE(?, notes.text), updated_at = excluded.updated_at"
            " RETURNING seq, outcome, text, updated_at",
            (
                user_key,
                seq,
                outcome,
                (text or "")[:TEXT_LIMIT],
                stamp,
                stamp,
                outcome,
                None if text is None else text[:TEXT_LIMIT],
            ),
        )
        assert row is not None
        return Note(int(row[0]), row[1], str(row[2]), str(row[3]))

    async def get(self, user_key: str, seq: int) -> Note | None:
        row = await self.storage.fetchone(
            "SELECT seq, outcome, text, updated_at FROM notes WHERE user_key = ? AND seq = ?", (user_key, seq)
        )
        return Note(int(row[0]), row[1], str(row[2]), str(row[3])) if row else None

    async def delete(self, user_key: str, seq: int) -> bool:
        return (
            await self.storage.execute("DELETE FROM notes WHERE user_key = ? AND seq = ?", (user_key, seq))
            > 0
        )

    async def outcomes(self, user_key: str, seqs: Iterable[int]) -> Mapping[int, str | None]:
        """The outcome of each of these casts that has a note (``None``: a note without a verdict)."""
        wanted = sorted(set(seqs))
        if not wanted:
            return {}
        marks = ", ".join("?" for _ in wanted)
        rows = await self.storage.fetchall(
            f"SELECT seq, outcome FROM notes WHERE user_key = ? AND seq IN ({marks})", (user_key, *wanted)
        )
        return {int(r[0]): r[1] for r in rows}

    async def noted(self, user_key: str) -> list[NotedCast]:
        """Every cast of the user that has a note, newest first (the cast itself may have been pruned: then
        it counts under its note alone, kind ``""``)."""
        rows = await self.storage.fetchall(
            "SELECT n.seq, COALESCE(h.kind, ''), COALESCE(h.inputs, '{}'), n.outcome, n.text,"
            " COALESCE(h.created_at, n.created_at) FROM notes AS n"
            " LEFT JOIN history AS h ON h.user_key = n.user_key AND h.seq = n.seq"
            " WHERE n.user_key = ? ORDER BY n.seq DESC",
            (user_key,),
        )
        return [NotedCast(int(r[0]), str(r[1]), str(r[2]), r[3], str(r[4]), str(r[5])) for r in rows]
