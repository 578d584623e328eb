"""No seed-derived Korean gloss passes the seed's machine Korean through raw (issue 33, item 3).

Each gloss of the 神煞 (``engine/shensha/data/stars.json`` for 六爻 and the 壬 summary rows,
``meanings002.json``), the 類神 (``engine/liuren/data/leishen.json``) and the 課格 (``engine/liuren/data/patterns.json``)
names its passage in ``source``. The passage's Korean is the seed's translation: the Korean paragraph(s) that follow
the Classical Chinese paragraph the source names (seed files are Chinese paragraph, blank line, Korean paragraph).

A gloss whose Korean words are 60 % or more the seed translation's words is either rewritten into Korean a
practitioner would write, or carries a ``ko_note`` that says why it stays close (a list of names that has no
other Korean, a bare term). Words are the Hangul runs of the text outside parentheses (so 「세성(歲星, 목성)」 is
one word, 세성); the share is the gloss's words found among the passage's words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED_DIR = next(
    (d for d in (ROOT.parent.parent / "shared" / "seeds", Path("/work/shared/seeds")) if d.is_dir()),
    Path("/work/shared/seeds"),
)
THRESHOLD = 0.6
# the ko_note of a gloss that stays close to the seed translation says so with this phrase and a reason after it
KEPT = "원전 번역에 가깝게 둔 까닭:"

HANGUL = re.compile(r"[\uac00-\ud7a3]")
WORD = re.compile(r"[\uac00-\ud7a3]+")
PAREN = re.compile(r"\([^()]*\)")
LEISHEN_CATEGORIES = (
    "天文",
    "地理",
    "宮室",
    "人物",
    "姓氏",
    "臟腑",
    "飲食",
    "器用",
    "數目",
    "顏色",
    "飛潛動植",
)


@cache
def seed_lines(seed: str) -> tuple[str, ...]:
    path = next(SEED_DIR.glob(f"{seed}_*.txt"))
    return tuple(path.read_text(encoding="utf-8").split("\n"))


def korean_after(seed: str, line: int) -> str:
    """The Korean paragraph that translates the Chinese paragraph on (1-based) ``line``."""
    lines = seed_lines(seed)
    i = line  # the index of the line after ``line``
    while i < len(lines) and not lines[i].strip():
        i += 1
    return lines[i] if i < len(lines) and HANGUL.search(lines[i]) else ""


def korean_between(seed: str, start: int, end: int) -> str:
    return "\n".join(t for t in seed_lines(seed)[start:end] if HANGUL.search(t))


def chinese_lines(seed: str) -> Iterator[tuple[int, str]]:
    for i, t in enumerate(seed_lines(seed)):
        if t.strip() and not HANGUL.search(t):
            yield i + 1, t


def leishen_passage(category: str) -> str:
    """Seed 002's Korean for a 類神 category: its paragraphs up to the next category."""
    lines = seed_lines("002")
    heads = [i for i, t in enumerate(lines) if any(t.startswith(f"{c} ") for c in LEISHEN_CATEGORIES)]
    start = next(i for i in heads if lines[i].startswith(f"{category} "))
    end = next((i for i in heads if i > start), len(lines))
    return korean_between("002", start, end)


def named_passage(seed: str, name: str) -> str:
    """The Korean of every Chinese paragraph of ``seed`` that names ``name`` (a 雜格 or a 神煞 heading)."""
    return "\n".join(korean_after(seed, n) for n, t in chinese_lines(seed) if name in t)


def seed003_entry(n: int) -> str:
    lines = seed_lines("003")
    heads = [i for i, t in enumerate(lines) if t.startswith("課體：")]
    return korean_between("003", heads[n - 1], heads[n] if n < len(heads) else len(lines))


def passage_of(source: str) -> str:
    """The seed Korean a ``source`` string names: 「seed 002 類神 X」, 「seed 002 格局·雜格 X」, 「seed 002 神煞 X …」,
    「seed 003 entry N」 / 「entries N, M」 (several parts joined by ``;``)."""
    out = []
    for part in source.split(";"):
        part = part.strip()
        if m := re.match(r"seed 002 類神 (\S+)", part):
            out.append(leishen_passage(m.group(1)))
        elif m := re.match(r"seed 002 (?:格局·雜格|神煞) (\S+)", part):
            out.append(named_passage("002", m.group(1)))
        elif m := re.match(r"seed 003 entr(?:y|ies) ([\d, ]+)", part):
            out.extend(seed003_entry(int(n)) for n in re.findall(r"\d+", m.group(1)))
    return "\n".join(out)


def words(text: str) -> list[str]:
    return WORD.findall(PAREN.sub("", text))


def overlap(gloss: str, passage: str) -> float:
    """The share of the gloss's words that are words of the passage."""
    own = words(gloss)
    theirs = set(words(passage))
    return sum(w in theirs for w in own) / len(own) if own else 0.0


@dataclass(frozen=True)
class Gloss:
    where: str
    ko: str
    passage: str
    ko_note: str


