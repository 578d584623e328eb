"""Issue 33 gap 2 in chat: the 月建 of a cast by day (``/cast 甲子 亥將 午時 子月``), as the CLI's ``--month``.

A cast for a date has its 月建 (the month pillar); a cast by day (干支 and 局, or 月將 and 占時) has none, so the
類神 that read the month — seed 002 類神 天文 「月建屬月」, 數目 「旺相多，休囚少」, 顏色 「旺相鮮明，休囚淡舊」 —
and the 旺相休囚 of each position were out of a chat user's reach. A month word after the day (寅月, 인월: a
branch and 月, read as ``/shensha`` reads its month) gives it; a cast for a moment keeps its own and refuses one.

Expected values by the rule, by hand: in 子月 (winter) 水 is 旺, 木 相, 金 休, 土 囚, 火 死; so a position whose
天盤 branch is 亥子 or 寅卯 reads 「旺相多」, 申酉 辰戌丑未 巳午 「休囚少」; 天文 「月」 where the branch is 子.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.features.base import CommandError
from bot.features.liuren.command import split_month
from bot.i18n import gettext, typeset
from engine.core.cycle import Branch, GanZhi
from engine.liuren import build_chart, reading
from tests.chat._views import (
    ask,
    buttons,
    console_in,
    discord_at,
    page_of,
    press,
    press_component,
    telegram_at,
)
from tests.fakes.discord import FakeDiscord
from tests.fakes.telegram import visible_text

AT = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
# 子月 (winter): the element of a branch → 旺相 (many) or 休囚死 (few), seed 002 數目
WINTER_MANY = frozenset("亥子寅卯")
LINE = "/cast 甲子 亥將 午時 子月 數目"


def _board() -> tuple[tuple[str, str], ...]:
    """(role, 天盤 branch) of the positions a reading reads, on the board of 甲子 亥將 午時."""
    chart = build_chart(GanZhi.parse("甲子"), Branch.HAI, Branch.WU)
    t = chart.transmissions
    return (
        ("initial", t[0].branch.char),
        ("middle", t[1].branch.char),
        ("final", t[2].branch.char),
        ("gan_upper", chart.lessons[0].upper.char),
        ("zhi_upper", chart.lessons[2].upper.char),
        ("hour", chart.hour.char),
    )


def _leishen_items(text: str, lang: str) -> list[list[str]]:
    """The 類神 each reading line lists after its label, line by line."""
    label = gettext(lang, "liuren_reading.leishen")
    out = []
    for line in text.replace("\\", "").splitlines():
        for sep in (f"{label}:", f"{label}："):
            if sep in line:
                out.append(line.rsplit(sep, 1)[1].strip().split(" · "))
    return out


def test_split_month_takes_a_branch_and_month_after_the_day():
    assert split_month(("甲子", "亥將", "午時", "寅月")) == (("甲子", "亥將", "午時"), Branch.YIN)
    assert split_month(("庚辰", "인월", "8")) == (("庚辰", "8"), Branch.YIN)
    assert split_month(("갑자", "해", "오", "자월")) == (("갑자", "해", "오"), Branch.ZI)
    for line in (
        ("庚辰", "8"),
        ("甲子", "亥將", "午時"),
        ("寅月",),
        ("now", "天文"),
        ("2026-03-05", "10:00"),
    ):
        assert split_month(line) == (line, None)  # the day itself is never a month
    with pytest.raises(CommandError) as two:
        split_month(("甲子", "8", "寅月", "卯月"))
    assert two.value.code == "bot.error.cast_usage"


async def test_a_cast_by_day_with_a_month_reads_the_months_leishen(say):
    r = await say(LINE)
    assert r.view == "cast"
    composed = next(x for x in r.context["readings"] if x["kind"] == "composed")
    assert composed["month"] == "子"
    lzh = reading.glossary("lzh")
    for role, branch in _board():
        position = next(p for p in composed["positions"] if p["role"] == role)
        texts = {lzh[f"leishen.{h['entry']}"]["text"] for h in position["leishen"]}
        assert ("旺相多" if branch in WINTER_MANY else "休囚少") in texts, (role, branch)
        assert ("休囚少" if branch in WINTER_MANY else "旺相多") not in texts, (role, branch)
    # the CLI's --month reads the same (bot/cli/cast.py readings_for: the engine with the month given)
    chart = build_chart(GanZhi.parse("甲子"), Branch.HAI, Branch.WU)
    assert r.context["readings"] == [x.to_json() for x in reading.read(chart, "數目", month=Branch.ZI)]
    # without the month word: no 旺相休囚 (a board has no 月建), as before
    bare = await say("/cast 甲子 亥將 午時 數目")
    plain = next(x for x in bare.context["readings"] if x["kind"] == "composed")
    assert plain["month"] is None
    assert not any(h["by"] == "vitality" for p in plain["positions"] for h in p["leishen"])
    # 天文 「月建屬月」: 月 where the 天盤 branch is the 月建 (子)
    sky = await say("/cast 甲子 亥將 午時 子月 天文")
    sky_read = next(x for x in sky.context["readings"] if x["kind"] == "composed")
    for role, branch in _board():
        position = next(p for p in sky_read["positions"] if p["role"] == role)
        assert ("tianwen.3" in {h["entry"] for h in position["leishen"]}) == (branch == "子"), role


async def test_the_month_is_kept_with_the_cast_and_refused_with_a_moment(say, ctx, clock):
    clock.set(AT)
    first = await say(LINE)
    shown = await say(f"/show {first.context['no']}")
    assert shown.context["readings"] == first.context["readings"]
    ju = await say("/cast 庚辰 8 인월 數目")
    assert next(x for x in ju.context["readings"] if x["kind"] == "composed")["month"] == "寅"
    for line in ("/cast now 寅月", "/cast 2026-03-05 10:00 寅月 天文", "/cast 10:00 寅月"):
        refused = await say(line)
        assert (refused.view, refused.context["code"]) == ("error", "bot.error.cast_month"), line
    assert (await say("/cast 甲子 8 寅月 卯月")).context["code"] == "bot.error.cast_usage"


def _want(lang: str) -> tuple[list[str], tuple[str, str]]:
    """What each position's 類神 says of the number in 子月 (in order: 初 中 末 干上 支上 占時), and the two texts."""
    many, few = (typeset(lang, reading.glossary(lang)[f"leishen.shumu.{n}"]["text"]) for n in (12, 13))
    return [many if branch in WINTER_MANY else few for _, branch in _board()], (many, few)


