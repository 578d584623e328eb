"""Issue 32 item 1 in chat: a word of one's own reaches the same 用神 / topic as its canonical name, in the
console, on Telegram (the real python-telegram-bot against the fake Bot API) and on Discord (discord.py against
the fake gateway), in ko and lzh; an unknown word is answered with the closest categories, to type or press.

Expected values are the seeds': 000:39 「官克世而問訟」 (訟 → the lawsuit category, 用 官鬼) and its 注
「男娶謂財、女嫁謂官」 (婚姻 in 六爻 is the asker's choice between 妻財 and 官鬼); seed 003's topic names
(求財, 婚姻, 爭訟 …); seed 002's 「凡占天時晴雨，皆參此門取象」 (天時 → the 類神 heading 天文).
"""

from __future__ import annotations

import pytest

from bot.commands import word_buttons
from bot.i18n import gettext
from bot.seal import unsealed
from bot.views import render
from tests.adapters.conftest import running, tg_settings
from tests.chat._views import ask as _ask
from tests.chat._views import buttons as _buttons
from tests.chat._views import components
from tests.conftest import discord_bot
from tests.fakes.telegram import visible_text
from tests.lexicon.test_lexicon import SEED003_TOPICS


def _use(r):
    assert r.view == "liuyao", r.context
    return r.context["use"]


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize(
    ("word", "canonical"),
    [
        ("처재", "妻財"), ("妻財", "妻財"), ("관귀", "官鬼"), ("자손", "子孫"), ("형제효", "兄弟"), ("세", "世"),
        ("돈", "wealth"), ("재물", "wealth"), ("월급", "wealth"), ("직장", "career"), ("취직", "career"),
        ("시험", "career"), ("건강", "illness"), ("訟", "lawsuit"), ("官司", "lawsuit"), ("소송", "lawsuit"),
        ("아내", "wife"), ("남편", "husband"), ("여행", "travel"), ("분실", "loss"), ("이사", "home"),
    ],
)  # fmt: skip
async def test_liuyao_word_reaches_the_canonical_use(say, lang, word, canonical):
    by_word = await say(f"/liuyao 878878 {word}", lang_hint=lang)
    by_name = await say(f"/liuyao 878878 {canonical}", lang_hint=lang)
    assert _use(by_word) == _use(by_name)
    assert by_word.context["verdict"] == by_name.context["verdict"]
    assert by_word.context["asked"]["word"] == word


async def test_lawsuit_by_word_is_000_39s_category(say):
    use = _use(await say("/liuyao 878878 訟"))
    assert use["category"] == "lawsuit" and use["relative"] == "官鬼"  # 000:39 「官克世而問訟」


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_marriage_in_liuyao_asks_which(say, lang):
    """000:39 注「男娶謂財、女嫁謂官」: 婚姻 alone is answered with the two, 男娶 first."""
    r = await say("/liuyao 878878 婚姻", lang_hint=lang)
    assert r.view == "choose" and r.context["by_asker"]
    assert [c["target"] for c in r.context["choices"][:2]] == ["wife", "husband"]
    text = render(r, "console")
    assert "/liuyao 878878 " + ("男娶" if lang == "lzh" else "혼인(남자)") in text
    # the line shown is the line that works
    chosen = await say("/liuyao 878878 " + ("男娶" if lang == "lzh" else "혼인(남자)"), lang_hint=lang)
    assert _use(chosen)["relative"] == "妻財" and _use(chosen)["category"] == "wife"


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize(
    ("word", "topic", "heading"),
    [
        ("재물", "求財", None), ("돈", "求財", None), ("財", "求財", None), ("결혼", "婚姻", None),
        ("婚姻", "婚姻", None), ("訟", "爭訟", None), ("官司", "爭訟", None), ("날씨", "天時", "天文"),
        ("이사", "家宅", "宮室"), ("건강", "疾病", "臟腑"),
    ],
)  # fmt: skip
async def test_cast_word_reaches_the_topic(say, lang, word, topic, heading):
    by_word = await say(f"/cast 庚辰 8 {word}", lang_hint=lang)
    by_name = await say(f"/cast 庚辰 8 {topic}", lang_hint=lang)
    assert by_word.view == "cast" and by_word.context["asked"]["topic"] == topic
    assert by_word.context["category"] == by_name.context["category"] == heading
    assert by_word.context["readings"] == by_name.context["readings"]
    shown = render(by_word, "console")
    assert gettext(lang, "chat.cast.asked").split("{")[0] in shown and topic in shown


async def test_a_heading_by_name_stays_a_heading(say):
    r = await say("/cast 庚辰 8 천문")
    assert r.context["category"] == "天文" and r.context["asked"] is None


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_an_unknown_word_is_answered_with_the_closest(say, lang):
    r = await say("/cast now 겷혼", lang_hint=lang)
    assert r.view == "choose" and r.context["choices"][0]["target"] == "婚姻"
    text = render(r, "console")
    assert "「겷혼」" in text and "/cast now " + ("婚姻" if lang == "lzh" else "혼인") in text
    liuyao = await say("/liuyao 소숑", lang_hint=lang)
    assert liuyao.view == "choose" and liuyao.context["choices"][0]["target"] == "lawsuit"


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_help_lists_the_topics(say, lang):
    cast = render(await say("/help cast", lang_hint=lang), "console")
    for topic in SEED003_TOPICS:
        assert topic in cast
    liuyao = render(await say("/help liuyao", lang_hint=lang), "console")
    for name in ("妻財", "官鬼", "詞訟", "求財", "男娶", "女嫁"):
        assert name in liuyao
    if lang == "ko":
        assert "처재" in liuyao and "구재" in cast


