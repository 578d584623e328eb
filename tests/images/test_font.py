"""The shipped font holds every character the pictures can draw; the character set is complete (every
character any layout draws is in it); the font is the package's own file, not a system font."""

from __future__ import annotations

from dataclasses import replace
from importlib import resources

import pytest
from fontTools.ttLib import TTFont

from bot.i18n import LANGS
from bot.images import draw, liuren, liuyao, qizheng
from bot.images.charset import drawable_characters
from engine.core.cycle import Branch, all_ganzhi
from engine.liuren import chart_for_ju
from engine.liuyao import build_chart, cast_manual, hexagram_table
from engine.qizheng import QizhengOptions, find_place, places
from tests.images.cases import qizheng_case


def _cmap(bold: bool) -> set[int]:
    path = resources.files("bot.images").joinpath("data", draw.FONT_FILES[bold])
    with resources.as_file(path) as p:
        return set(TTFont(str(p)).getBestCmap())


@pytest.mark.parametrize("bold", [False, True])
def test_font_holds_every_drawable_character(bold):
    cmap = _cmap(bold)
    missing = sorted(ch for ch in drawable_characters() if ord(ch) not in cmap)
    assert not missing, "".join(missing) + " — run scripts/make_font_subset.py"


def test_charset_is_enumerated_from_the_tables():
    chars = drawable_characters()
    for gz in all_ganzhi():
        assert set(gz.chars) <= chars
    for h in hexagram_table():
        assert set(h.name) <= chars
    assert set("貴人螣蛇朱雀六合勾陳青龍天空白虎太常玄武太陰天后") <= chars
    assert set("角亢氐房心尾箕斗牛女虛危室壁奎婁胃昴畢觜參井鬼柳星張翼軫") <= chars


def test_every_drawn_character_is_in_the_charset():
    """All 720 課, all 64 卦 (static and all-moving) and 七政 charts under every option value, in both languages."""
    chars = drawable_characters()
    drawn: set[str] = set()
    for lang in LANGS:
        for day in all_ganzhi()[::7]:
            for ju in range(1, 13):
                drawn |= liuren.layout(chart_for_ju(day, ju, daytime=ju % 2 == 0), lang).scene.characters()
        for h in hexagram_table():
            for digits in (
                h.bits.replace("1", "7").replace("0", "8"),
                h.bits.replace("1", "9").replace("0", "6"),
            ):
                chart = build_chart(cast_manual(digits), Branch.YIN, all_ganzhi()[h.number % 60])
                drawn |= liuyao.layout(chart, lang).scene.characters()
        base, place = qizheng_case()
        drawn |= qizheng.layout(base, lang, place).scene.characters()
        for name, values in QizhengOptions.choices().items():
            for value in values[1:]:
                chart = replace(base, options=QizhengOptions.from_json({name: value}))
                drawn |= qizheng.layout(chart, lang, find_place(places()[0].name)).scene.characters()
    assert drawn - chars == set()


def test_font_is_the_shipped_subset():
    family, style = draw.font(30).getname()
    assert family == "Noto Sans CJK KR" and style == "Regular"
    assert draw.font(30, bold=True).getname()[1] == "Bold"
    licence = resources.files("bot.images").joinpath("data", "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence
