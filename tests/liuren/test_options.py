"""School options, 貴人 tables, 晝夜 rules and the instant → chart path (spec/liuren.md §1, §3, §4)."""

from datetime import datetime, timedelta, timezone

import pytest

from engine.calendar import DayStart, four_pillars
from engine.core.cycle import Branch, GanZhi, Stem
from engine.errors import EngineInputError
from engine.liuren import DayNight, General, GuiRule, Options, Shehai, build_chart, chart_at, chart_for_ju

B = Branch.from_char


def test_defaults_per_spec():
    o = Options()
    assert o.to_json() == {
        "gui_rule": "liuren",
        "daynight": "maoshen",
        "shehai": "depth",
        "fuyin_maozi": "daquan",
        "bazhuan_first": True,
        "liuyinyang_lowers": False,
        "mu": "wuxing",
    }
    assert Options.from_mapping(o.to_json()) == o


def test_from_mapping_rejects_unknown():
    with pytest.raises(EngineInputError) as err:
        Options.from_mapping({"shehai": "deep"})
    assert err.value.code == "error.liuren.bad_option"
    with pytest.raises(EngineInputError):
        Options.from_mapping({"colour": "red"})
    assert Options.from_mapping({"bazhuan_first": "false"}).bazhuan_first is False


# 《六壬大全》 「甲戊庚牛羊，乙己鼠猴鄉，丙丁豬雞位，壬癸兔蛇藏，六辛逢馬虎」 (晝, 夜)
DAQUAN = {"甲": "丑未", "戊": "丑未", "庚": "丑未", "乙": "子申", "己": "子申", "丙": "亥酉", "丁": "亥酉",
          "壬": "卯巳", "癸": "卯巳", "辛": "午寅"}  # fmt: skip
# seed 000 三命 陽貴 (甲未 乙申 丙酉 丁亥 戊丑 己子 庚丑 辛寅 壬卯 癸巳) and 陰貴 「亦然」 from 甲申 backwards
SANMING = {"甲": "未丑", "乙": "申子", "丙": "酉亥", "丁": "亥酉", "戊": "丑未", "己": "子申", "庚": "丑未",
           "辛": "寅午", "壬": "卯巳", "癸": "巳卯"}  # fmt: skip


@pytest.mark.parametrize(("rule", "table"), [(GuiRule.LIUREN, DAQUAN), (GuiRule.SANMING, SANMING)])
def test_guiren_tables(rule, table):
    for stem, (day, night) in table.items():
        d = next(g for g in (GanZhi.of(i) for i in range(60)) if g.stem == Stem.from_char(stem))
        assert chart_for_ju(d, 5, Options(gui_rule=rule), daytime=True).guiren == B(day)
        assert chart_for_ju(d, 5, Options(gui_rule=rule), daytime=False).guiren == B(night)


def test_qin_ruisheng_renzi_8_night_guiren():
    # 秦瑞生《畢法賦精注詳解》 壬子日第8局 「巳加子為夜貴」 (supports 壬 夜巳, the default)
    c = chart_for_ju(GanZhi.parse("壬子"), 8, daytime=False)
    assert c.guiren == B("巳") and c.earth_of(B("巳")) == B("子")
    assert c.general_on(B("巳")) is General.GUIREN
    kin = chart_for_ju(GanZhi.parse("壬子"), 8, Options(gui_rule=GuiRule.KINLIUREN), daytime=False)
    assert kin.guiren == B("卯")


@pytest.mark.parametrize(
    ("rule", "day_hours"),
    [
        (DayNight.MAOSHEN, "卯辰巳午未申"),
        (DayNight.SISHU, "巳午未申酉戌"),
        (DayNight.ZIWU, "子丑寅卯辰巳"),
    ],
)
def test_daynight_boundaries(rule, day_hours):
    day = GanZhi.parse("甲子")
    for hour in Branch:
        c = build_chart(day, hour.shift(3), hour, Options(daynight=rule))
        assert c.daytime == (hour.char in day_hours)


def test_ju_from_month_general_and_hour():
    # 局 = (占時 − 月將) mod 12 + 1; seed 003 entry 2's 古鑑 example: 午將 … ; 庚辰 第8局 has 丑 over 申 (庚).
    c = build_chart(GanZhi.parse("庚辰"), B("亥"), B("午"))
    assert c.ju == 8 and c.heaven[B("申")] == B("丑")
    # 「四月庚子日戌時申將」 (課經): 局 3, 午 over 庚 (申)
    c = build_chart(GanZhi.parse("庚子"), B("申"), B("戌"))
    assert c.ju == 3 and c.lessons[0].upper == B("午")
    # 「正月丁卯日丑時亥將」: 丑 over 卯, 亥 over 丑
    c = build_chart(GanZhi.parse("丁卯"), B("亥"), B("丑"))
    assert c.ju == 3 and c.heaven[B("卯")] == B("丑") and c.heaven[B("丑")] == B("亥")


def test_bad_ju():
    for bad in (0, 13, -1):
        with pytest.raises(EngineInputError) as err:
            chart_for_ju(GanZhi.parse("甲子"), bad)
        assert err.value.code == "error.liuren.bad_ju"


