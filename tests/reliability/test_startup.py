"""#12.2 an adapter that cannot start is retried with back-off, then ``sikpan run`` exits non-zero;
#12.9 the database is checked at start (opens, ``PRAGMA quick_check``, writable) — one line, exit 2."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
import time
from pathlib import Path

import pytest

import bot.app
from bot.config import Settings
from bot.i18n import gettext
from bot.startup import StartupError, check_database
from tests.adapters.conftest import running, tg_settings
from tests.fakes.telegram import FakeTelegram

pytestmark = pytest.mark.filterwarnings("ignore:Deprecated since version v22.2")
ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "SIKPAN_"))}
    env.update({"SIKPAN_DB": str(tmp_path / "run.db"), "SIKPAN_LANG": "ko", "PYTHONPATH": str(ROOT), **extra})
    return env


async def _sikpan_run(tmp_path: Path, timeout: float = 60.0, **env: str) -> tuple[int, str, float]:
    began = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", "--env-file", str(tmp_path / "none.env"),
        env=_env(tmp_path, **env), cwd=tmp_path, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise AssertionError("sikpan run did not exit") from None
    return proc.returncode or 0, err.decode(), time.monotonic() - began


async def test_a_failing_get_me_is_retried_and_the_bot_then_serves(tg, tmp_path):
    tg.fail("getMe", 502, "Bad Gateway", times=2)
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        update = tg.user_says("/start", chat_id=91)
        await run.telegram.wait_handled(update["update_id"], 10)
    get_me = [c for c in tg.calls if c.method == "getMe"]
    assert [c.status for c in get_me[:3]] == [502, 502, 200]
    assert get_me[1].at - get_me[0].at >= 0.9  # back-off between the attempts
    assert tg.sent_to(91)


@pytest.mark.parametrize(
    ("status", "description", "expected_attempts"),
    [(502, "Bad Gateway", 2), (401, "Unauthorized", 1), (404, "Not Found", 1)],
)
async def test_sikpan_run_exits_1_when_telegram_cannot_start(
    tmp_path, status, description, expected_attempts
):
    async with FakeTelegram(token="7012345678:AAHfake-TelegramToken_for-startup-0001") as tg:
        tg.fail("getMe", status, description, times=None)
        code, err, _ = await _sikpan_run(
            tmp_path,
            TELEGRAM_BOT_TOKEN=tg.token,
            TELEGRAM_API_BASE_URL=tg.base_url,
            SIKPAN_START_ATTEMPTS="2",
        )
        calls = list(tg.calls)
    assert code == 1, err
    assert [c.method for c in calls].count("getMe") == expected_attempts  # a refused token: no retry
    assert "getUpdates" not in [c.method for c in calls]
    last = err.strip().splitlines()[-1]
    assert last.startswith(gettext("ko", "bot.error.adapter_start", platform="telegram", attempts=99,
                                   detail="x").split("(")[0])  # fmt: skip
    assert "Traceback" not in err and tg.token not in err


async def test_sikpan_run_exits_1_when_the_telegram_api_is_unreachable(tmp_path):
    async with FakeTelegram() as gone:
        url = gone.base_url  # closed when the block ends: nothing listens there any more
    code, err, _ = await _sikpan_run(
        tmp_path, TELEGRAM_BOT_TOKEN="7012345678:AAHfake-TelegramToken_for-startup-0002",
        TELEGRAM_API_BASE_URL=url, SIKPAN_START_ATTEMPTS="2",
    )  # fmt: skip
    assert code == 1 and "telegram" in err.strip().splitlines()[-1], err


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_discord_login_refused_ends_run_with_a_startup_error(dc, tmp_path):
    dc.fail("GET", r"^/users/@me$", 401, {"message": "401: Unauthorized", "code": 0}, times=None)
    settings = Settings(discord_token=dc.token, discord_api_base_url=dc.api_base_url,
                        discord_gateway_url=dc.gateway_url, db_path=str(tmp_path / "d.db"), start_attempts=3)  # fmt: skip
    with pytest.raises(StartupError) as info:
        await asyncio.wait_for(bot.app.run(settings, asyncio.Event()), 30)
    assert info.value.code == "bot.error.adapter_start" and info.value.params["platform"] == "discord"
    assert info.value.params["attempts"] == 1


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_discord_login_errors_are_retried_then_the_bot_connects(dc, tmp_path):
    dc.fail("GET", r"^/users/@me$", 404, {"message": "404: Not Found", "code": 0}, times=1)
    settings = Settings(discord_token=dc.token, discord_api_base_url=dc.api_base_url,
                        discord_gateway_url=dc.gateway_url, db_path=str(tmp_path / "d.db"))  # fmt: skip
    stop = asyncio.Event()
    task = asyncio.create_task(bot.app.run(settings, stop))
    try:
        await dc.wait_ready(timeout=15)
        assert [r.status for r in dc.requests if r.path.endswith("users/@me")][:2] == [404, 200]
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)


# ---- the database -------------------------------------------------------------------------------------


def _damaged(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x TEXT)")
    con.executemany("INSERT INTO t VALUES (?)", [(f"row {i} " * 20,) for i in range(3000)])
    con.execute("CREATE INDEX t_x ON t (x)")
    con.commit()
    con.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for n in range(3, len(data) // page, 5):  # scribble over some b-tree pages, keep the header page
        data[n * page + 8 : n * page + 200] = b"\xa5" * 192
    path.write_bytes(bytes(data))
    return path


def _unwritable(path: Path) -> Path:
    sqlite3.connect(path).execute("PRAGMA journal_mode=WAL").fetchall()
    for suffix in ("-wal", "-shm"):  # WAL files that cannot be written (what a read-only mount gives)
        Path(str(path) + suffix).unlink(missing_ok=True)
        Path(str(path) + suffix).mkdir()
    return path


def test_check_database_accepts_a_new_and_a_sound_file(tmp_path):
    check_database(str(tmp_path / "new.db"))
    check_database(str(tmp_path / "new.db"))


@pytest.mark.parametrize("make", [_damaged, _unwritable])
def test_check_database_refuses_damaged_or_unwritable_files(tmp_path, make):
    path = make(tmp_path / "bad.db")
    with pytest.raises(StartupError) as info:
        check_database(str(path))
    assert info.value.code == "bot.error.db_check" and info.value.params["path"] == str(path)


@pytest.mark.parametrize("make", [_damaged, _unwritable])
async def test_sikpan_run_refuses_to_start_on_a_bad_database_with_one_line(tmp_path, make):
    path = make(tmp_path / "bad.db")
    code, err, _ = await _sikpan_run(tmp_path, SIKPAN_DB=str(path))
    assert code == 2, err  # like every other configuration the operator must fix
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "Traceback" not in err
    assert lines[0].startswith(gettext("ko", "bot.error.db_check", path="", detail="").split(":")[0])
