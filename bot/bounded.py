"""One bounded least-recently-used map for the bot's caches (readings, rendered pages, daily pictures, the
Telegram file_ids of pictures sent): past ``limit()`` entries the least recently used is dropped."""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")


class BoundedCache(OrderedDict[_K, _V]):
    """``limit()`` is read when an entry is added (so a module's size constant, or an attribute, can be
    changed); hits and misses of :meth:`find` are counted in ``stats`` when one is given."""

    def __init__(self, limit: Callable[[], int], stats: Counter[str] | None = None) -> None:
        super().__init__()
        self.limit = limit
        self.stats = stats

    def find(self, key: _K) -> _V | None:
        """The entry of ``key`` (now the most recently used), or None."""
        found = self.get(key)
        if found is not None:
            self.move_to_end(key)
        if self.stats is not None:
            self.stats["miss" if found is None else "hit"] += 1
        return found

    def keep(self, key: _K, value: _V) -> _V:
        """Add or replace ``key`` as the most recently used entry; ``value``."""
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.limit():
            self.popitem(last=False)
        return value
