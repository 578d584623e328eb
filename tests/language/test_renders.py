"""What users get, checked (issue 33 items 1 and 2): every page of every view on every channel and the CLI with
every flag (``renders``), over a cast set that shows every 課體/雜格 name, every 神煞 and every 類神 entry; the
rules of ``rules`` and ``test_wenyan`` on each line; and each rule shown failing on a bad string."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from bot.i18n import gettext, typeset
from engine.liuren import reading
from tests.language import renders, rules
from tests.language.test_wenyan import _digits, _half_width, _modern, _unmarked, _variants

ROOT = rules.ROOT


def _text(lang: str) -> str:
    return "\n".join(line.text for line in renders.all_lines(lang))


def _report(bad: list[tuple[str, str, list[str]]]) -> str:
    counts = Counter(f for _, _, found in bad for f in found)
    return (
        "\n".join(f"{where}: {found} in {line!r}" for where, line, found in bad[:40])
        + f"\n({len(bad)} lines; {counts.most_common(30)})"
    )


def _check(lang: str, rule) -> None:  # type: ignore[no-untyped-def]
    seen: set[tuple[str, str]] = set()
    bad = []
    for line in renders.all_lines(lang):
        if (line.text, line.said) in seen:
            continue
        seen.add((line.text, line.said))
        found = rule(line)
        if found:
            bad.append((line.where, line.text, found))
    assert not bad, _report(bad)


# --- what is rendered ----------------------------------------------------------------------------------------


def test_every_keti_name_is_shown():
    names = renders.keti_names()
    assert len(names) == 54
    lzh = _text("lzh")
    assert sorted(n for n in names if n not in lzh) == []
    ko_terms = json.loads((ROOT / "locales/ko/terms/liuren_reading.json").read_text("utf-8"))
    ko_terms |= json.loads((ROOT / "locales/ko/terms/liuren.json").read_text("utf-8"))
    ko = _text("ko")
    assert sorted(n for n in names if n not in ko and ko_terms.get(n, n) not in ko) == []


def _forms(name: str) -> tuple[str, ...]:
    """A star's name as a reply writes it: 月煞(將星) is 月煞（將星） in lzh and 월살·장성(月煞·將星) in ko."""
    m = re.fullmatch(r"(.+)\((.+)\)", name)
    if (
        m is not None and m[2] == "天將"
    ):  # a 天將, on every 六壬 board by its name (stars.json: named so to keep
        return (m[1],)  # it apart from the year star of the same name)
    return (name,) if m is None else (f"{m[1]}（{m[2]}）", f"{m[1]}·{m[2]}")


def test_every_shensha_star_is_shown():
    stars = json.loads((ROOT / "engine/shensha/data/stars.json").read_text("utf-8"))["stars"]
    for lang in renders.LANGS:
        text = _text(lang)
        assert sorted(s["name"] for s in stars if not any(f in text for f in _forms(s["name"]))) == [], lang


def test_every_leishen_entry_is_shown():
    data = json.loads((ROOT / "engine/liuren/data/leishen.json").read_text("utf-8"))["categories"]
    for lang in renders.LANGS:  # in the chat: the CLI's casts are not needed for any entry
        text = re.sub(r"\s+|</?[a-z]+>|\*\*", "", "\n".join(line.text for line in renders.chat_lines(lang)))
        missing = [
            e["id"]
            for c in data.values()
            for e in c["entries"]
            if re.sub(r"\s+", "", e[lang])[:12] not in text
        ]
        assert missing == [], lang


def _leishen_items(text: str, lang: str) -> list[str]:
    """The 類神 a reading line lists after its label (「類神：月 · 東方木星」, 「유신: 오행수 3 · …」)."""
    label = re.escape(gettext(lang, "liuren_reading.leishen"))
    m = re.search(rf"{label}\s*[:：]\s*(.+)$", re.sub(r"</?[a-z]+>|\*\*?|\\", "", text))
    return m[1].split(" · ") if m else []


def test_the_month_leishen_entries_are_shown_by_chat_casts_on_every_channel():
    # the entries that read the 月建: seed 002 類神 「月建屬月」 (天文), 「旺相多，休囚少」 (數目), 「旺相鮮明，休囚
    # 淡舊」 (顏色); a board cast has no 月建, so a chat cast by date shows them, and a cast by day with a month word
    month = renders.leishen_month_entries()
    lzh = reading.glossary("lzh")
    assert {lzh[f"leishen.{e}"]["text"] for e in month} == {"月", "旺相多", "休囚少", "鮮明", "淡舊"}
    assert renders.leishen_month_search() == renders.LEISHEN_MONTH_CHAT
    for casts in (renders.LEISHEN_MONTH_CHAT, renders.MONTH_WORD_CASTS):
        said = {f"/cast {when} {category}" for when, category in casts}
        for lang in renders.LANGS:
            gloss = reading.glossary(lang)
            want = {typeset(lang, gloss[f"leishen.{e}"]["text"]) for e in month}
            for channel in renders.CHANNELS:
                shown = {
                    item
                    for line in renders.chat_lines(lang)
                    if line.said in said and line.where.startswith(channel)
                    for item in _leishen_items(line.text, lang)
                }
                assert sorted(want - shown) == [], (casts[0], lang, channel)


