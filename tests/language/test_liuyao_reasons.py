"""Issue 33 (gap 3): the Korean 六爻 reasons read as sentences a practitioner writes (「월령에 수(囚)되어 힘이 없음」,
「상대가 나를 생하나 속으로는 미워함(彼生我)」), not term by term (「월령 수(囚)」, 「피생아(彼生我)」).

The casts are a covering set found here from the engine's own tables: every kind of reason the verdict weighs
(``engine.liuyao.verdict``: each month strength of 旺相休囚死, each 日辰 relation, each 變 of the 用神, each helper,
空 破 散 暗動, the 鬼 of 000:15, and the judgments of 000:3–47 — 助鬼傷身 and its 反吉, the 局會 kinds and
strengths, 刑 真刑 墓開 and the 大凶 of 000:39, the four 六害 relations of 000:47) and the timing reason. Over
those casts, every Korean reason line of the CLI (``sikpan liuyao … --lang ko``) and of the chat's 斷 page and
first screen ends in a Korean predicate (a noun form: 함, 음, 됨 …), reads no relation formula as a word
(피생아, 아극피), and shows no run of three 漢字 outside a 한글(漢字) pair or a quotation.
"""

from __future__ import annotations

import functools
import itertools
import re

import pytest

from bot.cli.liuyao import chart_text
from bot.features.base import Reply
from bot.features.liuyao.command import liuyao_view
from bot.i18n import gettext, terms
from bot.views import render
from engine.core.cycle import Branch, all_ganzhi
from engine.liuyao import Reading, build, cast_manual
from engine.liuyao.analysis import rule
from engine.liuyao.judgments import HARM_WEIGHT
from engine.liuyao.verdict import W_DAY, W_HELPER, W_JU, W_TRANSFORM, W_VITALITY, W_XING, Reason
from tests.language.rules import hanja_runs

USES = (None, "官鬼", "妻財", "父母", "子孫", "兄弟", "lawsuit", "husband", "illness", "petition", "wife")


def kind_of(r: Reason) -> tuple[str, ...]:
    """What a reason says, at the grain its Korean sentence is chosen by."""
    p = dict(r.params)
    if r.code == "vitality":
        return ("vitality", p["vitality"])
    if r.code in ("day", "transform"):
        return (r.code, r.text)
    if r.code == "helper":
        return ("helper", r.text[:2])
    if r.code != "judgment":
        return (r.code,)
    if "ju" in p:
        return ("ju", p["type"], p["strength"])
    if "relation" in p:
        return ("harm", p["relation"])
    if "who" in p:
        return ("xing", p["type"])
    if "大凶" in r.text:
        return ("grave",)
    return ("zhu_gui", "反吉" if "反吉" in r.text else "")


def expected_kinds() -> frozenset[tuple[str, ...]]:
    """Every kind the verdict can weigh, from its tables (a 局 kind and a strength each at least once)."""
    moved = {"jin_shen", "tui_shen"}
    kinds = {("vitality", v.char) for v in W_VITALITY}
    kinds |= {("day", d) for d in W_DAY}
    kinds |= {("transform", ("化" if t in moved else "") + rule(t).lzh) for t in W_TRANSFORM}
    kinds |= {("helper", rule(h).lzh) for h in W_HELPER}
    kinds |= {(c,) for c in ("empty", "month_break", "ri_po", "chong_san", "an_dong")}
    kinds |= {(c,) for c in ("ghost_damaged", "ghost_controls_shi", "ghost_active", "grave")}
    kinds |= {("harm", relation) for relation in HARM_WEIGHT}
    kinds |= {("xing", x) for x in W_XING}
    kinds |= {("zhu_gui", ""), ("zhu_gui", "反吉")}
    kinds |= {("ju", k) for k in ("動會", "變會", "伏會")} | {("ju_strength", s) for s in W_JU}
    return frozenset(kinds)


def _kinds(reading: Reading) -> set[tuple[str, ...]]:
    out = set()
    for r in (*reading.verdict.reasons, *reading.verdict.timing):
        k = kind_of(r)
        out.add(k)
        if k[0] == "ju":
            out |= {("ju", k[1]), ("ju_strength", k[2])}
    return out


