"""Casting (spec/liuyao.md §1): digits, coins with recorded tosses, 梅花 time numbers."""

import random
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest

from engine.errors import EngineInputError
from engine.liuyao import (
    Method,
    cast_coins,
    cast_manual,
    cast_numbers,
    cast_time,
    cast_tosses,
    hexagram_by_name,
)


def test_manual_digits_moving_and_changed():
    c = cast_manual("797979")
    assert c.method is Method.MANUAL
    assert c.moving == (2, 4, 6)
    assert c.main.name == "乾為天"
    assert c.changed is not None and c.changed.name == "水火既濟"  # 9 → yin at lines 2, 4, 6
    s = cast_manual("888888")
    assert s.main.name == "坤為地" and s.changed is None and s.moving == ()
    six = cast_manual("666666")
    assert six.main.name == "坤為地" and six.changed is not None and six.changed.name == "乾為天"


@pytest.mark.parametrize("bad", ["79797", "7979797", "12345x", "797975", "", "７９７９７９"])
def test_manual_rejects_bad_digits(bad):
    with pytest.raises(EngineInputError) as e:
        cast_manual(bad)
    assert e.value.code == "error.liuyao.bad_digits"


def test_coins_record_tosses_and_replay():
    c = cast_coins(random.Random(20261130))
    assert c.method is Method.COINS
    assert c.tosses is not None and len(c.tosses) == 6
    for row, d in zip(c.tosses, c.digits, strict=True):
        assert len(row) == 3 and set(row) <= {2, 3} and sum(row) == int(d)
    again = cast_tosses(c.tosses)
    assert again == c
    assert cast_tosses([list(r) for r in c.tosses]).digits == c.digits


def test_coins_default_rng_is_secrets(monkeypatch):
    import secrets

    from engine.liuyao import cast as cast_module

    assert isinstance(cast_module._SYSTEM_RANDOM, secrets.SystemRandom)
    calls = []

    def fake_bits(k):
        calls.append(k)
        return 0b111_000_111_000_111_000  # lines 1…6: 222 333 222 333 222 333

    monkeypatch.setattr(cast_module._SYSTEM_RANDOM, "getrandbits", fake_bits)
    c = cast_coins()
    assert calls == [18]
    assert c.digits == "696969" and c.tosses == ((2, 2, 2), (3, 3, 3)) * 3


def test_coin_odds_are_one_three_three_one():
    # Three fair coins: 6 = 1/8, 7 = 3/8, 8 = 3/8, 9 = 1/8 (spec §1). Deterministic seed, 8000 casts.
    rng = random.Random(5)
    counts = Counter(d for _ in range(8000) for d in cast_coins(rng).digits)
    n = sum(counts.values())
    for digit, p in (("6", 1 / 8), ("7", 3 / 8), ("8", 3 / 8), ("9", 1 / 8)):
        assert abs(counts[digit] / n - p) < 0.01, counts


@pytest.mark.parametrize("bad", [[[2, 2, 2]] * 5, [[2, 2, 4]] * 6, [[2, 2]] * 6])
def test_bad_tosses(bad):
    with pytest.raises(EngineInputError) as e:
        cast_tosses(bad)
    assert e.value.code == "error.liuyao.bad_tosses"


def test_meihua_numbers():
    # 《梅花易數》: 上卦 (年+月+日) mod 8, 下卦 (+時) mod 8 in 先天 numbers 乾1 兌2 離3 震4 巽5 坎6 艮7 坤8,
    # 動爻 (年+月+日+時) mod 6. 1+1+1 = 3 → 離 above; 3+1 = 4 → 震 below; 4 mod 6 → line 4.
    c = cast_numbers(1, 1, 1, 1)
    assert (c.main.upper.char, c.main.lower.char, c.moving) == ("離", "震", (4,))
    assert c.method is Method.NUMBERS and c.main.name == "火雷噬嗑"


def test_meihua_remainder_zero_is_line_six():
    # spec §1 / trap 8: total 12 → 12 mod 6 = 0 → line 6 (ichingshifa loses it).
    c = cast_numbers(3, 3, 3, 3)  # 9 → 9 mod 8 = 1 乾 above; 12 mod 8 = 4 震 below
    assert c.moving == (6,)
    assert c.main.name == "天雷無妄"
    assert c.changed is not None and c.changed.name == "澤雷隨"
    c8 = cast_numbers(2, 3, 3, 8)  # 8 → 0 → 坤 above; 16 → 0 → 坤 below; 16 mod 6 = 4
    assert c8.main.name == "坤為地" and c8.moving == (4,)


def test_bad_numbers():
    with pytest.raises(EngineInputError):
        cast_numbers(0, 1, 1, 1)


def test_time_cast_uses_calendar_pillars():
    from engine.calendar import four_pillars

    at = datetime(2024, 2, 4, 16, 27, 8, tzinfo=timezone(timedelta(hours=8)))
    p = four_pillars(at)
    c = cast_time(at)
    assert c.method is Method.TIME and c.at == at
    assert c.numbers is not None and c.numbers.pillars == (p.year, p.month, p.day, p.hour)
    y, m, d, h = p.year.branch + 1, (p.month.branch - 2) % 12 + 1, p.day.branch + 1, p.hour.branch + 1
    assert (c.numbers.year, c.numbers.month, c.numbers.day, c.numbers.hour) == (y, m, d, h)
    xiantian = "乾兌離震巽坎艮坤"
    assert c.main.upper.char == xiantian[(y + m + d - 1) % 8]
    assert c.main.lower.char == xiantian[(y + m + d + h - 1) % 8]
    assert c.moving == ((y + m + d + h - 1) % 6 + 1,)
    assert c.to_json()["method"] == "time"


def test_cast_json_records_method():
    j = cast_manual("789678").to_json()
    assert j == {"method": "manual", "digits": "789678", "tosses": None, "numbers": None, "at": None}
    assert hexagram_by_name("乾").bits == "111111"
