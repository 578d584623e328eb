"""Issue 32 item 3 in chat: the first screen answers the question asked. ``/cast 庚辰 8 재물`` (and
``/cast now 재물``, lzh ``/cast 庚辰 8 財``) opens with the topic by name, its direction and the two or three
reasons that decided it, each citing its passage; the topic buttons (재물 · 혼인 · 질병 · 소송 · 직장 · 출행 · 실물 ·
가택) re-read the SAME stored row for their topic — no new history row, nothing cast anew from the clock; the
據/근거 page lists every counted reason with its direction and source and says the texts give no weights. On the
console (typed), the fake Telegram and the fake Discord.

What is expected comes from the seeds through the engine's rules, never from our replies: seed 003 entry 1
(庚辰 第八局) judges 婚姻 「妻財坐空不宜」 (003:15: 凶), on the ground of 003:7 「寅為日之財，因坐空鄉」; each topic's
direction is the seed's where docs/liuren_readings.md's seed-003 table says ours agrees, else what
``engine.liuren.topics.read_topic`` computes (the table's disagreements, 求財 among them, are explained there).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import pytest

from bot.console import ConsoleSession
from bot.features.liuren.command import TOPIC_BUTTONS
from bot.i18n import cite, cite_short, gettext, term, typeset
from bot.seal import unsealed
from engine.core.cycle import GanZhi
from engine.liuren import chart_for_ju
from engine.liuren.topics import TopicReading, read_topic, topic_for
from engine.liuren.verdict import judge
from tests.chat._views import (
    ask,
    buttons,
    components,
    console_in,
    discord_at,
    page_of,
    press,
    press_component,
    telegram_at,
)
from tests.fakes.telegram import visible_text

AT = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)  # 12:00 in Seoul
DOCS = Path(__file__).resolve().parents[2] / "docs" / "liuren_readings.md"
SIGN = {"吉": "＋", "凶": "－"}


@cache
def engine_line(topic: str) -> TopicReading:
    """The engine's line of a topic for 庚辰 第八局 (no month: a (day, 局) cast has none)."""
    found = topic_for(topic)
    assert found is not None
    return read_topic(chart_for_ju(GanZhi.parse("庚辰"), 8), found)


@cache
def seed_table() -> dict[str, tuple[str, str, bool]]:
    """docs/liuren_readings.md's seed-003 rows of entry 1 (庚辰 8局): topic → (seed's direction, ours, agrees)."""
    rows: dict[str, tuple[str, str, bool]] = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[0] == "1" and cells[1] == "庚辰 8局":
            rows[cells[2]] = (cells[4], cells[5], cells[6] == "yes")
    return rows


def expected_direction(topic: str) -> str:
    """The seed's direction where our rules agree with it (docs' table), else the engine's."""
    seed, ours, agrees = seed_table()[topic]
    line = engine_line(topic)
    assert ours == line.direction, "the docs' table is the engine's reading"
    return seed if agrees else line.direction


def topic_name(lang: str, topic: str) -> str:
    found = topic_for(topic)
    assert found is not None
    return found.lzh if lang == "lzh" else f"{found.ko}({found.lzh})"


def assert_leads(text: str, lang: str, topic: str) -> list[str]:
    """The screen opens (after its title) with the topic, its direction and its deciding reasons, each with the
    passage it cites, before the chart; it returns those lines."""
    lines = text.splitlines()
    board = next(i for i, ln in enumerate(lines) if gettext(lang, "bot.cast.day") in ln)
    head = lines[1:board]
    assert topic_name(lang, topic) in head[0], head
    assert term(lang, expected_direction(topic)) in head[0] or expected_direction(topic) in head[0]
    line = engine_line(topic)
    deciding = [r for r in line.deciding if r.rule != "tie_duan"]
    tie = [r for r in line.deciding if r.rule == "tie_duan"]
    shown = deciding[: 2 if tie else 3] + tie
    assert 1 <= len(shown) <= 4 and len(head) <= len(shown) + 2  # the answer in a few short lines
    for reason in shown:
        lzh, ko = reason.texts()
        [hit] = [ln for ln in head if (lzh if lang == "lzh" else ko) in ln]
        assert typeset(lang, cite_short(lang, reason.source)) in hit and len(hit) <= 80  # a phone line or two
        if reason.direction in SIGN and reason.rule != "tie_duan":
            assert hit.startswith(SIGN[reason.direction])
    return head


def test_the_seed_table_covers_every_button_topic():
    assert {topic for _, topic, _ in TOPIC_BUTTONS} <= set(seed_table())
    # seed 003 entry 1's 婚姻: 「妻財坐空不宜」, a 凶 our rules share, for the seat's 空 (003:7)
    assert seed_table()["婚姻"] == ("凶", "凶", True)
    assert any(r.source.startswith("003:7 ") for r in engine_line("婚姻").deciding)


