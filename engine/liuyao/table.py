"""The 64-hexagram 裝卦 table of 京房 納甲 (spec/liuyao.md §2).

Construction (the 八宮 flipping rule): each palace's pure hexagram 本宮, then 一世 … 五世 flip lines 1…k,
遊魂 flips line 4 of 五世 back, 歸魂 restores the inner trigram of 遊魂. 世 by stage, 應 = 世 ± 3.
納甲 from the trigram table (data/trigrams.json), 六親 from the line 五行 against the 宮五行, 伏神 from the
pure palace hexagram. The tests check this against the rhymes 尋世訣 and 認宮訣 (an independent method).

Lines are numbered 1…6 bottom → top; a hexagram's ``bits`` string is written bottom first, 1 = yang.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from typing import Any

from engine.core.cycle import Branch, Element, GanZhi, Stem
from engine.core.relations import Kin, chong, hai, liuhe
from engine.datafiles import load_json
from engine.errors import EngineInputError


class Relative(IntEnum):
    """六親 of a line relative to its palace 五行 (spec §2): 同 兄弟, 生我 父母, 我生 子孫, 克我 官鬼, 我克 妻財."""

    PARENT = 0  # 父母
    SIBLING = 1  # 兄弟
    CHILD = 2  # 子孫
    WEALTH = 3  # 妻財
    OFFICIAL = 4  # 官鬼

    @property
    def char(self) -> str:
        return RELATIVE_NAMES[self]

    @classmethod
    def of(cls, palace: Element, line: Element) -> Relative:
        """同 兄弟, 我生 子孫, 我克 妻財, 克我 官鬼, 生我 父母 (the line's :class:`Kin` to the palace)."""
        return _BY_KIN[Kin.of(palace, line)]

    @property
    def kin(self) -> Kin:
        """The 五行 relation this 六親 names."""
        return _KIN[self]

    @classmethod
    def parse(cls, text: str) -> Relative:
        """父母 兄弟 子孫 妻財 官鬼, or a one-character form (父 兄 子 財 官 鬼 妻 孫)."""
        t = text.strip().replace("孙", "孫").replace("财", "財")
        for rel in cls:
            if t == rel.char:
                return rel
        short = {"父": 0, "兄": 1, "子": 2, "孫": 2, "財": 3, "妻": 3, "官": 4, "鬼": 4}
        if t in short:
            return cls(short[t])
        raise EngineInputError("error.liuyao.bad_use", f"not a 六親: {text!r}", value=text)

    def __str__(self) -> str:
        return self.char


RELATIVE_NAMES = ("父母", "兄弟", "子孫", "妻財", "官鬼")
_BY_KIN = {
    Kin.SAME: Relative.SIBLING,
    Kin.CHILD: Relative.CHILD,
    Kin.VICTIM: Relative.WEALTH,
    Kin.MASTER: Relative.OFFICIAL,
    Kin.MOTHER: Relative.PARENT,
}
_KIN = {rel: kin for kin, rel in _BY_KIN.items()}


class HexStage(IntEnum):
    """八宮 stage: 本宮 一世 二世 三世 四世 五世 遊魂 歸魂."""

    BENGONG = 0
    YI = 1
    ER = 2
    SAN = 3
    SI = 4
    WU = 5
    YOUHUN = 6
    GUIHUN = 7

    @property
    def char(self) -> str:
        return STAGE_NAMES[self]

    @property
    def shi(self) -> int:
        """世 line: 本宮 6, 一世 1 … 五世 5, 遊魂 4, 歸魂 3."""
        return (6, 1, 2, 3, 4, 5, 4, 3)[self]

    @property
    def ying(self) -> int:
        """應 line, three lines from 世 (四世 → 1, not 6)."""
        return (self.shi + 2) % 6 + 1

    def __str__(self) -> str:
        return self.char


STAGE_NAMES = ("本宮", "一世", "二世", "三世", "四世", "五世", "遊魂", "歸魂")


@dataclass(frozen=True, slots=True)
class Trigram:
    """One of the eight 經卦 with its 京房 納甲."""

    char: str
    bits: str  # bottom → top
    image: str  # 天 澤 火 雷 風 水 山 地
    element: Element
    stems: tuple[Stem, Stem]  # inner, outer
    branches: tuple[Branch, ...]  # six: the inner triple, then the outer triple
    ko: str

    def najia(self, outer: bool) -> tuple[GanZhi, GanZhi, GanZhi]:
        stem = self.stems[1 if outer else 0]
        triple = self.branches[3:] if outer else self.branches[:3]
        a, b, c = (GanZhi.from_parts(stem, br) for br in triple)
        return a, b, c

    def __str__(self) -> str:
        return self.char


@dataclass(frozen=True, slots=True)
class Hidden:
    """A 伏神: the palace hexagram's line under ``line`` carrying a 六親 this hexagram lacks; 飛神 = own line."""

    line: int
    relative: Relative
    ganzhi: GanZhi
    flying: GanZhi  # 飛神

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "relative": self.relative.char, "ganzhi": self.ganzhi.chars}


