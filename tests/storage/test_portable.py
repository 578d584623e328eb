"""Issue #35 item 1: ``sikpan export PATH`` / ``sikpan import PATH`` move a whole database between SQLite
and PostgreSQL — every table, the per-user cast numbers, subscriptions and their delivery state — and the
bot serves the moved database as it served the original (same /history, same /daily, same next number)."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.app import create_context
from bot.cli import main
from bot.config import Settings
from bot.console import answer
from bot.i18n import gettext
from bot.storage import DailyStore, Storage, load_migrations
from bot.storage.backend import TableInfo
from bot.storage.portable import SKIPPED, export, in_order
from tests.fakes.clock import ManualClock
from tests.servers import fresh_pg_url

AT = datetime(2024, 2, 4, 3, 30, tzinfo=UTC)  # 12:30 in Seoul


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.setenv("SIKPAN_LANG", "ko")
    monkeypatch.delenv("SIKPAN_DB", raising=False)


async def cli(args: list[str]) -> int:
    """``sikpan …`` as from a shell (it runs its own event loop: in a thread beside the test's)."""
    return await asyncio.to_thread(main, args)


def context(db: str):  # type: ignore[no-untyped-def]
    return create_context(Settings(db_path=db, lang="ko", tz="Asia/Seoul"), clock=ManualClock(AT))


async def fill(db: str) -> None:
    """A database as the bot leaves it: settings, casts (one pruned away), a subscription with a delivery."""
    ctx = await context(db)
    try:
        for line in (
            "/tz Asia/Seoul",
            "/cast 庚辰 8",
            "/liuyao 878878",
            "/shensha 甲子",
            "/cast now",
            "/share 2",  # a shared reading's token (migration 0015) moves with its cast
            "/daily 7:30 재물",  # with a topic (migration 0014's column)
        ):
            assert "⚠" not in await answer(line, ctx), line
        storage = ctx.storage
        assert await storage.prune_history("console:local", keep=3) == 1  # the counter stays at 4
        daily = DailyStore(storage)
        claimed, _ = await daily.claim_due(AT + timedelta(days=1), "test", ["console"], timedelta(days=2))
        assert claimed, "the subscription was due"
    finally:
        await ctx.close()


async def counts(db: str) -> dict[str, int]:
    storage = await Storage.open(db, migrate=False)
    try:
        async with storage.transaction() as tx:
            tables = [t for t in await storage.backend.tables(tx) if t.name not in SKIPPED]
            result = {}
            for table in tables:
                row = await tx.fetchone(f'SELECT COUNT(*) FROM "{table.name}"')
                result[table.name] = int(row[0])
        return result
    finally:
        await storage.close()


async def screens(db: str) -> dict[str, str]:
    """What the user sees of their data, then the number the next cast gets."""
    ctx = await context(db)
    try:
        seen = {line: await answer(line, ctx) for line in ("/history", "/daily", "/show 2", "/settings")}
        seen["next"] = await answer("/cast 甲子 1", ctx)
        return seen
    finally:
        await ctx.close()


def number(text: str) -> str:
    found = re.search(r"#(\d+)", text)
    assert found, text
    return found.group(1)


async def test_sqlite_to_postgresql_and_back(env, tmp_path, capsys):
    source = str(tmp_path / "bot.db")
    await fill(source)
    before = await counts(source)
    assert before["history"] == 3 and before["history_counters"] == 1
    assert before["subscriptions"] == 1 and before["deliveries"] == 1 and before["users"] == 1
    assert before["shares"] == 1

    dump = tmp_path / "move.jsonl.gz"
    assert await cli(["export", str(dump), "--db", source]) == 0
    assert str(dump) in capsys.readouterr().out
    with fresh_pg_url() as url:
        assert await cli(["import", str(dump), "--db", url]) == 0
        out = capsys.readouterr().out
        assert "***" not in url or "***" in out  # the URL is shown without its password
        assert await counts(url) == before
        expected = await screens(source)
        moved = await screens(url)
        assert moved["/history"] == expected["/history"]
        assert moved["/daily"] == expected["/daily"] and "구재(求財)" in moved["/daily"]
        assert moved["/show 2"] == expected["/show 2"]
        assert moved["/settings"] == expected["/settings"]
        assert number(moved["next"]) == number(expected["next"]) == "5"  # 4 were cast, one pruned

        back = tmp_path / "back.jsonl"
        assert await cli(["export", str(back), "--db", url]) == 0
        again = str(tmp_path / "again.db")
        assert await cli(["import", str(back), "--db", again]) == 0
        after = await counts(again)
        assert after == await counts(url)
        assert number((await screens(again))["next"]) == "6"  # the PostgreSQL copy cast #5 before its export


async def test_the_file_is_versioned_json_lines_and_a_cut_file_imports_nothing(env, tmp_path, capsys):
    source = str(tmp_path / "bot.db")
    await fill(source)
    dump = tmp_path / "dump.jsonl"
    assert await cli(["export", str(dump), "--db", source]) == 0
    lines = dump.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["sikpan_export"] == 1 and header["dialect"] == "sqlite" and header["schema"] >= 11
    assert "end" in json.loads(lines[-1])
    assert await cli(["export", str(dump), "--db", source]) == 2  # never overwrites
    assert gettext("ko", "cli.export.exists", path=str(dump)) in capsys.readouterr().err

    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-3]) + "\n", encoding="utf-8")
    target = str(tmp_path / "target.db")
    assert await cli(["import", str(cut), "--db", target]) == 2
    assert gettext("ko", "cli.import.truncated", path=str(cut)) in capsys.readouterr().err
    assert sum((await counts(target)).values()) == 0  # one transaction: nothing of it stayed

    assert await cli(["import", str(dump), "--db", target]) == 0  # the failed import left the target usable
    assert await cli(["import", str(dump), "--db", target]) == 2  # but never into a database with data
    assert gettext("ko", "cli.import.not_empty", target=target) in capsys.readouterr().err

    other = tmp_path / "other.jsonl.gz"
    with gzip.open(other, "wt", encoding="utf-8") as out:
        out.write('{"hello": 1}\n')
    assert await cli(["import", str(other), "--db", str(tmp_path / "x.db")]) == 2
    assert gettext("ko", "cli.import.not_export", path=str(other)) in capsys.readouterr().err
    assert await cli(["import", str(tmp_path / "none.jsonl"), "--db", str(tmp_path / "y.db")]) == 2


