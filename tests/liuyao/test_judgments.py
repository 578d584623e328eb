"""Every worked example of seed 000 (《易冒》, /work/shared/seeds/000_*.txt; ``000:N`` = line N).

The examples name a month 建 and a day; where the text names only the day **branch** (助傷章), the test picks a
concrete 干支 and month that leave every other condition of the rule satisfied, so that the example decides the
verdict by the condition the text discusses (spec/liuyao.md §4).
"""

import pytest

from engine.core.cycle import Branch
from engine.liuyao import Options

from .conftest import chart


def one(ch, rule, **match):
    def value(j, k):
        return getattr(j, k) if k in ("type", "holds") else j.get(k)

    found = [j for j in ch.judgments if j.rule == rule and all(value(j, k) == v for k, v in match.items())]
    assert len(found) == 1, [j.to_json() for j in ch.judgments if j.rule == rule]
    return found[0]


def checks(j):
    return {c.code: c.ok for c in j.checks}


# ------------------------------------------------------------------ 助鬼傷身 (000:3, 000:7)
# 000:7 「是以前賢舉申日之離，寅日之咸，亥日之泰者為法」


@pytest.mark.parametrize(
    ("name", "month", "day", "ghost"),
    [
        ("離", "子", "甲申", "亥"),  # 離宮火, 世巳; 亥水鬼 長生申, 申金生水
        ("咸", "午", "丙寅", "午"),  # 兌宮金, 世申; 午火鬼 長生寅, 寅木生火
        ("泰", "寅", "乙亥", "寅"),  # 坤宮土, 世辰; 寅木鬼 長生亥, 亥水生木
    ],
)
def test_zhu_gui_shang_shen_examples_hold(name, month, day, ghost):
    ch = chart(name, None, month, day)
    j = one(ch, "助鬼傷身")
    assert j.holds, j.detail
    assert ch.chart.lines[j.get("ghost_line") - 1].branch.char == ghost


# 000:7 「雖長生於日，而巳日之巽，申日之革則非」 (「巽鬼革鬼非大生」) and 「午日之坎，酉日之離則非」
# (「坎鬼離鬼非長生」). Months chosen so that the 世 is not 旺相 and the 鬼 not 破: only 生 decides.
@pytest.mark.parametrize(
    ("name", "month", "day", "failing"),
    [
        ("巽", "申", "乙巳", {"true_sheng"}),  # 酉金鬼 長生巳, but 巳火 克金
        ("革", "午", "甲申", {"true_sheng"}),  # 丑未土鬼 長生申 (土隨水), but 申金 不生土
        ("坎", "午", "甲午", {"day_changsheng", "true_sheng"}),  # 辰戌土鬼 at 午 = 胎
        ("離", "子", "乙酉", {"day_changsheng", "true_sheng"}),  # 亥水鬼 at 酉 = 沐浴
    ],
)
def test_zhu_gui_shang_shen_examples_fail(name, month, day, failing):
    j = one(chart(name, None, month, day), "助鬼傷身")
    assert not j.holds
    assert {code for code, ok in checks(j).items() if not ok} == failing


def test_dropping_true_sheng_would_flip_xun_and_ge():
    # spec §4: without the 真生 test 巽 and 革 would wrongly hold — every other condition is met.
    for name, month, day in (("巽", "申", "乙巳"), ("革", "午", "甲申")):
        c = checks(one(chart(name, None, month, day), "助鬼傷身"))
        assert c.pop("true_sheng") is False
        assert all(c.values())


def test_ge_ghost_on_shen_day_is_changsheng_only_with_earth_at_shen():
    # spec §3: seed 000 treats 革's 土鬼 on a 申 day as 長生; with 土長生寅 it is not even 長生.
    j = one(chart("革", None, "午", "甲申", options=Options(earth_changsheng=Branch.YIN)), "助鬼傷身")
    assert checks(j)["day_changsheng"] is False


@pytest.mark.parametrize(
    ("name", "month", "day", "failing"),
    [
        ("離", "子", "壬申", "ghost_not_empty"),  # 壬申 in 甲子旬: 戌亥 空 → 「官鬼遇空破者弗能傷」
        ("咸", "子", "丙寅", "ghost_not_broken"),  # 子月 沖 午鬼 → 月破 (世申 in 子月: 休)
        ("離", "寅", "甲申", "shi_not_strong"),  # 寅木 生 世巳火 → 相: 「世爻逢旺相者弗能傷」
        ("離", "午", "甲申", "shi_not_strong"),  # 世巳火 旺
    ],
)
def test_zhu_gui_shang_shen_exceptions(name, month, day, failing):
    j = one(chart(name, None, month, day), "助鬼傷身")  # otherwise the 「法」 examples of 000:7
    assert not j.holds
    assert [code for code, ok in checks(j).items() if not ok] == [failing]


