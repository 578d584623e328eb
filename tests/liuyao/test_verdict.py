"""Issue 19: every judgment on the 世 and the 用, their direction, and the verdict (seed 000 quoted per test)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.cycle import Branch, GanZhi
from engine.liuyao import MiddleSource, Options, Scatter, build, cast_manual

from .conftest import chart


def reading(coins, month, day, use=None, options=None):
    return build(
        cast_manual(coins), Branch.from_char(month), GanZhi.parse(day), use=use, options=options or Options()
    )


def holding(r, rule, **match):
    return [
        j
        for j in r.judgments
        if j.rule == rule
        and j.holds
        and all((getattr(j, k) if k == "type" else j.get(k)) == v for k, v in match.items())
    ]


# ------------------------------------------------------------------ 三刑 on the 世 kept when a 用 is named


def test_kan_lawsuit_shi_xing_is_grave():
    # 000:39 「官克世而問訟，五克世而問疏，若世刑而大凶也。（身命，謂世及用爻遇之）」: 坎為水, 官鬼 辰 (line 2) 克
    # 世 子 (line 6); 日卯 刑 子 (「卯子子卯之無禮刑」, 000:35).
    r = reading("878878", "午", "丁卯", use="lawsuit")
    (j,) = holding(r, "三刑", subject={"role": "世", "branch": "子", "line": 6, "hidden": False})
    assert j.type == "刑" and j.get("grave") is True and j.direction == "凶"
    assert [(a["source"], a["branch"]) for a in j.get("agents") if a["xing"]] == [("日", "卯")]
    assert any(
        x.weight == min(y.weight for y in r.verdict.reasons) and "大凶" in x.text for x in r.verdict.reasons
    )
    assert r.verdict.direction == "凶"
    # shown, not weighed: 世 子水 is 克ed by the 用 辰土, 應 午火 生s it
    assert r.verdict.to_json()["relations"] == {"世": "用克", "應": "生用"}
    # The same 刑 without --use (the 世 is the 用), and not 大凶 there: the question is not a lawsuit.
    bare = reading("878878", "午", "丁卯")
    (j2,) = holding(bare, "三刑", subject={"role": "世", "branch": "子", "line": 6, "hidden": False})
    assert j2.get("grave") is False


@pytest.mark.parametrize(
    ("use", "cited"),
    [
        (None, "000:3 「世爻逢旺相者弗能傷」"),  # the 世 is the 用: 000:3 speaks of the 世
        ("illness", "000:3 「世爻逢旺相者弗能傷」"),  # illness reads the 世 (000:3 「問者之身也」)
        ("官鬼", "000:15 「旺大衰小」"),  # the 鬼: 000:15 「總之以鬼為忌者…旺大衰小」
        ("lawsuit", "000:15 「旺大衰小」"),
    ],
)
def test_month_strength_cites_the_rule_of_its_use(use, cited):
    (v,) = [x for x in reading("878878", "午", "丁卯", use=use).verdict.reasons if x.code == "vitality"]
    assert v.source.startswith(cited)


def test_month_strength_of_other_relatives_is_not_the_shi_rule():
    # 000:3 「世爻逢旺相者弗能傷」 is about the 世; a 妻財 用 has only the 月令 rule (spec §3), outside the seeds
    for use in ("妻財", "父母", "子孫", "wealth"):
        r = reading("787787", "子", "甲申", use=use)
        (v,) = [x for x in r.verdict.reasons if x.code == "vitality"]
        assert r.verdict.use.role == "用"
        assert "000:3" not in v.source and "月令" in v.source


def test_kan_petition_ruler_controls_shi_is_grave():
    # 000:39 「五克世而問疏，若世刑而大凶也」: 坎為水, the 五爻 戌土 克 the 世 子水 (line 6); 日卯 刑 子. The 疏
    # (petition) category reads the 世 (the petitioner) and makes that 刑 大凶.
    r = reading("878878", "午", "丁卯", use="疏")
    assert r.chart.use is not None and r.chart.use.category == "petition" and r.chart.use.shi
    (j,) = holding(r, "三刑", subject={"role": "世", "branch": "子", "line": 6, "hidden": False})
    assert j.get("grave") is True and j.get("grave_by") == "五"
    (grave,) = [x for x in r.verdict.reasons if "大凶" in x.text]
    assert grave.source == "000:39 「五克世而問疏，若世刑而大凶也」"
    assert reading("878878", "午", "丁卯", use="상소").chart.use.category == "petition"
    # the lawsuit's 大凶 cites its own clause
    law = reading("878878", "午", "丁卯", use="lawsuit")
    assert [x.source for x in law.verdict.reasons if "大凶" in x.text] == [
        "000:39 「官克世而問訟…若世刑而大凶也」"
    ]


# ------------------------------------------------------------------ 六害卦: the 用's partner-line 害


def test_xiao_chu_use_partner_line_harm():
    # 000:47 注 「大抵六害重克害，克害重用爻世爻，及應克世，若姤恆小畜益卦，雖存六害之名，當察其用而權之」:
    # 小畜 (巽宮): 用 妻財 辰 on line 3 harmed by 卯 on line 6 (卯木 克 辰土: 克害, 彼克我).
    r = reading("777877", "午", "甲子", use="妻財")
    assert "六害卦" in r.chart.flags
    (j,) = holding(r, "六害", subject={"role": "用", "branch": "辰", "line": 3, "hidden": False})
    assert (j.type, j.get("agent"), j.get("agent_line"), j.get("relation")) == ("克害", "6爻", 6, "彼克我")
    # 未 on line 4 against 子 on line 1: 未土 克 子水 — 我克彼, weighed lighter than 彼克我 (000:47
    # 「我克彼者，我強而彼弱，志相惡爾；彼克我者，彼剛而我柔，力被制爾」).
    (k,) = holding(r, "六害", subject={"role": "用", "branch": "未", "line": 4, "hidden": False}, agent="1爻")
    assert (k.type, k.get("relation")) == ("克害", "我克彼")
    assert j.get("weight") > k.get("weight")


def test_gou_use_partner_line_harm():
    # 姤 (乾宮): 用 子孫 亥 on line 2 against 申 on line 5 (申金 生 亥水: 生害, lighter than 克害: 「六害重克害」).
    r = reading("877777", "寅", "甲子", use="子孫")
    (j,) = holding(r, "六害", subject={"role": "用", "branch": "亥", "line": 2, "hidden": False})
    assert (j.type, j.get("agent_line"), j.get("relation"), j.get("heavy")) == ("生害", 5, "彼生我", False)
    xiao_chu = reading("777877", "午", "甲子", use="妻財")
    ke = [k.get("weight") for k in holding(xiao_chu, "六害") if k.type == "克害"]
    assert ke and j.get("weight") < min(ke)  # 生害 below every 克害


def test_two_liuhai_told_apart():
    # 000:43 注 「古亦稱穿心六害」 (the judgment) vs 000:95 「馬前六害」 (the 將星-family star on a line).
    r = reading("777977", "卯", "甲子")  # 乾, line 4 午 moving; in 卯月 the star 六害 (馬前) is 午
    assert "六害" in r.analysis[3].stars
    data = r.to_json()
    harms = [j for j in data["judgments"] if j["rule"] == "六害"]
    assert harms and all((j["id"], j["name"]) == ("chuanxin_liuhai", "穿心六害") for j in harms)


# ------------------------------------------------------------------ 局會: 中神 source and 散


def test_middle_from_day_is_an_option_not_the_default():
    # 000:19 「中神主也，失其主則不能會」: 乾 with 寅 (line 2) and 戌 (line 6) moving and 午 only as the day.
    r = reading("797779", "寅", "甲午")
    assert [j.type for j in r.judgments if j.rule == "局會"] == [None]
    assert r.to_json()["options"]["middle_source"] == "hexagram"
    r2 = reading("797779", "寅", "甲午", options=Options(middle_source=MiddleSource.DAY_MONTH))
    (j,) = [j for j in r2.judgments if j.rule == "局會" and j.get("ju") == "寅午戌"]
    assert j.checks[0].params == (("middle", "午"), ("source", "日月"))


def test_scattered_middle_breaks_the_ju():
    # 000:19 「傷其中則不能局」 with 000:15 「惟空破散」: 乾之既濟 (000:23, 動會) with a 子 day 沖ing the moving 午.
    ok = chart("乾", "既濟", "寅", "戊戌", use="官")
    assert [j.holds for j in ok.judgments if j.rule == "局會" and j.get("ju") == "寅午戌"] == [True]
    r = chart("乾", "既濟", "寅", "丙子", use="官")
    (j,) = [j for j in r.judgments if j.rule == "局會" and j.get("ju") == "寅午戌"]
    assert not j.holds and {c.code: c.ok for c in j.checks}["middle_intact"] is False
    r2 = chart("乾", "既濟", "寅", "丙子", use="官", options=Options(scatter=Scatter.NONE))
    (j2,) = [j for j in r2.judgments if j.rule == "局會" and j.get("ju") == "寅午戌"]
    assert j2.holds


# ------------------------------------------------------------------ illness: the 世 is the 用, the 鬼 the 忌


def test_illness_takes_the_shi():
    # 000:15 「占疾病枕蓆之患未離…總之以鬼為忌者」, 000:11 注 「以鬼為害」, 000:3 「夫世爻…問者之身也」.
    r = reading("787787", "子", "甲申", use="illness")
    assert r.chart.use is not None and r.chart.use.shi and r.chart.use.avoid is not None
    assert r.chart.use.avoid.char == "官鬼"
    v = r.verdict.to_json()
    assert v["use"] == {
        "relative": "兄弟",
        "line": 6,
        "branch": "巳",
        "role": "世",
        "hidden": False,
        "moving": False,
    }
    assert any(x["code"] == "ghost_controls_shi" for x in v["reasons"])  # 000:15 「亦嫌其克世」
    same = reading("787787", "子", "甲申", use="世").verdict
    assert same.use == r.verdict.use


def test_moving_ghost_weighs_once_and_its_speed_is_timing():
    # issue 32: 離之噬嗑 (789787): the 忌鬼 亥 (line 3) moves. 000:15 「總之以鬼為忌者…靜遲動速，旺大衰小」: 「靜遲動速」
    # says how soon, not how ill — it is reported as timing, not weighed; the 鬼 weighs once, as the 忌神 that 克s
    # the 用 (here the 世 itself, so its 克世 is that same fact: 000:15 「即以官為用者，亦嫌其克世」 is not counted again).
    v = reading("789787", "子", "甲申", use="illness").verdict
    codes = [x.code for x in v.reasons]
    assert codes.count("helper") == 1 and "ghost_active" not in codes and "ghost_controls_shi" not in codes
    assert [(t.code, t.weight, t.source) for t in v.timing] == [("ghost_active", 0, "000:15 「靜遲動速」")]
    assert v.score == sum(x.weight for x in v.reasons)
    assert v.to_json()["timing"][0]["text"].endswith("動·速")


def test_the_deciding_reasons_are_the_heaviest_the_way_the_sum_points():
    # issue 32 item 3 (a first screen names two or three): 坎 asked of a lawsuit on 午 月 丁卯 日 — 000:39
    # 「官克世而問訟…若世刑而大凶也」 (日卯 刑 the 世 子 while 官 辰 克s it) outweighs every other reason, then the 六害 of
    # the 用 辰 by 日卯 (000:47 「彼克我」 above 「我克彼」), then the 官 克世 (000:15); the month's 相 (+) points the
    # other way and does not decide.
    v = reading("878878", "午", "丁卯", use="lawsuit").verdict
    deciding = [v.reasons[i] for i in v.deciding]
    assert v.direction == "凶" and all(r.weight < 0 for r in deciding)
    assert deciding[0].source.startswith("000:39 ") and deciding[0].text.endswith("大凶")
    assert [r.code for r in deciding[1:3]] == ["judgment", "ghost_controls_shi"]
    assert "穿心六害" in deciding[1].text and "vitality" not in [r.code for r in deciding]
    assert [abs(r.weight) for r in deciding] == sorted((abs(r.weight) for r in deciding), reverse=True)
    assert v.to_json()["deciding"] == list(v.deciding)
    # asked nothing, the 世 子: 月破 (子午沖) first — 000:39 puts 旬空月破 above a 刑 (「不及旬空月破之凶也」)
    plain = reading("878878", "午", "丁卯").verdict
    assert plain.reasons[plain.deciding[0]].code == "month_break"
    # 平: the sum is 0 and every reason is listed, both sides, heaviest first
    even = reading("987698", "午", "丁卯", use="wealth").verdict
    assert even.direction == "平" and sorted(even.deciding) == list(range(len(even.reasons)))
    assert {even.reasons[i].weight > 0 for i in even.deciding} == {True, False}


def test_illness_ghost_empty_is_good():
    # 000:15 「總之以鬼為忌者…惟空破散則吉也」: 離 (離宮火), 官鬼 亥 (line 3) is 旬空 on 丙寅 (甲子旬 戌亥空).
    r = reading("787787", "子", "丙寅", use="illness")
    assert r.chart.lines[2].condition.empty
    assert any(x.code == "ghost_damaged" and x.weight > 0 for x in r.verdict.reasons)


# ------------------------------------------------------------------ direction: 反吉


def test_husband_reverses_zhu_gui():
    # 000:11 「若女占夫而官星為用者，遇之反吉也；占官驟升，占武即發。（大抵用官吉而用財凶，世爻尤凶也。）」: 離,
    # 官鬼 亥 克 世 巳, 日申 生 亥 (真生, 000:7 「申日之離」).
    r = reading("787787", "子", "甲申", use="husband")
    (j,) = holding(r, "助鬼傷身")
    assert j.direction == "吉" and j.reversed and "000:11" in j.source
    w = reading("787787", "子", "甲申", use="wealth")
    (k,) = holding(w, "助鬼傷身")
    assert k.direction == "凶" and not k.reversed
    # 000:15 「占訟有重責之憂…總之以鬼為忌者，助傷固凶」: a lawsuit is not reversed.
    (m,) = holding(reading("787787", "子", "甲申", use="lawsuit"), "助鬼傷身")
    assert m.direction == "凶" and not m.reversed
    assert r.verdict.score > w.verdict.score


# ------------------------------------------------------------------ the verdict


def test_verdict_changes_with_the_use():
    # 乾之既濟 in 寅月 on 戊戌: 用官 (午, moving, in a 成 火局) against 用兄弟 (申, 火局 克 金).
    a = chart("乾", "既濟", "寅", "戊戌", use="官").verdict
    b = chart("乾", "既濟", "寅", "戊戌", use="兄弟").verdict
    assert (a.use.relative.char, a.use.branch.char, a.use.line) == ("官鬼", "午", 4)
    assert (b.use.relative.char, b.use.branch.char, b.use.line) == ("兄弟", "申", 5)
    ja = [r for r in a.reasons if "寅午戌" in r.text]
    jb = [r for r in b.reasons if "寅午戌" in r.text]
    assert ja and jb and ja[0].weight > 0 > jb[0].weight  # 000:27 「生克之理若一」
    assert a.direction == "吉" and b.direction == "凶"


def test_hidden_use_is_read_from_its_fushen():
    # 姤 lacks 妻財: the 用 is the 伏 甲寅 under line 2 (spec §3 用神).
    v = chart("姤", None, "寅", "戊戌", use="妻財").verdict
    assert (v.use.hidden, v.use.line, v.use.branch.char) == (True, 2, "寅")


@settings(max_examples=60, deadline=None)
@given(
    digits=st.text(alphabet="6789", min_size=6, max_size=6),
    month=st.sampled_from(list(Branch)),
    day=st.integers(0, 59),
    use=st.sampled_from(
        [None, "父母", "兄弟", "子孫", "妻財", "官鬼", "世", "illness", "lawsuit", "husband"]
    ),
)
def test_every_cast_ends_in_a_verdict(digits, month, day, use):
    r = build(cast_manual(digits), month, GanZhi.of(day), use=use)
    data = json.loads(json.dumps(r.to_json(), ensure_ascii=False))
    v = data["verdict"]
    assert set(v["use"]) >= {"relative", "line", "branch"} and v["direction"] in ("吉", "凶", "平")
    assert v["reasons"] and all(
        set(x) >= {"text", "source"} and x["text"] and x["source"] for x in v["reasons"]
    )
    assert v["direction"] == ("吉" if v["score"] > 0 else "凶" if v["score"] < 0 else "平")
    assert v["score"] == sum(x["weight"] for x in v["reasons"])
    if use in ("父母", "兄弟", "子孫", "妻財", "官鬼"):
        assert v["use"]["relative"] == use
    if use in (None, "世", "illness"):
        assert v["use"]["role"] == "世" and v["use"]["line"] == r.chart.main.shi
    for j in data["judgments"]:
        assert {"rule", "holds", "type", "subject", "direction"} <= set(j)
        assert {"role", "branch", "line"} <= set(j["subject"]) and j["direction"] in ("吉", "凶")
    assert len(data["analysis"]) == 6


@pytest.mark.parametrize("use", ["世", "世爻"])
def test_use_shi_is_accepted(use):
    r = reading("878878", "午", "丁卯", use=use)
    assert r.chart.use is not None and r.chart.use.shi and r.chart.use.lines == (6,)
