"""The bot's JSON (issue #18): the history rows a command stores and reads back. One place, so that every
caller writes the same text: compact, key order kept, non-ASCII characters as they are. (The render caches
key on ``bot.views.content_key``: ``marshal``, ≈ 6× cheaper than a canonical JSON of a context.)

The standard library's ``json`` (its C encoder and scanner). orjson measured ≈ 5× cheaper on a 20 kB ``/cast``
context (0.26 → ≈ 0.1 ms a command) but no difference end to end in ``bench/bot.py`` beyond its noise, and its
wheels carry MPL-2.0 code (``License-Expression: MPL-2.0 AND (Apache-2.0 OR MIT)``), which the default install
admits only for certifi (``tests/test_licenses.py``).
"""

from __future__ import annotations

import json
from typing import Any

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