# ------------------------------------------------------------------ 局會 (000:19, 000:23, 000:27)


def test_qian_zhi_jiji_dong_hui():
    # 000:23 注 「如寅建戊戌日，用官得乾之既濟是也」: 寅午戌 all moving, 寅月 懸始, 戌日 懸終.
    ch = chart("乾", "既濟", "寅", "戊戌", use="官")
    j = one(ch, "局會", ju="寅午戌")
    assert (j.type, j.holds, j.get("strength")) == ("動會", True, "力大")
    assert j.get("use") is True  # 乾宮金: 官 = 火
    assert j.get("hang") == ("懸始", "懸終")


def test_dun_zhi_qian_bian_hui():
    # 000:23 注 「變會如戌建甲寅日，用官得遁之乾是也」: 午 moves into 寅 (寅 also the 伏 妻財: 變 wins).
    ch = chart("遁", "乾", "戌", "甲寅", use="官鬼")
    assert ch.chart.main.name == "天山遯"
    j = one(ch, "局會", ju="寅午戌")
    assert (j.type, j.holds) == ("變會", True)
    members = {(m["branch"], m["source"]) for m in j.to_json()["members"]}
    assert {("寅", "變"), ("寅", "伏"), ("午", "動")} <= members
    assert checks(j)["start_intact"] is True


def test_daxu_zhi_li_fu_hui():
    # 000:23 注 「伏會如卯建戊寅日，用父得大畜之離是也」; 000:27 「午伏寅者是也」.
    ch = chart("大畜", "離", "卯", "戊寅", use="父母")
    assert ch.chart.use is not None and ch.chart.use.lines == () and ch.chart.use.hidden == (2,)
    j = one(ch, "局會", ju="寅午戌")
    assert (j.type, j.holds) == ("伏會", True)
    assert checks(j)["hidden_on_changsheng"] is True


def test_lu_zhi_kui_cheng_hui():
    # 000:27 注 「如申建甲辰日，用財得履之睽，子伏申下，財乃長生，申為月建，謂之懸始，則水局旺相，故成會爾」.
    ch = chart("履", "睽", "申", "甲辰", use="財")
    assert ch.chart.use is not None and ch.chart.use.hidden == (5,)
    assert [(h.hidden.ganzhi.chars, h.hidden.flying.chars) for h in ch.chart.lines[4].hidden] == [
        ("丙子", "壬申")
    ]
    j = one(ch, "局會", ju="申子辰")
    assert (j.type, j.holds) == ("伏會", True)
    assert "懸始" in j.get("hang")
    assert checks(j)["hidden_on_changsheng"] is True


def test_qian_zhi_tai_not_formed():
    # 000:27 注 「如戌建己酉日，用官得謙之泰，以戌月午變寅爻當成火局，然寅值空，乃失其始，戌月懸午，是墓非生，
    # 則此火局休囚，不成會矣」: two independent failures.
    ch = chart("謙", "泰", "戌", "己酉", use="官")
    j = one(ch, "局會", ju="寅午戌")
    assert (j.type, j.holds) == ("變會", False)
    failed = {code for code, ok in checks(j).items() if not ok}
    assert failed == {"not_hung_at_end_only", "start_intact"}
    assert j.get("strength") == "力小"  # 失始 (000:19 「傷其始者，局會之力小」)


def test_bian_hui_without_start_is_false():
    # 000:27 「變失始者其局假 … 是故子變辰者非」 — same cast as 遯之乾 but a day that empties 寅 (乙巳 in 甲辰旬: 寅卯空)
    # and a month that still hangs the 局 (午 = 中).
    j = one(chart("遁", "乾", "午", "乙巳", use="官"), "局會", ju="寅午戌")
    assert j.type == "變會"
    assert checks(j)["start_intact"] is False and not j.holds


def test_hang_at_end_only_is_false():
    # 000:27 「懸始吉而懸終凶也。是故申月懸子則是，戌月懸午則非也」: 乾之既濟 under 戌月 and a day outside the 局.
    j = one(chart("乾", "既濟", "戌", "乙酉", use="官"), "局會", ju="寅午戌")
    assert checks(j)["not_hung_at_end_only"] is False and not j.holds


