"""Issues #19 and #13: the 六爻 views of a stored cast — 卦 (the chart with every line's strength and the one-line
verdict), 斷 (the engine's verdict) and 神煞 (on moving lines only) — on Telegram, Discord and the console, in
ko and lzh, in a private chat and a group, and after a restart.

Expected values come from the seed and the classical rules, not from our output:

- the 坎 lawsuit cast of issue 19 (``878878``, month 午, day 丁卯; 坎為水 納甲 戊寅 戊辰 戊午 / 戊申 戊戌 戊子,
  世 on the top line 子): 子 is 囚 in a 午 month (火 旺 土 相 木 休 水 囚 金 死) and 月破 (子午沖); 丁卯 is in the
  甲子 旬, so 戌 is 旬空; 日卯 刑 the 世 子 (子卯 無禮之刑) and 000:39 says 「官克世而問訟…若世刑而大凶也」;
- a 用神 named 財 is 妻財 (what 坎's 水 controls: 火), the 午 of the third line; of the two 官鬼 the lawsuit
  reads the 辰 of line 2, because the other (戌) is 旬空 (《增刪卜易》 用神兩現: the undamaged one);
- 000:47 「若姤恆小畜益卦，雖存六害之名，當察其用而權之」: 小畜 ``777877`` (month 午, day 甲子) has 辰 on line 3
  harmed by 卯 on line 6;
- 000:11 「若女占夫而官星為用者，遇之反吉也」: ``787787`` asked as a woman's marriage (month 子, day 甲申);
- 000:223 「各伺其動，不動則不伺也」: 神煞 act on moving lines only (9 and 6 are the moving digits).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from bot.console import ConsoleSession
from bot.i18n import gettext, term
from engine.calendar import DayStart, four_pillars
from engine.core.cycle import Branch, GanZhi
from engine.liuyao import build, cast_manual
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

WU_DINGMAO = datetime(2026, 6, 22, 3, 0, tzinfo=UTC)  # 12:00 in Seoul: month 午, day 丁卯
WU_JIAZI = datetime(2026, 6, 19, 3, 0, tzinfo=UTC)  # month 午, day 甲子
ZI_JIASHEN = datetime(2027, 1, 5, 3, 0, tzinfo=UTC)  # month 子, day 甲申
LAWSUIT = {"ko": "소송", "lzh": "詞訟"}  # the category's names (engine/liuyao/data/categories.json)


def _month_day(at: datetime) -> tuple[str, str]:
    p = four_pillars(at.astimezone(ZoneInfo("Asia/Seoul")), DayStart.parse("23:00"))
    return p.month.branch.char, p.day.chars


def test_the_clocks_stand_on_the_days_of_the_examples():
    assert _month_day(WU_DINGMAO) == ("午", "丁卯")
    assert _month_day(WU_JIAZI) == ("午", "甲子")
    assert _month_day(ZI_JIASHEN) == ("子", "甲申")


def _row(text: str, najia: str) -> str:
    return next(line for line in text.splitlines() if najia in line)


def _line_of(text: str, n: int, lang: str) -> str:
    """The strength line of line ``n`` (opened by its name: 상효 / 上爻)."""
    name = gettext(lang, "liuyao.use.lines", n=n)
    return next(line for line in text.splitlines() if line.startswith(name + " "))


def _lines_with(text: str, *words: str) -> list[str]:
    return [line for line in text.splitlines() if all(w in line for w in words)]


def _check_brief(text: str, lang: str) -> None:
    assert len(text) <= 1500, len(text)  # one phone screen
    # the chart rows read in 한글 in ko (one syllable a character: the grid keeps its columns)
    shi, ying = term(lang, "世"), term(lang, "應")
    assert shi in _row(text, term(lang, "兄弟") + term(lang, "戊子"))
    assert ying in _row(text, term(lang, "妻財") + term(lang, "戊午"))
    # every line with its strength, top line first
    strengths = [_line_of(text, n, lang) for n in range(6, 0, -1)]
    assert all(term(lang, t) in strengths[0] for t in ("囚", "月破"))  # the 世 子: 囚 in 午, 子午沖
    assert term(lang, "旬空") in strengths[1]  # 戌: 丁卯 → 甲子旬 → 戌亥 空
    assert term(lang, "旺") in strengths[3]  # 午: 火 in a 火 month
    assert (
        gettext(lang, "chat.liuyao.weak") in strengths[0]
        and gettext(lang, "chat.liuyao.strong") in strengths[3]
    )
    # the one-line verdict: 凶, the 用神 官鬼 辰 on line 2
    [verdict] = _lines_with(text, term(lang, "凶"), term(lang, "官鬼"), term(lang, "辰"))
    assert gettext(lang, "liuyao.use.lines", n=2) in verdict


def _check_verdict(text: str, lang: str) -> None:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == len(set(lines)), "no line repeats another"
    # 000:39 「若世刑而大凶也」: the 世 子 刑ed (by 日卯), 大凶 — in ko said as a sentence (issue 33)
    said = (
        (term(lang, "三刑"), term(lang, "世"), term(lang, "子"), term(lang, "大凶"))
        if lang == "lzh"
        else ("세효 자", "형(刑)을 받음", "크게 흉함(大凶)")
    )
    assert _lines_with(text, *said)
    assert term(lang, "卯") in text
    assert gettext(lang, "chat.liuyao.basis") in text  # the printed caveat
    assert "000:39" not in text and "seed" not in text  # sources as the reader names them


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_liuyao_pages_in_place_and_after_a_restart(tg, tmp_path, lang):
    db, chat = str(tmp_path / "db.sqlite"), 51
    async with telegram_at(tg, db, WU_DINGMAO, lang) as run:
        [first] = await ask(tg, run, f"/liuyao 878878 {LAWSUIT[lang]}", chat, language_code=lang)
        shown = visible_text(first.html, "HTML")
        _check_brief(shown, lang)
        keys = buttons(first)
        assert [page_of(b) for b in keys] == ["brief", "verdict", "stars"]
        assert all(len(b["callback_data"].encode()) <= 64 for b in keys)
        _, verdict = await press(tg, run, keys[1], first.result, chat, language_code=lang)
        _check_verdict(verdict, lang)
        _, stars = await press(tg, run, keys[2], first.result, chat, language_code=lang)
        assert gettext(lang, "chat.liuyao.no_moving") in stars  # 878878: no 6 or 9, no moving line
        _, back = await press(tg, run, keys[0], first.result, chat, language_code=lang)
        _check_brief(back, lang)
    async with telegram_at(tg, db, WU_DINGMAO, lang) as run:  # a new process on the same database
        _, again = await press(tg, run, keys[1], first.result, chat, language_code=lang)
        _check_verdict(again, lang)


async def test_telegram_group_reply_answers_the_asker_and_another_member_browses(tg, tmp_path):
    group = -100919
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), WU_DINGMAO) as run:
        update = tg.user_says("/liuyao 878878 소송", chat_id=group, user_id=701, chat_type="supergroup")
        await run.telegram.wait_handled(update["update_id"], 30)
        [first] = tg.sent_to(group)
        assert first.params["reply_parameters"]["message_id"] == update["message"]["message_id"]
        verdict_key = next(b for b in buttons(first) if page_of(b) == "verdict")
        _, verdict = await press(
            tg, run, verdict_key, first.result, group, user_id=702, chat_type="supergroup"
        )
        _check_verdict(verdict, "ko")


async def test_a_different_use_god_changes_the_verdict_page(tg, tmp_path):
    chat = 52
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), WU_DINGMAO) as run:
        seen = {}
        for use in ("소송", "財"):
            [first] = await ask(tg, run, f"/liuyao 878878 {use}", chat)
            key = next(b for b in buttons(first) if page_of(b) == "verdict")
            _, seen[use] = await press(tg, run, key, first.result, chat)
        assert seen["소송"] != seen["財"]
        lawsuit, wealth = (s.splitlines()[1] for s in (seen["소송"], seen["財"]))  # the conclusion line
        assert term("ko", "官鬼") in lawsuit and term("ko", "辰") in lawsuit
        assert term("ko", "妻財") in wealth and term("ko", "午") in wealth and "3효" in wealth
        assert not _lines_with(seen["財"], term("ko", "大凶"))  # 世刑 is 大凶 only when 官克世 in a lawsuit


def _moving_and_static_stars(digits: str, month: str, day: str) -> tuple[set[str], set[str]]:
    reading = build(cast_manual(digits), Branch.from_char(month), GanZhi.parse(day))
    moving = {m for ln in reading.lines if ln.moving for m in ln.marks}
    static = {m for ln in reading.lines if not ln.moving for m in ln.marks}
    return moving, static - moving


_FOLD = re.compile(r"[()（）·]")


def _star_names(page: str) -> set[str]:
    """The names a 神煞 page lists (``name · lines — meaning``), as characters (a ko 한글(漢字) gives its 漢字)."""
    out = set()
    for line in page.splitlines():
        if " · " not in line or "—" not in line:
            continue
        name = line.split(" · ", 1)[0].strip()
        m = re.fullmatch(r"[^(]*\((.+)\)", name)
        out.add(_FOLD.sub("", m.group(1) if m else name))
    return out


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_discord_embed_pages_and_stars_only_on_moving_lines(tmp_path, lang):
    moving, static_only = _moving_and_static_stars("797979", "午", "丁卯")  # lines 2, 4, 6 move (the 9s)
    assert moving and static_only
    locale = {"ko": "ko", "lzh": "zh-TW"}[lang]
    async with (
        FakeDiscord(ack_deadline=3.0, require_alt_text=True) as dc,
        discord_at(dc, str(tmp_path / "db.sqlite"), WU_DINGMAO),
    ):
        inter = await dc.slash("liuyao", {"lines": f"878878 {LAWSUIT[lang]}"}, locale=locale)
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        [embed] = first["embeds"]
        assert embed["title"].startswith(gettext(lang, "bot.liuyao.title"))
        assert embed["footer"]["text"].startswith(gettext(lang, "liuyao.options"))
        _check_brief(embed["description"], lang)
        assert [page_of(b) for b in components(first)] == ["brief", "verdict", "stars"]
        verdict = await press_component(dc, first, "verdict", user_id=dc.owner_id, locale=locale)  # a member
        _check_verdict(verdict["description"].replace("\\", ""), lang)

        inter = await dc.slash("liuyao", {"lines": "797979"}, locale=locale)
        [second] = await dc.wait_followups(inter, 1, timeout=15)
        stars = await press_component(dc, second, "stars", user_id=dc.user_id, locale=locale)
        shown = _star_names(stars["description"].replace("\\", ""))
        assert shown == {_FOLD.sub("", n) for n in moving}  # 「各伺其動，不動則不伺」
        assert not shown & {_FOLD.sub("", n) for n in static_only}


async def test_console_pages_by_number_and_name_and_the_seed_cases(ctx, clock):
    session = ConsoleSession(ctx)
    clock.set(WU_DINGMAO)
    _check_brief(await session.answer("/liuyao 878878 소송"), "ko")
    _check_verdict(await session.answer("2"), "ko")
    assert gettext("ko", "chat.liuyao.no_moving") in await session.answer("神煞")

    # 000:47 小畜: the 用 辰 (line 3) harmed by 卯 on line 6 — a 克害 (卯 木 克 辰 土)
    clock.set(WU_JIAZI)
    await session.answer("/liuyao 777877 妻財")
    verdict = await session.answer("斷")
    assert _lines_with(verdict, term("ko", "克害"), term("ko", "辰"), "3효", "상효")

    # 000:11: a woman asking of her husband — 助鬼傷身 holds and is 反吉
    clock.set(ZI_JIASHEN)
    await session.answer("/liuyao 787787 husband")
    verdict = await session.answer("2")
    assert _lines_with(verdict, term("ko", "反吉"), term("ko", "助鬼傷身"))

    await session.answer("/lang lzh")
    clock.set(WU_DINGMAO)
    await session.answer("/liuyao 878878 詞訟")
    _check_verdict(await session.answer("斷"), "lzh")


async def test_a_row_stored_before_the_pages_still_renders(say, ctx):
    """Rows written before #19 lack strength/verdict: every page still renders (what the row has)."""
    from bot.views import pages_of, render

    r = await say("/liuyao 878878")
    old = {k: v for k, v in r.context.items() if k not in ("verdict", "options")}
    old["lines"] = [{k: v for k, v in ln.items() if k not in ("strength", "strong", "transforms")}
                    for ln in old["lines"]]  # fmt: skip
    stored = type(r)(view=r.view, lang="ko", context=old)
    for page in pages_of("liuyao"):
        text = render(stored, "telegram", page=page)
        assert text and "None" not in text
    assert gettext("ko", "chat.liuyao.no_verdict") in render(stored, "console", page="verdict")


def test_a_literal_term_is_given_once_in_every_render_not_only_the_first():
    """``"變" | both`` in a template (the 斷 page names a 變 agent so) must not be folded when the template is
    compiled: it would mark 變 as given inside whichever reply compiled it, and that reply alone would then
    print the next 變 without its characters (a stored row shown again would differ from the first reply)."""
    from bot.i18n import one_reply
    from bot.views import channel_environment

    env = channel_environment("ko", "console")
    with one_reply():  # compiled inside the first reply, as a template the first /liuyao after a start loads
        template = env.from_string('{{ "變" | both }} {{ x | both }}')
        first = template.render(x="變")
    with one_reply():
        second = template.render(x="變")
    assert first == second == f"{term('ko', '變')}(變) {term('ko', '變')}"
