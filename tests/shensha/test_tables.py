"""Where the seed gives both a rule and a verse/table, they agree; the known mismatches are exactly those documented.

Each star's ``table`` in stars.json is the seed's own table or verse decoded (animals → branches); the rule is the
generative form. For every key the table covers, the engine's value (from the rule) must equal the table, except the
keys listed in ``mismatch`` — and there the two must really differ (a stale mismatch note fails too).
"""

from __future__ import annotations

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.shensha import Options, evaluate, star_defs
from engine.shensha.rules import parse_value
from tests.shensha.helpers import MONTHS, day_with_branch, day_with_stem

SEASON_MONTHS = {"春": "寅卯辰", "夏": "巳午未", "秋": "申酉戌", "冬": "亥子丑"}
FIVE_SEASON_MONTHS = {"春": "寅卯", "夏": "巳午", "秋": "申酉", "冬": "亥子", "季月": "辰未戌丑"}


def cases(s, key: str):
    """(day, month) pairs that a table key stands for."""
    plain = GanZhi.parse("甲子")
    if s.group == "vitality":
        return [(plain, Branch.from_char(m)) for m in FIVE_SEASON_MONTHS[key]]
    if s.key in ("month", "season"):
        if key in SEASON_MONTHS:
            months = SEASON_MONTHS[key]
        else:
            months = key  # one month branch, or a 三合 group such as 寅午戌
        return [(plain, Branch.from_char(m)) for m in months]
    if s.key == "day stem":
        return [(day_with_stem(key), None)]
    if s.key == "day branch":
        return [(day_with_branch(b), None) for b in key]
    if s.key == "day":
        return [(GanZhi.parse(key).shift(i), None) for i in range(10)]  # every day of the 旬
    raise AssertionError(f"no cases for {s.id} key {key}")


def same(a, b) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return set(a if isinstance(a, tuple) else (a,)) == set(b if isinstance(b, tuple) else (b,))
    return a == b


TABLED = [s for s in star_defs() if s.table]


def test_most_stars_carry_the_seeds_own_table():
    assert len(TABLED) >= 60


@pytest.mark.parametrize("s", TABLED, ids=lambda s: s.id)
def test_rule_agrees_with_the_seed_table(s):
    differing = set()
    for key, text in s.table.items():
        expected = parse_value(text)
        for day, month in cases(s, key):
            hit = evaluate(day, month).get(s.id)
            assert hit is not None, (s.id, key)
            if not same(hit.value, expected):
                differing.add(key)
    assert differing == set(s.mismatch), (s.id, sorted(differing))


def test_documented_mismatches():
    """The three places where the seed's verse and its prose disagree (docs/shensha.md §Mismatches)."""
    mism = {s.name: set(s.mismatch) for s in star_defs() if s.mismatch}
    assert mism == {
        "陰貴": {"丙", "丁"},  # verse repeats the 陽貴 「丙雞丁豬」
        "旌旗": {"冬"},  # note 冬子 vs 「起卯，逆征四圉」 → 冬午 (the table holds the emended 午)
        "地獄": set("寅卯辰巳午未酉戌亥子丑"),  # verse = the 血刃/血忌 sequence; prose 正戌 逆; both 辰 in 申
    }


@pytest.mark.parametrize(
    ("name", "option", "value"),
    [("陰貴", "yingui", "verse"), ("旌旗", "jingqi", "emended"), ("地獄", "diyu", "verse")],
)
def test_the_alternative_option_reproduces_the_other_reading(name, option, value):
    """Under the named alternative the engine gives exactly the other reading of each mismatch."""
    s = next(s for s in star_defs() if s.name == name)
    opts = Options().with_option(option, value)
    for key in s.mismatch:
        for day, month in cases(s, key):
            default = evaluate(day, month).get(s.id).value
            alternative = evaluate(day, month, options=opts).get(s.id).value
            assert default != alternative
            if name != "旌旗":  # the 旌旗 table holds the emended reading, the default is the literal note
                assert alternative == parse_value(s.table[key])
            else:
                assert alternative == parse_value(s.table[key]) and default == Branch.ZI


def test_tianku_gloss_fits_only_two_groups():
    """天哭: the table 正未 二申 三酉 四戌 is the seed's; its gloss 「衰」 fits 寅午戌 and 巳酉丑 months only."""
    from engine.core.relations import Stage, sanhe, stage_branch
    from engine.shensha.rules import yang_stem

    fits = []
    for m in MONTHS:
        decline = stage_branch(yang_stem(sanhe(m)[3]), Stage.SHUAI)
        if evaluate(GanZhi.parse("甲子"), m).get("天哭").value == decline:
            fits.append(m.char)
    assert "".join(fits) == "寅巳午酉戌丑"  # the 寅午戌 and 巳酉丑 months
