"""The senders: splitting (checked by the fake server's independent Telegram-HTML validator), pacing,
RetryAfter, Forbidden, migration and bad requests, through the real python-telegram-bot ``Bot``."""

from __future__ import annotations

import asyncio
import re
import time
from datetime import timedelta
from typing import Any

import pytest
import telegram

from bot.limits import MAX_FLIGHT, LocalLimiter, SlidingWindow, Slot
from bot.sending import (
    TokenBucket,
    split_discord,
    split_embed_descriptions,
    split_telegram_html,
    utf16_len,
)
from bot.telegram.sender import TelegramSender, retry_after_seconds, telegram_request
from tests.fakes.telegram import EntityParseError, FakeTelegram, visible_text


def _visible(part: str) -> str:
    return visible_text(part, "HTML")


# ------------------------------------------------------------------------------------------ splitting
def _long_chart(lines: int) -> str:
    row = "<b>甲子</b> 天乙 &amp; 貴人 &lt;初傳&gt; <i>子 丑 寅 卯 辰 巳 午 未 申 酉 戌 亥</i>"
    body = "\n".join(f"{i:04d} {row}" for i in range(lines))
    return (
        f'<blockquote><a href="https://example.org/?a=1&amp;b=2">式盤</a>\n<pre>{body}</pre>\n끝</blockquote>'
    )


def test_split_html_parts_are_valid_and_within_the_visible_limit():
    text = _long_chart(400)
    assert utf16_len(_visible(text)) > 4096 * 3  # the whole would be rejected
    parts = split_telegram_html(text)
    assert len(parts) >= 4
    for part in parts:
        shown = _visible(part)  # raises EntityParseError if a tag is cut or unbalanced
        assert 0 < utf16_len(shown) <= 4096
        assert part.startswith("<blockquote>")  # tags reopened in every part
    # nothing lost, nothing duplicated: the visible lines come back in order
    joined = "\n".join(_visible(p).strip("\n") for p in parts)
    assert joined.split("\n") == _visible(text).strip("\n").split("\n")


def test_split_html_measures_visible_not_markup_length():
    # 3000 visible characters but ~10000 characters of markup: one part
    text = "".join("<b>가</b>" for _ in range(1500)) + "\n" + "&amp;" * 1500
    assert len(text) > 4096
    assert split_telegram_html(text) == [text]


def test_split_html_cuts_an_overlong_line_at_spaces_then_anywhere():
    words = " ".join(["式盤"] * 3000)  # one line of 8999 characters
    parts = split_telegram_html(f"<i>{words}</i>")
    assert len(parts) == 3
    for part in parts:
        assert part.startswith("<i>") and part.endswith("</i>")
        shown = _visible(part)
        assert utf16_len(shown) <= 4096
        assert not shown.startswith(" 盤")  # cut at a space, not inside a word
    no_spaces = "字" * 9000
    assert [len(p) for p in split_telegram_html(no_spaces)] == [4096, 4096, 808]


def test_split_html_counts_astral_characters_twice():
    text = "𠀀" * 3000  # CJK Ext. B: 2 UTF-16 code units each
    parts = split_telegram_html(text)
    assert [len(p) for p in parts] == [2048, 952]


def test_split_html_never_cuts_an_entity_or_tag():
    text = "&lt;" * 5000
    parts = split_telegram_html(text)
    for part in parts:
        assert re.fullmatch(r"(?:&lt;)+", part)
    assert sum(len(p) for p in parts) == len(text)


def test_the_fake_validator_rejects_what_telegram_rejects():
    for bad in ("a < b", "<div>x</div>", "<b>x", "<b>x</i>", "&nbsp;", "<span>x</span>"):
        with pytest.raises(EntityParseError):
            _visible(bad)
    assert _visible('<span class="tg-spoiler">x</span> &amp; &#54620;') == "x & 한"


def test_split_discord_respects_2000_and_code_fences():
    body = "\n".join(f"line {i} " + "가" * 50 for i in range(120))
    text = f"**式盤**\n```\n{body}\n```\n끝 @everyone"
    parts = split_discord(text)
    assert len(parts) >= 4
    for part in parts:
        assert len(part) <= 2000
        assert part.count("```") % 2 == 0  # every part's code block is closed
    assert parts[1].startswith("```\n")
    rebuilt = [ln for p in parts for ln in p.split("\n") if ln != "```"]
    assert rebuilt == [ln for ln in text.split("\n") if ln != "```"]


