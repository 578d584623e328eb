"""The 七政四餘 natal chart as data (spec/qizheng.md §5–§9).

``chart_at`` computes the positions (and the motion: 順 逆 留, the eclipse of the birth) and calls
``build_chart``, which takes longitudes directly (so that tests and tools can construct charts by hand) and
derives every house, lord and year-based table. The chart does not read the 《八格賦》: ``engine.qizheng.patterns``
reads the chart, and ``engine.qizheng.natal`` attaches the results (and the 限 at a date).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Any, Protocol

from engine.core.cycle import BRANCHES, Branch, GanZhi, Stem
from engine.core.relations import Stage, stage_branch, yima
from engine.errors import EngineInputError
from engine.qizheng import ephemeris, gusu, motion, tables
from engine.qizheng.motion import Eclipse, Station
from engine.qizheng.options import (
    ApogeeModel,
    HourMethod,
    HuaMethod,
    MansionSet,
    MingMethod,
    Naming,
    NodeModel,
    PalaceSystem,
    QizhengOptions,
    ShenMethod,
    WeakGroup,
)
from engine.qizheng.tables import BODIES, HOUSES, Mansion
from engine.qizheng.xian import Daxian, daxian_table

J2000 = 2451545.0
DEFAULT_OPTIONS = QizhengOptions()


def general_precession_arcsec(t_cent: float) -> float:
    """IAU 2006 general precession in longitude p_A (Capitaine et al. 2003), arcseconds."""
    t = t_cent
    return 5028.796195 * t + 1.1054348 * t**2 + 0.00007964 * t**3 - 0.000023857 * t**4


def mean_obliquity(t_cent: float) -> float:
    """IAU 2006 mean obliquity of the ecliptic ε_A (Capitaine et al. 2003), degrees."""
    t = t_cent
    arcsec = 84381.406 - 46.836769 * t - 0.0001831 * t**2 + 0.00200340 * t**3 - 5.76e-7 * t**4
    return arcsec / 3600.0


def right_ascension(longitude: float, latitude: float, obliquity: float) -> float:
    """Right ascension (degrees) of ecliptic (λ, β) for obliquity ε."""
    lam, beta, eps = math.radians(longitude), math.radians(latitude), math.radians(obliquity)
    y = math.sin(lam) * math.cos(eps) - math.tan(beta) * math.sin(eps)
    return math.degrees(math.atan2(y, math.cos(lam))) % 360.0


def zheng_offset(t_cent: float) -> float:
    """鄭氏 sidereal palace offset A: 4.0° at 1300-01-01 plus general precession since (spec §5)."""
    return 4.0 + (general_precession_arcsec(t_cent) - general_precession_arcsec(-7.0)) / 3600.0


def palace_of(longitude: float, offset: float = 0.0) -> Branch:
    """Branch of the 30° palace holding a longitude: (10 − ⌊λ/30°⌋) mod 12 (戌 = 0–30°)."""
    return BRANCHES[(10 - math.floor(((longitude - offset) % 360.0) / 30.0)) % 12]


def palace_start(branch: Branch, offset: float = 0.0) -> float:
    return (((10 - int(branch)) % 12) * 30.0 + offset) % 360.0


def hour_branch(hours: float) -> Branch:
    """時辰 of a local time in hours: ⌊(h + 1)/2⌋ mod 12, 子 = 23:00–01:00."""
    return Branch(math.floor(((hours % 24.0) + 1.0) / 2.0) % 12)


def ming_by_sun_hour(sun_palace: Branch, hour: Branch) -> Branch:
    """「太陽加時，逢卯安命」: 命 = (sunPalace + 3 − hour) mod 12 (spec §7)."""
    return Branch((int(sun_palace) + 3 - int(hour)) % 12)


def ming_by_sunrise(sun_palace: Branch, hour: Branch, sunrise_hour: Branch) -> Branch:
    """太陽加時, counting forward until the hour of the actual sunrise (MOIRA option): sun + sunrise − hour."""
    return Branch((int(sun_palace) + int(sunrise_hour) - int(hour)) % 12)


def sunrise_apparent_hours(sun_longitude: float, obliquity_deg: float, lat_deg: float) -> float | None:
    """Local apparent solar time of sunrise (Sun's centre at h0 = −0°50′, Meeus ch. 15); None if it never rises/sets.

    The declination is the Sun's at the birth instant (sin δ = sin ε sin λ; ecliptic latitude < 1″).
    """
    dec = math.asin(math.sin(math.radians(obliquity_deg)) * math.sin(math.radians(sun_longitude)))
    phi, h0 = math.radians(lat_deg), math.radians(-50.0 / 60.0)
    cos_h = (math.sin(h0) - math.sin(phi) * math.sin(dec)) / (math.cos(phi) * math.cos(dec))
    if not -1.0 <= cos_h <= 1.0:
        return None
    return 12.0 - math.degrees(math.acos(cos_h)) / 15.0


def shen_by_hour(moon_palace: Branch, hour: Branch) -> Branch:
    """「以生時加太陰宮，逆數見酉」: 身 = (moonPalace + hour − 9) mod 12."""
    return Branch((int(moon_palace) + int(hour) - 9) % 12)


def ascendant_longitude(ramc_deg: float, obliquity_deg: float, lat_deg: float) -> float:
    """Ecliptic longitude of the rising point: atan2(cos θ, −(sin θ cos ε + tan φ sin ε))."""
    th, eps, phi = math.radians(ramc_deg), math.radians(obliquity_deg), math.radians(lat_deg)
    y = math.cos(th)
    x = -(math.sin(th) * math.cos(eps) + math.tan(phi) * math.sin(eps))
    return math.degrees(math.atan2(y, x)) % 360.0


@dataclass(frozen=True, slots=True)
class MansionPlace:
    mansion: Mansion
    degree: float  # real degrees from the 距星 (0-based)

    @property
    def name(self) -> str:
        return self.mansion.name

    @property
    def lord(self) -> str:
        return self.mansion.lord


@cache
def shoushi_mansions() -> tuple[Mansion, ...]:
    """古宿 (授時 黃道宿度): the epoch boundaries (冬至 at 黃道箕 9.2233 古度) referred to J2000 by p_A.

    ``lon_j2000`` is the mansion's start in the frame of ``mansion_of`` (λ − p_A); ``star`` names the table.
    """
    shift = general_precession_arcsec(gusu.epoch_t_cent()) / 3600.0
    lords = {m.name: m.lord for m in tables.mansions()}
    return tuple(
        Mansion(i, name, lords[name], "授時黃道宿度", 0, (start - shift) % 360.0)
        for i, (name, start) in enumerate(gusu.epoch_starts("ecliptic"))
    )


@lru_cache(maxsize=256)
def equatorial_mansions(t_cent: float) -> tuple[Mansion, ...]:
    """赤道宿度 of date: each mansion starts at the right ascension of its 距星 of date.

    The 距星 J2000 ecliptic place is carried to the date by p_A (ecliptic motion ignored, < 0.05°, as for 今宿)
    and turned to the equator of date by the IAU 2006 mean obliquity. ``lon_j2000`` holds that right ascension.
    """
    shift = general_precession_arcsec(t_cent) / 3600.0
    eps = mean_obliquity(t_cent)
    return tuple(
        Mansion(
            m.index, m.name, m.lord, m.star, m.hip, right_ascension(m.lon_j2000 + shift, m.lat_j2000, eps)
        )
        for m in tables.mansions()
    )


def mansion_of(longitude: float, t_cent: float, mansion_set: MansionSet = MansionSet.MODERN) -> MansionPlace:
    """今宿: compare λ − p_A with the 距星 J2000 ecliptic longitudes (spec §6); 古宿 likewise with 授時 widths.

    赤道宿度: the right ascension of the ecliptic point λ (the 黃道→赤道 conversion of a point on the ecliptic)
    against the 距星 right ascensions of date; the degree is then in 赤道度.
    """
    if mansion_set == MansionSet.EQUATORIAL:
        t_key = round(t_cent, 6)  # cache per ~1 hour: the 距星 move 0.00004° in that time
        table = equatorial_mansions(t_key)
        x = right_ascension(longitude, 0.0, mean_obliquity(t_key))
        return _place_in(table, x)
    if mansion_set == MansionSet.SHOUSHI:
        table = shoushi_mansions()
    else:
        table = tables.mansions(mansion_set == MansionSet.DELTA_ORI, mansion_set == MansionSet.ETA_AND)
    x = (longitude - general_precession_arcsec(t_cent) / 3600.0) % 360.0
    return _place_in(table, x)


_ORDERED: dict[int, tuple[tuple[Mansion, ...], tuple[Mansion, ...], tuple[float, ...]]] = {}


def _place_in(table: tuple[Mansion, ...], x: float) -> MansionPlace:
    """The mansion of ``table`` whose start is the last one ≤ x (the last mansion before the first start)."""
    memo = _ORDERED.get(id(table))
    if memo is None or memo[0] is not table:  # the memo keeps ``table`` alive, so its id is not reused
        ordered = tuple(sorted(table, key=lambda m: m.lon_j2000))
        memo = (table, ordered, tuple(m.lon_j2000 for m in ordered))
        if len(_ORDERED) >= 64:  # 赤道宿度 tables change with the date: keep the memo small
            _ORDERED.clear()
        _ORDERED[id(table)] = memo
    _, ordered, starts = memo
    best = ordered[bisect.bisect_right(starts, x) - 1]  # index −1: before the first start, the last mansion
    return MansionPlace(best, (x - best.lon_j2000) % 360.0)


@dataclass(frozen=True, slots=True)
class Body:
    name: str
    longitude: float
    speed: float  # degrees per day
    palace: Branch
    palace_degree: float
    mansion: str
    mansion_degree: float
    du_zhu: str  # 度主 of its mansion
    station: Station | None = None  # a station (留) within the window of the instant (five planets)

    @property
    def retrograde(self) -> bool:
        return self.speed < 0

    @property
    def motion(self) -> str:
        """順 · 逆 · 留: 留 within the station window (five planets), otherwise the sign of the speed."""
        return motion.motion_of(self.speed, self.station)

    @property
    def ru_yuan(self) -> bool:
        """入垣: in one of its own palaces (seed 004 list; 四餘 by the seed's 「正位」)."""
        return self.palace in tables.star_homes(self.name)

    @property
    def in_own_mansion(self) -> bool:
        """殿/廟 in the seed's sense: the mansion's 七曜 is the body itself (「日居日廟」)."""
        return self.du_zhu == self.name

    def to_json(self) -> dict[str, Any]:
        return {
            "longitude": round(self.longitude, 6),
            "speed": round(self.speed, 6),
            "motion": self.motion,
            "station": None if self.station is None else self.station.to_json(),
            "retrograde": self.retrograde,
            "palace": self.palace.char,
            "palace_degree": round(self.palace_degree, 4),
            "mansion": self.mansion,
            "mansion_degree": round(self.mansion_degree, 4),
            "mansion_du": math.floor(self.mansion_degree) + 1,  # traditional 「入X宿N度」
            "du_zhu": self.du_zhu,
            "ru_yuan": self.ru_yuan,
        }


@dataclass(frozen=True, slots=True)
class House:
    name: str
    branch: Branch
    lord: str
    occupants: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "branch": self.branch.char,
            "lord": self.lord,
            "occupants": list(self.occupants),
        }


class ToJson(Protocol):
    """What the chart carries from its readers (pattern results, the 限 at a date): JSON only."""

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class QizhengChart:
    options: QizhengOptions
    bodies: Mapping[str, Body]
    year: GanZhi
    month: Branch
    hour: Branch
    local_hours: float | None
    ming: Branch
    ming_point: float  # 命度 as an ecliptic longitude
    ming_mansion: MansionPlace
    shen: Branch
    houses: tuple[House, ...]
    hua_yao: Mapping[str, str]
    en_nan: Mapping[str, tuple[str, ...]]
    daxian: tuple[Daxian, ...]
    daytime: bool | None
    at: datetime | None = None
    lon: float | None = None
    lat: float | None = None
    palace_offset: float = 0.0
    jd_tt: float | None = None
    jd_ut: float | None = None
    eclipse: Eclipse | None = None  # an eclipse on the birth day (seed ¶28 晦蝕); None also when not computed
    eclipse_computed: bool = False
    patterns: tuple[ToJson, ...] = field(default=())
    xian: ToJson | None = None

    # ---- houses and lords -------------------------------------------------------------------------------
    def house(self, name: str) -> House:
        return self.houses[HOUSES.index(name)]

    def house_of_branch(self, branch: Branch) -> House:
        return self.houses[(int(self.ming) - int(branch)) % 12]

    def house_of(self, star: str) -> House:
        return self.house_of_branch(self.bodies[star].palace)

    @property
    def ming_zhu(self) -> str:
        return tables.palace_lord(self.ming)

    @property
    def shen_zhu(self) -> str:
        return tables.palace_lord(self.shen)

    @property
    def shen_du_zhu(self) -> str:
        return self.bodies["太陰"].du_zhu

    @property
    def ming_du_zhu(self) -> str:
        return self.ming_mansion.lord

    # ---- year-based tables (spec §8) -------------------------------------------------------------------
    @property
    def tianma(self) -> str:
        return str(tables.rules()["tianma"][self.year.branch.char])

    @property
    def yima(self) -> Branch:
        return yima(self.year.branch)

    @property
    def suijia(self) -> Branch:
        return self.year.branch

    @property
    def lu_xun(self) -> Branch:
        """祿勳 = 祿 (臨官) of the year stem (spec §8; seed 004 「甲祿到寅，辛祿到酉」)."""
        return stage_branch(self.year.stem, Stage.LINGUAN)

    @property
    def yutang(self) -> tuple[Branch, ...]:
        return tables.yutang(self.year.stem)

    @property
    def kongwang(self) -> tuple[Branch, Branch]:
        return self.year.xunkong

    @property
    def ling_xing(self) -> str:
        return str(tables.rules()["ling"][self.month.char])

    @property
    def zhi_nan(self) -> str:
        return str(tables.rules()["zhi_nan"][self.month.char])

    @property
    def lu_yuan(self) -> str:
        return str(tables.rules()["lu_yuan"][self.year.branch.char])

    @property
    def shou_yuan(self) -> str:
        """壽元 = the 政 of the year's 納音 element (seed: 「甲子乙丑，金星壽元」)."""
        return {"木": "木星", "火": "火星", "土": "土星", "金": "金星", "水": "水星"}[
            self.year.nayin_element.char
        ]

    def group(self, name: str) -> tuple[str, ...]:
        groups = tables.rules()["houses"]["groups"]
        if name == "惡弱":
            key = "惡弱_moira" if self.options.weak == WeakGroup.MOIRA else "惡弱_seed"
            return tuple(groups[key])
        if name == "強":
            return tuple(groups["四強"] + groups["次強"] + groups["近強"])
        return tuple(groups[name])

    # ---- 盤制 ----------------------------------------------------------------------------------------------
    @property
    def pan_zhi(self) -> dict[str, Any]:
        """The chart's frame: palace boundaries, 宿度 system and frame, station window (printed in every reply)."""
        o = self.options
        return {
            "palaces": o.palaces.value,
            "palace_offset": round(self.palace_offset, 4),
            "palace_bounds": "30°",
            "mansions": o.mansions.value,
            "mansion_frame": "equatorial" if o.mansions == MansionSet.EQUATORIAL else "ecliptic",
            "mansion_unit": "360°",
            "station_window_days": motion.station_window_days(),
        }

    # ---- JSON contract ---------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "input": {
                "at": self.at.isoformat() if self.at else None,
                "lon": self.lon,
                "lat": self.lat,
            },
            "options": self.options.to_json(),
            "year": self.year.chars,
            "month_branch": self.month.char,
            "hour_branch": self.hour.char,
            "local_hours": None if self.local_hours is None else round(self.local_hours, 4),
            "bodies": {name: body.to_json() for name, body in self.bodies.items()},
            "ming_gong": self.ming.char,
            "ming_du": {
                "longitude": round(self.ming_point, 4),
                "mansion": self.ming_mansion.name,
                "mansion_degree": round(self.ming_mansion.degree, 4),
                "du_zhu": self.ming_du_zhu,
            },
            "shen_gong": self.shen.char,
            "ming_zhu": self.ming_zhu,
            "shen_zhu": self.shen_zhu,
            "shen_du_zhu": self.shen_du_zhu,
            "houses": [h.to_json() for h in self.houses],
            "hua_yao": dict(self.hua_yao),
            "en_nan": {k: list(v) for k, v in self.en_nan.items()},
            "tianma": self.tianma,
            "yima": self.yima.char,
            "suijia": self.suijia.char,
            "lu_xun": self.lu_xun.char,
            "yutang": [b.char for b in self.yutang],
            "yutang_rule": tables.yutang_row(),
            "kongwang": [b.char for b in self.kongwang],
            "ling_xing": self.ling_xing,
            "zhi_nan": self.zhi_nan,
            "daxian": [d.to_json() for d in self.daxian],
            "daytime": self.daytime,
            "pan_zhi": self.pan_zhi,
            "eclipse": None if self.eclipse is None else self.eclipse.to_json(),
            "patterns": [p.to_json() for p in self.patterns],
            "xian": None if self.xian is None else self.xian.to_json(),
        }


