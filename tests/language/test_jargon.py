"""No jargon in what users read (issue 33 items 5 and 6).

The ``sikpan`` subcommands with every flag that shows more (``qizheng --all``, ``shensha --tables
--all-months --sources``, ``cast`` with a topic, ``liuyao`` with a 用神) are the CLI cases of the language
harness (``renders.CLI_CASES``, rendered once a session in ko and lzh; their Latin is ``test_renders``'), and
each line must have no paragraph id of the 《八格賦》 (``p08.3``), no seed line (``000:19``), no file name or
module path, and not the words seed / 명세 / 規範 or a peer package's name.

The Korean ``/shensha 甲子 寅`` first page, on the console, Telegram and Discord, has no run of three or more
Hanja outside a 한글(漢字) pair or a 「」 quotation (the names by branch are read in 한글; docs/style.md).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import create_context
from bot.commands import Incoming, dispatch
from bot.config import Settings
from bot.views import CHANNELS, first_page, render
from tests.fakes.clock import ManualClock
from tests.language import renders
from tests.language.rules import hanja_runs

LATIN = re.compile(r"[A-Za-z]")
JARGON = re.compile(
    r"\bp\d{2}\.\d\b"  # a 《八格賦》 paragraph id
    r"|\b00[0-4]:\d+"  # a seed line
    r"|\w+\.(?:json|md|py|dart)\b"  # a file
    r"|\bengine\.\w+"  # a module
    r"|seed|명세|規範|MOIRA|kinliuren|secrets"
)
QIZHENG_ALL = "sikpan " + " ".join(("qizheng", "--at", renders.BIRTH, "--place", "北京", "--all"))


def _printed(lang: str, said: str | None = None) -> str:
    """What the CLI cases print in ``lang`` (the case typed as ``said`` alone, if given)."""
    return "\n".join(line.text for line in renders.cli_lines(lang) if said is None or line.said == said)


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_no_ids_files_or_project_words(lang):
    bad = [(line.said, line.text) for line in renders.cli_lines(lang) if JARGON.search(line.text)]
    assert bad == []


def test_the_qizheng_notes_are_the_readers():
    """Each undecided 《八格賦》 clause tells why in the reader's language (the English ``reason`` is the
    developers'): the old output's notes are gone from both languages."""
    ko, lzh = (_printed(lang, QIZHENG_ALL) for lang in ("ko", "lzh"))
    for text in (ko, lzh):
        assert text and "lists the eight fates" not in text and "used by engine" not in text
    assert "본문에 우(愚)를 다룬 대목은 없음" in ko and "賦中無論愚之段" in lzh
    assert "제8단 3구" in ko and "第八段其三" in lzh


def test_bi_yong_and_ji_yong_do_not_read_as_cost():
    """比用 read 비용 is 費用 (cost) to a Korean reader: 六壬's method is 비용법(比用法) as practitioners name
    the nine methods (locales/terms/liuren.json says why); 六爻's 世/應 beside the 用 are said in words."""
    ko = _printed("ko")
    assert "비용법(比用法)" in _printed("ko", "sikpan cast --day 甲子 --ju 2")
    assert not re.search(r"비용(?!법)|즉용", ko)
    liuyao = next(c for c in renders.CLI_CASES if c[:2] == ("liuyao", "--coins") and "官鬼" in c)
    assert "응(應) 용신 자신" in _printed("ko", "sikpan " + " ".join(liuyao))


# --- the Korean /shensha first page ------------------------------------------------------------------------


async def test_the_korean_shensha_first_page_gives_readings(tmp_path: Path):
    ctx = await create_context(
        Settings(db_path=str(tmp_path / "s.db"), lang="ko", tz="Asia/Seoul"),
        clock=ManualClock(datetime(2024, 2, 4, 3, 30, tzinfo=UTC)),
    )
    try:
        for channel in CHANNELS:
            incoming = Incoming(
                platform=channel,
                chat_id="c",
                user_id="u",
                text="/shensha 甲子 寅",
                lang_hint="ko",
                chat_kind="private",
                user_is_admin=True,
            )
            reply = await dispatch(incoming, ctx)
            page = render(reply, channel, first_page(reply.view))
            assert "자미" in page and "천을귀인(天乙貴人) 축·미" in page, (channel, page)
            bad = [(line, hanja_runs(line)) for line in page.splitlines() if hanja_runs(line)]
            assert bad == [], channel
    finally:
        await ctx.close()


# --- the data behind the citations and the notes --------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
SEED_DIR = next(
    (d for d in (ROOT.parent.parent / "shared" / "seeds", Path("/work/shared/seeds")) if d.is_dir()),
    Path("/work/shared/seeds"),
)


def test_each_cited_opening_is_how_its_seed_line_begins():
    """locales/passages.json names a line of seeds 000 and 002 by its opening words and a line of seed 003 by its
    example: the words are the line's own first words, the example the count of 課體 lines up to it."""
    import json

    table = json.loads((ROOT / "locales" / "passages.json").read_text(encoding="utf-8"))
    for seed, openings in table["openings"].items():
        lines = next(SEED_DIR.glob(f"{seed}_*.txt")).read_text(encoding="utf-8").split("\n")
        assert openings
        for at, opening in openings.items():
            assert lines[int(at) - 1].lstrip("（(").startswith(opening), (seed, at)
    lines = next(SEED_DIR.glob("003_*.txt")).read_text(encoding="utf-8").split("\n")
    for at, example in table["examples"]["003"].items():
        assert max(1, sum(line.startswith("課體：") for line in lines[: int(at)])) == example, at
    assert max(table["examples"]["003"].values()) == 8


def test_every_undecided_clause_has_its_note_in_both_languages():
    import json

    data = json.loads((ROOT / "engine" / "qizheng" / "data" / "patterns.json").read_text(encoding="utf-8"))
    for row in data["patterns"]:
        if row.get("reason"):
            ko, lzh = row["reason_ko"], row["reason_lzh"]
            assert not LATIN.search(ko) and not LATIN.search(lzh), row["id"]
            assert re.search(r"[\uac00-\ud7a3]", ko) and not re.search(r"[\uac00-\ud7a3]", lzh), row["id"]
    for note in data["unknown_notes"].values():
        assert not LATIN.search(note["ko"] + note["lzh"])
