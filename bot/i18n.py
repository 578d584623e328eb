"""Localization: gettext catalogs, term dictionaries and Jinja2 rendering.

Layout (every file is package data, loaded once per language on first use):

- ``locales/<lang>/LC_MESSAGES/<domain>.po``: message catalogs, one domain per area
  (``core``, ``calendar``, ``liuren`` …) — the source of truth, edited by hand. The build compiles each
  into ``<domain>.mo`` next to it (``setup.py``, with Babel, a build requirement only); at run time this
  module reads the ``.mo`` files with :func:`read_mo` (no Babel). All domains of a language are merged, so
  message ids must be unique across domains (prefix them with the area: ``calendar.term``,
  ``error.not_a_ganzhi``; ``tests/test_catalogs.py`` checks it and that every ``.mo`` is up to date).
- ``locales/<lang>/terms/<domain>.json``: term dictionaries, ``{"甲子": "갑자", …}`` — how a technical
  term is read in that language. ``lzh`` needs none (the term is its own reading).
- ``locales/terms/<art>.json``: one terminology table per art (六壬, 六爻, 七政四餘): the practitioner's word
  for each term in ko and lzh with the characters a ko reply shows, the variants no surface may print and the
  catalog messages that name the term (:func:`art_terms`). Its ko words override the term dictionaries, so
  chat, CLI and pictures read a term alike (issue 33).
- ``locales/ko/hanja.json``: readings of single 漢字 the term dictionaries do not spell out (the particle
  helper needs the reading of every character our data may put before a particle).
- ``templates/<channel>/<name>.<ext>.j2``: Jinja2 templates; channel is ``cli``, ``console``,
  ``telegram`` (HTML, autoescaped) or ``discord`` (markdown). Templates call ``_("msgid")`` and the
  filters ``term`` (reading in the language), ``both`` (reading with the characters, e.g. 갑자(甲子)) and
  ``particle`` (``{{ x|particle("을") }}`` → x을 or x를, by the final sound of x in ko; nothing in lzh).

Korean particles in catalog messages are written as a format spec on the placeholder they follow:
``"{day:이} 관귀를 생함"`` gives 戌이 or 子가 (:mod:`bot.korean`); never ``이(가)``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import string
import struct
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot import korean, numerals
from bot.msgids import DISCORD_WORDS, N_, msgid

__all__ = ["N_", "msgid"]

if TYPE_CHECKING:
    import jinja2

LANGS: tuple[str, ...] = ("ko", "lzh")
DEFAULT_LANG = "ko"


def normalize_lang(value: str | None) -> str | None:
    """Map a language hint (``ko``, ``ko-KR``, ``lzh``, ``zh-Hant`` …) to one of LANGS, or None."""
    if not value:
        return None
    v = value.strip().lower().replace("_", "-")
    if v.startswith("ko"):
        return "ko"
    if v.startswith("lzh") or v.startswith("zh"):
        return "lzh"
    return None


def default_lang() -> str:
    """SIKPAN_LANG from the environment, else Korean."""
    return normalize_lang(os.environ.get("SIKPAN_LANG")) or DEFAULT_LANG


def _check(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"unsupported language {lang!r}; expected one of {LANGS}")
    return lang


MO_MAGIC = 0x950412DE


def read_mo(data: bytes) -> dict[str, str]:
    """The messages of a compiled GNU gettext catalog (``.mo``): ``{msgid: msgstr}``.

    Format (GNU gettext manual, "The Format of GNU MO Files"): a magic number in either byte order, a
    revision, the number of strings N, the offsets of the original and of the translation tables; each table
    holds N (length, offset) pairs of UTF-8 strings. A plural entry is ``singular\0plural`` → the forms
    joined by NUL: the singular and the first form are kept. The header entry (empty msgid) is dropped.
    """
    for order in ("<", ">"):
        magic, revision, count, originals, translations = struct.unpack_from(order + "5I", data)
        if magic == MO_MAGIC:
            break
    else:
        raise ValueError("not a GNU .mo catalog")
    if revision >> 16 not in (0, 1):
        raise ValueError(f"unknown .mo revision {revision:#x}")
    out: dict[str, str] = {}
    for i in range(count):
        id_len, id_at = struct.unpack_from(order + "2I", data, originals + 8 * i)
        str_len, str_at = struct.unpack_from(order + "2I", data, translations + 8 * i)
        msgid = data[id_at : id_at + id_len].decode("utf-8").split("\0", 1)[0]
        if msgid:
            out[msgid] = data[str_at : str_at + str_len].decode("utf-8").split("\0", 1)[0]
    return out


# Folders of compiled catalogs (``<lang>/LC_MESSAGES/*.mo``, as ``locales/``) a feature brings besides the
# project's (``add_catalogs``: a feature package outside ``bot/``, e.g. a test's throw-away command)
_CATALOG_FOLDERS: list[Path] = []


@cache
def catalog(lang: str) -> Mapping[str, str]:
    """All messages of a language, merged over its domains (the compiled ``.mo`` files), then those of the
    folders :func:`add_catalogs` added (an id of the project's keeps the project's text)."""
    messages: dict[str, str] = {}
    folders: list[Traversable] = [resources.files("locales"), *_CATALOG_FOLDERS]
    for root in folders:
        folder = root.joinpath(_check(lang), "LC_MESSAGES")
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".mo"):
                for key, text in read_mo(entry.read_bytes()).items():
                    if text:
                        messages.setdefault(key, text)
    return messages


def _clear_catalogs() -> None:
    """Forget the merged catalogs and what was made of them (the citations, :func:`_cite`)."""
    catalog.cache_clear()
    _cite.cache_clear()
    _cite_short.cache_clear()


def add_catalogs(folder: Path) -> None:
    """Add a folder of compiled catalogs (``<lang>/LC_MESSAGES/*.mo``) to :func:`catalog`."""
    if folder not in _CATALOG_FOLDERS:
        _CATALOG_FOLDERS.append(folder)
        _clear_catalogs()


def remove_catalogs(folder: Path) -> None:
    """Undo :func:`add_catalogs`."""
    if folder in _CATALOG_FOLDERS:
        _CATALOG_FOLDERS.remove(folder)
        _clear_catalogs()


class MessageFormatter(string.Formatter):
    """``str.format`` plus five specs of our own (docs/style.md):

    - a Korean particle after the value: ``{day:이}`` → 戌이 / 子가 (in lzh the value alone);
    - ``{n:num}``: a number in Chinese numerals in lzh (第{ju:num}局 → 第七局), in digits in ko;
    - ``{n:line}``: a hexagram line by its name in lzh (``{n:line}爻`` → 初爻 … 上爻), the number in ko;
    - ``{n:signed}``: a weight or sum with its sign (計{score:signed} → 計－八 in lzh, -8 in ko);
    - ``{n:years}``: an age in years (生{age:years} → 生五十二年又一月 in lzh, 52.12 in ko).
    """

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> Any:
        if format_spec in korean.ALIASES:
            return attach(self.lang, value, format_spec)
        if format_spec == "num":
            return numeral(self.lang, value)
        if format_spec == "line":
            return line_name(self.lang, value)
        if format_spec == "signed":
            return signed(self.lang, value)
        if format_spec == "years":
            return years(self.lang, value)
        return super().format_field(value, format_spec)


def own_script(lang: str, values: Any) -> list[str]:
    """The items a reader of ``lang`` writes: in lzh none with Hangul (a command's Korean aliases)."""
    items = [str(v) for v in values]
    if lang == "lzh":
        return [v for v in items if not any(korean.is_syllable(ch) for ch in v)]
    return items


_SEED = re.compile(r"seed[ -](\d{3})(?: entry (\d+)| entries (\d+(?:(?:,| and) \d+)*))?")
_SEED_ENTRIES = re.compile(
    r"seed (003) entries (\d+)( 「[^」]*」) and (\d+)"
)  # 「entries 1 「…」 and 8 「…」」
_SEED_LINE = re.compile(r"\b(00[0-4]):(\d+)\b(?=(\s*「)?)")  # seed 000, line 15 (the seed file's line)
_BARE_ENTRIES = re.compile(r"\bentr(?:y|ies) (\d+(?:, \d+)*)")
# what names our own documents, files and code, not a source a reader can open: dropped from a citation
_OWN = re.compile(
    r"\s*\((?:spec|docs/|engine/)[^()]*\)"  # (spec §5), (docs/liuyao.md)
    r"|\s*\([^()]*\.(?:json|md|py|dart)\b[^()]*\)"  # (categories.json siblings)
    r"|\bspec(?:/\w+\.md| \w+)? §[\d.–§-]+[:;,]?\s*"  # spec liuyao §2, spec/calendar.md §2;
    r"|\bspec §[\d.]+"
    r"|\s*\([A-Za-z][A-Za-z ,.'-]*\)"  # a developers' aside in English: (outside the seeds)
)


@cache
def _passages() -> dict[str, Any]:
    """``locales/passages.json``: how a reader finds a line of a seed text (its opening words, its example)."""
    data: dict[str, Any] = json.loads(
        resources.files("locales").joinpath("passages.json").read_text(encoding="utf-8")
    )
    return data


def cite(lang: str, source: object) -> str:
    """A source reference as a reader of ``lang`` names it: ``seed 003 entry 1`` → 八課例第一例 (lzh).

    Remembered per (language, reference) (:func:`_cite`).
    """
    return _cite(lang, str(source))


@lru_cache(maxsize=4096)
def _cite(lang: str, source: str) -> str:
    """:func:`cite`, remembered: a pure function of the reference, the catalogs and the term tables (cleared
    with the catalogs, :func:`add_catalogs`). Eight regular expressions and a dozen look-ups a reference; a
    ``/liuyao`` first page cites a few (``cite_short``) of the few hundred references the data has: the render
    of a fresh ``/liuyao`` reply's first page went from ≈ 1.72 to ≈ 1.48 ms (in process, medians of ko and
    lzh). Costs 12 lines (two caches and their clearing).

    The data's ``source`` fields name the four seed texts by number (seed 000 … 004) and their lines by the
    seed file's line (``000:19``); the catalogs give each text its name (``source.seed_000`` …) and
    ``locales/passages.json`` each line its opening words (《易冒》「何謂之局」) or, in the eight examples, the
    example it belongs to (八課例第一例), so that no reply says "seed", a line number or one of our files.
    """

    gap = "" if lang == "lzh" else " "  # 《易冒》「何謂之局」 in lzh, 《역모(易冒)》 「何謂之局」 in ko

    def book(seed: str) -> str:
        return gettext(lang, msgid("source", f"seed_{seed}"))

    def entries(numbers: list[int]) -> str:
        return series(lang, [gettext(lang, "source.entry", n=n).strip() for n in numbers])

    def named(m: re.Match[str]) -> str:
        if m.group(3):
            numbers = [int(n) for n in re.findall(r"\d+", m.group(3))]
            return book(m.group(1)) + gap + entries(numbers)
        return book(m.group(1)) + (gettext(lang, "source.entry", n=int(m.group(2))) if m.group(2) else "")

    def line(m: re.Match[str]) -> str:
        seed, at = m.group(1), m.group(2)
        table = _passages()
        opening = table["openings"].get(seed, {}).get(at)
        if opening and not m.group(3):  # a quotation after the line names the passage itself
            return f"{book(seed)}{gap}「{opening}」"
        example = table["examples"].get(seed, {}).get(at)
        if example:
            return book(seed) + gettext(lang, "source.entry", n=example)
        return book(seed)

    def pair(m: re.Match[str]) -> str:
        first, second = gettext(lang, "source.entry", n=int(m.group(2))).strip(), m.group(3)
        return (
            f"{book(m.group(1))}{gap}{first}{second}, "
            + gettext(lang, "source.entry", n=int(m.group(4))).strip()
        )

    text = _SEED_ENTRIES.sub(pair, source)
    text = _SEED_LINE.sub(line, _SEED.sub(named, text))
    # an entry of the eight examples named again without its book: (課體; entry 2 「兩貴臨門」)
    text = _BARE_ENTRIES.sub(lambda m: entries([int(n) for n in re.findall(r"\d+", m.group(1))]), text)
    text = _one_book(_OWN.sub("", text).strip(), [book(s) + gap for s in ("000", "002", "003", "004")])
    if lang == "lzh":  # the data's list separators, written as 文言 writes them
        text = re.sub(r"(?<=[》例]) (?=「)", "", text.replace(", ", "、").replace("; ", "；"))
    if lang == "ko":
        text = _read_heading(text)
    return text


# a quotation 「…」, a parenthesis (漢字 after its reading), or a run of Hanja words
_CITED = re.compile(
    r"「[^」]*」|\([^()]*\)|《([\u3400-\u9fff]+)》|([\u3400-\u9fff]+(?:[·][\u3400-\u9fff]+)*)"
)


def _read_heading(text: str) -> str:
    """A ko citation's own words read in 한글 (docs/style.md: no run of Hanja outside 한글(漢字) or 「」): a book
    《畢法賦》 is 《필법부(畢法賦)》, a section heading 神煞 財 is 신살 재, and a passage given without its
    quotation marks (日辰生扶拱合為旺) is quoted 「…」; a quotation and a reading's characters stay."""

    def read(m: re.Match[str]) -> str:
        if m.group(1):  # a book
            title = m.group(1)
            reading = term("ko", title)
            return f"《{reading}({title})》" if reading != title else m.group(0)
        words = m.group(2)
        if not words:
            inner = m.group(0)[1:-1]  # (晝貴丑臨亥): the seed's own note, quoted
            after_word = (
                m.start() > 0 and not m.string[m.start() - 1].isspace()
            )  # 팔과례(八課例): a reading's
            hanja_only = (
                m.group(0).startswith("(") and not after_word and re.fullmatch(r"[\u3400-\u9fff]{3,}", inner)
            )
            return f"(「{inner}」)" if hanja_only else m.group(0)
        if len(words) > 4 and "·" not in words:
            return f"「{words}」"
        reading = "·".join(term("ko", w) for w in words.split("·"))
        return reading if not re.search(r"[\u3400-\u9fff]", reading) else m.group(0)

    return _CITED.sub(read, text)


def _one_book(text: str, books: list[str]) -> str:
    """A list of passages of one book names the book once: 《易冒》 「助鬼傷身」, 「雖曰長生」."""
    parts = text.split(", ")
    last = None
    for i, part in enumerate(parts):
        name = next((b for b in books if part.startswith(b + "「") or part.startswith(b + " 「")), None)
        if name is not None and name == last:
            parts[i] = part[len(name) :].lstrip()
        last = name if name is not None else (last if part.startswith("「") else None)
    return ", ".join(parts)


def cite_short(lang: str, source: object) -> str:
    """The first passage a source reference names, without its quotation and notes, as :func:`cite` names it
    (``003:7 「寅為日之財…」; 002:75 「…」`` → 八課例第一例; ``000:31, 000:35`` → 《易冒》「擬議之三而後刑」): a
    reason's source on a first screen, where the whole reference (the 근거 page's) would not fit. A passage
    named by its quotation alone (``「月令旺相休囚死」 (spec §3)``) keeps it."""
    return _cite_short(lang, str(source))


@lru_cache(maxsize=4096)
def _cite_short(lang: str, source: str) -> str:
    """:func:`cite_short`, remembered as :func:`_cite` is (cleared with it)."""
    first = _first_passage(source)
    bare = _QUOTED_OR_NOTED.sub("", first).strip()
    return (cite(lang, bare) if bare else "") or cite(lang, first)


_QUOTED_OR_NOTED = re.compile(r"\s*「[^」]*」|\s*\([^()]*\)")


def head_until(text: str, stops: str, opening: str, closing: str) -> str:
    """``text`` up to its first character of ``stops`` outside brackets (``opening``/``closing``), stripped:
    the first passage of a source reference, the first sentence of a meaning."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth = max(0, depth - 1)
        elif ch in stops and depth == 0:
            return text[:i].strip()
    return text.strip()


def _first_passage(source: str) -> str:
    """A source reference up to its first ``;`` or ``,`` outside a quotation or a parenthesis."""
    return head_until(source, ";,", "「(", "」)")


_PASSAGE = re.compile(r"\bp(\d{2})\.(\d+)\b")


def passage(lang: str, ident: object) -> str:
    """A 《八格賦》 passage id as the language writes it: p08.1 in ko, 第八段其一 in lzh (``qizheng.passage``)."""
    return _PASSAGE.sub(
        lambda m: gettext(lang, "qizheng.passage", para=int(m.group(1)), clause=int(m.group(2))), str(ident)
    )


SERIES_SEPARATOR = {"ko": ", ", "lzh": "、"}


def series(lang: str, values: Any) -> str:
    """Items joined as the language enumerates them: ``점, 과`` in ko, ``六壬、占`` in lzh (頓號)."""
    return SERIES_SEPARATOR[_check(lang)].join(str(v) for v in values)


_HALF = re.compile(r"(\d+)\.50*")


def numeral(lang: str, value: object) -> str:
    """A count or ordinal as the language writes it: 七 in lzh, 7 in ko (a non-number is left as it is); in lzh
    a half as 有半 (an age of 82.5 years: 八十二有半)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if lang == "lzh" and isinstance(value, int | str) and str(value).isdigit():
        return numerals.chinese(int(value))
    if lang == "lzh" and isinstance(value, float | str) and (half := _HALF.fullmatch(str(value))):
        return numerals.chinese(int(half.group(1))) + "有半"
    return str(value)


def signed(lang: str, value: object) -> str:
    """A weight or a sum with its sign (docs/style.md): ＋二, －八 in lzh; +2, -8 in ko; 0 without a sign."""
    if not isinstance(value, int):
        return str(value)
    if lang == "lzh":
        return ("＋" if value > 0 else "－" if value < 0 else "") + numerals.chinese(abs(value))
    return f"{value:+d}" if value else "0"


def years(lang: str, value: object) -> str:
    """An age in years as a decimal (52.12) as the language gives it: 五十二年又一月 in lzh (whole months),
    52.12 in ko."""
    try:
        age = float(str(value))
    except ValueError:
        return str(value)
    if lang != "lzh" or age < 0:
        return f"{age:.2f}"
    whole, months = divmod(round(age * 12), 12)
    return numerals.chinese(whole) + "年" + ("又" + numerals.chinese(months) + "月" if months else "")


def line_name(lang: str, value: object) -> str:
    """A hexagram line 1…6 as the language names it (before 爻/효): 初 二 … 上 in lzh; in ko the number, but
    the bottom and top lines by name, as the 六爻 terminology table reads 初爻 and 上爻 (초효, 상효)."""
    if not (isinstance(value, int | str) and str(value).isdigit() and 1 <= int(value) <= 6):
        return str(value)
    n = int(value)
    if lang == "lzh":
        return numerals.line_ordinal(n)
    if lang == "ko" and n in (1, 6):
        return term(lang, numerals.line_ordinal(n) + "爻").removesuffix("효")
    return str(n)


@cache
def _formatter(lang: str) -> MessageFormatter:
    return MessageFormatter(lang)


@lru_cache(maxsize=4096)
def _fields(text: str) -> tuple[tuple[str, str | None, str], ...] | None:
    """A message text split as ``str.format`` reads it: (literal, field name or None, spec) — or None when a
    field is more than ``{name}`` / ``{name:spec}`` (an index, an attribute, a conversion, a nested field),
    which :class:`MessageFormatter` then fills."""
    parts: list[tuple[str, str | None, str]] = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        spec = spec or ""
        if name is not None and (
            not name.isidentifier() or conversion is not None or "{" in spec or "}" in spec
        ):
            return None
        parts.append((literal, name, spec))
    return tuple(parts)


def format_message(lang: str, text: str, **params: Any) -> str:
    """Fill ``{name}`` placeholders of a catalog text (with particle specs, see :class:`MessageFormatter`).

    What ``MessageFormatter(lang).format`` gives, with the text's parts parsed once (``string.Formatter``'s
    own loop is Python, ≈ 10 µs a message; a ``/liuyao`` page fills ≈ 9)."""
    formatter = _formatter(lang)
    try:
        parts = _fields(text)
        if parts is None:
            return formatter.format(text, **params)
        out: list[str] = []
        for literal, name, spec in parts:
            out.append(literal)
            if name is not None:
                out.append(formatter.format_field(params[name], spec))
        return "".join(out)
    except (KeyError, IndexError, ValueError):
        return text


def gettext(lang: str, msgid: str, **params: Any) -> str:
    """Translate ``msgid`` (falling back to the id itself) and fill ``{name}`` placeholders."""
    text = catalog(lang).get(msgid, msgid)
    return format_message(lang, text, **params) if params else text


def ngettext(lang: str, singular: str, plural: str, n: int, **params: Any) -> str:
    """The plural form of a message for count ``n`` (both languages have one form: ``nplurals=1``).

    The catalog entry is ``msgid singular / msgid_plural plural``; the compiled catalog keeps its first form
    under ``singular`` (:func:`read_mo`). ``n`` is passed to the placeholders as ``{n}``.
    """
    text = catalog(lang).get(singular) or (singular if n == 1 else plural)
    return format_message(lang, text, n=n, **params)


@cache
def hanja_readings() -> Mapping[str, str]:
    """The Korean reading of each 漢字 our data uses: ``{"戌": "술", …}``.

    Derived from the ko term dictionaries (a term and its reading of equal length give one reading per
    character; the most frequent reading wins, e.g. 六 육 over 륙), then ``locales/ko/hanja.json``
    (characters no term spells out) on top.
    """
    votes: defaultdict[str, Counter[str]] = defaultdict(Counter)
    respelled = _shown_as()  # 局會 is read 회국 as 會局: not a reading of its own characters
    for key, value in terms("ko").items():
        if key in respelled:
            continue
        spoken = value.replace(" ", "")
        if len(key) == len(spoken) and all(
            korean.is_syllable(r) and not korean.is_syllable(c) for c, r in zip(key, spoken)
        ):
            for c, r in zip(key, spoken):
                votes[c][r] += 1
    out = {c: counts.most_common(1)[0][0] for c, counts in votes.items()}
    extra = resources.files("locales").joinpath("ko", "hanja.json")
    if extra.is_file():
        out.update((k, v) for k, v in json.loads(extra.read_text(encoding="utf-8")).items() if len(k) == 1)
    return out


def particle(lang: str, text: object, name: str) -> str:
    """The form of Korean particle ``name`` after ``text`` (:func:`bot.korean.particle`); "" in lzh."""
    if lang != "ko":
        return ""
    return korean.particle(text, name, hanja_readings())


def attach(lang: str, text: object, name: str) -> str:
    """``text`` with the right form of particle ``name`` after it in ko; ``text`` alone in lzh."""
    return f"{text}{particle(lang, text, name)}"


@dataclass(frozen=True)
class ArtTerm:
    """One row of an art's terminology table (``locales/terms/<art>.json``)."""

    art: str  # 六壬, 六爻, 七政四餘
    hanja: str  # the characters a ko reply shows after the reading
    ko: str
    lzh: str
    spelled: tuple[
        str, ...
    ] = ()  # other spellings of the term in our data (read as ``ko``, shown as ``hanja``)
    avoid: tuple[str, ...] = ()  # Korean variants no data file, template or catalog prints
    avoid_in: tuple[
        str, ...
    ] = ()  # where ``avoid`` holds ("catalogs", "templates", "data"); empty: everywhere
    allowed: tuple[str, ...] = ()  # longer words that contain an avoided variant and stand (절로공망)
    msgids: tuple[str, ...] = ()  # catalog messages that name the term


@cache
def art_terms() -> tuple[ArtTerm, ...]:
    """The terminology tables of the arts, in file order (``locales/terms/*.json``)."""
    out: list[ArtTerm] = []
    folder = resources.files("locales").joinpath("terms")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        table = json.loads(entry.read_text(encoding="utf-8"))
        for row in table["terms"]:
            out.append(
                ArtTerm(
                    art=table["art"],
                    hanja=row["hanja"],
                    ko=row["ko"],
                    lzh=row["lzh"],
                    spelled=tuple(row.get("spelled", ())),
                    avoid=tuple(row.get("avoid", ())),
                    avoid_in=tuple(row.get("avoid_in", ())),
                    allowed=tuple(row.get("except", ())),
                    msgids=tuple(row.get("msgids", ())),
                )
            )
    return tuple(out)


@cache
def _shown_as() -> Mapping[str, str]:
    """Spellings of a term that a ko reply shows with the table's characters: 局會 → 會局 (회국(會局))."""
    return {s: t.hanja for t in art_terms() for s in t.spelled}


@cache
def terms(lang: str) -> Mapping[str, str]:
    """The merged term dictionary of a language (empty for lzh unless files exist); in ko the words of the
    arts' terminology tables (:func:`art_terms`) over the term files."""
    out: dict[str, str] = {}
    folder = resources.files("locales").joinpath(_check(lang), "terms")
    if folder.is_dir():
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                out.update(json.loads(entry.read_text(encoding="utf-8")))
    if lang == "ko":
        for t in art_terms():
            out[t.hanja] = t.ko
            out.update((s, t.ko) for s in t.spelled)
    return out


def term(lang: str, text: object) -> str:
    """How a term is read in ``lang``: 甲子 → 갑자 in ko, itself in lzh.

    Unknown multi-character terms are read character by character when every character is known.
    """
    s = str(text)
    table = terms(lang)
    if s in table:
        return table[s]
    if lang == "lzh" or not s:
        return s
    if len(s) > 1 and all(ch in table for ch in s):
        return "".join(table[ch] for ch in s)
    return s


_QUALIFIED = re.compile(r"([^()]+)\(([^()]+)\)")


# the terms a reply has already given as 한글(漢字): later uses give the 한글 alone (docs/style.md)
_GIVEN: ContextVar[set[str] | None] = ContextVar("given_terms", default=None)


@contextlib.contextmanager
def one_reply() -> Iterator[None]:
    """While the block renders one reply, ``both`` gives each term as 한글(漢字) the first time, then 한글."""
    token = _GIVEN.set(set())
    try:
        yield
    finally:
        _GIVEN.reset(token)


def given_terms() -> frozenset[str] | None:
    """The terms already given as 한글(漢字) in the reply being rendered (None: not inside ``one_reply``)."""
    given = _GIVEN.get()
    return None if given is None else frozenset(given)


@contextlib.contextmanager
def terms_given(before: Iterable[str] | None) -> Iterator[set[str] | None]:
    """Render a part of a reply as if ``before`` had been given (None: outside a reply); yields the set that
    ``both`` fills (``before`` and the terms given since), for a cache of rendered parts (``bot.views``)."""
    given = None if before is None else set(before)
    token = _GIVEN.set(given)
    try:
        yield given
    finally:
        _GIVEN.reset(token)


def given_now() -> set[str] | None:
    """The set of terms given as 한글(漢字) in the reply being rendered, itself (None: not inside ``one_reply``):
    for a cache of rendered rows that reads it and adds to it a dozen times a page without copying it
    (``bot.views.rendered_rows``); anything else reads :func:`given_terms`."""
    return _GIVEN.get()


def mark_given(terms: Iterable[str]) -> None:
    """Count ``terms`` as given in the reply being rendered (a cached part gave them)."""
    given = _GIVEN.get()
    if given is not None:
        given.update(terms)


def both(lang: str, text: object) -> str:
    """The reading with the characters after it, e.g. 갑자(甲子); just the characters in lzh.

    A name with a qualifier in parentheses, 月煞(將星) or 官符(歲), reads as one label: 월살·장성(月煞·將星),
    not 월살(장성)(月煞(將星)) (docs/style.md).
    """
    s = str(text)
    qualified = _QUALIFIED.fullmatch(s)
    if qualified and lang != "lzh":
        head, qualifier = qualified.groups()
        whole = term(lang, s)
        if whole != s and "(" not in whole:
            # the qualifier only tells the name apart (死(旺相) from the 長生 stage 死): the reading says it in
            # Korean, the characters stay the name's own: 왕상휴수사의 사(死·旺相)
            return _once(s, whole, f"{head}·{qualifier}")
        readings = term(lang, head), term(lang, qualifier)
        if readings != (head, qualifier):
            return f"{readings[0]}·{readings[1]}({head}·{qualifier})"
    reading = term(lang, s)
    if reading == s:
        return s
    return _once(s, reading, _shown_as().get(s) if lang == "ko" else None)


_HANJA_ONLY = re.compile(r"[\u3400-\u9fff]+")
_GANZHI_CHARS = frozenset("甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥")


def reading(lang: str, text: object) -> str:
    """The reading alone, 한글 without the characters (a dense row of names, whose characters a page one tap
    away gives): 月煞(將星) → 월살·장성; in lzh the text itself."""
    s = str(text)
    if lang == "lzh":
        return s
    qualified = _QUALIFIED.fullmatch(s)
    if qualified:
        whole = term(lang, s)
        if whole != s and "(" not in whole:
            return whole
        return "·".join(term(lang, part) for part in qualified.groups())
    return term(lang, s)


def value_reading(lang: str, value: object) -> str:
    """A value of a table (branches 丑未, a direction 東南, a stage 沐浴, or a list of them) as the language
    writes it: 丑未 in lzh; 축·미, 동남, 목욕 in ko (each branch or stem read on its own, joined by ·)."""
    items = [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]
    if lang == "lzh":
        return "".join(items)
    if len(items) == 1 and len(items[0]) > 1 and all(ch in _GANZHI_CHARS for ch in items[0]):
        items = list(items[0])
    return "·".join(term(lang, item) for item in items)


def both_values(lang: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with each value that is 漢字 only (a branch, a stage, an element) given as :func:`both` gives
    it: a message's values read in Korean like its words (``관귀 해(亥) 순공 아님``, not ``관귀 亥 …``)."""
    return {
        k: both(lang, v) if isinstance(v, str) and _HANJA_ONLY.fullmatch(v) else v for k, v in params.items()
    }


def both_each(lang: str, value: object) -> Any:
    """:func:`both` of ``value``; of each item, in order, when it is a list or a tuple (a list)."""
    if isinstance(value, list | tuple):
        return [both(lang, item) for item in value]
    return both(lang, value)


def _once(s: str, reading: str, chars: str | None = None) -> str:
    """한글(漢字) the first time a reply names ``s``, then 한글 alone (``one_reply``)."""
    given = _GIVEN.get()
    if given is not None:
        if s in given:
            return reading
        given.add(s)
    return f"{reading}({chars or s})"


@cache
def _environment_class() -> type[jinja2.Environment]:
    """``jinja2.Environment`` with ``x.name`` of a plain dict looked up as the key first, and templates' globals
    in a plain dict (issue #18).

    Every view model is a dict read back from JSON, and Jinja's ``getattr`` tries the attribute first: for a
    key that is no attribute of a dict that is an ``AttributeError`` raised and caught, ≈ 140 of them in a
    ``/liuyao`` page. A plain dict has no attributes but its class's, so looking the key up first when
    ``name`` is none of them gives what Jinja gives, the value or the same undefined.
    """
    import jinja2

    dict_attributes = frozenset(dir(dict))

    class Environment(jinja2.Environment):
        def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
            """A template's globals as a plain dict (the template's own over the environment's, as Jinja's
            ``ChainMap`` gives them): every render copies them (``dict(globals, **vars)``, ``set(globals)``),
            which for a ``ChainMap`` is a Python loop over its keys (≈ 15 µs a page). Jinja asks that the
            environment's globals not change once a template is loaded; ours are all set before."""
            return {**self.globals, **(d or {})}

        def getattr(self, obj: Any, attribute: str) -> Any:
            if type(obj) is dict and attribute not in dict_attributes:
                try:
                    return obj[attribute]
                except KeyError:
                    return self.undefined(obj=obj, name=attribute)
            return super().getattr(obj, attribute)

    return Environment


@cache
def _loader() -> jinja2.FileSystemLoader:
    """The templates' loader, shared by every environment: ``templates/``, then the folders features add."""
    import jinja2

    return jinja2.FileSystemLoader(str(resources.files("templates")))


def add_templates(folder: Path) -> None:
    """Add a folder of templates (laid out as ``templates/``: ``<channel>/<view>.<ext>``), searched after
    ``templates/`` (a feature package's own templates)."""
    if str(folder) not in _loader().searchpath:
        _loader().searchpath.append(str(folder))


def remove_templates(folder: Path) -> None:
    """Undo :func:`add_templates` (a template already loaded stays in an environment's cache)."""
    if str(folder) in _loader().searchpath:
        _loader().searchpath.remove(str(folder))


@cache
def environment(lang: str) -> jinja2.Environment:
    """A Jinja2 environment for one language (``_`` is bound to that language's catalog)."""
    import jinja2  # here: the CLI's JSON output never renders a template
    import markupsafe

    _check(lang)
    env = _environment_class()(
        loader=_loader(),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        undefined=jinja2.StrictUndefined,
    )

    def _gettext(msgid: str, **params: Any) -> str:
        return gettext(lang, msgid, **params)

    def _ngettext(singular: str, plural: str, n: int, **params: Any) -> str:
        return ngettext(lang, singular, plural, n, **params)

    def _particle(value: Any, name: str) -> Any:
        if isinstance(value, markupsafe.Markup):
            return value + particle(lang, value.striptags(), name)
        return attach(lang, value, name)

    # what jinja2.ext.i18n installs (its ``_`` looks ``gettext`` up in the context and calls it: two calls a
    # message); templates use no ``{% trans %}`` block, so the extension is not loaded
    env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext)
    env.globals["lang"] = lang
    env.filters["term"] = lambda value: term(lang, value)
    env.filters["reading"] = lambda value: reading(lang, value)
    env.filters["value_reading"] = lambda value: value_reading(lang, value)
    # pass_context: Jinja must not fold ``"世" | both`` when it compiles a template — that would run inside the
    # reply being rendered at the time (marking 世 as given there) and bake one reply's 한글(漢字)-once into all.
    # A list gives the list of each item's ``both``, in order (``tags | both | join(" ")``: one filter call
    # where ``map("both")`` is a generator and a filter look-up per item)
    env.filters["both"] = jinja2.pass_context(lambda _context, value: both_each(lang, value))
    env.filters["particle"] = _particle
    env.filters["cite"] = lambda value: cite(lang, value)
    env.filters["cite_short"] = lambda value: cite_short(lang, value)
    env.filters["passage"] = lambda value: passage(lang, value)
    env.filters["own_script"] = lambda values: own_script(lang, values)
    env.filters["series"] = lambda values: series(lang, values)
    env.filters["num"] = lambda value: numeral(lang, value)
    env.filters["signed"] = lambda value: signed(lang, value)
    env.filters["line"] = lambda value: line_name(lang, value)
    env.filters["both_values"] = jinja2.pass_context(lambda _context, params: both_values(lang, params))
    env.globals["msgid"] = msgid
    env.globals["discord_words"] = DISCORD_WORDS
    # the macros of a template of plain macros, as ``{% import name as m %}`` gives them: the module Jinja
    # renders once with the environment's globals and keeps, without the import's check of the page's globals
    # against the module's on every render (≈ 20 µs a page, issue #18); a channel's overlay has its own
    env.globals["macros"] = lambda name: env.get_template(name).module
    return env


_CJK = "\u3400-\u9fff\uf900-\ufaff"
_HALF_COLON = re.compile(rf"(?<=[{_CJK}）」』》])((?:\*\*|\*|</b>|</i>)?):[ \t]?")
# a label's colon before the /command it names (``今宿·參用δ: /settings 宿 參用δ``): full-width whatever the label
# ends in (a star's Greek letter, a value shown by its code), as after Chinese; a URL's ``://`` is not one
_COMMAND_COLON = re.compile(r"(?<=\S)((?:\*\*|\*|</b>|</i>)?):[ \t]+(?=(?:`|<code>)?/(?!/))")
_HALF_PAREN = re.compile(rf"(?<=[{_CJK}）」』》])((?:\*\*|\*|</b>|</i>)?)[ \t]?\(([^()\n]*)\)")
_SPACE_AFTER_STOP = re.compile(rf"(?<=[。；，、])[ \t]+(?=[{_CJK}])")
# 《易冒》·三, 《易冒》·七 → 《易冒》·三，《易冒》·七 (and ; → ；) between Chinese words
_HALF_COMMA = re.compile(rf"(?<=[{_CJK}）」』》])((?:\*\*|\*|</b>|</i>)?)([,;])[ \t]*(?=[{_CJK}《「『（✓✗])")
# 世 [囚 死 …] → 世 〔囚 死 …〕: square brackets around Chinese text (never a markdown link ``[…](…)``)
# (an option's metavar in a usage line, ``[--day 干支]``, keeps argparse's brackets like its neighbours)
_HALF_BRACKET = re.compile(
    rf"(?:(?<=[{_CJK}\u2500-\u257f）」』》 ])|(?<![^\n]))\[(?!-)([^\[\]\n]*[{_CJK}][^\[\]\n]*)\](?!\()"
)
# a parenthesis around Chinese text and no Latin letter, wherever it stands: (財 · 寅 · 天后 · 臨 酉), (初設) after a
# zone name, a note at a line's start (UTC+09:00) and (Asia/Seoul) keep theirs
_CJK_PAREN = re.compile(rf"(?:(?<=[^\s]) )?\((?=[^()\n]*[{_CJK}])([^()\nA-Za-z<>]*)\)")


def typeset(lang: str, text: str) -> str:
    """Full-width punctuation after Chinese characters in lzh (docs/style.md): 朱雀: 信息 → 朱雀：信息,
    亥 (遁 己) → 亥（遁 己）, also across a channel's bold/italic markup (``<b>初傳 亥</b> (遁 己):``), and no
    space after a full stop before the next sentence (``…曰斷橋。 凡占…`` → ``…曰斷橋。凡占…``). Clock times,
    /commands and Latin text keep their ASCII punctuation."""
    if lang != "lzh":
        return text
    # each rule only where its ASCII mark is in the text: a rule's pattern starts with a look-behind, which the
    # regex engine tries at every character (≈ 0.1 µs each, 5 rules: ≈ 70 µs for a 420-character page)
    if "[" in text:
        text = _HALF_BRACKET.sub(r"〔\1〕", text)
    if "(" in text:
        text = _HALF_PAREN.sub(r"\1（\2）", text)
        text = _CJK_PAREN.sub(r"（\1）", text)
    if "," in text or ";" in text:  # after the parentheses: 喪門（歲）, 旬空 → 喪門（歲），旬空
        text = _HALF_COMMA.sub(lambda m: m.group(1) + ("，" if m.group(2) == "," else "；"), text)
    text = _one_form(text)
    if "\t" in text or any(stop + " " in text for stop in "。；，、"):
        text = _SPACE_AFTER_STOP.sub("", text)
    if ":" in text:
        text = _HALF_COLON.sub(r"\1：", _COMMAND_COLON.sub(r"\1：", text))
    return text


@cache
def _variants() -> tuple[re.Pattern[str], dict[str, str], tuple[str, ...]]:
    """``locales/lzh/variants.json``: (a pattern of the avoided forms, avoided → chosen, the words kept)."""
    table = json.loads(
        resources.files("locales").joinpath("lzh", "variants.json").read_text(encoding="utf-8")
    )
    chosen = {k: v["use"] for k, v in table.items() if not k.startswith("_")}
    kept = tuple(w for k, v in table.items() if not k.startswith("_") for w in v["keep"])
    return re.compile("|".join(map(re.escape, chosen))), chosen, kept


def _one_form(text: str) -> str:
    """One form per character in lzh (docs/style.md): 眞 → 真, 克 → 剋, but in the words kept (克林)."""
    pattern, chosen, kept = _variants()
    if not pattern.search(text):
        return text
    if not any(word in text for word in kept):
        return pattern.sub(lambda m: chosen[m.group(0)], text)
    parts = re.split("(" + "|".join(map(re.escape, kept)) + ")", text)
    return "".join(p if i % 2 else pattern.sub(lambda m: chosen[m.group(0)], p) for i, p in enumerate(parts))


def render(template: str, lang: str, **context: Any) -> str:
    """Render ``templates/<template>`` in ``lang``."""
    return typeset(lang, environment(lang).get_template(template).render(**context).strip("\n"))