def _bodies(
    longitudes: Mapping[str, float],
    speeds: Mapping[str, float],
    stations: Mapping[str, Station],
    offset: float,
    t_cent: float,
    opts: QizhengOptions,
) -> dict[str, Body]:
    out: dict[str, Body] = {}
    for name in BODIES:
        lam = float(longitudes[name]) % 360.0
        mp = mansion_of(lam, t_cent, opts.mansions)
        out[name] = Body(
            name=name,
            longitude=lam,
            speed=float(speeds.get(name, 1.0)),
            palace=palace_of(lam, offset),
            palace_degree=(lam - offset) % 30.0,
            mansion=mp.name,
            mansion_degree=mp.degree,
            du_zhu=mp.lord,
            station=stations.get(name),
        )
    return out


@cache
def _hua_yao(method: HuaMethod, stem: Stem) -> Mapping[str, str]:
    """化曜 of a year stem by ``method`` (read-only, shared by the charts of that stem)."""
    hua = tables.hua_yao_shishen(stem) if method == HuaMethod.SHISHEN else tables.hua_yao_rotation(stem)
    return MappingProxyType(hua)


@cache
def _en_nan(ming_zhu: str) -> Mapping[str, tuple[str, ...]]:
    """恩 難 仇 用 of a 命主 (rules.json ``en_nan``; read-only, shared)."""
    table = tables.rules()["en_nan"][ming_zhu]
    return MappingProxyType({k: tuple(table[k]) for k in ("恩", "難", "仇", "用")})


