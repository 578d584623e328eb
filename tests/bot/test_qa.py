"""Fixes from the bot QA pass: echo limits, the find_spec cache, /forget confirmation, /place city names,
/qizheng with a place name and the user's consent for keeping birth data, labelled /settings."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.commands import ECHO_LIMIT
from bot.i18n import gettext
from bot.views import CHANNELS, render


def _qizheng():
    import engine.qizheng

    return engine.qizheng


async def test_echoed_input_is_cut_in_error_messages(say):
    r = await say("/cast " + "x" * 5000)
    assert r.view == "error"
    assert all(len(str(v)) <= ECHO_LIMIT for v in r.context["params"].values())
    for channel in CHANNELS:
        assert len(render(r, channel)) < 300, channel


async def test_forget_asks_before_deleting(say, ctx):
    await say("/cast 庚辰 8")
    ask = await say("/forget")
    assert ask.view == "forget" and ask.context["confirm"] is True and ask.context["casts"] == 1
    assert await ctx.storage.count_history("console:u1") == 1  # nothing deleted yet
    for lang in ("ko", "lzh"):
        text = render(ask.__class__(ask.view, lang, ask.context), "console")
        assert gettext(lang, "bot.forget.confirm", casts=1) in text and "/forget yes" in text
    bad = await say("/forget maybe")
    assert bad.view == "error" and bad.context["code"] == "bot.error.forget_usage"
    assert await ctx.storage.count_history("console:u1") == 1
    done = await say("/forget 확인")
    assert done.view == "forget" and done.context["confirm"] is False and done.context["casts"] == 1
    assert await ctx.storage.count_history("console:u1") == 0
    assert await ctx.storage.get_user("console:u1") is None


async def test_place_keeps_the_city_name(say, ctx):
    engine = _qizheng()
    seoul = engine.find_place("Seoul")
    r = await say("/place 서울")
    assert r.context["city"]["ko"] == seoul.ko and r.context["city"]["zh"] == seoul.zh
    user = await ctx.storage.get_user("console:u1")
    assert user.place_name["name"] == "Seoul"
    settings = await say("/settings")
    assert settings.context["city"]["name"] == "Seoul"
    assert seoul.ko in render(settings, "console")
    await say("/lang lzh")
    assert seoul.zh in render(await say("/settings"), "telegram")
    shown = await say("/place")  # just looking: the name is still there
    assert shown.context["city"]["name"] == "Seoul" and shown.context["changed"] is False
    await say("/place 126.98 37.57")  # bare coordinates are no longer that city
    assert (await ctx.storage.get_user("console:u1")).place_name is None
    assert (await say("/place")).context["city"] is None


async def test_place_offers_the_city_zone_only_when_it_differs(say):
    _qizheng()
    assert (await say("/place 서울")).context["city"]["tz"] is None  # Seoul is the default zone already
    await say("/tz America/New_York")
    r = await say("/place 서울")
    assert r.context["city"]["tz"] == "Asia/Seoul"
    assert "/tz Asia/Seoul" in render(r, "console")


async def test_qizheng_takes_a_place_name_and_keeps_nothing_without_consent(say, ctx):
    engine = _qizheng()
    seoul = engine.find_place("서울")
    await say("/tz America/New_York")  # a birth time is read on the birth place's clock, not the user's
    r = await say("/qizheng 1990-05-17 14:30 서울")
    assert r.view == "qizheng", r.context
    assert r.context["when"]["zone"] == seoul.tz == "Asia/Seoul"
    assert r.context["when"]["local"] == "1990-05-17 14:30" and r.context["when"]["offset"] == "UTC+09:00"
    assert (r.context["when"]["lon"], r.context["when"]["lat"]) == (round(seoul.lon, 4), round(seoul.lat, 4))
    # year pillar by the 立春 rule of spec/calendar.md §2: (1990 − 4) mod 60 = 6 → 庚午
    assert r.context["year"] == "庚午"
    assert r.context["no"] is None and r.context["saved"] is False
    assert await ctx.storage.count_history("console:u1") == 0
    assert (await ctx.storage.get_user("console:u1")).birth is None
    text = render(r, "console")
    assert gettext("ko", "bot.qizheng.not_saved") in text and "/qizheng 1990-05-17 14:30 서울 save" in text
    assert seoul.ko in text
    # a bare /qizheng has nothing to reuse
    bare = await say("/qizheng")
    assert bare.view == "error" and bare.context["code"] == "bot.error.qizheng_usage"
    unknown = await say("/qizheng 1990-05-17 14:30 Atlantis")
    assert unknown.view == "error" and unknown.context["code"] == "error.qizheng.unknown_place"


async def test_qizheng_keeps_birth_data_only_with_consent(say, ctx):
    _qizheng()
    saved = await say("/qizheng 1990-05-17 14:30 서울 save")
    assert saved.context["saved"] is True and saved.context["no"] == 1
    user = await ctx.storage.get_user("console:u1")
    assert user.birth["at"] == "1990-05-17T14:30:00+09:00" and user.birth["place"]["name"] == "Seoul"
    assert gettext("ko", "bot.qizheng.saved") in render(saved, "console")
    again = await say("/qizheng")  # the stored birth data, used because the user consented
    assert again.view == "qizheng" and again.context["bodies"] == saved.context["bodies"]
    assert again.context["no"] == 2
    assert (await say("/settings")).context["birth_saved"] is True
    gone = await say("/qizheng forget")
    assert gone.view == "qizheng_birth"
    assert (await ctx.storage.get_user("console:u1")).birth is None
    assert (await say("/qizheng")).view == "error"


async def test_qizheng_shows_exactly_the_clauses_that_hold(say):
    engine = _qizheng()
    seoul = engine.find_place("Seoul")
    at = datetime(1990, 5, 17, 14, 30, tzinfo=ZoneInfo("Asia/Seoul"))
    patterns = engine.natal_chart(at, round(seoul.lon, 4), round(seoul.lat, 4)).to_json()["patterns"]
    held = [p for p in patterns if p["holds"] is True]
    not_held = [p for p in patterns if p["holds"] is not True]
    assert held and not_held  # the case exercises both sides
    r = await say("/qizheng 1990-05-17 14:30 서울")
    assert [p["id"] for p in r.context["patterns"]] == [p["id"] for p in held]
    ko = render(r, "telegram")
    for p in held:
        assert p["quote_ko"] in ko  # the clause in the user's language …
    lzh = render(r.__class__(r.view, "lzh", r.context), "discord")
    for p in held:
        assert p["quote"] in lzh  # … and in Classical Chinese for lzh
    for p in not_held:
        assert f"「{p['quote']}」" not in ko and f"「{p['quote']}」" not in lzh


async def test_qizheng_renders_korean_readings(say):
    _qizheng()
    r = await say("/qizheng 1990-05-17 14:30 서울")
    text = render(r, "console")
    # readings from locales/ko/terms (core 干支, qizheng 七政四餘 names)
    for reading in ("경오(庚午)", "태양(太陽)", "명궁(命宮)"):
        assert reading in text


async def test_settings_label_each_option(say):
    r = await say("/settings")
    labelled = {o["name"]: o["label"] for o in r.context["options"]}
    assert labelled["day_starts"] == "bot.opt.day_starts"
    # each option by its name and its value's name, not their codes (issue 32 item 6), on its group's page (the
    # overview lists only what differs from the defaults)
    text = render(await say("/settings bot"), "console") + render(await say("/settings liuren"), "console")
    assert gettext("ko", "bot.opt.solar_time") + ": " + gettext("ko", "chat.settings.off") in text
    if "liuren.gui_rule" in labelled:
        assert labelled["liuren.gui_rule"] == "liuren.opt.gui_rule"
        assert gettext("ko", "liuren.opt.gui_rule") + ": " + gettext("ko", "liuren.optval.liuren") in text
        assert "liuren.gui_rule" not in text


async def test_a_word_that_is_no_day_gets_the_cast_usage(say):
    for text in ("/cast tomorrow", "/cast <b>x</b>", "/cast @everyone"):
        r = await say(text)
        assert r.view == "error" and r.context["code"] == "bot.error.cast_usage", text
    r = await say("/cast 甲丑 8")  # shaped like a 干支: the engine's precise message, and where to read more
    assert r.context["code"] == "error.not_a_ganzhi" and r.context["help_for"] == "cast"
    text = render(r, "console")
    assert text.splitlines()[0] == "⚠ " + gettext("ko", "error.not_a_ganzhi", value="甲丑")
    assert text.splitlines()[1] == gettext("ko", "bot.error.see_help") + " /help cast"


async def test_liuyao_marks_and_history_have_korean_readings(say):
    r = await say("/liuyao 797979")
    assert r.view == "liuyao"
    text = render(r, "console")
    # 乾為天 (seed 000): readings of the hexagram and of the stars on its lines (locales/ko/terms)
    assert "건위천(乾為天)" in text
    marked = [m for line in r.context["lines"] for m in line.get("marks", [])]
    assert marked
    from bot.i18n import both

    for mark in marked:
        assert both("ko", mark) in text
    history = render(await say("/history"), "console")
    assert "건위천(乾為天)" in history


async def test_qizheng_can_be_asked_without_arguments_on_discord(say):
    from bot.commands import COMMANDS

    assert not COMMANDS["qizheng"].args[0].required  # a bare /qizheng uses the saved birth data


async def test_history_summarizes_today(say, clock):
    r = await say("/today")
    assert r.view == "daily"
    listing = await say("/history")
    entry = listing.context["entries"][0]
    day = r.context["body"]["pillars"]["day"]
    # 2024-02-04 12:30 in Seoul (the fixture's clock) is a 戊戌 day (spec/calendar.md §2 checks)
    assert entry["summary"]["day"] == day == "戊戌"
    assert "무술(戊戌) " + gettext("ko", "bot.history.reading.liuren") in render(listing, "console")


async def test_history_before_zero_is_refused(say):
    await say("/cast 庚辰 8")
    r = await say("/history 0")
    assert r.view == "error" and r.context["code"] == "bot.error.bad_number"
    assert (await say("/history 2")).context["entries"][0]["no"] == 1
