"""Classical worked facts about the 三傳 (spec/liuren.md §3), each quoted from a named book via the spec."""

import pytest

from engine.core.cycle import Branch, GanZhi, all_ganzhi
from engine.liuren import FuyinMaozi, Method, Options, Shehai, chart_for_ju

B = Branch.from_char


DEFAULT = Options()


def trans(day: str, ju: int, options: Options = DEFAULT) -> str:
    return "".join(b.char for b in chart_for_ju(GanZhi.parse(day), ju, options).branches)


# 《六壬大全》 伏吟 自信/杜傳 list (spec §3.1).
FUYIN_DAQUAN = {
    "壬辰": "亥辰戌",
    "壬午": "亥午子",
    "乙亥": "辰亥巳",
    "乙酉": "辰酉卯",
    "丁卯": "卯子午",
    "己卯": "卯子午",
    "辛卯": "卯子午",
    "丁酉": "酉未丑",
    "己酉": "酉未丑",
    "辛酉": "酉戌未",
    "丁亥": "亥未丑",
    "己亥": "亥未丑",
    "辛亥": "亥戌未",
    **{d: "丑戌未" for d in ("癸丑", "癸卯", "癸巳", "癸未", "癸酉", "癸亥")},
}


@pytest.mark.parametrize(("day", "expected"), sorted(FUYIN_DAQUAN.items()))
def test_fuyin_daquan_list(day, expected):
    c = chart_for_ju(GanZhi.parse(day), 1)
    assert c.method is Method.FUYIN
    assert trans(day, 1) == expected


def test_fuyin_names():
    # 陽日 自任, 陰日 自信; 乙 (乙克辰) 重審, 癸 (丑克癸) 元首; 杜傳 when the 初 刑s itself.
    assert chart_for_ju(GanZhi.parse("甲子"), 1).method_names == ("伏吟", "自任")
    assert chart_for_ju(GanZhi.parse("壬辰"), 1).method_names == ("伏吟", "自任", "杜傳")
    assert chart_for_ju(GanZhi.parse("乙亥"), 1).method_names == ("伏吟", "重審", "自信", "杜傳")
    assert chart_for_ju(GanZhi.parse("癸丑"), 1).method_names == ("伏吟", "元首", "自信")
    assert chart_for_ju(GanZhi.parse("丁酉"), 1).method_names == ("伏吟", "自信", "杜傳")


def test_fuyin_maozi_cunyan():
    # 《六壬存驗》 辛卯 伏吟 卯子卯; only 丁卯 己卯 辛卯 第1局 change.
    cunyan = Options(fuyin_maozi=FuyinMaozi.CUNYAN)
    assert trans("辛卯", 1, cunyan) == "卯子卯"
    changed = [d.chars for d in all_ganzhi() if trans(d.chars, 1) != trans(d.chars, 1, cunyan)]
    assert changed == ["丁卯", "己卯", "辛卯"]


def test_fuyin_ke_only_on_yi_and_gui_days():
    # spec §3.1: on 伏吟 a 克 exists only on 六乙 (乙克辰) and 六癸 (丑克癸) days (stem's own 五行 in 1課).
    with_ke = {d.stem.char for d in all_ganzhi() if any(ls.ke for ls in chart_for_ju(d, 1).lessons)}
    assert with_ke == {"乙", "癸"}


def test_shehai_kejing_tallies():
    # 《課經》 (quoted in 《六壬大全》): 見機 9 課, 察微 2, 綴瑕 1 (戊辰 干上子), 返吟類綴瑕 2 (戊辰, 戊戌 干上亥);
    # 涉害 decided by depth alone: 63 in the book; the seat-included count gives 64 (spec §3.5).
    tally: dict[str, list[tuple[str, int, str]]] = {
        "見機": [],
        "察微": [],
        "綴瑕": [],
        "返吟綴瑕": [],
        "depth": [],
    }
    for day in all_ganzhi():
        for ju in range(1, 13):
            c = chart_for_ju(day, ju)
            key = (day.chars, ju, c.lessons[0].upper.char)
            if c.method is Method.FANYIN and "綴瑕" in c.method_names:
                tally["返吟綴瑕"].append(key)
            elif c.method is Method.SHEHAI:
                tie = c.trace.tie_break
                tally[tie if tie else "depth"].append(key)
    assert len(tally["見機"]) == 9
    assert len(tally["察微"]) == 2
    assert tally["綴瑕"] == [("戊辰", 6, "子")]
    assert sorted(tally["返吟綴瑕"]) == [("戊戌", 7, "亥"), ("戊辰", 7, "亥")]
    assert len(tally["depth"]) == 63 + 1


