"""The bot's JSON (issue #18): the history rows and settings it stores and reads back. One place, so that every
caller writes the same text: compact, key order kept, non-ASCII characters as they are.

The standard library's ``json`` (its C encoder and scanner). orjson measured ≈ 5× cheaper on a 20 kB ``/cast``
context but no difference end to end in ``bench/bot.py`` beyond its noise, and its wheels carry MPL-2.0 code
(``License-Expression: MPL-2.0 AND (Apache-2.0 OR MIT)``), which the default install admits only for certifi
(``tests/test_licenses.py``). Since history rows keep a cast's inputs rather than its view model (issue 31 item
6), the texts written per command are a few hundred bytes.
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