def test_every_part_of_every_channel_is_rendered():
    wheres = " ".join(line.where for line in renders.chat_lines("ko"))
    for part in (
        "telegram brief",
        "caption part",
        "photo caption",
        "button",
        "discord brief",
        "title",
        "footer",
        "discord alt",
        "console brief",
        "hint",
    ):
        assert part in wheres, part


def test_every_cli_subcommand_and_flag_is_rendered_or_excused():
    flags = renders.cli_flags()
    rendered = renders.cli_flags_rendered()
    left = {
        (path, flag)
        for path, flag in flags - rendered
        if flag not in renders.CLI_NOT_RENDERED and path.split(" ")[0] not in renders.CLI_NOT_RENDERED
    }
    assert left == set()


@pytest.mark.parametrize("lang", renders.LANGS)
def test_the_words_inside_every_picture_are_read(lang):
    """Issue 33: the labels drawn inside the PNGs are checked like the text. Every chat command of the set whose
    reply has a picture and every ``sikpan … --png`` case gives its picture's scene to the rules, and the lines
    read are those of the scene's Text items (the title of each picture among them)."""
    pictures = renders.pictures(lang)
    chat = [said for said, _ in pictures if not said.startswith(("sikpan ", "/daily "))]
    cli = [said for said, _ in pictures if said.startswith("sikpan ")]
    daily = [(said, picture.kind) for said, picture in pictures if said.startswith("/daily ")]
    # every cast of the set (the 課體 cover, the 類神 casts with and without a month, the samples; not the bad
    # one) and its picture
    casts = [
        said
        for said in renders.chat_commands(lang)
        if said.startswith(("/cast ", "/liuyao", "/qizheng")) and said != "/cast 甲乙 99"
    ]
    assert chat == casts and len(casts) == (
        3
        + len(renders.keti_cover())
        + len(renders.LEISHEN_CASTS)
        + len(renders.LEISHEN_MONTH_CHAT)
        + len(renders.MONTH_WORD_CASTS)
        + 4
        + 2
    )
    png_cases = ["sikpan " + " ".join(c) for c in renders.CLI_CASES if "--png" in c]
    assert cli == png_cases and len(png_cases) == 3
    # every kind of daily reading (大六壬: a 課, 六爻: a 卦), without a topic and with one
    assert daily == [
        ("/daily 07:00 liuren", "cast"),
        ("/daily 07:00 liuren 求財", "cast"),
        ("/daily 07:00 liuyao", "liuyao"),
        ("/daily 07:00 liuyao 求財", "liuyao"),
    ]
    kinds = {(said.startswith("sikpan "), picture.kind) for said, picture in pictures}
    assert kinds == {(source, kind) for source in (False, True) for kind in ("cast", "liuyao", "qizheng")}
    lines = renders.picture_lines(lang)
    assert {line.where for line in lines} == {f"picture «{said}» {lang}" for said, _ in pictures}
    assert len(pictures) == len(casts) + len(png_cases) + len(daily) == 71 and len(lines) > 60 * len(pictures)
    titles = {"ko": ("대육임", "육효", "칠정사여"), "lzh": ("大六壬", "六爻", "七政四餘")}[lang]
    for title in titles:
        assert any(line.text.startswith(title) for line in lines), title


@pytest.mark.parametrize("lang", renders.LANGS)
def test_the_cli_runs_each_case(lang):
    for case in renders.CLI_CASES[: -1 - len(renders.LEISHEN_MONTH_CASTS)]:
        said = "sikpan " + " ".join(case)
        text = "\n".join(line.text for line in renders.cli_lines(lang) if line.said == said)
        assert text.strip() and "Traceback" not in text, said


# --- the rules on what is rendered ----------------------------------------------------------------------------

# the words a user types as a value: /settings values and CLI choices (docs/style.md: "What may stay Latin")
TYPED = (
    "now",
    "time",
    "yes",
    "lawsuit",
    "hello",
    "colour",
    "blue",
    "on",
    "off",
    "reset",
    "save",
    "ko",
    "lzh",
)


@pytest.mark.parametrize("lang", renders.LANGS)
def test_no_latin_word(lang):
    typed = TYPED + tuple(renders.command_names())
    _check(lang, lambda line: rules.latin_words(_unmarked(line.text), line.said, typed))


def test_no_hanja_run_in_korean():
    _check("ko", lambda line: rules.hanja_runs(line.text))


def test_each_korean_reading_matches_its_hanja():
    _check("ko", lambda line: rules.reading_errors(line.text))


def test_korean_words_keep_the_dueum_rule():
    _check("ko", lambda line: rules.dueum_errors(line.text))