def _load(path: str) -> dict:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def glosses() -> list[Gloss]:
    out: list[Gloss] = []
    for s in _load("engine/shensha/data/stars.json")["stars"]:
        meaning = s.get("meaning")
        if not meaning:
            continue
        passage = "\n".join(korean_after(src["seed"], src["line"]) for src in s["source"])
        out.append(Gloss(f"stars.json {s['name']}", meaning["ko"], passage, meaning.get("ko_note", "")))
    for key, m in _load("engine/shensha/data/meanings002.json")["meanings"].items():
        out.append(Gloss(f"meanings002.json {key}", m["ko"], passage_of(m["source"]), m.get("ko_note", "")))
    for name, c in _load("engine/liuren/data/leishen.json")["categories"].items():
        passage = leishen_passage(name)
        out.append(
            Gloss(f"leishen.json {name} usage", c["usage"]["ko"], passage, c["usage"].get("ko_note", ""))
        )
        for e in c["entries"]:
            out.append(Gloss(f"leishen.json {e['id']}", e["ko"], passage, e.get("ko_note", "")))
    for p in _load("engine/liuren/data/patterns.json")["patterns"]:
        passage = passage_of(p["source"])
        for field in ("definition", "meaning"):
            out.append(
                Gloss(f"patterns.json {p['name']} {field}", p["ko"][field], passage, p.get("ko_note", ""))
            )
    return out


def located() -> list[Gloss]:
    return [g for g in glosses() if g.passage]


def test_every_seed_source_finds_its_passage() -> None:
    # a source the locator cannot read would let its gloss pass unchecked; only the 《課經》 全局 rows (no seed) lack one
    missing = [g.where for g in glosses() if not g.passage and "patterns.json" not in g.where]
    assert missing == []
    unseeded = {g.where.split()[1] for g in glosses() if not g.passage}
    assert unseeded <= {"炎上", "曲直", "從革", "稼穡"}, unseeded
    assert len(located()) > 400


def test_no_gloss_is_the_seed_translation_without_a_reason() -> None:
    bad = [
        (g.where, round(overlap(g.ko, g.passage), 2), g.ko)
        for g in located()
        if overlap(g.ko, g.passage) >= THRESHOLD and not _gives_reason(g.ko_note)
    ]
    assert bad == []


def _gives_reason(note: str) -> bool:
    if KEPT not in note:
        return False
    reason = note.split(KEPT, 1)[1]
    return len(HANGUL.findall(reason)) >= 6


def test_the_overlap_check_can_fail() -> None:
    # the seed's own sentence is 100 % itself; a rewording of it (華蓋, issue 33) is well below the bar
    passage = korean_after("000", 95)
    assert "정기 번개의 의를 취한다" in passage
    assert overlap("해의 앞 한 위는 '화개'이요 정기 번개의 의를 취한다", passage) == 1.0
    assert overlap("깃발과 일산(旌幡)을 갖춘 자리. 장성 행렬의 맨 앞 별.", passage) < THRESHOLD
    assert not _gives_reason("이전 문구: 「정기와 번개를 갖춤」")
    assert _gives_reason(f"{KEPT} 별자리 이름만 옮긴 목록이라 달리 쓸 말이 없다.")


# the wrong meanings issue 33 names: the seed's misreadings must not reach a reader
MISREADINGS = {
    "번개": "華蓋 旌幡 (flags), not lightning",
    "승천을 점침": "天馬 升遷 (promotion)",
    "(정신)": "天醫 丁神",
    "구치하는": "雷公 雨師 風雲 驅馳",
    "화환이": "天罡 河魁 禍患",
    "식물": "飲食 食物 (food), not plant",
    "계기": "往亡 戒 (a warning)",
    "절이 걸음을": "天獄 絕",
    "모산": "破碎 耗散",
    "출행하는 사람의": "往亡",
    "수장 취집": "破碎",
}


@pytest.mark.parametrize("wrong", sorted(MISREADINGS))
def test_no_misreading_of_the_seed_is_left(wrong: str) -> None:
    hits = [g.where for g in glosses() if wrong in g.ko and "leishen.json tianwen" not in g.where]
    assert hits == [], MISREADINGS[wrong]


# ---- grammar of the 課格 texts (issue 33): no calque 「'…'로 본다」, one register in an entry ----------------------

HAPNIDA = re.compile(r"(?:습니다|ㅂ니다|[가-힣]니다)\.?$")


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.。])\s+", text.strip()) if s]


def test_no_pattern_text_ends_in_the_calque_ro_bonda() -> None:
    bad = [(g.where, g.ko) for g in glosses() if re.search(r"'로(?:도)? 본다|'로도 보니", g.ko)]
    assert bad == []


def test_a_gloss_keeps_one_register() -> None:
    # glosses are 한다체 (the commentaries' voice, docs/style.md); 합니다체 belongs to the bot's own messages
    patterns = _load("engine/liuren/data/patterns.json")
    texts = [(p["name"], f"{p['ko']['definition']} {p['ko']['meaning']}") for p in patterns["patterns"]]
    texts += [(g.where, g.ko) for g in glosses()]
    bad = [(where, t) for where, t in texts if any(HAPNIDA.search(s) for s in _sentences(t))]
    assert bad == []
    assert HAPNIDA.search("원전에 따로 풀이가 없습니다.")
