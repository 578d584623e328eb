"""Korean particles chosen by the final sound of the word before them (issue 15, point 2).

The rule (표준국어대사전, 을/를, 이/가, 은/는, 과/와, 으로/로): the first form after a final consonant, the
second after a vowel; 으로/로 takes 로 after ㄹ too (서울로, 달로). Expected values below are plain Korean
(a speaker's reading of each word), not our output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot import korean
from bot.i18n import attach, environment, gettext, hanja_readings, terms

ROOT = Path(__file__).resolve().parents[2]
KO_CATALOGS = sorted((ROOT / "locales" / "ko" / "LC_MESSAGES").glob("*.po"))
TEMPLATES = sorted((ROOT / "templates").rglob("*.j2"))

STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"


@pytest.mark.parametrize(
    ("word", "name", "expected"),
    [
        ("책", "를", "책을"),  # final ㄱ
        ("나무", "을", "나무를"),  # no final
        ("산", "가", "산이"),
        ("바다", "이", "바다가"),
        ("집", "는", "집은"),
        ("소", "은", "소는"),
        ("말", "와", "말과"),
        ("개", "과", "개와"),
        ("집", "로", "집으로"),
        ("서울", "으로", "서울로"),  # ㄹ takes 로
        ("바다", "으로", "바다로"),
        # 漢字 read in Korean: 戌 술, 子 자, 寅 인, 午 오
        ("戌", "이", "戌이"),
        ("子", "이", "子가"),
        ("寅", "을", "寅을"),
        ("午", "을", "午를"),
        ("戌", "으로", "戌로"),  # 술: ㄹ
        # 한글(漢字): the particle agrees with the Hangul a reader says
        ("갑자(甲子)", "가", "갑자(甲子)가"),
        ("술(戌)", "를", "술(戌)을"),
        # digits read in Sino-Korean: 1 일, 2 이, 3 삼, 6 육, 10 십, 100 백, 1000 천, 10000 만
        ("1", "가", "1이"),
        ("2", "이", "2가"),
        ("3", "를", "3을"),
        ("6", "는", "6은"),
        ("10", "가", "10이"),
        ("20", "로", "20으로"),
        ("100", "와", "100과"),
        ("1000", "를", "1000을"),
        ("10000", "이", "10000이"),
        ("7", "로", "7로"),  # 칠: ㄹ
        # Latin letters by their Korean names: L 엘, M 엠, N 엔, R 알; y 와이, e 이
        ("/daily", "을", "/daily를"),
        ("URL", "로", "URL로"),
        ("PDF", "을", "PDF를"),
        ("SIKPAN_TZ", "가", "SIKPAN_TZ가"),
        ("XML", "은", "XML은"),
        ("07:30 (Asia/Seoul)", "을", "07:30 (Asia/Seoul)을"),  # the parenthetical is skipped: 30 삼십
    ],
)
def test_attach_picks_the_form_by_the_final_sound(word, name, expected):
    assert attach("ko", word, name) == expected


def test_lzh_takes_no_particle():
    assert attach("lzh", "戌", "이") == "戌"


def test_unknown_final_sound_gives_both_forms_the_traditional_way():
    assert korean.particle("☯", "을", {}) == "을(를)"


def test_an_unknown_particle_is_an_error():
    with pytest.raises(ValueError):
        korean.particle("책", "의", {})


def test_every_stem_and_branch_has_its_reading():
    """The 干支 readings (갑 을 병 정 무 기 경 신 임 계; 자 축 인 묘 진 사 오 미 신 유 술 해)."""
    readings = hanja_readings()
    assert [readings[c] for c in STEMS] == list("갑을병정무기경신임계")
    assert [readings[c] for c in BRANCHES] == list("자축인묘진사오미신유술해")


def test_every_character_of_every_term_has_a_reading():
    """Any term of our data may come before a particle: each of its characters must be readable."""
    readings = hanja_readings()
    missing = sorted(
        {c for key in terms("ko") for c in key if not korean.is_syllable(c) and c not in readings}
    )
    assert not [c for c in missing if "\u4e00" <= c <= "\u9fff"], missing


def test_catalog_messages_take_a_particle_spec():
    # liuyao.check.xing_received: "{subject:이} 형을 받음: {by}"
    assert gettext("ko", "liuyao.check.xing_received", subject="子", by="卯").startswith("子가 ")
    assert gettext("ko", "liuyao.check.xing_received", subject="戌", by="卯").startswith("戌이 ")
    assert "{" not in gettext("lzh", "liuyao.check.xing_received", subject="子", by="卯")


def test_the_jinja_filter():
    env = environment("ko")
    assert env.from_string('{{ x|particle("을") }}').render(x="午") == "午를"
    assert env.from_string('{{ x|particle("을") }}').render(x="戌") == "戌을"
    assert environment("lzh").from_string('{{ x|particle("을") }}').render(x="戌") == "戌"


def _ko_messages() -> list[tuple[str, str]]:
    out = []
    for po in KO_CATALOGS:
        with po.open("rb") as fh:
            for m in read_po(fh, locale=None):
                if m.id and m.string:
                    strings = m.string if isinstance(m.string, tuple) else (m.string,)
                    out += [(f"{po.name}:{m.id if isinstance(m.id, str) else m.id[0]}", s) for s in strings]
    return out


DOUBLED = re.compile(r"[가-힣]?\((가|를|을|이|은|는|와|과|으로|로)\)")
# a particle standing alone after a placeholder, a command, a Latin word, a digit or a parenthesis
SPACED = re.compile(
    r"(\}|\)|/\w+|[A-Za-z0-9]) +(을|를|이|가|은|는|와|과|으로|로|에|에서|처럼|만|라고|이라고)(?![가-힣])"
)


# after a Hangul word: only particles that are never a word of their own (을 is also the stem 乙)
SPACED_HANGUL = re.compile(r"[가-힣] +(으로|를|에서)(?![가-힣])")


def _sources() -> list[tuple[str, str]]:
    return _ko_messages() + [(str(t.relative_to(ROOT)), t.read_text(encoding="utf-8")) for t in TEMPLATES]


def test_no_doubled_particle_anywhere():
    bad = [(where, text) for where, text in _sources() if DOUBLED.search(text)]
    assert not bad, bad


def test_no_space_before_a_particle():
    bad = [
        (where, m.group(0))
        for where, text in _sources()
        for pattern in (SPACED, SPACED_HANGUL)
        for m in pattern.finditer(text)
    ]
    assert not bad, bad


def test_the_scanners_catch_what_they_look_for():
    assert DOUBLED.search("일진 戌이(가)") and DOUBLED.search("{a1}을(를)")
    assert SPACED_HANGUL.search("/help 명령이름 으로")
    assert SPACED_HANGUL.search("갑 을 병") is None
    assert SPACED.search("07:30 (Asia/Seoul) 에") and SPACED.search("/daily 을")


def test_a_term_is_given_with_its_characters_once_per_reply():
    """docs/style.md: 한글(漢字) on first use in a reply, then 한글 alone; outside a reply always both."""
    from bot.i18n import both, one_reply

    with one_reply():
        assert [both("ko", "甲子"), both("ko", "甲子"), both("ko", "戌")] == ["갑자(甲子)", "갑자", "술(戌)"]
    assert both("ko", "甲子") == both("ko", "甲子") == "갑자(甲子)"
    with one_reply():
        assert both("lzh", "甲子") == "甲子"


def test_a_chat_reply_gives_each_term_in_full_once():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import gen_samples

    cast = dict(gen_samples.chat_samples("ko"))["/cast now"]["console"]
    assert cast.count("주작(朱雀)") == 1 and "주작" in cast.replace("주작(朱雀)", "", 1)


def test_discord_gets_its_own_words_for_every_telegram_worded_error():
    """docs/style.md, platform words: no 그룹/관리자 on Discord (a server and its managers)."""
    from bot.features.base import Reply
    from bot.msgids import DISCORD_WORDS
    from bot.views import render as render_reply

    for code in DISCORD_WORDS:
        reply = Reply(view="error", lang="ko", context={"code": code, "params": {"name": "daily"}})
        assert "그룹" in render_reply(reply, "telegram")
        assert "그룹" not in render_reply(reply, "discord") and "서버" in render_reply(reply, "discord")
