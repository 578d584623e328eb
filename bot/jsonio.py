"""The bot's JSON, through orjson (issue #18): the history rows a command stores and reads back, the keys of
the render caches. One place, so that every caller writes the same text.

``dumps`` writes what ``json.dumps(obj, ensure_ascii=False, separators=(",", ":"))`` writes for the values
the bot stores (dicts, lists, tuples, strings, integers, booleans, None, finite floats), about 10× cheaper; the
text differs only in how some floats are spelt (``1e-05`` → ``0.00001``), never in the value read back. ``loads`` reads what either
wrote; a row stored by ``json.dumps`` with ``NaN`` or ``Infinity`` (which orjson does not read) is read by the
standard library instead.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # {1: …} → {"1": …}, as json.dumps does


def encode(obj: Any) -> bytes:
    """Compact JSON of ``obj`` as UTF-8, key order kept, non-ASCII characters as they are (orjson's own
    output: read it back with :func:`loads` from these bytes, cheaper than from the text)."""
    return orjson.dumps(obj, option=_OPTIONS)


def dumps(obj: Any) -> str:
    """:func:`encode` as text."""
    return encode(obj).decode("utf-8")


def loads(text: str | bytes) -> Any:
    """The value of a JSON text (or of its UTF-8 bytes)."""
    if isinstance(text, str) and type(text) is not str:  # ``bot.storage.JsonText``: orjson reads str only
        text = str(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        if isinstance(text, bytes) or ("NaN" not in text and "Infinity" not in text):
            raise  # the bytes are always orjson's own (encode): never NaN
        return json.loads(text)  # an old row's NaN / Infinity (json.dumps wrote them; orjson reads neither)


def sorted_key(obj: Any) -> bytes:
    """Canonical JSON of ``obj`` (keys sorted) as a cache key: equal values give equal keys."""
    return orjson.dumps(obj, option=_OPTIONS | orjson.OPT_SORT_KEYS)
