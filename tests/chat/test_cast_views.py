"""Issue #20 point 3 in chat: ``/cast 庚辰 8`` (a day and a 局) states on its first page which 占時 and 月將 were
assumed; ``/cast now`` (both from the clock) and ``/cast 辛巳 辰將 巳時`` (both given: seed 003 entry 7
「斬關月將」 is 辰) assume nothing and say nothing of it. On Telegram, Discord and the console, ko and lzh,
private and group.

The assumed values follow the documented rule of ``engine.liuren.chart_for_ju``: a daytime cast takes the first
hour from 午 that counts as day (午 itself), and the 月將 is the one that makes 第8局 with it: 局 = (占時 − 月將)
mod 12 + 1 (天盤 子 sits on 地盤 branch 局 − 1, spec §1), and (午 − 亥) mod 12 = 7.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.console import ConsoleSession
from bot.i18n import gettext, term
from tests.chat._views import ask, components, discord_at, telegram_at
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import visible_text

AT = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)  # 12:00 in Seoul: a daytime /cast now


def _head(lang: str) -> str:
    """The words of the statement before its first value (its wording is the catalog's, the values are not)."""
    return gettext(lang, "chat.cast.assumed").split("{")[0]


def _says_assumed(text: str, lang: str, hour: str = "午", general: str = "亥") -> bool:
    [line] = [ln for ln in text.splitlines() if _head(lang) in ln] or [""]
    return (
        bool(line)
        and term(lang, hour) in line
        and term(lang, general) in line
        and (
            f"{general}將 {hour}時" in line  # how to give them instead, in the words /cast takes
        )
    )


def test_the_assumed_pair_makes_the_8th_ju():
    branches = "子丑寅卯辰巳午未申酉戌亥"
    assert (branches.index("午") - branches.index("亥")) % 12 + 1 == 8


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_private_and_group(tg, tmp_path, lang):
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), AT, lang) as run:
        [first] = await ask(tg, run, "/cast 庚辰 8", 61, language_code=lang)
        assert _says_assumed(visible_text(first.html, "HTML"), lang)
        for line in ("/cast now", "/cast 辛巳 辰將 巳時"):
            [other] = await ask(tg, run, line, 61, language_code=lang)
            assert _head(lang) not in visible_text(other.html, "HTML"), line
        group = -100620
        [shown] = await ask(
            tg, run, "/cast 庚辰 8", group, user_id=621, chat_type="supergroup", language_code=lang
        )
        assert _says_assumed(visible_text(shown.html, "HTML"), lang)


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_discord_embed_says_what_was_assumed(tmp_path, lang):
    locale = {"ko": "ko", "lzh": "zh-TW"}[lang]
    async with (
        FakeDiscord(ack_deadline=3.0, require_alt_text=True) as dc,
        discord_at(dc, str(tmp_path / "db.sqlite"), AT),
    ):
        inter = await dc.slash("cast", {"when": "庚辰 8"}, locale=locale)
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        assert components(first)
        assert _says_assumed(first["embeds"][0]["description"].replace("\\", ""), lang)
        inter = await dc.slash("cast", {"when": "辛巳 辰將 巳時"}, locale=locale, dm=True)
        [given] = await dc.wait_followups(inter, 1, timeout=15)
        assert _head(lang) not in given["embeds"][0]["description"]


async def test_console_first_page(ctx, clock):
    clock.set(AT)
    session = ConsoleSession(ctx)
    assert _says_assumed(await session.answer("/cast 庚辰 8"), "ko")
    assert _head("ko") not in await session.answer("/cast now")
    given = await session.answer("/cast 辛巳 辰將 巳時")
    assert _head("ko") not in given and term("ko", "辰") in given
    await session.answer("/lang lzh")
    assert _says_assumed(await session.answer("/cast 庚辰 8"), "lzh")
