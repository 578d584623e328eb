"""Issue #34 item 5: the journal of outcomes. ``/note N [맞음|틀림|반반] [what happened]`` records, after the
event, whether cast N's reading held; ``/history`` marks the casts written about; ``/journal`` tallies the
share that held, overall, per art and per topic; on the console, Telegram and Discord, in ko and lzh; the
notes are the owner's alone and go with /forget."""

from __future__ import annotations

import pytest

from bot.commands import Incoming, dispatch
from bot.console import ConsoleSession
from bot.features.journal.command import OUTCOME_WORDS, tally
from bot.i18n import gettext
from bot.storage.notes import OUTCOMES, NotedCast
from tests.bot.conftest import DEFAULT_INSTANT
from tests.chat._views import ask, telegram_at
from tests.conftest import discord_bot
from tests.fakes.clock import ManualClock
from tests.fakes.telegram import visible_text


def share(lang: str, **t: int) -> str:
    judged = t["held"] + t["partly"] + t["missed"]
    percent = round(100 * (t["held"] + t["partly"] / 2) / judged)
    return gettext(lang, "bot.journal.share", judged=judged, percent=percent, **t)


async def test_note_history_marks_and_journal_on_the_console(ctx):
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    await session.answer("/liuyao 878878")
    await session.answer("/liuyao 787878")
    saved = await session.answer("/note 1 맞음 승진 소식이 왔다")
    assert "승진 소식이 왔다" in saved and gettext("ko", "bot.note.saved") in saved
    assert gettext("ko", "bot.note.outcome.held") in saved
    await session.answer("/note 2 틀림")
    await session.answer("/note 3 반반")
    await session.answer("/note 3 절반쯤 이루어짐")  # text alone keeps the verdict
    shown = await session.answer("/note 3")
    assert gettext("ko", "bot.note.outcome.partly") in shown and "절반쯤 이루어짐" in shown

    history = (await session.answer("/history")).splitlines()
    assert next(line for line in history if line.startswith("#1 ")).endswith(
        gettext("ko", "bot.note.mark.held")
    )
    assert next(line for line in history if line.startswith("#2 ")).endswith(
        gettext("ko", "bot.note.mark.missed")
    )

    journal = await session.answer("/journal")
    assert share("ko", held=1, partly=1, missed=1) in journal  # (1 + ½) / 3 = 50 %
    assert share("ko", held=0, partly=1, missed=1) in journal  # the two 六爻 casts
    assert share("ko", held=1, partly=0, missed=0) in journal  # the 大六壬 one
    only = await session.answer("/journal 육효")
    assert share("ko", held=0, partly=1, missed=1) in only and "승진" not in only

    assert "⚠" in await session.answer("/note 9 맞음")  # no cast 9
    assert "⚠" in await session.answer("/note 1 " + "가" * 501)  # bounded
    assert gettext("ko", "bot.note.deleted", no=2) in await session.answer("/note 2 지움")
    await session.answer("/lang lzh")
    assert share("lzh", held=1, partly=1, missed=0) in await session.answer("/journal")
    assert gettext("lzh", "bot.note.outcome.missed") in await session.answer("/note 1 不驗")

    await session.answer("/forget yes")
    assert gettext("ko", "bot.journal.empty") in await session.answer("/journal")  # settings went too


async def test_notes_are_the_owners_alone(ctx):
    """Another user's /note N writes about their own cast N (or finds none), never the first user's."""
    await ConsoleSession(ctx).answer("/cast 庚辰 8")
    await ConsoleSession(ctx).answer("/note 1 맞음 비밀")
    other = Incoming(platform="telegram", chat_id="99", user_id="99", text="/note 1")
    answer = await dispatch(other, ctx)
    assert answer.view == "error" and "비밀" not in str(answer.context)
    other = Incoming(platform="telegram", chat_id="99", user_id="99", text="/journal")
    assert "비밀" not in str((await dispatch(other, ctx)).context)


def test_the_tally_counts_a_half_as_half():
    def cast(outcome: str | None) -> NotedCast:
        return NotedCast(1, "liuyao", "{}", outcome, "", "")

    t = tally([cast("held"), cast("partly"), cast("missed"), cast(None)])
    assert (t["judged"], t["percent"]) == (3, 50)
    assert tally([cast(None)])["percent"] is None
    assert set(OUTCOME_WORDS.values()) == set(OUTCOMES)


async def test_telegram(tg, tmp_path):
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), DEFAULT_INSTANT) as run:
        await ask(tg, run, "/cast 庚辰 8", 41)
        [saved] = await ask(tg, run, "/note 1 맞음 <b>승진</b>", 41)
        text = saved.params["text"]
        assert "&lt;b&gt;승진&lt;/b&gt;" in text  # the user's words escaped, never markup
        [journal] = await ask(tg, run, "/journal", 41)
        assert share("ko", held=1, partly=0, missed=0) in visible_text(journal.params["text"], "HTML")


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_discord(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite"), clock=ManualClock(DEFAULT_INSTANT)):
        await dc.wait_synced()
        names = {c["name"] for cmds in dc.synced.values() for c in cmds}
        assert {"note", "journal"} <= names
        cast = await dc.slash("cast", {"when": "庚辰 8"})
        await dc.wait_followups(cast, 1, timeout=10)
        note = await dc.slash("note", {"number": 1, "outcome": "틀림", "text": "다른 사람이 뽑혔다"})
        [saved] = await dc.wait_followups(note, 1, timeout=10)
        assert "다른 사람이 뽑혔다" in saved["content"]
        journal = await dc.slash("journal", {})
        [listing] = await dc.wait_followups(journal, 1, timeout=10)
        assert share("ko", held=0, partly=0, missed=1) in listing["content"]
