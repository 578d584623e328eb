"""The 七政四餘 wheel model against the chart: each body on the ray of its longitude, inside its palace and
its 宿; twelve 30° palaces with 子 at the bottom; 28 宿 sectors; 命宮/身宮 marked (spec/qizheng.md §5–§7)."""

from __future__ import annotations

import math
from datetime import datetime

import pytest

from bot.images import qizheng
from engine.core.cycle import Branch
from engine.qizheng import MansionSet, PalaceSystem, QizhengOptions, natal_chart
from tests.images.cases import qizheng_case


def _in_sector(angle: float, start: float, end: float) -> bool:
    return (angle - start) % 360.0 < (end - start) % 360.0 or math.isclose((angle - start) % 360.0, 0.0)


def _charts():
    chart, _ = qizheng_case()
    yield chart
    at = datetime.fromisoformat("2024-02-04T16:27:08+08:00")
    yield natal_chart(
        at, 121.47, 31.23, QizhengOptions(palaces=PalaceSystem.ZHENG, mansions=MansionSet.SHOUSHI)
    )
    yield natal_chart(at, 126.98, 37.57, QizhengOptions(mansions=MansionSet.DELTA_ORI))
    yield natal_chart(at, 126.98, 37.57, QizhengOptions(mansions=MansionSet.EQUATORIAL))


IDS = ["seoul-1990", "zheng-shoushi", "delta-ori", "equatorial"]


@pytest.mark.parametrize("chart", list(_charts()), ids=IDS)
def test_each_body_is_drawn_at_its_longitude(chart):
    lay = qizheng.layout(chart, "ko")
    xu = next(p for p in lay.palaces if p.branch is Branch.XU)  # 戌 begins at λ − A = 0° (spec §5)
    assert len(lay.bodies) == 11
    for mark in lay.bodies:
        body = chart.bodies[mark.name]
        # angle from the start of 戌, counter-clockwise, equals the (sidereal-corrected) longitude
        assert (mark.angle - xu.start) % 360.0 == pytest.approx(
            (body.longitude - chart.palace_offset) % 360.0
        )
        # the label is on that ray
        ray = math.degrees(math.atan2(qizheng.CY - mark.y, mark.x - qizheng.CX)) % 360.0
        assert ray == pytest.approx(mark.angle % 360.0, abs=1e-6)
        assert math.hypot(mark.x - qizheng.CX, mark.y - qizheng.CY) == pytest.approx(mark.radius)
        assert mark.radius < qizheng.R_PALACE
        palace = next(p for p in lay.palaces if p.branch == body.palace)
        assert _in_sector(mark.angle, palace.start, palace.end)
        assert mark.retrograde == (body.speed < 0)
        assert mark.motion == body.motion and mark.marked == (body.motion in ("逆", "留"))


@pytest.mark.parametrize("chart", list(_charts()), ids=IDS)
def test_each_body_lies_in_its_mansion_sector(chart):
    lay = qizheng.layout(chart, "lzh")
    sectors = sorted(lay.mansions, key=lambda m: m.longitude)
    assert len(sectors) == 28 and len({m.name for m in sectors}) == 28
    for mark in lay.bodies:
        body = chart.bodies[mark.name]
        i = next(k for k, m in enumerate(sectors) if m.name == body.mansion)
        start, end = sectors[i].start, sectors[(i + 1) % 28].start
        assert _in_sector(mark.angle, start, end), (mark.name, body.mansion)


def test_vernal_equinox_sun_at_start_of_xu():
    """Independent physics: March equinox 2000-03-20 07:35 UTC (USNO): the Sun at λ = 0°, the start of 戌."""
    chart = natal_chart(datetime.fromisoformat("2000-03-20T07:35:00+00:00"), 0.0, 51.5)
    lay = qizheng.layout(chart, "ko")
    xu = next(p for p in lay.palaces if p.branch is Branch.XU)
    sun = next(b for b in lay.bodies if b.name == "太陽")
    assert abs(((sun.angle - xu.start + 180.0) % 360.0) - 180.0) < 0.02


