"""Migration 0012 (issue 31 item 6): history rows keep inputs, not renderings — and rows written the old way keep
working, on SQLite and on PostgreSQL.

A database at 0011 holds casts as the bot wrote them then: the view model whole in ``context`` (rows before
0011), or split (0011: the members a command's cache shared — the 大六壬 board, lessons, reading, verdict …,
the 神煞 stars — stored once in ``kept``, the row's text holding ``null`` in their places). After 0012 every such
row reads back with its whole context, in its order, ``kept`` is gone, and the bot shows each as it was
answered (``bot.features.common.replay``: the stored text, the picture cast from its inputs), while a new cast
stores inputs, options, the engine version and its /history line only.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Any

import asyncpg
import pytest

from bot import jsonio, pictures
from bot.features.base import stored_as_kind
from bot.features.common import replay
from bot.features.liuren.command import cast_of as liuren_cast
from bot.features.shensha.command import cast_of as shensha_cast
from bot.storage import Storage, load_migrations

USER = "telegram:42"
CAST_INPUTS = {
    "mode": "now",
    "category": None,
    "at": "2024-02-04T12:30:00+09:00",
    "zone": "Asia/Seoul",
    "day_starts": "23:00",
    "solar_longitude": None,
    "latitude": None,
}
CAST_OPTIONS = {
    "gui_rule": "liuren",
    "daynight": "maoshen",
    "shehai": "depth",
    "fuyin_maozi": "daquan",
    "bazhuan_first": True,
    "liuyinyang_lowers": False,
    "mu": "wuxing",
}
SHENSHA_INPUTS = {"day": "庚辰", "month": "酉", "year": "甲辰", "hour": None}
# the members 0011 stored apart (``Record.written`` of the commands' caches then)
KEPT_MEMBERS = {
    "cast": ("board", "lessons", "transmissions", "readings", "verdict", "trace"),
    "shensha": ("stars", "by_branch", "by_stem", "others"),
}
# ``Backend.insert_history`` at 0011 (with the ``kept`` column)
INSERT_0011 = {
    "sqlite": "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at, kept)"
    " VALUES (?1, COALESCE((SELECT last_seq FROM history_counters WHERE user_key = ?1), 0) + 1,"
    " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING seq",
    "postgresql": "WITH counter AS (INSERT INTO history_counters (user_key, last_seq) VALUES (?, 1)"
    " ON CONFLICT (user_key) DO UPDATE SET last_seq = history_counters.last_seq + 1"
    " RETURNING user_key, last_seq)"
    " INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at, kept)"
    " SELECT counter.user_key, counter.last_seq, ?, ?, ?, ?, ?, ?, ?, ? FROM counter RETURNING seq",
}


async def write_0011(
    store: Storage,
    kind: str,
    inputs: dict[str, Any],
    options: dict[str, Any],
    context: dict[str, Any],
    split: bool,
) -> int:
    """A cast as 0011's ``add_history`` wrote it: whole, or its shared members stored apart in ``kept``."""
    digest = None
    text = jsonio.dumps(context)
    if split:
        members = {name: context[name] for name in KEPT_MEMBERS[kind]}
        kept_text = jsonio.dumps(members)
        digest = hashlib.sha256(kept_text.encode()).hexdigest()
        await store.execute(
            "INSERT INTO kept (digest, text) VALUES (?, ?) ON CONFLICT DO NOTHING", (digest, kept_text)
        )
        text = jsonio.dumps({name: None if name in members else value for name, value in context.items()})
    row = await store.fetchone(
        INSERT_0011[store.dialect],
        (
            USER,
            kind,
            f"/{kind}",
            jsonio.dumps(inputs),
            jsonio.dumps(options),
            kind,
            text,
            "2024-02-04T03:30:00+00:00",
            digest,
        ),
    )
    assert row is not None
    return int(row[0])


