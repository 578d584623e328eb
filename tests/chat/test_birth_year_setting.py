"""Issue 32 limit 2: the asker's birth year saved alone (``/settings 생년 1990``, ``/settings 生年 1990``) — shown
on the settings page, a bad year refused in the reader's language, cleared by ``모름``/``未定`` and by
``/settings reset`` — gives /cast its 年命 in private chats when no birth is saved with ``/qizheng … save``
(a saved birth wins); a group never reads it. Console in ko and lzh, the fake Telegram in ko and lzh, the fake Discord (the real
discord.py client: slash command options, the bot's DM and a guild channel) in ko and lzh.

Expected values by the rule, by hand (as tests/chat/test_nianming.py): a cast in 2026 (after 立春) of one born
in 1990 (庚午), a man: 세는나이 37, 行年 丙寅 + 36 = 壬寅; born in 1985 (乙丑), a man: 42, 丙寅 + 41 = 丁未.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.console import ConsoleSession
from bot.features import options as engine_options
from bot.i18n import gettext, term
from tests.chat._views import ask, discord_at, telegram_at
from tests.chat.test_nianming import AT, _head, _line
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import visible_text

WORDS = {  # how each language types the option and its values
    "ko": {"year": "생년", "sex": "성별", "man": "남", "unset": "모름"},
    "lzh": {"year": "生年", "sex": "男女", "man": "男", "unset": "未定"},
}


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_console_saved_year_gives_the_nianming_and_is_cleared(ctx, clock, lang):
    clock.set(AT)
    w = WORDS[lang]
    session = ConsoleSession(ctx)
    await session.answer(f"/lang {lang}")
    none = await session.answer("/cast now")
    assert not _line(none, lang, "chat.cast.benming")  # nothing saved: no 年命
    shown = await session.answer(f"/settings {w['year']} 1990")
    assert gettext(lang, "bot.settings.changed") in shown
    row = [ln for ln in shown.splitlines() if ln.startswith(gettext(lang, "bot.opt.birth_year"))]
    assert row and row[0].endswith("1990")  # on the settings page
    await session.answer(f"/settings {w['sex']} {w['man']}")
    cast = await session.answer("/cast now")
    assert term(lang, "庚午") in _line(cast, lang, "chat.cast.benming")
    assert term(lang, "壬寅") in _line(cast, lang, "chat.cast.xingnian")
    # a year typed on the line still wins
    assert term(lang, "丁未") in _line(await session.answer("/cast now 1985"), lang, "chat.cast.xingnian")
    await session.answer(f"/settings {w['year']} {w['unset']}")
    assert not _line(await session.answer("/cast now"), lang, "chat.cast.benming")
    await session.answer(
        f"/settings {w['year']} 1985年" if lang == "lzh" else f"/settings {w['year']} 1985년생"
    )
    assert term(lang, "乙丑") in _line(await session.answer("/cast now"), lang, "chat.cast.benming")
    await session.answer("/settings reset")
    assert not _line(await session.answer("/cast now"), lang, "chat.cast.benming")


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize("bad", ["1850", "2200", "abc", "19900"])
async def test_console_a_bad_year_is_refused_in_the_readers_language(ctx, clock, lang, bad):
    session = ConsoleSession(ctx)
    await session.answer(f"/lang {lang}")
    refused = await session.answer(f"/settings {WORDS[lang]['year']} {bad}")
    assert (
        refused.startswith("⚠") and _head(lang, "error.liuren.bad_birth_year") in refused and bad in refused
    )
    assert "birth_year" not in refused
    user = await ctx.storage.get_user("console:local")
    assert "birth_year" not in (user.options if user else {})  # nothing saved


async def test_a_saved_qizheng_birth_wins_over_the_saved_year(ctx, clock):
    clock.set(AT)
    session = ConsoleSession(ctx)
    await session.answer("/settings 생년 1985")
    await session.answer("/qizheng 1990-05-17 14:30 서울 save")  # 庚午年
    cast = await session.answer("/cast now")
    assert term("ko", "庚午") in _line(cast, "ko", "chat.cast.benming")
    await session.answer("/qizheng forget")
    assert term("ko", "乙丑") in _line(await session.answer("/cast now"), "ko", "chat.cast.benming")


def test_the_option_is_one_of_the_settings_model_and_typed():
    option = engine_options.setting("생년")
    assert option is not None and option is engine_options.setting("生年") and option.key == "birth_year"
    assert option.group == engine_options.BOT_GROUP and option.choices == () and option.default == "unset"
    assert engine_options.normalize_setting(option, "1990년생") == "1990"
    assert engine_options.normalize_setting(option, "未定") == "unset"
    assert engine_options.saved_birth_year({"birth_year": "1990"}) == 1990
    assert engine_options.saved_birth_year({"birth_year": "unset"}) is None


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_saved_year_private_only(tg, tmp_path, lang):
    chat, group, user = 5401, -1005402, 5401
    w = WORDS[lang]
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), AT, lang) as run:
        [saved] = await ask(tg, run, f"/settings {w['year']} 1990", chat, language_code=lang)
        assert "1990" in visible_text(saved.html, "HTML")
        await ask(tg, run, f"/settings {w['sex']} {w['man']}", chat, language_code=lang)
        [first] = await ask(tg, run, "/cast now", chat, language_code=lang)
        text = visible_text(first.html, "HTML")
        assert term(lang, "庚午") in _line(text, lang, "chat.cast.benming")
        assert term(lang, "壬寅") in _line(text, lang, "chat.cast.xingnian")
        # in a group the saved year is never read (nor shown)
        kw = {"user_id": user, "chat_type": "supergroup", "language_code": lang}
        [public] = await ask(tg, run, "/cast now", group, **kw)
        public_text = visible_text(public.html, "HTML")
        assert not _line(public_text, lang, "chat.cast.benming") and not _line(
            public_text, lang, "chat.cast.xingnian"
        )
        assert "1990" not in public_text  # (庚午 is this hour's pillar: not a sign of the year)
        [refused] = await ask(tg, run, f"/settings {w['year']} 1850", chat, language_code=lang)
        assert _head(lang, "error.liuren.bad_birth_year") in visible_text(refused.html, "HTML")


async def _discord(dc: FakeDiscord, name: str, options: dict[str, str] | None = None, **kw: object) -> str:
    """What a slash command shows (its follow-ups' content and embeds), as a user runs it."""
    inter = await dc.slash(name, options, **kw)
    await dc.wait_followups(inter, 1, timeout=10)
    await asyncio.sleep(0.1)  # later parts, if any
    parts = []
    for m in inter.followups:
        parts.append(m.get("content") or "")
        parts += [e.get(k) or "" for e in m.get("embeds") or [] for k in ("title", "description")]
    return "\n".join(p for p in parts if p).replace("**", "")


@pytest.mark.usefixtures("restore_discord_endpoints")
@pytest.mark.parametrize(("locale", "lang"), [("ko", "ko"), ("zh-TW", "lzh")])
async def test_discord_saved_year_through_the_slash_command(dc, tmp_path, locale, lang):
    """``/settings option:생년 value:1990`` in the bot's DM saves 1990 (the stored option, the page's line);
    ``/cast now`` there then shows 本命 庚午 and, with the sex set, 行年 壬寅; in a guild channel it is not read."""
    user = 5501
    w = WORDS[lang]
    async with discord_at(dc, str(tmp_path / "db.sqlite"), AT, lang) as ctx:
        dm = {"dm": True, "user_id": user, "locale": locale}
        before = await _discord(dc, "cast", {"when": "now"}, **dm)
        assert not _line(before, lang, "chat.cast.benming")  # nothing saved: no 年命
        saved = await _discord(dc, "settings", {"option": w["year"], "value": "1990"}, **dm)
        assert gettext(lang, "bot.settings.changed") in saved
        row = [ln for ln in saved.splitlines() if ln.startswith(gettext(lang, "bot.opt.birth_year"))]
        assert row and row[0].endswith("1990")
        stored = await ctx.storage.get_user(f"discord:{user}")
        assert stored is not None and stored.options["birth_year"] == "1990"
        await _discord(dc, "settings", {"option": w["sex"], "value": w["man"]}, **dm)
        cast = await _discord(dc, "cast", {"when": "now"}, **dm)
        assert term(lang, "庚午") in _line(cast, lang, "chat.cast.benming")
        assert term(lang, "壬寅") in _line(cast, lang, "chat.cast.xingnian")
        public = await _discord(dc, "cast", {"when": "now"}, user_id=user, locale=locale)
        assert not _line(public, lang, "chat.cast.benming") and not _line(public, lang, "chat.cast.xingnian")