# ---- Telegram ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_words_and_choice_buttons(tg, tmp_path, lang):
    chat = 71
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite"), lang=lang), ready=tg) as run:
        [lawsuit] = await _ask(tg, run, "/cast 庚辰 8 訟", chat, language_code=lang)
        text = visible_text(lawsuit.result.get("caption") or lawsuit.result.get("text"), "HTML")
        assert "爭訟" in text
        [money] = await _ask(tg, run, "/liuyao 878878 돈", chat, language_code=lang)
        assert money.method in ("sendMessage", "sendPhoto")
        [choose] = await _ask(tg, run, "/liuyao 878878 결혼", chat, language_code=lang)
        buttons = _buttons(choose)
        lines = [word_buttons.decode(unsealed(b["callback_data"])) for b in buttons]
        assert lines[:2] == ["/liuyao 878878 wife", "/liuyao 878878 husband"]
        assert all(len(b["callback_data"].encode()) <= 64 for b in buttons)
        before = len(tg.sent_to(chat))
        update = tg.callback_query(
            buttons[1]["callback_data"], chat_id=chat, message_id=choose.result["message_id"],
            message=choose.result, language_code=lang,
        )  # fmt: skip
        await run.telegram.wait_handled(update["update_id"], 30)
        answered = [c for c in tg.calls if c.method == "answerCallbackQuery"]
        assert answered and answered[-1].params["callback_query_id"] == update["callback_query"]["id"]
        [cast] = tg.sent_to(chat)[before:]
        shown = visible_text(cast.result.get("caption") or cast.result.get("text"), "HTML")
        assert "官鬼" in shown  # 女嫁謂官 (000:39 注)


# ---- Discord -------------------------------------------------------------------------------------------

pytestmark_discord = pytest.mark.usefixtures("restore_discord_endpoints")


def _command(dc, name):
    return next(c for cmds in dc.synced.values() for c in cmds if c["name"] == name)


def _components(message: dict) -> list[dict]:
    return components(message)  # but the reading's actions


@pytestmark_discord
async def test_discord_autocomplete_offers_the_topics_and_the_lawsuit(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        await dc.wait_synced()
        use = next(o for o in _command(dc, "liuyao")["options"] if o["name"] == "use")
        assert use.get("autocomplete") and not use.get("choices")
        shown = await dc.autocomplete("liuyao", {"use": ""}, "use")
        await dc.wait_acked(shown, timeout=10)
        values = [c["value"] for c in shown.choices]
        assert {"妻財", "官鬼", "世", "lawsuit", "wealth", "petition"} <= set(values) and len(values) <= 25
        petition = await dc.autocomplete("liuyao", {"use": "疏"}, "use", locale="zh-TW")
        await dc.wait_acked(petition, timeout=10)
        assert petition.choices[0] == {"name": "疏", "value": "petition"}  # 000:39 「五克世而問疏」
        typed = await dc.autocomplete("liuyao", {"use": "소송"}, "use")
        await dc.wait_acked(typed, timeout=10)
        assert typed.choices[0]["value"] == "lawsuit"  # 000:39's lawsuit rule, reachable at last
        topic = await dc.autocomplete("cast", {"category": "결"}, "category", locale="zh-TW")
        await dc.wait_acked(topic, timeout=10)
        assert topic.choices[0]["value"] == "婚姻"
        every = await dc.autocomplete("cast", {"category": ""}, "category")
        await dc.wait_acked(every, timeout=10)
        assert {"求財", "婚姻", "爭訟", "天文", "飛潛動植"} <= {c["value"] for c in every.choices}


@pytestmark_discord
async def test_discord_words_and_a_choice_button(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter = await dc.slash("liuyao", {"lines": "878878", "use": "돈"})
        [money] = await dc.wait_followups(inter, 1, timeout=10)
        assert gettext("ko", "liuyao.category.wealth") in str(money)
        inter = await dc.slash("cast", {"when": "庚辰 8", "category": "官司"}, locale="zh-TW")
        [lawsuit] = await dc.wait_followups(inter, 1, timeout=10)
        assert "爭訟" in str(lawsuit)
        inter = await dc.slash("cast", {"when": "庚辰 8", "category": "어쩌구"})
        [choose] = await dc.wait_followups(inter, 1, timeout=10)
        buttons = _components(choose)
        assert buttons and all(word_buttons.decode(unsealed(b["custom_id"])) for b in buttons)
        pressed = await dc.press(choose, buttons[0]["custom_id"], user_id=dc.user_id)
        [cast] = await dc.wait_followups(pressed, 1, timeout=10)
        assert pressed.acked_at - pressed.created_at < 3.0
        assert word_buttons.decode(unsealed(buttons[0]["custom_id"])) == "/cast 庚辰 8 天時"
        assert "天時" in str(cast)


def test_a_cast_line_never_pays_for_the_lexicons_similarity(monkeypatch):
    """``/cast now`` (and any line that is a cast) is answered without comparing ``now`` with every word of the
    lexicon (issue #31 item 8: that comparison, ~10 ms of difflib, ran on every ``/cast now``); a word that is
    no cast still gets its closest topics."""
    from bot.features.liuren import command as liuren_command
    from engine import lexicon as lexicon_module

    calls: list[str] = []
    real = lexicon_module.suggest

    def counted(word: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(word)
        return real(word, *args, **kwargs)

    monkeypatch.setattr(lexicon_module, "suggest", counted)
    for line in (("now",), ("2026-12-07", "10:00"), ("庚辰", "8"), ("지금",)):
        assert liuren_command.unknown_topic(line) is None, line
    assert calls == []
    assert liuren_command.unknown_topic(("now", "재뮬")) == (
        "재뮬",
        ("now",),
    )  # a typo of 재물: topics offered
    assert liuren_command.unknown_topic(("재뮬",)) == ("재뮬", ())
    assert calls == ["재뮬"]
