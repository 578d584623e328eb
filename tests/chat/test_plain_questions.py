"""A question in one's own words (「오늘 재물운 어때?」): on the console and in a private Telegram chat a plain
message naming a topic gets the reply of the command answering it (``bot.features.question``: ``/cast now
<word>`` — the 大六壬 lesson of the moment of asking, the classical 占時 —, ``/today <word>`` when it asks about
today (오늘, 今日), ``/liuyao <word>`` when it names 六爻); a message naming no topic gets the one-line hint; in
a group only a message that mentions the bot is read, other plain talk stays unanswered.

Expected topics are the lexicon data's seed mappings (engine/lexicon/data/lexicon.json: each word with the
topic of seed 003's topic lines, and the topic's own Korean name).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.console import ConsoleSession
from bot.features.question import is_question, question_command
from bot.i18n import gettext
from tests.adapters.conftest import running, tg_settings
from tests.chat._views import ask

LEXICON = json.loads(Path("engine/lexicon/data/lexicon.json").read_text(encoding="utf-8"))


def topic_of(word: str) -> str:
    """The 大六壬 topic the data's seed line gives ``word``."""
    [entry] = [e for e in LEXICON["words"] if word in e["ko"] or word in e["lzh"]]
    return str(entry["liuren"])


def names(topic: str, lang: str) -> list[str]:
    """The topic's names a first screen in ``lang`` shows: its seed name, and in ko its reading too."""
    return [topic, LEXICON["topics"][topic]["ko"]] if lang == "ko" else [topic]


def body(text: str) -> str:
    """A console answer without its title line (the cast's number) and its last three lines (they name it)."""
    return "\n".join(text.splitlines()[1:-3])


# ---- the rule ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "line"),
    [
        ("오늘 재물운 어때?", "/today 재물"),  # today's reading, read for 求財
        ("내일 면접 붙을까", "/cast now 면접"),  # 내일 does not move the 占時
        ("今日出行吉否", "/today 出行"),
        ("明日出行吉否", "/cast now 出行"),
        ("결혼해도 될까요", "/cast now 결혼"),
        ("어머니 병이 나을까", "/cast now 병"),
        ("육효로 돈 들어올지 봐줘", "/liuyao 돈"),  # 六爻 named: coins cast now
        ("卦問財", "/liuyao 財"),
        ("주역 괘 하나 뽑아줘", "/liuyao"),  # 六爻 without a 用神
        ("안녕하세요", None),
        ("돈까스 먹을까", None),
        ("/cast now 재물", None),  # a command is not a question
    ],
)
def test_a_sentence_becomes_the_command_that_answers_it(sentence, line):
    assert question_command(sentence) == line


@pytest.mark.parametrize(
    ("line", "question"),
    [
        ("오늘 재물운 어때?", True),  # 오늘 is /today's alias, but 어때 is no argument
        ("내일 면접 붙을까", True),  # no command word at all
        ("점 봐줘 재물", True),
        ("cast 庚辰 8 재물", False),  # a command line typed without its /
        ("점 庚辰 8 재물", False),
        ("매일 07:30 재물", False),
        ("육효 돈", False),
        ("오늘", False),
        ("메모 1 맞음 돈이 들어왔다", False),  # /note takes free text
        ("장소 서울", False),  # names no topic
        ("/cast now 재물", False),
    ],
)
def test_a_bare_console_line_is_a_question_only_when_it_is_a_sentence(line, question):
    assert is_question(line) is question


# ---- the console ------------------------------------------------------------------------------------------


def topic_of_row(row) -> str | None:
    """The topic a history row was read for: a /cast's asked topic, a /today reading's topic."""
    return row.inputs["asked"]["topic"] if row.kind == "cast" else row.inputs["topic"]


QUESTIONS = [
    ("ko", "오늘 재물운 어때?", "재물", "/today 재물"),
    ("ko", "내일 면접 붙을까", "면접", "/cast now 면접"),
    ("lzh", "今日出行吉否", "出行", "/today 出行"),
    ("lzh", "明日出行吉否", "出行", "/cast now 出行"),
]


@pytest.mark.parametrize(("lang", "sentence", "word", "line"), QUESTIONS)
async def test_console_a_plain_question_gets_the_topic_reading(ctx, lang, sentence, word, line):
    session = ConsoleSession(ctx)
    await session.answer(f"/lang {lang}")
    shown = await session.answer(sentence)
    first_lines = "\n".join(shown.splitlines()[:4])
    assert all(name in first_lines for name in names(topic_of(word), lang)), shown
    [row] = await ctx.storage.list_history("console:local")
    assert row.kind == ("daily" if line.startswith("/today") else "cast")
    assert topic_of_row(row) == topic_of(word)
    typed = await ConsoleSession(ctx).answer(line)  # the command, at the same moment
    assert body(shown) == body(typed)
    assert await session.answer("2") != gettext(lang, "chat.hint")  # its pages follow, as the command's do


async def test_console_today_with_a_topic_word_reads_the_day_for_it(ctx):
    session = ConsoleSession(ctx)
    plain = await session.answer("/today")
    for word in ("재물", "求財", "돈"):
        shown = await session.answer(f"오늘 {word}")  # /today's alias and a topic word: a command line
        assert all(name in shown for name in names(topic_of("재물"), "ko")), shown
        assert shown != plain
    rows = await ctx.storage.list_history("console:local")
    assert [r.inputs["topic"] for r in rows] == [topic_of("재물")] * 3 + [None]


