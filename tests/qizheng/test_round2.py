"""Issue 16: every 《八格賦》 clause read as the verse says, stations (順 逆 留), eclipses, the 限, 赤道宿度.

Each test quotes the seed-004 paragraph it checks; values come from the seed, the spec, NASA's eclipse
catalogue (Espenak) or the Hipparcos right ascensions shipped in mansions.json, never from our own output.
"""

from __future__ import annotations

import ast
import math
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.qizheng import (
    DaxianTable,
    MansionSet,
    QizhengOptions,
    Tongxian,
    natal_chart,
    patterns,
    xian_on,
)
from engine.qizheng import ephemeris as eph
from engine.qizheng.chart import chart_at, equatorial_mansions, mean_obliquity, right_ascension
from engine.qizheng.patterns import Evaluator, evaluate, leaked, year_sha
from engine.qizheng.tables import mansions
from engine.qizheng.xian import daxian_at, daxian_table, ming_xian_years, xiaoxian_branch

from .test_patterns import BY_ID, SEED, make

KST = timezone(timedelta(hours=9))
SEOUL = (126.98, 37.57)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def seoul_1430():
    return natal_chart(datetime(1990, 5, 17, 14, 30, tzinfo=KST), *SEOUL)


def held(chart) -> set[str]:
    return {r.pattern.id for r in chart.patterns if r.holds}


# ---- 科甲 (¶15 「科甲即命對宮主是也」, ¶38 「科甲者，命官對宮主是也」) -------------------------------------------


def test_kejia_is_the_lord_of_the_palace_opposite_ming():
    chart = natal_chart(datetime(1990, 5, 17, 21, 30, tzinfo=KST), *SEOUL)
    assert chart.ming == Branch.CHOU
    ev = Evaluator(chart)
    assert ev.roles["$科甲"] == ("太陰",)  # 對宮 未 → 太陰 (seed 入垣 「月居未」)
    result = evaluate(BY_ID["p38.3"], chart)
    assert result.holds is False  # 太陰 in 子: not 午, not 歲駕 午 (庚午), not with 太陽
    assert all("水星" not in f.args[0] for f in result.facts)


def test_kejia_on_every_ming():
    for ming in "子丑寅卯辰巳午未申酉戌亥":
        chart = make({"ming": ming})
        opposite = Branch.from_char(ming).shift(6)
        assert Evaluator(chart).roles["$科甲"] == (chart.house_of_branch(opposite).lord,)


# ---- 順 逆 留 (¶28 「金水退留而失次…或退或留，失其次則亂」) -------------------------------------------------


def test_mercury_station_in_the_1990_seoul_chart(seoul_1430):
    mercury = seoul_1430.bodies["水星"]
    assert mercury.motion == "留"
    assert mercury.station is not None and abs(mercury.station.days) <= 1.0
    # independent check: the speed changes sign across the station (DE440 via the ephemeris)
    t = mercury.station.jd_tt
    before = eph.compute_tt(t - 0.01, t - 0.01).speeds["水星"]
    after = eph.compute_tt(t + 0.01, t + 0.01).speeds["水星"]
    assert before < 0 < after  # it turns direct (retrograde on 5/16, direct on 5/18)
    data = seoul_1430.to_json()["bodies"]
    assert data["水星"]["motion"] == "留" and "speed" in data["水星"]
    assert {data[n]["motion"] for n in data} <= {"順", "逆", "留"}
    assert data["太陽"]["motion"] == "順" and data["羅睺"]["motion"] == "逆"


def test_p28_2_holds_by_the_station(seoul_1430):
    result = next(r for r in seoul_1430.patterns if r.pattern.id == "p28.2")
    assert result.holds is True
    assert any(f.test == "motion" and f.value for f in result.facts)


