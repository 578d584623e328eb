"""Issue #34 item 1: Telegram inline mode with the real python-telegram-bot (``sikpan run``) against the fake Bot
API — ``@bot 庚辰 8`` in any chat is answered (``answerInlineQuery``) with the chart picture and its reading as
caption (a cached ``file_id``) and the reading as text, within a second; in the asker's language; with nothing
of the asker's saved data; an empty or unknown line gets help.

Expected texts come from the seeds: 庚辰 第八局 is 重審 (seed 003: 「此重審之卦」) with 丑 貴人 on the board (the
chart tests' own example); for 甲 days the 天乙貴人 are 丑 and 未 (seed 000, 「甲戊庚牛羊」).
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

import pytest

from bot import metrics
from bot.admission import Admission, Limits
from bot.commands.inline import line_of
from bot.i18n import gettext
from bot.telegram.inline import FIXED_CACHE
from bot.views import view_title
from tests.adapters.conftest import Running, running, tg_settings
from tests.chat._views import ask
from tests.fakes.telegram import FakeTelegram, visible_text

CACHE_CHAT = -100555


def _settings(tg: FakeTelegram, tmp_path: Any, lang: str = "ko") -> Any:
    return replace(
        tg_settings(tg, str(tmp_path / "db.sqlite"), lang=lang), telegram_inline_cache_chat=CACHE_CHAT
    )


async def _inline(tg: FakeTelegram, run: Running, query: str, **kw: Any) -> tuple[dict[str, Any], float]:
    """Type ``@bot query``: (the answer, seconds from the query to the bot's answerInlineQuery)."""
    update = tg.inline_query(query, **kw)
    made = time.monotonic()
    query_id = update["inline_query"]["id"]
    [call] = await tg.wait_for(
        "answerInlineQuery", predicate=lambda c: c.params.get("inline_query_id") == query_id, timeout=10
    )
    await run.telegram.wait_handled(update["update_id"], 10)
    return tg.inline_answers[query_id], call.at - made


def _of(answer: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in answer["results"] if r["type"] == kind]


def _text(result: dict[str, Any]) -> str:
    content = result["input_message_content"]
    return visible_text(content["message_text"], content.get("parse_mode"))


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_a_cast_line_is_answered_with_its_picture_and_its_text_within_a_second(tg, tmp_path, lang):
    async with running(_settings(tg, tmp_path), ready=tg) as run:
        answer, seconds = await _inline(tg, run, "庚辰 8", language_code="zh" if lang == "lzh" else "ko")
        assert seconds <= 1.0, f"answered after {seconds:.2f}s"
        [photo] = _of(answer, "photo")
        [article] = _of(answer, "article")
        # the picture was uploaded once to the operator's cache chat; its file_id is the result's
        [upload] = [c for c in tg.sent_to(CACHE_CHAT) if c.method == "sendPhoto"]
        assert photo["photo_file_id"] == upload.result["photo"][-1]["file_id"]
        caption = visible_text(photo["caption"], photo["parse_mode"])
        board = "축귀인" if lang == "ko" else "丑貴人"  # the board reads in 한글 in ko
        assert board in caption and "重審" in caption  # the board and the 課體 of seed 003's 庚辰 第八局
        assert "重審" in _text(article) and board in _text(article)
        title = view_title(lang, "cast")
        assert photo["title"] == gettext(lang, "chat.inline.as_picture", title=title)
        assert article["title"] == gettext(lang, "chat.inline.as_text", title=title)
        assert "#" not in caption.split("\n", 1)[0]  # nothing stored: no number (no pages to press)
        assert "reply_markup" not in photo and "reply_markup" not in article
        assert answer["is_personal"] is True and answer["cache_time"] == FIXED_CACHE
        # the same line again: the picture goes by the file_id it has (no second upload)
        again, _ = await _inline(tg, run, "庚辰 8", language_code="zh" if lang == "lzh" else "ko")
        assert _of(again, "photo")[0]["photo_file_id"] == photo["photo_file_id"]
        assert len(tg.sent_to(CACHE_CHAT)) == 1
        # a cast for the moment, with a topic in the asker's words: short cache, the topic leads
        now, _ = await _inline(
            tg, run, gettext(lang, "chat.inline.example.now"), language_code="zh" if lang == "lzh" else "ko"
        )
        assert _of(now, "photo") and now["cache_time"] < FIXED_CACHE
        assert "求財" in _text(_of(now, "article")[0])
        # 六爻 (an alias names the command) and 神煞 of a day (no picture: text only)
        liuyao, _ = await _inline(
            tg, run, "육효" if lang == "ko" else "六爻", language_code="zh" if lang == "lzh" else "ko"
        )
        assert _of(liuyao, "photo") and _of(liuyao, "article")[0]["title"].startswith(
            view_title(lang, "liuyao")
        )
        shensha, _ = await _inline(
            tg,
            run,
            gettext(lang, "chat.inline.example.shensha"),
            language_code="zh" if lang == "lzh" else "ko",
        )
        assert not _of(shensha, "photo")
        stars = _text(_of(shensha, "article")[0])
        # seed 000: 甲戊庚牛羊 (ko: its reading first, docs/style.md)
        assert (
            ("天乙貴人" in stars and "丑未" in stars)
            if lang == "lzh"
            else "천을귀인(天乙貴人) 축·미" in stars
        )
        # a posted result is counted by command and kind (chosen_inline_result: BotFather's /setinlinefeedback)
        registry = metrics.enable()
        labels = {"command": "cast", "kind": "photo"}
        before = registry.get_sample_value("sikpan_inline_chosen_total", labels) or 0.0
        chosen = tg.chosen_inline_result(photo["id"], "庚辰 8")
        assert await run.telegram.wait_handled(chosen["update_id"], 10) is None
        assert registry.get_sample_value("sikpan_inline_chosen_total", labels) == before + 1


async def test_empty_and_unknown_lines_get_help_and_the_reason(tg, tmp_path):
    async with running(_settings(tg, tmp_path), ready=tg) as run:
        empty, _ = await _inline(tg, run, "")
        [help_article] = _of(empty, "article")
        assert help_article["title"] == gettext("ko", "chat.inline.help.title")
        assert f"@{tg.username} 庚辰 8" in _text(help_article)
        assert not _of(empty, "photo")
        for line, why in (
            ("庚辰 13", gettext("ko", "bot.error.bad_ju", value="13")),  # a 局 out of 1–12
            ("안녕하세요", gettext("ko", "bot.error.cast_usage")),  # no cast line at all
            ("history", gettext("ko", "chat.inline.not_here", name="history")),  # a private command
        ):
            answer, _ = await _inline(tg, run, line)
            problem, help_again = _of(answer, "article")
            assert problem["title"] == gettext("ko", "chat.inline.problem.title")
            assert why in _text(problem) and why[:20] in problem["description"]
            assert help_again["id"] == help_article["id"]
            assert not _of(answer, "photo")
        # an unknown topic word: the closest topics (the same suggestions as a typed /cast)
        answer, _ = await _inline(tg, run, "庚辰 8 재뮬")
        assert "재물" in _text(_of(answer, "article")[0]) or "求財" in _text(_of(answer, "article")[0])
        assert not tg.sent_to(CACHE_CHAT)  # nothing was cast, nothing uploaded
        # a flood of queries from one user: one "slow down" (never cached), then nothing is answered
        run.ctx.admission = Admission(Limits(user_burst=1.0, user_per_second=0.001))
        await _inline(tg, run, "신살 甲子", user_id=77)
        slow, _ = await _inline(tg, run, "신살 甲子", user_id=77)
        assert (
            _text(_of(slow, "article")[0]) == gettext("ko", "bot.error.slow_down") and slow["cache_time"] == 0
        )
        dropped = tg.inline_query("신살 甲子", user_id=77)
        await run.telegram.wait_handled(dropped["update_id"], 10)
        assert dropped["inline_query"]["id"] not in tg.inline_answers


def test_an_inline_line_is_a_command_line():
    """The first word names the command (a name or an alias of the registry); any other line is /cast's."""
    assert line_of("庚辰 8") == ("cast", "/cast 庚辰 8")
    assert line_of("  now   재물 ") == ("cast", "/cast now 재물")
    assert line_of("육효") == ("liuyao", "/육효") and line_of("六爻 878878") == ("liuyao", "/六爻 878878")
    assert line_of("신살 甲子") == ("shensha", "/신살 甲子")
    assert line_of("／ｃａｓｔ　庚辰　８") == ("cast", "/cast 庚辰 8")  # full-width forms of CJK keyboards
    assert line_of("history") == ("history", "/history")  # named, and refused by dispatch (not public)
    assert line_of("") is None and line_of("   ") is None and line_of("/") is None


async def test_results_carry_nothing_personal_and_store_nothing(tg, tmp_path):
    """A user with a saved birth (七政), place, zone and language: the inline answer uses the language only —
    the default zone, not theirs; no birth data, no place; nothing added to their history."""
    user = 4242
    async with running(_settings(tg, tmp_path), ready=tg) as run:
        await ask(tg, run, "/qizheng 1990-05-17 14:30 부산 save", user)
        await ask(tg, run, "/tz America/New_York", user)
        await ask(tg, run, "/lang lzh", user)
        stored = await run.ctx.storage.get_user(f"telegram:{user}")
        assert stored.birth is not None and stored.tz == "America/New_York" and stored.lang == "lzh"
        before = await run.ctx.storage.count_history(f"telegram:{user}")
        shown = ""
        for line in ("庚辰 8", "now", "육효", "신살 甲子"):
            answer, _ = await _inline(tg, run, line, user_id=user, language_code="ko")
            shown += json.dumps(answer, ensure_ascii=False)
            for article in _of(answer, "article"):
                shown += _text(article)
        assert "Asia/Seoul" in shown and "America/New_York" not in shown  # the default zone, not theirs
        for private in ("1990", "05-17", "14:30", "부산", "釜山", "129."):
            assert private not in shown, private
        assert view_title("lzh", "cast") in shown and view_title("ko", "cast") not in shown  # their language
        assert await run.ctx.storage.count_history(f"telegram:{user}") == before


async def test_a_refused_file_id_is_answered_without_the_photo_then_uploaded_again(tg, tmp_path):
    async with running(_settings(tg, tmp_path), ready=tg) as run:
        first, _ = await _inline(tg, run, "庚辰 8")
        assert _of(first, "photo")
        tg.forget_file_ids()  # Telegram no longer takes the ids it gave
        second, _ = await _inline(tg, run, "庚辰 8")
        refused = [c for c in tg.calls if c.method == "answerInlineQuery" and c.status == 400]
        assert len(refused) == 1
        assert not _of(second, "photo") and _of(second, "article")
        third, _ = await _inline(tg, run, "庚辰 8")
        assert _of(third, "photo")[0]["photo_file_id"] != _of(first, "photo")[0]["photo_file_id"]
        assert len(tg.sent_to(CACHE_CHAT)) == 2


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_every_answer_offers_to_open_the_bot_and_its_start_opens_the_welcome(tg, tmp_path, lang):
    """Above the results Telegram shows the answer's ``button`` (the Bot API's InlineQueryResultsButton): its
    label in the asker's language; pressing it opens a private chat with the bot and sends ``/start`` with its
    ``start_parameter`` — which must open on the welcome, not on "this shared reading is gone"."""
    code = "zh" if lang == "lzh" else "ko"
    user = 3401
    async with running(_settings(tg, tmp_path), ready=tg) as run:
        buttons = []
        for line in ("庚辰 8", "", "庚辰 13", "history"):  # a cast, the help, a bad 局, a private command
            answer, _ = await _inline(tg, run, line, user_id=user, language_code=code)
            buttons.append(answer["button"])
        [button] = {json.dumps(b, sort_keys=True) for b in buttons}  # one button, on every answer
        assert json.loads(button) == {
            "text": gettext(lang, "chat.inline.open"),
            "start_parameter": json.loads(button)["start_parameter"],
        }
        start = json.loads(button)["start_parameter"]
        # the deep link t.me/<bot>?start=<parameter>: Telegram sends "/start <parameter>" in the private chat
        [opened] = await ask(tg, run, f"/start {start}", user, user_id=user, language_code=code)
        [welcome] = await ask(tg, run, "/start", user, user_id=user, language_code=code)
        text = visible_text(opened.params["text"], opened.params.get("parse_mode"))
        assert text == visible_text(welcome.params["text"], welcome.params.get("parse_mode"))
        assert gettext(lang, "bot.error.share_gone") not in text and "/cast" in text