@dataclass(frozen=True, slots=True)
class Hexagram:
    """One of the 64 卦 with its full 裝卦."""

    bits: str  # bottom → top, 1 = yang
    number: int  # 文王 order 1…64
    short: str  # 乾 … 未濟
    name: str  # 乾為天 … 火水未濟
    ko: str  # the full name's reading: 건위천
    short_ko: str  # the short name's reading, as a word of its own (두음 법칙): 건, 이 (離), 여 (旅)
    lower: Trigram
    upper: Trigram
    palace: Trigram
    stage: HexStage
    najia: tuple[GanZhi, ...]  # six, bottom → top
    relatives: tuple[Relative, ...]  # six, against the palace 五行
    hidden: tuple[Hidden, ...]
    branches: tuple[Branch, ...]  # the 納甲 branches (precomputed: charts read them often)
    elements: tuple[Element, ...]

    @property
    def code(self) -> int:
        """Bits as an integer, line 1 = least significant bit."""
        return bits_to_code(self.bits)

    @property
    def shi(self) -> int:
        return self.stage.shi

    @property
    def ying(self) -> int:
        return self.stage.ying

    @property
    def six_clash(self) -> bool:
        """六沖卦: lines 1-4, 2-5, 3-6 all 沖 (the eight pure hexagrams, 無妄, 大壯)."""
        b = self.branches
        return all(chong(b[i]) == b[i + 3] for i in range(3))

    @property
    def six_harmony(self) -> bool:
        """六合卦: lines 1-4, 2-5, 3-6 all 合 (泰 否 豫 復 節 困 旅 賁)."""
        b = self.branches
        return all(liuhe(b[i]) == b[i + 3] for i in range(3))

    @property
    def six_harm(self) -> bool:
        """六害卦 (seed 000:47 「姤恆小畜益卦，雖存六害之名」): lines 1-4, 2-5, 3-6 all 害."""
        b = self.branches
        return all(hai(b[i]) == b[i + 3] for i in range(3))

    def to_json(self) -> dict[str, Any]:
        """The row of ``sikpan liuyao table --json`` (issue 5 contract)."""
        return {
            "lines": self.bits,
            "name": self.name,
            "palace": self.palace.char,
            "stage": self.stage.char,
            "shi": self.shi,
            "ying": self.ying,
            "najia": [gz.chars for gz in self.najia],
            "relatives": [r.char for r in self.relatives],
            "hidden": [h.to_json() for h in self.hidden],
        }

    def __str__(self) -> str:
        return self.name


def bits_to_code(bits: str) -> int:
    return sum(1 << i for i, ch in enumerate(bits) if ch == "1")


def code_to_bits(code: int) -> str:
    return "".join("1" if code >> i & 1 else "0" for i in range(6))


def _load(name: str) -> Any:
    return load_json("engine.liuyao", name)


@cache
def trigrams() -> Mapping[str, Trigram]:
    """The eight trigrams by character, in the 京房 palace order 乾 坎 艮 震 巽 離 坤 兌."""
    doc = _load("trigrams.json")
    out: dict[str, Trigram] = {}
    for char in doc["order"]:
        t = doc["trigrams"][char]
        out[char] = Trigram(
            char=char,
            bits=t["bits"],
            image=t["image"],
            element=Element.from_char(t["element"]),
            stems=(Stem.from_char(t["stems"][0]), Stem.from_char(t["stems"][1])),
            branches=tuple(Branch.from_char(b) for b in t["branches"]),
            ko=t["ko"],
        )
    return out


def _stage_codes(pure: int) -> tuple[int, ...]:
    """The eight hexagrams of a palace (本宮 … 歸魂) by the flipping construction."""
    codes = [pure]
    for k in range(1, 6):
        codes.append(pure ^ ((1 << k) - 1))  # flip lines 1…k
    youhun = codes[5] ^ 0b001000  # flip line 4 back
    guihun = (youhun & 0b111000) | (pure & 0b000111)  # restore the inner trigram
    codes += [youhun, guihun]
    return tuple(codes)


@dataclass(frozen=True, slots=True)
class _Table:
    by_code: tuple[Hexagram, ...]  # indexed by code
    ordered: tuple[Hexagram, ...]  # palace order, 本宮 … 歸魂
    by_name: Mapping[str, Hexagram]
    variants: Mapping[str, str]


