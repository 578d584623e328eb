"""Chart attributes (spec/liuyao.md §3): 六神, 旬空, 月破, 旺衰, 日辰 stage, 變爻 六親, 用神 and 伏神."""

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuyao import ChangedRelatives, Options, build, cast_manual

from .conftest import chart

SPIRITS = "青龍 朱雀 勾陳 螣蛇 白虎 玄武".split()


@pytest.mark.parametrize(
    ("stem", "first"),
    [
        ("甲", "青龍"),
        ("乙", "青龍"),
        ("丙", "朱雀"),
        ("丁", "朱雀"),
        ("戊", "勾陳"),
        ("己", "螣蛇"),
        ("庚", "白虎"),
        ("辛", "白虎"),
        ("壬", "玄武"),
        ("癸", "玄武"),
    ],
)
def test_six_spirits_from_day_stem(stem, first):
    day = next(g for g in (GanZhi.of(i) for i in range(60)) if g.chars[0] == stem)
    ch = build(cast_manual("777777"), Branch.YIN, day)
    start = SPIRITS.index(first)
    assert [ln.spirit.char for ln in ch.chart.lines] == [SPIRITS[(start + i) % 6] for i in range(6)]


def test_xunkong_month_break_vitality_and_day_stage():
    # 乾為天 in 寅月 on 戊戌: 甲午旬 → 辰巳 空; 寅 沖 申 → 申 月破.
    ch = chart("乾", None, "寅", "戊戌")
    by = {ln.branch.char: ln for ln in ch.chart.lines}
    assert [b.char for b in ch.chart.xunkong] == ["辰", "巳"]
    assert by["辰"].condition.empty and not by["午"].condition.empty
    assert by["申"].condition.month_break and not by["寅"].condition.month_break
    # 旺相休囚死 in a 寅 (木) month: 木旺 火相 水休 金囚 土死.
    assert [by[b].condition.vitality.char for b in "寅午子申戌"] == list("旺相休囚死")
    # 日辰 stage at 戌: 火 墓, 水 冠帶 (申長生), 木 養 (亥長生), 金 衰 (巳長生), 土 冠帶 (土隨水 申長生).
    assert [by[b].condition.day_stage.char for b in "午子寅申辰"] == ["墓", "冠帶", "養", "衰", "冠帶"]
    assert by["辰"].condition.day_clash and by["寅"].condition.month_combine is False
    assert ch.chart.lines[0].condition.day_combine is False


def test_four_season_months_are_earth():
    ch = chart("乾", None, "辰", "戊戌")
    by = {ln.branch.char: ln for ln in ch.chart.lines}
    assert [by[b].condition.vitality.char for b in "辰申午寅子"] == list("旺相休囚死")


def test_earth_changsheng_option():
    ch = chart("乾", None, "寅", "甲申")
    assert ch.chart.lines[2].condition.day_stage.char == "長生"  # 辰土 at 申
    ch2 = chart("乾", None, "寅", "甲申", options=Options(earth_changsheng=Branch.YIN))
    assert ch2.chart.lines[2].condition.day_stage.char == "病"  # 土 with 火: 寅長生 … 申病


def test_changed_line_relatives_from_main_palace_by_default():
    # 乾之既濟: 乾宮金. Line 6 戌 → 子水: 子孫 against 金 (坎宮 水 would make it 兄弟).
    ch = chart("乾", "既濟", "寅", "戊戌")
    ch6 = ch.chart.lines[5].changed
    assert ch6 is not None and ch6.ganzhi.chars == "戊子" and ch6.relative.char == "子孫"
    own = chart("乾", "既濟", "寅", "戊戌", options=Options(changed_relatives=ChangedRelatives.OWN_PALACE))
    assert own.chart.lines[5].changed is not None and own.chart.lines[5].changed.relative.char == "兄弟"
    assert ch.chart.lines[0].changed is None  # static line


def test_use_god_falls_back_to_hidden_never_line_one():
    ch = chart("姤", None, "寅", "戊戌", use="妻財")  # 姤 lacks 妻財: 伏 甲寅 under line 2
    assert ch.chart.use is not None and ch.chart.use.lines == () and ch.chart.use.hidden == (2,)
    ch2 = chart("乾", None, "寅", "戊戌", use="wealth")
    assert (
        ch2.chart.use is not None
        and ch2.chart.use.relative.char == "妻財"
        and ch2.chart.use.category == "wealth"
    )
    assert chart("乾", None, "寅", "戊戌", use="求財").chart.use == ch2.chart.use


def test_bad_use_and_options():
    with pytest.raises(EngineInputError) as e:
        chart("乾", None, "寅", "戊戌", use="太歲")
    assert e.value.code == "error.liuyao.bad_use"
    with pytest.raises(EngineInputError):
        Options(earth_changsheng=Branch.HAI)


def test_json_contract_of_a_cast():
    ch = chart("乾", "既濟", "寅", "戊戌", use="官鬼")
    j = ch.to_json()
    assert j["main"]["name"] == "乾為天" and j["changed"]["name"] == "水火既濟"
    assert j["moving"] == [2, 4, 6]
    assert {"rule", "holds", "type", "detail"} <= set(j["judgments"][0])
    assert {x["rule"] for x in j["judgments"]} == {"助鬼傷身", "局會", "三刑", "六害"}
    assert all(isinstance(x["holds"], bool) for x in j["judgments"])
    assert j["lines"][5]["changed"]["ganzhi"] == "戊子"
    assert chart("乾", None, "寅", "戊戌").to_json()["changed"] is None


def test_chart_is_deterministic_and_immutable():
    a = chart("困", "兌", "酉", "庚申", use="財")
    b = chart("困", "兌", "酉", "庚申", use="財")
    assert a == b
    with pytest.raises(AttributeError):
        a.chart.month = Branch.ZI  # type: ignore[misc]


def test_line_shensha_from_the_shensha_engine_tiande_stem():
    # seed 000:63 「此法用天干，如寅建丁亥子孫發動，以丁為天德也」: 兌為澤 line 4 丁亥 子孫 moving in 寅月 on 丁亥.
    ch = build(cast_manual("778978"), Branch.YIN, GanZhi.parse("丁亥"), use="子孫")
    line = ch.chart.lines[3]
    assert (line.ganzhi.chars, line.relative.char, line.moving) == ("丁亥", "子孫", True)
    assert "天干天德" in line.marks
    # another stem takes no 天干天德 that month: 兌 line 1 丁巳 also has 丁, line 4 of 坎 (戊申) has not.
    other = build(cast_manual("878878"), Branch.YIN, GanZhi.parse("丁亥"))
    assert other.chart.main.name == "坎為水" and "天干天德" not in other.chart.lines[3].marks