def build_chart(
    longitudes: Mapping[str, float],
    *,
    year: GanZhi,
    month: Branch,
    hour: Branch,
    speeds: Mapping[str, float] | None = None,
    stations: Mapping[str, Station] | None = None,
    eclipse: Eclipse | None = None,
    eclipse_computed: bool = False,
    options: QizhengOptions = DEFAULT_OPTIONS,
    ming: Branch | None = None,
    ming_point: float | None = None,
    local_hours: float | None = None,
    daytime: bool | None = None,
    jd_tt: float = J2000,
    at: datetime | None = None,
    lon: float | None = None,
    lat: float | None = None,
    jd_ut: float | None = None,
) -> QizhengChart:
    """A chart from the eleven longitudes (names as in ``BODIES``) and the year/month/hour.

    ``ming`` overrides the 命宮 (used for the ascendant option); otherwise 太陽加時逢卯. ``stations`` marks
    the planets that are 留; ``eclipse`` the eclipse of the birth day (``eclipse_computed`` says it was looked for).
    """
    t_cent = (jd_tt - J2000) / 36525.0
    offset = zheng_offset(t_cent) if options.palaces == PalaceSystem.ZHENG else 0.0
    bodies = _bodies(longitudes, speeds or {}, stations or {}, offset, t_cent, options)
    sun = bodies["太陽"]
    if ming is None:
        ming = ming_by_sun_hour(sun.palace, hour)
    if ming_point is None:
        ming_point = (palace_start(ming, offset) + sun.palace_degree) % 360.0
    ming_mansion = mansion_of(ming_point, t_cent, options.mansions)
    moon_palace = bodies["太陰"].palace
    shen = moon_palace if options.shen == ShenMethod.MOON else shen_by_hour(moon_palace, hour)
    by_palace: dict[Branch, list[str]] = {}
    for b in bodies.values():
        by_palace.setdefault(b.palace, []).append(b.name)
    houses = []
    for i, name in enumerate(HOUSES):
        branch = ming.shift(-i)
        houses.append(House(name, branch, tables.palace_lord(branch), tuple(by_palace.get(branch, ()))))
    return QizhengChart(
        options=options,
        bodies=MappingProxyType(bodies),
        year=year,
        month=month,
        hour=hour,
        local_hours=local_hours,
        ming=ming,
        ming_point=ming_point,
        ming_mansion=ming_mansion,
        shen=shen,
        houses=tuple(houses),
        hua_yao=_hua_yao(options.hua, year.stem),
        en_nan=_en_nan(tables.palace_lord(ming)),
        daxian=daxian_table(ming, (ming_point - offset) % 30.0, options.daxian, options.tongxian),
        daytime=daytime,
        at=at,
        lon=lon,
        lat=lat,
        palace_offset=offset,
        jd_tt=jd_tt,
        jd_ut=jd_ut,
        eclipse=eclipse,
        eclipse_computed=eclipse_computed,
    )


