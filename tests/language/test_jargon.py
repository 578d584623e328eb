"""No jargon in what users read (issue 33 items 5 and 6).

The ``sikpan`` subcommands with every flag that shows more (``qizheng --all``, ``shensha --tables
--all-months --sources``, ``cast`` with a topic, ``liuyao`` with a 用神) are rendered in ko and lzh, in this
process, and each line must have

- no Latin letter beyond the allow-list: what the user typed (the instant with its UTC offset), a zone name,
  ``UTC``, and ``sikpan <command>`` or ``--option`` where a reply names what to type;
- no paragraph id of the 《八格賦》 (``p08.3``), no seed line (``000:19``), no file name or module path, and
  not the words seed / 명세 / 規範 or a peer package's name.

The Korean ``/shensha 甲子 寅`` first page, on the console, Telegram and Discord, has no run of three or more
Hanja outside a 한글(漢字) pair or a 「」 quotation (the names by branch are read in 한글; docs/style.md).
"""

from __future__ import annotations

import contextlib
import io
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.app import create_context
from bot.cli import main
from bot.commands import Incoming, dispatch
from bot.config import Settings
from bot.views import CHANNELS, first_page, render
from tests.fakes.clock import ManualClock

BIRTH = "1960-08-20T18:45+08:00"
CASTS: tuple[tuple[str, ...], ...] = (
    ("qizheng", "--at", BIRTH, "--place", "北京", "--all"),
    (
        "qizheng",
        "--at",
        BIRTH,
        "--place",
        "北京",
        "--all",
        "--on",
        "2020-01-01",
        "--ziqi",
        "moira",
        "--weak",
        "moira",
    ),
    ("cast", "--at", "2024-05-01T10:00:00+09:00", "--topic", "求財", "--birth", "子", "--xingnian", "午"),
    ("cast", "--day", "庚辰", "--ju", "8", "--hour", "巳", "--month", "寅", "--gui-rule", "kinliuren"),
    ("cast", "--day", "甲子", "--ju", "3"),
    ("cast", "--day", "甲子", "--ju", "2"),  # 九宗門 比用
    ("liuyao", "--coins", "797989", "--at", "2024-05-01T10:00:00+09:00", "--use", "官鬼"),
    ("liuyao", "--coins", "696969", "--month", "寅", "--day", "戊戌"),
    ("liuyao", "--coins", "878878", "--month", "午", "--day", "丁卯", "--use", "疏"),
    (
        "shensha",
        "甲子",
        "--month",
        "寅",
        "--year",
        "甲辰",
        "--hour",
        "午",
        "--tables",
        "--all-months",
        "--sources",
    ),
)

# what may stay Latin: what the user typed (an instant with its offset), a zone, UTC, a command to run
ALLOWED = [
    re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?(?:[+-]\d{2}:\d{2})?)?"),
    re.compile(r"\b[A-Z][A-Za-z]+/[A-Za-z_]+\b"),
    re.compile(r"\bUTC\b"),
    re.compile(r"\bsikpan [a-z]+(?![a-z])"),
    re.compile(r"--[a-z][a-z-]*(?![a-z])"),  # an option the user may type
]
LATIN = re.compile(r"[A-Za-z]")
JARGON = re.compile(
    r"\bp\d{2}\.\d\b"  # a 《八格賦》 paragraph id
    r"|\b00[0-4]:\d+"  # a seed line
    r"|\w+\.(?:json|md|py|dart)\b"  # a file
    r"|\bengine\.\w+"  # a module
    r"|seed|명세|規範|MOIRA|kinliuren|secrets"
)


def _run(argv: tuple[str, ...], lang: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
        main([*argv, "--lang", lang])
    return out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def cli() -> dict[tuple[str, str], str]:
    return {(" ".join(argv), lang): _run(argv, lang) for argv in CASTS for lang in ("ko", "lzh")}


def latin_left(line: str) -> str:
    for pattern in ALLOWED:
        line = pattern.sub(" ", line)
    return line


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_the_cli_renders_without_crashing(cli, lang):
    for (cmd, lg), text in cli.items():
        if lg == lang:
            assert "Traceback" not in text and text.strip(), cmd


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_no_latin_letters_beyond_what_the_user_typed(cli, lang):
    bad = [
        (cmd, line)
        for (cmd, lg), text in cli.items()
        if lg == lang
        for line in text.splitlines()
        if LATIN.search(latin_left(line))
    ]
    assert bad == []


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_no_ids_files_or_project_words(cli, lang):
    bad = [
        (cmd, line)
        for (cmd, lg), text in cli.items()
        if lg == lang
        for line in text.splitlines()
        if JARGON.search(line)
    ]
    assert bad == []


def test_the_qizheng_notes_are_the_readers():
    """Each undecided 《八格賦》 clause tells why in the reader's language (the English ``reason`` is the
    developers'): the old output's notes are gone from both languages."""
    ko, lzh = (_run(CASTS[0], lang) for lang in ("ko", "lzh"))
    for text in (ko, lzh):
        assert "lists the eight fates" not in text and "used by engine" not in text
    assert "본문에 우(愚)를 다룬 대목은 없음" in ko and "賦中無論愚之段" in lzh
    assert "제8단 3구" in ko and "第八段其三" in lzh


def test_bi_yong_and_ji_yong_do_not_read_as_cost(cli):
    """比用 read 비용 is 費用 (cost) to a Korean reader: 六壬's method is 비용법(比用法) as practitioners name
    the nine methods (locales/terms/liuren.json says why); 六爻's 世/應 beside the 用 are said in words."""
    ko = "\n".join(text for (cmd, lang), text in cli.items() if lang == "ko")
    assert "비용법(比用法)" in ko
    assert not re.search(r"비용(?!법)|즉용", ko)
    liuyao = _run(("liuyao", "--coins", "797989", "--at", "2024-05-01T10:00:00+09:00", "--use", "官鬼"), "ko")
    assert "응(應) 용신 자신" in liuyao


# --- the Korean /shensha first page ------------------------------------------------------------------------

HANJA = "\u3400-\u9fff"
PAIR = re.compile(rf"[\uac00-\ud7a3][\uac00-\ud7a3·\s]*\([{HANJA}·]+\)")  # 한글(漢字)
QUOTE = re.compile(r"「[^」]*」")
HANJA_RUN = re.compile(rf"[{HANJA}](?:[{HANJA}\s·]*[{HANJA}]){{2,}}")


def hanja_runs(line: str) -> list[str]:
    """Runs of three or more Hanja (spaces and · between them) outside a 한글(漢字) pair or a 「」 quotation."""
    line = QUOTE.sub(" ", PAIR.sub(" ", re.sub(r"</?b>|\*\*", "", line)))
    return [
        m.group(0)
        for m in HANJA_RUN.finditer(line)
        if sum(ch.strip() != "" and ch != "·" for ch in m.group(0)) >= 3
    ]


def test_the_hanja_check_finds_what_it_looks_for():
    assert hanja_runs("<b>子</b> 紫微 災煞 天鼠") and hanja_runs("天乙貴人 丑未 · 福星貴人 寅")
    assert not hanja_runs("<b>자(子)</b> 자미 재살 천서 · 천을귀인(天乙貴人) 축·미 · 「天地既判」")


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
