"""Text that reaches a user or a terminal: no control characters, no bidi overrides, no lone surrogates.

One place for the rule, applied at the boundaries:

- :func:`clean` on every rendered reply (``bot.views.render``, all three channels) and on what the
  Telegram splitter is given, so echoed user input (a name, a bad argument) can never carry a terminal
  escape, a ``U+202E`` that shows text reversed, or a lone surrogate (which cannot be encoded as UTF-16 or
  UTF-8 and used to crash the splitter).
- :func:`bounded` for echoing a value of unknown size (the CLI's error lines, configuration errors).

Kept: ``\\n`` and ``\\t``, ordinary format characters (``U+200B`` zero-width space that the Discord escaping
inserts, ``U+200D`` joiners inside emoji sequences).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

# C0 controls except \t and \n, DEL, C1 controls; bidi embeddings/overrides/isolates and marks
# (U+061C ALM, U+200E LRM, U+200F RLM, U+202A–U+202E, U+2066–U+2069); lone surrogates.
_STRIP: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
ECHO_PREFIX: Final = 80  # characters of a bad value echoed back at most


def clean(text: str) -> str:
    """``text`` without control characters, bidi controls and lone surrogates (newlines and tabs kept).

    A well-formed Python ``str`` never holds a *paired* surrogate (astral characters are one code point),
    so every surrogate code point found here is a lone one.
    """
    return _STRIP.sub("", text)


def bounded(value: object, limit: int = ECHO_PREFIX) -> str:
    """``value`` as clean text of at most ``limit`` characters (``…`` marks a cut)."""
    text = clean(str(value))
    if len(text) > limit:
        return text[: max(0, limit - 1)] + "…"
    return text


def bounded_params(params: Mapping[str, object], limit: int = ECHO_PREFIX) -> dict[str, object]:
    """Message parameters with every text value :func:`bounded` (numbers stay numbers)."""
    return {k: v if isinstance(v, int | float) else bounded(v, limit) for k, v in params.items()}


__all__ = ["ECHO_PREFIX", "bounded", "bounded_params", "clean"]
