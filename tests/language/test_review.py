"""Faults a native reader found in review (issue 15, point 3), caught mechanically where a rule can say them.

Each list below names the words a review removed, why, and what stands instead (docs/style.md). The checks
read every catalog message (``locales/<lang>/LC_MESSAGES/*.po``) and every rendered sample of
scripts/gen_samples.py (each reply on each channel, the help, the errors, the ``sikpan`` commands), so a new
message that brings one of them back fails here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_samples  # noqa: E402

# lzh: words that are not 文言 or that speak the project's own language
LZH_BANNED = {
    "默": "默(認) is modern Chinese for 'default': 初設",
    "主控臺": "a modern word for the console: 案前",
    "依課格": "the composed reading is by 所乘、所屬、所臨 (seed 002), not by 課格",
    "的": "modern particle",
    "嗎": "modern particle",
    "您": "modern pronoun",
    "seed": "project jargon: the seeds are named by their titles (bot.i18n.cite)",
    "例課第": "project jargon (例課第1): 八課之例第一例",
}
LZH_BANNED_PATTERNS = {
    r"二〇〇[〇一二三四]": "a seed number read as a year (六壬神煞（二〇〇二）)",
    r"[月火水木金土日]曜[）)]": "a Japanese weekday: lzh leaves the weekday out",
    r"(?:凡|共|每)\s*[\d〇一二三四五六七八九十百千]+\s*行|\d+\s*行": "a database word: rows are 課、錄、條",
}
# ko: the bot speaks 합니다체; no seed numbers; the 두음 법칙 at the start of a word
KO_POLITE_INFORMAL = re.compile(r"(?:세요|어요|아요|해요|에요|예요)(?=[.!?\s\"')]|$)")
KO_SEED_REF = re.compile(r"seed|\b00[0-4]:\d")
# 한글 맞춤법 제10–12항: 類 流 麗 廉 雷 禮 力 連 領 料 龍 量 略 女 … begin a word as 유 여 염 뇌 예 역 연 영 요 용 양 약 여
KO_INITIAL_LIQUID = re.compile(r"(?<![가-힣])(?:류|려|례|렴|뢰|력|련|령|료|룡|량|략|녀|뇨|뉴)[가-힣]")


# a setting as /settings lists it (``qizheng.weak = seed (seed | moira)``): its key and values are what a user types
SETTING = re.compile(r"=\s*\S+(?:\s*\([^)]*\))?")


def _typed_removed(text: str) -> str:
    return SETTING.sub("", text)


def _catalog(lang: str) -> Iterator[tuple[str, str]]:
    for path in sorted((ROOT / "locales" / lang / "LC_MESSAGES").glob("*.po")):
        with path.open("rb") as f:
            for m in read_po(f):
                if not m.id:
                    continue
                mid = m.id if isinstance(m.id, str) else m.id[0]
                for s in [m.string] if isinstance(m.string, str) else m.string:
                    yield f"{path.name} {mid}", s


@pytest.fixture(scope="module")
def samples() -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for lang in ("ko", "lzh"):
        lines: list[tuple[str, str]] = []
        for said, texts in gen_samples.chat_samples(lang):
            for channel, text in texts.items():
                lines += [(f"{channel} «{said}»", _typed_removed(line)) for line in text.split("\n")]
        for cmd, text in gen_samples.cli_samples(lang):
            lines += [(f"«{cmd}»", _typed_removed(line)) for line in text.split("\n")]
        out[lang] = lines
    return out


def test_lzh_has_no_banned_word(samples: dict[str, list[tuple[str, str]]]) -> None:
    texts = list(_catalog("lzh")) + samples["lzh"]
    bad = [(where, word, text) for where, text in texts for word in LZH_BANNED if word in text]
    bad += [
        (where, pattern, text)
        for where, text in texts
        for pattern in LZH_BANNED_PATTERNS
        if re.search(pattern, text) and not where.startswith("daily.po daily.weekday.")
    ]
    assert bad == []


def test_ko_bot_voice_is_hapnida(samples: dict[str, list[tuple[str, str]]]) -> None:
    bad = [(where, text) for where, text in _catalog("ko") if KO_POLITE_INFORMAL.search(text)]
    assert bad == []


def test_no_reply_names_a_seed_by_number(samples: dict[str, list[tuple[str, str]]]) -> None:
    texts = list(_catalog("ko")) + [(w, t) for w, t in samples["ko"] if not w.startswith("«")]
    bad = [(where, text) for where, text in texts if KO_SEED_REF.search(text)]
    assert bad == []


def test_ko_words_begin_as_the_dueum_rule_asks(samples: dict[str, list[tuple[str, str]]]) -> None:
    bad = [
        (where, m.group(0), text) for where, text in samples["ko"] for m in KO_INITIAL_LIQUID.finditer(text)
    ]
    assert bad == []


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (KO_POLITE_INFORMAL, "나머지는 다른 단추에서 보세요."),
        (KO_POLITE_INFORMAL, "명령으로 물어 주세요"),
        (KO_SEED_REF, "대육임 신살표 (seed 002)"),
        (KO_SEED_REF, "괘에서만 (기본, 000:19)"),
        (KO_INITIAL_LIQUID, "류신 분류"),
        (KO_INITIAL_LIQUID, "려명: 삼전 오미신"),
    ],
)
def test_the_ko_checks_find_what_review_found(pattern: re.Pattern[str], text: str) -> None:
    assert pattern.search(text)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"二〇〇[〇一二三四]", "六壬神煞（二〇〇二）"),
        (r"(?:凡|共|每)\s*[\d〇一二三四五六七八九十百千]+\s*行|\d+\s*行", "錄 11 與設皆已去，凡 13 行。"),
        (r"[月火水木金土日]曜[）)]", "2026-12-01（火曜）"),
    ],
)
def test_the_lzh_patterns_find_what_review_found(pattern: str, text: str) -> None:
    assert re.search(pattern, text)
    assert not re.search(pattern, "萬里行程") and not re.search(pattern, "順行")


def test_ko_checks_pass_good_korean() -> None:
    for good in (
        "유신 분류",
        "여명(麗明)",
        "이궁(離宮)",
        "보십시오.",
        "뇌풍항(雷風恆)",
        "로 바꿀 수 있습니다",
    ):
        assert not KO_POLITE_INFORMAL.search(good) and not KO_INITIAL_LIQUID.search(good), good


HALF_WIDTH_AFTER_CJK = re.compile(r"[\u3400-\u9fff](?:</b>|\*\*|</i>|\*)?[ \t]?[(:]")


def test_lzh_punctuation_is_full_width_across_markup(samples: dict[str, list[tuple[str, str]]]) -> None:
    # review: Telegram showed 「<b>初傳 亥</b> (遁 己): 朱雀」 — the bold tag hid the 亥 from typeset
    bad = [(where, text) for where, text in samples["lzh"] if HALF_WIDTH_AFTER_CJK.search(text)]
    bad += [(where, text) for where, text in samples["lzh"] if re.search(r"。[ \t]+[\u3400-\u9fff]", text)]
    assert bad == []
    assert HALF_WIDTH_AFTER_CJK.search("<b>初傳 亥</b> (遁 己): 朱雀")


def test_typeset_reaches_through_markup() -> None:
    from bot.i18n import typeset

    assert typeset("lzh", "<b>初傳 亥</b> (遁 己): 朱雀") == "<b>初傳 亥</b>（遁 己）：朱雀"
    assert typeset("lzh", "**初傳 亥** (遁 己): 朱雀") == "**初傳 亥**（遁 己）：朱雀"
    assert typeset("lzh", "中傳空曰斷橋。 凡占人占事以無中論。") == "中傳空曰斷橋。凡占人占事以無中論。"
    assert typeset("lzh", "07:30 (Asia/Seoul)") == "07:30 (Asia/Seoul)"
    # a label's colon before its /command, whatever the label ends in (a star's Greek letter); not a URL's
    assert typeset("lzh", "今宿·參用δ: /settings 宿 參用δ") == "今宿·參用δ：/settings 宿 參用δ"
    assert typeset("lzh", "今宿·奎用η: `/settings 宿 奎用η`") == "今宿·奎用η：`/settings 宿 奎用η`"
    assert typeset("lzh", "見 https://example.org/x") == "見 https://example.org/x"
    assert (
        typeset("ko", "금수·참수 거성 오리온자리 δ: /settings 수 참수")
        == "금수·참수 거성 오리온자리 δ: /settings 수 참수"
    )
    assert typeset("ko", "<b>초전 해</b> (둔간 기): 주작") == "<b>초전 해</b> (둔간 기): 주작"


def test_typeset_gives_full_width_commas_and_brackets_between_chinese_words() -> None:
    """docs/style.md (lzh: full-width punctuation): the CLI's 六爻 rows and its source lists were half-width
    (``世 [囚 死]``, ``《易冒》·三, 《易冒》·七``); a markdown link, clock times and Latin text are left alone."""
    from bot.i18n import typeset

    assert typeset("lzh", "世 [囚 死 日洩]") == "世 〔囚 死 日洩〕"
    assert typeset("lzh", "━━━━━ [相 死]") == "━━━━━ 〔相 死〕"
    assert typeset("lzh", "非（《易冒》·三, 《易冒》·七; 月令）") == "非（《易冒》·三，《易冒》·七；月令）"
    assert typeset("lzh", "初設，《易冒》·十九） (《易冒》·十九)") == "初設，《易冒》·十九）（《易冒》·十九）"
    assert (
        typeset("lzh", "[卦](https://example.org) 07:30, Asia/Seoul [x]")
        == "[卦](https://example.org) 07:30, Asia/Seoul [x]"
    )
    assert typeset("ko", "세 [囚 死]") == "세 [囚 死]"
