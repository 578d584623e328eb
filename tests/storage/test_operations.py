"""``sikpan backup`` and ``sikpan migrate`` (issue #17, operations)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from bot.i18n import gettext
from bot.storage import Storage, load_migrations


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no stray .env
    monkeypatch.setenv("SIKPAN_LANG", "ko")

    def use(db: str) -> None:
        monkeypatch.setenv("SIKPAN_DB", db)

    return use


async def test_backup_copies_what_is_still_in_the_wal_while_the_bot_runs(env, tmp_path, capsys):
    db = str(tmp_path / "live.db")
    env(db)
    storage = await Storage.open(db)  # stays open, as a running bot's would
    try:
        for i in range(20):
            await storage.add_history(
                "telegram:1",
                kind="cast",
                command=f"/cast {i}",
                inputs={},
                options={},
                view="cast",
                context={},
            )
        assert Path(db + "-wal").stat().st_size > 0  # the casts are (at least partly) only in the WAL
        out = tmp_path / "backup.db"
        assert main(["backup", str(out)]) == 0
        assert str(out) in capsys.readouterr().out
        assert not Path(str(out) + "-wal").exists()  # one self-contained file
        copy = sqlite3.connect(out)
        try:
            assert copy.execute("SELECT COUNT(*) FROM history").fetchone()[0] == 20
            assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            copy.close()
        assert main(["backup", str(out)]) == 2  # never overwrites
        assert gettext("ko", "cli.backup.exists", path=str(out)) in capsys.readouterr().err
    finally:
        await storage.close()


def test_backup_of_a_missing_database_is_an_error(env, tmp_path, capsys):
    env(str(tmp_path / "none.db"))
    assert main(["backup", str(tmp_path / "b.db")]) == 2
    assert "none.db" in capsys.readouterr().err
    assert not (tmp_path / "none.db").exists()  # not created by asking


def test_backup_of_postgresql_gives_the_pg_dump_advice(env, capsys):
    env("postgresql://sikpan:secret@db.example:5432/sikpan")
    assert main(["backup", "x.dump"]) == 0
    out = capsys.readouterr().out
    assert "pg_dump" in out and "secret" not in out and not Path("x.dump").exists()


def test_migrate_applies_once_then_reports_the_version(env, target, capsys):
    env(target)
    latest = max(m.version for m in load_migrations())
    versions = ", ".join(str(m.version) for m in load_migrations())
    assert main(["migrate"]) == 0
    assert capsys.readouterr().out.strip() == gettext(
        "ko", "cli.migrate.done", versions=versions, version=latest
    )
    assert main(["migrate"]) == 0
    assert capsys.readouterr().out.strip() == gettext("ko", "cli.migrate.current", version=latest)


def test_migrate_on_a_postgresql_database_that_does_not_exist_is_a_clear_error(env, capsys):
    from tests.servers import PG_URL, require_pg

    require_pg()
    env(PG_URL.rsplit("/", 1)[0] + "/sikpan_no_such_database")
    assert main(["migrate"]) == 2
    err = capsys.readouterr().err
    assert "sikpan_no_such_database" in err and "Traceback" not in err