def test_split_discord_cuts_overlong_lines():
    parts = split_discord("x" * 4500)
    assert [len(p) for p in parts] == [2000, 2000, 500]


def test_embed_descriptions_respect_embed_limits():
    text = "\n".join("가" * 100 for _ in range(400))  # ~40 000 characters
    messages = split_embed_descriptions(text)
    for embeds in messages:
        assert len(embeds) <= 10
        assert sum(len(d) for d in embeds) <= 6000
        assert all(len(d) <= 4096 for d in embeds)
    assert sum(len(d) for m in messages for d in m) >= 40000


def test_retry_after_accepts_int_and_timedelta():
    assert retry_after_seconds(3) == 3.0
    assert retry_after_seconds(timedelta(seconds=2, milliseconds=500)) == 2.5


# ------------------------------------------------------------------------------------------ pacing
class VirtualTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


async def test_token_bucket_holds_the_rate():
    vt = VirtualTime()
    bucket = TokenBucket(28, 1.0, 1, clock=vt.clock, sleep=vt.sleep)
    stamps = []
    for _ in range(57):
        await bucket.acquire()
        stamps.append(vt.now)
    # 57 acquisitions at 28/s: the first is free, the remaining 56 take 2 s
    assert stamps[-1] == pytest.approx(56 / 28)
    assert all(b - a >= 1 / 28 - 1e-9 for a, b in zip(stamps, stamps[1:]))


async def test_group_bucket_allows_20_per_minute():
    vt = VirtualTime()
    bucket = TokenBucket(20, 60.0, 20, clock=vt.clock, sleep=vt.sleep)
    for _ in range(20):
        await bucket.acquire()
    assert vt.now == 0.0
    await bucket.acquire()
    assert vt.now == pytest.approx(3.0)


# ------------------------------------------------------------------------------------------ real Bot + fake
@pytest.fixture
async def tg():
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def bot(tg):
    b = telegram.Bot(tg.token, base_url=tg.base_url, base_file_url=tg.base_file_url)
    async with b:
        yield b


async def test_429_waits_the_servers_retry_after_and_delivers_once(tg, bot):
    tg.rate_limit(1, chat_id=77)
    sender = TelegramSender(bot)
    outcome = await sender.send(77, "<b>갑자</b>")
    assert outcome.ok and outcome.parts == 1
    attempts = [c for c in tg.calls if c.method == "sendMessage"]
    assert [c.status for c in attempts] == [429, 200]
    assert attempts[1].at - attempts[0].at >= 1.0  # waited the server's value
    assert sender.retry_waits == [1.0]
    assert len(tg.sent_to(77)) == 1


async def test_429_attempts_are_bounded(tg, bot):
    tg.rate_limit(0, chat_id=78, times=None)
    outcome = await TelegramSender(bot, max_attempts=3).send(78, "x")
    assert not outcome.ok and outcome.error == "gave_up"
    assert len([c for c in tg.calls if c.method == "sendMessage"]) == 3


async def test_403_blocked_user_fires_callback_without_retry(tg, bot):
    tg.block(55)
    reports = []

    async def on_blocked(platform, chat_id, reason):
        reports.append((platform, chat_id, reason))

    outcome = await TelegramSender(bot, on_blocked=on_blocked).send(55, "hello\n" * 3)
    assert not outcome.ok and outcome.error == "forbidden"
    assert reports == [("telegram", "55", "Forbidden: bot was blocked by the user")]
    assert len([c for c in tg.calls if c.method == "sendMessage"]) == 1
    # other chats are unaffected
    assert (await TelegramSender(bot).send(56, "ok")).ok


async def test_long_reply_is_split_and_every_part_accepted(tg, bot):
    text = _long_chart(300)
    outcome = await TelegramSender(bot, per_chat_burst=10).send(99, text)
    assert outcome.ok and outcome.parts >= 3
    calls = tg.sent_to(99)
    assert len(calls) == outcome.parts
    assert all(c.params["parse_mode"] == "HTML" for c in calls)
    shown = "\n".join(c.result["text"].strip("\n") for c in calls)
    assert shown.split("\n") == _visible(text).strip("\n").split("\n")


async def test_the_fake_rejects_an_unsplit_long_message(tg, bot):
    with pytest.raises(telegram.error.BadRequest, match="too long"):
        await bot.send_message(1, "가" * 4097)


