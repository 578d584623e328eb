"""Label words of the pictures: message ids ``image.*`` in ``locales/<lang>/LC_MESSAGES/images.po``."""

from __future__ import annotations

from typing import Any

from bot import msgids
from bot.i18n import gettext
from bot.images.glyphs import drawable


def label(lang: str, key: str, **params: Any) -> str:
    return drawable(gettext(lang, msgids.msgid("image", key), **params))


def message(lang: str, msgid: str) -> str:
    """Another area's message drawn on a picture (the 七政 option names)."""
    return drawable(gettext(lang, msgid))
