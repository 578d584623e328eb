"""The 64-卦 table against the 京房 rules by an independent method (spec/liuyao.md §2).

The table is built by the 八宮 flipping construction (engine/liuyao/table.py). Here 世/stage come from the
rhyme 尋世訣 and the palace from the rhyme 認宮訣, which compare the inner and outer trigrams line by line and
never flip anything:

    尋世訣: 天同二世天變五，地同四世地變初，本宮六世三世異，人同遊魂人變歸。
    認宮訣: 一二三六外卦宮，四五遊魂內變更，歸魂內卦是本宮。

(天 = lines 3/6, 人 = lines 2/5, 地 = lines 1/4.) 納甲 is checked against the spec's literal table.
"""

import pytest

from engine.errors import EngineInputError
from engine.liuyao import HexStage, hexagram_by_name, hexagram_from_bits, hexagram_table, normalize_name

TRIGRAM_BITS = {
    "乾": "111",
    "兌": "110",
    "離": "101",
    "震": "100",
    "巽": "011",
    "坎": "010",
    "艮": "001",
    "坤": "000",
}
BITS_TRIGRAM = {v: k for k, v in TRIGRAM_BITS.items()}


def xunshi(bits: str) -> str:
    """尋世訣 → stage name."""
    di, ren, tian = (bits[i] == bits[i + 3] for i in range(3))
    same = (di, ren, tian)
    if same == (True, True, True):
        return "本宮"
    if same == (False, False, False):
        return "三世"
    if same == (False, False, True):
        return "二世"  # 天同
    if same == (True, True, False):
        return "五世"  # 天變
    if same == (True, False, False):
        return "四世"  # 地同
    if same == (False, True, True):
        return "一世"  # 地變
    if same == (False, True, False):
        return "遊魂"  # 人同
    assert same == (True, False, True)
    return "歸魂"  # 人變


SHI_BY_STAGE = {"本宮": 6, "一世": 1, "二世": 2, "三世": 3, "四世": 4, "五世": 5, "遊魂": 4, "歸魂": 3}


def renggong(bits: str, stage: str) -> str:
    """認宮訣 → palace."""
    inner, outer = bits[:3], bits[3:]
    if stage in ("本宮", "一世", "二世", "三世"):
        return BITS_TRIGRAM[outer]
    if stage in ("四世", "五世", "遊魂"):
        return BITS_TRIGRAM["".join("1" if c == "0" else "0" for c in inner)]
    return BITS_TRIGRAM[inner]


def test_table_has_64_distinct_hexagrams():
    table = hexagram_table()
    assert len(table) == 64
    assert len({h.bits for h in table}) == 64
    assert len({h.name for h in table}) == 64
    assert sorted(h.number for h in table) == list(range(1, 65))


@pytest.mark.parametrize("h", hexagram_table(), ids=lambda h: h.name)
def test_stage_shi_ying_palace_by_the_rhymes(h):
    stage = xunshi(h.bits)
    assert h.stage.char == stage
    assert h.shi == SHI_BY_STAGE[stage]
    assert abs(h.shi - h.ying) == 3
    assert h.palace.char == renggong(h.bits, stage)


def test_four_shi_hexagrams_have_ying_on_line_1():
    # ichingshifa puts 應 on line 6 for these (spec §7); the rule is 世 ± 3.
    names = {h.short for h in hexagram_table() if h.stage == HexStage.SI}
    assert names == {"觀", "升", "革", "睽", "大壯", "無妄", "蒙", "蹇"}
    for h in hexagram_table():
        if h.stage in (HexStage.SI, HexStage.YOUHUN):
            assert h.ying == 1
    assert hexagram_by_name("蹇").palace.char == "兌"
    assert (hexagram_by_name("蹇").shi, hexagram_by_name("蹇").ying) == (4, 1)


# spec §2 納甲: the lower trigram takes the first triple, the upper the second.
NAJIA = {
    "乾": ("甲子 甲寅 甲辰", "壬午 壬申 壬戌"),
    "坤": ("乙未 乙巳 乙卯", "癸丑 癸亥 癸酉"),
    "震": ("庚子 庚寅 庚辰", "庚午 庚申 庚戌"),
    "巽": ("辛丑 辛亥 辛酉", "辛未 辛巳 辛卯"),
    "坎": ("戊寅 戊辰 戊午", "戊申 戊戌 戊子"),
    "離": ("己卯 己丑 己亥", "己酉 己未 己巳"),
    "艮": ("丙辰 丙午 丙申", "丙戌 丙子 丙寅"),
    "兌": ("丁巳 丁卯 丁丑", "丁亥 丁酉 丁未"),
}
PALACE_ELEMENT = {
    "乾": "金",
    "兌": "金",
    "離": "火",
    "震": "木",
    "巽": "木",
    "坎": "水",
    "艮": "土",
    "坤": "土",
}
BRANCH_ELEMENT = dict(zip("子丑寅卯辰巳午未申酉戌亥", "水土木木土火火土金金土水"))
GEN = dict(zip("木火土金水", "火土金水木"))  # 生
CTRL = dict(zip("木火土金水", "土金水木火"))  # 克


