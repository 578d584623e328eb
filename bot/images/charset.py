"""Every character the renderers can draw, enumerated from the tables they draw from.

Used by scripts/make_font_subset.py (what the shipped font must hold) and by the font-coverage test. The
sources: the engine's tables (干支, 五行, 天將, 九宗門 and the 課 names of every 課 under every school option,
六親, 六神, the 64 卦 and 八宮 stages, the eleven bodies, twelve houses, 星次, the 28 宿 of every mansion set,
the shipped city names), the ``image.*`` and ``qizheng.opt*`` messages of both languages, the one-character
body names and marks of ``data/glyphs.json``, and printable ASCII (digits, dates, coordinates).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import cache

from bot.i18n import LANGS, catalog, term
from bot.images.glyphs import drawable, glyphs
from engine.core.cycle import BRANCH_CHARS, ELEMENT_CHARS, STEM_CHARS, all_ganzhi
from engine.core.relations import KIN_NAMES

MESSAGE_PREFIXES = ("image.", "qizheng.opt", "qizheng.options")


def _liuren() -> Iterator[str]:
    from engine.liuren import FuyinMaozi, Shehai, chart_for_ju
    from engine.liuren.options import DEFAULT_OPTIONS
    from engine.liuren.types import GENERAL_CHARS, METHOD_CHARS

    yield from GENERAL_CHARS
    yield from METHOD_CHARS
    option_sets = [DEFAULT_OPTIONS]
    option_sets += [replace(DEFAULT_OPTIONS, shehai=s) for s in Shehai]
    option_sets += [replace(DEFAULT_OPTIONS, fuyin_maozi=f) for f in FuyinMaozi]
    option_sets += [replace(DEFAULT_OPTIONS, bazhuan_first=False)]
    for options in option_sets:
        for day in all_ganzhi():
            for ju in range(1, 13):
                yield from chart_for_ju(day, ju, options).method_names


def _liuyao() -> Iterator[str]:
    from engine.liuyao import hexagram_table, trigrams
    from engine.liuyao.chart import SPIRIT_NAMES
    from engine.liuyao.table import RELATIVE_NAMES, STAGE_NAMES

    yield from RELATIVE_NAMES
    yield from SPIRIT_NAMES
    yield from STAGE_NAMES
    yield from ("六沖卦", "六合卦", "六害卦")
    for h in hexagram_table():
        yield from (h.name, h.short, h.ko, h.short_ko)
    for t in trigrams().values():
        yield from (t.char, t.image)
    # a ko picture reads the palace, its stage and the flags as 한글(漢字) (bot.images.liuyao)
    yield from (term("ko", t.char + "宮") for t in trigrams().values())
    yield from (term("ko", s) for s in (*STAGE_NAMES, "六沖卦", "六合卦", "六害卦"))


def _qizheng() -> Iterator[str]:
    from engine.qizheng.chart import shoushi_mansions
    from engine.qizheng.places import places
    from engine.qizheng.tables import BODIES, HOUSES, mansions, rules

    yield from BODIES
    yield from HOUSES
    yield from rules()["palaces"]["names"].values()
    for table in (mansions(), mansions(True, False), mansions(False, True), shoushi_mansions()):
        yield from (m.name for m in table)
    for p in places():
        yield from (p.ko, p.zh)


def _messages() -> Iterator[str]:
    for lang in LANGS:
        for msgid, text in catalog(lang).items():
            if msgid.startswith(MESSAGE_PREFIXES):
                yield drawable(text.replace("{", "").replace("}", ""))


def _printable_ascii() -> str:
    return "".join(chr(c) for c in range(0x21, 0x7F))


def _chars(texts: Iterable[str]) -> frozenset[str]:
    return frozenset(ch for t in texts for ch in str(t) if ch == " " or not ch.isspace())


@cache
def drawable_characters() -> frozenset[str]:
    """The character set of the pictures (the space included, other whitespace never drawn)."""
    g = glyphs()
    fixed = [" ", STEM_CHARS, BRANCH_CHARS, ELEMENT_CHARS, "".join(KIN_NAMES), _printable_ascii()]
    fixed += [g.punctuation, *(s for names in g.body_short.values() for s in names.values())]
    texts = [*fixed, *_liuren(), *_liuyao(), *_qizheng(), *_messages()]
    return _chars([*texts, *_ko_readings(texts)])


def _ko_readings(texts: Iterable[str]) -> Iterator[str]:
    """The 한글 of every term a ko picture may give as 한글(漢字) or under its characters (bot.images.liuyao,
    bot.images.qizheng): each name whole (its 두음 법칙 reading) and each character alone; the 干支 too."""
    for text in texts:
        yield term("ko", text)
        yield term("ko", text + "宿")
        yield from (term("ko", ch) for ch in text)
    yield from (term("ko", gz.chars) for gz in all_ganzhi())