@functools.cache
def cover() -> tuple[Reading, ...]:
    """Casts that together show every expected kind: a greedy walk over the 4,096 casts, the 12 months, the 60
    days and the questions in a fixed stride order (deterministic)."""
    digits = ["".join(d) for d in itertools.product("6789", repeat=6)]
    days, months = list(all_ganzhi()), list(Branch)
    left = set(expected_kinds())
    chosen = []
    for i in range(40_000):
        cast = digits[(i * 2_654_435_761) % len(digits)]
        month, day, use = months[(i * 7) % 12], days[(i * 13) % 60], USES[(i * 5) % len(USES)]
        reading = build(cast_manual(cast), month, day, use=use)
        found = _kinds(reading) & left
        if found:
            chosen.append(reading)
            left -= found
        if not left:
            return tuple(chosen)
    raise AssertionError(f"no cast shows {sorted(left)}")


# --- the rule -------------------------------------------------------------------------------------------------

_PARENS = re.compile(r"\([^()]*\)")
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")
# a relation formula of 000:47 read character by character as if it were a word
_FORMULA = re.compile(r"(?<![\uac00-\ud7a3])[아피][생극][피아](?![\uac00-\ud7a3])")


def _noun_form(word: str) -> bool:
    """A word ending in the noun form of a predicate: its last syllable closes on ㅁ (함, 음, 됨, 큼, 림 …)."""
    return (ord(word[-1]) - 0xAC00) % 28 == 16


def term_by_term(text: str) -> list[str]:
    """What makes a Korean reason ``text`` read term by term (empty: it reads as a sentence): no predicate at the
    end (the last Korean word, parentheses and citations left out, is no noun form of a verb, or is a term such
    as 반음), a 000:47 relation formula read as a word, a run of three 漢字 outside a pair or a quotation."""
    bare = text
    while _PARENS.search(bare):
        bare = _PARENS.sub("", bare)
    words = _HANGUL_WORD.findall(bare)
    readings = {ko for hanja, ko in terms("ko").items() if len(hanja) == len(ko)}  # 반음(反吟), not 빠름(速)
    bad = []
    if not words or not _noun_form(words[-1]) or words[-1] in readings:
        bad.append(f"no predicate: {words[-1:] or text!r}")
    bad += [f"formula {m.group(0)}" for m in _FORMULA.finditer(text)]
    bad += [f"漢字 {run}" for run in hanja_runs(text)]
    return bad


def test_the_rule_fails_on_term_by_term_reasons():
    for old in (
        "-2 월령 수(囚) (《역모(易冒)》 「世爻逢旺相者弗能傷」)",
        "흉 천심육해(穿心六害) 생해(生害) 세 오 3효 ← 월건 축 (아생피(我生彼))",
        "피생아(彼生我)",
        "인오술(寅午戌) 동회(動會) 역대(力大)",
        "원신(原神) 관귀(官鬼) 4효 動",
        "기신 관귀 忌鬼三爻動·速",
        "같은 지지로 변하여 복음",
    ):
        assert term_by_term(old), old
    for said in (
        "월령에 수(囚)되어 힘이 없음",
        "상대가 나를 생하나 속으로는 미워함(彼生我)",
        "인오술(寅午戌)이 동회(動會)로 회국(會局)을 이루어 용신을 도움, 장생과 묘가 온전해 힘이 큼(力大)",
        "동효로서 일진의 충을 받아 충산(沖散)됨",
    ):
        assert term_by_term(said) == [], said


def test_the_cover_shows_every_kind():
    shown = set().union(*(_kinds(r) for r in cover()))
    assert shown >= expected_kinds()
    assert len(cover()) <= 40


# --- what users read ------------------------------------------------------------------------------------------


def _cli_reasons(reading: Reading) -> list[str]:
    """The Korean CLI's reason lines (and the timing line above them), without their weight."""
    out = chart_text(reading.to_json(), "ko").splitlines()
    head = next(
        i for i, ln in enumerate(out) if ln.startswith("  " + gettext("ko", "liuyao.verdict.ying_qi"))
    )
    end = next(i for i, ln in enumerate(out) if ln.startswith("  " + gettext("ko", "liuyao.verdict.weighed")))
    lines = [ln.strip() for ln in out[head + 1 : end] if ln.startswith("    ")]
    return [_uncited(re.sub(r"^[+-]\d+ ", "", ln)) for ln in lines]


