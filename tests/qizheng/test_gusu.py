"""古宿 (授時曆 二十八宿 widths, 《元史》卷54 步日躔) against the text's own sums, geometry and the chart option."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from importlib import resources

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.qizheng import QizhengOptions, build_chart, natal_chart
from engine.qizheng.chart import general_precession_arcsec, mansion_of, shoushi_mansions
from engine.qizheng.options import MansionSet
from engine.qizheng.tables import BODIES, mansions

ORDER = "角亢氐房心尾箕斗牛女虛危室壁奎婁胃昴畢觜參井鬼柳星張翼軫"
DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def data() -> dict:
    path = resources.files("engine.qizheng").joinpath("data", "ancient_mansions.json")
    return json.loads(path.read_text("utf-8"))


def chinese_int(text: str) -> int:
    """Classical numerals as written in the 曆經: 一百九, 九十四, 一十二, 八 …"""
    total, current = 0, 0
    for ch in text:
        if ch in DIGITS:
            current = DIGITS[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += current * 100
            current = 0
        else:
            raise ValueError(text)
    return total + current


def quarter_text_value(text: str) -> int:
    """「九十四度一十分太」 → 941075 (1/10000 度; 太 = ¾ 分 = 75 秒)."""
    deg, rest = text.split("度")
    value = chinese_int(deg) * 10000
    if rest.endswith("太"):
        value += 75
        rest = rest[:-1]
    if rest:
        assert rest.endswith("分")
        value += chinese_int(rest[:-1]) * 100
    return value


# The text's quarter sums (《元史》卷54 步日躔第三, 右東方七宿 … 右南方七宿), and its 周天.
TEXT_ECLIPTIC = ("七十八度一十二分", "九十四度一十分太", "八十三度九十五分", "一百九度八分")
TEXT_EQUATORIAL = ("七十九度二十分", "九十三度八十分太", "八十三度八十五分", "一百八度四十分")
ZHOUTIAN = 3652575  # 周天 三百六十五度二十五分七十五秒


def widths(frame: str) -> list[int]:
    return [int(r[frame]) for r in data()["mansions"]]


def test_order_and_names():
    assert "".join(r["name"] for r in data()["mansions"]) == ORDER
    assert [m.name for m in mansions()] == list(ORDER)


@pytest.mark.parametrize(("frame", "texts"), [("ecliptic", TEXT_ECLIPTIC), ("equatorial", TEXT_EQUATORIAL)])
def test_quarters_close_on_the_texts_own_sums(frame, texts):
    w = widths(frame)
    sums = [sum(w[7 * q : 7 * q + 7]) for q in range(4)]
    assert sums == [quarter_text_value(t) for t in texts]
    assert [q[f"{frame}_text"] for q in data()["quarters"]] == list(texts)
    assert sum(w) == ZHOUTIAN == data()["zhoutian"]


def test_quarter_text_parser():
    assert quarter_text_value("九十四度一十分太") == 941075
    assert quarter_text_value("一百九度八分") == 1090800
    assert quarter_text_value("八十三度九十五分") == 839500


def test_the_western_quarter_reading():
    # The circulating copy reads 畢 「十五六十」: its western entries then sum to 83.05, not the stated 83.95.
    w = dict(zip(ORDER, widths("ecliptic"), strict=True))
    west = [w[n] for n in "奎婁胃昴畢觜參"]
    assert sum(west) - w["畢"] + 156000 == 830500
    assert w["畢"] == 165000 and w["參"] == 102800 and w["亢"] == 95600


def test_ecliptic_width_is_bounded_by_the_equatorial_one():
    # An ecliptic arc between two hour circles lies between cos ε and sec ε times the equatorial arc (ε = 23.90 古度).
    eps = math.radians(23.90 * 360 / 365.2575)
    lo, hi = math.cos(eps), 1 / math.cos(eps)
    for name, h, e in zip(ORDER, widths("ecliptic"), widths("equatorial"), strict=True):
        assert lo <= h / e <= hi, name
    # …which the copy's 畢 15.60 against 赤道 畢 17.40 violates:
    assert 15.60 / 17.40 < lo


def julian_calendar_jdn(y: int, m: int, d: int) -> int:
    a = (14 - m) // 12
    yy, mm = y + 4800 - a, m + 12 * a - 3
    return d + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - 32083


def test_epoch_is_the_jiwei_day_of_the_1280_solstice():
    jdn = data()["anchor"]["epoch_jdn"]
    assert jdn == julian_calendar_jdn(1280, 12, 14)
    assert julian_calendar_jdn(1582, 10, 4) == 2299160  # check of the calendar formula
    assert GanZhi.of((jdn + 49) % 60).chars == "己未"  # 氣應 55.06 → 己未 (甲子 + 55)


def solstice_arc_by_vectors(arc_gudu: float) -> float:
    """Ecliptic arc (古度) from the solstice to the hour circle ``arc_gudu`` east of it, by plane intersection."""
    k = 360 / 365.2575
    eps = math.radians(23.90 * k)
    ra = math.radians(270 + arc_gudu * k)
    pole = (0.0, -math.sin(eps), math.cos(eps))  # ecliptic pole in equatorial coordinates
    normal = (-math.sin(ra), math.cos(ra), 0.0)  # normal of the hour-circle plane
    x = (
        normal[1] * pole[2] - normal[2] * pole[1],
        normal[2] * pole[0] - normal[0] * pole[2],
        normal[0] * pole[1] - normal[1] * pole[0],
    )
    # ecliptic longitude of x (rotate equatorial → ecliptic by +ε about the x axis)
    y_ecl = x[1] * math.cos(eps) + x[2] * math.sin(eps)
    lam = math.degrees(math.atan2(y_ecl, x[0])) % 360
    if abs(((lam - 270 - arc_gudu * k) + 180) % 360 - 180) > 90:
        lam = (lam + 180) % 360
    return (lam - 270) / k


def solstice_ecliptic_degree() -> float:
    # 冬至 at 赤道箕十度; the 斗 boundary is 10.40 − 10 = 0.40 赤道度 later; 黃道 箕 is 9.59 wide.
    return 9.59 - solstice_arc_by_vectors(0.40)


def test_solstice_anchor():
    anchor = data()["anchor"]
    assert anchor["solstice_equatorial"] == {"mansion": "箕", "degree": 100000, "text": "冬至日躔赤道箕十度"}
    x = solstice_ecliptic_degree()
    assert 9.22 < x < 9.23  # 黃道箕九度二十二分
    t0 = (anchor["epoch_jdn"] - 2451545.0) / 36525
    place = mansion_of(270.0, t0, MansionSet.SHOUSHI)
    assert place.name == "箕"
    assert place.degree * 365.2575 / 360 == pytest.approx(x, abs=1e-6)


def independent_layout(t_cent: float) -> list[tuple[str, float]]:
    """Mansion starts (ecliptic longitude of date) from the JSON widths, the anchor and p_A: no engine code."""
    k = 360 / 365.2575
    w = [x / 10000 for x in widths("ecliptic")]
    ji = ORDER.index("箕")
    ji_start = 270.0 - solstice_ecliptic_degree() * k
    t0 = (data()["anchor"]["epoch_jdn"] - 2451545.0) / 36525
    drift = (general_precession_arcsec(t_cent) - general_precession_arcsec(t0)) / 3600
    out = []
    for i, name in enumerate(ORDER):
        offset = sum(w[ji:i]) if i >= ji else -sum(w[i:ji])
        out.append((name, (ji_start + offset * k + drift) % 360))
    return out


def independent_place(lam: float, t_cent: float) -> tuple[str, float]:
    starts = independent_layout(t_cent)
    best = min(starts, key=lambda s: (lam - s[1]) % 360)
    return best[0], (lam - best[1]) % 360


def test_layout_matches_the_widths():
    table = sorted(shoushi_mansions(), key=lambda m: m.lon_j2000)
    spans = {m.name: (table[(i + 1) % 28].lon_j2000 - m.lon_j2000) % 360 for i, m in enumerate(table)}
    for name, w in zip(ORDER, widths("ecliptic"), strict=True):
        assert spans[name] == pytest.approx(w / 10000 * 360 / 365.2575, abs=1e-9)
    assert sum(spans.values()) == pytest.approx(360.0)
    # in 角…軫 order around the circle
    by_order = [
        m.name for m in sorted(shoushi_mansions(), key=lambda m: (m.lon_j2000 - table[0].lon_j2000) % 360)
    ]
    start = by_order.index("角")
    assert "".join(by_order[start:] + by_order[:start]) == ORDER


@pytest.mark.parametrize("t_cent", [-7.19, -1.0, 0.0, 0.9])
def test_boundaries_agree_with_an_independent_layout(t_cent):
    for name, start in independent_layout(t_cent):
        assert mansion_of(start + 0.0005, t_cent, MansionSet.SHOUSHI).name == name
        assert mansion_of(start + 0.0005, t_cent, MansionSet.SHOUSHI).degree == pytest.approx(
            0.0005, abs=1e-7
        )


def test_chart_with_the_option_reports_mansions_consistent_with_the_widths():
    at = datetime(1990, 5, 17, 5, 30, tzinfo=UTC)
    chart = natal_chart(at, 126.98, 37.57, QizhengOptions(mansions=MansionSet.SHOUSHI))
    assert chart.jd_tt is not None
    t_cent = (chart.jd_tt - 2451545.0) / 36525
    js = chart.to_json()
    assert js["options"]["mansions"] == "shoushi"
    for name in BODIES:
        body = js["bodies"][name]
        expected, degree = independent_place(body["longitude"], t_cent)
        assert body["mansion"] == expected, name
        assert body["mansion_degree"] == pytest.approx(degree, abs=2e-4), name


def test_default_is_unchanged():
    assert QizhengOptions().mansions == MansionSet.MODERN
    lon = {name: 17.0 + 31.0 * i for i, name in enumerate(BODIES)}
    kw = {"year": GanZhi.parse("庚午"), "month": Branch.SI, "hour": Branch.WEI, "jd_tt": 2448028.7}
    default = build_chart(lon, **kw)
    ancient = build_chart(lon, options=QizhengOptions(mansions=MansionSet.SHOUSHI), **kw)
    t_cent = (2448028.7 - 2451545.0) / 36525
    for name in BODIES:
        lam = lon[name] % 360
        x = (lam - general_precession_arcsec(t_cent) / 3600) % 360
        star = max((m for m in mansions() if m.lon_j2000 <= x), key=lambda m: m.lon_j2000, default=None)
        star = star or max(mansions(), key=lambda m: m.lon_j2000)
        assert default.bodies[name].mansion == star.name
    assert default.options.to_json()["mansions"] == "modern"
    assert [b.mansion for b in default.bodies.values()] != [b.mansion for b in ancient.bodies.values()]


@pytest.mark.parametrize(
    ("lang", "label"), [("lzh", "古宿（授時黃道宿度）"), ("ko", "고수(수시력 황도수도)")]
)
def test_cli_names_the_option_in_force(capsys, lang, label):
    from bot.cli import main

    argv = ["qizheng", "--at", "1990-05-17T14:30+09:00", "--lon", "126.98", "--mansions", "shoushi"]
    assert main([*argv, "--lang", lang]) == 0
    assert label in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["mansions"] == "shoushi"
