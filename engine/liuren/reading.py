"""Readings of a 大六壬 chart.

- :func:`seed_reading`: the eight worked 課 of seed 003, whose full text (both languages) is in
  ``data/readings_seed003.json``, keyed by (day 干支, 局).
- :func:`compose`: for any 課, the seed-002 reading "視所乘何神、視所屬何煞、所臨何煞定其吉凶" as structured
  data. For each position (初 中 末, 干上 支上, 占時, 本命) it lists the 天盤 branch X, the 天將 riding it
  (所乘何神), the 煞 X belongs to (所屬何煞: 六親, 長生 stage, 旺相休囚死, 刑沖破害合 with 干 and 支,
  驛馬, 太歲/月建/月將, 旬空) and the same for its 地盤 seat (所臨何煞), plus the 類神 of a question category.

Everything is ids and parameters; the texts are in ``engine/shensha/data/meanings002.json``, ``data/patterns.json``,
``data/leishen.json`` and ``data/readings_seed003.json``, gathered per language by :func:`glossary` for the
templates under ``templates/liuren/``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Any, Protocol

from engine.core.cycle import Branch, GanZhi, Stem, xun_dun_stem
from engine.core.relations import Kin, Vitality, vitality, yima
from engine.datafiles import load_json
from engine.errors import EngineInputError
from engine.liuren.branch_relations import relations
from engine.liuren.leishen import LeishenHit, check_category, lookup
from engine.liuren.methods import jigong
from engine.liuren.patterns import ChartLike, PatternHit, detect
from engine.liuren.types import General
from engine.liuren.verdict import Verdict, judge
from engine.shensha import meanings002
from engine.shensha.stages import MuRule, stage_at

ROLES = ("initial", "middle", "final", "gan_upper", "zhi_upper", "hour", "birth", "xingnian")
RELATION_KINDS = ("刑", "沖", "破", "害", "合")


class ReadableChart(ChartLike, Hashable, Protocol):
    """What a reading needs beyond pattern detection (``engine.liuren.Chart`` satisfies it): hashable, the
    key of the cache of its readings."""

    @property
    def ju(self) -> int: ...

    @property
    def hour(self) -> Branch: ...

    @property
    def month_general(self) -> Branch: ...

    @property
    def xunkong(self) -> tuple[Branch, Branch]: ...

    @property
    def method_names(self) -> tuple[str, ...]: ...

    @property
    def assumed(self) -> tuple[str, ...]: ...

    def general_on(self, branch: Branch) -> General: ...


@dataclass(frozen=True, slots=True)
class Attribute:
    """One 煞 a branch belongs to: ``id`` is a key of engine/shensha/data/meanings002.json, ``params`` name its arguments."""

    id: str
    params: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "params": dict(self.params)}


@dataclass(frozen=True, slots=True)
class Position:
    """A 天盤 branch at one reading position, with what it rides, belongs to and sits on."""

    role: str  # initial middle final gan_upper zhi_upper hour birth xingnian
    branch: Branch
    seat: Branch
    general: General
    dun_stem: Stem | None
    attributes: tuple[Attribute, ...]  # 所屬何煞 (of the branch)
    seat_attributes: tuple[Attribute, ...]  # 所臨何煞 (of its 地盤 seat)
    general_attributes: tuple[Attribute, ...]  # the 天將's own entry, and 臨空 when it rides an empty branch
    leishen: tuple[LeishenHit, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "branch": self.branch.char,
            "seat": self.seat.char,
            "general": self.general.char,
            "dun_stem": self.dun_stem.char if self.dun_stem is not None else None,
            "attributes": [a.to_json() for a in self.attributes],
            "seat_attributes": [a.to_json() for a in self.seat_attributes],
            "general_attributes": [a.to_json() for a in self.general_attributes],
            "leishen": [h.to_json() for h in self.leishen],
        }


@dataclass(frozen=True, slots=True)
class Link:
    """A 刑沖破害合 between two of the 三傳 (``a`` → ``b`` for 刑, which has a direction)."""

    kind: str
    a: str  # role
    b: str  # role
    a_branch: Branch
    b_branch: Branch

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "a": self.a,
            "b": self.b,
            "a_branch": self.a_branch.char,
            "b_branch": self.b_branch.char,
        }


@dataclass(frozen=True, slots=True)
class SeedSection:
    """One paragraph pair of seed 003: ``kind`` keti | jie | duan | categories | citations."""

    kind: str
    index: int  # position in the entry (text id: seed003.<entry>.<index>)


@dataclass(frozen=True, slots=True)
class SeedText:
    """The seed-003 entry for this (day, 局): its number, 課體 names and its sections (texts by id)."""

    entry: int  # 1…8
    day: GanZhi
    ju: int
    ke_ti: tuple[str, ...]
    sections: tuple[SeedSection, ...]
    # 課體 by rule that hold for this cast but that the seed's own 課體 line does not give (shown apart), and
    # the seed's names that do not hold for this cast's 貴人 (entry 2 閉口 is the 夜貴's 「兩貴」 reading)
    derived: tuple[str, ...] = ()
    seed_only: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "day": self.day.chars,
            "ju": self.ju,
            "ke_ti": list(self.ke_ti),
            "derived": list(self.derived),
            "seed_only": list(self.seed_only),
            "sections": [{"kind": s.kind, "text": f"seed003.{self.entry}.{s.index}"} for s in self.sections],
        }


@dataclass(frozen=True, slots=True)
class Reading:
    """A reading: ``kind`` is "seed" (the full seed-003 text) or "composed" (seed-002 meanings)."""

    kind: str
    day: GanZhi
    ju: int
    patterns: tuple[PatternHit, ...]
    positions: tuple[Position, ...] = ()
    links: tuple[Link, ...] = ()
    category: str | None = None
    month: Branch | None = None
    year: Branch | None = None
    birth: Branch | None = None
    xingnian: Branch | None = None  # the asker's 行年 (engine.liuren.nianming)
    seed: SeedText | None = None
    verdict: Verdict | None = None  # the composed reading ends in a judgment (engine.liuren.verdict)

    def position(self, role: str) -> Position:
        for p in self.positions:
            if p.role == role:
                return p
        raise KeyError(role)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "day": self.day.chars,
            "ju": self.ju,
            "category": self.category,
            "month": self.month.char if self.month is not None else None,
            "year": self.year.char if self.year is not None else None,
            "birth": self.birth.char if self.birth is not None else None,
            "xingnian": self.xingnian.char if self.xingnian is not None else None,
            "patterns": [h.to_json() for h in self.patterns],
            "positions": [p.to_json() for p in self.positions],
            "links": [k.to_json() for k in self.links],
            "seed": self.seed.to_json() if self.seed is not None else None,
            "verdict": self.verdict.to_json() if self.verdict is not None else None,
        }


# ---------------------------------------------------------------------------------------------- data


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = load_json("engine.liuren", name)
    return data


def meanings() -> Mapping[str, Mapping[str, Any]]:
    """The seed-002 meaning texts (id → {lzh, ko, source, name_ko …}), from the 神煞 engine's one file of them
    (``engine.shensha.meanings002``, issue 11)."""
    return meanings002()


@cache
def _seed_entries() -> tuple[Mapping[str, Any], ...]:
    return tuple(_load("readings_seed003.json")["entries"])


@cache
def _seed_index() -> Mapping[tuple[GanZhi, int], int]:
    return {(GanZhi.parse(e["day"]), int(e["ju"])): n for n, e in enumerate(_seed_entries(), start=1)}


def seed_keys() -> tuple[tuple[GanZhi, int], ...]:
    """The (day, 局) of the eight seed-003 課, in seed order."""
    return tuple(_seed_index())


# ------------------------------------------------------------------------------------------ compute


def attributes_of(
    b: Branch,
    day: GanZhi,
    month_general: Branch,
    xunkong: tuple[Branch, Branch],
    month: Branch | None = None,
    year: Branch | None = None,
    mu: MuRule = MuRule.WUXING,
) -> tuple[Attribute, ...]:
    """所屬何煞 of a branch (seed 002, in its order): 六親, 長生 stage (墓 by the ``mu`` convention), 刑沖破害合
    with 干/支, 馬, 太歲, 旺相休囚死, 月建, 月將, 旬空."""
    out = [Attribute(f"relative.{Kin.of(day.stem.element, b.element).char}")]
    stage = stage_at(day.stem, b, mu)
    if stage is not None:  # under mu=wuxing a 陰干's seed-002 墓 branch has no stage (engine.shensha.stages)
        out.append(Attribute(f"stage.{stage.char}"))
    for side, target in (("gan", jigong(day.stem)), ("zhi", day.branch)):
        for kind in relations(b, target):
            out.append(Attribute(f"relation.{kind}.{side}", (("target", target.char),)))
    if b == yima(day.branch):
        out.append(Attribute("yima"))
    if year is not None and b == year:
        out.append(Attribute("taisui"))
    if month is not None:
        v: Vitality = vitality(b.element, month)
        out.append(Attribute(f"vitality.{v.char}", (("month", month.char),)))
        if b == month:
            out.append(Attribute("yuejian"))
    if b == month_general:
        out.append(Attribute("yuejiang"))
    if b in xunkong:
        out.append(Attribute("xunkong"))
    return tuple(out)


def _links(roles: Sequence[tuple[str, Branch]]) -> tuple[Link, ...]:
    out: list[Link] = []
    for i, (ra, a) in enumerate(roles):
        for j, (rb, b) in enumerate(roles):
            if i == j:
                continue
            for kind in relations(a, b):
                # symmetric relations once (i < j); 刑 in each direction it runs
                if kind == "刑" or i < j:
                    out.append(Link(kind, ra, rb, a, b))
    return tuple(out)


def _position(
    chart: ReadableChart,
    role: str,
    b: Branch,
    category: str | None,
    month: Branch | None,
    year: Branch | None,
) -> Position:
    day = chart.day
    seat = chart.earth_of(b)
    general = chart.general_on(b)
    general_attrs = [Attribute(f"general.{general.char}")]
    if b in chart.xunkong:
        general_attrs.append(Attribute("linkong", (("branch", b.char),)))
    hits: tuple[LeishenHit, ...] = ()
    if category is not None:
        hits = lookup(
            category,
            b,
            general=general,
            relative=Kin.of(day.stem.element, b.element).char,
            vitality=vitality(b.element, month) if month is not None else None,
            month_general=chart.month_general,
            month_branch=month,
            dun_stem=xun_dun_stem(day.xun_head, b),
        )
    return Position(
        role=role,
        branch=b,
        seat=seat,
        general=general,
        dun_stem=xun_dun_stem(day.xun_head, b),
        attributes=attributes_of(b, day, chart.month_general, chart.xunkong, month, year, chart.options.mu),
        seat_attributes=attributes_of(
            seat, day, chart.month_general, chart.xunkong, month, year, chart.options.mu
        ),
        general_attributes=tuple(general_attrs),
        leishen=hits,
    )


def compose(
    chart: ReadableChart,
    category: str | None = None,
    *,
    month: Branch | None = None,
    year: Branch | None = None,
    birth: Branch | None = None,
    xingnian: Branch | None = None,
) -> Reading:
    """The seed-002 reading of any chart.

    ``category`` is a 類神 category (天文 地理 宮室 人物 姓氏 臟腑 飲食 器用 數目 顏色 飛潛動植, or its id);
    ``month`` the 月建 branch (needed for 旺相休囚死 and 月建), ``year`` the year branch (太歲), ``birth`` the
    本命 branch (adds a 本命 position), ``xingnian`` the 行年 branch (adds a 行年 position, seed 003 「年命」);
    a chart from ``chart_at`` supplies ``month`` and ``year`` itself.
    Positions: 初 中 末, 干上 支上, 占時 (the 占時 branch in the 天盤), 本命, 行年.
    """
    if category is not None:
        category = check_category(category)
    moment = getattr(chart, "moment", None)  # a chart cast for an instant knows its month and year
    if moment is not None:
        month = moment.month.branch if month is None else month
        year = moment.year.branch if year is None else year
    for name, value in (("month", month), ("year", year), ("birth", birth), ("xingnian", xingnian)):
        if value is not None and not isinstance(value, Branch):
            raise EngineInputError(
                "error.not_a_branch", f"{name} must be a Branch, not {value!r}", value=str(value)
            )
    t = chart.transmissions
    roles: list[tuple[str, Branch]] = [
        ("initial", t[0].branch),
        ("middle", t[1].branch),
        ("final", t[2].branch),
        ("gan_upper", chart.lessons[0].upper),
        ("zhi_upper", chart.lessons[2].upper),
        ("hour", chart.hour),
    ]
    if birth is not None:
        roles.append(("birth", birth))
    if xingnian is not None:
        roles.append(("xingnian", xingnian))
    positions = tuple(_position(chart, r, b, category, month, year) for r, b in roles)
    return Reading(
        kind="composed",
        day=chart.day,
        ju=chart.ju,
        patterns=detect(chart),
        positions=positions,
        links=_links(roles[:3]),
        category=category,
        month=month,
        year=year,
        birth=birth,
        xingnian=xingnian,
        verdict=judge(chart, category, birth=birth, xingnian=xingnian),
    )


def seed_reading(chart: ReadableChart) -> Reading | None:
    """The full seed-003 reading when the chart's (day, 局) is one of the eight worked 課, else None."""
    n = _seed_index().get((chart.day, chart.ju))
    if n is None:
        return None
    e = _seed_entries()[n - 1]
    if "".join(t.branch.char for t in chart.transmissions) != e["transmissions"]:
        return None  # school options gave another 三傳: the seed text is not about this chart
    hits = detect(chart)
    cast = list(chart.method_names) + [h.name for h in hits if h.name not in chart.method_names]
    own = tuple(e["ke_ti"])
    text = SeedText(
        entry=n,
        day=chart.day,
        ju=chart.ju,
        ke_ti=own,
        sections=tuple(SeedSection(s["kind"], i) for i, s in enumerate(e["sections"])),
        derived=tuple(name for name in cast if name not in own),
        seed_only=tuple(name for name in own if name not in cast),
    )
    return Reading(kind="seed", day=chart.day, ju=chart.ju, patterns=hits, seed=text)


