"""文言 that is 文言 (issue 33 item 7; docs/style.md, "Classical Chinese").

Over the lzh renders the language tests already read (``scripts/gen_samples.py``: every command's reply on the
console, Telegram and Discord, every page of a stored cast and the Discord embeds' titles and footers — and the ``sikpan``
subcommands), each line must have

- no Arabic digit but what a user typed or a machine names: clock times, ISO dates and instants, zone names,
  /commands and --options with their values, a record's number (#3), and measurements with their unit
  (26.06°, +0.011°/d) or a longitude/latitude — never a count, a sum, a weight (+2, 計 -8), an age or a tally;
- no half-width punctuation (, ; : ( ) [ ]) next to a Chinese character;
- no word of ``data/lzh_modern_words.tsv`` (modern Chinese, software words);
- only the forms ``locales/lzh/variants.json`` chooses (真 not 眞, 剋 not 克).

The user's own line (what they typed) is not checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.language.test_lzh_purity import IDENTIFIERS, sample_lines

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"

CJK = "\u3400-\u9fff\uf900-\ufaff"


def _table(name: str) -> list[list[str]]:
    rows = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append((line.split("\t") + ["", ""])[:3])
    return rows


MODERN = [(word, tuple(keep.split())) for word, keep, _ in _table("lzh_modern_words.tsv")]
# the forms lzh avoids, and the words where such a form is right (locales/lzh/variants.json, which typeset applies)
VARIANTS = [
    (avoided, tuple(row["keep"]))
    for avoided, row in json.loads((ROOT / "locales" / "lzh" / "variants.json").read_text("utf-8")).items()
    if not avoided.startswith("_")
]

# what keeps its Arabic digits (docs/style.md): typed or machine-named, and measurements with their unit
MACHINE = [
    re.compile(
        r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:[+-]\d{2}:\d{2}|Z)?)?"
    ),  # a date, an instant
    re.compile(r"\bYYYY-MM-DD\b"),
    re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)"),  # a clock time
    re.compile(r"[+\-−＋－]?\d+(?:\.\d+)?\s?(?:°|′|″)(?:/d)?"),  # an arc, a daily motion
    re.compile(
        r"(?:經度?|緯度?|東經|北緯|西經|南緯)[：:]?\s?[+\-]?\d+(?:\.\d+)?(?:\s[+\-]?\d+(?:\.\d+)?)?"
    ),  # a place
    re.compile(r"[+\-−]?\d+\.\d+(?:度|時)"),  # a measured arc or span of hours (引木星43.8度, 留於-3.5時)
    re.compile(r"(?<![\w])#\d+\b"),  # a record's number, as /show takes it
]
DIGIT = re.compile(r"\d")
# an option of a usage line with its metavar, in argparse's brackets: [--day 干支]
USAGE = re.compile(r"\[--[a-z][\w-]*(?: [^\[\]\s]+)?\]")
HALF_WIDTH = re.compile(rf"[{CJK}]\s?[,;:()\[\]]|[,;:()\[\]]\s?[{CJK}]")


@pytest.fixture(scope="module")
def lines() -> tuple[tuple[str, str, str], ...]:
    return sample_lines()


def _unmarked(line: str) -> str:
    """``line`` without the channels' markup: Telegram HTML tags, Discord markdown and its escapes."""
    line = re.sub(r"</?(?:b|i|u|s|code|pre)>", "", line)
    return re.sub(r"\\([\\*_`~|>\[\]#.\-])", r"\1", line).replace("`", " ").replace("**", " ")


def _typed(line: str, said: str) -> str:
    """``line`` without what a user types or a machine names."""
    for pattern in (*MACHINE, *IDENTIFIERS):
        line = pattern.sub(" ", line)
    for token in said.split():
        if not token.startswith("/"):
            line = line.replace(token, " ")
    return line


def _digits(line: str, said: str = "") -> list[str]:
    return re.findall(r"\S*\d\S*", _typed(_unmarked(line), said))


def _half_width(line: str) -> list[str]:
    # a /command, an --option, a zone name or a setting's key = value (choices) keeps its ASCII marks
    text = _unmarked(line)
    text = USAGE.sub(lambda m: "·" * len(m.group(0)), text)
    for pattern in IDENTIFIERS[:5]:
        text = pattern.sub(lambda m: "·" * len(m.group(0)), text)
    return [m.group(0) for m in HALF_WIDTH.finditer(text)]


