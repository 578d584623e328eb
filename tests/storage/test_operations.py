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


def test_backup_of_postgresql_without_pg_dump_fails_saying_what_to_run(env, monkeypatch, tmp_path, capsys):
    env("postgresql://sikpan:secret@db.example:5432/sikpan?schema=bot")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no pg_dump anywhere
    assert main(["backup", "x.dump"]) == 1
    out = capsys.readouterr()
    expected = "pg_dump --format=custom --file=x.dump --dbname=postgresql://sikpan@db.example:5432/sikpan --schema=bot"
    assert expected in out.err and "secret" not in out.err + out.out and not Path("x.dump").exists()


def test_backup_of_postgresql_runs_pg_dump_into_a_new_folder(env, tmp_path, capsys):
    from tests.servers import fresh_pg_url

    with fresh_pg_url() as url:
        env(url)
        assert main(["migrate"]) == 0
        dump = tmp_path / "backups" / "2026" / "sikpan.dump"
        assert main(["backup", str(dump)]) == 0
        out = capsys.readouterr().out
        assert gettext("ko", "cli.backup.folder_created", folder=str(dump.parent)) in out
        assert dump.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format (pg_restore reads it)
        assert main(["backup", str(dump)]) == 2  # never overwrites


def test_backup_into_a_missing_folder_creates_it(env, tmp_path, capsys):
    db = str(tmp_path / "live.db")
    env(db)
    assert main(["migrate"]) == 0
    out = tmp_path / "new" / "folder" / "b.db"
    assert main(["backup", str(out)]) == 0
    printed = capsys.readouterr().out
    assert gettext("ko", "cli.backup.folder_created", folder=str(out.parent)) in printed
    assert sqlite3.connect(out).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_migrate_applies_once_then_reports_the_version(env, target, capsys):
    env(target)
    latest = max(m.version for m in load_migrations())
    versions = ", ".join(str(m.version) for m in load_migrations())
    assert main(["migrate"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1:] == [gettext("ko", "cli.migrate.done", versions=versions, version=latest)]
    assert main(["migrate"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1:] == [gettext("ko", "cli.migrate.current", version=latest)]
    # the first line names the target: the file's absolute path, or the URL without a password
    named = str(Path(target).resolve()) if "://" not in target else target.replace(":secret@", ":***@")
    assert lines[0] == gettext("ko", "cli.migrate.target", target=named)


def test_migrate_names_a_new_sqlite_file_as_new(env, tmp_path, capsys):
    env("sikpan.db")  # run from the wrong folder: a new ./sikpan.db would be migrated
    assert main(["migrate"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == gettext("ko", "cli.migrate.target_new", target=str(tmp_path / "sikpan.db"))


def test_migrate_on_a_postgresql_database_that_does_not_exist_is_a_clear_error(env, capsys):
    from tests.servers import PG_URL, require_pg

    require_pg()
    env(PG_URL.rsplit("/", 1)[0] + "/sikpan_no_such_database")
    assert main(["migrate"]) == 2
    err = capsys.readouterr().err
    assert "sikpan_no_such_database" in err and "Traceback" not in err