def read(
    chart: ReadableChart,
    category: str | None = None,
    *,
    month: Branch | None = None,
    year: Branch | None = None,
    birth: Branch | None = None,
    xingnian: Branch | None = None,
) -> tuple[Reading, ...]:
    """What to show for a chart: the seed-003 reading first when there is one, then the composed reading.

    Cached (:func:`cached_read`): a chart cast for an instant is read as the same 課 without its instant, with the
    instant's 月建 and 太歲 (all :func:`compose` reads of it), so every cast of one 課 in a 時辰 shares an entry.
    """
    moment = getattr(chart, "moment", None)
    if moment is not None:
        month = moment.month.branch if month is None else month
        year = moment.year.branch if year is None else year
        chart = replace(chart, moment=None)  # type: ignore[type-var]  # a chart with a moment is a Chart
    return cached_read(chart, category, month, year, birth, xingnian)


# The readings of the last READ_CACHE_SIZE (課, question) pairs: a 課's reading is a pure function of the chart
# (its 天地盤, 三傳, 天將, options) and the question (category, 月建, 太歲, the asker's 本命 and 行年), and every
# `/cast now` in one 時辰 asks the same 課 (issue 31 item 8: a repeated /cast now's chart_view 1.3 → 0.28 ms of
# CPU with this and cached_judge, medians; 12 lines). The values are frozen (Reading, its tuples of frozen
# positions and hits). ≈ 21 kB an entry with its verdict (tracemalloc): ≈ 5 MB at most.
READ_CACHE_SIZE = 256


