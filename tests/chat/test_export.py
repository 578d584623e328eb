"""Issue #34 item 6: ``/export`` sends the user's settings, history, notes and subscriptions as a file that
``sikpan import`` reads back (the format of ``sikpan export``, the user's rows only) and the history as CSV,
in a private chat, on the console, Telegram and Discord; ``sikpan export --user KEY`` writes the same file
for an operator. Nothing of another user is in it."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest

from bot.app import create_context
from bot.cli import main
from bot.commands import Incoming, dispatch
from bot.config import Settings
from bot.console import ConsoleSession
from bot.i18n import gettext
from tests.bot.conftest import DEFAULT_INSTANT
from tests.chat._views import ask, telegram_at
from tests.conftest import discord_bot
from tests.fakes.clock import ManualClock


def read_export(data: bytes) -> tuple[dict, dict[str, list[dict]]]:
    """The header and, per table, the rows (as column → value) of an export file."""
    lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    header, tables, table = lines[0], {}, None
    for item in lines[1:]:
        if isinstance(item, dict) and "table" in item:
            table = item
            tables[table["table"]] = []
        elif isinstance(item, list):
            tables[table["table"]].append(dict(zip(table["columns"], item, strict=True)))
    assert "end" in lines[-1] and lines[-1]["end"] == {k: len(v) for k, v in tables.items()}
    return header, tables


def read_csv(data: bytes) -> list[list[str]]:
    assert data.startswith("\ufeff".encode()), "a byte-order mark: spreadsheet programs then read UTF-8"
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


async def test_console_export_reads_back_into_a_new_database(ctx, tmp_path, monkeypatch):
    session = ConsoleSession(ctx, files_dir=tmp_path)
    for line in ("/tz Asia/Seoul", "/cast 庚辰 8", "/liuyao 878878", "/daily 7:30"):
        assert "⚠" not in await session.answer(line), line
    await session.answer("/note 1 맞음 <승진>")
    other = Incoming(platform="telegram", chat_id="77", user_id="77", text="/cast 甲子 1 비밀")
    await dispatch(other, ctx)  # another user's cast: never in this user's file

    shown = await session.answer("/export")
    assert gettext("ko", "bot.export.done", casts=2, notes=1, subscriptions=1) in shown
    [data_path] = tmp_path.glob("sikpan-console-local-*.jsonl")
    [csv_path] = tmp_path.glob("sikpan-console-local-*-history.csv")
    assert str(data_path) in shown and str(csv_path) in shown
    header, tables = read_export(data_path.read_bytes())
    assert header["user"] == "console:local"
    assert {r["user_key"] for rows in tables.values() for r in rows} == {"console:local"}
    assert [r["seq"] for r in tables["history"]] == [1, 2] and tables["notes"][0]["text"] == "<승진>"
    assert len(tables["subscriptions"]) == 1 and tables["users"][0]["tz"] == "Asia/Seoul"

    rows = read_csv(csv_path.read_bytes())
    assert rows[0] == [gettext("ko", c) for c in (
        "bot.export.col.no", "bot.export.col.at", "bot.export.col.kind", "bot.export.col.command",
        "bot.export.col.summary", "bot.export.col.outcome", "bot.export.col.note")]  # fmt: skip
    assert [r[0] for r in rows[1:]] == ["1", "2"]  # oldest first
    assert rows[1][3] == "/cast 庚辰 8" and rows[1][5] == gettext("ko", "bot.note.outcome.held")
    assert rows[1][6] == "<승진>" and rows[2][5] == ""

    again = await session.answer("/export")  # a second export the same day: a new name, nothing overwritten
    assert len(list(tmp_path.glob("*.jsonl"))) == 2 and "⚠" not in again

    # `sikpan import` reads the file back into a new database, where the user finds their casts and note
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIKPAN_DB", raising=False)
    restored = str(tmp_path / "restored.db")
    assert await asyncio.to_thread(main, ["import", str(data_path), "--db", restored]) == 0
    moved = await create_context(
        Settings(db_path=restored, lang="ko", tz="Asia/Seoul"), clock=ManualClock(DEFAULT_INSTANT)
    )
    try:
        back = ConsoleSession(moved)
        history = await back.answer("/history")
        assert "/cast 庚辰 8" in history and "/liuyao 878878" in history and "비밀" not in history
        note = await back.answer("/note 1")
        assert "<승진>" in note and gettext("ko", "bot.note.outcome.held") in note
        assert "#3" in await back.answer("/cast 甲子 1")  # the numbering goes on
    finally:
        await moved.close()


async def test_export_is_private_only(ctx):
    group = Incoming(platform="telegram", chat_id="-100", user_id="5", text="/export", chat_kind="group")
    answer = await dispatch(group, ctx)
    assert answer.view == "error" and not answer.files


async def test_operator_export_of_one_user(ctx, tmp_path, monkeypatch, capsys):
    session = ConsoleSession(ctx, files_dir=tmp_path)
    await session.answer("/cast 庚辰 8")
    await dispatch(Incoming(platform="telegram", chat_id="77", user_id="77", text="/cast 甲子 1"), ctx)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIKPAN_DB", raising=False)
    monkeypatch.setenv("SIKPAN_LANG", "ko")
    db = ctx.settings.db_path
    out = tmp_path / "one.jsonl"
    assert await asyncio.to_thread(main, ["export", str(out), "--db", db, "--user", "telegram:77"]) == 0
    header, tables = read_export(out.read_bytes())
    assert header["user"] == "telegram:77" and [r["command"] for r in tables["history"]] == ["/cast 甲子 1"]
    missing = tmp_path / "none.jsonl"
    assert await asyncio.to_thread(main, ["export", str(missing), "--db", db, "--user", "telegram:9"]) == 2
    assert gettext("ko", "cli.export.no_user", user="telegram:9") in capsys.readouterr().err
    assert not missing.exists()


async def test_telegram_sends_both_files_in_the_private_chat(tg, tmp_path):
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), DEFAULT_INSTANT) as run:
        await ask(tg, run, "/cast 庚辰 8", 41)
        await ask(tg, run, "/export", 41)
        # the history file follows the first in the chat's queue
        documents = await tg.wait_for("sendDocument", 2, timeout=10, predicate=lambda c: c.status == 200)
        first, second = (c.result["document"] for c in documents)
        assert first["file_name"].endswith(".jsonl") and second["file_name"].endswith("-history.csv")
        caption = documents[0].result["caption"]
        assert gettext("ko", "bot.export.done", casts=1, notes=0, subscriptions=0) in caption
        header, tables = read_export(tg.documents[first["file_id"]][1])
        assert header["user"] == "telegram:41" and len(tables["history"]) == 1
        assert read_csv(tg.documents[second["file_id"]][1])[1][3] == "/cast 庚辰 8"
        refused = await ask(
            tg, run, "/export", -1001, user_id=41, chat_type="supergroup"
        )  # a group: the user's data never goes there
        assert not [c for c in refused if c.method == "sendDocument"]


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_discord_attaches_both_files_to_the_callers_eyes_only(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite"), clock=ManualClock(DEFAULT_INSTANT)):
        await dc.wait_synced()
        cast = await dc.slash("cast", {"when": "庚辰 8"})
        await dc.wait_followups(cast, 1, timeout=10)
        asked = await dc.slash("export", {})
        [message] = await dc.wait_followups(asked, 1, timeout=10)
        assert message["flags"] & 64, "ephemeral"
        names = [a["filename"] for a in message["attachments"]]
        assert len(names) == 2 and names[0].endswith(".jsonl") and names[1].endswith("-history.csv")
        data = dc.uploaded[message["attachments"][0]["id"]]
        header, tables = read_export(data)
        assert header["user"].startswith("discord:") and len(tables["history"]) == 1
        assert gettext("ko", "bot.export.done", casts=1, notes=0, subscriptions=0) in message["content"]
