"""Casting a hexagram: three coins, six given digits, or 梅花-style time numbers (spec/liuyao.md §1).

Digits bottom → top: 6 老陰 (moving, becomes yang), 7 少陽, 8 少陰, 9 老陽 (moving, becomes yin).
Every cast records its method and what is needed to replay it (the coin tosses, the digits, the numbers).

Coins: each coin shows 3 (字, the "yang" face) or 2; the three faces sum to 6…9, so 6 = 1/8, 7 = 3/8,
8 = 3/8, 9 = 1/8. The tosses come from :mod:`secrets` unless an ``rng`` (anything with ``getrandbits``)
is given, e.g. ``random.Random(seed)`` for a reproducible test.

Time (梅花易數 「年月日時起例」): 上卦 = (年 + 月 + 日) mod 8, 下卦 = (年 + 月 + 日 + 時) mod 8 in the
先天 numbers 乾1 兌2 離3 震4 巽5 坎6 艮7 坤8 (remainder 0 → 8), moving line = (年 + 月 + 日 + 時) mod 6,
**remainder 0 → line 6**. 《梅花易數》 counts the lunar month and day; the calendar API gives 干支, so
:func:`cast_time` uses 年支數 (子1 … 亥12), 月建數 (寅1 … 丑12, the 節 month), 日支數 (子1 … 亥12) and
時支數 (子1 … 亥12). :func:`cast_numbers` takes any four numbers (e.g. the lunar month and day).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuyao.table import Hexagram, bits_to_code, hexagram, trigrams


class RandomBits(Protocol):
    def getrandbits(self, k: int, /) -> int: ...


class Method(StrEnum):
    COINS = "coins"
    MANUAL = "manual"
    TIME = "time"
    NUMBERS = "numbers"


# 先天八卦數 (《梅花易數》): 乾一 兌二 離三 震四 巽五 坎六 艮七 坤八.
XIANTIAN = ("乾", "兌", "離", "震", "巽", "坎", "艮", "坤")

_SYSTEM_RANDOM = secrets.SystemRandom()
_DIGITS = frozenset("6789")


@dataclass(frozen=True, slots=True)
class TimeNumbers:
    """The four numbers of a 梅花 time cast and what they came from."""

    year: int
    month: int
    day: int
    hour: int
    pillars: tuple[GanZhi, GanZhi, GanZhi, GanZhi] | None = None  # 年 月 日 時 when cast from an instant

    @property
    def upper(self) -> str:
        return XIANTIAN[(self.year + self.month + self.day - 1) % 8]

    @property
    def lower(self) -> str:
        return XIANTIAN[(self.year + self.month + self.day + self.hour - 1) % 8]

    @property
    def moving(self) -> int:
        """Moving line 1…6: the total mod 6, remainder 0 → line 6."""
        return (self.year + self.month + self.day + self.hour - 1) % 6 + 1

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"year": self.year, "month": self.month, "day": self.day, "hour": self.hour}
        if self.pillars is not None:
            out["pillars"] = [gz.chars for gz in self.pillars]
        return out


@dataclass(frozen=True, slots=True)
class Cast:
    """Six line digits (bottom → top) and how they were obtained."""

    digits: str
    method: Method
    tosses: tuple[tuple[int, int, int], ...] | None = None  # coins: each coin 2 or 3, lines bottom → top
    numbers: TimeNumbers | None = None
    at: datetime | None = None

    @property
    def moving(self) -> tuple[int, ...]:
        """Moving line numbers (1 = bottom)."""
        return tuple(i + 1 for i, d in enumerate(self.digits) if d in "69")

    @property
    def code(self) -> int:
        """The 本卦 as an integer (line 1 = least significant bit)."""
        return sum(1 << i for i, d in enumerate(self.digits) if d in "79")

    @property
    def changed_code(self) -> int | None:
        """The 變卦 (every moving line flipped), or None without moving lines."""
        mask = sum(1 << i for i, d in enumerate(self.digits) if d in "69")
        return self.code ^ mask if mask else None

    @property
    def main(self) -> Hexagram:
        return hexagram(self.code)

    @property
    def changed(self) -> Hexagram | None:
        c = self.changed_code
        return None if c is None else hexagram(c)

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method.value,
            "digits": self.digits,
            "tosses": None if self.tosses is None else [list(t) for t in self.tosses],
            "numbers": None if self.numbers is None else self.numbers.to_json(),
            "at": None if self.at is None else self.at.isoformat(),
        }


def cast_manual(digits: str) -> Cast:
    """Six digits 6/7/8/9, bottom line first: ``cast_manual("797979")``."""
    d = digits.strip() if isinstance(digits, str) else ""
    if len(d) != 6 or not _DIGITS.issuperset(d):
        raise EngineInputError(
            "error.liuyao.bad_digits", f"need six digits 6/7/8/9 bottom to top, got {digits!r}", value=digits
        )
    return Cast(digits=d, method=Method.MANUAL)


def cast_tosses(tosses: tuple[tuple[int, int, int], ...] | list[list[int]]) -> Cast:
    """Replay recorded coin tosses (six lines bottom → top, three coins of 2 or 3 each)."""
    rows = tuple(tuple(int(c) for c in row) for row in tosses)
    if len(rows) != 6 or any(len(r) != 3 or any(c not in (2, 3) for c in r) for r in rows):
        raise EngineInputError(
            "error.liuyao.bad_tosses", f"need six rows of three coins 2/3: {tosses!r}", value=tosses
        )
    triples = tuple((r[0], r[1], r[2]) for r in rows)
    return Cast(digits="".join(str(sum(r)) for r in triples), method=Method.COINS, tosses=triples)


def cast_coins(rng: RandomBits | None = None) -> Cast:
    """Toss three coins six times with a cryptographic RNG (or ``rng``); the tosses are recorded."""
    bits = (rng or _SYSTEM_RANDOM).getrandbits(18)
    rows = []
    for line in range(6):
        a, b, c = ((bits >> (3 * line + k)) & 1 for k in range(3))
        rows.append((2 + a, 2 + b, 2 + c))
    triples = tuple(rows)
    return Cast(digits="".join(str(sum(r)) for r in triples), method=Method.COINS, tosses=triples)


def cast_numbers(year: int, month: int, day: int, hour: int) -> Cast:
    """梅花 numbers cast: 上卦 (年+月+日), 下卦 (+時), moving line (total mod 6, 0 → 6)."""
    for name, v in (("year", year), ("month", month), ("day", day), ("hour", hour)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise EngineInputError(
                "error.liuyao.bad_number", f"{name} must be a positive integer: {v!r}", value=v
            )
    return _from_numbers(TimeNumbers(year, month, day, hour), Method.NUMBERS, None)


def _from_numbers(nums: TimeNumbers, method: Method, at: datetime | None) -> Cast:
    tri = trigrams()
    code = bits_to_code(tri[nums.lower].bits + tri[nums.upper].bits)
    digits = "".join(
        ("9" if code >> i & 1 else "6") if i + 1 == nums.moving else ("7" if code >> i & 1 else "8")
        for i in range(6)
    )
    return Cast(digits=digits, method=method, numbers=nums, at=at)


def time_numbers(year: GanZhi, month: GanZhi, day: GanZhi, hour: GanZhi) -> tuple[int, int, int, int]:
    """年支數, 月建數 (寅 = 1), 日支數, 時支數 (子 = 1)."""
    return (
        year.branch + 1,
        (month.branch - Branch.YIN) % 12 + 1,
        day.branch + 1,
        hour.branch + 1,
    )


def cast_time(at: datetime, day_starts: Any = None, solar_longitude: float | None = None) -> Cast:
    """梅花 time cast at an instant, with the 干支 of :func:`engine.calendar.four_pillars` (see module doc)."""
    from engine.calendar import DayStart, four_pillars

    p = four_pillars(
        at, day_starts=DayStart.ZI_23 if day_starts is None else day_starts, solar_longitude=solar_longitude
    )
    pillars = (p.year, p.month, p.day, p.hour)
    y, m, d, h = time_numbers(*pillars)
    return _from_numbers(TimeNumbers(y, m, d, h, pillars), Method.TIME, at)
