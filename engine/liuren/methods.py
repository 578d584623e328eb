"""三傳 by the 九宗門 (spec/liuren.md §3).

Everything here depends only on the day 干支, the plate offset and the school options, so the result of
:func:`transmissions_for` is cached: there are 720 課 per option set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.core.cycle import BRANCHES, Branch, GanZhi, Stem
from engine.core.relations import chong, xing, yima
from engine.liuren.options import FuyinMaozi, Options, Shehai
from engine.liuren.types import (
    RI_KE_YAO,
    SHANG_KE_XIA,
    XIA_ZEI_SHANG,
    YAO_KE_RI,
    Candidate,
    DepthStep,
    Lesson,
    Method,
    Trace,
)

B = Branch

# 寄宮 of the stems: 甲寅 乙辰 丙戊巳 丁己未 庚申 辛戌 壬亥 癸丑 (spec §1).
JIGONG = (B.YIN, B.CHEN, B.SI, B.WEI, B.SI, B.WEI, B.SHEN, B.XU, B.HAI, B.CHOU)
# Stems lodged at each 地盤 branch (inverse of JIGONG).
LODGED: tuple[tuple[Stem, ...], ...] = tuple(tuple(s for s in Stem if JIGONG[s] == b) for b in Branch)

MENG = frozenset({B.YIN, B.SHEN, B.SI, B.HAI})  # 孟
ZHONG = frozenset({B.ZI, B.WU, B.MAO, B.YOU})  # 仲

# 干支同位 days, where 八專 applies: 甲寅 庚申 丁未 己未 癸丑.
BAZHUAN_DAYS = frozenset(GanZhi.parse(t) for t in ("甲寅", "庚申", "丁未", "己未", "癸丑"))


def jigong(stem: Stem) -> Branch:
    return JIGONG[stem]


def heaven_over(earth: Branch, offset: int) -> Branch:
    return BRANCHES[(earth + offset) % 12]


@lru_cache(maxsize=2 * 720)  # 720 (day, plate) pairs; the 三傳 and the chart both read them
def make_lessons(day: GanZhi, offset: int) -> tuple[Lesson, Lesson, Lesson, Lesson]:
    """四課 in the order 干上 干陰 支上 支陰 (spec §2)."""
    seat1 = JIGONG[day.stem]
    u1 = heaven_over(seat1, offset)
    u2 = heaven_over(u1, offset)
    u3 = heaven_over(day.branch, offset)
    u4 = heaven_over(u3, offset)
    return (
        Lesson(u1, day.stem, seat1),
        Lesson(u2, u1, u1),
        Lesson(u3, day.branch, day.branch),
        Lesson(u4, u3, u3),
    )


def distinct_lessons(lessons: Sequence[Lesson]) -> int:
    """Number of distinct lessons, comparing (upper, 地盤 seat): seed 003 entry 2 (庚辰 第9局) is 不備."""
    return len({(ls.upper, ls.seat) for ls in lessons})


@dataclass(frozen=True, slots=True)
class Solution:
    method: Method
    names: tuple[str, ...]
    branches: tuple[Branch, Branch, Branch]
    trace: Trace


def _candidates(lessons: Sequence[Lesson], relation: str, stem: Stem, offset: int) -> list[Candidate]:
    """Distinct uppers of the lessons standing in ``relation``, in lesson order."""
    found: dict[Branch, list[int]] = {}
    for i, ls in enumerate(lessons, start=1):
        if ls.ke == relation:
            found.setdefault(ls.upper, []).append(i)
    return [
        Candidate(b, relation, tuple(ix), heaven_over(b, -offset), b.is_yang == stem.is_yang)
        for b, ix in found.items()
    ]


def _yao_candidates(lessons: Sequence[Lesson], stem: Stem, offset: int) -> list[Candidate]:
    """遙剋: uppers that 克 the day stem (蒿矢), else uppers the day stem 克s (彈射)."""
    for relation in (YAO_KE_RI, RI_KE_YAO):
        found: dict[Branch, list[int]] = {}
        for i, ls in enumerate(lessons, start=1):
            hit = (
                ls.upper.element.controls(stem.element)
                if relation == YAO_KE_RI
                else stem.element.controls(ls.upper.element)
            )
            if hit:
                found.setdefault(ls.upper, []).append(i)
        if found:
            return [
                Candidate(b, relation, tuple(ix), heaven_over(b, -offset), b.is_yang == stem.is_yang)
                for b, ix in found.items()
            ]
    return []


def _depth(c: Candidate, counts_attackers: bool, with_seat: bool) -> Candidate:
    """涉害 深淺: walk the 地盤 from the seat to the candidate's home, counting the 克 met on the way."""
    x = c.branch.element
    steps: list[DepthStep] = []
    total = 0
    n = (c.branch - c.seat) % 12
    for k in range(0 if with_seat else 1, n + 1):
        earth = c.seat.shift(k)
        counted: list[str] = []
        items: tuple[Stem | Branch, ...] = (earth, *LODGED[earth])
        for item in items:
            hit = item.element.controls(x) if counts_attackers else x.controls(item.element)
            if hit:
                counted.append(item.char)
        total += len(counted)
        steps.append(DepthStep(earth, tuple(counted)))
    return Candidate(c.branch, c.relation, c.lessons, c.seat, c.bi, total, tuple(steps))


