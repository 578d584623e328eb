"""The 六爻 layout model against the chart: lines bottom-up, ○/× marks, 變卦, 世應, 伏神 (spec/liuyao.md)."""

from __future__ import annotations

import pytest

from bot.images import liuyao
from bot.images.scene import Box
from engine.core.cycle import Branch, GanZhi
from engine.liuyao import build_chart, cast_manual


def _layout(digits: str, lang: str = "ko"):
    return liuyao.layout(build_chart(cast_manual(digits), Branch.YIN, GanZhi.parse("戊戌")), lang)


def test_lines_are_drawn_bottom_up():
    rows = _layout("797979").rows
    assert [r.position for r in rows] == [1, 2, 3, 4, 5, 6]
    ys = [r.y for r in rows]
    assert ys == sorted(ys, reverse=True)  # line 1 lowest on the picture


@pytest.mark.parametrize("digits", ["797979", "686868", "877777", "777887", "696969", "788878"])
def test_rows_follow_the_digits(digits):
    """6 老陰 (moving, ×), 7 少陽, 8 少陰, 9 老陽 (moving, ○); the 變卦 line flips on a moving line."""
    lay = _layout(digits)
    for row, d in zip(lay.rows, digits):
        assert row.yang == (d in "79")
        assert row.moving == (d in "69")
        assert row.mark == {"9": "○", "6": "×"}.get(d)
        if row.changed_yang is not None:
            assert row.changed_yang == (row.yang != row.moving)


def test_qian_zhi_jiji():
    """797979: 乾為天 (本宮, 世 6 應 3 by 尋世訣) moving 2 4 6 → 水火既濟 (101010 bottom first)."""
    lay = _layout("797979")
    assert "乾為天" in lay.title and "水火既濟" in lay.title
    assert [r.shi for r in lay.rows] == [False] * 5 + [True]
    assert [r.ying for r in lay.rows] == [False, False, True, False, False, False]
    assert [r.changed_yang for r in lay.rows] == [True, False, True, False, True, False]
    assert [r.ganzhi for r in lay.rows] == ["甲子", "甲寅", "甲辰", "壬午", "壬申", "壬戌"]  # 乾 納甲
    assert [r.changed is not None for r in lay.rows] == [False, True, False, True, False, True]


def test_dachu_hidden_spirits():
    """spec/liuyao.md §2 worked example: 大畜 lacks 父母 and 子孫; 伏 丙午 父母 under line 2, 丙申 子孫 under 3."""
    lay = _layout("777887")  # 乾 below, 艮 above
    assert "山天大畜" in lay.title
    assert lay.rows[1].hidden == (("父母", "丙午"),)
    assert lay.rows[2].hidden == (("子孫", "丙申"),)
    assert all(not r.hidden for i, r in enumerate(lay.rows) if i not in (1, 2))


def test_bars_in_scene_match_rows():
    lay = _layout("686878")
    for row in lay.rows:
        bars = [
            b
            for b in lay.scene.items
            if isinstance(b, Box) and b.fill is not None and b.y0 < row.y < b.y1 and b.x1 <= liuyao.BAR[1]
        ]
        assert len(bars) == (1 if row.yang else 2)
        assert {b.fill for b in bars} == {"red" if row.moving else "ink"}


def test_static_cast_has_no_changed_hexagram():
    lay = _layout("787878", "lzh")
    assert all(r.changed_yang is None and r.changed is None and r.mark is None for r in lay.rows)
    assert "六爻安靜" in " ".join(lay.header)


def test_header_month_day_xunkong():
    lay = _layout("797979", "lzh")
    # 戊戌 in the 甲午旬: 辰巳 空; 797979 is 乾為天, a 六沖卦 (the flags close the first line)
    assert lay.header[0] == "寅月 · 戊戌日 · 旬空辰巳 · 六沖卦"


def test_use_god_is_framed():
    """--use 官鬼: the visible 官鬼 lines are framed; a 六親 the 卦 lacks is framed on its 伏神 (spec §2)."""
    chart = build_chart(
        cast_manual("777887"), Branch.YIN, GanZhi.parse("戊戌"), use="父母"
    )  # 大畜 lacks 父母
    lay = liuyao.layout(chart, "lzh")
    assert [r.hidden_use for r in lay.rows] == [False, True, False, False, False, False]
    assert not any(r.use for r in lay.rows)
    assert "用神父母" in lay.header[0]
    chart = build_chart(cast_manual("797979"), Branch.YIN, GanZhi.parse("戊戌"), use="官鬼")
    rows = liuyao.layout(chart, "ko").rows
    assert [r.use for r in rows] == [r.relative == "官鬼" for r in rows] and any(r.use for r in rows)
    framed = [b for b in liuyao.layout(chart, "ko").scene.items if isinstance(b, Box) and b.outline == "red"]
    assert len(framed) == sum(r.use for r in rows)


