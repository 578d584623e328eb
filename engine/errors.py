"""Errors raised by the engine for bad input.

Every error carries a stable ``code`` (a message id in the ``locales`` catalogs, e.g.
``"error.not_a_ganzhi"``) and ``params`` for interpolation, so the CLI and the bot can show a
localized one-line message. ``str(err)`` is an English fallback for logs and tracebacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class EngineInputError(ValueError):
    """Input the engine cannot compute with (not a bug: tell the user)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.code = code
        self.params: Mapping[str, Any] = params


class OutOfRangeError(EngineInputError):
    """An instant outside the range the shipped tables cover."""
