"""Parsing what a cast asks for (engine.liuren.request), shared by ``sikpan cast`` and the chat ``/cast``."""

from __future__ import annotations

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuren.request import (
    CastRequest,
    chart_for_request,
    parse_hour,
    parse_month_general,
    parse_tokens,
)

B = Branch.from_char


def test_tokens() -> None:
    assert parse_tokens(["辛巳", "辰將", "巳時"]) == CastRequest(GanZhi.parse("辛巳"), None, B("辰"), B("巳"))
    assert parse_tokens(["庚辰", "8"]) == CastRequest(GanZhi.parse("庚辰"), 8)
    assert parse_tokens(["庚辰", "第8局", "夜"]) == CastRequest(GanZhi.parse("庚辰"), 8, night=True)
    assert parse_tokens(["辛巳", "2", "巳"]).hour == B("巳")
    assert parse_month_general("辰將") == parse_month_general("辰") == B("辰")
    assert parse_hour("巳時") == parse_hour("巳") == B("巳")


@pytest.mark.parametrize(
    ("tokens", "code"),
    [
        ([], "error.liuren.need_day"),
        (["甲丑"], "error.liuren.need_day"),
        (["辛巳", "13"], "error.liuren.bad_ju"),
        (["辛巳", "甲將"], "error.liuren.bad_general"),
        (["辛巳", "x時"], "error.liuren.bad_hour"),
    ],
)
def test_bad_tokens(tokens: list[str], code: str) -> None:
    with pytest.raises(EngineInputError) as err:
        parse_tokens(tokens)
    assert err.value.code == code


def test_seed003_entry7_month_general() -> None:
    # seed 003 entry 7 (辛巳 第2局) 課義 「斬關月將，萬里行程」: the 月將 is 辰 (the 斬關 辰 on 支上), so 占時 巳
    chart = chart_for_request(parse_tokens(["辛巳", "辰將", "巳時"]))
    assert chart.ju == 2 and chart.month_general == B("辰") and chart.hour == B("巳")
    assert chart.lessons[2].upper == B("辰")  # 「罡又加干支上，課名斬關」
    assert chart.assumed == ()
    # a 局 with the 月將 only: the 占時 follows from the 局, nothing assumed
    chart = chart_for_request(CastRequest(GanZhi.parse("辛巳"), 2, month_general=B("辰")))
    assert chart.hour == B("巳") and chart.assumed == ()
    # a 局 alone: the 占時 午 (first 晝 hour from 午) is assumed, and with it the 月將 巳 — and said so
    chart = chart_for_request(parse_tokens(["辛巳", "2"]))
    assert (chart.month_general, chart.hour) == (B("巳"), B("午"))
    assert chart.to_json()["assumed"] == {"month_general": "巳", "hour": "午"}


def test_mismatched_ju() -> None:
    with pytest.raises(EngineInputError) as err:
        chart_for_request(parse_tokens(["辛巳", "3", "辰將", "巳時"]))
    assert err.value.code == "error.liuren.ju_mismatch"
    with pytest.raises(EngineInputError) as err:
        chart_for_request(parse_tokens(["辛巳", "辰將"]))
    assert err.value.code == "error.liuren.need_ju"
