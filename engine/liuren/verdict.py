"""A judgment of a 大六壬 課, not a worksheet: for the question's 類神 category (or "general"), a 吉/凶/平
verdict with the reasons that weigh, each citing its seed line.

Seed 002 gives one rule for every 煞 and 課格: 「視所乘何神、視所屬何煞、所臨何煞定其吉凶」. This module applies
it to the positions seed 002 names (「干支三傳」: 初傳 中傳 末傳, 干上 支上):

- 所乘何神: the 天將 riding the branch (seed 002 天將 「以干貴論」 …);
- 所屬何煞: the branch's 六親 vs the day stem, its 十二長生 stage (墓 by the chart's ``mu`` option), its 刑 破 害
  合 (and 沖) with the 干 and the 支;
- 所臨何煞: the stage of its 地盤 seat (seed 003 「臨絕地」 「臨敗地」);
- 旬空 (「以不實論」) on the branch or its seat (seed 003 「坐空」) voids that position: its 吉 and 凶 are 不實
  (seed 003 entry 5 「雖乘晝虎…然值旬空，則為遺鏃，不過虛驚而已」), listed but not counted;
- a 墓 opened by 沖 does not weigh: seed 003 entry 1 「雖墓神覆日，中傳入墓，而丑未相沖，兩墓俱開矣」 — a
  branch that is the day's 墓 while its 沖 stands in the 三傳 or on 干上/支上;
- and every 課體/課格 that holds for the cast, by the sense of its meaning text.

Each reason's direction is the plain sense of its seed keyword (``direction`` in engine/shensha/data/meanings002.json and
patterns.json, with the rule in their ``direction_rule``). The seeds give no weights and no rule for adding
reasons up; the verdict says so (note ``no_weights``) and takes the positions in the order the seeds read a
課: the 用神 (初傳; seed 002 looks the 類神 up on it, seed 003 opens every 解曰 with it), then 干上 (日, 我)
and 支上 (辰, 彼), then 中傳 and 末傳, then the 課體. The first of these whose counted 吉 and 凶 reasons do
not balance decides (``decided_by``); a 用神 voided by 空 (seed 003 entry 1 「用神坐空，則前引無力」) passes
the decision on. 平 when everything balances. A 類神 category selects the positions whose branch or 天將 appears in its table; seed 002
gives no 吉凶 rule of a category's own (note ``category_no_rule``) except 數目 「旺相多，休囚少」 and 顏色
「旺相鮮明，休囚淡舊」, which say how much, not whether good.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Protocol

from engine.core.cycle import Branch, xun_dun_stem
from engine.core.relations import Kin, Stage, chong
from engine.liuren.branch_relations import relations
from engine.liuren.leishen import check_category, lookup
from engine.liuren.leishen import entry as leishen_entry
from engine.liuren.methods import jigong
from engine.liuren.patterns import ChartLike, detect, entry, no_meaning
from engine.liuren.types import General
from engine.shensha import meanings002
from engine.shensha.stages import stage_at

GENERAL = "general"
ROLES = (
    "initial",
    "gan_upper",
    "zhi_upper",
    "middle",
    "final",
    "hour",
    "birth",
    "xingnian",
)  # the order of decision
PATTERNS = "patterns"
DIRECTIONS = ("吉", "凶", "平")


class VerdictChart(ChartLike, Hashable, Protocol):
    """What a verdict reads (``engine.liuren.Chart`` satisfies it): hashable, the
    key of the cache of its verdicts."""

    @property
    def xunkong(self) -> tuple[Branch, Branch]: ...

    @property
    def month_general(self) -> Branch: ...

    @property
    def hour(self) -> Branch: ...

    @property
    def assumed(self) -> tuple[str, ...]: ...

    def general_on(self, branch: Branch) -> General: ...


@dataclass(frozen=True, slots=True)
class Reason:
    """One thing that weighs: ``id`` is a glossary id (meanings002.json key or ``pattern.<id>``)."""

    id: str
    kind: str  # general relative stage relation seat_stage kong seat_kong pattern leishen
    role: str | None  # initial … zhi_upper, None for a 課體
    branch: Branch | None  # the 天盤 branch of the position (for seat_*: still the position's branch)
    direction: str  # 吉 凶 平
    counted: bool  # False: voided by 旬空, or 平
    source: str
    params: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        lzh, ko = _texts(self.id)
        return {
            "text": lzh,
            "text_ko": ko,
            "source": self.source,
            "id": self.id,
            "kind": self.kind,
            "role": self.role,
            "branch": self.branch.char if self.branch is not None else None,
            "direction": self.direction,
            "counted": self.counted,
            "params": dict(self.params),
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """吉/凶/平 for a category ("general" or a 類神 category) and the reasons, in position order."""

    category: str
    direction: str
    reasons: tuple[Reason, ...]
    notes: tuple[str, ...]  # no_weights, category_no_rule, category_magnitude
    decided_by: str | None = None  # a role of ROLES, "patterns", or None (平: everything balanced)

    @property
    def tally(self) -> tuple[int, int]:
        """(counted 吉, counted 凶)."""
        ji = sum(1 for r in self.reasons if r.counted and r.direction == "吉")
        xiong = sum(1 for r in self.reasons if r.counted and r.direction == "凶")
        return ji, xiong

    def to_json(self) -> dict[str, Any]:
        ji, xiong = self.tally
        return {
            "category": self.category,
            "direction": self.direction,
            "tally": {"吉": ji, "凶": xiong},
            "decided_by": self.decided_by,
            "notes": list(self.notes),
            "reasons": [r.to_json() for r in self.reasons],
        }


def _meanings() -> Mapping[str, Mapping[str, Any]]:
    return meanings002()


@cache  # one pair per glossary id (a few hundred, from the seeds' data files): 17 a verdict's JSON (1 line)
def _texts(reason_id: str) -> tuple[str, str]:
    if reason_id.startswith("pattern."):
        p = entry(reason_id.removeprefix("pattern."))
        return _pattern_text(p, "lzh"), _pattern_text(p, "ko")
    if reason_id.startswith("leishen."):
        e = leishen_entry(reason_id.removeprefix("leishen."))
        return str(e["lzh"]), str(e["ko"])
    m = _meanings()[reason_id]
    return f"{m['name_lzh']}：{m['lzh']}", f"{m['name_ko']}: {m['ko']}"


def _pattern_text(p: Mapping[str, Any], lang: str) -> str:
    # a 課體 the seeds do not explain says so in its meaning (patterns.json no_meaning); a reason gives its definition
    texts = p[lang]
    unexplained = texts["meaning"] == no_meaning(lang)
    return f"{texts['name']}：{texts['definition'] if unexplained else texts['meaning']}"


def _meaning(key: str, kind: str, role: str, b: Branch, void: bool, **params: str) -> Reason:
    m = _meanings()[key]
    direction = str(m["direction"])
    return Reason(
        key, kind, role, b, direction, not void and direction != "平", str(m["source"]), tuple(params.items())
    )


def _position(chart: VerdictChart, role: str, b: Branch) -> list[Reason]:
    """The reasons of one position. A 傳 sits on a 地盤 seat (所臨); 干上 and 支上 sit on the 干 and the 支
    themselves (seed 003 entry 1 「晝為旦貴臨身」 reads 干上 丑 over 庚, although 庚's 寄宮 申 is 空), so their
    seat adds nothing; on 伏吟 a 傳 sits on itself and its seat repeats it."""
    day = chart.day
    seat: Branch | None = chart.earth_of(b) if role in ("initial", "middle", "final") else None
    if seat == b:
        seat = None
    kong = chart.xunkong
    void = b in kong or (seat is not None and seat in kong)
    out: list[Reason] = []
    if b in kong:
        out.append(_meaning("xunkong", "kong", role, b, False))
    if seat is not None and seat in kong:
        out.append(_meaning("xunkong", "seat_kong", role, b, False, seat=seat.char))
    out.append(_meaning(f"general.{chart.general_on(b).char}", "general", role, b, void))
    out.append(_meaning(f"relative.{Kin.of(day.stem.element, b.element).char}", "relative", role, b, void))
    stage = stage_at(day.stem, b, chart.options.mu)
    if stage is Stage.MU and chong(b) in _seen(chart):  # 「丑未相沖，兩墓俱開矣」
        opened = _meaning("stage.墓", "stage", role, b, True, opened_by=chong(b).char)
        out.append(
            Reason(opened.id, opened.kind, role, b, opened.direction, False, _MU_OPENED, opened.params)
        )
    elif stage is not None:
        out.append(_meaning(f"stage.{stage.char}", "stage", role, b, void))
    for side, target in (("gan", jigong(day.stem)), ("zhi", day.branch)):
        for kind in relations(b, target):
            out.append(_meaning(f"relation.{kind}.{side}", "relation", role, b, void, target=target.char))
    seat_stage = stage_at(day.stem, seat, chart.options.mu) if seat is not None else None
    if seat is not None and seat_stage is not None:
        out.append(_meaning(f"stage.{seat_stage.char}", "seat_stage", role, b, void, seat=seat.char))
    return out


_MU_OPENED = "seed 003 entry 1 「雖墓神覆日，中傳入墓，而丑未相沖，兩墓俱開矣」; seed 002 墓 「以困守論」"


def _seen(chart: VerdictChart) -> frozenset[Branch]:
    """The branches of the 三傳 and of 干上, 支上."""
    return frozenset(
        (*(t.branch for t in chart.transmissions), chart.lessons[0].upper, chart.lessons[2].upper)
    )


def _positions(
    chart: VerdictChart, birth: Branch | None, xingnian: Branch | None = None
) -> tuple[tuple[str, Branch], ...]:
    """The positions in the order of decision; 占時 only when it was given (an assumed 占時 says nothing of
    the question), 本命 when the asker's birth branch is known (seed 002 「干支三傳占時本命」), then the 行年
    (seed 003 「年命」: 003:19, 003:111; engine.liuren.nianming)."""
    t = chart.transmissions
    out = [
        ("initial", t[0].branch),
        ("gan_upper", chart.lessons[0].upper),
        ("zhi_upper", chart.lessons[2].upper),
        ("middle", t[1].branch),
        ("final", t[2].branch),
    ]
    if "hour" not in chart.assumed:
        out.append(("hour", chart.hour))
    if birth is not None:
        out.append(("birth", birth))
    if xingnian is not None:
        out.append(("xingnian", xingnian))
    return tuple(out)


def _balance(reasons: Sequence[Reason]) -> int:
    return sum(1 if r.direction == "吉" else -1 for r in reasons if r.counted)


def _leishen(chart: VerdictChart, category: str, role: str, b: Branch) -> list[Reason]:
    """What the branch stands for in the category's table (平: the 類神 tables give no 吉凶)."""
    hits = lookup(
        category,
        b,
        general=chart.general_on(b),
        relative=Kin.of(chart.day.stem.element, b.element).char,
        month_general=chart.month_general,
        dun_stem=xun_dun_stem(chart.day.xun_head, b),
    )
    return [
        Reason(f"leishen.{h.entry}", "leishen", role, b, "平", False, str(leishen_entry(h.entry)["source"]))
        for h in hits
    ]


def judge(
    chart: VerdictChart,
    category: str | None = None,
    *,
    birth: Branch | None = None,
    xingnian: Branch | None = None,
) -> Verdict:
    """The verdict of a chart for a 類神 category (name or id), or the general one when ``category`` is None.

    With a category, the positions are those whose branch or 天將 has an entry in its table, and each lists
    what it stands for there (``leishen`` reasons, not counted). Cached (:func:`cached_judge`).
    """
    return cached_judge(chart, category, birth, xingnian)


# The verdicts of the last JUDGE_CACHE_SIZE (課, question) pairs: pure in the chart, the category and the
# asker's 本命 and 行年 (it reads no instant); every `/cast now` in one 時辰 asks the same 課 (issue 31 item 8:
# /cast now's view asks it beside the reading; with cached_read a repeated chart_view 1.3 → 0.28 ms; 4 lines).
# The Verdict and its reasons are frozen.
JUDGE_CACHE_SIZE = 256


@lru_cache(maxsize=JUDGE_CACHE_SIZE, typed=True)
def cached_judge(
    chart: VerdictChart, category: str | None, birth: Branch | None, xingnian: Branch | None
) -> Verdict:
    """:func:`judge`, all arguments given (the cache's key)."""
    name = GENERAL if category is None else check_category(category)
    notes = ["no_weights"]
    reasons: list[Reason] = []
    positions: list[tuple[str, Branch]] = []
    for role, b in _positions(chart, birth, xingnian):
        found = _leishen(chart, name, role, b) if name != GENERAL else []
        if name == GENERAL or found:
            positions.append((role, b))
            reasons.extend(found)
            reasons.extend(_position(chart, role, b))
    if name != GENERAL:
        notes.append("category_no_rule")
        if name in ("數目", "顏色"):
            notes.append("category_magnitude")
    for hit in detect(chart):
        direction = str(entry(hit.id)["direction"])
        reasons.append(
            Reason(f"pattern.{hit.id}", "pattern", None, None, direction, direction != "平", hit.source)
        )
    decided_by: str | None = None
    direction = "平"
    for group in (*(r for r, _ in positions), PATTERNS):
        members = [r for r in reasons if (r.role or PATTERNS) == group]
        balance = _balance(members)
        if balance:
            decided_by, direction = group, "吉" if balance > 0 else "凶"
            break
    return Verdict(name, direction, tuple(reasons), tuple(notes), decided_by)
