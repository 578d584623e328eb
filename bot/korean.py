"""Korean particles (조사) chosen by the final sound of the word before them.

A Korean particle has two forms, picked by whether the preceding syllable ends in a consonant (받침):
을/를, 이/가, 은/는, 과/와, 으로/로 (a ㄹ-final takes 로: 달로, 서울로), 이나/나, 이라/라, 이다/다 …
(표준국어대사전, 「조사」 each entry; 한글 맞춤법 제4장). What precedes may be

- Hangul: the final consonant of its last syllable;
- 漢字 (a 干支, a term): read in Korean through ``readings`` (the ko term data of the project);
- digits: read as a Sino-Korean number (1 일, 2 이, 3 삼, 10 십, 100 백, 1000 천, 10000 만);
- Latin letters: by their Korean names (L 엘, M 엠, N 엔, R 알; the others end in a vowel but for none);
- a trailing parenthetical is skipped: 갑자(甲子)가 agrees with 갑자, the word a reader says.

Pure functions only: the readings table is passed in (``bot.i18n`` builds it from ``locales/ko``).
"""

from __future__ import annotations

from collections.abc import Mapping

# the form after a consonant, the form after a vowel (and after ㄹ for 으로)
PAIRS: dict[str, tuple[str, str]] = {
    "을": ("을", "를"),
    "이": ("이", "가"),
    "은": ("은", "는"),
    "과": ("과", "와"),
    "으로": ("으로", "로"),
    "이나": ("이나", "나"),
    "이라": ("이라", "라"),
    "이라는": ("이라는", "라는"),
    "이며": ("이며", "며"),
    "이고": ("이고", "고"),
    "이다": ("이다", "다"),
    "이면": ("이면", "면"),
    "으로서": ("으로서", "로서"),
    "으로써": ("으로써", "로써"),
}
# every spelling a caller may use names the same particle: "를" = "을", "가" = "이", "로" = "으로" …
ALIASES: dict[str, str] = {form: key for key, pair in PAIRS.items() for form in pair}

RIEUL = 8  # index of ㄹ among the 28 final consonants (0 = none)

DIGITS = "영일이삼사오육칠팔구"
# powers of ten, read: 십 백 천, then 만 (10^4 … 10^7), 억 (10^8 … 10^11), 조
POWERS = {1: "십", 2: "백", 3: "천"}

LATIN = {
    "a": "에이",
    "b": "비",
    "c": "씨",
    "d": "디",
    "e": "이",
    "f": "에프",
    "g": "지",
    "h": "에이치",
    "i": "아이",
    "j": "제이",
    "k": "케이",
    "l": "엘",
    "m": "엠",
    "n": "엔",
    "o": "오",
    "p": "피",
    "q": "큐",
    "r": "알",
    "s": "에스",
    "t": "티",
    "u": "유",
    "v": "브이",
    "w": "더블유",
    "x": "엑스",
    "y": "와이",
    "z": "제트",
}

SYMBOLS = {"%": "퍼센트", "°": "도", "′": "분", "″": "초"}

# characters a reader does not say, skipped from the end: closing quotes and brackets of a quotation
SILENT = "'\"`’”」』》〉*_~ "


def is_syllable(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def final_index(syllable: str) -> int:
    """The index (0 = none, 8 = ㄹ) of the final consonant of one Hangul syllable."""
    return (ord(syllable) - 0xAC00) % 28


def number_reading(digits: str) -> str:
    """The last spoken syllable of a number written in digits: 1 → 일, 10 → 십, 20000 → 만."""
    stripped = digits.rstrip("0")
    zeros = len(digits) - len(stripped)
    if not stripped:
        return DIGITS[0]
    if zeros == 0:
        return DIGITS[int(stripped[-1])]
    if zeros in POWERS:
        return POWERS[zeros]
    if zeros < 8:
        return "만"
    if zeros < 12:
        return "억"
    return "조"


def _strip_parenthetical(text: str) -> str:
    """갑자(甲子) → 갑자; 07:30 (Asia/Seoul) → 07:30; a text that is all parenthesis stays."""
    s = text.rstrip(SILENT)
    while s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    break
        else:
            return s
        head = s[:i].rstrip(SILENT)
        if not head:
            return s[1:-1].rstrip(SILENT) if s.startswith("(") else s
        s = head
    return s


def last_syllable(text: str, readings: Mapping[str, str]) -> str | None:
    """The Hangul syllable a reader says last in ``text``, or None when it cannot be told."""
    s = _strip_parenthetical(str(text))
    if not s:
        return None
    ch = s[-1]
    if is_syllable(ch):
        return ch
    if ch.isdigit() and ch.isascii():
        i = len(s)
        while i > 0 and s[i - 1].isascii() and s[i - 1].isdigit():
            i -= 1
        return number_reading(s[i:])
    if ch.isascii() and ch.isalpha():
        return LATIN[ch.lower()][-1]
    if ch in SYMBOLS:
        return SYMBOLS[ch][-1]
    reading = readings.get(ch)
    if reading and is_syllable(reading[-1]):
        return reading[-1]
    return None


def particle(text: object, name: str, readings: Mapping[str, str]) -> str:
    """The form of particle ``name`` (any of its spellings: 을 or 를 …) that follows ``text``.

    When the final sound cannot be told (an unknown symbol), the two forms are given the traditional way,
    ``을(를)``; the tests keep our data free of such characters.
    """
    key = ALIASES.get(name)
    if key is None:
        raise ValueError(f"unknown particle {name!r}; expected one of {sorted(ALIASES)}")
    after_consonant, after_vowel = PAIRS[key]
    syllable = last_syllable(str(text), readings)
    if syllable is None:
        return f"{after_consonant}({after_vowel})"
    final = final_index(syllable)
    if final == 0 or (final == RIEUL and key.startswith("으로")):
        return after_vowel
    return after_consonant


def attach(text: object, name: str, readings: Mapping[str, str]) -> str:
    """``text`` followed by the right form of particle ``name``: 戌 + 이 → 戌이; 子 + 이 → 子가."""
    return f"{text}{particle(text, name, readings)}"
