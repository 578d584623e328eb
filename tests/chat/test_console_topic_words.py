"""Issue 32 limit 1: on the console, after a cast, a topic is asked in one's own words — any word of the lexicon
(engine/lexicon/data/lexicon.json, ko and lzh) that ``/cast`` reads as a topic or a 類神 heading reads the SAME
stored cast for it (no new row), as its button would; a word close to the topics but naming none gets the
closest topics, as ``/cast now <word>`` answers it; page numbers and names keep working after it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.console import ConsoleSession
from bot.features.liuren.command import TOPIC_BUTTONS
from bot.i18n import gettext

LEXICON = json.loads(Path("engine/lexicon/data/lexicon.json").read_text(encoding="utf-8"))


def words_of(target: str, lang: str) -> list[str]:
    """The words of the lexicon data naming the 大六壬 ``target`` in ``lang`` (ko or lzh)."""
    return [w for row in LEXICON["words"] if row.get("liuren") == target for w in row[lang]]


def button_of(topic: str) -> str:
    return next(label for _, t, label in TOPIC_BUTTONS if t == topic)


def body(text: str) -> str:
    """A console answer without its title line (the cast's number) and its last three (the other pages, the
    other topics, the actions: they name the number and the page in view)."""
    return "\n".join(text.splitlines()[1:-3])


@pytest.mark.parametrize("topic", ["求財", "婚姻", "功名", "疾病"])
async def test_lexicon_words_read_the_cast_for_their_topic_as_its_button(ctx, topic):
    ko, lzh = words_of(topic, "ko"), words_of(topic, "lzh")
    assert ko and lzh  # the data names the topic in both languages
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    by_button = await session.answer(gettext("ko", button_of(topic)))  # the button's label (issue 32)
    for word in (*ko, *lzh):
        assert await session.answer(word) == by_button, word
    assert await ctx.storage.count_history("console:local") == 1  # the same row, read again: none added


async def test_a_topic_without_a_button_reads_as_the_cast_line_asks_it(ctx):
    """行人 and 天時 have no button; typed after a cast they read that cast as ``/cast 庚辰 8 <word>`` does."""
    for word in ("行人", "천시"):
        fresh = ConsoleSession(ctx)
        typed = await fresh.answer(f"/cast 庚辰 8 {word}")  # the chat parser, the word on the cast line
        session = ConsoleSession(ctx)
        await session.answer("/cast 庚辰 8")
        assert body(await session.answer(word)) == body(typed)


async def test_a_heading_typed_reads_the_cast_with_that_heading(ctx):
    typed = await ConsoleSession(ctx).answer("/cast 庚辰 8 천문")
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    assert body(await session.answer("天文")) == body(typed)


async def test_pages_after_a_topic_word_are_that_topics(ctx):
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    label = gettext("ko", button_of("婚姻"))
    await session.answer(label)
    by_button = await session.answer("5")  # the 근거 page read for 婚姻
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    await session.answer(words_of("婚姻", "ko")[0])
    shown = await session.answer("5")
    assert "婚姻" in shown and body(shown) == body(by_button)


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_an_unknown_word_close_to_the_topics_gets_the_closest_as_the_chat_does(ctx, lang):
    session = ConsoleSession(ctx)
    await session.answer(f"/lang {lang}")
    word = "재물운세<b>"  # close to 재물 (求財), known to none
    chat = await session.answer(f"/cast now {word}")  # what the chat answers the same word on the line
    await session.answer("/cast 庚辰 8")
    shown = await session.answer(word)
    assert gettext(lang, "chat.choose.unknown", word=word) in shown  # the chat's own sentence
    assert "<b>" not in gettext(lang, "chat.choose.unknown", word="x") and "&lt;b&gt;" not in shown
    offered = [line for line in shown.splitlines()[1:] if line.strip() and not line.startswith("/help")]
    assert offered and all(f"/cast now {line}" in chat for line in offered[:-1])
    # each name offered, typed, reads the cast in view for its topic
    first = offered[0].split()[0]
    assert await session.answer(first) != gettext(lang, "chat.hint")


async def test_a_word_close_to_no_topic_still_gets_the_hint(ctx):
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    assert await session.answer("안녕하세요") == gettext("ko", "chat.hint")
