"""Topic readings of every 課 (issue 32 item 2): the topic → 類神 rules of seeds 002/003, the JSON contract of
``sikpan cast --json`` ``topics``/``asked``, and the measure against seed 003's topic lines."""

import json
import sys
from pathlib import Path

import pytest

from bot.cli import main
from engine.core.cycle import Branch, GanZhi, all_ganzhi
from engine.liuren import chart_for_ju
from engine.liuren.topics import read_topic, read_topics, topic_for, topics

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import gen_liuren_readings  # noqa: E402

TOPIC_NAMES = ("天時", "家宅", "婚姻", "胎產", "功名", "求財", "疾病", "失脫", "出行", "行人", "爭訟", "投謁")
SEED = json.loads((ROOT / "tests" / "liuren" / "data" / "seed003_topics.json").read_text(encoding="utf-8"))


def chart(day, ju, **kw):
    return chart_for_ju(GanZhi.parse(day), ju, **kw)


def line(day, ju, name, **kw):
    t = topic_for(name)
    assert t is not None
    return read_topic(chart(day, ju), t, **kw)


def rules(reading):
    return {r.rule for r in reading.reasons if r.counted or r.rule.startswith("tie")}


# ------------------------------------------------------------------------------------------ topic words


@pytest.mark.parametrize(
    ("word", "name"),
    [
        ("재물", "求財"),
        ("求財", "求財"),
        ("돈", "求財"),
        ("혼인", "婚姻"),
        ("婚姻", "婚姻"),
        ("결혼", "婚姻"),
        ("질병", "疾病"),
        ("疾病", "疾病"),
        ("소송", "爭訟"),
        ("訟", "爭訟"),
        ("직장", "功名"),
        ("科名", "功名"),  # seed 003 entry 6 names 功名 「科名」 (003:115)
        ("產孕", "胎產"),  # entry 7 「產孕」 (003:143)
        ("遺失", "失脫"),  # entries 6, 7 「遺失」 (003:119, 003:143)
        ("출행", "出行"),
        ("가택", "家宅"),
        ("투알", "投謁"),
    ],
)
def test_topic_for_names_and_words(word, name):
    t = topic_for(word)
    assert t is not None and t.lzh == name


def test_topic_for_unknown_is_none():
    assert topic_for("엉터리") is None
    assert topic_for("") is None


def test_topics_in_seed_003_order():
    # seed 003 entry 1 (003:15): 天時 家宅 婚姻 胎產 功名 求財 疾病 失脫 出行 行人 爭訟; 投謁 in entries 2, 3
    assert tuple(t.lzh for t in topics()) == TOPIC_NAMES


# ------------------------------------------------------------------------------------ seed-003 facts


def test_entry1_marriage_wife_wealth_sits_empty():
    # 003:15 「婚姻：妻財坐空不宜」 — 寅 (財 of 庚), the 初傳, sits on 酉, 旬空 of the 甲戌旬 (003:7 「因坐空鄉」)
    r = line("庚辰", 8, "婚姻")
    assert r.direction == "凶"
    seat_kong = [x for x in r.reasons if x.rule == "seat_kong"]
    assert seat_kong and dict(seat_kong[0].params)["ls"] == "妻財" and dict(seat_kong[0].params)["b"] == "寅"
    assert "003:7" in seat_kong[0].source


def test_entry1_travel_and_traveller_horse_sits_empty():
    # 003:15 「出行：另改日期」「行人：來遲」 — the 驛馬 寅 (of 辰) is the 初傳, sitting on an empty seat
    for name in ("出行", "行人"):
        r = line("庚辰", 8, name)
        assert r.direction == "凶"
        assert "seat_kong" in rules(r)


def test_entry2_all_stated_lines_but_timing_are_ill():
    # 003:35: 家宅 「門戶冷落」, 婚姻 「不利」, 功名 「毫無實際」, 求財 「百般耗折」, 投謁 「見貴無益」, 疾病 「虛損」,
    # 失脫 「難獲」, 出行 「多費」 — all 凶
    for name in ("家宅", "婚姻", "功名", "求財", "投謁", "疾病", "失脫", "出行"):
        assert line("庚辰", 9, name).direction == "凶", name


def test_entry3_foetus_sits_on_its_defeat():
    # 003:55 「胎產：卯臨敗地，防損」: 庚's 胎 卯 stands over 子, 木's 沐浴 (敗)
    r = line("庚辰", 10, "胎產")
    assert r.direction == "凶"
    own = [x for x in r.reasons if x.rule == "seat_stage_own"]
    assert own and dict(own[0].params)["stage"] == "沐浴" and dict(own[0].params)["seat"] == "子"