async def test_bad_html_is_not_retried_and_send_plain_escapes(tg, bot):
    sender = TelegramSender(bot)
    outcome = await sender.send(5, "a < b")
    assert outcome.error == "bad_request"
    assert len([c for c in tg.calls if c.method == "sendMessage"]) == 1
    assert (await sender.send_plain(5, "a < b & <i>")).ok
    assert tg.sent_to(5)[-1].result["text"] == "a < b & <i>"


async def test_chat_migration_resends_to_the_new_id(tg, bot):
    tg.migrate(-100, -1001234)
    moves = []
    outcome = await TelegramSender(bot, on_migrated=lambda p, old, new: moves.append((old, new))).send(
        -100, "group", chat_kind="group"
    )
    assert outcome.ok and outcome.chat_id == "-1001234"
    assert moves == [("-100", "-1001234")]
    assert len(tg.sent_to(-1001234)) == 1


async def test_parts_of_concurrent_replies_to_one_chat_stay_in_order(tg, bot):
    sender = TelegramSender(bot, per_chat_rate=100, per_chat_burst=100, overall_rate=1000)
    a = "\n".join(f"A{i} " + "가" * 1000 for i in range(8))
    b = "\n".join(f"B{i} " + "나" * 1000 for i in range(8))
    await asyncio.gather(sender.send(3, a), sender.send(3, b))
    labels = [c.result["text"].split()[0] for c in tg.sent_to(3)]
    assert labels in (
        [lab for lab in labels if lab.startswith("A")] + [lab for lab in labels if lab.startswith("B")],
        [lab for lab in labels if lab.startswith("B")] + [lab for lab in labels if lab.startswith("A")],
    )


async def test_429_with_timedelta_retry_after(tg, bot, monkeypatch):
    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # PTB ≥ 22.2 then hands out retry_after as a timedelta
    tg.rate_limit(1, chat_id=79)
    sender = TelegramSender(bot)
    assert (await sender.send(79, "x")).ok
    assert sender.retry_waits == [1.0]
    attempts = [c for c in tg.calls if c.method == "sendMessage"]
    assert attempts[1].at - attempts[0].at >= 1.0


async def test_per_chat_state_stays_bounded(tg, bot):
    vt = VirtualTime()
    limiter = LocalLimiter(clock=vt.clock, sleep=vt.sleep)
    sender = TelegramSender(bot, overall_rate=1000, limiter=limiter)
    sender.max_idle_chats = 5
    for chat in range(1, 13):
        assert (await sender.send(chat, "x")).ok
    # chats that sent within the last second still need their pacing state: nothing was forgotten
    buckets = limiter.buckets
    assert len([k for k in buckets if k.startswith("telegram:chat:")]) == 12
    vt.now += 60.0  # a long time later every budget is full again
    sender._prune()
    assert sender._chat_locks == {} and [k for k in buckets if k.startswith("telegram:chat:")] == []


def test_a_heading_moves_on_with_the_text_it_heads():
    """A part never ends with a section heading (a line that is one <b> run); the text stays intact."""
    from bot.sending import _strip_tags

    body = "x" * 60 + "\n"
    text = body * 3 + "<b>삼전</b>\n" + body * 2
    parts = split_telegram_html(text, limit=200)
    assert len(parts) == 2
    assert not parts[0].rstrip("\n").endswith("</b>")
    assert parts[1].startswith("<b>삼전</b>\n")
    assert all(len(_strip_tags(p)) <= 200 for p in parts)
    assert "".join(_strip_tags(p) for p in parts).replace("\n", "") == _strip_tags(text).replace("\n", "")
    # a heading that is the part's only line stays where it is (nothing to move it away from)
    lone = split_telegram_html("<b>" + "h" * 150 + "</b>\n" + "y" * 150, limit=200)
    assert lone[0].startswith("<b>") and lone[1] == "y" * 150


def test_a_discord_heading_moves_on_with_its_text():
    body = "x" * 60 + "\n"
    text = body * 3 + "**삼전**\n" + body * 2
    parts = split_discord(text, limit=200)
    assert len(parts) == 2 and all(len(p) <= 200 for p in parts)
    assert not parts[0].endswith("**") and parts[1].startswith("**삼전**\n")
    assert "".join(parts).replace("\n", "") == text.replace("\n", "")


