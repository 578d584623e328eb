"""Kept texts (migration 0011, issue 18), on SQLite and PostgreSQL: the members of a context that casts share
(``add_history(kept=…)``) are stored once, content-addressed, and every read of the history answers the
context as given, key order included; rows from before 0011 (whole contexts) read as they did; /forget takes
the user's rows and leaves the shared ones."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from bot import jsonio
from bot import storage as storage_module
from bot.storage import JsonText, Storage, dumps, load_migrations
from bot.storage.sqlite import SqliteBackend
from tests.storage.test_storage_dialects import HISTORY_0001, USER, _cast_as_at_0010

VIEW = {"board": [["子", "丑"], None], "readings": [{"text": "吉", "n": 1.5}], "verdict": {"ok": True}}
VIEW_TEXTS = {name: jsonio.dumps(value) for name, value in VIEW.items()}


def context_of(i: int, view: dict[str, object] = VIEW) -> dict[str, object]:
    """A cast's context: its own members around the shared ones (in an order of its own)."""
    return {
        "when": {"local": f"2026-01-0{i}"},
        "board": view["board"],
        "no_cache": [i],
        **{name: value for name, value in view.items() if name != "board"},
        "tail": "末",
    }


async def record(store: Storage, i: int, view: dict[str, object] = VIEW, user: str = USER) -> int:
    texts = {name: jsonio.dumps(value) for name, value in view.items()}
    return await store.add_history(
        user,
        kind="cast",
        command=f"/cast {i}",
        inputs={"i": i},
        options={},
        view="cast",
        context=context_of(i, view),
        kept=texts,
    )


async def kept_rows(store: Storage) -> list[tuple[str, str]]:
    return [
        (str(r[0]), str(r[1])) for r in await store.fetchall("SELECT digest, text FROM kept ORDER BY digest")
    ]


async def test_a_context_with_kept_members_reads_back_whole_in_its_order(store: Storage):
    seqs = [await record(store, i) for i in (1, 2, 3)]
    assert seqs == [1, 2, 3]
    for i in (1, 2, 3):
        entry = await store.get_history(USER, i)
        assert entry is not None
        assert entry.context == context_of(i) and list(entry.context) == list(context_of(i))
        assert jsonio.dumps(entry.context) == jsonio.dumps(context_of(i))
        assert entry.inputs == {"i": i} and entry.command == f"/cast {i}"
    listed = await store.list_history(USER)
    assert [e.seq for e in listed] == [3, 2, 1]
    assert [jsonio.dumps(e.context) for e in listed] == [jsonio.dumps(context_of(i)) for i in (3, 2, 1)]
    # stored once: one row, its text the members in order, keyed by the SHA-256 of that text
    ((digest, text),) = await kept_rows(store)
    assert jsonio.loads(text) == VIEW and list(jsonio.loads(text)) == list(VIEW)
    assert digest == hashlib.sha256(text.encode()).hexdigest()
    # the history rows hold the rest, with the kept members' places
    rows = await store.fetchall("SELECT context, kept FROM history WHERE user_key = ? ORDER BY seq", (USER,))
    for i, row in zip((1, 2, 3), rows, strict=True):
        assert row[1] == digest
        own = jsonio.loads(row[0])
        assert list(own) == list(context_of(i)) and all(own[name] is None for name in VIEW)
        assert own["no_cache"] == [i]


async def test_a_context_text_keeps_its_placeholders_and_other_members_make_another_row(store: Storage):
    """As ``record_and_reply`` stores: the context's text with ``null`` in the kept members' places."""
    text = dumps({"a": 1, "board": None, "z": 2})
    seq = await store.add_history(
        USER,
        kind="cast",
        command="/cast",
        inputs={},
        options={},
        view="cast",
        context=JsonText(text),
        kept={"board": '["寅"]'},
    )
    entry = await store.get_history(USER, seq)
    assert entry is not None and list(entry.context.items()) == [("a", 1), ("board", ["寅"]), ("z", 2)]
    await record(store, 1)
    await record(store, 2, {**VIEW, "verdict": {"ok": False}})  # one member differs: another kept row
    assert [jsonio.loads(t) for _, t in await kept_rows(store)] == sorted(
        ({"board": ["寅"]}, VIEW, {**VIEW, "verdict": {"ok": False}}),
        key=lambda v: hashlib.sha256(jsonio.dumps(v).encode()).hexdigest(),
    )
    entry = await store.get_history(USER, 3)
    assert entry is not None and entry.context == context_of(2, {**VIEW, "verdict": {"ok": False}})


async def test_processes_that_share_the_database_store_a_kept_text_once(store: Storage, target: str):
    """A second connection (another process: it has stored nothing yet) records the same members: the row
    exists, its insert does nothing, and both processes' entries read whole."""
    await record(store, 1)
    other = await Storage.open(target)
    try:
        assert await record(other, 2) == 2
        assert await record(other, 3) == 3  # now known to this process too: the history row alone
        assert await record(store, 4, user="telegram:7") == 1
    finally:
        await other.close()
    assert len(await kept_rows(store)) == 1
    for i in (1, 2, 3):
        entry = await store.get_history(USER, i)
        assert entry is not None and entry.context == context_of(i)