def test_kept_row_labels_and_bars_lay_out_the_scene_built_afresh(monkeypatch):
    """The rows' labels (``scene.kept_text``) and bars (``liuyao._bar``) built once give the scene of building
    every item anew, over varied charts and both languages, and the kept labels stay within their bound."""
    import random

    from bot.images import scene as scene_module
    from bot.images.scene import Anchor, Text
    from engine.liuyao import cast_coins

    charts = [
        (
            build_chart(cast_coins(random.Random(i)), Branch(i % 12), GanZhi.of(7 * i % 60)),
            ("ko", "lzh")[i % 2],
        )
        for i in range(60)
    ]
    kept = [liuyao.layout(chart, lang).scene for chart, lang in charts]
    again = [liuyao.layout(chart, lang).scene for chart, lang in charts]
    for a, b in zip(kept, again, strict=True):  # every item of the rows is the object built the first time
        rows = [(x, y) for x, y in zip(a.items, b.items, strict=True) if getattr(x, "y", 0) > liuyao.ROWS_TOP]
        assert len(rows) > 20 and all(x is y for x, y in rows)

    def fresh_text(x, y, text, size, color="ink", bold=False):
        return Text(x, y, text, size, color, Anchor.MM, bold)

    monkeypatch.setattr(liuyao, "kept_text", fresh_text)
    monkeypatch.setattr(liuyao, "_bar", liuyao._bar.__wrapped__)
    fresh = [liuyao.layout(chart, lang).scene for chart, lang in charts]
    assert kept == fresh and kept[0].items[-1] is not fresh[0].items[-1]
    for i in range(scene_module.TEXTS_KEPT + 10):
        scene_module.kept_text(0, i, "甲", 30)
    assert scene_module.kept_text.cache_info().currsize == scene_module.TEXTS_KEPT


def test_a_korean_picture_reads_the_palace_stage_and_flags():
    # issue 33: 「乾궁 本宮」, 「六沖卦」 on a ko picture; docs/style.md: pictures give 한글(漢字) every time.
    # 坎為水 (878878) is 坎宮 本宮 and a 六沖卦 (《卜筮正宗》 八純卦 are 六沖).
    ko = _layout("878878").header
    assert ko[1].startswith("본괘 감궁(坎宮) 본궁(本宮)") and ko[0].endswith(" · 육충괘(六沖卦)")
    lzh = _layout("878878", "lzh").header
    assert "坎宮" in lzh[1] and "本宮" in lzh[1] and lzh[0].endswith("六沖卦")


def test_the_longest_korean_header_fits_the_picture():
    from itertools import product

    from bot.images.draw import font

    face = font(33)
    widest = 0.0
    for digits in ("".join(d) for d in product("6789", repeat=6)):
        for line in _layout(digits).header:
            widest = max(widest, face.getlength(line))
    assert widest < liuyao.WIDTH - 60, widest


def test_ko_cells_give_their_reading_under_the_characters():
    """docs/style.md: a ko picture gives 한글 with the characters — the header as 한글(漢字), each narrow cell
    (六神, 六親, 納甲, 五行, 伏神, 變爻) with its 한글 drawn under it; lzh draws no Hangul (issue 33 item 6)."""
    from bot.i18n import term
    from bot.images.scene import Text

    lay = _layout("777887", "ko")  # 山天大畜: moving lines none, 伏神 under lines 2 and 3
    texts = [(t.text, t.x, t.y) for t in lay.scene.items if isinstance(t, Text)]
    assert "산천대축(山天大畜)" in lay.title
    assert "무술(戊戌)" in lay.header[0] and "인(寅)" in lay.header[0]
    for row in lay.rows:
        for chars in (row.spirit, row.relative, row.ganzhi, row.element):
            cell = next((x, y) for t, x, y in texts if t == chars and abs(y - row.y) < 20)
            assert any(t == term("ko", chars) and x == cell[0] and y > cell[1] for t, x, y in texts), chars
    hidden = lay.rows[1].hidden[0]
    assert any(t == f"{term('ko', hidden[0])} {term('ko', hidden[1])}" for t, _, _ in texts)
    lzh = _layout("777887", "lzh")
    hangul = [
        t.text for t in lzh.scene.items if isinstance(t, Text) and any("가" <= ch <= "힣" for ch in t.text)
    ]
    assert hangul == [] and "山天大畜" in lzh.title and "(" not in lzh.title


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("乾為天", "건(乾)"),
        ("離為火", "이(離)"),
        ("火山旅", "여(旅)"),
        ("天澤履", "이(履)"),
        ("地澤臨", "임(臨)"),
    ],
)
def test_ko_column_head_reads_the_short_name_as_a_word(name, head):
    """The 本卦 over its bars by its short name as 한글(漢字), the reading a word of its own: 離 is 이 and 旅 여
    at a word's start (한글 맞춤법 제10–12항, 두음 법칙), as in 이위화(離為火); it read 乾(乾) before (issue 33)."""
    from bot.images.scene import Text
    from engine.liuyao import hexagram_by_name

    digits = "".join("7" if bit == "1" else "8" for bit in hexagram_by_name(name).bits)
    texts = {t.text for t in _layout(digits).scene.items if isinstance(t, Text)}
    assert f"본괘 {head}" in texts
    assert f"本卦 {head[-2]}" in {t.text for t in _layout(digits, "lzh").scene.items if isinstance(t, Text)}
