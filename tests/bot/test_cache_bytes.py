"""Caches bounded in bytes (issue 36 item 7, ``bot.bounded``): a cache never holds more than its byte bound
by its entries' estimated sizes, drops the least recently used first, and each estimate is the memory the
entry really holds or more (measured with ``tracemalloc`` here, within a factor the test names)."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.bounded import BoundedCache, cached, caches
from bot.features.daily import reading as daily_reading
from bot.images import draw


def test_a_cache_keeps_no_more_bytes_than_its_bound_and_drops_the_least_recently_used() -> None:
    kept: BoundedCache[str, bytes] = BoundedCache(lambda: 100, max_bytes=lambda: 1000, size_of=len)
    for name in "abcd":
        kept.keep(name, bytes(300))
    assert list(kept) == ["b", "c", "d"] and kept.size == 900  # a went: 1,200 > 1,000
    assert kept.find("b") is not None  # b is now the most recently used
    kept.keep("e", bytes(300))
    assert list(kept) == ["d", "b", "e"] and kept.size == 900
    kept.keep("big", bytes(1001))  # larger than the whole bound: not kept, nothing dropped for it
    assert "big" not in kept and kept.size == 900
    kept.grow("d", 200)  # an entry took more (a text added to it)
    assert list(kept) == ["b", "e"] and kept.size == 600
    kept.clear()
    assert kept.size == 0 and kept.sizes == {}
    assert (kept.hits, kept.misses) == (1, 0)


def test_the_entry_bound_still_holds() -> None:
    kept: BoundedCache[int, bytes] = BoundedCache(lambda: 2, max_bytes=lambda: 10**6, size_of=len)
    for i in range(5):
        kept.keep(i, b"x")
    assert list(kept) == [3, 4] and kept.size == 2


def test_a_cached_function_is_bounded_in_bytes_and_named() -> None:
    calls: list[int] = []

    @cached("test.squares", maxsize=100, max_bytes=250, size_of=lambda v: 100)
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    assert [square(2), square(3), square(2), square(4)] == [4, 9, 4, 16]
    assert calls == [2, 3, 4]
    info = square.cache_info()
    assert (info.hits, info.misses, info.currsize, info.size, info.max_bytes) == (1, 3, 2, 200, 250)
    assert caches()["test.squares"] is square.cache
    square.cache_clear()
    assert square.cache_info().currsize == 0


# An estimate is an upper bound: measured alone it is 1.0–1.4 × what an entry holds; in a process that holds
# many of the entry's strings already (interned names and values, after other tests) the entry itself holds
# less, up to 2.5 × less — the cache then keeps fewer entries than its bound would allow, never more bytes.
UPPER = 3.0


def held(make: Callable[[], list[Any]]) -> tuple[int, list[Any]]:
    """Bytes ``make()`` leaves allocated (by Python, numpy) while its result is alive."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = make()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before, made
    finally:
        tracemalloc.stop()


@pytest.fixture
def empty_caches() -> Iterator[None]:
    daily_reading._liuren_view.cache_clear()
    yield
    daily_reading._liuren_view.cache_clear()


@pytest.mark.usefixtures("empty_caches")
def test_a_daily_view_s_estimate_is_what_it_holds() -> None:
    at = datetime(2024, 2, 4, 12, 30, tzinfo=ZoneInfo("Asia/Seoul"))
    daily_reading._liuren_view(at.isoformat(), "23:00", "{}")
    instants = [(at + timedelta(hours=2 * i + 2)).isoformat() for i in range(12)]
    size, made = held(lambda: [daily_reading._liuren_view(i, "23:00", "{}") for i in instants])
    estimate = sum(daily_reading.view_bytes(m) for m in made)
    assert 1.0 <= estimate / size <= UPPER, (estimate, size)


def test_a_text_mask_s_estimate_is_at_least_its_pixels() -> None:
    mask, _ = draw.text_mask("大六壬 甲子日 第一局", 28, False, "la", (0.0, 0.0))
    width, height = mask.size
    assert draw._mask_bytes((mask, (0, 0))) >= len(mask.tobytes()) == width * height > 0
