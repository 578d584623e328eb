"""Value objects of the 神煞 engine: star definitions (from ``data/stars.json``), options, hits, results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from types import MappingProxyType
from typing import Any, TypeAlias

from engine.core.cycle import Branch, GanZhi, Stem
from engine.datafiles import load_json
from engine.errors import EngineInputError

#: A star's value: a branch, a stem, a 干支, a list of branches/stems, a word (direction, palace, stage) or a flag.
Value: TypeAlias = Branch | Stem | GanZhi | tuple[Branch | Stem, ...] | str | bool

#: The school options, each with its allowed values; the first value is the default (spec shensha.md).
OPTION_VALUES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "jiangxing_key": ("month", "day"),
        "yingui": ("derived", "verse"),
        "tianyi_value": ("branch", "ganzhi"),
        "wangluo": ("same", "unstated"),
        "tiangou": ("prev", "chong"),
        "diyu": ("prose", "verse"),
        "xueji": ("split", "combined"),
        "jingqi": ("note", "emended"),
        "guansuo": ("split", "combined"),
        "mu": ("changsheng", "wuxing"),
    }
)


@dataclass(frozen=True, slots=True)
class Options:
    """School options where seed 000 is ambiguous; defaults follow spec shensha.md (see docs/shensha.md)."""

    jiangxing_key: str = "month"  # key of the 將星 family and 咸池: the month (default) or the day branch
    yingui: str = "derived"  # 陰貴 of 丙丁: derived mirror 丙亥 丁酉 (default) or the literal verse 丙酉 丁亥
    tianyi_value: str = "branch"  # 天醫 as a branch (default) or as the 干支 (丁卯 …)
    wangluo: str = "same"  # 網羅 = 雷火's table (default) or unstated (no value)
    tiangou: str = "prev"  # 天狗 = 天賊 − 1 (除/執/收, 000:143; default) or 天賊 + 6 (note 「隨之沖擊」)
    diyu: str = "prose"  # 地獄 = 正戌 逆 (default) or the attached verse (the 血刃/血忌 sequence)
    xueji: str = "split"  # 血刃 odd / 血忌 even months (default) or both the combined 12-month sequence
    jingqi: str = "note"  # 旌旗 冬子 as the note says (default) or 冬午 (emended by 「起卯，逆征四圉」)
    guansuo: str = "split"  # 關 = 孤辰 square, 鎖 = 寡宿 square (default) or one combined 關鎖
    mu: str = "changsheng"  # 十二長生 墓: seed-002 table 陰逆 (辛墓辰, default) or by 五行 (seed 003 辛墓丑)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in OPTION_VALUES[f.name]:
                raise EngineInputError(
                    "error.shensha.bad_option",
                    f"option {f.name} must be one of {OPTION_VALUES[f.name]}, not {value!r}",
                    option=f.name,
                    value=value,
                    allowed=" / ".join(OPTION_VALUES[f.name]),
                )

    def get(self, name: str) -> str:
        value: str = getattr(self, name)
        return value

    def with_option(self, name: str, value: str) -> Options:
        if name not in OPTION_VALUES:
            raise EngineInputError(
                "error.shensha.unknown_option",
                f"unknown option {name!r}",
                option=name,
                known=" ".join(OPTION_VALUES),
            )
        return replace(self, **{name: value})

    def changed(self) -> dict[str, str]:
        """The options that differ from the defaults."""
        return {
            f.name: self.get(f.name) for f in fields(self) if self.get(f.name) != OPTION_VALUES[f.name][0]
        }


@dataclass(frozen=True, slots=True)
class Source:
    """A seed passage: seed number ("000", "002", "003"), line in the seed file and the quoted words."""

    seed: str
    line: int
    quote: str

    def __str__(self) -> str:
        return f"{self.seed}:{self.line} 「{self.quote}」"


@dataclass(frozen=True, slots=True)
class Variant:
    """An alternative reading selected by a school option."""

    rule: Mapping[str, Any]
    key: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class StarDef:
    """One star (or seed-002 table) as described in ``data/stars.json``."""

    id: str
    name: str
    aliases: tuple[str, ...]
    seed: str
    group: str
    key: str
    nature: str | None
    value_type: str
    mark: bool
    rule: Mapping[str, Any]
    table: Mapping[str, str | None] | None
    mismatch: tuple[str, ...]
    option: str | None
    variants: Mapping[str, Variant]
    sources: tuple[Source, ...]
    verse: str | None
    meaning: Mapping[str, str]
    notes: tuple[str, ...]

    def variant(self, options: Options) -> Variant:
        """The rule (with key and name) this star uses under ``options``."""
        if self.option is not None:
            chosen = self.variants.get(options.get(self.option))
            if chosen is not None:
                return Variant(chosen.rule, chosen.key or self.key, chosen.name or self.name)
        return Variant(self.rule, self.key, self.name)


def _freeze(obj: Any) -> Any:
    if isinstance(obj, dict):
        return MappingProxyType({k: _freeze(v) for k, v in obj.items()})
    if isinstance(obj, list):
        return tuple(_freeze(v) for v in obj)
    return obj


def _star(raw: Mapping[str, Any]) -> StarDef:
    variants: dict[str, Variant] = {}
    option = None
    if raw.get("variants"):
        option = str(raw["variants"]["option"])
        for value, spec in raw["variants"]["values"].items():
            variants[value] = Variant(_freeze(spec["rule"]), spec.get("key"), spec.get("name"))
    return StarDef(
        id=raw["id"],
        name=raw["name"],
        aliases=tuple(raw.get("aliases") or ()),
        seed=raw["seed"],
        group=raw["group"],
        key=raw["key"],
        nature=raw.get("nature"),
        value_type=raw["value_type"],
        mark=bool(raw["mark"]),
        rule=_freeze(raw["rule"]),
        table=_freeze(raw["table"]) if raw.get("table") else None,
        mismatch=tuple(raw.get("mismatch") or ()),
        option=option,
        variants=MappingProxyType(variants),
        sources=tuple(Source(s["seed"], int(s["line"]), s["quote"]) for s in raw["source"]),
        verse=raw.get("verse"),
        meaning=_meaning_of(raw),
        notes=tuple(raw.get("notes") or ()),
    )


@cache
def meanings002() -> Mapping[str, Mapping[str, Any]]:
    """data/meanings002.json: the seed-002 meaning texts (44 神煞 of the 大六壬 tables) by id, in ko and lzh.

    The one file of these texts (issue 11): the seed-002 stars of stars.json point into it (``meaning_ref``)
    and engine.liuren reads it for its reading glossary and verdict.
    """
    data: Mapping[str, Mapping[str, Any]] = load_json("engine.shensha", "meanings002.json")["meanings"]
    return MappingProxyType(dict(data))


def _meaning_of(raw: Mapping[str, Any]) -> Mapping[str, str]:
    if "meaning_ref" not in raw:
        return MappingProxyType(dict(raw["meaning"]))
    ref = raw["meaning_ref"]
    ids = [ref] if isinstance(ref, str) else list(ref)
    texts = [meanings002()[i] for i in ids]
    return MappingProxyType(
        {"ko": " / ".join(str(t["ko"]) for t in texts), "lzh": "；".join(str(t["lzh"]) for t in texts)}
    )


@cache
def star_defs() -> tuple[StarDef, ...]:
    """Every star of ``data/stars.json`` in data order (loaded once)."""
    return tuple(_star(raw) for raw in load_json("engine.shensha", "stars.json")["stars"])


@cache
def star_index() -> Mapping[str, StarDef]:
    """Stars by id."""
    return MappingProxyType({s.id: s for s in star_defs()})


def value_json(value: Value) -> Any:
    """JSON form of a value: characters, a list of characters, a word or a flag."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, Branch | Stem):
        return value.char
    if isinstance(value, GanZhi):
        return value.chars
    return [v.char for v in value]