async def test_the_overall_pacer_allows_a_burst_of_a_second_and_never_exceeds_the_platforms_window(tg, bot):
    """Issue #18: replies to different chats arriving together are not held behind each other up to one
    second's worth (28 at 28/s: bot.limits.Window.of_rate); then the window holds, so no second of the fake's
    log has more than 28, under the platform's 30 (a token bucket of burst 28 refilled at 28/s lets 56 through within
    one second, which the platform answers with 429)."""
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(seconds)

    # the bot's transport: PTB's HTTPXRequest with a pool of connections (a pool of one would queue the burst)
    request = telegram_request(64)
    async with telegram.Bot(tg.token, base_url=tg.base_url, request=request) as pooled:
        sender = TelegramSender(pooled, overall_rate=28, sleep=sleep)
        outcomes = await asyncio.gather(*(sender.send(1000 + chat, "x") for chat in range(28)))
        assert all(o.ok for o in outcomes) and waits == []  # 28 chats at once: no wait at all
        outcomes = await asyncio.gather(*(sender.send(2000 + chat, "x") for chat in range(28)))
    assert all(o.ok for o in outcomes) and len(waits) >= 28
    times = sorted(c.at for c in tg.calls if c.method == "sendMessage" and c.status == 200)
    assert len(times) == 56
    assert times[28] - times[0] >= 1.0  # the 29th a second after the first ended (counted until its end)
    most = max(sum(1 for t in times if a <= t < a + 1.0) for a in times)
    assert most <= 28, " ".join(f"{t - times[0]:.3f}" for t in times)


def _mark_recorder() -> tuple[list[float], Any]:
    """A ``before_request`` that records when each reading is marked (loop time) and lets it go."""
    loop = asyncio.get_running_loop()
    marks: list[float] = []

    async def mark() -> bool:
        marks.append(loop.time())
        return True

    return marks, mark


async def test_marked_deliveries_are_spaced_one_at_a_time_without_the_burst(tg, bot):
    """A send with ``before_request`` (a daily reading marked ``sending`` right before its request) does not
    take the burst: the marks are 1/rate apart, so a crash strands at most about one (docs/reliability.md)."""
    marks, mark = _mark_recorder()
    sender = TelegramSender(bot, overall_rate=20)
    outcomes = await asyncio.gather(
        *(sender.send(3000 + chat, "x", before_request=mark) for chat in range(6))
    )
    assert all(o.ok for o in outcomes) and len(marks) == 6
    # on a grid of 1/20 s, each within half an interval of its slot (a late wake-up does not push the grid)
    gaps = [b - a for a, b in zip(marks, marks[1:])]
    assert all(g >= 1 / 40 for g in gaps), gaps
    assert marks[-1] - marks[0] >= 5 / 20 - 1 / 40


async def test_a_stall_does_not_let_the_waiting_marked_deliveries_through_together(tg, bot):
    """Slots that passed while the loop was blocked are given up for new ones: the waiting readings are
    marked one at a time after the stall as before it, not all at once (a kill -9 then would strand them)."""
    marks, mark = _mark_recorder()
    sender = TelegramSender(bot, overall_rate=20)
    sends = [asyncio.create_task(sender.send(4000 + chat, "x", before_request=mark)) for chat in range(8)]
    await asyncio.sleep(0.02)  # every send has reserved its slot (1/20 s apart)
    time.sleep(0.3)  # the loop is blocked past six of them
    outcomes = await asyncio.gather(*sends)
    assert all(o.ok for o in outcomes) and len(marks) == 8
    gaps = [b - a for a, b in zip(marks, marks[1:])]
    # a slot woken for within half an interval still goes (the next may follow half an interval after it)
    assert all(g >= 1 / 40 for g in gaps), gaps
    assert sender.late_slots >= 4  # the slots that passed during the stall, given up


def _in_flight(sender: TelegramSender) -> list[float]:
    """The overall window's slots not settled (scored in the future: reserved or in flight)."""
    assert isinstance(sender.limiter, LocalLimiter)
    window = sender.limiter.buckets["telegram:all"]
    assert isinstance(window, SlidingWindow)
    now = sender.limiter.now()
    return [score for score in window.scores.values() if score > now]