@pytest.mark.parametrize(("lang", "word"), [("ko", "재물"), ("lzh", "財")])
async def test_console_first_screen_topics_typed_and_basis(ctx, clock, lang, word):
    clock.set(AT)
    session = await console_in(ctx, lang)
    first = await session.answer(f"/cast 庚辰 8 {word}")
    assert_leads(first, lang, "求財")
    heading = gettext(lang, "chat.page.console_topics", topics="")
    [topic_line] = [line for line in first.splitlines() if line.startswith(heading)]
    for _, topic, label in TOPIC_BUTTONS:  # each topic by its button's name, typed: the same row #1
        assert gettext(lang, label) in topic_line
        shown = await session.answer(gettext(lang, label))
        assert shown.startswith(gettext(lang, "bot.cast.title") + " · #1")
        assert_leads(shown, lang, topic)
    assert await ctx.storage.count_history("console:local") == 1  # no row added by a topic

    await session.answer("1")  # back to the cast as asked (a topic in view would give the 據 of that topic)
    basis = await session.answer(gettext(lang, "chat.page.cast.basis").split()[0])  # 據
    verdict = judge(chart_for_ju(GanZhi.parse("庚辰"), 8), None)  # the stored row asks 求財: no 類神 heading
    assert gettext(lang, "liuren.topics.note.no_weights") in basis  # the texts give no weights, plainly
    assert gettext(lang, "liuren.verdict.note.no_weights") in basis
    counted = [r for r in engine_line("求財").reasons if r.counted] + [
        r for r in verdict.reasons if r.counted
    ]
    assert counted
    for reason in counted:  # every counted reason, with its direction and its whole source
        text = reason.to_json()["text" if lang == "lzh" else "text_ko"]
        assert any(
            text in ln
            and ln.startswith(SIGN[reason.direction])
            and ln.endswith(typeset(lang, cite(lang, reason.source)))
            for ln in basis.splitlines()
        ), text


async def test_console_now_a_topic_rereads_the_stored_moment(ctx, clock):
    clock.set(AT)
    session = ConsoleSession(ctx)
    first = await session.answer("/cast now 재물")
    when = next(ln for ln in first.splitlines() if "UTC+09:00" in ln)
    assert gettext("ko", "chat.cast.topic").split("{")[0] + topic_name("ko", "求財") in first
    clock.set(AT + timedelta(hours=7))  # another 時辰, another day in Seoul: a recast would show it
    shown = await session.answer("질병")
    assert when in shown and topic_name("ko", "疾病") in shown
    assert await ctx.storage.count_history("console:local") == 1
    # without a topic the first screen is as before: no topic line
    plain = await session.answer("/cast 庚辰 8")
    assert gettext("ko", "chat.cast.topic").split("{")[0] not in plain


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_topic_buttons_reread_the_same_row(tg, tmp_path, lang):
    chat = user = 3201
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), AT, lang) as run:
        [first] = await ask(tg, run, "/cast 庚辰 8 " + ("재물" if lang == "ko" else "財"), chat,
                            user_id=user, language_code=lang)  # fmt: skip
        text = visible_text(first.result.get("caption") or first.html, "HTML")
        assert_leads(text, lang, "求財")
        keys = buttons(first)
        labels = {gettext(lang, label): key for key, _, label in TOPIC_BUTTONS}
        topic_keys = [b for b in keys if page_of(b) in labels.values()]
        assert [b["text"].removeprefix("• ") for b in topic_keys] == list(labels)
        assert all(unsealed(b["callback_data"]) != b["callback_data"] for b in topic_keys)  # sealed
        for key, topic in (("hun", "婚姻"), ("song", "爭訟")):
            button = next(b for b in topic_keys if page_of(b) == key)
            edit, shown = await press(tg, run, button, first.result, chat, user_id=user, language_code=lang)
            assert shown.startswith(gettext(lang, "bot.cast.title") + " · #1")
            assert_leads(shown, lang, topic)
            [marked] = [b for b in buttons(edit) if b["text"].startswith("• ")]
            assert page_of(marked) == key  # the topic shown is the marked button
        assert await run.ctx.storage.count_history(f"telegram:{user}") == 1
        assert len([c for c in tg.calls if c.method in ("sendPhoto", "sendMessage")]) == 1


async def test_discord_topic_buttons_reread_the_same_row(dc, tmp_path):
    async with discord_at(dc, str(tmp_path / "db.sqlite"), AT) as ctx:
        inter = await dc.slash("cast", {"when": "庚辰 8", "category": "재물"})
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        assert_leads("\n" + first["embeds"][0]["description"].replace("\\", ""), "ko", "求財")
        keys = {page_of(b): b for b in components(first)}
        assert all(key in keys for key, _, _ in TOPIC_BUTTONS)
        pressed = await dc.press(first, keys["hun"]["custom_id"], user_id=dc.user_id)
        await dc.wait_acked(pressed, timeout=10)
        assert pressed.ack_type == 7  # the same message, edited
        [embed] = pressed.original["embeds"]
        assert_leads("\n" + embed["description"].replace("\\", ""), "ko", "婚姻")
        assert embed["title"].endswith("#1")
        assert await ctx.storage.count_history(f"discord:{dc.user_id}") == 1
        basis = await dc.press(first, keys["basis"]["custom_id"], user_id=dc.user_id)
        await dc.wait_acked(basis, timeout=10)
        assert gettext("ko", "liuren.topics.note.no_weights") in re.sub(
            r"\\(.)", r"\1", basis.original["embeds"][0]["description"]
        )