async def test_the_remembered_digests_are_bounded(store: Storage, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(storage_module, "KEPT_KNOWN_MAX", 2)
    views = [{**VIEW, "verdict": {"n": n}} for n in range(4)]
    for i, view in enumerate(views, 1):
        await record(store, i, view)
    assert len(store._kept) == 2  # the two latest
    assert await record(store, 5, views[0]) == 5  # forgotten by the process: stored again, once
    assert len(await kept_rows(store)) == 4
    for i, view in enumerate([*views, views[0]], 1):
        entry = await store.get_history(USER, i)
        assert entry is not None and entry.context == context_of(i, view)


async def test_a_replaced_context_is_stored_whole(store: Storage):
    await record(store, 1)
    await store.set_history_context(USER, 1, {"board": "new", "x": 1})
    entry = await store.get_history(USER, 1)
    assert entry is not None and entry.context == {"board": "new", "x": 1}


async def test_a_row_naming_a_kept_text_that_is_gone_is_an_error_not_a_wrong_answer(store: Storage):
    await record(store, 1)
    await store.execute("DELETE FROM kept")  # nothing deletes kept rows: a damaged database
    with pytest.raises(LookupError):
        await store.get_history(USER, 1)


async def test_forget_takes_the_users_rows_and_leaves_the_shared_ones(store: Storage):
    await record(store, 1)
    await record(store, 2, user="telegram:7")
    assert "kept" not in await store.user_tables()  # nobody's data: no user_key
    deleted = await store.forget(USER)
    assert deleted["history"] == 1 and "kept" not in deleted
    assert await store.get_history(USER, 1) is None
    assert len(await kept_rows(store)) == 1
    entry = await store.get_history("telegram:7", 1)
    assert entry is not None and entry.context == context_of(2)


async def test_the_kept_migration_keeps_older_rows_as_they_read(target: str):
    """A database at 0010 with casts recorded then (whole contexts inline) upgraded by 0011: every row stays as
    it was and reads as before, numbers go on, and new casts store their shared members apart."""
    store = await Storage.open(target, migrate=False)
    try:
        migrations = load_migrations(dialect=store.dialect)
        await store.migrate([m for m in migrations if m.version <= 10])
        whole = [dumps(context_of(i)) for i in (1, 2)]
        assert await _cast_as_at_0010(store, context=whole[0]) == [1]
        assert await _cast_as_at_0010(store, context=whole[1]) == [2]
        rows_before = [
            tuple(r) for r in await store.fetchall(f"SELECT {HISTORY_0001} FROM history ORDER BY seq")
        ]
        assert await store.migrate() == [m.version for m in migrations if m.version >= 11]
        rows_after = [
            tuple(r) for r in await store.fetchall(f"SELECT {HISTORY_0001} FROM history ORDER BY seq")
        ]
        assert rows_after == rows_before
        assert [r[0] for r in await store.fetchall("SELECT kept FROM history")] == [None, None]
        after = [await store.get_history(USER, i) for i in (1, 2)]
        assert [jsonio.dumps(e.context) for e in after if e] == whole
        assert [(e.seq, e.command, e.created_at) for e in after if e] == [
            (i, "/cast", "2026-01-01T00:00:00+00:00") for i in (1, 2)
        ]
        assert await record(store, 3) == 3
        assert [jsonio.dumps(e.context) for e in await store.list_history(USER)] == [
            jsonio.dumps(context_of(3)),
            *reversed(whole),
        ]
        assert len(await kept_rows(store)) == 1
        assert await store.prune_history(USER, keep=1) == 2
        entry = await store.get_history(USER, 3)
        assert entry is not None and entry.context == context_of(3)
    finally:
        await store.close()


async def _commit_counter(store: Storage) -> Callable[[], int]:
    """On SQLite, the commits made on the storage's connection so far (each a sync of the WAL): a COMMIT, or a
    statement run on its own (autocommit), from the statements SQLite traces; elsewhere always 0."""
    if store.dialect != "sqlite":
        return lambda: 0
    backend = store.backend
    assert isinstance(backend, SqliteBackend)
    traced: list[str] = []
    await backend.db.set_trace_callback(traced.append)

    def count() -> int:
        commits, inside = 0, False
        for sql in traced:
            if sql.startswith("--"):  # a trigger's statements, inside the one that fired it
                continue
            verb = sql.split(None, 1)[0].upper()
            if verb == "BEGIN":
                inside = True
            elif verb in ("COMMIT", "ROLLBACK"):
                commits += verb == "COMMIT"
                inside = False
            elif not inside:
                commits += 1
        return commits

    return count


async def test_a_cast_with_retention_is_one_commit_that_prunes(store: Storage):
    """``keep=N`` (SIKPAN_HISTORY_LIMIT): the user's newest N casts stay, this one included, numbers go on,
    and on SQLite the cast and its pruning are one commit (one sync)."""
    commits = await _commit_counter(store)
    for i in range(1, 6):
        before = commits()
        seq = await store.add_history(
            USER,
            kind="cast",
            command=f"/cast {i}",
            inputs={},
            options={},
            view="cast",
            context={"i": i},
            keep=2,
        )
        assert seq == i and commits() - before == (1 if store.dialect == "sqlite" else 0)
        assert [e.seq for e in await store.list_history(USER)] == [i, i - 1][: min(i, 2)]
    await record(store, 6)  # with a kept row new to the process, and pruning: one transaction
    assert (
        await store.add_history(
            USER, kind="cast", command="/cast", inputs={}, options={}, view="cast", context={}, keep=0
        )
        == 7
    )
    assert await store.count_history(USER) == 0
    assert (
        await store.add_history(
            USER,
            kind="cast",
            command="/cast",
            inputs={},
            options={},
            view="cast",
            context=context_of(8),
            kept=VIEW_TEXTS,
            keep=1,
        )
        == 8
    )
    (entry,) = await store.list_history(USER)
    assert entry.seq == 8 and entry.context == context_of(8)