def _lesson_order_pick(pool: Sequence[Candidate], yang_day: bool) -> Candidate:
    """綴瑕: 陽日 the candidate first met in lessons 1,2,3,4; 陰日 in lessons 3,4,1,2."""
    order = (1, 2, 3, 4) if yang_day else (3, 4, 1, 2)
    return min(pool, key=lambda c: min(order.index(i) for i in c.lessons))


def _shehai(
    pool: list[Candidate], stem: Stem, options: Options
) -> tuple[Candidate, str | None, list[Candidate]]:
    """Choose among several equally 比 candidates; returns (chosen, tie-break name, candidates with depths)."""
    attackers = pool[0].relation in (XIA_ZEI_SHANG, RI_KE_YAO)
    if options.shehai is Shehai.MZJ:
        scored = pool
        tied = pool
    else:
        scored = [_depth(c, attackers, options.shehai is Shehai.DEPTH) for c in pool]
        deepest = max(c.depth or 0 for c in scored)
        tied = [c for c in scored if c.depth == deepest]
        if len(tied) == 1:
            return tied[0], None, scored
    meng = [c for c in tied if c.seat in MENG]
    if len(meng) == 1:
        return meng[0], "見機", scored
    zhong = [c for c in tied if c.seat in ZHONG]
    if not meng and len(zhong) == 1:
        return zhong[0], "察微", scored
    rest = meng if meng else (zhong if zhong else tied)
    return _lesson_order_pick(rest, stem.is_yang), "綴瑕", scored


def _chain(first: Branch, offset: int) -> tuple[Branch, Branch, Branch]:
    """中 = 天盤 over 初, 末 = 天盤 over 中."""
    mid = heaven_over(first, offset)
    return first, mid, heaven_over(mid, offset)


def _choose(
    cands: list[Candidate], stem: Stem, options: Options, rule_prefix: str
) -> tuple[Candidate, list[str], Trace]:
    """One candidate → itself; several → 比用; still several → 涉害. Returns chosen, sub-names and trace."""
    if len(cands) == 1:
        c = cands[0]
        return c, [], Trace(rule_prefix, tuple(cands), (c.branch,), None, c.branch)
    bi = [c for c in cands if c.bi]
    if len(bi) == 1:
        c = bi[0]
        return c, ["知一"], Trace(rule_prefix + ".bi", tuple(cands), (c.branch,), None, c.branch)
    pool = bi if bi else cands
    chosen, tie, scored = _shehai(pool, stem, options)
    by_branch = {c.branch: c for c in scored}
    shown = tuple(by_branch.get(c.branch, c) for c in cands)
    names = ["涉害"] + ([tie] if tie else [])
    rule = rule_prefix + ".shehai"
    return chosen, names, Trace(rule, shown, tuple(c.branch for c in pool), tie, chosen.branch)


def _fuyin(day: GanZhi, lessons: Sequence[Lesson], options: Options) -> Solution:
    stem, branch = day.stem, day.branch
    kes = [ls.ke for ls in lessons if ls.ke]
    has_ke = bool(kes)
    yang = stem.is_yang
    gan_shang = lessons[0].upper
    names = ["伏吟"]
    notes: list[str] = []
    if has_ke:
        names.append("重審" if XIA_ZEI_SHANG in kes else "元首")
    names.append("自任" if yang else "自信")
    first = gan_shang if (yang or has_ke) else branch
    rule = "fuyin.gan" if (yang or has_ke) else "fuyin.zhi"
    if xing(first) == first:
        names.append("杜傳")
        notes.append("fuyin.du")
        mid = branch if (yang or has_ke) else gan_shang
    else:
        mid = xing(first)
    if xing(mid) == mid:
        last = chong(mid)
        notes.append("fuyin.mid_self")
    elif xing(mid) == first and options.fuyin_maozi is FuyinMaozi.DAQUAN:
        last = chong(mid)
        notes.append("fuyin.maozi")
    else:
        last = xing(mid)
    trace = Trace(rule, (), (), None, first, tuple(notes))
    return Solution(Method.FUYIN, tuple(names), (first, mid, last), trace)


