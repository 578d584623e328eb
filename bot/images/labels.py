"""Label words of the pictures: message ids ``image.*`` in ``locales/<lang>/LC_MESSAGES/images.po``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bot import msgids
from bot.i18n import gettext
from bot.images.glyphs import drawable

# The labels of a picture are few words with small fill-ins (a branch, a 干支, a palace and its stage), the
# same from picture to picture: each is looked up, filled in and checked against the font once (issue 18;
# ≈ 2.5 µs a label, a dozen a 六爻 picture). The catalogs do not change while the process runs.
LABELS_KEPT = 4096


def label(lang: str, key: str, **params: Any) -> str:
    return _label(lang, key, tuple(params.items()))


@lru_cache(maxsize=LABELS_KEPT)
def _label(lang: str, key: str, params: tuple[tuple[str, Any], ...]) -> str:
    return drawable(gettext(lang, msgids.msgid("image", key), **dict(params)))


def message(lang: str, msgid: str) -> str:
    """Another area's message drawn on a picture (the 七政 option names)."""
    return drawable(gettext(lang, msgid))
