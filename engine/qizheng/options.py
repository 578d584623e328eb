"""School options of the 七政四餘 chart (spec/qizheng.md §10); every default is the first member."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum

from engine.qizheng.ephemeris import ZiqiEpoch


class PalaceSystem(StrEnum):
    TROPICAL = "tropical"  # 30° palaces from the equinox of date, 戌 = 0° (spec §5)
    ZHENG = "zheng"  # 鄭氏星案 恆星制: λ − A, A = 4° at 1300-01-01 + general precession


class Naming(StrEnum):
    MING = "ming"  # 計北羅南: 計都 = ascending node
    QING = "qing"  # 羅北計南: 羅睺 = ascending node (時憲曆)


class NodeModel(StrEnum):
    MEAN = "mean"
    TRUE = "true"  # osculating


class ApogeeModel(StrEnum):
    MEAN = "mean"
    TRUE = "true"  # osculating


class MingMethod(StrEnum):
    SUN_HOUR = "sun_hour"  # 太陽加時，逢卯安命
    ASCENDANT = "ascendant"  # true ascendant (needs latitude)
    SUNRISE = "sunrise"  # 太陽加時, counting to the actual sunrise 時辰 instead of 卯 (MOIRA; needs latitude)


class ShenMethod(StrEnum):
    MOON = "moon"  # 太陰為身
    HOUR = "hour"  # 以生時加太陰宮，逆數見酉


class HourMethod(StrEnum):
    APPARENT = "apparent"  # local apparent solar time
    MEAN = "mean"  # local mean solar time
    CLOCK = "clock"  # the wall clock as given


class HuaMethod(StrEnum):
    SHISHEN = "shishen"  # 十神 of the star stem
    ROTATION = "rotation"  # 祿暗福耗… rotation (wrong for yin stems; non-default)


class WeakGroup(StrEnum):
    SEED = "seed"  # 惡弱 = houses outside the seed's strong groups: 兄弟 奴僕 疾厄 相貌
    MOIRA = "moira"  # MOIRA 惡弱 兄弟 奴僕 疾厄 遷移 相貌


class DaxianTable(StrEnum):
    DONGWEI = "dongwei"  # 洞微 fixed table from age 1
    ANCIENT = "ancient"  # 奴僕 男女 田宅 5 years
    MINGDU = "mingdu"  # 命限 = 10 + ⌊命度 in its palace / 3⌋ years (spec §9), the rest 洞微


class Tongxian(StrEnum):
    NONE = "none"  # 大限 from age 1
    NINE = "9"  # 童限 9 years: 大限 from age 10 (spec §9)
    TEN = "10"  # 童限 10 years: 大限 from age 11


class MansionSet(StrEnum):
    MODERN = "modern"  # 今宿: 距星 of date (Hipparcos)
    DELTA_ORI = "delta_ori"  # 參 = δ Ori (觜 and 參 swap order)
    ETA_AND = "eta_and"  # 奎 = η And
    SHOUSHI = "shoushi"  # 古宿: 授時曆 黃道宿度 (《元史》卷54) from the epoch 冬至, carried by precession
    EQUATORIAL = "equatorial"  # 赤道宿度: 距星 right ascension of date vs the right ascension of λ


@dataclass(frozen=True, slots=True)
class QizhengOptions:
    palaces: PalaceSystem = PalaceSystem.TROPICAL
    mansions: MansionSet = MansionSet.MODERN
    naming: Naming = Naming.MING
    node: NodeModel = NodeModel.MEAN
    apogee: ApogeeModel = ApogeeModel.MEAN
    ziqi: ZiqiEpoch = ZiqiEpoch.QIZHENGSUAN
    ming: MingMethod = MingMethod.SUN_HOUR
    shen: ShenMethod = ShenMethod.MOON
    hour: HourMethod = HourMethod.APPARENT
    hua: HuaMethod = HuaMethod.SHISHEN
    weak: WeakGroup = WeakGroup.SEED
    daxian: DaxianTable = DaxianTable.DONGWEI
    tongxian: Tongxian = Tongxian.NONE

    def to_json(self) -> dict[str, str]:
        return {f.name: str(getattr(self, f.name).value) for f in fields(self)}

    @classmethod
    def choices(cls) -> dict[str, tuple[str, ...]]:
        """Each option's name and its allowed values, the default first (what the CLI offers as ``--name``)."""
        defaults = cls()
        return {f.name: tuple(m.value for m in type(getattr(defaults, f.name))) for f in fields(cls)}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> QizhengOptions:
        kwargs: dict[str, object] = {}
        for f in fields(cls):
            if f.name in data:
                enum_type = type(getattr(cls(), f.name))
                kwargs[f.name] = enum_type(data[f.name])
        return cls(**kwargs)  # type: ignore[arg-type]
