"""engine.lexicon.in_sentence: the topic words of a free sentence (a user asks in their own words).

Expected targets are the data's own seed mappings (engine/lexicon/data/lexicon.json ``words``: each word with
the 大六壬 topic of seed 003's topic lines and the 六爻 用神 of seed 000 / 《增刪卜易》), looked up by the word
the sentence holds — never our own output.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from engine import lexicon


def _data():
    return json.loads(resources.files("engine.lexicon").joinpath("data", "lexicon.json").read_text("utf-8"))


def seeded(word: str, art: str) -> str:
    """The target the data's seed line gives ``word`` in ``art`` (the one entry listing it)."""
    [entry] = [e for e in _data()["words"] if word in e["ko"] or word in e["lzh"]]
    value = entry[art]
    assert isinstance(value, str) and entry["source"]
    return value


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        ("오늘 재물운 어때?", "재물"),  # 운 after the word
        ("내일 면접 붙을까", "면접"),
        ("今日出行吉否", "出行"),  # 出行 before 行
        ("결혼해도 될까요", "결혼"),  # an ending after the word
        ("어머니 병이 나을까", "병"),  # one syllable + a particle
        ("시험에 붙을까요", "시험"),
        ("이사가도 될까", "이사"),
        ("오늘재물운", "재물"),  # written without spaces
        ("病可愈否", "病"),  # one Hanja in 文言
    ],
)
def test_a_sentence_names_the_topic_its_word_has_in_the_seed(sentence, word):
    found = lexicon.in_sentence(sentence, "liuren")
    assert found and found[0].word == word
    assert found[0].target == seeded(word, "liuren")
    assert found[0].source == _data()["topics"][found[0].target]["source"]  # seed 003's topic line


def test_the_seed_003_topics_of_the_fixed_questions():
    """The brief's sentences against seed 003's topic names themselves."""
    assert lexicon.in_sentence("오늘 재물운 어때?", "liuren")[0].target == "求財"
    # 「功名：八月占科第，升遷吉」
    assert lexicon.in_sentence("내일 면접 붙을까", "liuren")[0].target == "功名"
    assert lexicon.in_sentence("今日出行吉否", "liuren")[0].target == "出行"
    assert lexicon.in_sentence("결혼해도 될까요", "liuren")[0].target == "婚姻"
    assert lexicon.in_sentence("어머니 병이 나을까", "liuren")[0].target == "疾病"


def test_no_topic_gives_nothing():
    assert lexicon.in_sentence("오늘 기분 어때?", "liuren") == ()
    assert lexicon.in_sentence("안녕하세요", "liuyao") == ()
    assert lexicon.in_sentence("", "liuren") == ()


def test_two_topics_in_their_order():
    found = lexicon.in_sentence("이사 가면 돈이 모일까", "liuren")
    assert [m.word for m in found] == ["이사", "돈"]
    assert [m.target for m in found] == [seeded("이사", "liuren"), seeded("돈", "liuren")]
    backwards = lexicon.in_sentence("돈이 모이면 이사 갈까", "liuren")
    assert [m.target for m in backwards] == [seeded("돈", "liuren"), seeded("이사", "liuren")]


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        ("돈까스 먹을까", "돈"),  # 까스 is no particle: a piece of another word
        ("병문안 갈까", "병"),
        ("집값 오를까", "집"),
        ("비싸다", "비"),
        ("할인돈", "돈"),  # a letter before it
    ],
)
def test_one_syllable_inside_another_word_is_not_that_word(sentence, word):
    assert len(word) == 1 and seeded(word, "liuren")  # a word the data does list
    assert all(m.word != word for m in lexicon.in_sentence(sentence, "liuren"))


@pytest.mark.parametrize("sentence", ["돈", "돈?", "돈이 들어올까", "돈은", "돈에서", "재운 어때"])
def test_one_syllable_alone_or_with_a_particle_is_that_word(sentence):
    word = sentence[0]
    [first, *_] = lexicon.in_sentence(sentence, "liuren")
    assert first.word == word and first.target == seeded(word, "liuren")


def test_the_reading_of_one_hanja_alone_is_not_looked_for():
    """가 (家), 산 (產), 의 (醫) are particles or other words; the readings of longer Hanja words count."""
    assert lexicon.in_sentence("산에 가도 될까", "liuren") == ()
    assert lexicon.in_sentence("구재 어떨까", "liuren")[0].target == "求財"  # 求財 read in Hangul


def test_a_word_the_seed_leaves_to_the_asker_gives_each_target():
    # 000:39 注「男娶謂財、女嫁謂官」: 婚姻 in 六爻 is decided by who asks
    found = lexicon.in_sentence("결혼해도 될까요", "liuyao")
    assert {m.target for m in found} == set(seeded_list("결혼", "liuyao"))


def seeded_list(word: str, art: str) -> list[str]:
    [entry] = [e for e in _data()["words"] if word in e["ko"]]
    return list(entry[art])


def test_simplified_and_full_width_forms():
    assert lexicon.in_sentence("求财可得否", "liuren")[0].target == "求財"
    assert lexicon.in_sentence("ｏｋ 재물？", "liuren")[0].word == "재물"