def _shown(text: str, lang: str) -> list[str]:
    want, both = _want(lang)
    rows = [row for row in _leishen_items(text, lang) if set(row) & set(both)]
    return [next(x for x in row if x in both) for row in rows]


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_console_shows_the_months_leishen_on_the_reading_page(ctx, clock, lang):
    clock.set(AT)
    session = await console_in(ctx, lang)
    await session.answer(LINE)
    assert _shown(await session.answer("2"), lang) == _want(lang)[0]  # page 2: the reading
    assert "寅月" in gettext(lang, "bot.usage.cast")  # /help cast says how


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_and_discord_show_the_months_leishen(tg, tmp_path, lang):
    chat = 5401
    async with telegram_at(tg, str(tmp_path / "tg.sqlite"), AT, lang) as run:
        [first] = await ask(tg, run, LINE, chat, language_code=lang)
        read = next(b for b in buttons(first) if page_of(b) == "read")
        _, text = await press(tg, run, read, first.result, chat)
        assert _shown(text, lang) == _want(lang)[0]
        [refused] = await ask(tg, run, "/cast now 子月", chat, language_code=lang)
        assert gettext(lang, "bot.error.cast_month") in visible_text(refused.html, "HTML")
    locale = {"ko": "ko", "lzh": "zh-TW"}[lang]
    async with FakeDiscord(ack_deadline=3.0) as dc, discord_at(dc, str(tmp_path / "dc.sqlite"), AT, lang):
        inter = await dc.slash("cast", {"when": "甲子 亥將 午時 子月", "category": "數目"}, locale=locale)
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        embed = await press_component(dc, first, "read", user_id=dc.user_id, locale=locale)
        assert _shown(str(embed.get("description", "")), lang) == _want(lang)[0]