def test_dinge_examples():
    # 《六壬大全·訂訛》: 丁卯 丑加卯/亥加丑 → 亥 (亥 passes 辰戊未己戌: deeper); 庚子 午加庚/戌加子 → 午.
    c = chart_for_ju(GanZhi.parse("丁卯"), 3)
    assert {x.branch for x in c.trace.candidates} == {B("丑"), B("亥")}
    assert c.earth_of(B("丑")) == B("卯") and c.earth_of(B("亥")) == B("丑")
    assert c.branches[0] == B("亥") and c.method is Method.SHEHAI
    # the five 土 the 《訂訛》 names on 亥's way home (seat excluded): 辰, 戊(巳), 未, 己(未), 戌
    nos = chart_for_ju(GanZhi.parse("丁卯"), 3, Options(shehai=Shehai.DEPTH_NOSEAT))
    hai = next(x for x in nos.trace.candidates if x.branch == B("亥"))
    assert hai.depth == 5
    assert [ch for step in hai.steps for ch in step.counted] == ["辰", "戊", "未", "己", "戌"]
    c = chart_for_ju(GanZhi.parse("庚子"), 3)
    assert c.lessons[0].upper == B("午") and c.earth_of(B("戌")) == B("子")
    assert c.branches[0] == B("午")


def test_daquan_rejects_mzj_shortcut():
    # 《六壬大全》: 甲辰 第5局 「當取子 … 三傳子申辰」; 乙卯 第3局 「當取亥加丑為用」.
    assert trans("甲辰", 5) == "子申辰"
    assert chart_for_ju(GanZhi.parse("乙卯"), 3).branches[0] == B("亥")
    assert chart_for_ju(GanZhi.parse("乙卯"), 3).earth_of(B("亥")) == B("丑")
    # the 孟仲季 shortcut answers differently on both (which is why the book rejects it)
    mzj = Options(shehai=Shehai.MZJ)
    assert trans("甲辰", 5, mzj)[0] != "子"
    assert chart_for_ju(GanZhi.parse("乙卯"), 3, mzj).branches[0] != B("亥")


def test_mzj_differs_on_23():
    mzj = Options(shehai=Shehai.MZJ)
    diff = [(d, j) for d in all_ganzhi() for j in range(1, 13) if trans(d.chars, j) != trans(d.chars, j, mzj)]
    assert len(diff) == 23


def test_bieze_jingyao_examples():
    # 《六壬精要》 別責: 丙辰 第12局 亥午午; 辛酉 第2局 丑酉酉.
    for day, ju, expected in (("丙辰", 12, "亥午午"), ("辛酉", 2, "丑酉酉")):
        c = chart_for_ju(GanZhi.parse(day), ju)
        assert c.method is Method.BIEZE
        assert c.distinct_lessons == 3
        assert trans(day, ju) == expected


def test_fanyin_wuyi_rule():
    # 返吟 without any 克 only on 丁丑 丁未 己丑 己未 辛丑 辛未: 初 = 驛馬 of 日支, 中 = 支上, 末 = 干上.
    wuyi = []
    for day in all_ganzhi():
        c = chart_for_ju(day, 7)
        assert c.method is Method.FANYIN
        if "無依" in c.method_names:
            wuyi.append(day.chars)
            assert not any(ls.ke for ls in c.lessons)
            ma = {0: "寅", 1: "亥", 2: "申", 3: "巳"}[day.branch % 4]  # 申子辰馬寅, 巳酉丑馬亥 …
            assert c.branches == (B(ma), c.lessons[2].upper, c.lessons[0].upper)
        else:
            assert any(ls.ke for ls in c.lessons)
            assert c.method_names[0] == "返吟"
            assert c.method_names[1] in ("重審", "元首", "知一", "涉害")
    assert sorted(wuyi) == sorted(["丁丑", "丁未", "己丑", "己未", "辛丑", "辛未"])


def test_fanyin_xia_zei_shang_outranks():
    # spec §3.3 trap: 下賊上 outranks 上克下 even when the 上克下 lesson comes first (a peer's 返吟 defect).
    checked = 0
    for day in all_ganzhi():
        c = chart_for_ju(day, 7)
        kes = [ls.ke for ls in c.lessons]
        if "下賊上" in kes:
            checked += 1
            assert "元首" not in c.method_names
            assert all(x.relation == "下賊上" for x in c.trace.candidates)
    assert checked  # the rule was exercised, not passed vacuously


