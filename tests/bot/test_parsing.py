"""Command-line parsing and validation (both languages' argument forms)."""

from __future__ import annotations

from datetime import datetime

import pytest

from bot.commands import COMMANDS, CommandError, lookup, split_command
from bot.features.common import parse_branch, parse_ganzhi, parse_local_datetime
from bot.features.liuren.command import parse_cast_args
from bot.features.shensha.command import parse_shensha_args
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError


def test_split_command_strips_botname_and_fullwidth():
    assert split_command("/cast now") == ("cast", ("now",))
    assert split_command("/cast@sikpan_bot 2026-11-29 23:10") == ("cast", ("2026-11-29", "23:10"))
    assert split_command("／shensha\u3000甲子　寅") == ("shensha", ("甲子", "寅"))
    assert split_command("  /HELP  ") == ("HELP", ())
    assert split_command("hello") is None
    assert split_command("/") is None
    assert split_command("") is None


def test_registry_has_every_issue_7_command_with_ascii_names():
    for name in ("start", "help", "cast", "shensha", "liuyao", "qizheng", "history", "show", "forget"):
        assert name in COMMANDS, name
    for name in ("lang", "tz", "place", "settings"):
        assert name in COMMANDS, name
    for spec in COMMANDS.values():
        # Telegram setMyCommands: 1–32 of a–z 0–9 _ (spec/platforms.md §2.2)
        assert spec.name.isascii() and spec.name.replace("_", "").isalnum() and spec.name.islower()
        assert 1 <= len(spec.name) <= 32
        for arg in spec.args:
            assert (
                arg.name.isascii()
                and arg.name.islower()
                and arg.type in ("string", "integer", "number", "boolean")
            )


def test_korean_and_chinese_aliases():
    assert lookup("점").name == "cast"
    assert lookup("신살").name == "shensha"
    assert lookup("CAST").name == "cast"
    assert lookup("nope") is None


@pytest.mark.parametrize("word", ["now", "NOW", "지금", "今", "現在"])
def test_cast_now_words(word):
    assert parse_cast_args((word,)) == ("now", None)


def test_cast_no_argument_is_now():
    assert parse_cast_args(()) == ("now", None)


@pytest.mark.parametrize(
    "tokens",
    [("2026-11-29", "23:10"), ("2026-11-29T23:10",), ("2026.11.29", "23:10"), ("2026/11/29", "23:10:00")],
)
def test_cast_local_datetime_forms(tokens):
    kind, value = parse_cast_args(tokens)
    assert kind == "local"
    assert value == datetime(2026, 11, 29, 23, 10)


def test_cast_iso_with_offset_is_an_instant():
    kind, value = parse_cast_args(("2024-02-04T16:27:08+08:00",))
    assert kind == "local" and value.utcoffset().total_seconds() == 8 * 3600


@pytest.mark.parametrize(
    "tokens",
    [("庚辰", "8"), ("경진", "8"), ("庚辰", "8局"), ("경진", "8국"), ("庚辰日", "第8局"), ("경진일", "8")],
)
def test_cast_day_and_ju_in_both_scripts(tokens):
    assert parse_cast_args(tokens) == ("ju", (GanZhi.parse("庚辰"), 8))


def test_cast_day_general_hour():
    assert parse_cast_args(("甲子", "亥將", "午")) == ("board", (GanZhi.parse("甲子"), Branch.HAI, Branch.WU))
    assert parse_cast_args(("갑자", "해", "오")) == ("board", (GanZhi.parse("甲子"), Branch.HAI, Branch.WU))


@pytest.mark.parametrize(
    ("tokens", "code"),
    [
        (("庚辰", "13"), "bot.error.bad_ju"),
        (("庚辰", "0"), "bot.error.bad_ju"),
        (("庚辰", "x"), "bot.error.bad_ju"),
        (("2026-13-01", "10:00"), "bot.error.bad_datetime"),
        (("2026-02-30", "10:00"), "bot.error.bad_datetime"),
        (("2026-11-29",), "bot.error.missing_time"),
        (("2026-11-29", "25:00"), "bot.error.bad_datetime"),
        (("庚辰", "8", "9", "10"), "bot.error.cast_usage"),
    ],
)
def test_cast_bad_input(tokens, code):
    with pytest.raises(CommandError) as err:
        parse_cast_args(tokens)
    assert err.value.code == code


def test_cast_bad_ganzhi_is_an_engine_error():
    with pytest.raises(EngineInputError) as err:
        parse_cast_args(("甲丑", "8"))
    assert err.value.code == "error.not_a_ganzhi"


def test_korean_ganzhi_and_branch_readings():
    assert parse_ganzhi("갑자") == GanZhi.parse("甲子")
    assert parse_ganzhi("신유") == GanZhi.parse("辛酉")  # 신 as a stem is 辛
    assert parse_ganzhi("경신") == GanZhi.parse("庚申")  # 신 as a branch is 申
    assert parse_branch("인") == Branch.YIN
    assert parse_branch("寅月") == Branch.YIN
    assert parse_branch("신") == Branch.SHEN
    with pytest.raises(EngineInputError):
        parse_branch("갑")


def test_parse_local_datetime_rejects_non_dates():
    assert parse_local_datetime(("庚辰",)) is None
    assert parse_local_datetime(("now",)) is None


def test_shensha_arguments():
    parsed = parse_shensha_args(("甲子", "寅"))
    assert parsed == {"day": GanZhi.parse("甲子"), "month": Branch.YIN, "year": None, "hour": None}
    parsed = parse_shensha_args(("갑자", "인월", "갑진년", "오시"))
    assert parsed == {
        "day": GanZhi.parse("甲子"),
        "month": Branch.YIN,
        "year": GanZhi.parse("甲辰"),
        "hour": Branch.WU,
    }
    parsed = parse_shensha_args(("甲子", "寅", "午", "甲辰"))
    assert parsed["hour"] == Branch.WU and parsed["year"] == GanZhi.parse("甲辰")
    with pytest.raises(EngineInputError):
        parse_shensha_args(("甲丑",))


def test_fullwidth_input_is_folded():
    assert split_command("／cast　２０２６－１１－２９　２３：１０") == ("cast", ("2026-11-29", "23:10"))


def test_cast_time_only_means_today():
    assert parse_cast_args(("23:10",)) == ("today", "23:10")
