"""A sweep over all 720 課 asserting the invariants of the 九宗門 (spec/liuren.md §1–§3).

The plates and lessons are rebuilt here from plain integers (branch 子=0 … 亥=11) so that the engine's own
helpers are not used to check themselves.
"""

from collections import Counter

import pytest

from engine.core.cycle import GanZhi, all_ganzhi
from engine.liuren import Method, Options, chart_for_ju

STEM_ELEMENT = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]  # 木火土金水
BRANCH_ELEMENT = [4, 2, 0, 0, 2, 1, 1, 2, 3, 3, 2, 4]
JIGONG = [2, 4, 5, 7, 5, 7, 8, 10, 11, 1]  # 甲寅 乙辰 丙戊巳 丁己未 庚申 辛戌 壬亥 癸丑
BAZHUAN = {"甲寅", "庚申", "丁未", "己未", "癸丑"}


def controls(a: int, b: int) -> bool:
    return (b - a) % 5 == 2


def plain_lessons(day: GanZhi, ju: int):
    off = (1 - ju) % 12
    s, z = int(day.stem), int(day.branch)

    def up(e):
        return (e + off) % 12

    u1, u3 = up(JIGONG[s]), up(z)
    # (upper, lower element, seat)
    return off, [
        (u1, STEM_ELEMENT[s], JIGONG[s]),
        (up(u1), BRANCH_ELEMENT[u1], u1),
        (u3, BRANCH_ELEMENT[z], z),
        (up(u3), BRANCH_ELEMENT[u3], u3),
    ]


ALL = [(d, j) for d in all_ganzhi() for j in range(1, 13)]


@pytest.fixture(scope="module")
def charts():
    return {(d.chars, j): chart_for_ju(d, j) for d, j in ALL}


def test_every_chu_is_a_legal_candidate(charts):
    for day, ju in ALL:
        c = charts[(day.chars, ju)]
        off, ls = plain_lessons(day, ju)
        first = int(c.branches[0])
        assert [int(x.upper) for x in c.lessons] == [u for u, _, _ in ls]
        xzs = {u for u, le, _ in ls if controls(le, BRANCH_ELEMENT[u])}
        skx = {u for u, le, _ in ls if controls(BRANCH_ELEMENT[u], le)}
        stem_el = STEM_ELEMENT[int(day.stem)]
        if ju == 1:
            assert c.method is Method.FUYIN
            continue
        if ju == 7:
            assert c.method is Method.FANYIN
        if xzs or skx:
            pool = xzs or skx  # 下賊上 outranks 上克下
            assert first in pool
            if len(pool) == 1:
                assert c.method in (Method.ZEIKE, Method.FANYIN)
            else:
                bi = {u for u in pool if u % 2 == int(day.stem) % 2}
                if len(bi) == 1:
                    assert c.method in (Method.BIYONG, Method.FANYIN) and first in bi
                else:
                    assert c.method in (Method.SHEHAI, Method.FANYIN)
                    assert first in (bi or pool)
                    depths = {x.branch: x.depth for x in c.trace.candidates if x.depth is not None}
                    assert depths[c.branches[0]] == max(depths.values())
            mid, last = (first + off) % 12, (first + 2 * off) % 12
            assert [int(b) for b in c.branches] == [first, mid, last]
            continue
        # no 克 anywhere
        assert c.method in (Method.FANYIN, Method.YAOKE, Method.MAOXING, Method.BIEZE, Method.BAZHUAN)
        if c.method is Method.YAOKE:
            assert day.chars not in BAZHUAN or (not Options().bazhuan_first), (
                "八專 precedes 遙剋 on 干支同位 days by default"
            )
            hao = {u for u, _, _ in ls if controls(BRANCH_ELEMENT[u], stem_el)}
            dan = {u for u, _, _ in ls if controls(stem_el, BRANCH_ELEMENT[u])}
            assert first in (hao or dan)
            assert c.method_names == (("蒿矢",) if hao else ("彈射",))
            assert [int(b) for b in c.branches] == [first, (first + off) % 12, (first + 2 * off) % 12]
        elif c.method is Method.MAOXING:
            hao = {u for u, _, _ in ls if controls(BRANCH_ELEMENT[u], stem_el)}
            dan = {u for u, _, _ in ls if controls(stem_el, BRANCH_ELEMENT[u])}
            assert not hao and not dan
            assert len({(u, seat) for u, _, seat in ls}) == 4
            expected = (9 + off) % 12 if day.stem.is_yang else (9 - off) % 12
            assert first == expected
            # spec §3.7: 虎視 中 = 支上, 末 = 干上; 冬蛇掩目 中 = 干上, 末 = 支上
            gan, zhi = ls[0][0], ls[2][0]
            rest = (zhi, gan) if day.stem.is_yang else (gan, zhi)
            assert [int(b) for b in c.branches[1:]] == list(rest)
        elif c.method is Method.BIEZE:
            assert len({(u, seat) for u, _, seat in ls}) == 3 and day.chars not in BAZHUAN
            # spec §3.8: 陽日 初 = 天盤 over the 寄宮 of the 干合 partner (甲己 乙庚 丙辛 丁壬 戊癸);
            # 陰日 初 = 日支 + 4 (the next 三合 member); 中 = 末 = 干上
            partner = (int(day.stem) + 5) % 10
            expected = (JIGONG[partner] + off) % 12 if day.stem.is_yang else (int(day.branch) + 4) % 12
            gan = ls[0][0]
            assert [int(b) for b in c.branches] == [expected, gan, gan]
        elif c.method is Method.BAZHUAN:
            assert day.chars in BAZHUAN