async def test_a_file_from_an_older_schema_is_carried_forward_and_a_newer_one_refused(env, tmp_path):
    """The rows are loaded at the file's schema and the later migrations run on them, as on a database."""
    old = await Storage.open(str(tmp_path / "old.db"), migrate=False)
    try:
        await old.migrate([m for m in load_migrations() if m.version <= 10])
        await old.execute(
            "INSERT INTO history (user_key, seq, kind, command, inputs, options, view, context, created_at)"
            " VALUES ('console:local', 7, 'cast', '/cast 庚辰 8', '{}', '{}', 'cast', '{}', '2024-02-04T03:30:00Z')"
        )
        await old.execute("UPDATE history_counters SET last_seq = 9")  # the trigger made it 7
        dump = tmp_path / "old.jsonl"
        moved = await export(old, dump)
        assert moved.schema == 10 and moved.rows["history"] == 1
    finally:
        await old.close()
    target = str(tmp_path / "new.db")
    assert await cli(["import", str(dump), "--db", target]) == 0
    new = await Storage.open(target, migrate=False)
    try:
        assert await new.schema_version() == max(m.version for m in load_migrations())
        assert (await new.get_history("console:local", 7)) is not None
    finally:
        await new.close()

    lines = dump.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["schema"] = 10_000
    newer = tmp_path / "newer.jsonl"
    newer.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    assert await cli(["import", str(newer), "--db", str(tmp_path / "n.db")]) == 2  # from a later sikpan


def test_parents_come_before_the_tables_that_reference_them():
    def table(name: str, *parents: str) -> TableInfo:
        return TableInfo(name, ("id",), ("id",), frozenset(parents), None)

    names = [
        t.name
        for t in in_order(
            [
                table("deliveries", "subscriptions"),
                table("history"),
                table("history_counters"),
                table("subscriptions"),
                table("users"),
            ]
        )
    ]
    assert names.index("subscriptions") < names.index("deliveries")
    assert names.index("history_counters") < names.index("history")
    assert sorted(names) == ["deliveries", "history", "history_counters", "subscriptions", "users"]