def test_chart_at_uses_calendar_and_zhongqi():
    # 2024 春分 is 2024-03-20 03:06 UTC (月將 亥 → 戌 at the 中氣, spec §1)
    kst = timezone(timedelta(hours=9))
    before = chart_at(datetime(2024, 3, 20, 11, 0, tzinfo=kst))  # 02:00 UTC
    after = chart_at(datetime(2024, 3, 20, 13, 0, tzinfo=kst))  # 04:00 UTC
    assert before.month_general == B("亥") and after.month_general == B("戌")
    at = datetime(2024, 5, 1, 10, 30, tzinfo=kst)
    c = chart_at(at)
    p = four_pillars(at, DayStart.ZI_23)
    assert (c.day, c.month_general, c.hour) == (p.day, p.month_general, p.hour.branch)
    assert c.hour == B("巳")  # 09:00–11:00
    assert c.ju == (c.hour - c.month_general) % 12 + 1
    assert c.moment is not None and c.moment.term == p.term.name
    assert c.to_json()["moment"]["year"] == p.year.chars


def test_chart_at_naive_is_rejected():
    with pytest.raises(EngineInputError):
        chart_at(datetime(2024, 5, 1, 10, 30))


def test_sun_option_needs_place():
    at = datetime(2024, 6, 21, 5, 0, tzinfo=timezone(timedelta(hours=9)))
    with pytest.raises(EngineInputError) as err:
        chart_at(at, Options(daynight=DayNight.SUN))
    assert err.value.code == "error.liuren.sun_needs_place"
    # Seoul, 05:00 KST on the solstice: sunrise is about 05:11, so still night; at 05:30 it is day,
    # although both are 卯時 (day under the 卯–申 rule).
    sun = Options(daynight=DayNight.SUN)
    assert chart_at(at, sun, solar_longitude=126.98, latitude=37.57).daytime is False
    assert chart_at(at + timedelta(minutes=30), sun, solar_longitude=126.98, latitude=37.57).daytime is True
    assert chart_at(at).daytime is True
    with pytest.raises(EngineInputError):
        build_chart(GanZhi.parse("甲子"), B("子"), B("午"), sun)


def test_options_accept_strings_and_reject_garbage():
    assert Options(shehai="mzj") == Options(shehai=Shehai.MZJ)
    with pytest.raises(EngineInputError):
        Options(gui_rule="nope")
    with pytest.raises(EngineInputError):
        Options(bazhuan_first="yes")


# ------------------------------------------------------------------ 墓 convention (issue 20)
def test_mu_convention_seed003_vs_seed002():
    from engine.core.relations import Stage
    from engine.shensha.stages import MuRule, mu_branch, stage_at

    xin = Stem.from_char("辛")
    # seed 003 entry 8 (辛巳 第3局) 解曰 「丑為日墓，亥為日脫」; 斷曰 「初墓逢丁」 (初傳 丑, 遁丁)
    assert mu_branch(xin, MuRule.WUXING) == B("丑")
    assert stage_at(xin, B("丑"), MuRule.WUXING) is Stage.MU
    assert stage_at(xin, B("辰"), MuRule.WUXING) is None  # the seeds give no stage for 辰 then
    # seed 002 「墓 甲癸日未，乙丙戊日戌，丁己庚日丑，辛壬日辰」 and 「養 … 丙戊辛日丑」
    assert mu_branch(xin, MuRule.CHANGSHENG) == B("辰")
    assert stage_at(xin, B("丑"), MuRule.CHANGSHENG) is Stage.YANG
    # 陽干 agree: seed 003 entry 1 (庚辰) 「墓神覆日」 — 丑 on 庚 is 庚's 墓 either way (「丁己庚日丑」)
    geng = Stem.from_char("庚")
    assert mu_branch(geng, MuRule.WUXING) == mu_branch(geng, MuRule.CHANGSHENG) == B("丑")
    # and the other stages stay 陰逆 under both: seed 003 entry 8 「午為辛金之病地」 = seed 002 「病 … 辛日午」
    assert stage_at(xin, B("午"), MuRule.WUXING) is Stage.BING


def test_mu_option_in_reading_and_marks():
    from engine.liuren.reading import compose
    from engine.shensha import Options as ShenshaOptions
    from engine.shensha import evaluate, marks

    day = GanZhi.parse("辛巳")
    chart = chart_for_ju(day, 3)  # 初傳 丑 (seed 003 entry 8 「初墓逢丁」)
    assert chart.transmissions[0].branch == B("丑") and chart.options.mu == "wuxing"
    ids = [a.id for a in compose(chart).position("initial").attributes]
    assert "stage.墓" in ids and "stage.養" not in ids
    seed002 = chart_for_ju(day, 3, Options(mu="changsheng"))
    ids = [a.id for a in compose(seed002).position("initial").attributes]
    assert "stage.養" in ids and "stage.墓" not in ids
    # the 神煞 engine: its default is the seed-002 table; mu=wuxing moves 辛's 墓 to 丑 and leaves 養 unstated
    assert evaluate(day).get("墓").value == B("辰")
    wuxing = evaluate(day, options=ShenshaOptions(mu="wuxing"))
    assert wuxing.get("墓").value == B("丑") and wuxing.get("養") is None
    labels = marks(day, options=ShenshaOptions(mu="wuxing"), include_tables=True)
    assert "墓" in labels[B("丑")] and "養" not in labels[B("丑")] and "墓" not in labels[B("辰")]
    with pytest.raises(EngineInputError):
        Options.from_mapping({"mu": "yinyang"})
