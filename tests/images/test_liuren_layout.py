"""The 大六壬 layout model against the chart and against the sources (spec/liuren.md §1, seed 003)."""

from __future__ import annotations

import pytest

from bot.images import liuren
from bot.images.scene import Text
from engine.core.cycle import Branch, GanZhi
from engine.liuren import General, chart_for_ju
from tests.images.cases import liuren_case


def _texts_at(scene, x, y, radius=80):
    return [t for t in scene.texts() if abs(t.x - x) < radius and abs(t.y - y) < radius]


def test_seed003_gengchen_ju8_board():
    """Seed 003 「庚辰日干上丑」 第8局: 丑 over 申 and 初傳 寅 over 酉 (spec/liuren.md §1, 秦瑞生)."""
    lay = liuren.layout(liuren_case(), "ko")
    by_earth = {c.earth: c for c in lay.cells}
    assert by_earth[Branch.SHEN].heaven is Branch.CHOU
    assert by_earth[Branch.YOU].heaven is Branch.YIN
    assert lay.lessons[0].upper == "丑" and lay.lessons[0].lower == "庚"
    assert [r.branch.char for r in lay.transmissions] == ["寅", "未", "子"]  # seed 003 庚辰 第8局 三傳 寅未子
    assert [r.dun_stem for r in lay.transmissions] == ["戊", "癸", "丙"]  # 甲戌旬: 寅戊 未癸 子丙


@pytest.mark.parametrize("ju", range(1, 13))
def test_tianpan_zi_sits_on_earth_ju_minus_one(ju):
    """spec §1: 天盤子 sits on 地盤 branch 局 − 1; the rest of the 天盤 follows in order."""
    lay = liuren.layout(chart_for_ju(GanZhi.parse("甲子"), ju), "lzh")
    by_earth = {c.earth: c for c in lay.cells}
    for earth in Branch:
        assert by_earth[earth].heaven == Branch((earth - (ju - 1)) % 12)


def test_board_is_the_classical_square():
    """巳午未申 along the top, 寅丑子亥 along the bottom (left to right), 辰卯 down the left, 酉戌 down the right."""
    lay = liuren.layout(liuren_case(), "ko")
    by_earth = {c.earth.char: c for c in lay.cells}
    assert [by_earth[b].column for b in "巳午未申"] == [0, 1, 2, 3]
    assert {by_earth[b].row for b in "巳午未申"} == {0}
    assert [by_earth[b].column for b in "寅丑子亥"] == [0, 1, 2, 3]
    assert {by_earth[b].row for b in "寅丑子亥"} == {3}
    assert [(by_earth[b].column, by_earth[b].row) for b in "辰卯酉戌"] == [(0, 1), (0, 2), (3, 1), (3, 2)]
    assert len({(c.column, c.row) for c in lay.cells}) == 12


@pytest.mark.parametrize("day", ["庚辰", "丙辰", "辛酉", "癸亥"])
@pytest.mark.parametrize("ju", [2, 8, 12])
def test_cells_carry_chart_heaven_and_generals(day, ju):
    chart = chart_for_ju(GanZhi.parse(day), ju)
    lay = liuren.layout(chart, "ko")
    step = 1 if chart.forward else -1
    for cell in lay.cells:
        assert cell.heaven == chart.heaven_over(cell.earth)
        assert cell.general == chart.general_on(cell.heaven)
        # the twelve generals run from the 貴人 in order, 順 or 逆 (spec §4)
        assert cell.general == General((cell.heaven - chart.guiren) * step % 12)
        assert cell.empty == (cell.heaven in chart.xunkong)
        # the scene writes the 天盤 branch big in the middle of the cell, the 天將 above it, the 地盤 small
        texts = _texts_at(lay.scene, cell.x, cell.y)
        big = [t for t in texts if t.size >= 60]
        assert [t.text for t in big] == [cell.heaven.char]
        assert big[0].color == ("red" if cell.empty else "ink")
        assert cell.general.char in {t.text for t in texts}
        assert cell.earth.char in {t.text for t in texts if t.size < 40}


def test_lessons_run_right_to_left_and_transmissions_top_down():
    lay = liuren.layout(liuren_case(), "ko")
    xs = [ls.x for ls in lay.lessons]
    assert xs == sorted(xs, reverse=True)
    ys = [r.y for r in lay.transmissions]
    assert ys == sorted(ys)


def test_empty_transmission_is_marked():
    """旬空: 庚辰 is in the 甲戌旬, 申酉 空; the 課 of 庚辰 whose 三傳 hold 申 or 酉 mark them 空 (no 遁干)."""
    charts = [chart_for_ju(GanZhi.parse("庚辰"), ju) for ju in range(1, 13)]
    chart = next(c for c in charts if any(t.is_empty for t in c.transmissions))
    lay = liuren.layout(chart, "lzh")
    for row in lay.transmissions:
        texts = [t for t in lay.scene.texts() if isinstance(t, Text) and abs(t.y - row.y) < 1]
        assert ("空" in {t.text for t in texts}) == row.empty
        assert row.empty == (row.branch in (Branch.SHEN, Branch.YOU))


def test_header_has_pillars_general_hour_ju_daynight_and_gui_direction():
    chart = liuren_case()
    lay = liuren.layout(chart, "lzh")
    text = " ".join(lay.header)
    assert "庚辰日" in text and "壬午時" in text  # 五鼠遁: 乙庚日 丙子起, 午時 壬午
    assert f"月將{chart.month_general.char}" in text and "占時午" in text and "第八局" in text
    assert "晝占" in text
    assert ("順行" if chart.forward else "逆行") in text
    assert "旬空申酉" in text


def test_ko_header_gives_hangul_with_the_characters():
    """docs/style.md: a picture's line gives 한글(漢字) — 庚辰日 第8局 of seed 003 (亥將 午時, 貴人 丑 on 申
    逆行, 旬空 申酉, 重審) reads so in ko, on four lines; lzh keeps its three (issue 33: 「庚辰일」, 「重審」)."""
    chart = liuren_case()
    assert liuren.layout(chart, "ko").header == (
        "일 경진(庚辰)  시 임오(壬午)",
        "월장 해(亥) · 점시 오(午) · 제8국 · 낮",
        "귀인 축(丑)이 신(申) 위 역행",
        "순공 신유(申酉) · 중심(重審)",
    )
    title = next(t for t in liuren.layout(chart, "ko").scene.items if isinstance(t, Text))
    assert title.text == "대육임 경진(庚辰)일 제8국"
    assert len(liuren.layout(chart, "lzh").header) == 3


def test_the_longest_korean_header_fits_the_picture():
    """Every 課 of the 720 by 晝 and 夜, with the asker's 年命, and a cast with its four pillars: each ko line
    fits between the margins, and four lines end above the board."""
    from datetime import datetime

    from bot.images.draw import font
    from engine.core.cycle import all_ganzhi
    from engine.liuren import chart_at

    face = font(liuren.HEADER_SIZE)
    ming = (GanZhi.parse("庚午"), GanZhi.parse("壬寅"))
    charts = [
        chart_for_ju(d, ju, daytime=dt) for d in all_ganzhi() for ju in range(1, 13) for dt in (True, False)
    ]
    charts.append(chart_at(datetime.fromisoformat("2024-02-04T12:30+09:00")))
    widest = max(face.getlength(line) for c in charts for line in liuren.header_lines(c, "ko", ming))
    assert widest < liuren.WIDTH - 60, widest
    top, step = liuren.HEADER_ROWS[4]
    assert top + 3 * step + liuren.HEADER_SIZE * 0.6 < liuren.BOARD_Y