def assert_basis_of(text: str, lang: str, topic: str, other: str) -> None:
    """The 據/근거 page lists ``topic`` (the one the user turned to) with every counted reason of its line and
    its whole source, and not ``other`` (the row's own topic)."""
    heading = gettext(lang, "chat.cast.topic").split("{")[0]
    assert heading + topic_name(lang, topic) in text
    assert heading + topic_name(lang, other) not in text
    counted = [r for r in engine_line(topic).reasons if r.counted]
    assert counted
    for reason in counted:
        words = reason.to_json()["text" if lang == "lzh" else "text_ko"]
        assert any(
            words in ln and ln.endswith(typeset(lang, cite(lang, reason.source))) for ln in text.splitlines()
        ), words


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_console_basis_follows_the_topic_turned_to(ctx, clock, lang):
    clock.set(AT)
    session = await console_in(ctx, lang)
    await session.answer("/cast 庚辰 8 " + ("재물" if lang == "ko" else "財"))
    await session.answer(gettext(lang, "chat.topic.hunyin"))  # 혼인 / 婚姻 typed: the row read for 婚姻
    basis = await session.answer(gettext(lang, "chat.page.cast.basis").split()[0])
    assert_basis_of(basis, lang, "婚姻", "求財")
    await session.answer("2")  # another page keeps the topic in view
    assert_basis_of(await session.answer("5"), lang, "婚姻", "求財")
    await session.answer("1")  # the first page is the cast as asked again
    assert_basis_of(await session.answer("5"), lang, "求財", "婚姻")
    assert await ctx.storage.count_history("console:local") == 1


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_basis_follows_the_topic_pressed(tg, tmp_path, lang):
    chat = user = 3202
    async with telegram_at(tg, str(tmp_path / "db.sqlite"), AT, lang) as run:
        [first] = await ask(tg, run, "/cast 庚辰 8 " + ("재물" if lang == "ko" else "財"), chat,
                            user_id=user, language_code=lang)  # fmt: skip
        hun = next(b for b in buttons(first) if page_of(b) == "hun")
        edit, _ = await press(tg, run, hun, first.result, chat, user_id=user, language_code=lang)
        basis_button = next(b for b in buttons(edit) if page_of(b).split(".")[0] == "basis")
        edit, shown = await press(tg, run, basis_button, first.result, chat, user_id=user, language_code=lang)
        parts = [b for b in buttons(edit) if unsealed(b["callback_data"]).startswith("c:")]
        for part in parts:  # a page longer than a caption: its parts read the same topic
            shown += (
                "\n" + (await press(tg, run, part, first.result, chat, user_id=user, language_code=lang))[1]
            )
        assert_basis_of(shown, lang, "婚姻", "求財")
        marked = {page_of(b) for b in buttons(edit) if b["text"].startswith("• ") and "callback_data" in b
                  and not unsealed(b["callback_data"]).startswith("c:")}  # fmt: skip
        assert marked == {"basis.hun", "hun"}  # the 근거 page and the topic it reads, both marked
        # the first page's button is the cast as asked: its 근거 is the row's own topic again
        brief = next(b for b in buttons(edit) if page_of(b) == "brief")
        edit, _ = await press(tg, run, brief, first.result, chat, user_id=user, language_code=lang)
        basis_button = next(b for b in buttons(edit) if page_of(b).split(".")[0] == "basis")
        assert page_of(basis_button) == "basis"
        assert await run.ctx.storage.count_history(f"telegram:{user}") == 1


async def test_discord_basis_follows_the_topic_pressed(dc, tmp_path):
    async with discord_at(dc, str(tmp_path / "db.sqlite"), AT):
        inter = await dc.slash("cast", {"when": "庚辰 8", "category": "재물"})
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        hun = next(b for b in components(first) if page_of(b) == "hun")
        pressed = await dc.press(first, hun["custom_id"], user_id=dc.user_id)
        await dc.wait_acked(pressed, timeout=10)
        # the page buttons of the 婚姻 page read it: its 근거 button names the topic in view
        embed = await press_component(dc, pressed.original, "basis.hun", user_id=dc.user_id)
        assert_basis_of("\n" + re.sub(r"\\(.)", r"\1", embed["description"]), "ko", "婚姻", "求財")
        # the message's own first buttons (the cast as asked) keep the row's topic
        embed = await press_component(dc, first, "basis", user_id=dc.user_id)
        assert_basis_of("\n" + re.sub(r"\\(.)", r"\1", embed["description"]), "ko", "求財", "婚姻")