def test_fuyin_and_fanyin_on_their_ju(charts):
    counts = Counter(c.method for c in charts.values())
    assert counts[Method.FUYIN] == 60 and counts[Method.FANYIN] == 60
    assert all(charts[(d.chars, 1)].method is Method.FUYIN for d in all_ganzhi())
    assert all(charts[(d.chars, 7)].method is Method.FANYIN for d in all_ganzhi())


def test_every_method_occurs_and_names_are_clean(charts):
    methods = {c.method for c in charts.values()}
    assert methods == set(Method)
    allowed = {
        "重審", "元首", "知一", "涉害", "見機", "察微", "綴瑕", "蒿矢", "彈射", "伏吟", "自任", "自信",
        "杜傳", "返吟", "無依", "昴星", "虎視", "冬蛇掩目", "別責", "八專", "獨足",
    }  # fmt: skip
    for c in charts.values():
        assert c.method_names and set(c.method_names) <= allowed  # no debug suffixes such as 蒿矢11


def test_transmission_facts(charts):
    for (day_chars, _), c in charts.items():
        day = GanZhi.parse(day_chars)
        head = int(day.xun_head.branch)
        kong = {(head + 10) % 12, (head + 11) % 12}
        for t in c.transmissions:
            n = (int(t.branch) - head) % 12
            assert t.is_empty == (int(t.branch) in kong)
            assert (t.dun_stem is None) == (n >= 10)
            if t.dun_stem is not None:
                assert int(t.dun_stem) == n
            assert c.heaven[t.seat] == t.branch
            assert t.general is c.general_on(t.branch)


def test_generals_run_from_guiren(charts):
    for c in charts.values():
        seat = int(c.earth_of(c.guiren))
        forward = seat in (11, 0, 1, 2, 3, 4)  # 貴人 over 亥子丑寅卯辰 → 順
        assert c.forward == forward
        step = 1 if forward else -1
        names = list(c.generals)
        assert names[0] == "貴人"
        for i, name in enumerate(names):
            assert int(c.generals[name]) == (int(c.guiren) + step * i) % 12


def test_yaoke_never_needs_shehai(charts):
    # docs/liuren.md: every 遙剋 is decided by one candidate or by 比; the 涉害 fallback is never reached.
    rules = {c.trace.rule for c in charts.values() if c.method is Method.YAOKE}
    assert rules and not any(r.endswith(".shehai") for r in rules)


# 刑 (spec §3.1): 寅→巳→申→寅, 丑→戌→未→丑, 子⇄卯; 辰午酉亥 刑 themselves.
XING = {2: 5, 5: 8, 8: 2, 1: 10, 10: 7, 7: 1, 0: 3, 3: 0, 4: 4, 6: 6, 9: 9, 11: 11}


def test_fuyin_three_transmissions_for_all_sixty_days(charts):
    """伏吟 by the spec §3.1 rules, rebuilt from integers (default fuyin_maozi = 《大全》 卯子午)."""
    for day in all_ganzhi():
        s, z = int(day.stem), int(day.branch)
        gan = JIGONG[s]  # 伏吟: 干上 = the 寄宮 itself
        has_ke = s in (1, 9)  # 乙克辰, 丑克癸: the only 克 on 伏吟
        yang = s % 2 == 0
        first = gan if (yang or has_ke) else z
        if XING[first] == first:  # 杜傳
            mid = z if (yang or has_ke) else gan
        else:
            mid = XING[first]
        last = (mid + 6) % 12 if XING[mid] in (mid, first) else XING[mid]
        got = [int(b) for b in charts[(day.chars, 1)].branches]
        assert got == [first, mid, last], day.chars