async def test_every_overall_slot_is_settled_whether_or_not_its_request_is_made(tg, bot):
    """The window counts an unsettled slot as in flight (for up to ``max_flight``): every path that does not
    make its request, or whose request fails, settles it — or the budget would be one short for 90 s."""
    sender = TelegramSender(bot, overall_rate=2)

    async def refuse() -> bool:
        return False

    async def explode() -> bool:
        raise RuntimeError("the mark's commit failed")

    assert (await sender.send(5001, "x", before_request=refuse)).error == "not_attempted"
    assert _in_flight(sender) == []
    with pytest.raises(RuntimeError):
        await sender.send(5002, "x", before_request=explode)
    assert _in_flight(sender) == []
    tg.block(5003)
    assert (await sender.send(5003, "x")).error == "forbidden"  # the request failed: settled at its end
    assert _in_flight(sender) == []
    waiting = asyncio.create_task(sender.send(5004, "x"))  # 3 slots in a second at 2/s: a window ahead
    await asyncio.sleep(0.1)
    assert len(_in_flight(sender)) == 1
    waiting.cancel()  # a stop while it waits for its slot
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert _in_flight(sender) == []
    assert tg.sent_to(5004) == []


async def test_a_request_leaving_late_counts_as_in_flight_from_when_it_leaves(tg, bot):
    """A slot whose request leaves more than ``max_late`` after it (a slow commit of the mark) is marked
    in flight from then (``depart``: the window's ``max_flight`` bounds the request, not the wait), then
    settled at its end."""
    departed: list[tuple[float, float]] = []

    class Watching(LocalLimiter):
        async def depart(self, slot: Slot) -> None:
            await super().depart(slot)
            window = self.buckets[slot.key]
            assert isinstance(window, SlidingWindow) and slot.member is not None
            departed.append((self.now(), window.scores[int(slot.member)]))

    async def slow_commit() -> bool:
        await asyncio.sleep(0.1)
        return True

    sender = TelegramSender(bot, overall_rate=20, limiter=Watching())
    assert (await sender.send(5101, "x", before_request=slow_commit)).ok
    assert len(departed) == 1 and sender.late_slots == 1
    now, score = departed[0]
    assert score == pytest.approx(now + MAX_FLIGHT)
    assert _in_flight(sender) == []  # settled at the end


