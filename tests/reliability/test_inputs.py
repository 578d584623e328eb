"""Bad input that used to raise or leak: zone names (#12.7), control/bidi characters and lone surrogates
(#12.10), the CLI's echo of a huge argument (#12.12), /forget leaving data in the -wal file (#12.11)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings
from bot.i18n import gettext
from bot.sanitize import bounded, clean
from bot.sending import split_telegram_html, utf16_len
from bot.views import CHANNELS, render
from bot.zones import zone_or_none

ROOT = Path(__file__).resolve().parents[2]

# The area names of the zone database are directories: ZoneInfo("America") raises IsADirectoryError.
AREAS = ("Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific",
         "Etc", "America/Argentina", "America/Indiana")  # fmt: skip


@pytest.mark.parametrize("name", [*AREAS, "x" * 5000, "Asia/Seoul\x00", "../../etc/passwd", "/etc/localtime",
                                  "zone.tab", "Asia//Seoul", "", " "])  # fmt: skip
def test_zone_or_none_never_raises(name):
    assert zone_or_none(name) is None


def test_zone_or_none_accepts_real_zones():
    for name in ("Asia/Seoul", "America/New_York", "America/Argentina/Buenos_Aires", "UTC", "Etc/GMT-9"):
        zone = zone_or_none(name)
        assert zone is not None and zone.key == name


@pytest.mark.parametrize("value", ["America", "Asia", "x" * 5000])
async def test_tz_command_with_an_area_name_is_a_localized_error(say, value):
    for lang in ("ko", "lzh"):
        answer = await say(f"/tz {value}", lang_hint=lang)
        assert answer.view == "error"
        assert answer.context["code"] == "bot.error.bad_tz"  # not bot.error.internal
        for channel in CHANNELS:
            text = render(answer, channel)
            assert gettext(lang, "bot.error.bad_tz", value="").split("{")[0][:6] in text
            assert len(text) < 400  # a 5,000-character value is not echoed whole


@pytest.mark.parametrize("value", ["America", "x" * 5000, "Europe"])
def test_sikpan_tz_env_is_a_config_error_not_a_traceback(value):
    with pytest.raises(ConfigError) as info:
        load_settings({"SIKPAN_TZ": value}, env_file="/nonexistent/.env")
    assert info.value.code == "bot.error.config_tz"
    assert len(str(info.value.params["value"])) <= 64


@pytest.mark.parametrize("value", ["America", "y" * 5000])
def test_sikpan_run_with_a_bad_sikpan_tz_exits_2_with_one_line(tmp_path, value):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "SIKPAN_"))}
    env.update(SIKPAN_TZ=value, SIKPAN_DB=str(tmp_path / "x.db"), SIKPAN_LANG="ko")
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run", "--env-file", str(tmp_path / "none.env")],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "SIKPAN_TZ" in lines[0] and len(lines[0]) < 200


def test_cli_echoes_only_a_bounded_prefix_of_a_huge_bad_argument(tmp_path):
    huge = "甲" + "z" * 100_000  # one argv string is capped at 128 KiB by Linux
    for argv in (["shensha", huge], ["cast", "--nosuch", huge], ["calendar", huge]):
        proc = subprocess.run(
            [sys.executable, "-m", "bot.cli", *argv, "--lang", "ko"],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 2
        assert len(proc.stderr) < 600, (argv[0], len(proc.stderr))
        assert "zzzz" in proc.stderr  # the prefix is still there, so the user sees what was wrong


# ---- control and bidi characters, lone surrogates ------------------------------------------------------

NASTY = "\x1b[31mred\x1b[0m \u202egnp.exe\u202c \u2066iso\u2069 \x07bell \x85nel \u200fRLM \ud800lone"


def test_clean_strips_controls_bidi_and_lone_surrogates_but_keeps_text():
    out = clean(NASTY + "\n\ttab 한글 甲子 𠀀 👩\u200d💻 a\u200bb")
    assert out == "[31mred[0m gnp.exe iso bell nel RLM lone\n\ttab 한글 甲子 𠀀 👩\u200d💻 a\u200bb"
    assert bounded("x" * 1000, 10) == "x" * 9 + "…"


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_echoed_input_has_no_control_or_bidi_characters_on_any_channel(say, lang):
    # an unknown command, an unparsable argument and a display name are all echoed back
    replies = [
        await say("/nosuch\u202e" + NASTY, lang_hint=lang),
        await say("/shensha \u202e甲子\x1b", lang_hint=lang),
        await say("/cast \u202e2026-01-01\x07", lang_hint=lang),
        await say("/start", lang_hint=lang, display_name=NASTY),
    ]
    for answer in replies:
        for channel in CHANNELS:
            text = render(answer, channel)
            assert clean(text) == text, (answer.view, channel, text)
            text.encode("utf-8")  # no lone surrogate: encodable


def test_the_telegram_splitter_survives_lone_surrogates():
    text = ("<b>제목</b>\n" + "가\ud800나 " * 900 + "\n") * 3
    parts = split_telegram_html(text, 4096)
    assert parts and all(utf16_len(p) >= 1 for p in parts)
    assert utf16_len("\udc00") == 1


# ---- /forget and the -wal file --------------------------------------------------------------------------

MARKER = "ForgetMeMarker7391"


async def test_forget_leaves_nothing_readable_in_the_wal_or_the_database(say, ctx):
    await say("/start", user="victim", display_name=MARKER)
    await say("/place 126.9780 37.5665", user="victim")
    assert (await say("/cast 2026-11-29 23:10", user="victim")).view == "cast"
    await say("/start", user="other", display_name="Bystander")
    wal = Path(ctx.storage.path + "-wal")
    raw = Path(ctx.storage.path).read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert MARKER.encode() in raw  # the data is on disk before /forget
    answer = await say("/forget yes", user="victim")
    assert answer.view == "forget" and answer.context["rows"] >= 2
    assert not wal.exists() or wal.stat().st_size == 0  # checkpointed and truncated
    raw = Path(ctx.storage.path).read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert MARKER.encode() not in raw
    assert b"Bystander" in raw  # other users' data is untouched


async def test_forget_beside_a_reader_answers_at_once_and_the_wal_is_clean_once_the_reader_ends(say, ctx):
    """Issue 36: another connection reading the file (``sikpan backup``'s backup API holds a read snapshot)
    keeps the log in use: /forget still answers within 1 s, other users are not held, and the log is
    truncated — nothing of the user left in it — as soon as the reader ends."""
    await say("/start", user="victim", display_name=MARKER)
    await say("/place 126.9780 37.5665", user="victim")
    assert (await say("/cast 2026-11-29 23:10", user="victim")).view == "cast"
    await say("/start", user="other", display_name="Bystander")
    wal = Path(ctx.storage.path + "-wal")
    reader = sqlite3.connect(f"file:{Path(ctx.storage.path).resolve()}?mode=ro", uri=True, timeout=10.0)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT COUNT(*) FROM history").fetchone()[0] >= 1  # its snapshot is held
        began = time.monotonic()
        answer = await say("/forget yes", user="victim")
        assert time.monotonic() - began <= 1.0
        assert answer.view == "forget" and answer.context["rows"] >= 2
        began = time.monotonic()
        assert (await say("/cast 2026-11-29 23:10", user="bystander")).view == "cast"  # a write, not held
        assert time.monotonic() - began <= 1.0
        await asyncio.sleep(0.3)
        assert MARKER.encode() in wal.read_bytes()  # the reader still holds the log: not truncated yet
    finally:
        reader.rollback()
        reader.close()
    await asyncio.wait_for(ctx.storage.backend.wiped(), 5.0)
    assert not wal.exists() or wal.stat().st_size == 0  # checkpointed and truncated
    raw = Path(ctx.storage.path).read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert MARKER.encode() not in raw
    assert b"Bystander" in raw


async def test_lone_surrogates_in_a_command_or_a_name_are_not_an_internal_error(say):
    # SQLite stores UTF-8: a lone surrogate used to make the history write fail (bot.error.internal)
    answer = await say("/cast 2026-11-29 23:10 \udfff", display_name="\ud800name")
    assert answer.context.get("code") != "bot.error.internal"
    assert (await say("/start", display_name="\udc00")).view == "start"