def _pillars(at: datetime) -> tuple[GanZhi, Branch]:
    """Year 干支 and month branch through the calendar API (立春/節 instants)."""
    from engine.calendar import four_pillars

    p = four_pillars(at)
    return p.year, p.month.branch


def chart_at(
    at: datetime,
    lon: float,
    lat: float | None = None,
    options: QizhengOptions = DEFAULT_OPTIONS,
    with_motion: bool = True,
) -> QizhengChart:
    """The chart (data only) of an aware instant at east longitude ``lon`` (latitude needed for the ascendant).

    ``with_motion`` looks for stations and the eclipse of the day (a few more ephemeris calls).
    """
    if not -180.0 <= lon <= 180.0:
        raise EngineInputError("error.qizheng.bad_lon", f"longitude out of range: {lon}", value=lon)
    if lat is not None and not -90.0 <= lat <= 90.0:
        raise EngineInputError("error.qizheng.bad_lat", f"latitude out of range: {lat}", value=lat)
    if options.ming in (MingMethod.ASCENDANT, MingMethod.SUNRISE):
        if lat is None:
            raise EngineInputError("error.qizheng.need_lat", "the ascendant/sunrise options need a latitude")
        if abs(lat) >= 66.0:
            raise EngineInputError(
                "error.qizheng.polar_ascendant", f"no ascendant rule at latitude {lat}", value=lat
            )
    raw = ephemeris.compute(at, options.ziqi)
    lons = {name: raw.longitudes[name] for name in tables.SEVEN}
    spd = {name: raw.speeds[name] for name in tables.SEVEN}
    node_key = "mean_node" if options.node == NodeModel.MEAN else "true_node"
    asc, desc = raw.longitudes[node_key], (raw.longitudes[node_key] + 180.0) % 360.0
    north, south = ("計都", "羅睺") if options.naming == Naming.MING else ("羅睺", "計都")
    lons[north], lons[south] = asc, desc
    spd[north] = spd[south] = raw.speeds[node_key]
    apo_key = "mean_apogee" if options.apogee == ApogeeModel.MEAN else "true_apogee"
    lons["月孛"], spd["月孛"] = raw.longitudes[apo_key], raw.speeds[apo_key]
    lons["紫氣"], spd["紫氣"] = raw.longitudes["紫氣"], raw.speeds["紫氣"]

    apparent = (raw.gast_hours + lon / 15.0 - raw.sun_ra_hours + 12.0) % 24.0
    if options.hour == HourMethod.APPARENT:
        local = apparent
    elif options.hour == HourMethod.MEAN:
        local = ((raw.jd_ut + 0.5) % 1.0 * 24.0 + lon / 15.0) % 24.0
    else:
        local = at.hour + at.minute / 60.0 + at.second / 3600.0
    hour = hour_branch(local)
    daytime = 6.0 <= apparent < 18.0
    ming: Branch | None = None
    ming_point: float | None = None
    t_cent = (raw.jd_tt - J2000) / 36525.0
    if options.ming == MingMethod.SUNRISE:
        assert lat is not None
        rise = sunrise_apparent_hours(raw.longitudes["太陽"], raw.true_obliquity_deg, lat)
        if rise is None:
            raise EngineInputError(
                "error.qizheng.polar_ascendant", f"no sunrise at latitude {lat}", value=lat
            )
        offset = zheng_offset(t_cent) if options.palaces == PalaceSystem.ZHENG else 0.0
        sun_palace = palace_of(raw.longitudes["太陽"], offset)
        ming = ming_by_sunrise(sun_palace, hour, hour_branch(rise))
    if options.ming == MingMethod.ASCENDANT:
        assert lat is not None
        ramc = (raw.gast_hours * 15.0 + lon) % 360.0
        ming_point = ascendant_longitude(ramc, raw.true_obliquity_deg, lat)
        offset = zheng_offset(t_cent) if options.palaces == PalaceSystem.ZHENG else 0.0
        ming = palace_of(ming_point, offset)
    year, month = _pillars(at)
    stations, eclipse = motion.of_birth(raw) if with_motion else ({}, None)
    return build_chart(
        lons,
        year=year,
        month=month,
        hour=hour,
        speeds=spd,
        stations=stations,
        eclipse=eclipse,
        eclipse_computed=with_motion,
        options=options,
        ming=ming,
        ming_point=ming_point,
        local_hours=local,
        daytime=daytime,
        jd_tt=raw.jd_tt,
        jd_ut=raw.jd_ut,
        at=at,
        lon=lon,
        lat=lat,
    )