def test_p28_2_station_on_a_constructed_chart():
    from engine.qizheng.motion import Station

    order = {"太陽": 100.0, "金星": 95.0, "水星": 110.0}  # 水 ahead, 金 behind: 次 kept
    assert evaluate(BY_ID["p28.2"], make(order)).holds is False
    stopped = make(order, stations={"金星": Station("金星", 2451545.0, 0.2)})
    assert stopped.bodies["金星"].motion == "留"
    assert evaluate(BY_ID["p28.2"], stopped).holds is True


def test_no_station_far_from_one():
    chart = chart_at(datetime(1990, 6, 20, 3, 0, tzinfo=UTC), 0.0)  # 水星 direct five weeks after its station
    assert chart.bodies["水星"].motion == "順"


# ---- 紫氣's exception (¶24 「氣孛羅計謂之餘奴…惟氣星主吉」) --------------------------------------------------


def _uses_yunu(expr) -> bool:
    if isinstance(expr, list):
        return any(_uses_yunu(x) for x in expr)
    return expr == "$餘奴"


def test_ziqi_never_makes_a_yunu_clause_hold():
    clauses = [p for p in patterns() if p.status == "yes" and _uses_yunu(p.when)]
    assert {"p22.4", "p24.1", "p26.3", "p29.3"} <= {p.id for p in clauses}
    # 孛 羅 計 far from 命宮 子, 官祿 卯, 玉堂 丑未, 財庫 未 and the 恩 (火 羅); 紫氣 everywhere in turn
    base = {"月孛": "寅", "羅睺": "辰", "計都": "戌", "火星": "申"}
    for palace in "子丑寅卯辰巳午未申酉戌亥":
        chart = make({**base, "紫氣": palace})
        for p in clauses:
            assert evaluate(p, chart).holds is False, (p.id, palace)


def test_seoul_1990_yunu_clauses_no_longer_hold_by_ziqi(seoul_1430):
    assert seoul_1430.bodies["紫氣"].palace == seoul_1430.ming
    assert not held(seoul_1430) & {"p26.3", "p29.3"}


# ---- p24.2 (¶24 「太陰身主怕居的刃、劫亡之地」), seed-000 神煞 -----------------------------------------------


def test_year_sha_from_seed_000():
    # seed 000: 「庚祿申」 → 羊刃 酉 (祿前一位); 寅午戌 → 劫煞 亥, 亡神 巳 (the 將星 family of the 三合)
    assert year_sha(GanZhi.parse("庚午")) == {
        "羊刃": (Branch.YOU,),
        "劫煞": (Branch.HAI,),
        "亡神": (Branch.SI,),
    }
    # 「乙祿到卯，則左逆寅為羊刃」; 亥卯未 → 劫煞 申, 亡神 寅
    assert year_sha(GanZhi.parse("乙卯")) == {
        "羊刃": (Branch.YIN,),
        "劫煞": (Branch.SHEN,),
        "亡神": (Branch.YIN,),
    }


def test_year_sha_is_the_full_shensha_evaluation_for_all_60_pillars():
    """year_sha reads engine.shensha.marks; the stars' values from engine.shensha.evaluate must be the same."""
    from engine.core.cycle import all_ganzhi
    from engine.qizheng.patterns import SHA_NAMES, SHA_OPTIONS
    from engine.shensha import evaluate as shensha_evaluate

    for year in all_ganzhi():
        result = shensha_evaluate(year, options=SHA_OPTIONS)
        for name in SHA_NAMES:
            hit = result.get(name)
            assert hit is not None
            value = hit.value if isinstance(hit.value, tuple) else (hit.value,)
            assert year_sha(year)[name] == tuple(b for b in value if isinstance(b, Branch)), (year, name)


def test_p24_2_is_evaluated():
    assert BY_ID["p24.2"].status == "yes"
    assert evaluate(BY_ID["p24.2"], make({"year": "庚午", "太陰": "酉"})).holds is True  # 羊刃
    assert evaluate(BY_ID["p24.2"], make({"year": "庚午", "太陰": "巳"})).holds is True  # 亡神
    assert evaluate(BY_ID["p24.2"], make({"year": "庚午", "太陰": "申"})).holds is False