def test_a_korean_pictures_lines_give_hangul_with_the_characters():
    """docs/style.md: a picture's line or table row gives 한글(漢字); its grid cells are the guide's cells."""
    _check("ko", lambda line: rules.bare_hanja(line.text) if line.where.startswith("picture ") else [])


# what a user types, besides what test_wenyan's rule already lets through: the console's page numbers (the
# console user types 2 for page 2), a UTC offset (/tz UTC+9), the coins as --coins takes them (786977) and the
# tosses as typed (--tosses 322,233,…)
TYPED_DIGITS = re.compile(r"(?<![\d.])\d\.(?= )|UTC[+\-−]\d{1,2}(?::\d{2})?|(?<!\d)[6-9]{6}(?!\d)")


def test_wenyan_digits():
    def digits(line: renders.Line) -> list[str]:
        said = line.said.replace(",", " ")
        text = (
            TYPED_DIGITS.sub(" ", line.text) if "hint" in line.where or "«sikpan" in line.where else line.text
        )
        return _digits(re.sub(r"UTC[+\-−]\d{1,2}(?::\d{2})?", " ", text), said)

    _check("lzh", digits)


def test_wenyan_punctuation():
    _check("lzh", lambda line: _half_width(line.text))


def test_wenyan_words():
    _check("lzh", lambda line: _modern(line.text) + _variants(line.text))


# --- each rule fails on a bad string ----------------------------------------------------------------------------


def test_the_latin_rule():
    assert rules.latin_words("lists the eight fates") == ["lists", "the", "eight", "fates"]
    assert rules.latin_words("자기 MOIRA 기점") == ["MOIRA"] or rules.latin_words("qizheng.weak = seed")
    assert rules.latin_words("kinliuren 표") == ["kinliuren"]
    assert rules.latin_words("12:30 Asia/Seoul (UTC+09:00) · /cast · --at 2024-05-01T10:00+09:00") == []
    assert (
        rules.latin_words("/settings liuren.gui_rule kinliuren", "/settings liuren.gui_rule kinliuren") == []
    )


def test_the_hanja_run_rule():
    assert rules.hanja_runs("<b>子</b> 紫微 災煞 天鼠") and rules.hanja_runs("天乙貴人 丑未")
    assert not rules.hanja_runs("천을귀인(天乙貴人) 축·미 · 「天地既判」 · 子 丑")


def test_the_reading_rule():
    assert rules.reading_errors("과체 막월(驀越)") == ["막월(驀越)"]
    assert rules.reading_errors("과체 맥월(驀越)") == []
    assert rules.reading_errors("국회(局會)") == ["국회(局會)"] and rules.reading_errors("회국(會局)") == []
    assert rules.reading_errors("관재(官非)") == ["관재(官非)"] and rules.reading_errors("관비(官非)") == []
    assert rules.reading_errors("뇌풍항(雷風恆) · 중뢰진(重雷震)") == []
    assert rules.reading_errors("논밭(田土) · 빈 약속(空諾)") == []  # a Korean word glossed, not a reading
    assert rules.reading_errors("학신(遊神)") == ["학신(遊神)"] and rules.reading_errors("유신(遊神)") == []
    assert rules.dueum_errors("뢰풍항(雷風恆)") == ["뢰풍항"]  # 두음 is the 두음 rule's
    assert rules.reading_errors("본괘 乾(乾)") == ["乾(乾)"] and rules.reading_errors("본괘 건(乾)") == []


def test_the_picture_line_rule():
    assert rules.bare_hanja("대육임 庚辰일 제8국") == ["庚辰"]
    assert rules.bare_hanja("순공 申酉 · 重審") == ["申酉", "重審"]
    assert rules.bare_hanja("수 금수(距星 기준)") == ["距星"]
    assert rules.bare_hanja("대육임 경진(庚辰)일 제8국 · 순공 신유(申酉) · 중심(重審)") == []
    assert rules.bare_hanja("官鬼") == [] and rules.bare_hanja("勾陳") == []  # a cell, not a line


def test_the_dueum_rule():
    for bad in (
        "라계(羅計)",
        "라계",
        "로록",
        "리궁",
        "래정",
        "락서",
        "란대",
        "랑군",
        "녀명",
        "뉴월",
        "려명",
        "류신",
        "료원",
    ):
        assert rules.dueum_errors(f"본문 {bad} 입니다") != [], bad
    for good in ("나계(羅計)", "나계", "이궁", "여명", "유신", "중뢰진", "자(子)로", "월령(月令)"):
        assert rules.dueum_errors(f"본문 {good} 입니다") == [], good


def test_the_wenyan_rules():
    assert _modern("選項") == ["選項"] and _modern("所從") == []
    assert _digits("吉 35 · 凶 57") and not _digits("吉 三十五")
    assert TYPED_DIGITS.sub(" ", "更觀：1. 盤 · 2. 解") == "更觀：  盤 ·   解" and _digits("計 -8")
    assert _half_width("家法: 貴人") and not _half_width("家法：貴人")
    assert _variants("眞") == ["眞"] and _variants("真") == []
