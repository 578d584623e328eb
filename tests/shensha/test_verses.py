"""The seed's mnemonic verses, decoded mechanically (animal → branch), against the engine.

Independent of the data's ``table`` fields: the verse text is read from the seed excerpt, the decoder knows only the
twelve animals, the month/season/stem markers and the slips the text itself makes (慮 = 虎, 巳 = 己 in a stem verse).
"""

from __future__ import annotations

import pytest

from engine.core.cycle import BRANCH_CHARS, STEM_CHARS, Branch
from engine.shensha import Options, evaluate
from tests.shensha.helpers import MONTHS, SEEDS, day_with_stem, gz

ANIMALS = {
    "鼠": "子", "牛": "丑", "虎": "寅", "兔": "卯", "龍": "辰", "蛇": "巳",
    "馬": "午", "羊": "未", "猴": "申", "雞": "酉", "犬": "戌", "狗": "戌", "豬": "亥", "豕": "亥",
}  # fmt: skip
MONTH_MARKERS = ["十一", "十二", "正", "二", "三", "四", "五", "六", "七", "八", "九", "十", "臘"]
MONTH_NUMBER = {
    m: i for i, m in enumerate(["正", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"])
}
MONTH_NUMBER["臘"] = 11
SEASON_MARKERS = "春夏秋冬"


def decode(verse: str, mode: str, slips: dict[str, str] | None = None) -> dict[object, list[str]]:
    """Key → values in order. mode "month": keys 0…11 (正月 = 0); "season": 春夏秋冬; "stem": 甲…癸.

    A value is an animal or a branch character (or a stem character in a month verse, for 干德). A marker starts a
    key; consecutive markers share the values that follow (正七 → 正月 and 七月). In month verses 子/丑 are the
    months 十一/十二 when no month is waiting for its value, else they are values (「八丑」 = 八月 丑).
    """
    for a, b in (slips or {}).items():
        verse = verse.replace(a, b)
    out: dict[object, list[str]] = {}
    pending: list[object] = []
    have_value = True
    i = 0
    while i < len(verse):
        ch = verse[i]
        key: object | None = None
        width = 1
        if mode == "month":
            for marker in MONTH_MARKERS:
                if verse.startswith(marker, i):
                    key, width = MONTH_NUMBER[marker], len(marker)
                    break
            if key is None and ch in "子丑" and (have_value or not pending):
                key = {"子": 10, "丑": 11}[ch]
        elif mode == "season" and ch in SEASON_MARKERS:
            key = ch
        elif mode == "stem" and ch in STEM_CHARS:
            key = ch
        if key is not None:
            if have_value:
                pending = []
            pending.append(key)
            have_value = False
            i += width
            continue
        value = ANIMALS.get(ch) or (ch if ch in BRANCH_CHARS else None)
        if value is None and mode == "month" and ch in STEM_CHARS:
            value = ch
        if value is not None and pending:
            for k in pending:
                if value not in out.setdefault(k, []):
                    out[k].append(value)
            have_value = True
        i += 1
    return out


def verse_in_seed(verse: str) -> str:
    assert any(verse in text for text in SEEDS["000"].values()), verse
    return verse


MONTH_VERSES = [
    ("天賊", "正龍二雞三虎鄉，四羊五鼠六蛇藏，七犬八兔九猴位，十牛子馬丑豬忙", {}, None),
    (
        "天醫",
        "天醫正卯二豬臨，三月隨牛四未尋，五蛇六兔七居亥，八丑九羊十巳存，十一再來尋卯上，十二亥上作醫人",
        {},
        None,
    ),
    ("天馬", "正七還騎馬，二八向猴申，三九須從犬，四十鼠相侵，五十一當寅上，六十二定歸辰", {}, None),
    (
        "鎚門官符",
        "正七慮行村，二八鼠當門，三九居戌位，四十弄猴猻，五十一騎馬走，六十二跳龍門",
        {"慮": "虎"},
        None,
    ),
    ("往亡", "正寅二巳三申位，四豬五兔六馬悲，七雞八鼠九辰忌，十羊子犬丑牛危", {}, None),
    ("陰煞", "正七寅、二八辰、三九午、四十申、五十一戌、六十二子", {}, None),
    ("天干天德", "正丁二申宮，三壬四辛同，五亥六甲上，七癸八寅從，九丙十居乙，子巳丑庚逢", {}, None),
    ("天獄", "正月逢亥二月申，三月隨蛇四月寅，五月循環絕於亥", {}, None),
    ("地獄", "正牛二未三寅虎，四猴五兔六雞災，七辰八戌九月巳，十豬子馬丑鼠來", {}, Options(diyu="verse")),
]


@pytest.mark.parametrize(
    ("name", "verse", "slips", "options"), MONTH_VERSES, ids=[v[0] for v in MONTH_VERSES]
)
def test_month_verse(name, verse, slips, options):
    table = decode(verse_in_seed(verse), "month", slips)
    assert table, name
    for month_index, values in table.items():
        assert len(values) == 1, (name, month_index, values)
        got = evaluate(gz("甲子"), MONTHS[month_index], options=options).get(name).value
        assert got.char == values[0], (name, month_index)
    expected_months = 5 if name == "天獄" else 12
    assert len(table) == expected_months, (name, sorted(table))


def test_tiancai_dicai_verse():
    """「正七起龍蛇 … 子午鼠牛索，丑未寅卯查」: months named by number, then (子午 / 丑未) by their branches."""
    verse = verse_in_seed("正七起龍蛇，二八馬羊家，三九循申酉，四十犬豕牙，子午鼠牛索，丑未寅卯查")
    clauses = verse.split("，")
    for clause in clauses:
        if clause[0] in "子丑":
            months = [Branch.from_char(clause[0]), Branch.from_char(clause[1])]
            values = [ANIMALS.get(c) or c for c in clause[2:4]]
        else:
            months = [MONTHS[MONTH_NUMBER[clause[0]]], MONTHS[MONTH_NUMBER[clause[1]]]]
            values = [ANIMALS.get(c) or c for c in clause if (c in ANIMALS or c in BRANCH_CHARS)][:2]
        for m in months:
            r = evaluate(gz("甲子"), m)
            assert (r.get("天財").value.char, r.get("地財").value.char) == tuple(values), clause


SEASON_VERSES = [
    ("喝散", "春巳夏居申，秋豬冬到寅"),
    ("浴盆煞", "春辰夏未秋逢戌，冬季推來在丑神"),
    ("喪車", "喪車春雞夏鼠來，秋卯冬午好安排"),
    ("天喜", "春戌夏丑為天喜，秋辰冬未三三指"),  # the first month of each season
]


@pytest.mark.parametrize(("name", "verse"), SEASON_VERSES, ids=[v[0] for v in SEASON_VERSES])
def test_season_verse(name, verse):
    table = decode(verse_in_seed(verse), "season")
    assert set(table) == set(SEASON_MARKERS)
    for q, season in enumerate(SEASON_MARKERS):
        (value,) = table[season]
        first_month = MONTHS[3 * q]
        assert evaluate(gz("甲子"), first_month).get(name).value.char == value, (name, season)


def test_guansuo_verse_pairs():
    table = decode(verse_in_seed("春關牛與蛇，夏鎖龍猴嗟，秋忌羊豬位，冬犬虎交加"), "season")
    for q, season in enumerate(SEASON_MARKERS):
        r = evaluate(gz("甲子"), MONTHS[3 * q])
        assert {r.get("關").value.char, r.get("鎖").value.char} == set(table[season])


STEM_VERSES = [
    ("陽貴", "甲羊戊庚牛，乙猴巳鼠頭，丙雞丁豬走，壬兔癸蛇游，六辛騎猛虎", {"巳鼠": "己鼠"}, None),
    (
        "陰貴",
        "甲牛戊庚羊，乙鼠巳猴鄉，丙雞丁豬位，壬蛇癸兔藏，六辛乘駿馬",
        {"巳猴": "己猴"},
        Options(yingui="verse"),
    ),
    ("福星貴人", "甲虎乙豬牛，丙同犬鼠遊，丁雞戊猴走，己羊庚馬頭，辛蛇癸逐兔，壬日占龍樓", {}, None),
    ("天廚貴人", "甲丁蛇位號天廚，丙鼠壬雞癸伴豬，乙戊辛干皆向馬，己猴庚虎福神殊", {}, None),
    ("文昌", "甲蛇乙馬號文昌，丁己尋雞辛犬方，庚豬癸兔壬從虎，丙戊揚猴最吉祥", {}, None),
    ("絕路空", "甲己申酉最為愁，乙庚午未不須籌，丙辛辰巳何勞問，丁壬寅卯一場憂，戊癸子丑高堂坐", {}, None),
]


@pytest.mark.parametrize(("name", "verse", "slips", "options"), STEM_VERSES, ids=[v[0] for v in STEM_VERSES])
def test_stem_verse(name, verse, slips, options):
    table = decode(verse_in_seed(verse), "stem", slips)
    assert set(table) == set(STEM_CHARS), (name, table)
    for stem, values in table.items():
        got = evaluate(day_with_stem(stem), options=options).get(name).value
        got_chars = {x.char for x in got} if isinstance(got, tuple) else {got.char}
        assert got_chars == set(values), (name, stem, values)


def test_yangren_verse_covers_the_yin_stems():
    """「乙逢寅動當為刃，辛見申搖豈不凶，丁己忌巳癸憂亥」: the yin stems count backward from 祿."""
    table = decode(verse_in_seed("乙逢寅動當為刃，辛見申搖豈不凶，丁己忌巳癸憂亥"), "stem")
    assert table == {"乙": ["寅"], "辛": ["申"], "丁": ["巳"], "己": ["巳"], "癸": ["亥"]}
    for stem, (value,) in table.items():
        assert evaluate(day_with_stem(stem)).get("羊刃").value.char == value
