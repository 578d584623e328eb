"""The rule checks of what users read (issue 33 item 2), one function per rule, shared by the language tests.

- :func:`latin_words`: a Latin word beyond what a user types or a machine names (a zone, a UTC offset, a
  /command, an --option, a setting's key and value as typed);
- :func:`hanja_runs`: in ko, three or more Hanja outside a 한글(漢字) pair or a 「」 quotation;
- :func:`reading_errors`: in ko, a 한글(漢字) pair whose reading does not match its characters — by the readings
  of :func:`readings` (the project's own pairs: the term tables ``locales/ko/terms/*.json``,
  ``locales/ko/hanja.json`` and the terminology tables ``locales/terms/*.json``), and a term of those tables
  spelled otherwise than the table says;
- :func:`dueum_errors`: in ko, a Sino-Korean word that breaks the 두음 법칙 at its start (라계 → 나계);
- :func:`bare_hanja`: in ko, on a picture's line (a text with Hangul: a header, a legend, a table row), Hanja
  outside a 한글(漢字) pair (docs/style.md: "A picture's line or table row gives 한글(漢字) on the line"); a
  grid cell — characters alone, their 한글 small under them where the guide asks for it — is not a line.

The 文言 rules are ``test_wenyan``'s (digits, half-width punctuation, modern words, variants).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANJA = "\u3400-\u9fff\uf900-\ufaff"
HANGUL = "\uac00-\ud7a3"

# --- Latin ---------------------------------------------------------------------------------------------------

ALLOWED_LATIN = [
    re.compile(
        r"(?<![\w/])/[a-z_]+ \\?\[?N\\?\]?(?!\w)"
    ),  # a /command's number as its usage writes it: /show N
    re.compile(r"\b\d+(?:\.\d+)?[EWNS]\b"),  # a longitude or latitude as typed: 126.98E 37.57N
    re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?(?:[+-]\d{2}:\d{2}|Z)?)?"),  # an instant
    re.compile(r"\b[A-Z][A-Za-z]+(?:/[A-Za-z_+\-0-9]+)+"),  # an IANA zone name
    re.compile(r"\bUTC(?:[+\-−]\d{1,2}(?::\d{2})?)?"),  # UTC, a UTC offset
    re.compile(r"(?<![\w/])/[a-z_]+"),  # a /command
    re.compile(r"\bsikpan(?: [a-z]+)*(?![a-z])"),  # the CLI and its subcommands, where a reply names them
    re.compile(r"(?<![\w-])--?[a-z][a-z-]*(?:[ =][\w.:/+\-|,…]+)?"),  # an --option (with the value typed)
    re.compile(r"\b[a-z]+(?:[._][a-z]+)+\b"),  # a setting's key as typed: liuren.gui_rule, day_starts
    re.compile(r"\[[A-Z_|]+\]|\b[A-Z]{2,}(?:_[A-Z]+)*\b"),  # argparse's metavars: COMMAND, ISO, NAME=VALUE
    re.compile(r"<[a-z/][^>]*>"),  # Telegram HTML markup
    re.compile(r"\b\d+(?:\.\d+)?°/d\b"),  # a daily motion (degrees a day)
]
LATIN_WORD = re.compile(r"[A-Za-z]+")


def latin_words(line: str, said: str = "", typed_words: tuple[str, ...] = ()) -> list[str]:
    """The Latin words of ``line`` beyond the allow-list, what the user typed (``said``) and the option values
    a user types (``typed_words``: /settings values, CLI choices)."""
    for token in sorted(said.split(), key=len, reverse=True):
        if not token.startswith("/") and re.search("[A-Za-z]", token):
            line = re.sub(rf"(?<![/\w]){re.escape(token)}(?!\w)", " ", line)
    for pattern in ALLOWED_LATIN:
        line = pattern.sub(" ", line)
    return [w for w in LATIN_WORD.findall(line) if w not in typed_words]


# --- Hanja runs (ko) -----------------------------------------------------------------------------------------

PAIR = re.compile(
    rf"([{HANGUL}][{HANGUL}·\s]*)\(([{HANJA}·]+)(?:, [^()]*)?\)"
)  # 한글(漢字), 한글(漢字, 풀이)
QUOTE = re.compile(r"「[^」]*」")
# a command line as the user types it (/cast 庚辰 亥將 午時): input, like the Latin a user types
TYPED_COMMAND = re.compile(rf"/[a-z_]+(?:[ \t]+[{HANJA}\w:.\-]+)+")
HANJA_RUN = re.compile(rf"[{HANJA}](?:[{HANJA}\s·]*[{HANJA}]){{2,}}")


def hanja_runs(line: str) -> list[str]:
    """Runs of three or more Hanja (spaces and · between them) outside a 한글(漢字) pair or a 「」 quotation."""
    line = QUOTE.sub(" ", PAIR.sub(" ", re.sub(r"</?[a-z]+>|\*\*|`", "", line)))
    line = TYPED_COMMAND.sub(" ", line)
    return [
        m.group(0)
        for m in HANJA_RUN.finditer(line)
        if sum(ch.strip() != "" and ch != "·" for ch in m.group(0)) >= 3
    ]


# --- readings (ko) -------------------------------------------------------------------------------------------

_CHO = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
_JUNG_Y = {2, 6, 7, 12, 17, 20}  # ㅑ ㅕ ㅖ ㅛ ㅠ ㅣ: ㄴ and ㄹ before them become ㅇ at a word's start


def _parts(syllable: str) -> tuple[int, int, int]:
    code = ord(syllable) - 0xAC00
    return code // 588, (code % 588) // 28, code % 28


def _join(cho: int, jung: int, jong: int) -> str:
    return chr(0xAC00 + cho * 588 + jung * 28 + jong)


def dueum(syllable: str) -> str:
    """The syllable as a word's start writes it (한글 맞춤법 제10–12항): 녀→여, 려→여, 라→나, 뢰→뇌, 리→이."""
    if not re.fullmatch(f"[{HANGUL}]", syllable):
        return syllable
    cho, jung, jong = _parts(syllable)
    if cho == 5:  # ㄹ
        return _join(11 if jung in _JUNG_Y else 2, jung, jong)
    if cho == 2 and jung in _JUNG_Y:  # ㄴ before ㅣ/ㅑ/ㅕ/ㅛ/ㅠ
        return _join(11, jung, jong)
    return syllable


