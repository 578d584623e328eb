"""干支 cycle arithmetic, 旬空, 納音, 遁干 (五虎遁, 五鼠遁, 旬遁).

Sources: spec/calendar.md (index conventions, 旬空 formula), 《三命通會·論納音取象》 (納音 order),
the standard 口訣 「甲己之年丙作首…」 (五虎遁) and 「甲己還加甲…」 (五鼠遁), seed 003 「丑旬遁為丁」.
"""

import pytest

from engine.core.cycle import (
    Branch,
    Element,
    GanZhi,
    Stem,
    all_ganzhi,
    hour_stem,
    month_stem,
    xun_branch,
    xun_dun_stem,
)
from engine.errors import EngineInputError


def test_sixty_cycle_order_walks_stem_and_branch_together():
    cycle = all_ganzhi()
    assert len(cycle) == 60 and len({g.chars for g in cycle}) == 60
    assert [g.chars for g in cycle[:3]] == ["甲子", "乙丑", "丙寅"]
    assert cycle[10].chars == "甲戌" and cycle[59].chars == "癸亥"
    for a, b in zip(cycle, cycle[1:]):
        assert b.stem == a.stem.shift(1) and b.branch == a.branch.shift(1)


@pytest.mark.parametrize("text", ["甲子", "庚辰", "癸亥", "丙午", "辛酉"])
def test_parse_round_trips(text):
    assert GanZhi.parse(text).chars == text


@pytest.mark.parametrize("text", ["甲丑", "乙子", "가나", "甲", "甲子子", "子甲", ""])
def test_parse_rejects_non_ganzhi(text):
    with pytest.raises(EngineInputError) as err:
        GanZhi.parse(text)
    assert err.value.code == "error.not_a_ganzhi"


def test_from_parts_is_the_chinese_remainder():
    for g in all_ganzhi():
        assert GanZhi.from_parts(g.stem, g.branch) == g


@pytest.mark.parametrize(
    "day,empty",
    [("甲子", "戌亥"), ("甲戌", "申酉"), ("甲申", "午未"), ("甲午", "辰巳"), ("甲辰", "寅卯"), ("甲寅", "子丑"),
     ("戊戌", "辰巳"), ("癸亥", "子丑"), ("庚辰", "申酉")],
)  # fmt: skip
def test_xunkong(day, empty):
    assert "".join(b.char for b in GanZhi.parse(day).xunkong) == empty


def test_xun_head():
    assert GanZhi.parse("庚辰").xun_head.chars == "甲戌"
    assert GanZhi.parse("癸酉").xun_head.chars == "甲子"


def test_nayin_samples():
    # 《三命通會》: 甲子乙丑海中金, 丙寅丁卯爐中火, 戊辰己巳大林木, 庚午辛未路旁土, 壬申癸酉劍鋒金 … 壬戌癸亥大海水
    assert GanZhi.parse("甲子").nayin == "海中金" == GanZhi.parse("乙丑").nayin
    assert GanZhi.parse("丁卯").nayin == "爐中火"
    assert GanZhi.parse("庚午").nayin == "路旁土"
    assert GanZhi.parse("丙午").nayin == "天河水"
    assert GanZhi.parse("癸亥").nayin == "大海水"
    assert GanZhi.parse("甲辰").nayin_element == Element.FIRE  # 甲辰乙巳覆燈火


@pytest.mark.parametrize("year,first", [("甲", "丙"), ("己", "丙"), ("乙", "戊"), ("庚", "戊"), ("丙", "庚"),
                                        ("辛", "庚"), ("丁", "壬"), ("壬", "壬"), ("戊", "甲"), ("癸", "甲")])  # fmt: skip
def test_wuhudun(year, first):
    assert month_stem(Stem.from_char(year), Branch.YIN).char == first
    # 丑 month (the twelfth) closes the cycle: eleven stems after the 寅 month
    assert month_stem(Stem.from_char(year), Branch.CHOU) == Stem.from_char(first).shift(11)


@pytest.mark.parametrize("day,first", [("甲", "甲"), ("己", "甲"), ("乙", "丙"), ("庚", "丙"), ("丙", "戊"),
                                       ("辛", "戊"), ("丁", "庚"), ("壬", "庚"), ("戊", "壬"), ("癸", "壬")])  # fmt: skip
def test_wushudun(day, first):
    assert hour_stem(Stem.from_char(day), Branch.ZI).char == first
    assert hour_stem(Stem.from_char(day), Branch.HAI) == Stem.from_char(first).shift(11)


def test_xun_dun_stem_seed_003():
    # seed 003: in the 甲戌旬 「丑旬遁為丁」; 申 and 酉 are 空 and carry no stem
    head = GanZhi.parse("甲戌")
    assert xun_dun_stem(head, Branch.CHOU) == Stem.DING
    assert xun_dun_stem(head, Branch.XU) == Stem.JIA
    assert xun_dun_stem(head, Branch.SHEN) is None and xun_dun_stem(head, Branch.YOU) is None
    # the inverse: seed 003 「丑旬遁為丁」; 「夜貴旬尾臨辰」 — the 旬尾 of the 甲戌旬 is 未 (the 夜貴 of 庚)
    assert xun_branch(head, Stem.DING) == Branch.CHOU and xun_branch(head, Stem.GUI) == Branch.WEI
    for g in all_ganzhi():
        for st in Stem:
            assert xun_dun_stem(g.xun_head, xun_branch(g.xun_head, st)) == st


def test_elements_and_yinyang():
    assert [s.element.char for s in Stem] == list("木木火火土土金金水水")
    assert "".join(b.element.char for b in Branch) == "水土木木土火火土金金土水"
    assert [s.is_yang for s in Stem][:2] == [True, False]
    assert Element.WOOD.generates(Element.FIRE) and Element.WOOD.controls(Element.EARTH)
    assert Element.WATER.child == Element.WOOD and Element.FIRE.mother == Element.WOOD
    assert Element.METAL.master == Element.FIRE and Element.EARTH.victim == Element.WATER
    assert Stem.JIA.combine == Stem.JI and Stem.WU.combine == Stem.GUI


def test_char_lookups_reject_garbage():
    for bad in ("", "甲乙", "x"):
        with pytest.raises(EngineInputError):
            Stem.from_char(bad)
        with pytest.raises(EngineInputError):
            Branch.from_char(bad)