def test_entry3_audience_closed_mouth_by_night():
    # 003:47 「夜貴旬尾臨辰，是為閉口」; 003:55 「投謁：不見禮遇」
    r = read_topic(chart("庚辰", 10, daytime=False), topic_for("投謁"))
    assert r.direction == "凶" and "gui_bikou" in rules(r)


def test_entry5_foetus_on_the_plate_over_its_cut():
    # 003:95 「胎產：胎神臨絕地，防傷」: 卯 (庚's 胎) over 寅 (庚's 絕), outside the 課傳
    r = line("庚辰", 12, "胎產")
    assert r.direction == "凶"
    seat = [x for x in r.reasons if x.rule == "seat_stage"]
    assert seat and dict(seat[0].params)["stage"] == "絕" and dict(seat[0].params)["seat"] == "寅"


def test_entry6_traveller_heavenly_net_on_itself():
    # 003:119 「行人：天罡加罡，不動之象」 (伏吟)
    r = line("辛巳", 1, "行人")
    assert r.direction == "凶" and "tiangang_self" in rules(r)


def test_entry6_lost_thing_no_dark_warrior():
    # 003:119 「遺失：元武不見，必非賊竊，尋覓可得」
    r = line("辛巳", 1, "失脫")
    assert r.direction == "吉"
    absent = [x for x in r.reasons if x.rule == "absent"]
    assert absent and absent[0].direction == "吉" and dict(absent[0].params)["ls"] == "玄武"


def test_entry7_office_salary_and_horse_empty():
    # 003:139 「功名：祿馬俱空，占官不吉」: 辛's 祿 酉 旬空
    r = line("辛巳", 2, "功名")
    assert r.direction == "凶" and "kong" in rules(r)


def test_entry7_traveller_arrives_with_ding_in_final():
    # 003:143 「天罡雖則臨巳，然末傳乘丁，行人即至」: 丑 (遁丁) is the 末傳
    r = line("辛巳", 2, "行人")
    assert r.direction == "吉"
    moving = [x for x in r.reasons if x.rule == "moving"]
    assert moving and dict(moving[0].params)["ls"] == "丁神" and dict(moving[0].params)["pos"] == "末傳"
    assert "tiangang_meng" in {x.rule for x in r.reasons}  # named, not counted (「雖…然…」)


def test_entry7_house_rides_vermilion_bird():
    # 003:139 「家宅：休氣臨宅，晝夜皆乘朱雀」: 支上 辰 rides 朱雀 (002:107 「朱雀是非宅」)
    r = line("辛巳", 2, "家宅")
    assert r.direction == "凶"
    g = [x for x in r.reasons if x.rule == "general"]
    assert g and dict(g[0].params)["g"] == "朱雀" and g[0].direction == "凶" and "002:107" in g[0].source


def test_entry7_house_rest_qi_with_a_month():
    # 003:139 「休氣臨宅」: 辰土 is 休 in 秋 (002:67 「休 … 秋辰戌丑未」)
    r = line("辛巳", 2, "家宅", month=Branch.YOU)
    weak = [x for x in r.reasons if x.rule == "vitality_weak"]
    assert weak and dict(weak[0].params)["v"] == "休" and "month_unknown" not in r.notes


def test_year_of_life_fills_the_void():
    # 003:123 「倘命能填實，申金翻成吉課」: an empty branch that is the asker's 本命 is filled. 辛巳 第2局: the 祿 酉
    # on 干上 is 旬空 (003:139 「祿馬俱空」); an asker born in a 酉 year fills it
    plain = line("辛巳", 2, "功名")
    filled = line("辛巳", 2, "功名", birth=Branch.YOU)
    assert "kong" in rules(plain) and "filled" not in rules(plain)
    assert "filled" in rules(filled) and "kong" not in rules(filled)
    assert "ming" in rules(filled)  # the 祿 酉 is the 本命 itself: 003:111 「若得年命有吉神相助」


def test_year_of_life_is_a_place_on_the_board():
    # seed 002 「若問事之人干支三傳占時本命等處見者」: the 天盤 over the asker's 本命 / 行年 is read too. 辛巳 第2局
    # has no 官星 (巳午) in the 課傳 (003:139 「占官不吉」); over a 行年 未 stands 午.
    plain = line("辛巳", 2, "功名")
    assert any(r.rule == "absent" and dict(r.params)["ls"] == "官星" for r in plain.reasons)
    seen = line("辛巳", 2, "功名", xingnian=Branch.WEI)
    assert not any(r.rule == "absent" and dict(r.params)["ls"] == "官星" for r in seen.reasons)
    present = [r for r in seen.reasons if r.rule == "present" and dict(r.params)["ls"] == "官星"]
    assert present and dict(present[0].params)["pos"] == "行年上" and dict(present[0].params)["b"] == "午"
    assert "filled" in rules(
        line("辛巳", 2, "功名", xingnian=Branch.YOU)
    )  # 行年 fills as 本命 does (003:123)