def relative(palace_el: str, line_el: str) -> str:
    if line_el == palace_el:
        return "兄弟"
    if GEN[line_el] == palace_el:
        return "父母"
    if GEN[palace_el] == line_el:
        return "子孫"
    if CTRL[line_el] == palace_el:
        return "官鬼"
    assert CTRL[palace_el] == line_el
    return "妻財"


@pytest.mark.parametrize("h", hexagram_table(), ids=lambda h: h.name)
def test_najia_and_relatives(h):
    lower, upper = BITS_TRIGRAM[h.bits[:3]], BITS_TRIGRAM[h.bits[3:]]
    expected = NAJIA[lower][0].split() + NAJIA[upper][1].split()
    assert [gz.chars for gz in h.najia] == expected
    pel = PALACE_ELEMENT[renggong(h.bits, xunshi(h.bits))]
    assert [r.char for r in h.relatives] == [relative(pel, BRANCH_ELEMENT[gz[1]]) for gz in expected]


def test_hidden_spirits_counts_and_the_twelve_with_two():
    table = hexagram_table()
    counts = {n: sum(1 for h in table if len(h.hidden) == n) for n in (0, 1, 2)}
    assert counts == {0: 20, 1: 32, 2: 12}
    two = {h.short for h in table if len(h.hidden) == 2}
    assert two == {"觀", "賁", "大畜", "頤", "大過", "遯", "升", "井", "旅", "渙", "中孚", "小過"}
    for h in table:  # every 六親 is either visible or hidden, exactly once
        rels = {r.char for r in h.relatives} | {x.relative.char for x in h.hidden}
        assert rels == {"父母", "兄弟", "子孫", "妻財", "官鬼"}


def test_hidden_of_daxu_worked_example():
    # spec §2: 大畜 (艮宮 土) lacks 父母 and 子孫: 丙午 父母 under line 2 (飛 甲寅), 丙申 子孫 under line 3 (飛 甲辰).
    h = hexagram_by_name("大畜")
    assert h.palace.char == "艮"
    got = [(x.line, x.relative.char, x.ganzhi.chars, x.flying.chars) for x in h.hidden]
    assert got == [(2, "父母", "丙午", "甲寅"), (3, "子孫", "丙申", "甲辰")]


def test_six_clash_six_harmony_six_harm_hexagrams():
    table = hexagram_table()
    assert {h.short for h in table if h.six_clash} == {
        "乾",
        "坤",
        "震",
        "巽",
        "坎",
        "離",
        "艮",
        "兌",
        "無妄",
        "大壯",
    }
    assert {h.short for h in table if h.six_harmony} == {"泰", "否", "豫", "復", "節", "困", "旅", "賁"}
    # seed 000:47 「若姤恆小畜益卦，雖存六害之名」
    assert {h.short for h in table if h.six_harm} == {"姤", "恆", "小畜", "益"}


def test_table_json_row_contract():
    row = hexagram_from_bits("111111").to_json()
    assert row == {
        "lines": "111111",
        "name": "乾為天",
        "palace": "乾",
        "stage": "本宮",
        "shi": 6,
        "ying": 3,
        "najia": ["甲子", "甲寅", "甲辰", "壬午", "壬申", "壬戌"],
        "relatives": ["子孫", "妻財", "父母", "官鬼", "兄弟", "父母"],
        "hidden": [],
    }
    gou = hexagram_from_bits("011111").to_json()
    assert gou["name"] == "天風姤" and gou["hidden"] == [{"line": 2, "relative": "妻財", "ganzhi": "甲寅"}]


@pytest.mark.parametrize(
    ("variant", "name"),
    [
        ("遁", "天山遯"),
        ("恒", "雷風恆"),
        ("无妄", "天雷無妄"),
        ("旣濟", "水火既濟"),
        ("大壯", "雷天大壯"),
        ("天山遁", "天山遯"),
    ],
)
def test_variant_names(variant, name):
    assert hexagram_by_name(variant).name == name
    assert normalize_name(variant) in (hexagram_by_name(variant).short, name)


def test_bad_names_and_bits():
    with pytest.raises(EngineInputError) as e:
        hexagram_by_name("大大")
    assert e.value.code == "error.liuyao.bad_name"
    with pytest.raises(EngineInputError):
        hexagram_from_bits("11111")
    with pytest.raises(EngineInputError):
        hexagram_from_bits("11111x")
