"""Seed 002 tables (大六壬 神煞): 刑 沖 破 害 合 馬, 十二長生, 旺相死囚休.

Each expected value below is transcribed from the seed text (line numbers of seed 002 in comments), not
derived from the code under test. Two typos of the seed are corrected and asserted as such.
"""

import pytest

from engine.core.cycle import Branch, Element, Stem
from engine.core.relations import (
    Kin,
    Stage,
    Vitality,
    changsheng,
    changsheng_branch,
    chong,
    fang,
    hai,
    liuhe,
    po,
    sanhe,
    stage_branch,
    vitality,
    xing,
    yima,
)

b = Branch.from_char
s = Stem.from_char


def pairs(text: str) -> list[tuple[str, str]]:
    return [(p[0], p[1]) for p in text.split()]


def test_chong_seed_002_line_51():
    for x, y in pairs("子午 丑未 寅申 卯酉 辰戌 巳亥"):  # 「子午相沖，丑未相沖…巳亥相沖」
        assert chong(b(x)) == b(y) and chong(b(y)) == b(x)


def test_po_seed_002_line_55():
    for x, y in pairs("子酉 午卯 丑辰 戌未 亥寅 申巳"):  # 「子酉相破，午卯相破…申巳相破」
        assert po(b(x)) == b(y) and po(b(y)) == b(x)


def test_hai_seed_002_line_55():
    for x, y in pairs("子未 丑午 寅巳 申亥 卯辰 酉戌"):  # 「子未相害，丑午相害…酉戌相害」
        assert hai(b(x)) == b(y) and hai(b(y)) == b(x)


def test_liuhe_seed_002_line_59():
    for x, y in pairs("子丑 午未 卯戌 酉辰 寅亥 巳申"):  # 「子丑相合，午未相合…巳申相合」
        assert liuhe(b(x)) == b(y) and liuhe(b(y)) == b(x)


def test_xing_seed_002_line_51():
    # 「寅刑巳，巳刑申，申刑寅；丑刑戌，戌刑未，未刑丑；子刑卯，卯刑子；辰刑辰，午刑午，酉刑酉，亥刑害」
    # The last clause is a typo of the seed for 亥刑亥 (自刑 of 辰午酉亥).
    for x, y in pairs("寅巳 巳申 申寅 丑戌 戌未 未丑 子卯 卯子 辰辰 午午 酉酉 亥亥"):
        assert xing(b(x)) == b(y)


def test_yima_seed_002_line_59():
    # 「亥卯未日巳，寅午戌日申，巳酉丑日亥，申子辰日寅」
    for group, horse in (("亥卯未", "巳"), ("寅午戌", "申"), ("巳酉丑", "亥"), ("申子辰", "寅")):
        for ch in group:
            assert yima(b(ch)) == b(horse)


def test_sanhe_and_fang():
    for group, element in (("申子辰", "水"), ("亥卯未", "木"), ("寅午戌", "火"), ("巳酉丑", "金")):
        for ch in group:
            start, middle, end, el = sanhe(b(ch))
            assert start.char + middle.char + end.char == group and el.char == element
    for group, element in (("寅卯辰", "木"), ("巳午未", "火"), ("申酉戌", "金"), ("亥子丑", "水")):
        for ch in group:
            first, second, third, el = fang(b(ch))
            assert first.char + second.char + third.char == group and el.char == element


# seed 002 lines 35–47, stage by stage: the stems listed for each branch.
SEED_002_STAGES = {
    Stage.CHANGSHENG: "甲亥 乙午 丙寅 戊寅 丁酉 己酉 庚巳 辛子 壬申 癸卯",
    Stage.MUYU: "甲子 乙巳 丙卯 戊卯 丁申 己申 庚午 辛亥 壬酉 癸寅",
    Stage.GUANDAI: "甲丑 癸丑 乙辰 丙辰 戊辰 丁未 己未 庚未 辛戌 壬戌",
    Stage.LINGUAN: "甲寅 乙卯 丙巳 戊巳 丁午 己午 庚申 辛酉 壬亥 癸子",
    # 「甲乙卯，乙日寅」: the first clause is a typo of the seed for 甲日卯 (its Korean note says so)
    Stage.DIWANG: "甲卯 乙寅 丙午 戊午 丁巳 己巳 庚酉 辛申 壬子 癸亥",
    Stage.SHUAI: "甲辰 丁辰 己辰 乙丑 壬丑 丙未 戊未 辛未 庚戌 癸戌",
}


