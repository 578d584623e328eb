"""Issue #16 point 4 in chat: ``/qizheng <birth> … 2027`` (a year, or a date) shows on its 限 page the 大限 and
the 小限 / 流年 at that year or date; without one, at today's date (the one clock); a year the 限 cannot be read
for is a localized error that blames that word. Telegram, Discord and the console; ko and lzh; private, and a
group (where birth data is never shown: Telegram refuses, Discord answers the caller alone).

Expected values are the engine's tested results for the 1990-05-17 14:30 Seoul birth
(tests/qizheng/test_round2.py: 命宮 巳; 洞微 大限 巳 1–16, 午 16–26, 未 26–37, 申 官祿 37–52) and the calendar:
- 2027 (after 立春): 虛歲 2027 − 1990 + 1 = 38, 流年 丁未 ((2027 − 4) mod 60 = 43); the 小限 steps one palace a
  year backwards from 命宮 (巳 at 1): 38 → 巳 − 37 = 辰, the 財帛 palace (the house after 命宮);
- 2026-12-01 (today in the tests): 虛歲 37 → 小限 巳 (命宮 again after 36 steps), 流年 丙午;
- 2030: 虛歲 41 → 巳 − 40 = 丑, 流年 庚戌; the 大限 is still 官祿 申 (age 41 in 37–52).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.console import ConsoleSession
from bot.i18n import gettext, term
from tests.chat._views import (
    ask,
    buttons,
    components,
    discord_at,
    page_of,
    press,
    press_component,
    telegram_at,
)
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import visible_text

TODAY = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
BIRTH = {"ko": "1990-05-17 14:30 서울", "lzh": "1990-05-17 14:30 首爾"}


def _line(text: str, msgid: str, lang: str) -> str:
    """The line of ``text`` opened by the message ``msgid`` (its words before the first value)."""
    head = gettext(lang, msgid).split("{")[0].strip()
    found = [ln for ln in text.splitlines() if ln.strip().strip("*").startswith(head)]
    assert found, (msgid, text)
    return found[0]


def _check_xian(text: str, lang: str, *, xiao: str, year: str, date: str) -> None:
    daxian = _line(text, "qizheng.xian.daxian", lang)
    assert term(lang, "官祿") in daxian and term(lang, "申") in daxian
    assert term(lang, xiao) in _line(text, "qizheng.xian.xiaoxian", lang)
    assert term(lang, year) in _line(text, "qizheng.xian.liunian", lang)
    assert date in _line(text, "chat.qizheng.xian_title", lang)


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_the_xian_page_at_a_year_and_today(tg, tmp_path, lang):
    chat = 91
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), TODAY, lang) as run:
        [first] = await ask(tg, run, f"/qizheng {BIRTH[lang]} 2027 save", chat, language_code=lang)
        brief = visible_text(first.html, "HTML")
        assert len(brief) <= 1500
        assert term(lang, "丁未") in _line(
            brief, "chat.qizheng.xian_brief", lang
        )  # the running 限, in one line
        key = next(b for b in buttons(first) if page_of(b) == "daxian")
        _, page = await press(tg, run, key, first.result, chat, language_code=lang)
        _check_xian(page, lang, xiao="辰", year="丁未", date="2027-07-01")
        assert term(lang, "財帛") in _line(page, "qizheng.xian.xiaoxian", lang)

        [today] = await ask(tg, run, f"/qizheng {BIRTH[lang]} save", chat, language_code=lang)
        key = next(b for b in buttons(today) if page_of(b) == "daxian")
        _, page = await press(tg, run, key, today.result, chat, language_code=lang)
        _check_xian(page, lang, xiao="巳", year="丙午", date="2026-12-01")

        [later] = await ask(tg, run, "/qizheng 2030", chat, language_code=lang)  # the saved birth
        key = next(b for b in buttons(later) if page_of(b) == "daxian")
        _, page = await press(tg, run, key, later.result, chat, language_code=lang)
        _check_xian(page, lang, xiao="丑", year="庚戌", date="2030-07-01")

        # in a group birth data is not shown at all (bot.privacy): no 限 there
        [refused] = await ask(tg, run, f"/qizheng {BIRTH[lang]} 2027", -100930, user_id=931,
                              chat_type="supergroup", language_code=lang)  # fmt: skip
        assert term(lang, "丁未") not in visible_text(refused.html, "HTML")


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize("word", ["1980", "2300", "2027-02-30"])
async def test_an_impossible_year_blames_that_word(ctx, clock, lang, word):
    clock.set(TODAY)
    session = ConsoleSession(ctx)
    await session.answer(f"/lang {lang}")
    text = await session.answer(f"/qizheng {BIRTH[lang]} {word}")
    assert f"「{word}」" in text and gettext(lang, "chat.error.qizheng_on").split("{")[0] in text
    assert "--" not in text  # no CLI flag in chat


async def test_console_without_save_shows_the_xian_of_today(ctx, clock):
    clock.set(TODAY)
    text = await ConsoleSession(ctx).answer(f"/qizheng {BIRTH['ko']}")  # not saved: one reply, no pages
    _check_xian(text, "ko", xiao="巳", year="丙午", date="2026-12-01")


async def test_discord_guild_answers_privately_with_the_xian_page(tmp_path):
    async with (
        FakeDiscord(ack_deadline=3.0, require_alt_text=True) as dc,
        discord_at(dc, str(tmp_path / "db.sqlite"), TODAY),
    ):
        inter = await dc.slash("qizheng", {"when": f"{BIRTH['ko']} 2027 save"})
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        assert first.get("flags", 0) & 64  # ephemeral: birth data goes to the caller alone
        assert "daxian" in [page_of(b) for b in components(first)]
        embed = await press_component(dc, first, "daxian", user_id=dc.user_id)
        _check_xian(embed["description"].replace("\\", ""), "ko", xiao="辰", year="丁未", date="2027-07-01")
