"""Issue #31: a new text command is one package. The throw-away ``/bazi`` of tests/chat/bazi/ (its spec,
handler, one template for every channel and its two catalogs, nothing else) is installed and answers on the
console, on Telegram and on Discord, is listed by /help (in its order) and shows in /history with its summary.

Expected texts: the four pillars of the clock's instant (2024-02-04 12:30 in Seoul) as the calendar engine
gives them (its own tests check them against spec/calendar.md); the words from the package's own catalogs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.console import ConsoleSession
from bot.features.base import install, lookup, uninstall
from bot.i18n import both, gettext
from engine.calendar import four_pillars
from tests.bot.conftest import DEFAULT_INSTANT
from tests.chat import bazi
from tests.chat._views import ask, telegram_at
from tests.conftest import discord_bot
from tests.fakes.clock import ManualClock
from tests.fakes.telegram import visible_text


def _compile(source: Path, target: Path) -> None:
    """The build's step (setup.py does it for locales/): each .po of ``source`` → its .mo under ``target``."""
    for po in source.rglob("*.po"):
        mo = target / po.relative_to(source).with_suffix(".mo")
        mo.parent.mkdir(parents=True, exist_ok=True)
        with po.open("rb") as f, mo.open("wb") as out:
            write_mo(out, read_po(f))


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[None]:
    _compile(bazi.LOCALES, tmp_path / "locales")
    feature = bazi.feature(tmp_path / "locales")
    install(feature)
    try:
        yield
    finally:
        uninstall(feature)
    assert lookup("bazi") is None and gettext("ko", "bazi.title") == "bazi.title"


def _pillars(lang: str) -> str:
    p = four_pillars(DEFAULT_INSTANT.astimezone(ZoneInfo("Asia/Seoul")))
    return " ".join(both(lang, g.chars) for g in (p.year, p.month, p.day, p.hour))


def test_not_there_until_installed():
    assert lookup("bazi") is None and lookup("사주") is None


@pytest.mark.usefixtures("installed")
async def test_console_help_and_history(ctx):
    session = ConsoleSession(ctx)
    listing = await session.answer("/help")
    lines = listing.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("/bazi "))
    assert lines[at] == "/bazi " + gettext("ko", "bazi.help")
    assert lines[at - 1].startswith("/qizheng ")  # its order in /help: after 七政四餘
    assert "/bazi" in (await session.answer("/help 사주"))
    first = await session.answer("/사주")
    assert first.splitlines() == ["사주(四柱) #1", "2024-02-04 12:30 기준", _pillars("ko")]
    history = await session.answer("/history")
    day = four_pillars(DEFAULT_INSTANT.astimezone(ZoneInfo("Asia/Seoul"))).day.chars
    assert f"#1 2024-02-04 12:30 /사주 · {both('ko', day)}" in history.splitlines()
    assert (await session.answer("/show 1")) == first  # stored, and shown again from the history
    await session.answer("/lang lzh")
    assert (await session.answer("/bazi")).splitlines()[:2] == ["四柱 #2", "時在2024-02-04 12:30"]


@pytest.mark.usefixtures("installed")
async def test_telegram(tg, tmp_path):
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), DEFAULT_INSTANT) as run:
        [answer] = await ask(tg, run, "/bazi", 41)
        assert answer.method == "sendMessage"
        assert visible_text(answer.params["text"], "HTML").splitlines() == [
            "사주(四柱) #1",
            "2024-02-04 12:30 기준",
            _pillars("ko"),
        ]
        assert "<b>사주(四柱)</b>" in answer.params["text"]  # the console's template, escaped for Telegram
        [listing] = await ask(tg, run, "/help", 41)
        assert "/bazi " + gettext("ko", "bazi.help") in visible_text(listing.params["text"], "HTML")


@pytest.mark.usefixtures("installed", "restore_discord_endpoints")
async def test_discord_slash_command(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite"), clock=ManualClock(DEFAULT_INSTANT)):
        await dc.wait_synced()
        [synced] = [c for cmds in dc.synced.values() for c in cmds if c["name"] == "bazi"]
        assert synced["description"] == gettext("ko", "bazi.help")
        assert synced["description_localizations"]["zh-TW"] == gettext("lzh", "bazi.help")
        inter = await dc.slash("bazi", {})
        [reply] = await dc.wait_followups(inter, 1, timeout=10)
        assert reply["content"].splitlines() == ["**사주(四柱)** #1", "2024-02-04 12:30 기준", _pillars("ko")]
