"""Positions against an independent JPL DE440 computation (skyfield's own apparent-place chain).

The engine runs its own vectorised chain on jplephem (light-time, solar deflection, aberration, then the
ecliptic-of-date matrix). The reference here is skyfield's ``observe().apparent()`` (deflection by Sun,
Jupiter and Saturn, its own light-time loop), taken to the true equator of date with ``radec(epoch="date")``
and rotated to the ecliptic by the true obliquity ε = ε_A(IAU 2006) + Δε computed in this file.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest
from skyfield.framelib import ecliptic_frame
from skyfield.nutationlib import iau2000a_radians

from engine.errors import OutOfRangeError
from engine.qizheng import ephemeris

ARCSEC = 1.0 / 3600.0
NAMES = {
    "太陽": "sun",
    "太陰": "moon",
    "水星": "mercury barycenter",
    "金星": "venus barycenter",
    "火星": "mars barycenter",
    "木星": "jupiter barycenter",
    "土星": "saturn barycenter",
}


def reference_longitude(eph, t, name: str) -> float:
    ra, dec, _ = eph["earth"].at(t).observe(eph[NAMES[name]]).apparent().radec(epoch="date")
    tc = (t.tt - 2451545.0) / 36525.0
    eps_a = (84381.406 - 46.836769 * tc - 0.0001831 * tc**2 + 0.00200340 * tc**3) / 3600.0  # IAU 2006
    _, deps = iau2000a_radians(t)
    eps = math.radians(eps_a) + float(deps)
    a, d = ra.radians, dec.radians
    y = math.sin(a) * math.cos(d) * math.cos(eps) + math.sin(d) * math.sin(eps)
    x = math.cos(a) * math.cos(d)
    return math.degrees(math.atan2(y, x)) % 360.0


def diff_arcsec(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0) * 3600.0


def sample_jds(n: int) -> np.ndarray:
    rng = np.random.default_rng(20241130)
    start, end = 2415020.5, 2488434.5  # 1900-01-01 … 2101-01-01
    return np.concatenate([[start + 0.3, 2451545.0, end - 0.7], rng.uniform(start, end, n)])


def test_seven_within_one_arcsecond_of_de440(eph, ts):
    worst = {name: 0.0 for name in NAMES}
    for jd in sample_jds(40):
        raw = ephemeris.compute_tt(float(jd), float(jd))
        t = ts.tt_jd(float(jd))
        for name in NAMES:
            worst[name] = max(
                worst[name], diff_arcsec(raw.longitudes[name], reference_longitude(eph, t, name))
            )
    assert max(worst.values()) < 1.0, worst


def test_sun_and_moon_agree_with_skyfield_to_ten_microarcseconds(eph, ts):
    # Same frame (skyfield's ecliptic_frame), same kernel data; for the Sun and Moon skyfield's extra deflection
    # by Jupiter and Saturn is below 1e-7″, so what is left is arithmetic. A retarded instant rounded to one JD
    # float (the code before the two-part TDB) moved the geocentric Moon by up to 0.0003″.
    worst = {"太陽": 0.0, "太陰": 0.0}
    for jd in sample_jds(40):
        raw = ephemeris.compute_tt(float(jd), float(jd))
        earth = eph["earth"].at(ts.tt_jd(float(jd)))
        for name in worst:
            _, lon, _ = earth.observe(eph[NAMES[name]]).apparent().frame_latlon(ecliptic_frame)
            worst[name] = max(worst[name], diff_arcsec(raw.longitudes[name], lon.degrees))
    assert max(worst.values()) < 1e-5, worst


def test_latitudes_within_one_arcsecond_of_de440(eph, ts):
    # apparent ecliptic latitude of date; the reference is skyfield's observe().apparent() in its ecliptic frame
    worst = 0.0
    for jd in sample_jds(12):
        raw = ephemeris.compute_tt(float(jd), float(jd))
        earth = eph["earth"].at(ts.tt_jd(float(jd)))
        for name, target in NAMES.items():
            lat, _, _ = earth.observe(eph[target]).apparent().frame_latlon(ecliptic_frame)
            worst = max(worst, abs(raw.latitudes[name] - lat.degrees) * 3600.0)
    assert worst < 1.0, worst
    assert (
        abs(raw.latitudes["太陽"]) < 1.5 / 3600.0 and abs(raw.latitudes["太陰"]) < 5.4
    )  # Moon's inclination


def test_civil_instant_is_converted_at_equal_tt(eph, ts):
    at = datetime(2024, 2, 4, 16, 27, 8, tzinfo=timezone(timedelta(hours=8)))
    raw = ephemeris.compute(at)
    t = ts.from_datetime(at)
    assert abs(raw.jd_tt - t.tt) * 86400 < 1e-3
    assert diff_arcsec(raw.longitudes["太陽"], reference_longitude(eph, t, "太陽")) < 1.0


def test_pre_1972_civil_time_is_ut1(ts):
    at = datetime(1950, 6, 1, tzinfo=UTC)
    raw = ephemeris.compute(at)
    assert abs(raw.jd_ut - ts.ut1(1950, 6, 1).ut1) * 86400 < 1e-3


def test_true_node_matches_osculating_elements_from_skyfield(eph, ts):
    for jd in sample_jds(6):
        raw = ephemeris.compute_tt(float(jd), float(jd))
        t = ts.tt_jd(float(jd))
        r, v = (eph["moon"] - eph["earth"]).at(t).frame_xyz_and_velocity(ecliptic_frame)
        h = np.cross(r.au, v.au_per_d)
        node = math.degrees(math.atan2(h[0], -h[1])) % 360.0
        assert diff_arcsec(raw.longitudes["true_node"], node) < 1.0
        # the osculating node oscillates about the mean one by at most ~1.9°
        assert diff_arcsec(raw.longitudes["true_node"], raw.longitudes["mean_node"]) < 2.0 * 3600
        assert diff_arcsec(raw.longitudes["true_apogee"], raw.longitudes["mean_apogee"]) < 31.0 * 3600


def test_mean_elements_follow_meeus_plus_nutation(ts):
    # Meeus ch. 47 at J2000.0: Ω = 125.0445479°, L′ − M′ + 180° = 263.3530513°; Δψ refers them to the true equinox.
    raw = ephemeris.compute_tt(2451545.0, 2451545.0)
    dpsi, _ = iau2000a_radians(ts.tt_jd(2451545.0))
    assert diff_arcsec(raw.longitudes["mean_node"], 125.0445479 + math.degrees(float(dpsi))) < 0.01
    assert diff_arcsec(raw.longitudes["mean_apogee"], 263.3530513 + math.degrees(float(dpsi))) < 0.01
    assert raw.speeds["mean_node"] < 0 < raw.speeds["mean_apogee"]
    # mean apogee period ≈ 8.85 years
    assert 360.0 / raw.speeds["mean_apogee"] / 365.25 == pytest.approx(8.85, abs=0.01)


def test_ziqi_epochs_and_period():
    # spec §4: 237.038993° at 1995-12-31 00:00 UT; MOIRA 230.5° at 1975-03-13 16:00 UT; 10227.1792-day period.
    q, m = ephemeris.ZiqiEpoch.QIZHENGSUAN, ephemeris.ZiqiEpoch.MOIRA
    assert ephemeris.ziqi_longitude(2450082.5, q) == pytest.approx(237.038993)
    assert ephemeris.ziqi_longitude(2450082.5 + 10227.1792, q) == pytest.approx(237.038993)
    assert ephemeris.ziqi_longitude(2442485.0 + 16 / 24, m) == pytest.approx(230.5)
    gap = (ephemeris.ziqi_longitude(2451545.0, q) - ephemeris.ziqi_longitude(2451545.0, m)) % 360.0
    assert min(gap, 360 - gap) == pytest.approx(99.1, abs=0.1)


def test_retrograde_flags_agree_with_longitude_change(eph, ts):
    for jd in sample_jds(12):
        raw = ephemeris.compute_tt(float(jd), float(jd))
        for name in ("水星", "金星", "火星", "木星", "土星"):
            before = reference_longitude(eph, ts.tt_jd(float(jd) - 0.5), name)
            after = reference_longitude(eph, ts.tt_jd(float(jd) + 0.5), name)
            change = (after - before + 180.0) % 360.0 - 180.0
            if abs(change) > 1e-3:  # skip only instants at a station, where the sign is undefined
                assert (raw.speeds[name] < 0) == (change < 0), (name, jd)


@pytest.mark.parametrize(
    "at",
    [
        datetime(1899, 12, 31, 23, 59, tzinfo=UTC),
        datetime(2101, 1, 1, tzinfo=UTC),
        datetime(1800, 1, 1, tzinfo=UTC),
    ],
)
def test_out_of_range_is_refused(at):
    with pytest.raises(OutOfRangeError) as err:
        ephemeris.compute(at)
    assert err.value.code == "error.qizheng.out_of_range"
