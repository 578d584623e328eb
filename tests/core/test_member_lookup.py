"""Cycle arithmetic returns enum members by tuple look-up, never by IntEnum construction (issue #18).

``Branch(i)`` goes through ``EnumType.__call__`` (~550 ns); ``BRANCHES[i]`` is a tuple index (~36 ns). The
results must be the same members (same type, same identity) as before.
"""

from __future__ import annotations

import enum

import pytest

from engine.core import relations
from engine.core.cycle import (
    BRANCHES,
    ELEMENTS,
    STEMS,
    Branch,
    Element,
    GanZhi,
    Stem,
    hour_stem,
    month_stem,
    xun_branch,
    xun_dun_stem,
)


def test_tuples_hold_the_members_in_value_order():
    for members, cls, size in ((ELEMENTS, Element, 5), (STEMS, Stem, 10), (BRANCHES, Branch, 12)):
        assert len(members) == size
        for i, member in enumerate(members):
            assert type(member) is cls and member.value == i and member is cls(i)
    assert relations.KINS == tuple(relations.Kin) and relations.STAGES == tuple(relations.Stage)


@pytest.fixture
def enum_calls(monkeypatch):
    """Count constructions ``Cls(value)`` of the core enums while the test runs."""
    calls: list[type] = []
    original = enum.EnumType.__call__

    def counting(cls, *args, **kwargs):
        if cls in (Element, Stem, Branch, relations.Kin, relations.Stage):
            calls.append(cls)
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(enum.EnumType, "__call__", counting)
    return calls


def test_hot_paths_construct_no_enum(enum_calls):
    results = []
    for i in range(60):
        g = GanZhi.of(i)
        s, b = g.stem, g.branch
        results += [s.shift(i), s.combine, s.element, b.shift(-i), b.element, *g.xunkong]
        results += [s.element.child, s.element.mother, s.element.victim, s.element.master]
        results += [month_stem(s, b), hour_stem(s, b), xun_branch(g.xun_head, s), xun_dun_stem(g.xun_head, b)]
        results += [
            Stem.from_char("甲乙丙丁戊己庚辛壬癸"[i % 10]),
            Branch.from_char("子丑寅卯辰巳午未申酉戌亥"[i % 12]),
        ]
        results += [relations.fang(b)[0], relations.Kin.of(s.element, b.element), relations.changsheng(s, b)]
        results += [relations.Kin.of(s.element, b.element).element(s.element)]
    assert enum_calls == []
    assert all(
        r is None or type(r) in (Element, Stem, Branch, relations.Kin, relations.Stage) for r in results
    )


def test_counting_fixture_sees_a_construction(enum_calls):
    # the fixture itself is live: a direct construction is counted
    assert Branch(3) is Branch.MAO
    assert enum_calls == [Branch]


def test_look_ups_give_the_same_members_as_construction():
    for i in range(60):
        g = GanZhi.of(i)
        assert g.stem is Stem(i % 10) and g.branch is Branch(i % 12)
        for n in range(-13, 14):
            assert g.stem.shift(n) is Stem((i + n) % 10)
            assert g.branch.shift(n) is Branch((i + n) % 12)
    # 旬空 of 甲子旬 is 戌亥; 五虎遁 甲年寅月 = 丙; 五鼠遁 乙日子時 = 丙 (spec/calendar.md)
    assert GanZhi.parse("甲子").xunkong == (Branch.XU, Branch.HAI)
    assert month_stem(Stem.JIA, Branch.YIN) is Stem.BING
    assert hour_stem(Stem.YI, Branch.ZI) is Stem.BING
    assert Element.WATER.child is Element.WOOD and Element.WOOD.mother is Element.WATER
