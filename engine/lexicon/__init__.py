"""The words people ask with, mapped to what the engines read (data/lexicon.json, each entry with its seed).

For 六爻 a word names a 用神: a 六親 (妻財 …), the 世, or a question category of ``engine.liuyao`` (its
data/categories.json: 求財, 詞訟 (000:39), 男娶 / 女嫁 …); for 大六壬 a topic of seed 003 (天時 家宅 婚姻 胎產
功名 求財 疾病 失脫 出行 行人 爭訟 投謁) with the 類神 heading seed 002 gives that question (天時 → 天文 …), or
one of the eleven 類神 headings themselves.

- :func:`resolve` ``(word, art) -> Match | None``: the word, its spacing, middle dots and punctuation aside,
  simplified forms read as traditional, a trailing 운/運/점/占 dropped, Hanja also found by its Hangul reading
  (求財 = 구재);
- :func:`suggest` ``(word, art) -> tuple[Match, ...]``: the closest targets, for a word that is not known (or
  one the seed splits by the asker, 婚姻 in 六爻: 男娶謂財、女嫁謂官).

Pure: nothing here reads the user or the clock. Targets are what the engines accept as they are: the 六爻
``use`` string (``engine.liuyao.build(…, use=…)``) and the 大六壬 類神 heading (``leishen.check_category``).
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from engine.datafiles import load_json
from engine.errors import EngineInputError
from engine.liuren import leishen
from engine.liuyao.categories import categories

Art = Literal["liuyao", "liuren"]
ARTS: tuple[Art, ...] = ("liuyao", "liuren")


@dataclass(frozen=True, slots=True)
class Match:
    """What a word names in one art.

    ``target``: 六爻 — the ``use`` the engine reads (a 六親 such as ``"妻財"``, ``"世"``, or a category id such
    as ``"lawsuit"``); 大六壬 — the topic (``"婚姻"``) or, for a 類神 heading asked by name, the heading.
    ``topic``: the 大六壬 topic (None for a bare heading, and in 六爻). ``heading``: the 類神 heading the chart
    shows for it (None when seed 002 names none for the topic). ``ko`` / ``lzh``: the target's own name.
    ``word``: what was typed (None for a suggestion not typed).
    """

    art: Art
    target: str
    kind: str  # 六爻: "relative" | "shi" | "category"; 大六壬: "topic" | "heading"
    ko: str
    lzh: str
    source: str
    topic: str | None = None
    heading: str | None = None
    word: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "art": self.art,
            "target": self.target,
            "kind": self.kind,
            "ko": self.ko,
            "lzh": self.lzh,
            "source": self.source,
            "topic": self.topic,
            "heading": self.heading,
            "word": self.word,
        }


def _data() -> Mapping[str, Any]:
    data: Mapping[str, Any] = load_json("engine.lexicon", "lexicon.json")
    return data


# simplified characters people type for the traditional ones of the seeds
_TRADITIONAL = str.maketrans(
    {
        "财": "財", "孙": "孫", "讼": "訟", "产": "產", "时": "時", "脱": "脫", "谒": "謁", "钱": "錢",
        "医": "醫", "药": "藥", "书": "書", "约": "約", "妇": "婦", "词": "詞", "诉": "訴", "狱": "獄",
        "问": "問", "贵": "貴", "见": "見", "归": "歸", "遗": "遺", "窃": "竊", "盗": "盜", "远": "遠",
        "旅": "旅", "缘": "緣", "亲": "親", "儿": "兒", "职": "職", "迁": "遷", "举": "舉", "试": "試",
        "来": "來", "怀": "懷", "气": "氣", "货": "貨", "婚": "婚", "宫": "宮", "脏": "臟", "饮": "飲",
        "颜": "顏", "数": "數", "飞": "飛", "潜": "潛", "动": "動", "杂": "雜",
    }
)  # fmt: skip
_DROP = frozenset(" \t\u3000·・‧•･∙⋅.,、，。:：;；'\"「」『』《》〈〉()（）[]【】!！?？~〜-_/")
_SUFFIXES = ("운", "運", "점", "占", "문제", "관련", "일")


def normalize(word: str) -> str:
    """The key of a word: NFKC, lower case, without spaces, middle dots and punctuation, traditional forms."""
    text = unicodedata.normalize("NFKC", word).lower().translate(_TRADITIONAL)
    return "".join(ch for ch in text if ch not in _DROP)


def _is_hanja(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def reading(key: str) -> str | None:
    """The Hangul reading of a key with Hanja in it (each Hanja by data/lexicon.json ``readings``), or None
    when it has no Hanja or one without a reading."""
    table: Mapping[str, str] = _data()["readings"]
    if not any(_is_hanja(ch) for ch in key):
        return None
    out = []
    for ch in key:
        if _is_hanja(ch):
            if ch not in table:
                return None
            out.append(table[ch])
        else:
            out.append(ch)
    return "".join(out)


# ---- the targets ------------------------------------------------------------------------------------------


@cache
def _targets(art: Art) -> Mapping[str, Match]:
    """Every target of an art by its ``target`` string, with its own names and source."""
    data = _data()
    out: dict[str, Match] = {}
    if art == "liuyao":
        for name, v in data["liuyao"].items():
            kind = "shi" if name == "世" else "relative"
            out[name] = Match("liuyao", name, kind, v["ko"], name, v["source"])
        for cat in categories().values():
            out[cat.id] = Match("liuyao", cat.id, "category", cat.ko, cat.lzh, cat.source)
    else:
        headings: Mapping[str, Any] = load_json("engine.liuren", "leishen.json")["categories"]
        for name, v in data["topics"].items():
            heading = v["heading"]
            if heading is not None:
                leishen.check_category(heading)
            out[name] = Match("liuren", name, "topic", v["ko"], name, v["source"], name, heading)
        for heading in leishen.categories():
            if heading in out:
                raise EngineInputError("error.lexicon.data", f"a topic and a 類神 heading share {heading}")
            entry = headings[heading]
            out[heading] = Match(
                "liuren", heading, "heading", str(entry["ko"]), heading, str(entry["source"]), None, heading
            )
    return out


def targets(art: str) -> tuple[Match, ...]:
    """Every target of ``art`` in the data's order (六爻: the 六親, 世, then the categories; 大六壬: the
    topics, then the 類神 headings)."""
    return tuple(_targets(_check_art(art)).values())


def topics() -> tuple[Match, ...]:
    """The 大六壬 topics of seed 003, in its order (天時 … 投謁)."""
    return tuple(m for m in targets("liuren") if m.kind == "topic")


def _check_art(art: str) -> Art:
    if art not in ARTS:
        raise EngineInputError("error.lexicon.bad_art", f"unknown art {art!r}", value=art)
    return "liuyao" if art == "liuyao" else "liuren"


# ---- the index of words -----------------------------------------------------------------------------------


@cache
def _index(art: Art) -> Mapping[str, tuple[str, ...]]:
    """Key (and the Hangul reading of a Hanja key) → the targets it names (several: the asker decides)."""
    found: dict[str, list[str]] = {}
    by_reading: dict[str, list[str]] = {}

    def add(word: str, names: tuple[str, ...], own_name: bool = False) -> None:
        key = normalize(word)
        if not key or (own_name and key in found):  # 父母 the 六親 before 父母 the category (the same 用)
            return
        have = found.setdefault(key, [])
        have.extend(n for n in names if n not in have)
        said = reading(key)
        if said is not None:
            also = by_reading.setdefault(said, [])
            also.extend(n for n in names if n not in also)

    own = _targets(art)
    for match in own.values():  # each target by its own names (and a category's id)
        for name in (match.target, match.ko, match.lzh):
            add(name, (match.target,), own_name=True)
        if match.kind == "heading":
            add(leishen.category_id(match.target), (match.target,), own_name=True)
    for entry in _data()["words"]:
        value = entry[art]
        if value is None:
            continue
        names = tuple(value) if isinstance(value, list) else (str(value),)
        for name in names:
            if name not in own:
                raise EngineInputError("error.lexicon.data", f"{art} target {name!r} unknown")
        for word in (*entry["ko"], *entry["lzh"]):
            add(word, names)
    index = {k: tuple(v) for k, v in found.items()}
    for key, said in by_reading.items():  # a reading never overrides a word typed as such
        index.setdefault(key, tuple(said))
    return index


def _lookup(key: str, art: Art) -> tuple[str, ...]:
    index = _index(art)
    for candidate in (key, reading(key)):
        if candidate and candidate in index:
            return index[candidate]
    return ()


def _named(key: str, art: Art) -> tuple[str, ...]:
    found = _lookup(key, art)
    if found:
        return found
    for suffix in _SUFFIXES:  # 재물운, 婚姻占, 소송 문제 …
        if key.endswith(suffix) and len(key) > len(suffix):
            found = _lookup(key[: -len(suffix)], art)
            if found:
                return found
    return ()


def named(word: str, art: str) -> tuple[Match, ...]:
    """Every target ``word`` names in ``art``: none (unknown), one, or several where the seed leaves the choice
    to the asker (婚姻 in 六爻: 「男娶謂財、女嫁謂官」, 000:39 注)."""
    checked = _check_art(art)
    own = _targets(checked)
    return tuple(_as_typed(own[n], word) for n in _named(normalize(word), checked))


def resolve(word: str, art: str) -> Match | None:
    """The target ``word`` names in ``art`` ("liuyao" | "liuren"), or None: unknown, or the seed decides it
    by something the word does not say (婚姻 in 六爻: 男娶 or 女嫁 — see :func:`suggest`)."""
    checked = _check_art(art)
    found = _named(normalize(word), checked)
    if len(found) != 1:
        return None
    match = _targets(checked)[found[0]]
    return _as_typed(match, word)


def _as_typed(match: Match, word: str | None) -> Match:
    return Match(
        match.art,
        match.target,
        match.kind,
        match.ko,
        match.lzh,
        match.source,
        match.topic,
        match.heading,
        word,
    )


def _jamo(text: str) -> str:
    """Hangul syllables as their jamo (a typo of one letter stays close), others as they are."""
    return unicodedata.normalize("NFD", text)


def suggest(word: str, art: str, limit: int = 6, fallback: bool = True) -> tuple[Match, ...]:
    """The targets closest to ``word`` in ``art``, best first (at most ``limit``): the ones the word names
    when the seed leaves the choice to the asker, then by similarity of the typed word to the known words
    (letters of Hangul compared one by one); when nothing is close, the first targets of the art (六爻 its
    categories, 大六壬 its topics), so a reply always has something to offer — or nothing, ``fallback``
    False (is the word a question at all?)."""
    checked = _check_art(art)
    own = _targets(checked)
    key = normalize(word)
    chosen: list[str] = list(_named(key, checked)) if key else []
    scores: dict[str, float] = {}
    if key:
        typed = [key]
        said = reading(key)
        if said is not None:
            typed.append(said)
        for known, names in _index(checked).items():
            best = max(_similarity(t, known) for t in typed)
            for name in names:
                scores[name] = max(scores.get(name, 0.0), best)
    ranked = sorted((n for n, s in scores.items() if s >= 0.7 and n not in chosen), key=lambda n: -scores[n])
    chosen += ranked
    if not chosen and fallback:
        kind = "category" if checked == "liuyao" else "topic"
        chosen = [m.target for m in own.values() if m.kind == kind]
    return tuple(_as_typed(own[n], None) for n in chosen[:limit])


def _similarity(typed: str, known: str) -> float:
    """0 … 1: the start of a known word (결 of 결혼, as one types), a known word of two or more letters inside
    the typed one (재물 in 재물사정) or the typed one inside a known word counts at least 0.6; else the ratio of their common letters (Hangul by jamo)."""
    if not typed or not known:
        return 0.0
    if known.startswith(typed) or (min(len(typed), len(known)) >= 2 and (typed in known or known in typed)):
        return 0.6 + 0.4 * min(len(typed), len(known)) / max(len(typed), len(known))
    return difflib.SequenceMatcher(None, _jamo(typed), _jamo(known)).ratio()


# ---- the words of a sentence ------------------------------------------------------------------------------

# what follows a one-letter Hangul word that still stands alone (돈이, 병은, 집에서, 재운): the particles, and
# the 운/점 the lexicon drops after a word; anything else after it makes it a piece of a longer word (돈까스,
# 병문안, 집값, 비싸다)
_PARTICLES = frozenset(
    {
        "", "이", "가", "은", "는", "을", "를", "에", "에서", "에게", "한테", "의", "도", "만", "과", "와",
        "로", "으로", "이랑", "랑", "하고", "까지", "부터", "이나", "나", "이야", "야", "이요", "요", "은요",
        "는요", "이면", "면", "운", "점",
    }
)  # fmt: skip


def _is_hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


@cache
def _sentence_words(art: Art) -> Mapping[str, tuple[str, ...]]:
    """The keys :func:`in_sentence` looks for: the index's words in Hangul or Hanja (not a Latin id), and
    the Hangul reading of a Hanja word only when it has two letters or more (one syllable read alone —
    가 of 家, 의 of 醫, 산 of 產 — is a particle or another word far more often than the Hanja)."""
    out: dict[str, tuple[str, ...]] = {}
    for key, names in _index(art).items():
        if not any(_is_hangul(ch) or _is_hanja(ch) for ch in key):
            continue
        if len(key) == 1 and _is_hangul(key) and key not in _hangul_typed(art):
            continue
        out[key] = names
    return out


@cache
def _hangul_typed(art: Art) -> frozenset[str]:
    """The one-syllable Hangul words the data lists as typed (``ko`` of its words, a target's own ko name)."""
    typed: set[str] = set()
    for match in _targets(art).values():
        typed.add(normalize(match.ko))
    for entry in _data()["words"]:
        if entry[art] is not None:
            typed.update(normalize(w) for w in entry["ko"])
    return frozenset(w for w in typed if len(w) == 1)


def in_sentence(text: str, art: str) -> tuple[Match, ...]:
    """The targets the words of a free sentence name in ``art``, in order of appearance (a word the seed
    leaves to the asker gives each of its targets, as :func:`named`).

    The sentence is read NFKC-normalized, lower case, simplified forms as traditional (as :func:`normalize`);
    at each position the longest word of the lexicon there wins (its Hangul and Hanja words and the targets'
    own names, and the Hangul reading of a Hanja word of two letters or more: 구재 = 求財), then the reading
    goes on after it. Korean is agglutinative: a word followed by a particle or an ending counts (재물운,
    결혼할까요, 이사가도, 시험에), and so does a word of two letters or more inside a longer run (오늘재물운,
    written without spaces). The guard is for one letter:

    - a one-syllable Hangul word (돈, 병, 집, 비) counts only as a whole word, or followed by a particle or
      운/점 (돈이, 병은, 집에서, 재운): 「돈까스」 is no 돈, 「병문안」 no 병, 「비싸다」 no 비 — a syllable of
      Korean is far more often a piece of another word than a word; the readings of one Hanja alone are
      never looked for (가 of 家 is a particle);
    - a one-character Hanja word (財, 病, 行) counts wherever no longer word covers it: 文言 is written without
      spaces and a single character is its ordinary word (「病可愈否」), so only the longest match guards it
      (出行 before 行).
    """
    checked = _check_art(art)
    words = _sentence_words(checked)
    own = _targets(checked)
    return tuple(_as_typed(own[name], key) for key in spot(text, words) for name in words[key])


def spot(text: str, words: Collection[str]) -> tuple[str, ...]:
    """The ``words`` (keys as :func:`normalize` makes them) a free sentence holds, in order of appearance, as
    :func:`in_sentence` finds the lexicon's: the longest at each position, a one-syllable Hangul word only
    alone or followed by a particle (괘를 is 괘, 괘씸 is not)."""
    longest = max((len(k) for k in words), default=0)
    line = unicodedata.normalize("NFKC", text).lower().translate(_TRADITIONAL)
    found: list[str] = []
    at = 0
    while at < len(line):
        size = next(
            (
                n
                for n in range(min(longest, len(line) - at), 0, -1)
                if line[at : at + n] in words and _stands(line, at, n)
            ),
            0,
        )
        if size == 0:
            at += 1
            continue
        found.append(line[at : at + size])
        at += size
    return tuple(found)


def _stands(line: str, at: int, size: int) -> bool:
    """Whether the word ``line[at:at+size]`` stands as a word there (:func:`in_sentence`'s guard)."""
    if size > 1 or not _is_hangul(line[at]):
        return True
    if at > 0 and str.isalnum(line[at - 1]):
        return False
    end = at + size
    while end < len(line) and str.isalnum(line[end]):
        end += 1
    return line[at + size : end] in _PARTICLES


__all__ = [
    "ARTS",
    "Art",
    "Match",
    "in_sentence",
    "named",
    "normalize",
    "reading",
    "resolve",
    "spot",
    "suggest",
    "targets",
    "topics",
]
