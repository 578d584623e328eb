"""Issue 32 item 5 in chat: the asker's 年命 on /cast. A birth year typed in the line (``/cast now 1990 남``) or
the birth saved with ``/qizheng … save`` (private chats only) gives the 本命 and, with the sex (typed, or the
``sex`` option of /settings), the 行年 by 《六壬粹言》's 正法 (男 丙寅 順行, 女 壬申 逆行, 세는나이); both are
shown on the 盤 page where they sit on the board, kept with the cast (a replay shows the same after the saved
birth changes), and weighed in the reading and verdict. Without the sex the reply says how to give it. On the
console, the fake Telegram and the fake Discord, ko and lzh.

Expected values by the rule, by hand: a cast in 2026 (after 立春) of one born in 1990 (庚午): 세는나이 37;
a man's 行年 is 丙寅 + 36 = 壬寅 (36 = 3 × 12: the branch back at 寅, the stem 丙 + 6 = 壬), a woman's is
壬申 − 36 = 丙申. One born in 1985 (乙丑) is 42: a man 丙寅 + 41 = 丁未.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.console import ConsoleSession
from bot.i18n import gettext, term
from engine.core.cycle import Branch, GanZhi
from engine.liuren import chart_at, chart_for_ju
from tests.chat._views import ask, discord_at, telegram_at
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import visible_text

AT = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)  # 12:00 in Seoul, 2026 (丙午年, after 立春)


def _head(lang: str, msgid: str) -> str:
    return gettext(lang, msgid).split("{")[0]


def _line(text: str, lang: str, msgid: str) -> str:
    found = [ln for ln in text.splitlines() if ln.strip().startswith(_head(lang, msgid))]
    return found[0] if found else ""


def _over(earth: str) -> str:
    """The 天盤 branch over ``earth`` in the chart of AT (Seoul) as the engine casts it."""
    from zoneinfo import ZoneInfo

    chart = chart_at(AT.astimezone(ZoneInfo("Asia/Seoul")))
    return chart.heaven[Branch.from_char(earth)].char


async def test_console_typed_year_saved_sex_and_the_hint(ctx, clock):
    clock.set(AT)
    session = ConsoleSession(ctx)
    hinted = await session.answer("/cast now 1990")
    assert term("ko", "庚午") in _line(hinted, "ko", "chat.cast.benming")
    assert "/settings 성별 남" in _line(hinted, "ko", "chat.cast.sex_unknown")  # how to set it, once
    assert not _line(hinted, "ko", "chat.cast.xingnian")
    man = await session.answer("/cast now 1990 남")
    line = _line(man, "ko", "chat.cast.xingnian")
    assert term("ko", "壬寅") in line and "37" in line and f"위에 {_over('寅')}" in line
    assert f"위에 {_over('午')}" in _line(man, "ko", "chat.cast.benming")  # 本命 午 and what stands on it
    assert not _line(man, "ko", "chat.cast.sex_unknown")
    await session.answer("/settings 성별 여")
    woman = await session.answer("/cast now 1990")
    assert term("ko", "丙申") in _line(woman, "ko", "chat.cast.xingnian")
    refused = await session.answer("/cast now 1850")  # outside the tables: said, not a crash
    assert _head("ko", "error.liuren.bad_birth_year") in refused and "1850" in refused
    # a day and 局 with a topic: the year before the topic, the sex in words
    ju = await session.answer("/cast 庚辰 8 1985年生 男 재물")
    chart = chart_for_ju(GanZhi.parse("庚辰"), 8)
    line = _line(ju, "ko", "chat.cast.xingnian")
    assert term("ko", "丁未") in line and "42" in line and f"위에 {chart.heaven[Branch.WEI].char}" in line
    await session.answer("/lang lzh")
    lzh = await session.answer("/cast now 1990")
    assert "丙申" in _line(lzh, "lzh", "chat.cast.xingnian") and "三十七歲" in lzh


BIRTH = "1990-05-17 14:30 서울"  # 庚午年 (after 立春 1990)


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_saved_birth_private_only_and_kept_with_the_cast(tg, tmp_path, lang):
    chat, group, user = 5301, -1005302, 5301
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), AT, lang) as run:
        await ask(tg, run, f"/qizheng {BIRTH} save", chat, language_code=lang)
        [hinted] = await ask(tg, run, "/cast now", chat, language_code=lang)
        text = visible_text(hinted.html, "HTML")
        assert term(lang, "庚午") in _line(text, lang, "chat.cast.benming")
        assert _line(text, lang, "chat.cast.sex_unknown") and not _line(text, lang, "chat.cast.xingnian")
        await ask(
            tg, run, "/settings 성별 남" if lang == "ko" else "/settings 男女 男", chat, language_code=lang
        )
        [first] = await ask(tg, run, "/cast now", chat, language_code=lang)
        assert first.method == "sendPhoto"  # the 盤 page is the picture's caption
        text = visible_text(first.html, "HTML")
        assert term(lang, "壬寅") in _line(text, lang, "chat.cast.xingnian")
        assert not _line(text, lang, "chat.cast.sex_unknown")
        # a later birth saved does not change the cast already made: /show casts its stored inputs again
        await ask(tg, run, "/qizheng 1985-05-17 14:30 서울 save", chat, language_code=lang)
        [again] = await ask(tg, run, "/show 3", chat, language_code=lang)
        shown = visible_text(again.html, "HTML")
        assert term(lang, "壬寅") in _line(shown, lang, "chat.cast.xingnian") and term(lang, "庚午") in _line(
            shown, lang, "chat.cast.benming"
        )
        # in a group the saved birth and sex are not read; a year typed there is
        kw = {"user_id": user, "chat_type": "supergroup", "language_code": lang}
        [public] = await ask(tg, run, "/cast now", group, **kw)
        public_text = visible_text(public.html, "HTML")
        assert term(lang, "乙丑") not in public_text and not _line(public_text, lang, "chat.cast.benming")
        assert not _line(public_text, lang, "chat.cast.xingnian")
        [typed] = await ask(tg, run, "/cast now 1990 여", group, **kw)
        assert term(lang, "丙申") in _line(visible_text(typed.html, "HTML"), lang, "chat.cast.xingnian")


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_discord_typed_year_and_the_hint(tmp_path, lang):
    locale = {"ko": "ko", "lzh": "zh-TW"}[lang]
    async with FakeDiscord(ack_deadline=3.0) as dc, discord_at(dc, str(tmp_path / "db.sqlite"), AT):
        inter = await dc.slash("cast", {"when": "now 1990 여"}, locale=locale)
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        text = first["embeds"][0]["description"].replace("\\", "")
        assert term(lang, "丙申") in _line(text, lang, "chat.cast.xingnian")
        assert f"{_over('申')}" in _line(text, lang, "chat.cast.xingnian")
        inter = await dc.slash("cast", {"when": "庚辰 8 1990"}, locale=locale, dm=True)
        [hinted] = await dc.wait_followups(inter, 1, timeout=15)
        text = hinted["embeds"][0]["description"].replace("\\", "")
        assert term(lang, "庚午") in _line(text, lang, "chat.cast.benming") and _line(
            text, lang, "chat.cast.sex_unknown"
        )


def test_the_birth_year_does_not_clash_with_the_cast_line():
    from bot.features.liuren.command import parse_cast_args, split_birth

    assert split_birth(("now", "1990")) == (("now",), 1990, None)
    assert split_birth(("1990년생", "여")) == ((), 1990, "female")
    assert split_birth(("庚辰", "8", "1985年生男")) == (("庚辰", "8"), 1985, "male")
    # the forms /cast takes keep their meaning: a date and time, a time today, a 局, a 月將 and 占時
    for line in (("2026-12-07", "10:30"), ("10:30",), ("庚辰", "8"), ("辛巳", "辰將", "巳時"), ("now", "남")):
        assert split_birth(line) == (line, None, None)
    assert parse_cast_args(split_birth(("2026-12-07", "10:30", "1990"))[0])[0] == "local"


async def test_console_settings_name_the_sex_option(ctx, clock):
    clock.set(AT)
    session = ConsoleSession(ctx)
    shown = await session.answer("/settings 성별")
    assert gettext("ko", "bot.opt.sex") in shown and gettext("ko", "bot.optval.sex.male") in shown
    set_ = await session.answer("/settings 성별 남")
    assert gettext("ko", "bot.optval.sex.male") in set_
    assert "sex" not in set_ and "male" not in set_  # in words, not codes
    await session.answer("/lang lzh")
    assert gettext("lzh", "bot.optval.sex.female") in await session.answer("/settings 男女 女")


async def test_console_a_saved_birth_after_the_cast_date_is_left_out(ctx, clock):
    clock.set(AT)
    session = ConsoleSession(ctx)
    await session.answer(f"/qizheng {BIRTH} save")
    old = await session.answer("/cast 1980-03-01 12:00")  # before the saved birth: cast without a 年命
    assert not _line(old, "ko", "chat.cast.benming") and not _line(old, "ko", "chat.cast.sex_unknown")
    refused = await session.answer("/cast 1980-03-01 12:00 1990")  # typed: said
    assert _head("ko", "error.liuren.birth_after_cast") in refused
    assert term("ko", "庚午") in _line(await session.answer("/cast now"), "ko", "chat.cast.benming")
