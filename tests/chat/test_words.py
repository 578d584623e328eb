"""Issue #13 points 5 and 6: a setting that cannot work is refused when set, in chat words; an error blames
the wrong word; /help cast lists seed 002's 類神 categories; no chat reply names a CLI flag."""

from __future__ import annotations

import re

import pytest

from bot.i18n import gettext, term
from bot.views import pages_of, render
from engine.liuren import leishen


async def test_sun_daynight_without_a_place_is_refused_when_set(say):
    refused = await say("/settings liuren.daynight sun")
    assert refused.view == "error" and refused.context["code"] == "chat.error.sun_needs_place"
    after = await say("/cast 庚辰 8")  # nothing was saved: the cast still works
    assert after.view == "cast"
    await say("/place 서울")
    accepted = await say("/settings liuren.daynight sun")
    assert accepted.view == "settings"


async def test_cast_now_with_a_wrong_word_names_that_word(say):
    """財 is a word of the lexicon now (求財, issue 32); a word it does not know is named, with the closest."""
    assert (await say("/cast now 財")).context["asked"]["topic"] == "求財"
    r = await say("/cast now 財寶庫<b>")
    assert r.view == "choose" and r.context["word"] == "財寶庫<b>"
    text = render(r, "telegram")
    assert "「財寶庫&lt;b&gt;」" in text and "/cast now" in text


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_help_cast_lists_the_leishen_categories(say, lang):
    r = await say("/help cast", lang_hint=lang)
    text = render(r, "console")
    for name in leishen.categories():  # seed 002: 天文 … 飛潛動植
        assert name in text
        if lang == "ko":
            assert term("ko", name) in text


FLAG = re.compile(r"(?<![\w-])--[a-z]")


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_no_chat_reply_names_a_cli_flag(say, lang):
    await say(f"/lang {lang}")
    lines = [
        "/start", "/help", "/help cast", "/cast 庚辰 8", "/cast now 財", "/cast", "/liuyao", "/shensha",
        "/shensha 甲子", "/today", "/settings", "/settings liuren.daynight sun", "/cast 甲乙", "/qizheng",
        "/qizheng 1990-05-01 10:30 126.98E 37.57N", "/history", "/tz", "/place", "/nosuch",
    ]  # fmt: skip
    for line in lines:
        r = await say(line)
        for channel in ("telegram", "discord", "console"):
            for page in pages_of(r.view) or (None,):
                text = render(r, channel, page=page)
                assert not FLAG.search(text), (line, channel, page, text)
    assert gettext(lang, "chat.error.sun_needs_place")


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_start_is_a_short_welcome_with_three_examples(say, lang):
    text = render(await say("/start", lang_hint=lang), "console")
    examples = [line for line in text.splitlines() if line.startswith("/")]
    assert len(examples) == 3 and examples[0].startswith("/cast 庚辰 8")
    assert len(text) < len(render(await say("/help", lang_hint=lang), "console"))
