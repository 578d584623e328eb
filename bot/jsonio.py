"""The bot's JSON (issue #18): the history rows a command stores and reads back, the keys of the render
caches. One place, so that every caller writes the same text: compact, key order kept, non-ASCII characters
as they are.

The standard library's ``json`` (its C encoder and scanner). orjson measured ≈ 5× cheaper on a 20 kB ``/cast``
context (0.26 → ≈ 0.1 ms a command) but no difference end to end in ``bench/bot.py`` beyond its noise, and its
wheels carry MPL-2.0 code (``License-Expression: MPL-2.0 AND (Apache-2.0 OR MIT)``), which the default install
admits only for certifi (``tests/test_licenses.py``).

**Frozen values.** Most of a reply's context is the same for many casts (the 大六壬 reading and verdict of a
課, the 神煞 of an hour: 28 of a ``/cast`` context's 30 kB) and sits in a command's cache. :func:`freeze` turns
such a value into what :func:`loads` reads back of its text, as :class:`FrozenDict` / :class:`FrozenList`
(a ``dict`` / ``list`` that refuses every change, so a cached value can be shared by every reply) that keeps
the text (``.json``). :func:`round_trip` then makes the stored text of a context and the reply's context —
the value :func:`loads` gives of that text — splicing each frozen member's text in and handing the member on
as itself, instead of writing and reading back the whole of it for every cast; :func:`sorted_key` (the render
caches' keys) splices the frozen members' sorted texts, each made once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, overload

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_SORTED = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)
_DECODER = json.JSONDecoder()


def dumps(obj: Any) -> str:
    """Compact JSON of ``obj``."""
    return _COMPACT.encode(obj)


def loads(text: str | bytes) -> Any:
    """The value of a JSON text (or of its UTF-8 bytes); ``NaN`` and ``Infinity`` as ``json.dumps`` wrote them."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return _DECODER.decode(str(text))


def sorted_key(obj: Any) -> str:
    """Canonical JSON of ``obj`` (keys sorted) as a cache key: equal values give equal keys.

    The text is ``json.dumps(obj, sort_keys=True)``'s (compact), character for character; a :func:`freeze`
    value's is made once and kept (``FrozenDict``/``FrozenList`` cannot change), and so is that of each frozen
    member of a mapping with string keys (a reply's context: the render caches' keys, ``bot.views``)."""
    if isinstance(obj, FrozenDict | FrozenList):
        return obj.sorted_json()
    if not isinstance(obj, dict) or not any(isinstance(v, FrozenDict | FrozenList) for v in obj.values()):
        return _SORTED.encode(obj)
    if not all(type(k) is str for k in obj):
        return _SORTED.encode(obj)  # JSON's own key conversion and ordering
    parts: list[str] = []
    run: dict[str, Any] = {}
    for key in sorted(obj):
        member = obj[key]
        if not isinstance(member, FrozenDict | FrozenList):
            run[key] = member
            continue
        if run:
            parts.append(_SORTED.encode(run)[1:-1])
            run.clear()
        parts.append(f"{_SORTED.encode(key)}:{member.sorted_json()}")
    if run:
        parts.append(_SORTED.encode(run)[1:-1])
    return "{" + ",".join(part for part in parts if part) + "}"


def _read_only(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"a frozen JSON value is shared and cannot be changed ({type(self).__name__})")


class FrozenDict(dict[str, Any]):
    """A JSON object that cannot be changed (every mutating method raises ``TypeError``); equal to, and
    written as, the ``dict`` it was made of. ``json``: its compact text when :func:`freeze` made it, else
    None. ``dict(value)`` or ``value.copy()`` is a plain (shallow) copy."""

    __slots__ = ("json", "_sorted")
    json: str | None
    _sorted: str | None

    def __new__(cls, items: Mapping[str, Any] = {}, json: str | None = None) -> FrozenDict:  # noqa: B006
        obj = super().__new__(cls)
        dict.__init__(obj, items)
        obj.json = json
        obj._sorted = None
        return obj

    def __init__(self, items: Mapping[str, Any] = {}, json: str | None = None) -> None:  # noqa: B006
        """Made whole by ``__new__``: calling ``__init__`` again changes nothing (``dict.__init__`` would)."""

    def sorted_json(self) -> str:
        """:func:`sorted_key` of this value, made once."""
        if self._sorted is None:
            self._sorted = _SORTED.encode(self)
        return self._sorted

    def __copy__(self) -> FrozenDict:
        return self  # nothing can change it: the value itself is its copy

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self), self.json))

    if not TYPE_CHECKING:  # every way to change a dict in place (``dict``'s own signatures, for mypy)
        __setitem__ = __delitem__ = __ior__ = _read_only
        clear = pop = popitem = setdefault = update = _read_only