@pytest.mark.parametrize("stage", list(SEED_002_STAGES))
def test_changsheng_seed_002(stage):
    for stem_char, branch_char in pairs(SEED_002_STAGES[stage]):
        assert changsheng(s(stem_char), b(branch_char)) == stage, (stem_char, branch_char)
        assert stage_branch(s(stem_char), stage) == b(branch_char)


def test_changsheng_rule_yang_forward_yin_backward():
    # seed 002 (Korean gloss of the 十二長生 tables): 「양간은 순행하고 음간은 역행하여」 — each stem visits all
    # twelve stages once
    for stem in Stem:
        stages = [changsheng(stem, br) for br in Branch]
        assert sorted(stages) == list(Stage)
        start = changsheng_branch(stem)
        step = 1 if stem.is_yang else -1
        assert changsheng(stem, start.shift(step)) == Stage.MUYU
        assert changsheng(stem, start.shift(8 * step)) == Stage.MU


# seed 002 lines 63–67: 旺 相 死 囚 休 by season, 季月 being the fifth season.
SEED_002_VITALITY = {
    "寅": {"旺": "寅卯", "相": "巳午", "死": "辰戌丑未", "囚": "申酉", "休": "亥子"},  # 春
    "午": {"旺": "巳午", "相": "辰戌丑未", "死": "申酉", "囚": "亥子", "休": "寅卯"},  # 夏
    "酉": {"旺": "申酉", "相": "亥子", "死": "寅卯", "囚": "巳午", "休": "辰戌丑未"},  # 秋
    "子": {"旺": "亥子", "相": "寅卯", "死": "巳午", "囚": "辰戌丑未", "休": "申酉"},  # 冬
    "辰": {"旺": "辰戌丑未", "相": "申酉", "死": "亥子", "囚": "寅卯", "休": "巳午"},  # 季月
}


@pytest.mark.parametrize("month", list(SEED_002_VITALITY))
def test_vitality_seed_002(month):
    for state, branches in SEED_002_VITALITY[month].items():
        for ch in branches:
            assert vitality(b(ch).element, b(month)).char == state, (month, ch)


def test_vitality_four_season_form_has_no_earth_season():
    # Four-season form: 辰 belongs to spring, so wood rules and earth is 死.
    assert vitality(Element.WOOD, Branch.CHEN, five_seasons=False) == Vitality.WANG
    assert vitality(Element.EARTH, Branch.CHEN, five_seasons=False) == Vitality.SI
    assert vitality(Element.EARTH, Branch.CHEN, five_seasons=True) == Vitality.WANG


# seed 002 lines 23–31: 「印 甲乙日亥子，丙丁日寅卯，戊己日巳午，庚辛日辰戌丑未，壬癸日申酉」 and 盜 鬼 財 劫 alike.
SEED_002_KIN = {
    "印": {"甲乙": "亥子", "丙丁": "寅卯", "戊己": "巳午", "庚辛": "辰戌丑未", "壬癸": "申酉"},
    "盜": {"甲乙": "巳午", "丙丁": "辰戌丑未", "戊己": "申酉", "庚辛": "亥子", "壬癸": "寅卯"},
    "鬼": {"甲乙": "申酉", "丙丁": "亥子", "戊己": "寅卯", "庚辛": "巳午", "壬癸": "辰戌丑未"},
    "財": {"甲乙": "辰戌丑未", "丙丁": "申酉", "戊己": "亥子", "庚辛": "寅卯", "壬癸": "巳午"},
    "劫": {"甲乙": "寅卯", "丙丁": "巳午", "戊己": "辰戌丑未", "庚辛": "申酉", "壬癸": "亥子"},
}


def test_kin_seed_002():
    for name, rows in SEED_002_KIN.items():
        for stems, branches in rows.items():
            for st in stems:
                for br in branches:
                    kin = Kin.of(s(st).element, b(br).element)
                    assert kin.char == name, (st, br)
                    assert kin.element(s(st).element) == b(br).element
    assert len({k.char for k in Kin}) == 5