# ---- p28.1 (¶28 「陰陽晦蝕以無光」, 「日月遇蝕」) ----------------------------------------------------------------


@pytest.mark.parametrize(
    "at,kind",
    [
        (datetime(2009, 7, 22, 2, 35, tzinfo=UTC), "solar"),  # total solar eclipse (NASA, greatest 02:35 UT)
        (datetime(2018, 7, 27, 20, 22, tzinfo=UTC), "lunar"),  # total lunar eclipse (NASA, greatest 20:22 UT)
        (datetime(1999, 8, 11, 11, 3, tzinfo=UTC), "solar"),  # total solar eclipse over Europe
    ],
)
def test_eclipse_births(at, kind):
    chart = natal_chart(at, 0.0)
    assert chart.eclipse is not None and chart.eclipse.kind == kind
    assert "p28.1" in held(chart)


@pytest.mark.parametrize(
    "at",
    [
        datetime(2009, 8, 20, 10, 1, tzinfo=UTC),  # new moon without an eclipse
        datetime(2018, 8, 26, 11, 56, tzinfo=UTC),  # full moon without an eclipse
        datetime(2009, 7, 24, 2, 35, tzinfo=UTC),  # two days after an eclipse
    ],
)
def test_no_eclipse(at):
    chart = natal_chart(at, 0.0)
    assert chart.eclipse is None
    result = next(r for r in chart.patterns if r.pattern.id == "p28.1")
    assert result.holds is False


def test_eclipse_unknown_on_a_constructed_chart():
    result = evaluate(BY_ID["p28.1"], make({}))
    assert result.holds is None and result.unknown


# ---- 漏 (¶8 「計羅截斷，觀其漏出何星」) --------------------------------------------------------------------------


def test_leak_reading():
    axis = {"羅睺": 0.0, "計都": 180.0}
    half = {
        "太陽": 20.0,
        "太陰": 40.0,
        "水星": 60.0,
        "金星": 80.0,
        "火星": 120.0,
        "木星": 140.0,
        "土星": 100.0,
    }
    assert leaked(make({**axis, **half})) == ()
    assert leaked(make({**axis, **half, "太陰": 300.0})) == ("太陰",)
    assert leaked(make({**axis, **half, "太陰": 300.0, "木星": 250.0})) == ()  # two on that side
    assert BY_ID["p08.3"].status == "yes"


# ---- p03.4 「或同一宮」 and p06.3 辰年 -------------------------------------------------------------------------------


def test_p03_4_same_palace_with_the_sun():
    # 「日在紫微，金水列於巳未，或同一宮並無別星混雜」: 金 水 with 日 in 午, nothing else there
    hold = {"羅睺": "卯", "計都": "酉", "太陽": "午", "金星": "午", "水星": "午", "土星": "丑"}
    assert evaluate(BY_ID["p03.4"], make(hold)).holds is True
    assert evaluate(BY_ID["p03.4"], make({**hold, "火星": "午"})).holds is False  # 別星混雜
    assert evaluate(BY_ID["p03.4"], make({**hold, "金星": "子", "水星": "子"})).holds is False


def test_p06_3_needs_the_chen_year():
    # 「又如主星屬辰年，生木躔角道，亦謂之主登殿」: 命主 木 (命宮 寅) in 角 (in 辰)
    spec = {"ming": "寅", "木星": "宿:角"}
    assert evaluate(BY_ID["p06.3"], make({**spec, "year": "庚辰"})).holds is True
    assert evaluate(BY_ID["p06.3"], make({**spec, "year": "甲子"})).holds is False


# ---- 定義 and the Korean ---------------------------------------------------------------------------------------