class FrozenList(list[Any]):
    """A JSON array that cannot be changed (every mutating method raises ``TypeError``); equal to, and
    written as, the ``list`` it was made of. ``json``: its compact text when :func:`freeze` made it, else
    None. ``list(value)``, ``value.copy()`` or a slice is a plain (shallow) copy."""

    __slots__ = ("json", "_sorted")
    json: str | None
    _sorted: str | None

    def __new__(cls, items: Sequence[Any] = (), json: str | None = None) -> FrozenList:
        obj = super().__new__(cls)
        list.__init__(obj, items)
        obj.json = json
        obj._sorted = None
        return obj

    def __init__(self, items: Sequence[Any] = (), json: str | None = None) -> None:
        """Made whole by ``__new__``: calling ``__init__`` again changes nothing (``list.__init__`` would)."""

    def sorted_json(self) -> str:
        """:func:`sorted_key` of this value, made once."""
        if self._sorted is None:
            self._sorted = _SORTED.encode(self)
        return self._sorted

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self), self.json))

    if not TYPE_CHECKING:  # every way to change a list in place
        __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
        append = clear = extend = insert = pop = remove = reverse = sort = _read_only


def _frozen(value: Any) -> Any:
    """A value read by :func:`loads` with every object and array frozen."""
    if type(value) is dict:
        return FrozenDict({k: _frozen(v) for k, v in value.items()})
    if type(value) is list:
        return FrozenList([_frozen(v) for v in value])
    return value


@overload
def freeze(value: Mapping[str, Any]) -> FrozenDict: ...
@overload
def freeze(value: Sequence[Any]) -> FrozenList: ...
def freeze(value: Mapping[str, Any] | Sequence[Any]) -> FrozenDict | FrozenList:
    """What :func:`loads` reads back of ``value``'s JSON, frozen, keeping that text (``.json``): for a value
    shared by many replies (a cache's). A tuple becomes an array, a non-string key a string, as in JSON."""
    text = _COMPACT.encode(value)
    plain = _DECODER.decode(text)
    if type(plain) is dict:
        return FrozenDict({k: _frozen(v) for k, v in plain.items()}, text)
    if type(plain) is list:
        return FrozenList([_frozen(v) for v in plain], text)
    raise TypeError(f"only a JSON object or array is frozen, not {type(value).__name__}")


def round_trip(obj: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """(the compact JSON text of ``obj``, the value :func:`loads` gives of that text).

    A member that is a :func:`freeze` value (a ``FrozenDict`` or ``FrozenList`` with its ``.json``) under a
    string key is written as that text and handed on as itself (it is what ``loads`` gives of it, and nothing
    can change it); every run of other members is written and read back in one go. The text is
    :func:`dumps` ``(obj)``, character for character."""
    parts: list[str] = []
    value: dict[str, Any] = {}
    run: dict[Any, Any] = {}
    for key, member in obj.items():
        text = member.json if isinstance(member, FrozenDict | FrozenList) and type(key) is str else None
        if text is None:
            run[key] = member
            continue
        if run:
            written = _COMPACT.encode(run)
            parts.append(written[1:-1])
            value.update(_DECODER.decode(written))
            run.clear()
        parts.append(f"{_COMPACT.encode(key)}:{text}")
        value[key] = member
    if not parts:  # nothing frozen: one dumps, one loads
        written = _COMPACT.encode(run)
        return written, _DECODER.decode(written)
    if run:
        written = _COMPACT.encode(run)
        parts.append(written[1:-1])
        value.update(_DECODER.decode(written))
    return "{" + ",".join(part for part in parts if part) + "}", value