def test_static_lines_are_ignored_by_default():
    # 000:23 「動會者，周流六虛而皆會也」: members must move (or be their 變 / a 伏 under a mover).
    ch = chart("乾", None, "寅", "戊戌", use="官")  # 寅午戌 all present but static
    assert one(ch, "局會").type is None
    ch2 = chart("乾", None, "寅", "戊戌", use="官", options=Options(allow_static=True))
    assert one(ch2, "局會", ju="寅午戌").holds


# ------------------------------------------------------------------ 三刑 (000:31, 000:35, 000:39)


def test_kun_zhi_dui_true_xing():
    # 000:39 注 「酉建庚申日，用財得困之兌是謂真刑」: 用 寅 moves to 巳; 日申 刑 and 沖 寅.
    ch = chart("困", "兌", "酉", "庚申", use="財")
    assert ch.chart.use is not None and ch.chart.use.lines == (1,)
    assert ch.chart.lines[0].changed is not None and ch.chart.lines[0].changed.ganzhi.chars == "丁巳"
    j = one(ch, "三刑", type="真刑")
    assert j.holds
    assert {"source": "日", "branch": "申", "line": None, "xing": True, "chong": True} in j.get("agents")
    assert j.get("triple") == "寅巳申"


def test_xing_without_chong_is_plain_xing():
    # 困之兌 on a 巳 day: nothing 刑s 寅 (巳刑申, not 寅); on a 申 day it is 真刑; 子卯 無禮之刑 is 刑 without 沖.
    j = one(
        chart("困", "兌", "酉", "丁巳", use="財"),
        "三刑",
        subject={"role": "用", "branch": "寅", "line": 1, "hidden": False},
    )
    assert j.type is None and not j.holds
    # 否 (乾宮): 妻財 卯 at line 3; a 子 day 刑s 卯 without 沖 (000:35 「卯子子卯之無禮刑」).
    j2 = one(chart("否", None, "午", "甲子", use="財"), "三刑")
    assert (j2.type, j2.holds) == ("刑", True)


# ------------------------------------------------------------------ 六害 (000:43, 000:47)


@pytest.mark.parametrize("name", ["姤", "恆", "小畜", "益"])
def test_six_harm_hexagrams_are_only_flagged(name):
    # 000:47 「若姤恆小畜益卦，雖存六害之名，當察其用而權之」: a flag, not a verdict.
    ch = chart(name, None, "午", "甲子")
    assert "六害卦" in ch.chart.flags
    assert all(j.rule != "六害" or j.type != "六害卦" for j in ch.judgments)


def test_six_harm_kinds_on_use_line():
    # 000:43 「子合丑而未沖，所以子未為害」; 000:47 生害 lighter than 克害 (「六害重克害」).
    # 乾為天, 用子孫 = 甲子 at line 1, on a 未 day: 子未 克害 (未土 克 子水: 彼克我).
    j = one(chart("乾", None, "午", "乙未", use="子孫"), "六害", agent="日")
    assert (j.type, j.get("relation"), j.get("heavy")) == ("克害", "彼克我", True)
    # 乾為天, 用妻財 = 甲寅 at line 2, on a 巳 day: 寅巳 生害 (寅木 生 巳火: 我生彼).
    j2 = one(chart("乾", None, "午", "丁巳", use="妻財"), "六害", agent="日")
    assert (j2.type, j2.get("relation"), j2.get("heavy")) == ("生害", "我生彼", False)


def test_ying_harming_shi_is_judged():
    # 姤: 世 line 1 丑, 應 line 4 午: 丑午 害, 午火 生 丑土 → 生害 (000:47 「及應克世」 weighs 克害 only).
    j = one(chart("姤", None, "子", "甲子"), "六害", agent="應")
    assert j.type == "生害" and j.get("ying_controls_shi") is False


@pytest.mark.parametrize(
    ("month", "opened", "by"),
    [("辰", True, ("沖",)), ("丑", True, ("刑",)), ("子", False, ())],
)
def test_tomb_opened_by_xing_or_chong(month, opened, by):
    # 000:39 「三刑之法，墓亦賴之，刑則墓開，刑而兼沖，其力更大」 (注「夫墓得刑沖，猶鎖得鑰」): 乾為天, 用官 = 午火
    # (line 4), enters its 墓 戌 on a 戌 day; a 辰 month 沖s 戌, a 丑 month 刑s it (丑刑戌), a 子 month does neither.
    j = one(chart("乾", None, month, "甲戌", use="官"), "三刑", type="墓開")
    assert j.holds is opened
    assert j.get("tomb") == Branch.XU and j.get("opened_by") == by
