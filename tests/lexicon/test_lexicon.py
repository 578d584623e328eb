"""engine.lexicon (issue 32 item 1): the words people ask with reach the 用神 / topic the seeds give them.

Expected values are the seeds': 000:39 「官克世而問訟」 and its 注 「男娶謂財、女嫁謂官」, 000:11 「以財為利」
「若女占夫而官星為用者」 「占官驟升」, 000:15 「占訟…占失…出行…占疾病…總之以鬼為忌者」; seed 003's topic lines
(天時：… 投謁：…) and seed 002's 「凡占天時晴雨」「凡占家宅吉凶」「凡占疾病…」 (the 類神 heading of a topic).
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from engine import lexicon
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuren import leishen
from engine.liuyao import build, cast_manual

SEED003_TOPICS = (
    "天時",
    "家宅",
    "婚姻",
    "胎產",
    "功名",
    "求財",
    "疾病",
    "失脫",
    "出行",
    "行人",
    "爭訟",
    "投謁",
)


def _data():
    return json.loads(resources.files("engine.lexicon").joinpath("data", "lexicon.json").read_text("utf-8"))


def test_the_topics_are_seed_003s_in_its_order():
    assert tuple(m.target for m in lexicon.topics()) == SEED003_TOPICS


def test_every_topic_is_a_heading_of_seed_003s_readings():
    doc = json.loads(
        resources.files("engine.liuren").joinpath("data", "readings_seed003.json").read_text("utf-8")
    )
    text = "".join(str(e["sections"]) for e in doc["entries"])
    for topic in SEED003_TOPICS:
        assert f"{topic}：" in text, topic


@pytest.mark.parametrize(
    ("topic", "heading"),
    [
        ("天時", "天文"),
        ("家宅", "宮室"),
        ("疾病", "臟腑"),
    ],  # 002: 「凡占天時晴雨」「凡占家宅吉凶」「凡占疾病…」
)
def test_a_topic_reads_the_leishen_heading_seed_002_names_for_it(topic, heading):
    m = lexicon.resolve(topic, "liuren")
    assert m is not None and m.topic == topic and m.heading == heading
    usage = leishen_usage(heading)
    assert topic[:1] in usage and usage.startswith("凡占")


def leishen_usage(heading: str) -> str:
    doc = json.loads(resources.files("engine.liuren").joinpath("data", "leishen.json").read_text("utf-8"))
    return str(doc["categories"][heading]["usage"]["lzh"])


@pytest.mark.parametrize(
    ("word", "target"),
    [
        ("처재", "妻財"), ("妻財", "妻財"), ("관귀", "官鬼"), ("官鬼", "官鬼"), ("자손", "子孫"), ("子孫", "子孫"),
        ("형제효", "兄弟"), ("부모", "父母"), ("父母", "父母"), ("세", "世"), ("世", "世"), ("세효", "世"),
        ("訟", "lawsuit"), ("소송", "lawsuit"), ("재판", "lawsuit"), ("官司", "lawsuit"), ("관사", "lawsuit"),
        ("돈", "wealth"), ("재물", "wealth"), ("월급", "wealth"), ("求財", "wealth"),
        ("직장", "career"), ("취직", "career"), ("승진", "career"), ("시험", "career"), ("합격", "career"),
        ("병", "illness"), ("건강", "illness"), ("疾病", "illness"), ("病", "illness"),
        ("아내", "wife"), ("남편", "husband"), ("여행", "travel"), ("분실", "loss"), ("이사", "home"),
        ("임신", "children"),
    ],
)  # fmt: skip
def test_liuyao_words(word, target):
    m = lexicon.resolve(word, "liuyao")
    assert m is not None and m.target == target and m.word == word and m.source


@pytest.mark.parametrize(
    ("word", "topic"),
    [
        ("재물", "求財"), ("돈", "求財"), ("財", "求財"), ("월급", "求財"), ("결혼", "婚姻"), ("혼인", "婚姻"),
        ("婚姻", "婚姻"), ("연애", "婚姻"), ("남편", "婚姻"), ("아내", "婚姻"), ("직장", "功名"), ("취직", "功名"),
        ("승진", "功名"), ("시험", "功名"), ("합격", "功名"), ("병", "疾病"), ("건강", "疾病"), ("소송", "爭訟"),
        ("재판", "爭訟"), ("訟", "爭訟"), ("官司", "爭訟"), ("관사", "爭訟"), ("이사", "家宅"), ("여행", "出行"),
        ("분실", "失脫"), ("가출", "行人"), ("임신", "胎產"), ("날씨", "天時"), ("투알", "投謁"),
    ],
)  # fmt: skip
def test_liuren_words(word, topic):
    m = lexicon.resolve(word, "liuren")
    assert m is not None and m.kind == "topic" and m.topic == topic == m.target


def test_the_leishen_headings_stay_reachable_by_name_id_and_korean():
    for heading in leishen.categories():
        for word in (heading, leishen.category_id(heading)):
            m = lexicon.resolve(word, "liuren")
            assert m is not None and m.kind == "heading" and m.heading == heading and m.topic is None
    assert lexicon.resolve("천문", "liuren").heading == "天文"


@pytest.mark.parametrize(
    "word",
    ["재 물", "재·물", "재물운", "財物", "求财", "구재", "《求財》", "Ｌａｗｓｕｉｔ", "소송 문제", "婚姻占"],
)
def test_spacing_dots_scripts_and_suffixes(word):
    found = lexicon.resolve(word, "liuyao") or lexicon.resolve(word, "liuren")
    assert found is not None, word


def test_hanja_is_found_by_its_reading():
    assert lexicon.reading("求財") == "구재"
    assert lexicon.resolve("구재", "liuren").topic == "求財"
    assert lexicon.resolve("쟁송", "liuren").topic == "爭訟"


def test_marriage_in_liuyao_is_the_askers_choice():
    """000:39 注「男娶謂財、女嫁謂官」: 婚姻 alone does not name the 用神; both are offered first."""
    for word in ("婚姻", "결혼", "혼인"):
        assert lexicon.resolve(word, "liuyao") is None
        first = [m.target for m in lexicon.suggest(word, "liuyao")[:2]]
        assert first == ["wife", "husband"]


def test_the_lawsuit_rule_of_000_39_is_reachable_by_word():
    """訟 → the lawsuit category, whose 用 is 官鬼 (000:39 「官克世而問訟」)."""
    m = lexicon.resolve("訟", "liuyao")
    reading = build(cast_manual("878878"), Branch.from_char("子"), GanZhi.parse("甲申"), use=m.target)
    assert (
        reading.use is not None and reading.use.category == "lawsuit" and reading.use.relative.char == "官鬼"
    )
    canonical = build(cast_manual("878878"), Branch.from_char("子"), GanZhi.parse("甲申"), use="lawsuit")
    assert reading.verdict == canonical.verdict


def test_every_liuyao_target_is_read_by_the_engine():
    for m in lexicon.targets("liuyao"):
        r = build(cast_manual("878878"), Branch.from_char("子"), GanZhi.parse("甲申"), use=m.target)
        assert r.use is not None


@pytest.mark.parametrize(
    ("word", "art", "first"), [("겷혼", "liuren", "婚姻"), ("소숑", "liuyao", "lawsuit")]
)
def test_suggest_a_typo(word, art, first):
    assert lexicon.resolve(word, art) is None
    assert lexicon.suggest(word, art)[0].target == first


def test_suggest_something_for_nonsense():
    assert [m.target for m in lexicon.suggest("어쩌구", "liuren")] == list(SEED003_TOPICS[:6])
    assert all(m.kind == "category" for m in lexicon.suggest("어쩌구", "liuyao"))


def test_unknown_art():
    with pytest.raises(EngineInputError):
        lexicon.resolve("돈", "qimen")


def test_the_data_is_whole():
    data = _data()
    for entry in data["words"]:
        assert entry["source"]
        for word in entry["lzh"]:
            assert lexicon.reading(lexicon.normalize(word)) is not None, word  # every Hanja has its reading
    for art in lexicon.ARTS:
        for m in lexicon.targets(art):
            assert m.source and m.ko and m.lzh
    # every word reads back to its own target (several only where the seed splits it by the asker)
    for entry in data["words"]:
        for art in lexicon.ARTS:
            if entry[art] is None:
                continue
            want = entry[art] if isinstance(entry[art], list) else [entry[art]]
            for word in (*entry["ko"], *entry["lzh"]):
                assert [m.target for m in lexicon.named(word, art)] == want, (art, word)
    # one word, one target per art (a list only where the seed splits it by the asker)
    seen: dict[tuple[str, str], object] = {}
    for entry in data["words"]:
        for word in (*entry["ko"], *entry["lzh"]):
            for art in lexicon.ARTS:
                key = (art, lexicon.normalize(word))
                assert seen.setdefault(key, entry[art]) == entry[art] or entry[art] is None, key
