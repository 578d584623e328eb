"""The console chat through a real pseudo-terminal: ``python -m bot.cli run`` with no tokens."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.i18n import gettext, reading
from engine.core.cycle import GanZhi
from engine.shensha import evaluate

PROMPT = "\n> "


class Console:
    def __init__(self, db: str, cwd: str, lang: str = "ko") -> None:
        self.master, slave = os.openpty()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SIKPAN_", "TELEGRAM_", "DISCORD_"))}
        env.update(
            SIKPAN_DB=db, SIKPAN_LANG=lang, SIKPAN_TZ="Asia/Seoul", LANG="C.UTF-8", PYTHONUNBUFFERED="1"
        )
        env.pop("LC_ALL", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "run"],
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.buffer = b""

    def read_until(self, marker: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        target = marker.encode()
        while target not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"timed out waiting for {marker!r}; got {self.buffer.decode(errors='replace')!r}"
                )
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                self.buffer += chunk
        head, _, rest = self.buffer.partition(target)
        if target not in self.buffer and not head:
            raise AssertionError("console closed")
        self.buffer = rest
        return head.decode("utf-8", "replace").replace("\r\n", "\n")

    def ask(self, line: str) -> str:
        os.write(self.master, (line + "\n").encode())
        text = self.read_until(PROMPT)
        # the terminal echoes the typed line first
        return text.split("\n", 1)[1] if "\n" in text else text

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=15)
        finally:
            os.close(self.master)
            if self.proc.poll() is None:
                self.proc.kill()


def today_in_seoul() -> set[str]:
    out = set()
    for delta in (0, 20):  # either side of a day boundary while the test runs
        local = (datetime.now(UTC) + timedelta(seconds=delta)).astimezone(ZoneInfo("Asia/Seoul"))
        d = local.date() + timedelta(days=1 if local.hour == 23 else 0)
        out.add(GanZhi.of((d.toordinal() + 1721425 + 49) % 60).chars)
    return out


@pytest.fixture
def console(tmp_path):
    c = Console(str(tmp_path / "console.db"), str(tmp_path))
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
        c.proc.wait(timeout=10)


def test_console_chat_answers_commands_and_ends_at_eof(console):
    welcome = console.read_until(PROMPT)
    assert gettext("ko", "bot.console.welcome") in welcome

    out = console.ask("/help")
    assert "/cast" in out and "/shensha" in out and gettext("ko", "bot.help.cast") in out

    out = console.ask("/cast now")
    assert gettext("ko", "bot.cast.transmissions") in out, out
    assert any(f"({day})" in out for day in today_in_seoul()), out

    out = console.ask("/shensha 甲子")
    stars = evaluate(GanZhi.parse("甲子")).stars
    # the first page names them as Korean reads them (a dense row: 한글 alone, docs/style.md)
    assert stars and all(reading("ko", s.name) in out for s in stars[:3]), out

    out = console.ask("/cast 庚辰 13")
    assert gettext("ko", "bot.error.bad_ju", value="13") in out

    out = console.ask("hello")  # a bare word names no command: the hint (issue #34 item 7), never "/hello"
    assert gettext("ko", "chat.hint") in out and "/hello" not in out

    out = console.ask("/hello")  # a command that does not exist is named as such
    assert gettext("ko", "bot.error.unknown_command", name="hello") in out

    os.write(console.master, b"\x04")  # Ctrl-D: end of input
    assert console.close() == 0
    assert b"Traceback" not in console.proc.stderr.read()


def test_console_stops_on_sigterm_and_history_survives_a_restart(tmp_path):
    db = str(tmp_path / "restart.db")
    first = Console(db, str(tmp_path))
    first.read_until(PROMPT)
    out = first.ask("/cast 庚辰 8")
    assert "#1" in out
    first.proc.send_signal(signal.SIGTERM)
    assert first.close() == 0

    second = Console(db, str(tmp_path), lang="lzh")
    try:
        second.read_until(PROMPT)
        listing = second.ask("/history")
        assert "#1" in listing and "/cast 庚辰 8" in listing
        shown = second.ask("/show 1")
        assert "庚辰" in shown and "三傳" in shown
        second.proc.send_signal(signal.SIGINT)
        assert second.close() == 0
    finally:
        if second.proc.poll() is None:
            second.proc.kill()