def test_generated_agreement_table_is_current():
    assert gen_liuren_readings.document() == (ROOT / "docs" / "liuren_readings.md").read_text(
        encoding="utf-8"
    )


def test_every_disagreement_is_explained():
    rows = gen_liuren_readings.measure()
    why = SEED["why"]
    for r in rows:
        if r["agrees"] is False:
            assert gen_liuren_readings.key(r) in why, gen_liuren_readings.key(r)
    # no stale explanation for a line that agrees now
    keys = {gen_liuren_readings.key(r) for r in rows if r["agrees"] is False}
    assert set(why) == keys


def test_seed_lines_name_a_topic_and_a_seed_line():
    for entry in SEED["lines"]:
        assert entry["topic"] in TOPIC_NAMES
        assert entry["source"].startswith("003:") and entry["direction"] in (None, "吉", "凶", "平")


# ----------------------------------------------------------------------------------------- all 720 課


def test_every_topic_of_every_ke_has_a_cited_reason():
    for day in all_ganzhi():
        for ju in range(1, 13):
            for daytime in (True, False):
                lines = read_topics(chart_for_ju(day, ju, daytime=daytime))
                assert tuple(x.topic.lzh for x in lines) == TOPIC_NAMES
                for x in lines:
                    assert x.direction in ("吉", "凶", "平")
                    assert x.reasons, (day.chars, ju, x.topic.lzh)
                    assert all(r.source and r.texts()[0] and r.texts()[1] for r in x.reasons)
                    assert "no_weights" in x.notes


def test_weather_is_not_judged():
    # 003:15/35/55 … the 天時 lines forecast the sky (「晴雨調和」「不成甘雨」), they do not judge 吉凶
    for day, ju in ((GanZhi.parse("庚辰"), 8), (GanZhi.parse("辛巳"), 3)):
        assert line(day.chars, ju, "天時").direction == "平"


# ------------------------------------------------------------------------------------------------ CLI


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cast_json_has_every_topic(capsys):
    code, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--json")
    assert code == 0
    data = json.loads(out)
    assert [t["topic"] for t in data["topics"]] == list(TOPIC_NAMES)
    for t in data["topics"]:
        assert t["direction"] in ("吉", "凶", "平")
        assert t["reasons"] and all(r["text"] and r["source"] for r in t["reasons"])
    assert "asked" not in data
    marriage = next(t for t in data["topics"] if t["topic"] == "婚姻")
    assert marriage["direction"] == "凶"  # 003:15 「婚姻：妻財坐空不宜」


@pytest.mark.parametrize(("word", "name"), [("재물", "求財"), ("혼인", "婚姻"), ("疾病", "疾病")])
def test_cast_json_asked(capsys, word, name):
    code, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--json", "--topic", word)
    assert code == 0
    assert json.loads(out)["asked"] == {"word": word, "topic": name}


@pytest.mark.parametrize(("lang", "listed"), [("ko", "재물"), ("ko", "구재"), ("lzh", "求財")])
def test_cast_unknown_topic_is_a_localized_usage_error(capsys, lang, listed):
    code, out, err = run(
        capsys, "cast", "--lang", lang, "--day", "庚辰", "--ju", "8", "--json", "--topic", "엉터리"
    )
    assert code == 2 and out == ""
    assert "엉터리" in err and "error.liuren" not in err
    if listed != "재물":
        assert listed in err


def test_cast_month_and_birth(capsys):
    code, out, _ = run(
        capsys,
        "cast",
        "--day",
        "辛巳",
        "--ju",
        "2",
        "--json",
        "--month",
        "酉",
        "--birth",
        "申",
        "--xingnian",
        "亥",
    )
    assert code == 0
    house = next(t for t in json.loads(out)["topics"] if t["topic"] == "家宅")
    assert "month_unknown" not in house["notes"]
    assert any(r["rule"] == "vitality_weak" for r in house["reasons"])  # 003:139 「休氣臨宅」


@pytest.mark.parametrize(
    ("lang", "head", "line"),
    [("ko", "▶ 혼인: 흉(凶)", "처재(妻財) 寅"), ("lzh", "▶ 婚姻：凶", "妻財寅坐空鄉酉")],
)
def test_cast_text_answers_the_asked_topic_after_the_duan(capsys, lang, head, line):
    # seed 003 order: 斷曰, then the topic lines; 003:15 「婚姻：妻財坐空不宜」
    code, text, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--lang", lang, "--topic", "결혼")
    assert code == 0
    after = text[text.index("▶") - 1 :]
    assert text.index("▶") > text.index("【")  # after the 斷
    assert head in after.splitlines()[0] and line in after.splitlines()[1]
    _, plain, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--lang", lang)
    assert "▶" not in plain  # without a topic asked the text ends in the 斷, as before
