"""Glossary texts explain, and seed-translation typos are corrected in our data with a note (issue 15, point 4).

The typos are those of the Korean translation in seeds 002 and 003 (the Classical Chinese is untouched): the
corrected text is what a Korean reader reads, the original stays in the entry's ``ko_note``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.i18n import both
from engine.liuren.reading import glossary

ROOT = Path(__file__).resolve().parents[2]
DATA = [ROOT / "engine/shensha/data/meanings002.json", ROOT / "engine/liuren/data/readings_seed003.json"]

# the original (seed translation) → what our data says instead
TYPOS = {
    "세어 파비한다": "새어 나가 파비(破費)한다",  # 세다 (count) for 새다 (leak): 脫耗
    "송사에 섭여": "송사에 얽혀",  # 섭여: no such word; 涉 = to be drawn into
    "각치(擱置)된다": "보류된다(擱置)",  # the reading of 擱置, not a Korean verb
    "섭여한다": "관련된다",
    "단어에 이르되": "단(斷)에 이르되",  # 斷曰 read as 단어 (word)
}


def _entries():
    out = []

    def walk(o):
        if isinstance(o, dict):
            if isinstance(o.get("ko"), str):
                out.append(o)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    for path in DATA:
        walk(json.loads(path.read_text(encoding="utf-8")))
    return out


def test_no_typo_of_the_seed_translation_is_left():
    bad = [(typo, e["ko"][:60]) for e in _entries() for typo in TYPOS if typo in e["ko"]]
    assert bad == []


def test_each_correction_keeps_the_original_in_a_note():
    corrected = [e for e in _entries() if any(fix in e["ko"] for fix in TYPOS.values())]
    assert len(corrected) >= len(TYPOS)
    for e in corrected:
        assert "ko_note" in e and any(typo in e["ko_note"] for typo in TYPOS), e["ko"][:60]


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_no_gloss_is_its_headword(lang):
    # an entry explains by its text (a 神煞's keyword), a 課格's definition and meaning, a 類神 usage
    def explanation(v):
        return v.get("text") or v.get("meaning") or v.get("definition") or v.get("usage")

    bad = [(k, v) for k, v in glossary(lang).items() if explanation(v) in (v.get("name"), "", None)]
    assert bad == []
    assert len(glossary(lang)) > 300


def test_a_qualified_name_reads_as_one_label():
    # 月煞(將星): one reading and one set of characters, not 월살(장성)(月煞(將星))
    assert both("ko", "月煞(將星)") == "월살·장성(月煞·將星)"
    assert both("ko", "官符(歲)") == "관부·세(官符·歲)"
    assert both("lzh", "月煞(將星)") == "月煞(將星)"