# Bounded: 720 課 per option set; a few option sets in use at once.
@lru_cache(maxsize=4 * 720)
def solve(day: GanZhi, offset: int, options: Options) -> Solution:
    """The 三傳 of one 課 (day, plate offset) under the given options."""
    lessons = make_lessons(day, offset)
    stem = day.stem
    if offset == 0:
        return _fuyin(day, lessons, options)
    fanyin = offset == 6
    prefix: list[str] = ["返吟"] if fanyin else []

    cands = _candidates(lessons, XIA_ZEI_SHANG, stem, offset)
    sub = "重審"
    if not cands:
        cands = _candidates(lessons, SHANG_KE_XIA, stem, offset)
        sub = "元首"
    if cands:
        chosen, names, trace = _choose(
            cands, stem, options, "zeike.chongshen" if sub == "重審" else "zeike.yuanshou"
        )
        if not names:
            method, names = Method.ZEIKE, [sub]
        elif names == ["知一"]:
            method = Method.BIYONG
        else:
            method = Method.SHEHAI
        if fanyin:
            method = Method.FANYIN
        return Solution(method, tuple(prefix + names), _chain(chosen.branch, offset), trace)

    if fanyin:  # 無依 / 井欄射: 初 = 驛馬 of 日支, 中 = 支上, 末 = 干上
        first = yima(day.branch)
        return Solution(
            Method.FANYIN,
            ("返吟", "無依"),
            (first, lessons[2].upper, lessons[0].upper),
            Trace("fanyin.wuyi", (), (), None, first),
        )

    bazhuan_day = day in BAZHUAN_DAYS
    if bazhuan_day and options.bazhuan_first:
        return _bazhuan(day, lessons)

    yao = _yao_candidates(lessons, stem, offset)
    if yao:
        sub = "蒿矢" if yao[0].relation == YAO_KE_RI else "彈射"
        # ke_ti is [蒿矢] or [彈射]; a 比 / 涉害 tie-break among several stays in the trace (spec §3.6).
        rule = "yaoke.haoshi" if sub == "蒿矢" else "yaoke.danshe"
        chosen, _, trace = _choose(yao, stem, options, rule)
        return Solution(Method.YAOKE, (sub,), _chain(chosen.branch, offset), trace)

    count = distinct_lessons(lessons)
    if count == 4:
        if stem.is_yang:  # 虎視: 天盤 over 地盤酉, 支上, 干上
            first = heaven_over(B.YOU, offset)
            branches = (first, lessons[2].upper, lessons[0].upper)
            return Solution(Method.MAOXING, ("昴星", "虎視"), branches, Trace("maoxing.hushi", chosen=first))
        first = heaven_over(B.YOU, -offset)  # 冬蛇掩目: 地盤 under 天盤酉, 干上, 支上
        branches = (first, lessons[0].upper, lessons[2].upper)
        return Solution(
            Method.MAOXING, ("昴星", "冬蛇掩目"), branches, Trace("maoxing.dongshe", chosen=first)
        )
    if count == 3 and not bazhuan_day:
        gan_shang = lessons[0].upper
        if stem.is_yang:  # 天盤 over the 寄宮 of the 干合 partner
            first = heaven_over(JIGONG[stem.combine], offset)
            rule = "bieze.yang"
        else:  # the next 三合 member of the 支
            first = day.branch.shift(4)
            rule = "bieze.yin"
        return Solution(Method.BIEZE, ("別責",), (first, gan_shang, gan_shang), Trace(rule, chosen=first))
    if bazhuan_day:
        return _bazhuan(day, lessons)
    raise AssertionError(f"no 九宗門 method for {day.chars} offset {offset}")  # unreachable (720 sweep test)


def _bazhuan(day: GanZhi, lessons: Sequence[Lesson]) -> Solution:
    """八專: 陽日 干上 counted three forward inclusive; 陰日 4課 upper three backward inclusive; 中 = 末 = 干上."""
    gan_shang = lessons[0].upper
    if day.stem.is_yang:
        first = gan_shang.shift(2)
        rule = "bazhuan.yang"
    else:
        first = lessons[3].upper.shift(-2)
        rule = "bazhuan.yin"
    names = ("八專", "獨足") if first == gan_shang else ("八專",)
    return Solution(Method.BAZHUAN, names, (first, gan_shang, gan_shang), Trace(rule, chosen=first))