async def test_rows_written_the_old_way_read_back_whole_and_show_as_answered(target: str):
    cast = liuren_cast(CAST_INPUTS, CAST_OPTIONS)
    stars = shensha_cast(SHENSHA_INPUTS, {})
    # what the bot answered then (the view models it built are the ones it builds now: the samples are unchanged)
    cast_context = dict(cast.context)
    shensha_context = {**stars.context}
    store = await Storage.open(target, migrate=False)
    try:
        migrations = load_migrations(dialect=store.dialect)
        await store.migrate([m for m in migrations if m.version <= 11])
        rows = {
            await write_0011(
                store, "cast", CAST_INPUTS, CAST_OPTIONS, cast_context, split=False
            ): cast_context,
            await write_0011(
                store, "cast", CAST_INPUTS, CAST_OPTIONS, cast_context, split=True
            ): cast_context,
            await write_0011(
                store, "cast", CAST_INPUTS, CAST_OPTIONS, cast_context, split=True
            ): cast_context,
            await write_0011(
                store, "shensha", SHENSHA_INPUTS, {}, shensha_context, split=True
            ): shensha_context,
            await write_0011(
                store, "cast", {}, {}, cast_context, split=False
            ): cast_context,  # inputs not castable
        }
        assert await store.migrate() == [m.version for m in migrations if m.version >= 12]
        # ``kept`` is gone, table and column
        for sql in ("SELECT * FROM kept", "SELECT kept FROM history"):
            with pytest.raises((sqlite3.OperationalError, asyncpg.PostgresError), match="kept"):
                await store.fetchall(sql)
        for seq, context in rows.items():
            entry = await store.get_history(USER, seq)
            assert entry is not None and entry.engine is None and entry.summary is None
            assert jsonio.dumps(entry.context) == jsonio.dumps(context)  # whole, key order kept
            shown = replay(entry, "ko")
            assert shown is not None and dict(shown.context) == {**context, "no": seq}
            if entry.inputs:  # its picture, cast from its inputs (as pictures were drawn for such rows)
                assert shown.picture == (cast.picture if entry.kind == "cast" else None)
            else:  # inputs this version cannot cast: the text as answered, without a picture
                assert shown.picture is None
            stored = stored_as_kind(entry.kind)
            assert stored is not None and stored.summary is not None
        listed = await store.list_history(USER)
        assert [e.seq for e in listed] == sorted(rows, reverse=True)
        assert all(e.context == rows[e.seq] for e in listed)
        # a new cast: inputs, options, the engine version and its line; no rendering
        seq = await store.add_history(
            USER,
            kind="cast",
            command="/cast now",
            inputs=CAST_INPUTS,
            options=CAST_OPTIONS,
            view="cast",
            engine="9.9",
            summary={"day": "戊戌"},
        )
        entry = await store.get_history(USER, seq)
        assert entry is not None and (entry.context, entry.engine, entry.summary) == (
            {},
            "9.9",
            {"day": "戊戌"},
        )
        shown = replay(entry, "ko")
        assert shown is not None and dict(shown.context) == {**cast_context, "no": seq}
        assert shown.picture == cast.picture and pictures.render(shown.picture, "ko") is not None
        raw = await store.fetchone("SELECT context FROM history WHERE user_key = ? AND seq = ?", (USER, seq))
        assert raw is not None and raw[0] == "{}"
    finally:
        await store.close()


async def test_a_new_row_that_cannot_be_cast_is_not_shown(target: str):
    """A row stored with an engine version holds no text to fall back on: inputs that cannot be cast (an option
    this version no longer has) make no reply (``/show`` says there is no such cast, a page button that it is
    gone), never a wrong one."""
    store = await Storage.open(target)
    try:
        options = {**CAST_OPTIONS, "gone_option": "x"}
        seq = await store.add_history(
            USER, kind="cast", command="/cast", inputs=CAST_INPUTS, options=options, view="cast", engine="0.0"
        )
        entry = await store.get_history(USER, seq)
        assert entry is not None and replay(entry, "ko") is None
    finally:
        await store.close()
