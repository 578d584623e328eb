"""Classical Chinese replies are Classical Chinese (issue 15, point 3; docs/style.md).

Every sample of scripts/gen_samples.py — each command's reply (all views), the help of every command, the
errors a user meets, on the console, Telegram and Discord channels, and the ``sikpan`` subcommands — is
rendered in lzh, and each line must have

- no Hangul;
- no Latin word, beyond what a user types or a machine names: /commands and their arguments, --options and
  their values, zone names (Asia/Seoul), settings keys and values (``liuren.gui_rule = liuren``), URLs, UTC;
- no Arabic numeral, beyond clock times, dates, measurements (longitude, degrees, speeds) and the numbers a
  user types as a command's argument.

The user's own line (» … / $ …) is not checked: it is what they typed.
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import gen_samples  # noqa: E402

HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")

# spans a reader of lzh meets as typed or machine identifiers, removed before the checks (order matters)
IDENTIFIERS = [
    re.compile(r"https?://\S+"),
    re.compile(
        r"(?<![\w/])/[a-z_]+(?: (?:[A-Za-z0-9_:.+\-/|\[\]]+|[\u4e00-\u9fff]{1,3}))*"
    ),  # a command line (before a setting's key: /settings key value is one)
    re.compile(r"--[a-z][\w-]*(?:[ =](?:\{[^}]*\}|[A-Za-z0-9_|:\-.]+))?"),  # an option and its value
    re.compile(r"\b[a-z_]+(?:\.[a-z_]+)?\s*=\s*\S+(?: \([^)]*\))?"),  # a setting: key = value (choices)
    re.compile(r"\b[a-z_]+\.[a-z_]+\b|\b[a-z]+_[a-z_]+\b"),  # a setting's key alone
    re.compile(r"\[-h\]|-h\b|\{ko,lzh\}|\b(?:ko|lzh)\b"),  # the language codes a user types
    re.compile(r"\b[A-Z][A-Za-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?\b"),  # a zone name
    re.compile(r"\bUTC(?:[+-]\d{1,2}(?::\d{2})?)?|\bUT1\b"),  # UTC, an offset as typed: UTC+9, UTC+05:30
    re.compile(r"\b[A-Z]{2,}\b"),  # a metavar or a format a machine names: PATH, LON, JSON, PNG, ISO
    re.compile(r"[(（][A-Z][a-z]+(?: [A-Z][a-z]+)*[)）]"),  # a city's own name after its Chinese one
    re.compile(r"\bsikpan(?: [a-z]+)?\b"),
    re.compile(r"\bDiscord\b"),  # a platform's own name (Telegram is 電報)
    re.compile(r"(?<![\w])#\d+\b"),  # a record's number, as /show takes it
    # the words a command takes (its arguments, docs/bot.md): typed as they stand
    re.compile(r"\b(?:now|time|save|forget|reset|yes|on|off|liuyao|liuren)\b"),
]
TIMES_AND_MEASURES = [
    re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:[+-]\d{2}:\d{2})?)?"),  # a date, an instant
    re.compile(r"(?<!\d)\d{1,2}:\d{2}(?::\d{2})?(?!\d)"),  # a clock time
    re.compile(r"[+-]?\d+(?:\.\d+)?(?:°|′|″|/d|h\b|%|度|時)"),  # degrees, speeds, hours, percent
    re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])"),  # a measured value (longitude 126.98, an age 34.50)
    re.compile(r"(?<![\w])[+\-−]\d+\b"),  # a signed weight or offset (+2, -3)
]
LATIN = re.compile(r"[A-Za-z]{2,}")
DIGIT = re.compile(r"\d+")


@functools.cache
def sample_lines() -> tuple[tuple[str, str, str], ...]:
    """(where, line, what was typed) of every lzh line the samples give: each reply on the three channels with
    every page of a stored cast, the Discord embeds' titles and footers, and the ``sikpan`` subcommands (rendered
    once a session: ``test_wenyan`` reads the same lines)."""
    out = []
    for said, texts in gen_samples.chat_samples("lzh", pages=True):
        for channel, text in texts.items():
            out += [(f"{channel} «{said}»", line, said) for line in text.split("\n")]
    for cmd, text in gen_samples.cli_samples("lzh"):
        out += [(f"«{cmd}»", line, cmd) for line in text.split("\n")]
    return tuple(out)


@pytest.fixture(scope="module")
def lines() -> tuple[tuple[str, str, str], ...]:
    return sample_lines()


def _clean(line: str, said: str = "") -> str:
    # markup of the channels: Telegram HTML tags, Discord markdown and its escapes
    line = re.sub(r"</?(?:b|i|code|pre)>", "", line)
    line = re.sub(r"\\([\\*_`~|>\[\]#.\-])", r"\1", line).replace("`", " ").replace("**", " ")
    for pattern in IDENTIFIERS + TIMES_AND_MEASURES:
        line = pattern.sub(" ", line)
    # what the user typed may come back (an unknown setting, a record number)
    for token in said.split():
        if not token.startswith("/"):
            line = line.replace(token, " ")
    return line


def test_the_samples_cover_every_command_and_channel(lines):
    said = {where for where, _, _ in lines}
    from bot.commands import COMMANDS

    for name in COMMANDS:
        assert any(f"«/help {name}»" in w for w in said), name
    for channel in ("console", "telegram", "discord"):
        assert any(w.startswith(channel) for w in said)


def test_no_hangul(lines):
    bad = [(w, line) for w, line, _ in lines if HANGUL.search(line)]
    assert bad == []


def test_no_latin_word_beyond_identifiers(lines):
    bad = [(w, line) for w, line, typed in lines if LATIN.search(_clean(line, typed))]
    assert bad == []


def test_no_arabic_numeral_beyond_times_dates_and_measures(lines):
    bad = [(w, line) for w, line, typed in lines if DIGIT.search(_clean(line, typed))]
    assert bad == []


HALF_WIDTH = re.compile(r"[\u4e00-\u9fff）」》](?:\*\*|</b>)?:|[\u4e00-\u9fff] ?\((?=[^)]*[\u4e00-\u9fff])")


def test_full_width_punctuation_after_chinese(lines):
    """A colon or an opening parenthesis after a Chinese character is full-width: 朱雀：信息, 亥（遁 己）."""
    bad = [(w, line) for w, line, _ in lines if HALF_WIDTH.search(line)]
    assert bad == []


def test_the_checks_catch_what_they_look_for():
    assert HALF_WIDTH.search("※ 朱雀: 信息") and HALF_WIDTH.search("亥 (遁 己)")
    assert not HALF_WIDTH.search("12:30 Asia/Seoul (UTC+09:00)")
    assert DIGIT.search(_clean("第7局")) and DIGIT.search(_clean("6爻"))
    assert LATIN.search(_clean("例課第一（seed 003 原文）"))
    assert HANGUL.search("別名: 점, 과, 六壬")
    assert not DIGIT.search(_clean("/daily 07:30 · 2026-12-01 · 經度 126.98 · +0.985°/d"))
    assert not LATIN.search(_clean("/tz Asia/Seoul · liuren.gui_rule = liuren (liuren | sanming)"))