def test_palaces_are_thirty_degrees_with_zi_at_the_bottom():
    chart, _ = qizheng_case()
    lay = qizheng.layout(chart, "ko")
    assert sorted(p.branch for p in lay.palaces) == list(Branch)
    for p in lay.palaces:
        assert p.end - p.start == pytest.approx(30.0)
        assert p.house == chart.house_of_branch(p.branch).name
        assert p.ming == (p.branch == chart.ming) and p.shen == (p.branch == chart.shen)
    centre = {p.branch: (p.start + 15.0) % 360.0 for p in lay.palaces}
    assert centre[Branch.ZI] == pytest.approx(270.0)  # bottom, as the 地盤 子 of the 式盤
    assert centre[Branch.WU] == pytest.approx(90.0)
    assert centre[Branch.MAO] == pytest.approx(180.0)
    # branches follow 子丑寅卯 clockwise on the picture (longitude counter-clockwise)
    assert (centre[Branch.CHOU] - centre[Branch.ZI]) % 360.0 == pytest.approx(330.0)
    houses = [p for p in lay.palaces if p.ming]
    assert len(houses) == 1 and houses[0].house == "命宮"


def test_labels_and_retrograde_marks_do_not_overlap():
    for chart in _charts():
        marks = qizheng.layout(chart, "ko").bodies
        for i, a in enumerate(marks):
            for b in marks[i + 1 :]:
                for pa in qizheng._occupied(a):
                    for pb in qizheng._occupied(b):
                        assert math.dist(pa, pb) >= qizheng.LABEL_GAP, (a.name, b.name)


def test_header_birth_place_options():
    chart, place = qizheng_case()
    lay = qizheng.layout(chart, "ko", place)
    text = "\n".join(lay.header)
    assert "1990-05-17 14:30 UTC+09:00" in text
    assert "서울" in text and "126.98" in text and "37.57" in text
    assert "庚午" in text  # 1990 = 庚午年
    assert "회귀" in text  # the palace option in force


def test_station_and_retrograde_are_written_beside_the_body():
    """Saturn stood still (turned retrograde) on 2024-06-29 (almanac): 土 carries 留; 羅計 (mean nodes) 逆."""
    chart = natal_chart(datetime.fromisoformat("2024-06-29T12:00+09:00"), 126.98, 37.57)
    lay = qizheng.layout(chart, "lzh")
    saturn = next(b for b in lay.bodies if b.name == "土星")
    assert saturn.motion == "留" and saturn.marked
    for b in lay.bodies:
        near = {
            t.text
            for t in lay.scene.texts()
            if math.isclose(t.x, b.x + qizheng.RETRO_OFFSET[0])
            and math.isclose(t.y, b.y + qizheng.RETRO_OFFSET[1])
        }
        assert near == ({b.motion} if b.marked else set()), b.name


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize("chart", list(_charts()), ids=IDS)
def test_the_picture_gives_mansion_degrees_as_the_text_does(chart, lang):
    # issue 33: the text gives the degrees past the mansion's 距星 (위수(胃宿) 9.3°); the picture printed the
    # ordinal degree (胃 10도). One convention: the same number, one decimal, with °.
    from bot.images.scene import Text

    lay = qizheng.layout(chart, lang)
    texts = [p.text for p in lay.scene.items if isinstance(p, Text)] + list(lay.header)
    for body in chart.bodies.values():
        shown = f"{body.mansion_degree:.1f}°"
        assert any(body.mansion in t and shown in t for t in texts), (body.name, shown)
    assert any(f"{chart.ming_mansion.degree:.1f}°" in t for t in lay.header)
    assert not any(t.endswith("도") or "度 " in t or t.endswith("度") for t in texts)


def test_ko_table_and_header_give_hangul_with_the_characters():
    """docs/style.md: a ko picture gives 한글(漢字) every time — each body's row (name, palace, mansion) and the
    header's pillars and 命宮; the lzh table keeps the characters alone (issue 33 item 6)."""
    from bot.i18n import term
    from bot.images.scene import Text

    chart, place = qizheng_case()
    lay = qizheng.layout(chart, "ko", place)
    texts = [p.text for p in lay.scene.items if isinstance(p, Text)]
    for body in chart.bodies.values():
        row = next(t for t in texts if t.startswith(f"{term('ko', body.name)}({body.name}) "))
        palace = body.palace.char
        assert f"{term('ko', palace)}({palace})" in row
        assert f"{term('ko', body.mansion + '宿')}({body.mansion}宿)" in row
    header = " · ".join(lay.header)
    assert f"{term('ko', chart.year.chars)}({chart.year.chars})" in header
    assert f"{term('ko', chart.ming.char)}({chart.ming.char})" in header
    lzh = qizheng.layout(chart, "lzh", place)
    rows = [p.text for p in lzh.scene.items if isinstance(p, Text) and p.text.startswith(tuple(chart.bodies))]
    assert len(rows) == len(chart.bodies) and not any("(" in r for r in rows)