@cache
def _table() -> _Table:
    tri = trigrams()
    tri_by_bits = {t.bits: t for t in tri.values()}
    doc = _load("hexagrams.json")
    names = {(h["upper"], h["lower"]): h for h in doc["hexagrams"]}

    def najia_of(code: int) -> tuple[GanZhi, ...]:
        bits = code_to_bits(code)
        lower, upper = tri_by_bits[bits[:3]], tri_by_bits[bits[3:]]
        return lower.najia(outer=False) + upper.najia(outer=True)

    placed: dict[int, tuple[Trigram, HexStage]] = {}
    for palace in tri.values():
        pure = bits_to_code(palace.bits * 2)
        for stage, code in zip(HexStage, _stage_codes(pure), strict=True):
            if code in placed:  # pragma: no cover - the construction is a bijection
                raise AssertionError(f"hexagram {code_to_bits(code)} placed twice")
            placed[code] = (palace, stage)
    if len(placed) != 64:  # pragma: no cover
        raise AssertionError("the 八宮 construction does not cover the 64 hexagrams")

    hexes: list[Hexagram] = []
    for code in range(64):
        palace, stage = placed[code]
        bits = code_to_bits(code)
        lower, upper = tri_by_bits[bits[:3]], tri_by_bits[bits[3:]]
        najia = najia_of(code)
        relatives = tuple(Relative.of(palace.element, gz.branch.element) for gz in najia)
        pure_najia = najia_of(bits_to_code(palace.bits * 2))
        hidden = []
        for rel in Relative:
            if rel in relatives:
                continue
            for i, gz in enumerate(pure_najia):
                if Relative.of(palace.element, gz.branch.element) == rel:
                    hidden.append(Hidden(line=i + 1, relative=rel, ganzhi=gz, flying=najia[i]))
                    break  # one 伏神 per missing 六親 (never needed twice in the 64: 20/32/12, spec §2)
        hidden.sort(key=lambda h: h.line)
        meta = names[(upper.char, lower.char)]
        hexes.append(
            Hexagram(
                bits=bits,
                number=meta["n"],
                short=meta["short"],
                name=meta["name"],
                ko=meta["ko"],
                short_ko=meta["short_ko"],
                lower=lower,
                upper=upper,
                palace=palace,
                stage=stage,
                najia=najia,
                relatives=relatives,
                hidden=tuple(hidden),
                branches=tuple(gz.branch for gz in najia),
                elements=tuple(gz.branch.element for gz in najia),
            )
        )
    by_code = tuple(hexes)
    ordered = tuple(by_code[c] for p in tri.values() for c in _stage_codes(bits_to_code(p.bits * 2)))
    by_name: dict[str, Hexagram] = {}
    for h in by_code:
        by_name[h.name] = h
        by_name[h.short] = h
    # 世 and 應 are always three lines apart (spec §2).
    for h in by_code:
        if abs(h.shi - h.ying) != 3:  # pragma: no cover
            raise AssertionError(f"世應 of {h.name} not three apart")
    return _Table(by_code=by_code, ordered=ordered, by_name=by_name, variants=dict(doc["variants"]))


def hexagram_table() -> tuple[Hexagram, ...]:
    """All 64 hexagrams in palace order (乾宮 本宮 … 兌宮 歸魂)."""
    return _table().ordered


def hexagram(code: int) -> Hexagram:
    """The hexagram with these bits as an integer (line 1 = least significant bit)."""
    return _table().by_code[code]


def hexagram_from_bits(bits: str) -> Hexagram:
    """``"111111"`` (bottom → top, 1 = yang) → 乾為天."""
    b = bits.strip()
    if len(b) != 6 or any(ch not in "01" for ch in b):
        raise EngineInputError("error.liuyao.bad_bits", f"not six 0/1 lines: {bits!r}", value=bits)
    return _table().by_code[bits_to_code(b)]


def normalize_name(text: str) -> str:
    """Fold variant spellings (遁→遯, 恒→恆, 无妄→無妄, 旣濟→既濟, simplified forms) to the table's."""
    variants = _table().variants
    return "".join(variants.get(ch, ch) for ch in text.strip())


def hexagram_by_name(text: str) -> Hexagram:
    """A hexagram by its full (乾為天) or short (乾) name, variant spellings accepted."""
    key = normalize_name(text)
    found = _table().by_name.get(key)
    if found is None:
        raise EngineInputError("error.liuyao.bad_name", f"not a hexagram name: {text!r}", value=text)
    return found
