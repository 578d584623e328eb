"""The judgment (engine.liuren.verdict) against what seed 003 itself says of its eight worked 課.

For each entry: the direction of the verdict under the default cast (晝, 占時 午) agrees with the seed's own
斷曰/占 text (quoted), and the reasons the seed names are among the verdict's reasons with the direction and
weight the seed gives them.
"""

from __future__ import annotations

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.liuren import chart_for_ju
from engine.liuren.verdict import Reason, Verdict, judge

B = Branch.from_char


def verdict(day: str, ju: int, night: bool = False) -> Verdict:
    return judge(chart_for_ju(GanZhi.parse(day), ju, daytime=not night))


def find(v: Verdict, role: str | None, reason_id: str, kind: str | None = None) -> Reason:
    for r in v.reasons:
        if r.role == role and r.id == reason_id and (kind is None or r.kind == kind):
            return r
    raise AssertionError(f"{role} {reason_id} not among the reasons")


# (day, 局, 晝/夜, direction, the seed's words)
DIRECTIONS = [
    ("庚辰", 8, False, "吉", "日干拱貴，乃升遷吉兆也"),
    ("庚辰", 9, False, "凶", "雖見有人相助，究歸虛耗"),
    ("庚辰", 10, False, "凶", "主驀然有災，虛驚無實"),
    ("庚辰", 11, False, "凶", "歷遍艱辛，終防侵害。凡百求謀，勞而無得"),
    ("庚辰", 12, False, "吉", "凡事易成"),  # 解曰; 斷曰 「始雖驚恐，終得無事」; 兵戰 「晝占勝」
    ("庚辰", 12, True, "凶", "兵戰：夜占不利"),
    ("辛巳", 1, False, "凶", "課體本凶"),  # 課經; 家宅 「晝占不吉」, 出師 「晝占可憂」
    ("辛巳", 2, False, "吉", "急宜就財，翻能致旺"),  # 求財 「晝占極利」, 出師 「晝占則吉」
    ("辛巳", 3, False, "凶", "其凶愈甚"),
    ("辛巳", 3, True, "凶", "夜卜不祥"),
]  # fmt: skip


@pytest.mark.parametrize(("day", "ju", "night", "direction", "quote"), DIRECTIONS)
def test_direction_agrees_with_the_seed(day: str, ju: int, night: bool, direction: str, quote: str) -> None:
    assert quote  # the seed's own words, kept beside the expectation
    v = verdict(day, ju, night)
    assert v.direction == direction
    assert v.decided_by is not None
    assert any(
        r.counted and r.direction == direction for r in v.reasons if (r.role or "patterns") == v.decided_by
    )


def test_entry1_reasons() -> None:
    v = verdict("庚辰", 8)
    # 「用神坐空，則前引無力」: 初傳 寅 on 酉 (空) — listed, not counted; the 干上 decides
    assert find(v, "initial", "xunkong", "seat_kong").params == (("seat", "酉"),)
    assert not any(r.counted for r in v.reasons if r.role == "initial")
    assert v.decided_by == "gan_upper"
    # 「晝為旦貴臨身」: the 晝貴 丑 on the 干 weighs 吉
    assert find(v, "gan_upper", "general.貴人").counted
    # 「雖墓神覆日，中傳入墓，而丑未相沖，兩墓俱開矣」: 丑 (庚's 墓) is opened by 未 of the 中傳
    mu = find(v, "gan_upper", "stage.墓")
    assert not mu.counted and dict(mu.params)["opened_by"] == "未" and "兩墓俱開" in mu.source
    # 「前後引從升遷吉」
    assert find(v, None, "pattern.yancong").direction == "吉"


def test_entry2_reasons() -> None:
    v = verdict("庚辰", 9)
    # 「我亦何甘受元武之耗乎」: 玄武 on the 用神 辰 (晝); 「中申又值旬空」
    assert find(v, "initial", "general.玄武").counted and v.decided_by == "initial"
    assert find(v, "middle", "xunkong", "kong")
    assert find(v, None, "pattern.duanqiao").direction == "凶"  # 斷橋 「中傳空」 「以無中論」


def test_entry3_reasons() -> None:
    v = verdict("庚辰", 10)
    # 「寅乃日之財」; 「末傳申值旬空」 → 刖足 「以無終論」
    assert find(v, "initial", "relative.財").counted
    assert find(v, "final", "xunkong", "kong") and find(v, None, "pattern.yuezu").direction == "凶"
    # 「夜貴閉口」: only the 夜 cast carries 閉口, and it weighs 凶 (「言不出口，事難開端」)
    assert find(verdict("庚辰", 10, night=True), None, "pattern.bikou").direction == "凶"
    assert not any(r.id == "pattern.bikou" for r in v.reasons)


