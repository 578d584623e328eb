"""Stored options read back (bot.features.options.from_json) are cached per the names, types and values given:
the same objects as read afresh, another value another object, and a bad row refused as before."""

from __future__ import annotations

import pytest

from bot.features import options as engine_options
from engine.liuren import GuiRule, Options, Shehai
from engine.liuyao import Options as LiuyaoOptions


@pytest.mark.parametrize(
    ("area", "options"),
    [
        ("liuren", Options()),
        ("liuren", Options(shehai=Shehai.MZJ, gui_rule=GuiRule.SANMING, bazhuan_first=False)),
        ("liuyao", LiuyaoOptions()),
    ],
)
def test_a_read_equals_the_options_written_and_is_kept(area: str, options: object) -> None:
    data = options.to_json()  # type: ignore[attr-defined]
    first = engine_options.from_json(area, data)
    assert first == options
    assert engine_options.from_json(area, dict(data)) is first  # the cache's


def test_another_value_is_another_key() -> None:
    plain = engine_options.from_json("liuren", Options().to_json())
    mzj = engine_options.from_json("liuren", {**Options().to_json(), "shehai": "mzj"})
    assert plain.shehai is Shehai.DEPTH and mzj.shehai is Shehai.MZJ
    # a flag given as a word is read as the flag (True), not taken for the cached True's key
    worded = engine_options.from_json("liuren", {"bazhuan_first": "false"})
    assert worded.bazhuan_first is False
    assert engine_options.from_json("liuren", {"bazhuan_first": False}) == worded


@pytest.mark.parametrize(
    "data",
    [
        {"colour": "red"},  # no such option
        {"shehai": "deep"},  # no such value
        {"shehai": ["mzj"]},  # no JSON scalar (unhashable: read uncached)
        {"liuyinyang_lowers": "maybe"},  # no flag
    ],
)
def test_a_bad_row_is_refused_each_time(data: dict[str, object]) -> None:
    for _ in range(2):
        with pytest.raises(ValueError):
            engine_options.from_json("liuren", data)