def test_bazhuan_counts_inclusive():
    # 八專 陽日 干上 counted three forward inclusive (+2); 陰日 4課 upper three backward inclusive (−2).
    seen = {True: 0, False: 0}
    for day in all_ganzhi():
        for ju in range(2, 13):
            c = chart_for_ju(day, ju)
            if c.method is not Method.BAZHUAN:
                continue
            seen[day.stem.is_yang] += 1
            gs = c.lessons[0].upper
            first = gs.shift(2) if day.stem.is_yang else c.lessons[3].upper.shift(-2)
            assert c.branches == (first, gs, gs)
    assert seen[True] and seen[False]  # both the 陽日 and the 陰日 count were exercised


def test_yiti_reachable_by_default():
    # seed 002 一體 格 (三傳 酉酉酉) = 己未 干上酉 獨足: only with 八專 before 遙剋 (default).
    hits = [(d.chars, j) for d in all_ganzhi() for j in range(1, 13) if trans(d.chars, j) == "酉酉酉"]
    assert len(hits) == 1
    day, ju = hits[0]
    c = chart_for_ju(GanZhi.parse(day), ju)
    assert day == "己未" and c.lessons[0].upper == B("酉")
    assert c.method_names == ("八專", "獨足")
    strict = Options(bazhuan_first=False)
    assert trans(day, ju, strict) != "酉酉酉"


def test_bazhuan_first_changes_seven():
    strict = Options(bazhuan_first=False)
    diff = sorted(
        (d.chars, j)
        for d in all_ganzhi()
        for j in range(1, 13)
        if trans(d.chars, j) != trans(d.chars, j, strict)
    )
    assert len(diff) == 7
    assert {d for d, _ in diff} == {"甲寅", "己未", "庚申"}
    for d, j in diff:
        assert chart_for_ju(GanZhi.parse(d), j, strict).method is Method.YAOKE


def test_ding_wei_is_bazhuan_not_yaoke():
    # a peer labels 八專 丁未 as 遙剋; 干支同位 without 克 is 八專 (spec §3.9, §7).
    for ju in range(2, 13):
        c = chart_for_ju(GanZhi.parse("丁未"), ju)
        if not any(ls.ke for ls in c.lessons) and ju != 7:
            assert c.method is Method.BAZHUAN


def test_lesson1_uses_stem_element():
    # spec §2 trap: on 伏吟 乙克辰 is a real 克 (the stem's 木, not 辰's 土) and 丑 over 丁/己 is no 克.
    yi = chart_for_ju(GanZhi.parse("乙丑"), 1)
    assert yi.lessons[0].ke == "下賊上"
    assert chart_for_ju(GanZhi.parse("丁丑"), 1).lessons[0].ke is None
    assert chart_for_ju(GanZhi.parse("己丑"), 1).lessons[0].ke is None
    assert chart_for_ju(GanZhi.parse("癸丑"), 1).lessons[0].ke == "上克下"


def test_bieze_kejing_tally():
    # 《課經》 (六十四課經) verse: 「別責無克三課備，剛三柔六九為宗」 — 別責 has 9 課: 3 on 陽 (剛) days, 6 on 陰 (柔).
    hits = [(d, j) for d in all_ganzhi() for j in range(1, 13) if chart_for_ju(d, j).method is Method.BIEZE]
    assert len(hits) == 9
    assert sum(d.stem.is_yang for d, _ in hits) == 3
    for d, j in hits:
        c = chart_for_ju(d, j)
        assert c.distinct_lessons == 3 and not any(ls.ke for ls in c.lessons)


def test_jinglan_days_kejing():
    # 《課經》: 「返吟有克往來取，井欄丑未丁己辛」 — 無依 (井欄射) only on 丁己辛 days with 丑/未 branch.
    days = {d.chars for d in all_ganzhi() if "無依" in chart_for_ju(d, 7).method_names}
    assert days == {s + b for s in "丁己辛" for b in "丑未"}


def test_depth_noseat_tallies():
    # spec §3 school variants: counting without the seat (the wording of the 《訂訛》 examples) gives
    # 見機 9, 察微 8 and no 綴瑕 — unlike the 《課經》 tallies, which is why `depth` is the default.
    nos = Options(shehai=Shehai.DEPTH_NOSEAT)
    ties = [chart_for_ju(d, j, nos).trace.tie_break for d in all_ganzhi() for j in range(1, 13)]
    assert ties.count("見機") == 9 and ties.count("察微") == 8 and ties.count("綴瑕") == 0


def test_general_homes_seed_002():
    # seed 002 lines 79–87: 「貴人 陰陽五行生剋與丑將同」 … 「天后 陰陽五行生剋與子將同」
    from engine.liuren import General

    seed = dict(
        zip(
            "貴人 螣蛇 朱雀 六合 勾陳 青龍 天空 白虎 太常 玄武 太陰 天后".split(),
            "丑巳午卯辰寅戌申未亥酉子",
            strict=True,
        )
    )
    assert {g.char: g.home.char for g in General} == seed
