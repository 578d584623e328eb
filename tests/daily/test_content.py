"""What a daily reading contains, checked against independent facts, and that it never changes for a moment.

Independent values used here:
- Day 干支 by counting days from 2000-01-07, a 甲子 day (the sexagenary day count is unbroken).
- 時辰: 07:00–08:59 is 辰時; its stem by 五鼠遁 「戊癸何方發，壬子是真途」 (a 戊 day's 子時 is 壬子, so 辰時 is 丙辰).
- 子初換日 (day start 23:00): at 23:30 the day pillar is already the next day's.
- 小雪 (sun at ecliptic longitude 240°) in 2026: 2026-11-22 07:23 UTC by JPL DE440 (skyfield, computed outside
  the test), i.e. 22 November in Seoul; 大雪 (255°) only in December.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from bot.daily import DailyRenderer, render_daily
from bot.features.daily.reading import (
    KINDS,
    Moment,
    body_context,
    daily_context,
    daily_reply,
    head_context,
)
from bot.views import render
from engine.core.cycle import GanZhi
from tests.daily.conftest import utc
from tests.lexicon.test_lexicon import SEED003_TOPICS

STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"


def day_ganzhi(d: date) -> str:
    i = (d - date(2000, 1, 7)).days % 60
    return STEMS[i % 10] + BRANCHES[i % 12]


def test_day_hour_and_term_of_a_seoul_morning():
    m = Moment.of(utc(2026, 11, 29, 22, 0), "Asia/Seoul")  # 07:00 KST on 30 November
    head, body = head_context(m), body_context(m)
    assert head["date"] == "2026-11-30" and head["time"] == "07:00" and head["offset"] == "UTC+09:00"
    assert body["pillars"]["day"] == day_ganzhi(date(2026, 11, 30)) == "戊申"
    assert head["hour"] == "丙辰"
    assert body["term"] == {"name": "小雪", "date": "2026-11-22"}


def test_zi_hour_day_start_and_midnight_option():
    late = utc(2026, 11, 30, 14, 30)  # 23:30 KST on 30 November
    assert body_context(Moment.of(late, "Asia/Seoul"))["pillars"]["day"] == day_ganzhi(date(2026, 12, 1))
    midnight = Moment.of(late, "Asia/Seoul", day_starts="00:00")
    assert body_context(midnight)["pillars"]["day"] == day_ganzhi(date(2026, 11, 30))


def test_same_instant_different_zones_have_their_own_local_day():
    at = utc(2026, 11, 30, 3, 0)  # 12:00 in Seoul on the 30th, 22:00 in New York on the 29th
    assert body_context(Moment.of(at, "Asia/Seoul"))["pillars"]["day"] == day_ganzhi(date(2026, 11, 30))
    assert body_context(Moment.of(at, "America/New_York"))["pillars"]["day"] == day_ganzhi(date(2026, 11, 29))


def test_liuren_section_is_the_chart_of_the_moment():
    from engine.liuren import chart_at

    at = utc(2026, 11, 29, 22, 0)
    body = body_context(Moment.of(at, "Asia/Seoul"))
    chart = chart_at(at.astimezone(__import__("zoneinfo").ZoneInfo("Asia/Seoul")))
    assert body["liuren"]["day"] == chart.day.chars == "戊申"
    assert body["liuren"]["hour"] == "辰" and body["liuren"]["month_general"] == chart.month_general.char
    assert [t["branch"] for t in body["liuren"]["transmissions"]] == [
        t.branch.char for t in chart.transmissions
    ]
    composed = [r for r in body["liuren"]["readings"] if r["kind"] == "composed"]
    assert composed and [p["role"] for p in composed[0]["positions"]] == ["initial", "middle", "final"]


def test_shensha_summary_is_what_falls_on_the_day():
    from engine.core.cycle import Branch
    from engine.shensha import marks, stem_marks

    body = body_context(Moment.of(utc(2026, 11, 29, 22, 0), "Asia/Seoul"))
    p = body["pillars"]
    day, month, year = GanZhi.parse(p["day"]), Branch.from_char(p["month"][1]), GanZhi.parse(p["year"])
    assert body["shensha"]["branch"] == list(marks(day, month, year)[day.branch])
    assert body["shensha"]["stem"] == list(stem_marks(day, month, year)[day.stem])


def test_liuyao_is_the_time_cast_of_the_moment_and_deterministic():
    from engine.calendar import four_pillars
    from engine.liuyao import build, cast_time

    at = utc(2026, 11, 29, 22, 0)
    m = Moment.of(at, "Asia/Seoul", kind="liuyao")
    local = m.local
    p = four_pillars(local)
    chart = build(cast_time(local), p.month.branch, p.day).to_json()
    body = body_context(m)
    assert body["liuyao"]["main"]["name"] == chart["main"]["name"]
    assert body_context(Moment.of(at, "Asia/Seoul", kind="liuyao")) == body
    # a different day gives a different time cast (the day number enters the count)
    other = body_context(Moment.of(at + timedelta(days=1), "Asia/Seoul", kind="liuyao"))
    assert other["liuyao"]["cast"] != body["liuyao"]["cast"]


@pytest.mark.parametrize("channel", ["telegram", "discord", "console"])
@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize("kind", ["liuren", "liuyao"])
def test_shared_rendering_equals_the_daily_view(channel, lang, kind):
    m = Moment.of(utc(2026, 11, 29, 22, 0), "Asia/Seoul", kind=kind)
    reply = daily_reply(m, lang)
    whole = render(reply, channel)
    assert whole == render_daily(reply.context, lang, channel)
    assert whole == DailyRenderer().text(m, lang, channel)
    assert "daily." not in whole  # every message id is translated
    if lang == "lzh":
        assert not any("\uac00" <= ch <= "\ud7a3" for ch in whole)
    if channel == "telegram":
        from tests.fakes.telegram import visible_text

        visible_text(whole, "HTML")  # valid Telegram HTML (raises otherwise)


def test_renderer_shares_one_chart_per_time_slot():
    r = DailyRenderer()
    base = utc(2026, 11, 29, 22, 0)  # 07:00 KST: 辰時 runs 07:00–08:59
    for minute in range(0, 120, 10):
        r.text(Moment.of(base + timedelta(minutes=minute), "Asia/Seoul"), "ko", "telegram")
    assert r.stats.bodies == 1 and r.stats.heads == 12
    r.text(Moment.of(base + timedelta(hours=2), "Asia/Seoul"), "ko", "telegram")  # 巳時
    assert r.stats.bodies == 2


def test_context_is_json_and_stable():
    m = Moment.of(utc(2026, 3, 8, 12, 0), "America/New_York")
    assert daily_context(m) == daily_context(
        Moment.of(datetime.fromisoformat("2026-03-08T08:00:00-04:00"), "America/New_York")
    )


def test_renderer_memory_is_bounded_and_texts_unchanged():
    r = DailyRenderer(max_heads=3, max_bodies=1)
    base = utc(2026, 11, 29, 22, 0)
    moments = [Moment.of(base + timedelta(hours=h), "Asia/Seoul") for h in range(0, 12, 2)]
    first = [r.text(m, "ko", "console") for m in moments]
    assert len(r._prepared) <= 3 and len(r._bodies) <= 1
    assert [r.text(m, "ko", "console") for m in moments] == first
    assert first == [DailyRenderer().text(m, "ko", "console") for m in moments]


def test_both_kinds_at_one_instant_share_the_pillars_and_keep_their_own_heads():
    """The renderer works the pillars and head once per (instant, zone, day start): the 六爻 reading of the
    same minute gets its own title (its kind), equal to one rendered alone; a pass's end forgets the
    per-minute pieces and keeps the bodies (shared over the 時辰)."""
    r = DailyRenderer()
    at = utc(2026, 11, 29, 22, 0)
    texts = {kind: r.text(Moment.of(at, "Asia/Seoul", kind=kind), "ko", "telegram") for kind in KINDS}
    assert len(r._local) == 1 and texts["liuren"] != texts["liuyao"]
    for kind, text in texts.items():
        assert text == DailyRenderer().text(Moment.of(at, "Asia/Seoul", kind=kind), "ko", "telegram")
    r.end_pass()
    assert not r._local and not r._prepared and not r._heads and r.stats.bodies == 2
    later = r.text(Moment.of(at + timedelta(minutes=1), "Asia/Seoul"), "ko", "telegram")
    assert r.stats.bodies == 2  # the same 辰時 body
    assert later == DailyRenderer().text(Moment.of(at + timedelta(minutes=1), "Asia/Seoul"), "ko", "telegram")


# ---- the first page (issue 32 item 4) ------------------------------------------------------------------


def _seoul(at):
    from zoneinfo import ZoneInfo

    return at.astimezone(ZoneInfo("Asia/Seoul"))


def test_day_line_is_the_engine_verdict_with_the_seed_reading_of_what_decided():
    """The day's 吉/凶 is the 大六壬 verdict of the day's 課 (engine.liuren.verdict, as /cast judges it); what
    decided it is the first counted reason of the deciding position, and its advice is seed 002's 「以X論」
    for it (meanings002: the 論 keyword, its Korean commentary, its source)."""
    from engine.liuren import chart_at
    from engine.liuren.verdict import judge
    from engine.shensha import meanings002

    at = utc(2026, 11, 29, 22, 0)
    body = body_context(Moment.of(at, "Asia/Seoul"))
    verdict = judge(chart_at(_seoul(at))).to_json()
    line = body["verdict"]
    assert (line["direction"], line["decided_by"]) == (verdict["direction"], verdict["decided_by"])
    deciding = [
        r
        for r in verdict["reasons"]
        if r["counted"] and r["role"] == verdict["decided_by"] and r["direction"] == verdict["direction"]
    ]
    meaning = meanings002()[deciding[0]["id"]]
    assert line["reason"]["branch"] == deciding[0]["branch"] and line["reason"]["name"] == meaning["name_lzh"]
    assert line["reason"]["ko"] == meaning["ko"] and line["reason"]["source"] == meaning["source"]
    assert f"以{meaning['lzh']}論" in line["reason"]["lzh"]  # the seed's own words 「以X論」
    text = render_daily(daily_context(Moment.of(at, "Asia/Seoul")), "ko", "console")
    assert meaning["ko"] in text.split("\n\n")[1]  # on the first screen, right after the head


def test_a_balanced_verdict_says_the_texts_give_nothing_to_read():
    from bot.features.daily import summary
    from bot.i18n import gettext

    context = daily_context(Moment.of(utc(2026, 11, 29, 22, 0), "Asia/Seoul"))
    context["body"]["verdict"] = summary.liuren_verdict(
        {"direction": "平", "decided_by": None, "reasons": []}
    )
    for lang in ("ko", "lzh"):
        text = render_daily(context, lang, "console")
        assert (
            gettext(lang, "daily.advice_none") in text
            and gettext(lang, "daily.advice", advice="").strip() not in text
        )


def test_stars_are_split_by_their_nature_with_the_first_words_of_their_meaning():
    from engine.shensha import star

    body = body_context(Moment.of(utc(2026, 11, 29, 22, 0), "Asia/Seoul"))
    names = body["shensha"]["stem"] + body["shensha"]["branch"]
    stars = body["stars"]
    assert sorted(s["name"] for group in stars.values() for s in group) == sorted(names)
    for group, nature in (("ji", "吉"), ("xiong", "凶")):
        for s in stars[group]:
            meaning = star(s["name"]).meaning
            assert star(s["name"]).nature == nature
            assert meaning["ko"].startswith(s["ko"]) and meaning["lzh"].startswith(s["lzh"]) and s["ko"]
    assert all(star(s["name"]).nature not in ("吉", "凶") for s in stars["other"])
    # seed 000: 天德 「主福廕」 is a 吉 star, 劫煞 of the 將星 group a 凶 one (both fall on 戊申 in 亥 month)
    assert "天德" in [s["name"] for s in stars["ji"]] and "劫煞" in [s["name"] for s in stars["xiong"]]


@pytest.mark.parametrize("kind", ["liuren", "liuyao"])
def test_a_chosen_topic_is_its_engine_reading_and_leads_the_page(kind):
    from bot.i18n import gettext
    from engine.liuren import chart_at
    from engine.liuren.topics import read_topic, topic_for

    at = utc(2026, 11, 29, 22, 0)
    chart = chart_at(_seoul(at))
    expected = read_topic(chart, topic_for("求財"), month=chart.moment.month.branch)
    body = body_context(Moment.of(at, "Asia/Seoul", kind=kind, topic="求財"))
    assert body["topic"]["direction"] == expected.direction
    assert [r["lzh"] for r in body["topic"]["reasons"]] == [r.texts()[0] for r in expected.deciding[:3]]
    text = DailyRenderer().text(Moment.of(at, "Asia/Seoul", kind=kind, topic="求財"), "ko", "console")
    assert text.split("\n\n")[1].startswith(gettext("ko", "daily.topic", topic="구재(求財)"))
    # the topic is part of what a body is shared by: the same 時辰 without it is another body
    r = DailyRenderer()
    r.text(Moment.of(at, "Asia/Seoul", kind=kind, topic="求財"), "ko", "console")
    r.text(Moment.of(at, "Asia/Seoul", kind=kind), "ko", "console")
    assert r.stats.bodies == 2
    with pytest.raises(ValueError):
        Moment.of(at, "Asia/Seoul", topic="明日")


def test_on_a_worked_example_of_seed_003_the_advice_is_its_own_judgment():
    """2 November 2026, 19:00 in Seoul is 庚辰 第八局, seed 003's first entry: its 斷曰 「此重審之卦，前引後從，日干拱貴，
    乃升遷吉兆也」 is the day's advice."""
    m = Moment.of(utc(2026, 11, 2, 10, 0), "Asia/Seoul")
    body = body_context(m)
    assert (body["liuren"]["day"], body["liuren"]["ju"]) == ("庚辰", 8)
    seed = body["verdict"]["seed"]
    assert seed["lzh"].startswith("斷曰：此重審之卦，前引後從，日干拱貴，乃升遷吉兆也") or seed[
        "lzh"
    ].startswith("此重審之卦，前引後從，日干拱貴，乃升遷吉兆也")
    assert seed["source"] == "seed 003 entry 1"
    text = render_daily(daily_context(m), "lzh", "console")
    assert "此重審之卦，前引後從，日干拱貴" in text.split("\n\n")[1]
    assert body_context(Moment.of(utc(2026, 11, 29, 22, 0), "Asia/Seoul"))["verdict"]["seed"] is None


def test_the_topics_page_reads_every_topic_of_seed_003():
    from bot.features.base import Reply
    from engine.liuren import chart_at
    from engine.liuren.topics import read_topics

    at = utc(2026, 11, 29, 22, 0)
    chart = chart_at(_seoul(at))
    expected = read_topics(chart, month=chart.moment.month.branch)
    for kind in KINDS:  # a 六爻 subscription's page reads the 大六壬 topics of the same moment
        body = body_context(Moment.of(at, "Asia/Seoul", kind=kind))
        assert [(t["topic"], t["direction"]) for t in body["topics"]] == [
            (r.topic.lzh, r.direction) for r in expected
        ]
        assert [t["reasons"][0]["lzh"] for t in body["topics"]] == [
            r.deciding[0].texts()[0] for r in expected
        ]
    page = render(
        Reply(view="daily", lang="lzh", context=daily_context(Moment.of(at, "Asia/Seoul"))),
        "console",
        page="topics",
    )
    # seed 003's topic order: 天時 家宅 婚姻 胎產 功名 求財 疾病 失脫 出行 行人 爭訟 投謁
    order = [line.split(" ")[0] for line in page.split("\n")[4:] if line]
    assert order == list(SEED003_TOPICS)


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_the_liuyao_line_answers_first_with_the_verdicts_deciding_reasons(lang):
    """A 六爻 subscription's day line is the time cast's answer (its direction for the 用神), then the reasons that
    decided it: the engine's ``Verdict.deciding``, heaviest first, at most three, each signed and citing its
    passage short — what the /liuyao first screen gives for the same hexagram, not a choice of its own."""
    from bot.i18n import cite_short, gettext, term, typeset
    from engine.calendar import four_pillars
    from engine.liuyao import build, cast_time

    shown: set[int] = set()
    for days in range(0, 90, 3):
        at = utc(2026, 11, 29, 22, 0) + timedelta(days=days, hours=days % 24)
        m = Moment.of(at, "Asia/Seoul", kind="liuyao")
        p = four_pillars(m.local)
        verdict = build(cast_time(m.local), p.month.branch, p.day).verdict
        block = DailyRenderer().text(m, lang, "console").split("\n\n")[1].splitlines()
        assert block[0].startswith(gettext(lang, "daily.verdict"))
        assert term(lang, verdict.direction) in block[0] or verdict.direction in block[0]
        deciding = [verdict.reasons[i] for i in verdict.deciding][:3]
        assert len(block) == 1 + len(deciding)
        for line, reason in zip(block[1:], deciding, strict=True):
            assert line.startswith("＋" if reason.weight > 0 else "－")
            assert typeset(lang, cite_short(lang, reason.source)) in line
        if len(deciding) > 1:  # heaviest first, as the engine orders them
            assert abs(deciding[0].weight) >= abs(deciding[1].weight)
        shown.add(len(deciding))
    assert max(shown) >= 2  # lines of more than one reason were checked


def test_the_longest_liuyao_first_page_of_2026_still_fits_a_caption():
    """With its deciding reasons cited, the 六爻 first page still goes out as one photo caption: the longest of
    2026 (every day, every other hour, Seoul, the 家宅 topic leading; found by a search over the year) is
    2026-02-09 13:00, 940 visible characters in Korean."""
    from bot.sending import TELEGRAM_CAPTION_LIMIT
    from tests.fakes.telegram import visible_text

    m = Moment.of(
        datetime.fromisoformat("2026-02-09T13:00:00+09:00"), "Asia/Seoul", kind="liuyao", topic="家宅"
    )
    for lang in ("ko", "lzh"):
        assert len(visible_text(DailyRenderer().text(m, lang, "telegram"), "HTML")) <= TELEGRAM_CAPTION_LIMIT
