"""Label words of the pictures: message ids ``image.*`` in ``locales/<lang>/LC_MESSAGES/images.po``."""

from __future__ import annotations

from typing import Any

from bot.i18n import gettext


def label(lang: str, key: str, **params: Any) -> str:
    return gettext(lang, f"image.{key}", **params)