# ------------------------------------------------------------------------------------------ the wire, file_id reuse
def _png(color: str, size: tuple[int, int] = (16, 8)) -> bytes:
    """A real PNG (the fake Bot API decodes every upload with Pillow, as Telegram does)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


async def test_the_sender_puts_on_the_wire_what_python_telegram_bot_would(tg):
    """A reply's requests (HTML, no link preview, a reply that survives a deleted message, the keyboard on
    the last part, a photo upload named ``chart.png``) are the ones PTB sends for the same reply written with
    ``send_message``/``send_photo``'s own arguments (compared field by field in the fake's log)."""
    async with telegram.Bot(tg.token, base_url=tg.base_url, request=telegram_request(8)) as bot:
        await _sender_and_bot_on_the_wire(tg, bot)


async def _sender_and_bot_on_the_wire(tg, bot):
    rows = [
        [("• 盤 판", "p:1:2:brief"), ("解", "p:1:2:read")],
        [("재물", "p:1:2:cai")],
        [("○ 驗", "w:/note 2 held")],
    ]
    markup = telegram.InlineKeyboardMarkup(
        [[telegram.InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in rows]
    )
    await bot.send_message(
        chat_id=501, text="<b>甲子</b> 하루", parse_mode="HTML", disable_web_page_preview=True,
        reply_to_message_id=7, allow_sending_without_reply=True, reply_markup=markup,
    )  # fmt: skip
    await bot.send_photo(
        chat_id=501, photo=telegram.InputFile(_png("red"), filename="chart.png"), caption="<i>盤</i>",
        parse_mode="HTML", reply_to_message_id=7, allow_sending_without_reply=True, reply_markup=markup,
    )  # fmt: skip
    sender = TelegramSender(bot)
    text = await sender.send(502, "<b>甲子</b> 하루", reply_to_message_id=7, reply_markup=markup)
    photo = await sender.send(
        502, "", photo=_png("green"), caption="<i>盤</i>", reply_to_message_id=7, reply_markup=markup
    )
    assert text.ok and photo.ok
    ptb, ours = tg.sent_to(501), tg.sent_to(502)
    for theirs, mine in zip(ptb, ours, strict=True):
        assert mine.method == theirs.method
        assert {**mine.params, "chat_id": 501} == theirs.params
        assert list(mine.files) == list(theirs.files)  # the upload's part name
    # the outcome names the messages Telegram created
    assert [text.message_ids[0], photo.message_ids[0]] == [c.result["message_id"] for c in ours]


async def test_a_sent_message_comes_back_without_its_echoed_keyboard_and_updates_keep_theirs(tg):
    """Telegram answers a send with the message it made, the keyboard echoed; the transport drops that echo
    before PTB builds the ``Message`` (nothing reads it: bot.telegram.aiohttprequest), and keeps the keyboard of
    a message in an update, which a button press reads (``bot.telegram.shows``)."""
    request, polling = telegram_request(8), telegram_request(1)
    async with telegram.Bot(
        tg.token, base_url=tg.base_url, request=request, get_updates_request=polling
    ) as bot:
        rows = [[("• 盤 판", "p:801:2:brief"), ("解", "p:801:2:read")], [("재물", "p:801:2:cai")]]
        keyboard = telegram.InlineKeyboardMarkup(
            [
                [telegram.InlineKeyboardButton(label, callback_data=data) for label, data in row]
                for row in rows
            ]
        )
        sent = await bot.send_message(801, "<b>甲子</b>", parse_mode="HTML", reply_markup=keyboard)
        [call] = tg.sent_to(801)
        assert (
            call.result["reply_markup"] == keyboard.to_dict()
        )  # what Telegram answered: the keyboard echoed
        assert sent.reply_markup is None  # not built again
        assert (sent.message_id, sent.text, sent.chat.id) == (call.result["message_id"], "甲子", 801)
        tg.callback_query("p:801:2:read", chat_id=801, message_id=sent.message_id, message=call.result)
        [update] = await bot.get_updates(timeout=0)
        assert update.callback_query is not None and update.callback_query.message is not None
        assert update.callback_query.message.reply_markup == keyboard


async def test_a_picture_sent_before_goes_as_its_file_id_and_is_not_uploaded_again(tg, bot):
    """Telegram's documented way to send a file again: its ``file_id`` as the ``photo`` parameter."""
    sender = TelegramSender(bot)
    chart, other = _png("navy"), _png("olive")
    first = await sender.send(601, "", photo=chart, caption="一")
    again = await sender.send(602, "", photo=chart, caption="二")
    different = await sender.send(603, "", photo=other, caption="三")
    assert first.ok and again.ok and different.ok
    [upload], [reuse], [fresh] = tg.sent_to(601), tg.sent_to(602), tg.sent_to(603)
    assert upload.files["photo"] == chart and fresh.files["photo"] == other  # each new picture uploaded once
    largest = upload.result["photo"][-1]["file_id"]
    assert reuse.files == {} and reuse.params["photo"] == largest  # no bytes: the id of the largest size
    assert tg.photos[largest] == chart  # that id is this picture (what getFile would serve)
    assert reuse.result["photo"] == upload.result["photo"] and reuse.result["caption"] == "二"
    assert sender.photo_reuses == 1 and sender.photo_refused == 0


async def test_a_file_id_telegram_refuses_falls_back_to_uploading_the_picture(tg, bot):
    sender = TelegramSender(bot)
    chart = _png("teal")
    assert (await sender.send(701, "", photo=chart, caption="一")).ok
    tg.forget_file_ids()  # the ids issued so far are no longer valid
    outcome = await sender.send(702, "", photo=chart, caption="二")
    assert outcome.ok and outcome.parts == 1
    refused, uploaded = [c for c in tg.calls if c.method == "sendPhoto" and c.params["chat_id"] == 702]
    assert refused.status == 400 and refused.files == {} and isinstance(refused.params["photo"], str)
    assert uploaded.status == 200 and uploaded.files["photo"] == chart
    assert len(tg.sent_to(702)) == 1 and sender.photo_refused == 1 and sender.dropped == {}
    # the new upload's id is the one remembered from then on
    assert (await sender.send(703, "", photo=chart, caption="三")).ok
    [third] = tg.sent_to(703)
    assert third.files == {} and third.params["photo"] == uploaded.result["photo"][-1]["file_id"]