def _pairs_of(table: object) -> list[tuple[str, str]]:
    out = []
    if isinstance(table, dict):
        for key, value in table.items():
            if isinstance(value, str) and not key.startswith("_"):
                out.append((key, value))
    return out


@functools.cache
def term_rows() -> tuple[dict[str, object], ...]:
    rows: list[dict[str, object]] = []
    for path in sorted((ROOT / "locales" / "terms").glob("*.json")):
        rows += json.loads(path.read_text(encoding="utf-8"))["terms"]
    return tuple(rows)


@functools.cache
def readings() -> dict[str, frozenset[str]]:
    """Each character's readings as the project's own pairs give them, in the form inside a word (a reading
    seen only at a word's start is kept too: 雷 뇌 from 뇌풍항 — then 뢰 inside a word is its 두음 pair)."""
    pairs: list[tuple[str, str]] = []
    for path in sorted((ROOT / "locales" / "ko" / "terms").glob("*.json")):
        pairs += _pairs_of(json.loads(path.read_text(encoding="utf-8")))
    pairs += _pairs_of(json.loads((ROOT / "locales" / "ko" / "hanja.json").read_text(encoding="utf-8")))
    for row in term_rows():
        pairs.append((str(row["hanja"]), str(row["ko"])))
    # a character's other reading where its word asks for it (표준국어대사전), with the word that shows it
    for line in (
        (Path(__file__).parent / "data" / "hanja_readings.tsv").read_text(encoding="utf-8").splitlines()
    ):
        if line.strip() and not line.startswith("#"):
            ch, reading, _word = (line.split("\t") + ["", ""])[:3]
            pairs.append((ch, reading))
    table: dict[str, set[str]] = {}
    for hanja, ko in pairs:
        hanja, ko = hanja.replace("·", ""), ko.replace("·", "").replace(" ", "")
        if (
            len(hanja) != len(ko)
            or not re.fullmatch(f"[{HANJA}]+", hanja)
            or not re.fullmatch(f"[{HANGUL}]+", ko)
        ):
            continue
        for ch, reading in zip(hanja, ko, strict=True):
            table.setdefault(ch, set()).add(reading)
    return {ch: frozenset(rs) for ch, rs in table.items()}


def _reads(ch: str, syllable: str, start: bool) -> bool | None:
    """Whether ``syllable`` reads ``ch`` (None: the table does not know ``ch``)."""
    known = readings().get(ch)
    if known is None:
        return None
    if syllable in known:
        return True
    # the table may hold the form at a word's start (이 for 離) or inside a word (리): one is the other's 두음
    if start and any(dueum(r) == syllable for r in known):
        return True
    return not start and dueum(syllable) in known and syllable != dueum(syllable)


