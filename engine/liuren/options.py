"""School options of the 大六壬 chart (spec/liuren.md §3 "School variants" and §4).

Every option is a named value; the defaults are the ones the spec lists first. A chart records the
options it was built with, so a reading can always say which school it follows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from engine.errors import EngineInputError
from engine.shensha.stages import MuRule


class GuiRule(StrEnum):
    """Which 貴人 table: 《六壬大全》 (default), the seed-000 三命 陽貴/陰貴 rule, or the kinliuren 壬癸 variant."""

    LIUREN = "liuren"
    SANMING = "sanming"
    KINLIUREN = "kinliuren"


class DayNight(StrEnum):
    """晝夜 boundary: 卯–申 hours (default), 巳–戌 (四書), 子–巳 (seed 000), or the sun above the horizon."""

    MAOSHEN = "maoshen"
    SISHU = "sishu"
    ZIWU = "ziwu"
    SUN = "sun"


class Shehai(StrEnum):
    """涉害 counting: 深淺 with the seat counted (《課經》), without the seat, or the 孟仲季 shortcut."""

    DEPTH = "depth"
    DEPTH_NOSEAT = "depth_noseat"
    MZJ = "mzj"


class FuyinMaozi(StrEnum):
    """伏吟 when 中 刑s back to 初 (子⇄卯): 《六壬大全》 卯子午 (default) or 《六壬存驗》 卯子卯."""

    DAQUAN = "daquan"
    CUNYAN = "cunyan"


@dataclass(frozen=True, slots=True)
class Options:
    """The school options in force for one chart (defaults per spec/liuren.md)."""

    gui_rule: GuiRule = GuiRule.LIUREN
    daynight: DayNight = DayNight.MAOSHEN
    shehai: Shehai = Shehai.DEPTH
    fuyin_maozi: FuyinMaozi = FuyinMaozi.DAQUAN
    bazhuan_first: bool = True
    # 六陰/六陽 格 (patterns): also require the four lesson lowers to share the 陰陽 (spec §6 option).
    liuyinyang_lowers: bool = False
    # 日墓 of the day stem (engine.shensha.stages): by 五行 as seed 003 reads it (「丑為日墓」 for 辛巳, default)
    # or by the seed-002 陽順陰逆 table (辛 墓 辰). Used by the reading, the verdict and the 神煞 marks.
    mu: MuRule = MuRule.WUXING

    def __post_init__(self) -> None:
        # Accept plain strings ("mzj") as well as the enums; anything else is a localized input error.
        for name, kind in _KINDS.items():
            value = getattr(self, name)
            if kind is bool:
                if not isinstance(value, bool):
                    raise EngineInputError(
                        "error.liuren.bad_option", f"bad value {value!r} for {name}", name=name, value=value
                    )
            elif not isinstance(value, kind):
                try:
                    object.__setattr__(self, name, kind(str(value)))
                except ValueError:
                    raise EngineInputError(
                        "error.liuren.bad_option", f"bad value {value!r} for {name}", name=name, value=value
                    ) from None

    def to_json(self) -> dict[str, Any]:
        """Every option by name, values as plain JSON scalars."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value if isinstance(value, bool) else str(value)
        return out

    @classmethod
    def choices(cls) -> dict[str, tuple[str, ...]]:
        """Each option's name and its allowed values, the default first (what the CLI offers as flags)."""
        out: dict[str, tuple[str, ...]] = {}
        for name, kind in _KINDS.items():
            default = getattr(DEFAULT_OPTIONS, name)
            values = ("true", "false") if kind is bool else tuple(m.value for m in kind)
            first = str(default).lower() if kind is bool else default.value
            out[name] = (first, *(v for v in values if v != first))
        return out

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Options:
        """Options from a mapping such as :meth:`to_json` output; unknown names or values raise EngineInputError."""
        kwargs: dict[str, Any] = {}
        known = {f.name: f for f in fields(cls)}
        for name, value in values.items():
            if name not in known:
                raise EngineInputError(
                    "error.liuren.bad_option", f"unknown 大六壬 option {name!r}", name=name, value=value
                )
            kind = _KINDS[name]
            if kind is bool:
                if isinstance(value, bool):
                    kwargs[name] = value
                elif isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
                    kwargs[name] = value.lower() in ("true", "1", "yes")
                else:
                    raise EngineInputError(
                        "error.liuren.bad_option", f"bad value {value!r} for {name}", name=name, value=value
                    )
            else:
                try:
                    kwargs[name] = kind(str(value))
                except ValueError:
                    raise EngineInputError(
                        "error.liuren.bad_option", f"bad value {value!r} for {name}", name=name, value=value
                    ) from None
        return cls(**kwargs)


_KINDS: dict[str, Any] = {
    "gui_rule": GuiRule,
    "daynight": DayNight,
    "shehai": Shehai,
    "fuyin_maozi": FuyinMaozi,
    "bazhuan_first": bool,
    "liuyinyang_lowers": bool,
    "mu": MuRule,
}

DEFAULT_OPTIONS = Options()
