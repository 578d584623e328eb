"""The fake Bot API's inline mode (tests/fakes/telegram.py) through the real python-telegram-bot ``Bot``: it
refuses what Telegram refuses in ``answerInlineQuery`` (issue #34 item 1), so the bot's answers are held to the
real rules — result ids 1–64 bytes and unique, at most 50 results, the required fields of photo and article
results, captions and texts after entity parsing, one answer per query, in time."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import pytest
import telegram
from PIL import Image
from telegram import (
    InlineQueryResultArticle,
    InlineQueryResultCachedPhoto,
    InlineQueryResultLocation,
    InlineQueryResultsButton,
    InputTextMessageContent,
)
from telegram.error import BadRequest

from tests.fakes.telegram import FakeTelegram


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[telegram.Bot]:
    async with telegram.Bot(tg.token, base_url=tg.base_url) as b:
        yield b


def article(id_: str, text: str = "<b>庚辰</b> 第八局", title: str = "大六壬") -> InlineQueryResultArticle:
    return InlineQueryResultArticle(id_, title, InputTextMessageContent(text, parse_mode="HTML"))


async def photo_id(tg: FakeTelegram, bot: telegram.Bot) -> str:
    """The file_id of a photo the bot sent (what a cached photo result may name)."""
    data = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(data, "PNG")
    message = await bot.send_photo(-100555, data.getvalue())
    return message.photo[-1].file_id


async def test_a_valid_answer_is_kept_and_a_query_is_answered_once(tg, bot):
    assert (await bot.get_me()).supports_inline_queries is True  # BotFather's /setinline
    query = tg.inline_query("庚辰 8")["inline_query"]["id"]
    file_id = await photo_id(tg, bot)
    photo = InlineQueryResultCachedPhoto("p:1", file_id, caption="<b>重審</b>", parse_mode="HTML")
    button = InlineQueryResultsButton("도움말", start_parameter="inline-help_1")
    assert await bot.answer_inline_query(query, [photo, article("t:1")], cache_time=5, is_personal=True,
                                         button=button)  # fmt: skip
    kept = tg.inline_answers[query]
    assert [r["type"] for r in kept["results"]] == ["photo", "article"]
    assert kept["cache_time"] == 5 and kept["is_personal"] is True
    assert kept["button"]["start_parameter"] == "inline-help_1"
    with pytest.raises(BadRequest, match="(?i)query is too old"):  # answered: the id is spent
        await bot.answer_inline_query(query, [article("t:2")])
    with pytest.raises(BadRequest, match="(?i)query is too old"):  # never issued
        await bot.answer_inline_query("999", [article("t:2")])
    tg.inline_deadline = 0.0
    late = tg.inline_query("now")["inline_query"]["id"]
    with pytest.raises(BadRequest, match="(?i)query is too old"):  # past the answer's deadline
        await bot.answer_inline_query(late, [article("t:3")])


@pytest.mark.parametrize(
    ("results", "error"),
    [
        ([article("same"), article("same")], "RESULT_ID_DUPLICATE"),
        ([article("x" * 65)], "RESULT_ID_INVALID"),
        ([article("가" * 22)], "RESULT_ID_INVALID"),  # 66 bytes in UTF-8
        ([article(str(i)) for i in range(51)], "RESULTS_TOO_MUCH"),
        ([article("t", title="")], 'Can\'t find field "title"'),
        ([article("t", text="<b>庚辰")], "can't parse entities"),
        ([article("t", text="<p>庚辰</p>")], "can't parse entities"),
        ([article("t", text="갑" * 4097)], "message is too long"),
        ([InlineQueryResultCachedPhoto("p", "AgACAgnever")], "wrong file identifier"),
        ([InlineQueryResultLocation("l", 37.5, 127.0, "서울")], "not 'location'"),
    ],
)
async def test_what_telegram_refuses_is_refused(tg, bot, results, error):
    query = tg.inline_query("庚辰 8")["inline_query"]["id"]
    with pytest.raises(BadRequest, match="(?i)" + error):
        await bot.answer_inline_query(query, results)
    assert query not in tg.inline_answers
    assert await bot.answer_inline_query(query, [article("ok")])  # a refused answer leaves the query open


async def test_a_photo_caption_is_held_to_1024_after_entity_parsing(tg, bot):
    file_id = await photo_id(tg, bot)
    fits = "<b>" + "丑" * 1024 + "</b>"  # 1,024 visible characters: the tags do not count
    query = tg.inline_query("庚辰 8")["inline_query"]["id"]
    assert await bot.answer_inline_query(
        query, [InlineQueryResultCachedPhoto("p", file_id, caption=fits, parse_mode="HTML")]
    )
    query = tg.inline_query("庚辰 8")["inline_query"]["id"]
    with pytest.raises(BadRequest, match="(?i)caption is too long"):
        await bot.answer_inline_query(
            query, [InlineQueryResultCachedPhoto("p", file_id, caption="丑" * 1025)]
        )


async def test_a_results_button_needs_a_valid_start_parameter(tg, bot):
    query = tg.inline_query("")["inline_query"]["id"]
    with pytest.raises(BadRequest, match="(?i)START_PARAM_INVALID"):
        await bot.answer_inline_query(query, [], button=InlineQueryResultsButton("?", start_parameter="a b"))


async def test_inline_updates_reach_a_poller_only_when_asked_for(tg, bot):
    tg.inline_query("庚辰 8", user_id=7)
    tg.chosen_inline_result("p:cast:1", "庚辰 8", user_id=7)
    assert await bot.get_updates(timeout=0, allowed_updates=["message"]) == ()
    tg.inline_query("庚辰 8", user_id=7)
    tg.chosen_inline_result("p:cast:1", "庚辰 8", user_id=7)
    updates = await bot.get_updates(timeout=0, allowed_updates=["inline_query", "chosen_inline_result"])
    assert updates[0].inline_query.query == "庚辰 8" and updates[0].inline_query.from_user.id == 7
    assert updates[1].chosen_inline_result.result_id == "p:cast:1"
