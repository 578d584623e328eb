"""Whether the sun is above the horizon at an instant and place (for the ``daynight=sun`` option).

Low-precision solar position (Meeus, *Astronomical Algorithms* ch. 25, the NOAA solar calculator form):
within 0.15° of JPL DE440 over 1900–2050 (tests/liuren/test_sun.py), ample for a 晝/夜 decision. The sun is "up" when its
centre is above −0.833° (refraction 34′ plus the semi-diameter 16′), i.e. between sunrise and sunset.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from engine.errors import EngineInputError

HORIZON_DEG = -0.833


def solar_altitude(at: datetime, latitude: float, longitude: float) -> float:
    """Altitude of the sun's centre in degrees (geometric, without refraction)."""
    if at.tzinfo is None or at.utcoffset() is None:
        raise EngineInputError("error.calendar.naive_time", "naive datetime", value=at.isoformat())
    if not -90.0 <= latitude <= 90.0 or not -180.0 <= longitude <= 180.0:
        raise EngineInputError(
            "error.liuren.bad_place", f"bad place {latitude}, {longitude}", lat=latitude, lon=longitude
        )
    utc = at.astimezone(UTC)
    jd = utc.timestamp() / 86400.0 + 2440587.5
    t = (jd - 2451545.0) / 36525.0
    l0 = math.radians((280.46646 + t * (36000.76983 + 0.0003032 * t)) % 360.0)
    m = math.radians(357.52911 + t * (35999.05029 - 0.0001537 * t))
    e = 0.016708634 - t * (0.000042037 + 0.0000001267 * t)
    c = (
        math.sin(m) * (1.914602 - t * (0.004817 + 0.000014 * t))
        + math.sin(2 * m) * (0.019993 - 0.000101 * t)
        + math.sin(3 * m) * 0.000289
    )
    omega = math.radians(125.04 - 1934.136 * t)
    lam = l0 + math.radians(c - 0.00569 - 0.00478 * math.sin(omega))
    eps0 = 23.0 + (26.0 + (21.448 - t * (46.815 + t * (0.00059 - t * 0.001813))) / 60.0) / 60.0
    eps = math.radians(eps0 + 0.00256 * math.cos(omega))
    decl = math.asin(math.sin(eps) * math.sin(lam))
    y = math.tan(eps / 2) ** 2
    eot = 4.0 * math.degrees(
        y * math.sin(2 * l0)
        - 2 * e * math.sin(m)
        + 4 * e * y * math.sin(m) * math.cos(2 * l0)
        - 0.5 * y * y * math.sin(4 * l0)
        - 1.25 * e * e * math.sin(2 * m)
    )  # minutes
    minutes = utc.hour * 60 + utc.minute + utc.second / 60 + utc.microsecond / 6e7
    true_solar = (minutes + eot + 4.0 * longitude) % 1440.0
    hour_angle = math.radians(true_solar / 4.0 - 180.0)
    lat = math.radians(latitude)
    sin_alt = math.sin(lat) * math.sin(decl) + math.cos(lat) * math.cos(decl) * math.cos(hour_angle)
    return math.degrees(math.asin(max(-1.0, min(1.0, sin_alt))))


def sun_is_up(at: datetime, latitude: float, longitude: float) -> bool:
    """True between sunrise and sunset (upper limb on the refracted horizon)."""
    return solar_altitude(at, latitude, longitude) > HORIZON_DEG