@lru_cache(maxsize=READ_CACHE_SIZE, typed=True)  # typed: an int is no Branch (compose rejects it)
def cached_read(
    chart: ReadableChart,
    category: str | None,
    month: Branch | None,
    year: Branch | None,
    birth: Branch | None,
    xingnian: Branch | None,
) -> tuple[Reading, ...]:
    """:func:`read` of a chart without an instant, all arguments given (the cache's key)."""
    composed = compose(chart, category, month=month, year=year, birth=birth, xingnian=xingnian)
    seed = seed_reading(chart)
    return (seed, composed) if seed is not None else (composed,)


# ------------------------------------------------------------------------------------ texts by id


@cache
def glossary(lang: str) -> Mapping[str, Mapping[str, str]]:
    """Every text a reading refers to, in ``lang`` ("ko" or "lzh"), by id.

    - meanings002.json ids (``relative.財``, ``stage.長生``, ``relation.沖.gan`` …) → {name, text}; the lzh text
      is the entry's ``gloss`` (the seed keyword with its explanation), the ko text its ``ko``
    - ``pattern.<id>`` → {name, definition, meaning}
    - ``leishen.<entry id>`` → {text}; ``leishen_category.<name>`` → {name, usage}
    - ``seed003.<entry>.<section>`` → {text}
    """
    if lang not in ("ko", "lzh"):
        raise EngineInputError("error.bad_lang", f"unsupported language {lang!r}", value=lang)
    out: dict[str, Mapping[str, str]] = {}
    for key, m in meanings().items():
        # lzh: the seed's keyword (m["lzh"], 「以財利論」's 財利) says nothing alone; the gloss explains it
        text = m["gloss"]["lzh"] if lang == "lzh" and "gloss" in m else m[lang]
        out[key] = {"name": str(m[f"name_{lang}"]), "text": str(text)}
    for p in _load("patterns.json")["patterns"]:
        out[f"pattern.{p['id']}"] = {k: str(v) for k, v in p[lang].items()}
    for cname, c in _load("leishen.json")["categories"].items():
        out[f"leishen_category.{cname}"] = {"name": str(c[lang]), "usage": str(c["usage"][lang])}
        for e in c["entries"]:
            out[f"leishen.{e['id']}"] = {"text": str(e[lang])}
    for n, e in enumerate(_seed_entries(), start=1):
        for i, s in enumerate(e["sections"]):
            out[f"seed003.{n}.{i}"] = {"text": str(s[lang])}
    return out


def render_context(readings: Sequence[Reading], lang: str) -> dict[str, Any]:
    """Context for ``templates/liuren/reading.*.j2``: the readings as JSON and the glossary of ``lang``."""
    return {"readings": [r.to_json() for r in readings], "gloss": glossary(lang)}