def _uncited(line: str) -> str:
    """A reason line without the passage it cites at its end (`` (《역모(易冒)》 「…」)``)."""
    return re.split(r" \((?=[《「])", line)[0]


def _chat_reasons(reading: Reading) -> list[str]:
    """The Korean chat's reason and judgment lines: the 斷 page's (weight, direction, sentence — source) and
    the first screen's deciding ones (＋/－ sentence (source))."""
    context = dict(liuyao_view(reading))
    context.update(no=1, when=None)
    reply = Reply(view="liuyao", lang="ko", context=context)
    out = []
    verdict = render(reply, "console", "verdict").splitlines()
    head = verdict.index(gettext("ko", "chat.liuyao.reasons"))
    for ln in verdict[head + 1 :]:
        if not re.match(r"^([+-]\d+|·) ", ln) or ln == gettext("ko", "chat.liuyao.unweighed"):
            break
        out.append(ln.split(" — ")[0].split(" ", 1)[1])
    brief = render(reply, "console", "brief").splitlines()
    out += [_uncited(ln[2:]) for ln in brief if ln[:2] in ("＋ ", "－ ")]
    return out


@pytest.mark.parametrize("where", ["cli", "chat"])
def test_every_korean_reason_reads_as_a_sentence(where):
    read = _cli_reasons if where == "cli" else _chat_reasons
    bad, seen = [], 0
    for reading in cover():
        for line in read(reading):
            seen += 1
            if term_by_term(line):
                bad.append((line, term_by_term(line)))
    assert seen >= len(expected_kinds())  # every kind was read at least once
    assert bad == []


def test_a_line_gives_its_relation_and_its_line():
    """000:47 「我克彼者…志相惡爾；彼克我者…力被制爾」: the relation said from the subject's side, with its 漢字; the
    partner line of a 六害卦 named as a line (상효), never as ``6爻``."""
    harms = [r for reading in cover() for r in reading.verdict.reasons if kind_of(r)[0] == "harm"]
    for reading in cover():
        text = "\n".join(_cli_reasons(reading) + _chat_reasons(reading))
        assert "爻" not in text
    said = {
        "我生彼": "내가 상대를 생",
        "彼生我": "상대가 나를 생",
        "我克彼": "내가 상대를 극",
        "彼克我": "상대가 나를 극",
    }
    for reading in cover():
        lines = _cli_reasons(reading)
        for r in reading.verdict.reasons:
            if kind_of(r)[0] == "harm":
                relation = dict(r.params)["relation"]
                assert any(said[relation] in ln and f"({relation})" in ln for ln in lines), (relation, lines)
    assert {dict(r.params)["relation"] for r in harms} == set(HARM_WEIGHT)


def test_the_cli_trace_reads_no_formula_and_no_line_number_as_a_name():
    """The Korean CLI's judgment headings and checks name who acts and how as the reasons do (``← 상효, 상대가 나를
    극함(彼克我)``, ``진(辰)과 일진 묘(卯)가 서로 해함``), never ``피극아(彼克我)``, ``6爻`` or ``일묘(日卯)``; a check's
    values are words too (``일진 묘 자리(終)``, not ``日終``)."""
    for reading in cover():
        text = chart_text(reading.to_json(), "ko")
        assert not _FORMULA.search(text)
        checks = [ln for ln in text.splitlines() if ln.startswith(("    ✓", "    ✗"))]
        # the values of a check in words too: 일진 묘 자리(終), 괘 안, 사(巳)가 인(寅) 아래 — not 日終, 卦, 巳/寅
        bare = re.compile(r"[日月][始中終]|(?<![(\w])[卦始終](?![)\w])|[\u4e00-\u9fff]/[\u4e00-\u9fff]")
        assert [ln for ln in checks if bare.search(ln) or hanja_runs(ln)] == []
        assert not re.search(
            r"\d爻|[일월][자축인묘진사오미신유술해]\([日月][子丑寅卯辰巳午未申酉戌亥]\)", text
        )
