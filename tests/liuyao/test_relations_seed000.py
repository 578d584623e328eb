"""Seed 000's own constructions of 刑 and 害 agree with engine.core.relations (seed 002's tables)."""

from engine.core.cycle import Branch
from engine.core.relations import chong, hai, liuhe, xing

B = Branch


def test_xing_is_the_ju_riding_on_the_fang():
    # 000:31 「以金局之神，而巡西方之位，所謂巳酉丑而乘申酉戌也 … 亥卯未而乘亥子丑，申子辰而乘寅卯辰，寅午戌而乘巳午未
    # 矣。乘則刑之，上下相對」: the n-th member of the 局 刑s the n-th seat of its 方.
    riders = {"巳酉丑": "申酉戌", "亥卯未": "亥子丑", "申子辰": "寅卯辰", "寅午戌": "巳午未"}
    built = {}
    for ju, fang in riders.items():
        for rider, seat in zip(ju, fang, strict=True):
            built[B.from_char(rider)] = B.from_char(seat)
    assert len(built) == 12
    assert built == {b: xing(b) for b in B}
    # 000:35 「辰午酉亥之自刑」
    assert [b.char for b in B if xing(b) == b] == ["辰", "午", "酉", "亥"]


def test_hai_is_what_clashes_my_combination():
    # 000:43 「沖吾之合 … 故子合丑而未沖，所以子未為害爾」
    assert {b: chong(liuhe(b)) for b in B} == {b: hai(b) for b in B}
    assert hai(B.ZI) == B.WEI