async def test_console_a_command_typed_without_its_slash_still_is_one(ctx):
    session = ConsoleSession(ctx)
    shown = await session.answer("cast 庚辰 8 재물")
    assert "축귀인" in shown and all(name in shown for name in names(topic_of("재물"), "ko"))
    [row] = await ctx.storage.list_history("console:local")
    assert row.inputs["day"] == "庚辰" and row.inputs["ju"] == 8
    today = await session.answer("오늘")  # /today's alias alone
    assert (await ctx.storage.list_history("console:local"))[0].kind == "daily", today


async def test_console_today_with_a_word_close_to_the_topics_offers_the_closest(ctx):
    close = await ConsoleSession(ctx).answer("/today 재물운세")  # close to the topics, naming none
    assert gettext("ko", "chat.choose.unknown", word="재물운세") in close
    assert f"/today {LEXICON['topics'][topic_of('재물')]['ko']}" in close  # the closest, with its line
    assert await ctx.storage.count_history("console:local") == 0


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_console_a_sentence_without_a_topic_gets_the_hint(ctx, lang):
    session = ConsoleSession(ctx)
    await session.answer(f"/lang {lang}")
    assert await session.answer("기분이 좋네") == gettext(lang, "chat.hint")
    assert await session.answer("吾心甚喜") == gettext(lang, "chat.hint")
    assert await ctx.storage.count_history("console:local") == 0


# ---- Telegram (the real python-telegram-bot against the fake Bot API) -------------------------------------


@pytest.mark.parametrize(("lang", "sentence", "word", "line"), QUESTIONS)
async def test_telegram_a_private_plain_question_gets_the_topic_reading(
    tg, tmp_path, lang, sentence, word, line
):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite"), lang=lang), ready=tg) as run:
        [first] = await ask(tg, run, sentence, 91, language_code=lang)
        shown = first.result.get("caption") or first.result["text"]
        assert all(name in shown for name in names(topic_of(word), lang)), shown
        assert first.params["reply_markup"]["inline_keyboard"]  # its page buttons
        [row] = await run.ctx.storage.list_history("telegram:91")
        assert row.kind == ("daily" if line.startswith("/today") else "cast")
        assert topic_of_row(row) == topic_of(word)
        [typed] = await ask(tg, run, line, 91, language_code=lang)  # the same command
        assert typed.method == first.method  # the chart picture with its caption, or the text, alike
        assert len(first.params["reply_markup"]["inline_keyboard"]) == len(
            typed.params["reply_markup"]["inline_keyboard"]
        )


async def test_telegram_no_topic_gets_the_hint_and_a_group_stays_quiet(tg, tmp_path):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        [hint] = await ask(tg, run, "기분이 좋네", 92)
        assert hint.result["text"] == gettext("ko", "chat.hint")
        [lzh] = await ask(tg, run, "吾心甚喜", 93, language_code="lzh")
        assert lzh.result["text"] == gettext("lzh", "chat.hint")
        group = -100999
        quiet = tg.user_says("오늘 재물운 어때?", chat_id=group, user_id=603, chat_type="supergroup")
        await run.telegram.wait_handled(quiet["update_id"], 20)
        assert tg.sent_to(group) == []
        assert await run.ctx.storage.count_history("telegram:603") == 0


async def test_telegram_a_question_that_mentions_the_bot_in_a_group_is_answered_there(tg, tmp_path):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        group = -100998
        update = tg.user_says(
            "@sikpan_bot 내일 면접 붙을까", chat_id=group, user_id=604, chat_type="supergroup"
        )
        await run.telegram.wait_handled(update["update_id"], 20)
        [answer] = tg.sent_to(group)
        shown = answer.result.get("caption") or answer.result["text"]
        assert all(name in shown for name in names(topic_of("면접"), "ko")), shown
        assert answer.params["reply_parameters"]["message_id"] == update["message"]["message_id"]
        [row] = await run.ctx.storage.list_history("telegram:604")
        assert row.kind == "cast" and topic_of_row(row) == topic_of("면접")


async def test_console_after_a_cast_a_sentence_is_a_new_question_and_a_word_reads_that_cast(ctx):
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    await session.answer("재물")  # issue 32: a topic word reads the cast in view, no new row
    assert await ctx.storage.count_history("console:local") == 1
    shown = await session.answer("내일 면접 붙을까")  # a sentence: a new question, cast at its moment
    [newest, _] = await ctx.storage.list_history("console:local")
    assert newest.inputs["mode"] == "now" and newest.inputs["asked"]["topic"] == topic_of("면접")
    assert all(name in shown for name in names(topic_of("면접"), "ko"))


async def test_console_after_a_cast_a_wenyan_sentence_without_spaces_is_a_new_question(ctx):
    session = ConsoleSession(ctx)
    await session.answer("/lang lzh")
    await session.answer("/cast 庚辰 8")
    shown = await session.answer("婚姻成否")  # 文言 has no spaces: one run of Hanja is a sentence, not a word
    assert await ctx.storage.count_history("console:local") == 2
    [newest, _] = await ctx.storage.list_history("console:local")
    assert newest.inputs["mode"] == "now" and newest.inputs["asked"]["topic"] == topic_of("婚姻")
    assert all(name in shown for name in names(topic_of("婚姻"), "lzh"))
