"""The drawing model: a scene is a canvas size and a tuple of primitives (pure data, no Pillow).

Layouts (``bot.images.liuren`` …) build scenes; ``bot.images.draw`` turns a scene into PNG bytes. Colours are
names of the palette in :data:`PALETTE` (one light theme with an opaque background, legible in light and dark
chat themes alike).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

# Opaque paper-like background; ink colours chosen for contrast ≥ 4.5:1 against it.
PALETTE: dict[str, tuple[int, int, int]] = {
    "paper": (250, 247, 238),
    "ink": (24, 24, 24),
    "muted": (96, 92, 84),
    "rule": (150, 140, 120),
    "faint": (226, 219, 200),
    "red": (170, 30, 30),
    "blue": (28, 62, 140),
    "green": (24, 100, 48),
    "panel": (240, 233, 215),
    "gold": (250, 230, 170),
}


class Anchor(StrEnum):
    """Where (x, y) sits on the text box: Pillow anchors (middle-middle, left-middle, …)."""

    MM = "mm"
    LM = "lm"
    RM = "rm"
    MT = "mt"
    LT = "lt"


@dataclass(frozen=True, slots=True)
class Text:
    x: float
    y: float
    text: str
    size: int
    color: str = "ink"
    anchor: Anchor = Anchor.MM
    bold: bool = False


@dataclass(frozen=True, slots=True)
class Segment:
    x0: float
    y0: float
    x1: float
    y1: float
    color: str = "ink"
    width: int = 2


@dataclass(frozen=True, slots=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float
    outline: str | None = "rule"
    fill: str | None = None
    width: int = 2


@dataclass(frozen=True, slots=True)
class Circle:
    cx: float
    cy: float
    r: float
    outline: str | None = "rule"
    fill: str | None = None
    width: int = 2


@dataclass(frozen=True, slots=True)
class Wedge:
    """A ring sector between radii r0 < r1 from screen angle a0 to a1 (degrees, counter-clockwise from +x)."""

    cx: float
    cy: float
    r0: float
    r1: float
    a0: float
    a1: float
    fill: str


Primitive = Text | Segment | Box | Circle | Wedge

# The labels of a 六爻 picture's rows recur at the same places picture after picture (6 rows × ≈ 200 labels):
# built once, the same object each time, the drawing's caches keyed by the item (``bot.images.draw._runs``)
# find it by identity instead of comparing its fields, and the layout skips building it (≈ 35 µs of a
# picture's layout and drawing, issue 18).
TEXTS_KEPT = 4096


@lru_cache(maxsize=TEXTS_KEPT)
def kept_text(x: float, y: float, text: str, size: int, color: str = "ink", bold: bool = False) -> Text:
    """``Text(x, y, text, size, color, Anchor.MM, bold)``, one object per arguments (the last TEXTS_KEPT)."""
    return Text(x, y, text, size, color, Anchor.MM, bold)


@dataclass(frozen=True, slots=True)
class Scene:
    """A picture: ``base`` (the static part — frame, grid, fixed labels —, a function of the chart type and
    language only, so ``bot.images.draw`` draws it once and copies it) and then ``items`` (what this chart
    adds), both in drawing order over the ``background`` fill."""

    width: int
    height: int
    items: tuple[Primitive, ...]
    background: str = "paper"
    base: tuple[Primitive, ...] = ()
    # the hash, worked out once (0: not yet): a scene is the key of ``bot.pictures.png_of``, whose look-up and
    # keeping hash it 4 times, each item's every field by a Python ``__hash__`` (a new 六爻 picture's png_of
    # less its to_png: 0.26–0.34 → −0.16–0.02 ms, 3 alternating runs of 200 pictures): 7 lines
    hashed: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        if not self.hashed:
            found = hash((self.width, self.height, self.items, self.background, self.base))
            object.__setattr__(self, "hashed", found)
        return self.hashed

    @property
    def drawn(self) -> tuple[Primitive, ...]:
        """Every primitive in drawing order: the base, then the chart's items."""
        return self.base + self.items

    def texts(self) -> tuple[Text, ...]:
        return tuple(i for i in self.drawn if isinstance(i, Text))

    def characters(self) -> frozenset[str]:
        """Every character the scene draws."""
        return frozenset(ch for t in self.texts() for ch in t.text)
