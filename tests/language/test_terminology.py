"""One terminology table per art, and every surface prints its words (issue 33, item 4).

``locales/terms/{liuren,liuyao,qizheng}.json`` give the practitioner's word for each term: 맥월(驀越) — 驀 is 맥;
회국(會局) for the 局會 of 《易冒》, not 국회 ("parliament"); 승장 for the 天將 a branch carries (所乘), not 탄 천장;
초효/상효, not 1효/6효; 순공 as the one name of the 旬 void; 낮 for 晝; 세는나이 for 虛歲, not 허세; 나계(羅計) by
the 두음 법칙; 관비 for 官非, not 관재 (官災). The chat, the CLI and the pictures read terms through
``bot.i18n.term``/``both`` (which take the tables' words) and the catalog messages the tables list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.i18n import art_terms, both, catalog, format_message, gettext, one_reply, term

ROOT = Path(__file__).resolve().parents[2]
# fields of the data files that are no reader's text: notes to maintainers and the seed's own wording kept for
# the record (``ko_note`` quotes the seed translation a text replaced, 막월 included)
NOT_SHOWN = {
    "ko_note",
    "meaning_note",
    "note",
    "notes",
    "flag",
    "reading",
    "source",
    "explained_from",
    "about",
    "words",  # what users type (engine.lexicon, engine.liuren topics.json): read, never printed
}
PLACEHOLDER = re.compile(r"\{(\w+)(?::[^{}]*)?\}")


def test_each_art_has_its_table() -> None:
    arts = {t.art for t in art_terms()}
    assert arts == {"六壬", "六爻", "七政四餘"}
    words = {t.hanja: t.ko for t in art_terms()}
    assert words["驀越"] == "맥월" and words["會局"] == "회국" and words["乘將"] == "승장"
    assert words["初爻"] == "초효" and words["上爻"] == "상효" and words["晝"] == "낮"
    assert words["虛歲"] == "세는나이" and words["羅計"] == "나계" and words["官非"] == "관비"
    assert words["旬空"] == "순공" and words["空亡"] == "공망"


def test_one_word_for_one_term_across_the_arts() -> None:
    seen: dict[str, str] = {}
    for t in art_terms():
        assert seen.setdefault(t.hanja, t.ko) == t.ko, t.hanja


@pytest.mark.parametrize("row", art_terms(), ids=lambda t: f"{t.art}-{t.hanja}")
def test_the_term_dictionaries_read_the_tables_word(row) -> None:  # type: ignore[no-untyped-def]
    assert term("ko", row.hanja) == row.ko
    with one_reply():
        assert both("ko", row.hanja) == f"{row.ko}({row.hanja})"
    for spelling in row.spelled:  # 局會 in 《易冒》's order: read and shown as the table's term
        assert term("ko", spelling) == row.ko
        with one_reply():
            assert both("ko", spelling) == f"{row.ko}({row.hanja})"
        assert both("lzh", spelling) == spelling


def _rendered(lang: str, msgid: str, value: int) -> str:
    text = catalog(lang)[msgid]
    return format_message(lang, text, **{name: value for name in PLACEHOLDER.findall(text)})


@pytest.mark.parametrize("row", [t for t in art_terms() if t.msgids], ids=lambda t: f"{t.art}-{t.hanja}")
def test_the_catalog_messages_of_a_term_use_the_tables_words(row) -> None:  # type: ignore[no-untyped-def]
    value = {"初爻": 1, "上爻": 6}.get(row.hanja, 1)  # a line placeholder names the line
    for msgid in row.msgids:
        assert row.ko in _rendered("ko", msgid, value), (msgid, catalog("ko")[msgid])
        assert row.lzh in _rendered("lzh", msgid, value), (msgid, catalog("lzh")[msgid])


def test_line_names_in_korean() -> None:
    names = [gettext("ko", "liuyao.line_name", n=n) for n in range(1, 7)]
    assert names == ["초효", "2효", "3효", "4효", "5효", "상효"]
    assert gettext("ko", "bot.liuyao.hidden", line=6) == "복신(상효)"
    assert [gettext("lzh", "liuyao.line_name", n=n) for n in (1, 6)] == ["初爻", "上爻"]


# ---- where the avoided variants must not appear ------------------------------------------------------------


def _strings(o: object, key: str = "") -> Iterator[str]:
    if key in NOT_SHOWN:
        return
    if isinstance(o, str):
        yield o
    elif isinstance(o, dict):
        for k, v in o.items():
            yield from _strings(v, k)
    elif isinstance(o, list):
        for v in o:
            yield from _strings(v, key)


def surfaces() -> dict[str, list[tuple[str, str]]]:
    """(where, text) of every ko text a reply can print, by kind: data, templates, catalogs."""
    data = [
        (str(p.relative_to(ROOT)), s)
        for p in sorted((ROOT / "engine").glob("*/data/*.json"))
        for s in _strings(json.loads(p.read_text(encoding="utf-8")))
    ]
    data += [
        (str(p.relative_to(ROOT)), s)
        for p in sorted((ROOT / "locales/ko/terms").glob("*.json"))
        for s in json.loads(p.read_text(encoding="utf-8")).values()
    ]
    templates = [
        (f"{p.relative_to(ROOT)}:{n}", line)
        for p in sorted((ROOT / "templates").rglob("*.j2"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
    ]
    catalogs = [
        (f"{p.relative_to(ROOT)}:{n}", line)
        for p in sorted((ROOT / "locales/ko/LC_MESSAGES").glob("*.po"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if line.startswith("msgstr")
    ]
    return {"data": data, "templates": templates, "catalogs": catalogs}


def offending(texts: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str, str]]:
    bad = []
    for row in art_terms():
        kinds = row.avoid_in or tuple(texts)
        for kind in kinds:
            for where, text in texts[kind]:
                for allowed in row.allowed:
                    text = text.replace(allowed, "")
                bad += [(where, word, row.hanja) for word in row.avoid if word in text]
    return bad


def test_no_surface_prints_an_avoided_variant() -> None:
    assert offending(surfaces()) == []


def test_no_korean_catalog_counts_a_line_where_it_names_it() -> None:
    # {n}효 gives 1효 and 6효; {n:line}효 gives 초효 … 상효
    bad = [(where, t) for where, t in surfaces()["catalogs"] if re.search(r"\{\w+\}효", t)]
    assert bad == []


def test_the_variant_check_can_fail() -> None:
    sample = {
        "data": [("x.json", "맥월이 아니라 막월")],
        "templates": [("x.j2", "복신 6효")],
        "catalogs": [("x.po", 'msgstr "국회 중신"'), ("y.po", 'msgstr "절로공망 · 공망(空亡) · 공망"')],
    }
    found = {(where, word) for where, word, _ in offending(sample)}
    assert found == {("x.json", "막월"), ("x.j2", "6효"), ("x.po", "국회"), ("y.po", "공망")}
    assert offending({"data": [], "templates": [], "catalogs": [("z.po", 'msgstr "절로공망"')]}) == []
