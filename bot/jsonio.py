"""The bot's JSON (issue #18): the history rows a command stores and reads back. One place, so that every
caller writes the same text: compact, key order kept, non-ASCII characters as they are. (The render caches
key on ``bot.views.content_key``: ``marshal``, ≈ 6× cheaper than a canonical JSON of a context.)

The standard library's ``json`` (its C encoder and scanner). orjson measured ≈ 5× cheaper on a 20 kB ``/cast``
context (0.26 → ≈ 0.1 ms a command) but no difference end to end in ``bench/bot.py`` beyond its noise, and its
wheels carry MPL-2.0 code (``License-Expression: MPL-2.0 AND (Apache-2.0 OR MIT)``), which the default install
admits only for certifi (``tests/test_licenses.py``).

Kept values. A command's cache (the 大六壬 view model of a 課, the 神煞 stars of an hour) keeps each cached member
of a reply as a :class:`Kept`: its text, written once, and the value read back from that text once, made
read-only (:func:`freeze`: :class:`FrozenDict` and :class:`FrozenList`, a ``dict`` and a ``list`` whose
changing methods raise ``TypeError``). :func:`dumps_loads_with` writes a context with those texts spliced in and
gives the value ``loads`` would read from that text, made of the kept values and of what it read of the
rest, without reading the kept texts again (all but ≈ 0.2 of a ``/cast`` context's 21 kB): equal to ``loads(text)``, key
order included, by construction. A frozen value keeps its own text (:func:`text_of`: the kept text, or written
once when first asked): ``bot.views.content_key`` keys a render cache on it instead of the value's bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from sys import intern
from typing import Any, NamedTuple, NoReturn

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_DECODER = json.JSONDecoder()


def dumps(obj: Any) -> str:
    """Compact JSON of ``obj``."""
    return _COMPACT.encode(obj)


def loads(text: str | bytes) -> Any:
    """The value of a JSON text (or of its UTF-8 bytes); ``NaN`` and ``Infinity`` as ``json.dumps`` wrote them."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return _DECODER.decode(str(text))


def _read_only(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise TypeError("a kept JSON value is read-only (bot.jsonio.freeze): change a copy (jsonio.thaw)")


class _ReadOnly:
    """What the read-only containers share: no item set or deleted, copies that are plain values."""

    __slots__ = ()
    _PLAIN: Any  # dict | list

    def __setitem__(self, *args: Any, **kwargs: Any) -> None:
        _read_only()

    def __delitem__(self, *args: Any, **kwargs: Any) -> None:
        _read_only()

    def __copy__(self) -> Any:
        return self._PLAIN(self)

    def __deepcopy__(self, memo: Any) -> Any:
        return thaw(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (self._PLAIN, (thaw(self),))


class FrozenDict(_ReadOnly, dict[str, Any]):
    """A JSON object that cannot be changed (every changing method raises ``TypeError``); equal to the
    ``dict`` of the same items. ``copy.copy``/``copy.deepcopy`` and ``pickle`` give plain (changeable) values.
    (Its text, :func:`text_of`, is kept in a slot whose name no view model uses as a key: templates read
    ``x.name`` as an attribute first.)"""

    __slots__ = ("_jsonio_text",)
    _jsonio_text: str | None
    _PLAIN = dict
    __ior__ = clear = pop = popitem = setdefault = update = _read_only


class FrozenList(_ReadOnly, list[Any]):
    """A JSON array that cannot be changed (as :class:`FrozenDict`); equal to the ``list`` of the same items."""

    __slots__ = ("_jsonio_text",)
    _jsonio_text: str | None
    _PLAIN = list
    __iadd__ = __imul__ = append = extend = insert = pop = remove = clear = sort = reverse = _read_only


FROZEN = (FrozenDict, FrozenList)


def freeze(value: Any, text: str | None = None) -> Any:
    """``value`` (a JSON value as :func:`loads` reads it) with every object and array made read-only and its
    texts interned (a cache of 2048 大六壬 views holds one copy of 「子」, not one per occurrence: ≈ 103 kB a
    課 against ≈ 172 kB as read); ``text``, if given, is ``dumps(value)`` (kept as its :func:`text_of`)."""
    kind = type(value)
    if kind is dict:
        frozen: FrozenDict | FrozenList = FrozenDict((intern(k), freeze(v)) for k, v in value.items())
    elif kind is list:
        frozen = FrozenList(freeze(v) for v in value)
    elif kind is str:  # one copy of each text among the kept values (the decoder makes one per occurrence)
        return intern(value)
    else:
        return value
    frozen._jsonio_text = text
    return frozen


def text_of(value: FrozenDict | FrozenList) -> str:
    """:func:`dumps` of a frozen value, written once (it cannot change): equal texts, equal values."""
    text = value._jsonio_text
    if text is None:
        text = value._jsonio_text = _COMPACT.encode(value)
    return text


def thaw(value: Any) -> Any:
    """A plain copy of a (frozen) JSON value: every object and array a new, changeable ``dict`` / ``list``."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value


class Kept(NamedTuple):
    """A JSON value written once: ``text`` is its :func:`dumps`, ``value`` is :func:`freeze` of
    ``loads(text)`` (so equal to what a reader of the text gets, and never changed by one)."""

    text: str
    value: Any


def kept(value: Any) -> Kept:
    """``value`` written, and read back once, read-only (:class:`Kept`)."""
    text = _COMPACT.encode(value)
    return Kept(text, freeze(_DECODER.decode(text), text))


@lru_cache(maxsize=1024)
def _name(key: str) -> str:
    """``"key":`` as :func:`dumps` writes a member's name (a context has a few dozen names)."""
    return _COMPACT.encode(key) + ":"


def dumps_loads_with(obj: Mapping[str, Any], written: Mapping[str, Kept]) -> tuple[str, dict[str, Any]]:
    """(:func:`dumps` of ``obj``, character for character, and :func:`loads` of that text), where each member
    named in ``written`` is written as its kept text and read as its kept value instead of its own (made once
    beside a cached value: the reading and verdict of a 課 are 19 of a ``/cast`` context's 21 kB); the other members
    are written in runs, and each run is read back. The value is what ``loads`` of the whole text gives: an
    object's members in the order of the text, a repeated name keeping its first place and its last value."""
    if not written:
        text = _COMPACT.encode(dict(obj))
        return text, _DECODER.decode(text)
    parts: list[str] = []
    value: dict[str, Any] = {}
    run: dict[Any, Any] = {}

    def flush() -> None:
        run_text = _COMPACT.encode(run)
        parts.append(run_text[1:-1])
        value.update(_DECODER.decode(run_text))
        run.clear()

    for key, member in obj.items():
        found = written.get(key) if type(key) is str else None
        if found is None:
            run[key] = member
            continue
        if run:
            flush()
        parts.append(_name(key) + found.text)
        value[key] = found.value
    if run:
        flush()
    return "{" + ",".join(part for part in parts if part) + "}", value