def value_branches(value: Value) -> tuple[Branch, ...]:
    """The branches a value marks (empty for stem, word and flag values; a 干支 marks its branch)."""
    if isinstance(value, bool | str | Stem):
        return ()
    if isinstance(value, Branch):
        return (value,)
    if isinstance(value, GanZhi):
        return (value.branch,)
    return tuple(b for b in value if isinstance(b, Branch))


def value_stems(value: Value) -> tuple[Stem, ...]:
    """The stems a value marks (天干天德, 天干月德, 月空 …)."""
    if isinstance(value, Stem):
        return (value,)
    if isinstance(value, tuple):
        return tuple(s for s in value if isinstance(s, Stem))
    return ()


def value_text(value: Value) -> str:
    """Plain text of a value (characters joined; 是/否 for flags are left to the templates)."""
    j = value_json(value)
    if isinstance(j, list):
        return " ".join(j)
    return str(j)


@dataclass(frozen=True, slots=True)
class StarHit:
    """A star that falls somewhere for the given day (and month, year, hour)."""

    id: str
    name: str
    value: Value
    key: str
    source: str
    alt: tuple[tuple[str, Value], ...] = ()
    detail: str | None = None

    def branches(self) -> tuple[Branch, ...]:
        """The branches this star marks (empty for stem, word and flag values)."""
        return value_branches(self.value)

    def stems(self) -> tuple[Stem, ...]:
        """The stems this star marks (天干天德, 天干月德, 月空 …)."""
        return value_stems(self.value)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "value": value_json(self.value),
            "key": self.key,
            "source": self.source,
        }
        if self.detail is not None:
            out["detail"] = self.detail
        if self.alt:
            out["alt"] = {label: value_json(v) for label, v in self.alt}
        return out


@dataclass(frozen=True, slots=True)
class Omission:
    """A star left out: an input it needs is missing, it is inactive this month, or the text gives no value."""

    id: str
    name: str
    reason: str  # "needs" | "inactive" | "unstated" | "merged"
    needs: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "reason": self.reason}
        if self.needs:
            out["needs"] = list(self.needs)
        return out


@dataclass(frozen=True, slots=True)
class ShenshaResult:
    """All stars for a day (and optionally month, year, hour), in data order."""

    day: GanZhi
    month: Branch | None
    year: GanZhi | None
    hour: Branch | None
    options: Options
    stars: tuple[StarHit, ...]
    omitted: tuple[Omission, ...]

    def get(self, name_or_id: str) -> StarHit | None:
        """The hit with this name or id (None when the star is not present)."""
        for hit in self.stars:
            if hit.name == name_or_id or hit.id == name_or_id:
                return hit
        return None

    def to_json(self) -> dict[str, Any]:
        """Issue-4 JSON contract: day, month, stars [{name, value, key, source …}], plus year, hour, omitted."""
        out: dict[str, Any] = {
            "day": self.day.chars,
            "month": self.month.char if self.month is not None else None,
        }
        if self.year is not None:
            out["year"] = self.year.chars
        if self.hour is not None:
            out["hour"] = self.hour.char
        changed = self.options.changed()
        if changed:
            out["options"] = changed
        out["stars"] = [h.to_json() for h in self.stars]
        out["omitted"] = [o.to_json() for o in self.omitted]
        return out