@functools.cache
def _spelled() -> dict[str, tuple[str, str]]:
    """A term's other spelling → (its reading, its characters): 局會 → (회국, 會局)."""
    out = {}
    for row in term_rows():
        for other in row.get("spelled", ()) or ():  # type: ignore[attr-defined]
            if other != row["hanja"] and re.fullmatch(f"[{HANJA}]+", str(other)):
                out[str(other)] = (str(row["ko"]), str(row["hanja"]))
    return out


# characters "read" as themselves: a term a ko text meant to give as 한글(漢字) whose reading was not found (乾(乾))
UNREAD = re.compile(rf"([{HANJA}]+)\(\1\)")


def reading_errors(line: str) -> list[str]:
    """The 한글(漢字) pairs of ``line`` whose reading does not match the characters: a character read otherwise
    than every pair of the project reads it (막월(驀越), 관재(官非)), a term of the terminology tables given
    under another spelling (국회(局會): the term is 회국(會局)), or characters given as their own reading
    (乾(乾))."""
    bad = [m.group(0) for m in UNREAD.finditer(line)]
    for m in PAIR.finditer(re.sub(r"</?[a-z]+>|\*\*", "", line)):
        words, hanja = m.group(1).split(), m.group(2)
        ko = words[-1].replace("·", "") if words else ""
        chars = hanja.replace("·", "")
        pair = f"{ko}({hanja})"
        if chars in _spelled() and _spelled()[chars][1] != chars:
            bad.append(pair)
            continue
        if len(ko) != len(chars):
            continue  # a reading that is a name of its own (낮(晝) is one syllable), or a qualifier
        # a syllable after · starts a word of its own (순·역·유(順逆留))
        starts = [k == 0 or words[-1][k - 1] == "·" for k, ch in enumerate(words[-1]) if ch != "·"]
        read = [
            _reads(ch, syllable, starts[i]) for i, (ch, syllable) in enumerate(zip(chars, ko, strict=True))
        ]
        # a pair some syllable of which reads its character is a reading (막월(驀越): 월 is 越), and every
        # syllable must then read its character; none: a Korean word glossed by the classical one (논밭(田土))
        if True in read and False in read:
            bad.append(pair)
    return bad


# --- a picture's lines (ko) -----------------------------------------------------------------------------------

HANGUL_CHAR = re.compile(f"[{HANGUL}]")
HANJA_CHARS = re.compile(f"[{HANJA}]+")


def bare_hanja(text: str) -> list[str]:
    """The Hanja of a ko picture's line (a text with Hangul) outside a 한글(漢字) pair or a 「」 quotation; a grid
    cell (no Hangul: 戊子, 官鬼, a 天將) is left to the guide's own rule for cells."""
    if not HANGUL_CHAR.search(text):
        return []
    return HANJA_CHARS.findall(QUOTE.sub(" ", PAIR.sub(" ", text)))


# --- the 두음 법칙 (ko) -------------------------------------------------------------------------------------------

# a word's first syllable with ㄹ, or ㄴ before ㅣ/ㅑ/ㅕ/ㅛ/ㅠ (라계, 려명, 녀, 뉴): Sino-Korean words write them ㄴ/ㅇ
_WORD_START = re.compile(rf"(?<![{HANGUL}{HANJA}\w)\]>」』’'\"%°])([{HANGUL}])([{HANGUL}]*)")


# the syllables issue 33 names (라계 → 나계, 려명 → 여명): flagged at a word's start even when no pair of ours
# gives their character; others (닢, 링크) only when they read some character of the readings table
DUEUM_LISTED = frozenset("라로리래락란랑녀뇨뉴니랴려례료류")


def dueum_errors(line: str) -> list[str]:
    """The words of ``line`` that break the 두음 법칙 at their start: a Sino-Korean word (one given with its
    characters, or two syllables and more) opening with ㄹ, or with 녀 뇨 뉴 니 (라계, 려명, 뉴월)."""
    bad = []
    text = re.sub(r"</?[a-z]+>|\*\*", " ", line)
    sino = {r for rs in readings().values() for r in rs}  # the syllables that read some character
    for m in _WORD_START.finditer(text):
        first, rest = m.group(1), m.group(2)
        after = text[m.end() : m.end() + 3]
        if re.match(rf"\([{HANJA}]\)", after) and not rest:
            continue  # a character named by its sound (계집 녀(女) 변, 「력(力)」): a name, not a word
        listed = first in DUEUM_LISTED  # no native word starts so: always Sino-Korean (or a slip)
        if dueum(first) != first and (listed or first in sino) and (rest or after.startswith("(")):
            bad.append(first + rest)
    return bad
