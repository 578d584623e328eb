"""Label words of the pictures: message ids ``image.*`` in ``locales/<lang>/LC_MESSAGES/images.po``."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from bot import msgids
from bot.i18n import gettext, term
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


def read(chars: str, lang: str) -> str:
    """A term on a ko picture's line as 한글(漢字) (docs/style.md: pictures give both every time); itself in lzh."""
    return chars if lang == "lzh" else f"{term(lang, chars)}({chars})"


def wrap(text: str, size: int, width: float) -> tuple[str, ...]:
    """Break at ' · ' so that each line fits ``width`` px (CJK and Hangul 1 em, other characters 0.6 em)."""

    def length(s: str) -> float:
        return sum(size * (0.6 if ord(ch) < 0x2E80 else 1.0) for ch in s)

    lines: list[str] = []
    current = ""
    for part in text.split(" · "):
        candidate = part if not current else f"{current} · {part}"
        if current and length(candidate) > width:
            lines.append(current)
            current = part
        else:
            current = candidate
    lines.append(current)
    return tuple(lines)