def _listed(line: str, table: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    """The words of ``table`` in ``line``, but where one stands inside a word its row keeps."""
    found = []
    for word, keep in table:
        text = line
        for right in keep:
            text = text.replace(right, "〇" * len(right))
        if word in text:
            found.append(word)
    return found


def _modern(line: str) -> list[str]:
    return _listed(line, MODERN)


def _variants(line: str) -> list[str]:
    return _listed(line, VARIANTS)


def _report(bad: list[tuple[str, str, list[str]]]) -> str:
    return (
        "\n".join(f"{where}: {found} in {line!r}" for where, line, found in bad[:60])
        + f"\n({len(bad)} lines)"
    )


def test_no_arabic_digit(lines):
    bad = [(w, line, found) for w, line, said in lines if (found := _digits(line, said))]
    assert not bad, _report(bad)


def test_full_width_punctuation_between_chinese_words(lines):
    bad = [(w, line, found) for w, line, _ in lines if (found := _half_width(line))]
    assert not bad, _report(bad)


def test_no_modern_word(lines):
    bad = [(w, line, found) for w, line, _ in lines if (found := _modern(line))]
    assert not bad, _report(bad)


def test_one_form_per_character(lines):
    bad = [(w, line, found) for w, line, _ in lines if (found := _variants(line))]
    assert not bad, _report(bad)


def test_the_discord_embeds_are_among_the_renders(lines):
    footers = [line for where, line, _ in lines if where.startswith("discord embed")]
    assert any("家法" in line for line in footers), footers[:5]


def test_the_checks_catch_what_they_look_for():
    assert _digits("斷：凶——用神 世父母戌（上爻）（計 -8）") and _digits("+2 原忌仇")
    assert _digits("【限】2024-02-04 · 歲51.17 · 虛歲51") and _digits("吉 35 · 凶 57 · 他 58")
    assert not _digits("/daily 07:30 · 2026-12-01 · 經度 126.98 · 土星 逆 -0.020°/d · 命度 翼宿 2.51° · #3")
    assert not _digits("/cast 庚辰 8", "/cast 庚辰 8")
    assert _half_width("家法: 貴人 = 《六壬大全》") and _half_width("亥 (遁 己)") and _half_width("旬空, 死")
    assert not _half_width("12:30 Asia/Seoul (UTC+09:00)") and not _half_width("/settings liuren.gui_rule")
    assert _modern("未給占時，假定午時") == ["假定", "給"] and _modern("然終難了結") == []
    assert _modern("言：從平臺之言") == ["平臺"] and _modern("主事看似有而不落手") == ["看似", "落手"]
    assert _variants("眞太陽時") == ["眞"] and _variants("遙克") == ["克"] and _variants("布鲁克林") == []
    assert _variants("真太陽時 遙剋") == []


def test_the_number_helpers_write_what_the_style_guide_says():
    from bot.i18n import cite, gettext, numeral, signed, typeset, years

    assert (signed("lzh", -13), signed("lzh", 2), signed("ko", -8), signed("ko", 2)) == (
        "－十三",
        "＋二",
        "-8",
        "+2",
    )
    assert numeral("lzh", "82.5") == "八十二有半" and numeral("lzh", 101.5) == "一百零一有半"
    assert numeral("lzh", "26.06") == "26.06"  # a measurement keeps its digits
    assert (
        years("lzh", "52.12") == "五十二年又一月"
        and years("lzh", 34.0) == "三十四年"
        and years("ko", 52.123) == "52.12"
    )
    assert gettext("lzh", "qizheng.xian.title", on="2041-07-01", age="52.12", xu=52).endswith(
        "生五十二年又一月 · 虛歲五十二"
    )
    assert cite("lzh", "seed 003 entries 2, 3 「閉口」") == "八課例第二例、第三例「閉口」"
    assert typeset("lzh", "八專先於遙克 · 眞太陽時 · 布鲁克林") == "八專先於遙剋 · 真太陽時 · 布鲁克林"
    assert typeset("lzh", "(外為天將) · 時區：Asia/Seoul (常) · 12:30 (UTC+09:00)") == (
        "（外為天將） · 時區：Asia/Seoul（常） · 12:30 (UTC+09:00)"
    )
    assert typeset("ko", "遙克 (初)") == "遙克 (初)"
