"""Glossary texts explain, and seed-translation typos are corrected in our data with a note (issue 15, point 4).

The typos are those of the Korean translation in seeds 002 and 003 (the Classical Chinese is untouched): the
corrected text is what a Korean reader reads, the original stays in the entry's ``ko_note``.
"""

from __future__ import annotations

import json
import re
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
    # seed 003 (issue 15 review): 샐샐 is no word (百事 / 凡事 / 俱 = 모든 일, 모두)
    "샐샐이 모두 순수(順遂)하다": "모든 일이 순조롭다",  # 1 斷曰 「酉月占百事順利」
    "샐샐 일이 모두 이익이 있다": "모든 일에 이롭다",  # 4 畢法 「互生俱生凡事益」
    "샐샐 구비하여": "모두 갖추어졌으니",  # 6 解曰 「三傳刑沖破害俱全」
    "홀연히 갸고": "홀연히 개고",  # 5 天時 「忽晴忽雨」
    "페부(肺部)": "폐부(肺部)",  # 8 疾病 「必主肺疾」
    "출행에 경험이 있다": "놀랄 만한 위험이 있다",  # 3 出行 「有驚險」: 경험 (experience) for 驚險
    "렴막귀인": "염막귀인",  # 1 解曰, 6 科名 「簾幕」: 두음 법칙 (and 1 wrote 帘 for the seed's 簾)
    "초전의 자수·말전의 진토": "초전과 말전의 토(土)·수(水)",  # 2 解曰: 初傳 is 辰, 末傳 子 (三傳 辰申子)
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


# ---------------------------------------------------------------------------------------------------------------
# A gloss explains: it says more than its headword and seed 002's 「以…論」 keyword (issue 15, point 4).
#
# Seed 002 gives each 神煞 and 雜格 a keyword (「以財利論」, 「以攸遠長生論」) and, in its Korean commentary, what the
# keyword means (「재물이 들고 이익을 얻음을 주로 한다」). A gloss that is the keyword alone (lzh 「財：財利」), the headword
# again (「長生：攸遠長生」, 「臨空：臨空」) or the keyword's translation alone (ko 「왕: 바로 그 때에 해당한다」) tells a
# reader nothing. What is left of a gloss once its headword, its keyword and the sentence formulas of the seed are
# taken out must be an explanation — or, where the seeds explain nothing, the data's plain note saying so.

CJK = re.compile(r"[\u3400-\u9fff]")
HANGUL_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
MIN_LZH = 4  # 「主進財得利」: an explanation of the art is at least a clause
MIN_KO = 6
LZH_FORMULAS = (
    "視所乘何神、視所屬何煞、所臨何煞定其吉凶。",
    "凡占人占事",
    "凡占",
    "皆參此門取象",
    "參此",
    "者",
)
KO_FORMULAS = (
    "무릇 사람을 점치고 일을 점치면,",
    "무릇",
    "점치면",
    "점문하면",
    "모두",
    "이 한 문을",
    "참조하여 상을 취한다",
)


def _load(path: str) -> dict:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def _residue(text: str, drop: list[str], script: re.Pattern[str]) -> str:
    for d in sorted((d for d in drop if d), key=len, reverse=True):
        text = text.replace(d, "")
    return "".join(script.findall(text))


def _glosses(lang: str) -> list[tuple[str, str, list[str], str]]:
    """(id, gloss as a reader gets it, what only restates, the data's no-explanation note)."""
    out = []
    g = glossary(lang)
    script_name = "lzh" if lang == "lzh" else "ko"
    meanings = _load("engine/shensha/data/meanings002.json")
    for key, m in meanings["meanings"].items():
        keyword = m["lzh"] if lang == "lzh" else m["ko"].split(" — ")[0] if " — " in m["ko"] else m["ko"]
        drop = [m["name_lzh"], m[f"name_{script_name}"], keyword, f"以{m['lzh']}論"]
        out.append((key, g[key]["text"], drop, meanings.get("no_gloss", {}).get(lang, "")))
    patterns = _load("engine/liuren/data/patterns.json")
    for p in patterns["patterns"]:
        texts = p[lang]
        seed_sentence = (
            re.findall(r"凡占人占事以.+?論。(?:亦以.+?論。)?", texts["meaning"]) if lang == "lzh" else []
        )
        seed_sentence += re.findall(
            r"(?:무릇 사람을 점치고 일을 점치면, |사람이나 일을 점치면 ).+?(?:에 비추어 논한다|고 풀이한다|고 본다|로 본다)\.",
            texts["meaning"],
        )
        drop = [
            p["name"],
            texts["name"],
            texts["definition"],
            *seed_sentence,
            *(LZH_FORMULAS if lang == "lzh" else KO_FORMULAS),
        ]
        out.append(
            (
                f"pattern.{p['id']}",
                g[f"pattern.{p['id']}"]["meaning"],
                drop,
                patterns.get("no_meaning", {}).get(lang, ""),
            )
        )
    leishen = _load("engine/liuren/data/leishen.json")
    for name, c in leishen["categories"].items():
        drop = [name, c[lang], *(LZH_FORMULAS if lang == "lzh" else KO_FORMULAS)]
        out.append((f"leishen_category.{name}", g[f"leishen_category.{name}"]["usage"], drop, ""))
    return out


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_every_gloss_says_more_than_its_headword_and_keyword(lang):
    script, least = (CJK, MIN_LZH) if lang == "lzh" else (HANGUL_SYLLABLE, MIN_KO)
    bad = []
    for key, text, drop, note in _glosses(lang):
        if note and text.endswith(note) and len(_residue(text.removesuffix(note), drop, script)) == 0:
            continue  # the seeds explain nothing, and the gloss says so
        if len(_residue(text, drop, script)) < least:
            bad.append((key, text))
    assert bad == []


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_the_restating_check_can_fail(lang):
    # the check above on glosses that only restate: the keyword, the headword, the keyword with the seed's formula
    script, least = (CJK, MIN_LZH) if lang == "lzh" else (HANGUL_SYLLABLE, MIN_KO)
    _, _, drop, _ = next(x for x in _glosses(lang) if x[0] == "stage.長生")
    for restated in (*drop, f"{drop[1]}：{drop[2]}。", f"{drop[1]}: {drop[2]}"):
        assert len(_residue(restated, drop, script)) < least, restated
    assert len(_residue(f"{drop[2]}。主事方興，人主壽考。", drop, CJK)) >= MIN_LZH
    assert len(_residue(f"{drop[2]} — 일이 막 일어나고 사람은 오래 삶", drop, HANGUL_SYLLABLE)) >= MIN_KO


def test_each_explanation_names_its_seed_passage():
    meanings = _load("engine/shensha/data/meanings002.json")["meanings"]
    for key, m in meanings.items():
        if "gloss" in m:
            assert m["gloss"]["source"].startswith("seed 002"), key
            assert m["gloss"]["lzh"], key
    for p in _load("engine/liuren/data/patterns.json")["patterns"]:
        if "explained_from" in p:
            assert p["explained_from"].startswith("seed 00"), p["id"]