def test_definitions_are_explanations_never_holding(seoul_1430):
    defs = [p for p in patterns() if p.ge == "定義"]
    assert {p.id for p in defs} >= {"p02.1", "p03.1", "p03.2", "p10.3"}
    assert all(p.kind == "definition" and p.status == "definition" and p.when is None for p in defs)
    rows = {r["id"]: r for r in seoul_1430.to_json()["patterns"]}
    assert rows["p03.1"]["kind"] == "definition" and rows["p03.1"]["holds"] is None
    assert all(r["kind"] == "clause" for r in rows.values() if r["holds"])


def _sentences(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    for m in re.finditer(r"[.?!](\s+|$)", text):
        out.append((start, m.start() + 1))
        start = m.end()
    return out


def test_korean_is_the_whole_translation():
    # 「如日居午，月居未…名曰入垣」 is not 「비유하면 태양이 오에 거하고 태음이 미에 거하며」
    text = SEED.read_text(encoding="utf-8")
    paragraphs = [x.strip() for x in text.split("\n\n") if x.strip()]
    for p in patterns():
        ko = paragraphs[2 * p.paragraph]
        start = ko.index(p.seed_ko)
        spans = _sentences(ko)
        assert any(a == start for a, _ in spans), (p.id, "starts mid-sentence")
        assert any(b == start + len(p.seed_ko) for _, b in spans), (p.id, "cut before the sentence ends")
    assert BY_ID["p03.1"].seed_ko.endswith("입원이라 부른다.")
    assert BY_ID["p03.1"].quote_ko.endswith(
        "입원(入垣)이라 한다."
    )  # the rewording translates the same whole clause


# ---- base rates ------------------------------------------------------------------------------------------------


def test_base_rates_listed_in_docs():
    doc = (ROOT / "docs" / "qizheng.md").read_text(encoding="utf-8")
    section = doc.split("## Base rates", 1)[1]
    for p in patterns():
        if p.status == "yes":
            assert f"| {p.id} " in section, p.id
    for p in patterns():
        if p.broad:
            assert p.status == "yes" and p.broad.strip()


# ---- 限 (spec §9; seed ¶24 「午命五旬外入亥限」) ----------------------------------------------------------------------


def test_daxian_seed_check_and_variants():
    table = daxian_table(Branch.WU, 10.0, DaxianTable.DONGWEI)
    hai = next(d for d in table if d.branch == Branch.HAI)
    assert [d.branch.char for d in table[:6]] == list("午未申酉戌亥")
    assert hai.start_age == 1 + 59  # 「午命五旬外入亥限」: 15 + 10 + 11 + 15 + 8 = 59 years
    late = daxian_table(Branch.WU, 10.0, DaxianTable.DONGWEI, Tongxian.TEN)
    assert late[0].start_age == 11 and daxian_at(late, 5.0) is None  # 童限 10 years
    assert daxian_table(Branch.WU, 10.0, DaxianTable.DONGWEI, Tongxian.NINE)[0].start_age == 10
    mingdu = daxian_table(Branch.WU, 17.5, DaxianTable.MINGDU)
    assert mingdu[0].end_age - mingdu[0].start_age == 10 + 5 == ming_xian_years(17.5)  # 10 + ⌊17.5/3⌋
    assert mingdu[1].start_age == 16


def test_xiaoxian_steps_through_the_houses():
    assert xiaoxian_branch(Branch.WU, 1) == Branch.WU
    assert xiaoxian_branch(Branch.WU, 2) == Branch.SI  # 財帛 (branch −1)
    assert xiaoxian_branch(Branch.WU, 13) == Branch.WU


def test_xian_on_a_date(seoul_1430):
    on = datetime(2027, 3, 1, 12, tzinfo=KST)
    x = xian_on(seoul_1430, on)
    assert x.xu_sui == 2027 - 1990 + 1  # both dates after 立春
    assert 37.7 < x.age < 37.9
    # 命宮 巳: 巳 命 1–16, 午 相貌 16–26, 未 福德 26–37, 申 官祿 37–52 (洞微 15 10 11 15)
    assert x.daxian is not None and (x.daxian.house, x.daxian.branch, x.daxian.start_age) == (
        "官祿",
        Branch.SHEN,
        37,
    )
    assert x.liunian.year == GanZhi.parse("丁未")
    assert x.liunian.tianma == "木星"  # 「亥卯未木為天馬」
    assert x.liunian.yima == Branch.SI  # 亥卯未 → 巳
    assert x.xiaoxian == Branch.SI.shift(-(38 - 1))
    data = natal_chart(datetime(1990, 5, 17, 14, 30, tzinfo=KST), *SEOUL, on=on).to_json()["xian"]
    assert data["liunian"]["year"] == "丁未" and data["daxian"]["house"] == "官祿"


def test_xian_before_birth_is_refused(seoul_1430):
    with pytest.raises(EngineInputError):
        xian_on(seoul_1430, datetime(1980, 1, 1, tzinfo=KST))


# ---- 赤道宿度 ------------------------------------------------------------------------------------------------------


def test_right_ascension_of_the_ecliptic():
    eps = 23.4392911
    assert right_ascension(90.0, 0.0, eps) == pytest.approx(90.0)
    expected = math.degrees(math.atan(math.cos(math.radians(eps)) * math.tan(math.radians(30.0))))
    assert right_ascension(30.0, 0.0, eps) == pytest.approx(expected)


def test_equatorial_mansions_at_j2000_are_the_catalogue_right_ascensions():
    import json

    rows = {
        r["name"]: r for r in json.loads((ROOT / "engine/qizheng/data/mansions.json").read_text())["mansions"]
    }
    for m in equatorial_mansions(0.0):
        assert m.lon_j2000 == pytest.approx(rows[m.name]["ra_j2000"], abs=0.01), m.name
    assert mean_obliquity(0.0) == pytest.approx(84381.406 / 3600.0)


def test_equatorial_option_in_the_chart(seoul_1430):
    opts = QizhengOptions(mansions=MansionSet.EQUATORIAL)
    chart = natal_chart(datetime(1990, 5, 17, 14, 30, tzinfo=KST), *SEOUL, options=opts)
    pz = chart.to_json()["pan_zhi"]
    assert pz["mansion_frame"] == "equatorial" and pz["mansions"] == "equatorial"
    assert seoul_1430.to_json()["pan_zhi"]["mansion_frame"] == "ecliptic"
    assert {b.mansion for b in chart.bodies.values()} <= {m.name for m in mansions()}


# ---- structure -------------------------------------------------------------------------------------------------


def test_chart_does_not_import_the_patterns():
    tree = ast.parse((ROOT / "engine/qizheng/chart.py").read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
            imported.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert not any("patterns" in name or "natal" in name for name in imported)


@pytest.mark.parametrize("planet", ["水星", "金星", "火星", "木星", "土星"])
def test_station_screen_keeps_every_station(planet):
    from engine.qizheng.motion import stations

    # first station of the planet after 2000-01-01: a sign change of the DE440 speed, 5-day steps
    t, v = 2451545.0, eph.compute_tt(2451545.0, 2451545.0).speeds[planet]
    while True:
        nxt = eph.compute_tt(t + 5.0, t + 5.0).speeds[planet]
        if (nxt < 0) != (v < 0):
            break
        t, v = t + 5.0, nxt
    lo, hi = t, t + 5.0
    while hi - lo > 0.05:
        mid = 0.5 * (lo + hi)
        vm = eph.compute_tt(mid, mid).speeds[planet]
        lo, hi = (mid, hi) if (vm < 0) == (v < 0) else (lo, mid)
    root = 0.5 * (lo + hi)
    for dt in (-0.95, -0.4, 0.3, 0.9):
        at = root + dt
        speeds = eph.compute_tt(at, at).speeds
        found = stations(at, at, speeds)
        assert found == stations(at, at, speeds, screen=False)
        assert planet in found and abs(found[planet].jd_tt - root) < 0.05
    far = root + 3.0  # outside the 1-day window
    assert planet not in stations(far, far, eph.compute_tt(far, far).speeds, screen=False)
