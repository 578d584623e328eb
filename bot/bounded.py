"""The bot's bounded least-recently-used caches (readings, rendered pages, pictures, text masks, the Telegram
file_ids of pictures sent), bounded **in bytes** (issue 36 item 7): past ``max_bytes`` (the sum of the
entries' sizes, each measured by the cache's ``size_of`` when it is kept) or ``limit()`` entries, the least
recently used is dropped. A count alone let caches of 100-kB entries hold 200 MB each (RSS 465 MB at 20,000
commands); every cache whose entries are not a few hundred bytes now has a byte bound, and the process's
caches are listed by :func:`caches` with their sizes and hit rates (``bench/memory.py``).

``size_of`` is an estimate of what an entry holds: the exact length for ``bytes``, width × height for a
mask, and for a JSON view its text's length times the factor measured with ``tracemalloc`` (the tests check
each estimate against the measured size). :func:`cached` puts a function's results in one (thread-safe:
pictures are drawn on any thread), in place of ``functools.lru_cache``.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, NamedTuple, ParamSpec, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")
P = ParamSpec("P")
R = TypeVar("R")

_REGISTRY: dict[str, BoundedCache[Any, Any]] = {}


class BoundedCache(OrderedDict[_K, _V]):
    """``limit()`` (entries) is read when an entry is added (so a module's size constant, or an attribute, can
    be changed); so is ``max_bytes()`` (None: no byte bound) with ``size_of`` giving an entry's bytes. Hits
    and misses of :meth:`find` are counted (and in ``stats`` when one is given). ``name``: listed by
    :func:`caches`."""

    def __init__(
        self,
        limit: Callable[[], int],
        stats: Counter[str] | None = None,
        *,
        name: str | None = None,
        max_bytes: Callable[[], int] | None = None,
        size_of: Callable[[_V], int] | None = None,
    ) -> None:
        super().__init__()
        self.limit = limit
        self.stats = stats
        self.bytes_limit = max_bytes
        self.size_of = size_of
        self.size = 0  # bytes of the entries, by ``size_of``
        self.sizes: dict[_K, int] = {}
        self.hits = 0
        self.misses = 0
        if name is not None:
            _REGISTRY[name] = self

    @property
    def max_bytes(self) -> int | None:
        return self.bytes_limit() if self.bytes_limit is not None else None

    def find(self, key: _K) -> _V | None:
        """The entry of ``key`` (now the most recently used), or None."""
        found = self.get(key)
        if found is not None:
            self.move_to_end(key)
            self.hits += 1
        else:
            self.misses += 1
        if self.stats is not None:
            self.stats["miss" if found is None else "hit"] += 1
        return found

    def keep(self, key: _K, value: _V) -> _V:
        """Add or replace ``key`` as the most recently used entry; ``value``. An entry larger than the whole
        byte bound is not kept."""
        size = self.size_of(value) if self.size_of is not None else 0
        if key in self:
            self.size -= self.sizes.pop(key, 0)
            del self[key]
        max_bytes = self.max_bytes
        if max_bytes is not None and size > max_bytes:
            return value
        self[key] = value
        self.sizes[key] = size
        self.size += size
        limit = self.limit()
        while len(self) > limit or (max_bytes is not None and self.size > max_bytes):
            old, _ = self.popitem(last=False)
            self.size -= self.sizes.pop(old, 0)
        return value

    def grow(self, key: _K, delta: int) -> None:
        """An entry kept here took ``delta`` more bytes (a text added to it): counted, and the least recently
        used entries dropped past the byte bound."""
        if key not in self.sizes:
            return
        self.sizes[key] += delta
        self.size += delta
        max_bytes = self.max_bytes
        while max_bytes is not None and self.size > max_bytes and len(self) > 1:
            old, _ = self.popitem(last=False)
            self.size -= self.sizes.pop(old, 0)

    def clear(self) -> None:
        super().clear()
        self.sizes.clear()
        self.size = 0


class CacheInfo(NamedTuple):
    """As ``functools.lru_cache``'s ``cache_info()``; ``size``/``max_bytes`` the byte bound's."""

    hits: int
    misses: int
    maxsize: int
    currsize: int
    size: int
    max_bytes: int | None


class Cached(Generic[P, R]):
    """A function whose results are kept in a :class:`BoundedCache` by its (positional, hashable) arguments."""

    def __init__(self, fn: Callable[P, R], cache: BoundedCache[Hashable, R]) -> None:
        self.fn = fn
        self.cache = cache
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key: Hashable = args if not kwargs else (args, tuple(sorted(kwargs.items())))
        with self._lock:
            found = self.cache.find(key)
        if found is not None:
            return found
        value = self.fn(*args, **kwargs)
        with self._lock:
            self.cache.keep(key, value)
        return value

    def cache_info(self) -> CacheInfo:
        c = self.cache
        return CacheInfo(c.hits, c.misses, c.limit(), len(c), c.size, c.max_bytes)

    def cache_clear(self) -> None:
        with self._lock:
            self.cache.clear()
            self.cache.hits = self.cache.misses = 0


def cached(
    name: str,
    *,
    maxsize: int | Callable[[], int],
    max_bytes: int | Callable[[], int] | None = None,
    size_of: Callable[[Any], int] | None = None,
) -> Callable[[Callable[P, R]], Cached[P, R]]:
    """``functools.lru_cache`` with a byte bound (``max_bytes``, entries measured by ``size_of``) beside the
    entry bound, listed by :func:`caches` as ``name``. A call whose result is None is not kept."""

    def wrap(fn: Callable[P, R]) -> Cached[P, R]:
        entries = maxsize if callable(maxsize) else (lambda: maxsize)
        limit = max_bytes if callable(max_bytes) or max_bytes is None else _constant(max_bytes)
        return Cached(fn, BoundedCache(entries, name=name, max_bytes=limit, size_of=size_of))

    return wrap


def _constant(value: int) -> Callable[[], int]:
    return lambda: value


def caches() -> dict[str, BoundedCache[Any, Any]]:
    """Every named cache of the process (for ``bench/memory.py`` and the tests)."""
    return dict(_REGISTRY)


__all__ = ["BoundedCache", "CacheInfo", "Cached", "cached", "caches"]