def test_entry4_reasons() -> None:
    v = verdict("庚辰", 11)
    # 「初傳申為旬空，中傳戌為坐空 … 泛泛浮浮，與我何涉」
    assert find(v, "initial", "xunkong", "kong") and find(v, "middle", "xunkong", "seat_kong")
    assert not find(v, "initial", "general.白虎").counted  # 「又乘晝虎」, on the 空 申
    # 「況重以戌乘兩武」: the 干上 戌 ridden by 玄武 decides
    assert v.decided_by == "gan_upper" and find(v, "gan_upper", "general.玄武").counted
    assert find(v, None, "pattern.sheshanyuan").direction == "凶"  # 「歷遍艱辛…勞而無得」


def test_entry5_reasons() -> None:
    v = verdict("庚辰", 12)
    # 「蒿矢得申金 … 又乘晝虎，勢若可畏。然值旬空，則為遺鏃，不過虛驚而已」
    tiger = find(v, "final", "general.白虎")
    assert tiger.direction == "凶" and not tiger.counted
    assert find(v, None, "pattern.jiaoche").direction == "吉"  # 「與干支交車作六合也」
    assert find(v, None, "pattern.tianwang").direction == "凶"  # 「為天網四張，萬物被傷之象」


def test_entry6_reasons() -> None:
    v = verdict("辛巳", 1)
    # 「中既空亡，所以半路而止」; 「三傳刑沖破害俱全」 (申破巳, 寅刑巳, 寅害巳 with the 支)
    assert find(v, "middle", "xunkong", "kong")
    kinds = {r.id for r in v.reasons if r.role in ("initial", "middle", "final") and r.kind == "relation"}
    assert {"relation.破.zhi", "relation.刑.zhi", "relation.害.zhi"} <= kinds


def test_entry7_reasons() -> None:
    v = verdict("辛巳", 2)
    # 「雖旺祿臨身，卻逢空陷，祿不可守矣」: 干上 酉 (辛's 臨官 = 祿) is 空
    lu = find(v, "gan_upper", "stage.臨官")
    assert lu.direction == "吉" and not lu.counted
    assert find(v, "initial", "relative.財").counted  # 「急宜就財，翻能致旺」


def test_entry8_reasons() -> None:
    v = verdict("辛巳", 3)
    # 「丑為日墓，亥為日脫」 「初墓逢丁，中遇脫馬。末逢空祿，晝元夜虎」 (墓 by the default mu=wuxing)
    assert find(v, "initial", "stage.墓").counted and find(v, "initial", "stage.墓").direction == "凶"
    assert find(v, "middle", "relative.盜").counted
    assert find(v, "final", "xunkong", "kong") and not find(v, "final", "stage.臨官").counted
    assert find(v, "final", "general.玄武") and find(verdict("辛巳", 3, night=True), "final", "general.白虎")
    assert find(v, "initial", "general.青龍")  # 「青龍發用」
    assert find(v, None, "pattern.jiyin").direction == "凶"


def test_every_cast_has_a_verdict_with_sources() -> None:
    from engine.core.cycle import all_ganzhi

    for day in all_ganzhi():
        for ju in range(1, 13):
            v = judge(chart_for_ju(day, ju))
            assert v.direction in ("吉", "凶", "平") and "no_weights" in v.notes
            assert v.reasons and all(r.source.startswith(("seed 002", "seed 003", "《")) for r in v.reasons)
            if v.direction == "平":
                assert v.decided_by is None


def test_category_verdict() -> None:
    c = chart_for_ju(GanZhi.parse("庚辰"), 8)
    v = judge(c, "數目")
    assert v.category == "數目" and {"category_no_rule", "category_magnitude"} <= set(v.notes)
    assert judge(c, "人物").category == "人物" and "category_magnitude" not in judge(c, "人物").notes
    data = judge(c).to_json()
    assert data["category"] == "general" and set(data["reasons"][0]) >= {"text", "source"}


def test_category_names_its_leishen_and_positions() -> None:
    # seed 002 人物 「印煞屬父母」「貴人屬王侯紳士」: 干上 丑 (印 of 庚, ridden by the 晝貴) stands for 父母, 王侯紳士
    from engine.liuren.reading import glossary

    c = chart_for_ju(GanZhi.parse("庚辰"), 8)
    v = judge(c, "renwu")
    lzh = glossary("lzh")
    names = {lzh[r.id]["text"] for r in v.reasons if r.kind == "leishen" and r.role == "gan_upper"}
    assert {"父母", "王侯紳士"} <= names
    assert not any(r.counted for r in v.reasons if r.kind == "leishen")  # the tables give no 吉凶
    # 天文: only the positions whose branch or 天將 has an entry weigh; 「巳與白虎屬風」 does not need 白虎 on 巳
    assert judge(c, "天文").category == "天文"


def test_hour_and_birth_positions() -> None:
    # seed 002 「干支三傳占時本命等處」: 占時 counts when given (an assumed one does not), 本命 when known
    day = GanZhi.parse("庚辰")
    assumed = judge(chart_for_ju(day, 8))
    assert not any(r.role == "hour" for r in assumed.reasons)
    given = judge(chart_for_ju(day, 8, hour=B("午")))
    assert any(r.role == "hour" for r in given.reasons)
    with_birth = judge(chart_for_ju(day, 8), birth=B("午"))
    assert any(r.role == "birth" and r.branch == B("午") for r in with_birth.reasons)