async def test_the_file_ids_kept_are_bounded_and_the_least_recently_sent_picture_is_uploaded_again(tg, bot):
    """The map picture → file_id holds at most ``max_photo_ids`` pictures; sending one (upload or id) makes it
    the most recent, and a picture dropped from the map is uploaded again — each chat gets its one photo."""
    sender = TelegramSender(bot)
    sender.max_photo_ids = 2
    a, b, c = _png("red"), _png("green"), _png("blue")
    order = [a, b, a, c, b, c, a]  # a: uploaded, b: uploaded, a: by id, c: uploaded (b dropped), …
    for chat, picture in enumerate(order, start=901):
        assert (await sender.send(chat, "", photo=picture, caption=str(chat))).ok
    sent = [tg.sent_to(chat) for chat in range(901, 901 + len(order))]
    assert [len(calls) for calls in sent] == [1] * len(order)  # one photo each, no retry
    uploaded = [call.files.get("photo") for [call] in sent]
    # by id: the second a (a and b kept) and the second c (c and b kept); b after c came and a after b came
    # were dropped from the two kept, so both went up again
    assert uploaded == [a, b, None, c, b, None, a]
    assert sender.photo_reuses == 2 and sender.photo_refused == 0
    assert len({call.params["photo"] for [call] in sent if not call.files}) == 2
    assert sender.photo_id(b) is None  # dropped when a came back: the two kept are c and a
    assert sender.photo_id(c) is not None and sender.photo_id(a) is not None


async def test_a_refused_caption_on_a_known_picture_is_tried_once_as_an_upload_then_dropped(tg, bot):
    """A 400 for the caption (not the id) is tried once as an upload and then dropped as a bad request,
    never looped on."""
    sender = TelegramSender(bot)
    chart = _png("maroon")
    assert (await sender.send(801, "", photo=chart, caption="ok")).ok
    outcome = await sender.send(802, "", photo=chart, caption="a < b")
    assert not outcome.ok and outcome.error == "bad_request"
    attempts = [c for c in tg.calls if c.method == "sendPhoto" and c.params["chat_id"] == 802]
    assert [c.status for c in attempts] == [400, 400] and attempts[1].files["photo"] == chart


# ------------------------------------------------------------------------------------------ the chat's queue
async def test_a_reply_that_must_wait_for_its_chats_budget_does_not_hold_its_caller(tg, bot):
    """Issue 36: ``reply`` returns the outcome of a reply sent at once, and None — at once — for one that
    waits for the chat's budget (sent later, its outcome to ``on_done``); a chat holds at most
    ``max_pending`` queued replies, one more is dropped and counted."""
    sender = TelegramSender(bot, per_chat_rate=1.0, per_chat_burst=1)
    done: list[Any] = []
    first = await sender.reply(-100, "하나", chat_kind="group", on_done=done.append)
    assert first is not None and first.ok  # the budget had room: sent before returning
    begun = time.monotonic()
    results = [await sender.reply(-100, f"{n}", chat_kind="group", on_done=done.append) for n in range(11)]
    assert time.monotonic() - begun < 0.5  # nobody waited the 1 s a second message to the chat needs
    assert results[:10] == [None] * 10 and sender.queued() == 10
    [full] = [r for r in results if r is not None]
    assert full.error == "queue_full" and sender.dropped["queue_full"] == 1
    assert (await sender.reply(-200, "다른 방", chat_kind="group")) is not None  # another chat is not held
    await tg.wait_sent(-100, count=2, timeout=3.0)  # the next one a second later
    assert [c.params["text"] for c in tg.sent_to(-100)] == ["하나", "0"]
    async with asyncio.timeout(1.0):
        while len(done) < 2:  # the outcome reaches on_done right after the answer
            await asyncio.sleep(0.01)
    assert [o.message_ids for o in done] == [(c.result["message_id"],) for c in tg.sent_to(-100)]
    assert await sender.drain(timeout=0.1) == 9  # the rest were queued at a stop: not sent, counted
    assert sender.dropped["not_sent_at_stop"] == 9 and sender.queued() == 0
    assert [o.error for o in done[-9:]] == ["not_sent_at_stop"] * 9
    assert len(tg.sent_to(-100)) == 2


async def test_a_queued_reply_whose_turn_comes_too_late_is_dropped(tg, bot):
    sender = TelegramSender(bot, per_chat_rate=1.0, per_chat_burst=1)
    sender.max_age = 0.5
    assert (await sender.reply(5, "가")) is not None
    assert (await sender.reply(5, "나")) is None  # waits ~1 s for the chat's budget, holding the chat
    assert (await sender.reply(5, "다")) is None  # waits behind it: its turn comes after 0.5 s
    assert await sender.drain(timeout=5.0) == 0
    assert [c.params["text"] for c in tg.sent_to(5)] == ["가", "나"]
    assert sender.dropped["stale"] == 1
