"""The judgments of seed 000 (《易冒》 chapters 助傷, 局會, 三刑, 六害) on a chart, with their reasoning.

Each :class:`Judgment` carries its ``checks`` (every condition the text names, passed or not) so a reader can
see *why*, its ``subject`` (the 世 or 用 line it falls on) and its ``direction`` (吉 or 凶, 反吉 where 000:11 says
so). Seed references are ``000:<line>`` in ``/work/shared/seeds/000_*.txt``; the rules are spelled out
in spec/liuyao.md §4 and docs/liuyao.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.core.cycle import Branch, Element
from engine.core.relations import Kin, Stage, Vitality, chong, hai, sanhe, xing
from engine.liuyao.analysis import damaged
from engine.liuyao.categories import category
from engine.liuyao.chart import LiuyaoChart, MiddleSource, changsheng_of, stage_branch_of
from engine.liuyao.table import Relative

ZHU_GUI = "助鬼傷身"
JU_HUI = "局會"
SAN_XING = "三刑"
LIU_HAI = "六害"
# ids and display names: the judgment 六害 is the 穿心六害 (000:43 注 「古亦稱穿心六害」), not the 將星-family star
# 六害 of 000:95 「馬前六害」 that line 神煞 carry.
RULE_IDS = {ZHU_GUI: "zhu_gui_shang_shen", JU_HUI: "ju_hui", SAN_XING: "san_xing", LIU_HAI: "chuanxin_liuhai"}
RULE_NAMES = {ZHU_GUI: ZHU_GUI, JU_HUI: JU_HUI, SAN_XING: SAN_XING, LIU_HAI: "穿心六害"}
JI = "吉"
XIONG = "凶"

DAY = "日"
MONTH = "月"
MOVING = "動"
CHANGED = "變"
HIDDEN = "伏"
STATIC = "靜"
_HANGING = (DAY, MONTH)

_TRIPLES = ((Branch.YIN, Branch.SI, Branch.SHEN), (Branch.CHOU, Branch.XU, Branch.WEI))
# Lookup tables by branch index (the relations of engine.core.relations, read once: charts are judged often).
_XING = tuple(xing(b) for b in Branch)
_CHONG = tuple(chong(b) for b in Branch)
_HAI = tuple(hai(b) for b in Branch)


_MIDDLES = (Branch.SHEN, Branch.HAI, Branch.YIN, Branch.SI)  # any member: sanhe() gives the whole 局
_SANHE = {b: sanhe(b) for b in _MIDDLES}


class Check(NamedTuple):
    """One condition of a rule: ``code`` (message id ``liuyao.check.<code>``), whether it is met, values.

    (A NamedTuple rather than a frozen dataclass: a chart makes a dozen of these and construction is 2× cheaper.)
    """

    code: str
    ok: bool
    params: tuple[tuple[str, object], ...] = ()  # values are rendered with str()

    def to_json(self) -> dict[str, Any]:
        return {"check": self.code, "ok": self.ok, **{k: str(v) for k, v in self.params}}


@dataclass(frozen=True, slots=True)
class Judgment:
    rule: str  # 助鬼傷身 局會 三刑 六害
    holds: bool
    type: str | None  # 動會 變會 伏會 · 真刑 刑 墓開 · 克害 生害
    checks: tuple[Check, ...]
    source: str  # seed reference
    extra: tuple[tuple[str, Any], ...] = ()
    direction: str = XIONG  # 吉 | 凶 for the subject when the rule holds
    reversed: bool = False  # 反吉: a rule that is 凶 elsewhere is 吉 here (000:11)

    @property
    def id(self) -> str:
        return RULE_IDS[self.rule]

    @property
    def name(self) -> str:
        return RULE_NAMES[self.rule]

    @property
    def detail(self) -> str:
        """A compact, language-neutral trace: ``code=✓|✗ key=value …`` (templates render the prose)."""
        parts = []
        for c in self.checks:
            vals = " ".join(f"{k}={v}" for k, v in c.params)
            parts.append(f"{c.code}={'✓' if c.ok else '✗'}" + (f"({vals})" if vals else ""))
        return "; ".join(parts)

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.extra:
            if k == key:
                return v
        return default

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "id": self.id,
            "name": self.name,
            "holds": self.holds,
            "type": self.type,
            "direction": self.direction,
            "reversed": self.reversed,
            "detail": self.detail,
            "checks": [c.to_json() for c in self.checks],
            "source": self.source,
            **{k: _jsonable(v) for k, v in self.extra},
        }


def _jsonable(v: Any) -> Any:
    if isinstance(v, _Member):
        return v.to_json()
    if isinstance(v, tuple):
        if v and all(isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) for x in v):
            return {k: _jsonable(x) for k, x in v}
        return [_jsonable(x) for x in v]
    if isinstance(v, Branch | Element):
        return v.char
    return v


def _p(**kw: object) -> tuple[tuple[str, object], ...]:
    return tuple(kw.items())


def relative_element(palace: Element, rel: Relative) -> Element:
    """The 五行 a 六親 has in a palace (父母 生我, 子孫 我生, 官鬼 克我, 妻財 我克, 兄弟 同)."""
    return rel.kin.element(palace)


# ---------------------------------------------------------------- 助鬼傷身 (seed 000:3, 000:7)


def zhu_gui_shang_shen(chart: LiuyaoChart) -> Judgment:
    """「以世爻受鬼克，而鬼長生於日」 with the 真生, 空破 and 旺相 exceptions (seed 000:3, 000:7)."""
    shi = chart.shi
    subject = ("subject", {"role": "世", "branch": shi.branch.char, "line": shi.position, "hidden": False})
    # 000:11 「若女占夫而官星為用者，遇之反吉也；占官驟升，占武即發。（大抵用官吉而用財凶，世爻尤凶也。）」 — but
    # not where the question takes the 鬼 as 忌 (000:15 「占訟有重責之憂…總之以鬼為忌者，助傷固凶」).
    use = chart.use
    reverse = use is not None and use.relative == Relative.OFFICIAL and not use.shi and use.ghost != "avoid"
    direction = JI if reverse else XIONG
    source = "000:3, 000:7, 000:11" if reverse else "000:3, 000:7"
    ghosts = [ln for ln in chart.lines if ln.relative == Relative.OFFICIAL]
    if not ghosts:
        return Judgment(
            ZHU_GUI, False, None, (Check("ghost_visible", False),), source, (subject,), direction, reverse
        )
    day = chart.day.branch
    wang_xiang = (Vitality.WANG, Vitality.XIANG)
    shi_ok = shi.condition.vitality not in wang_xiang
    best = None
    best_score = -1
    for g in ghosts:
        c = g.condition
        born = c.day_stage == Stage.CHANGSHENG
        oks = (
            g.element.controls(shi.element),
            born,
            born and day.element.generates(g.element),
            not c.empty,
            not c.month_break,
            shi_ok,
        )
        score = sum(oks)
        if score > best_score:
            best, best_score, best_oks = g, score, oks
    assert best is not None
    g = best
    stage = g.condition.day_stage
    gb, sb = g.branch.char, shi.branch.char
    checks = (
        Check(
            "ghost_controls_shi", best_oks[0], _p(ghost=gb, line=g.position, shi=sb, shi_line=shi.position)
        ),
        Check("day_changsheng", best_oks[1], _p(day=day.char, stage=stage.char)),
        Check(
            "true_sheng",
            best_oks[2],
            _p(day=day.char, day_element=day.element.char, ghost_element=g.element.char),
        ),
        Check("ghost_not_empty", best_oks[3], _p(ghost=gb)),
        Check("ghost_not_broken", best_oks[4], _p(ghost=gb, month=chart.month.char)),
        Check("shi_not_strong", best_oks[5], _p(shi=sb, vitality=shi.condition.vitality.char)),
    )
    return Judgment(
        ZHU_GUI,
        best_score == len(checks),
        None,
        checks,
        source,
        (("ghost_line", g.position), subject),
        direction,
        reverse,
    )


# ---------------------------------------------------------------- 局會 (seed 000:19, 000:23, 000:27)


class _Member(NamedTuple):
    branch: Branch
    source: str  # 動 變 伏 靜 日 月
    line: int | None
    damaged: bool
    flying: Branch | None = None  # for 伏: the 飛神 it hides under

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"branch": self.branch.char, "source": self.source, "line": self.line}
        out["damaged"] = self.damaged
        if self.flying is not None:
            out["flying"] = self.flying.char
        return out


def _members(chart: LiuyaoChart) -> list[_Member]:
    """Members with their damage: 空 / 破 / 散 (000:19 「傷其中則不能局」, 000:15 「惟空破散」; 散 per option)."""
    out = []
    opts = chart.options
    for ln in chart.lines:
        if ln.moving:
            out.append(_Member(ln.branch, MOVING, ln.position, damaged(ln.condition, True, opts)))
            if ln.changed is not None:
                ch = ln.changed
                out.append(_Member(ch.branch, CHANGED, ln.position, damaged(ch.condition, True, opts)))
            for h in ln.hidden:  # a 伏神 joins when its 飛神 moves: 「發動飛爻而相挈」
                out.append(
                    _Member(h.branch, HIDDEN, ln.position, damaged(h.condition, False, opts), ln.branch)
                )
        elif opts.allow_static:
            out.append(_Member(ln.branch, STATIC, ln.position, damaged(ln.condition, False, opts)))
    out.append(_Member(chart.day.branch, DAY, None, False))
    out.append(_Member(chart.month, MONTH, None, False))
    return out


def ju_hui(chart: LiuyaoChart) -> tuple[Judgment, ...]:
    """三合 局會 (動會/變會/伏會), 成 or 不成, 懸始/懸終 and 失始/失終 strength (seed 000:19–27)."""
    members = _members(chart)
    present_hex = {m.branch for m in members if m.source not in _HANGING}
    present_all = present_hex | {chart.day.branch, chart.month}
    # 000:19 「中神主也，失其主則不能會」: the 中神 from the hexagram (default; all five worked examples of 000:23–27
    # have it there); option middle_source=day_month lets the day or month supply it (not in the text).
    hung_middle = chart.options.middle_source == MiddleSource.DAY_MONTH
    middle_pool = present_all if hung_middle else present_hex
    earth = chart.options.earth_changsheng
    use_el = None
    if chart.use is not None:
        use_el = relative_element(chart.main.palace.element, chart.use.relative)
    subj = _subjects(chart)[0]
    found = []
    for any_member in _MIDDLES:
        start, middle, end, element = _SANHE[any_member]
        if (
            middle not in middle_pool
            or (start in present_hex) + (middle in present_hex) + (end in present_hex) < 2
        ):
            continue
        role = {start: "始", middle: "中", end: "終"}
        mine = [m for m in members if m.branch in role]
        from_hex = [m for m in mine if m.source not in _HANGING]
        hex_branches = {m.branch for m in from_hex}
        present = {m.branch for m in mine}
        if middle not in present or len(hex_branches) < 2:
            continue
        # Kind of each member branch: 動 (or 靜) > 變 > 伏 (「變」 outranks 「伏」: 遯之乾's 寅, spec §4).
        kinds = {}
        for b in hex_branches:
            srcs = {m.source for m in from_hex if m.branch == b}
            kinds[b] = MOVING if srcs & {MOVING, STATIC} else CHANGED if CHANGED in srcs else HIDDEN
        kind = "變會" if CHANGED in kinds.values() else "伏會" if HIDDEN in kinds.values() else "動會"

        intact_set = {m.branch for m in mine if not m.damaged}
        intact = intact_set.__contains__

        hang = [(m.source, role[m.branch]) for m in mine if m.source in _HANGING]
        hang_roles = {r for _, r in hang}
        middle_from = "卦" if middle in hex_branches else "日月"
        checks = [
            Check("middle_present", True, _p(middle=middle.char, source=middle_from)),
            Check("two_from_hexagram", True, _p(branches="".join(b.char for b in sorted(hex_branches)))),
            Check(
                "hung_by_day_or_month",
                bool(hang),
                _p(
                    day=chart.day.branch.char,
                    month=chart.month.char,
                    hang=",".join(f"{s}{r}" for s, r in hang) or "-",
                ),
            ),
            Check("not_hung_at_end_only", hang_roles != {"終"}, _p(hang=",".join(sorted(hang_roles)) or "-")),
            Check("middle_intact", intact(middle), _p(middle=middle.char)),
        ]
        if kind == "變會":  # 「變失始者其局假」
            checks.append(Check("start_intact", intact(start), _p(start=start.char)))
        if kind == "伏會":  # 「伏得生者其局真」: the 飛神 is the 伏神's 長生
            hidden_branches = [b for b, k in kinds.items() if k == HIDDEN]
            born = all(
                any(
                    m.source == HIDDEN and m.branch == b and m.flying == changsheng_of(b.element, earth)
                    for m in from_hex
                )
                for b in hidden_branches
            )
            flying = ",".join(
                f"{m.branch.char}/{m.flying.char}" for m in from_hex if m.source == HIDDEN and m.flying
            )
            checks.append(Check("hidden_on_changsheng", born, _p(hidden=flying)))
        start_ok, end_ok = intact(start), intact(end)
        strength = "力大" if start_ok and end_ok else "力小" if not start_ok else "力存"
        holds = all(c.ok for c in checks)
        # Its direction for the subject by 生克 (000:27 「局會之道雖紛，而生克之理若一」): a 局 of the subject's
        # 五行 or one that 生s it helps (吉); one that 克s, drains or is 克ed by it does not (凶).
        helps = element == subj.element or element.generates(subj.element)
        found.append(
            Judgment(
                JU_HUI,
                holds,
                kind,
                tuple(checks),
                "000:19, 000:23, 000:27",
                (
                    ("element", element),
                    ("ju", start.char + middle.char + end.char),
                    ("strength", strength),
                    ("hang", tuple(f"懸{r}" for r in ("始", "中", "終") if r in hang_roles)),
                    ("members", tuple(mine)),
                    ("use", use_el == element),
                    ("middle_source", chart.options.middle_source.value),
                    ("subject", _subject_json(subj)),
                ),
                JI if helps else XIONG,
            )
        )
    if not found:
        return (
            Judgment(
                JU_HUI,
                False,
                None,
                (Check("ju_candidate", False),),
                "000:19",
                (("middle_source", chart.options.middle_source.value), ("subject", _subject_json(subj))),
                JI,
            ),
        )
    found.sort(key=lambda j: not j.get("use"))
    return tuple(found)


# ---------------------------------------------------------------- subjects and agents (三刑, 六害)


class _Subject(NamedTuple):
    label: str  # 用 or 世
    branch: Branch
    line: int
    hidden: bool
    element: Element


class _Agent(NamedTuple):
    source: str  # 日 月 動 變
    branch: Branch
    line: int | None


def _subjects(chart: LiuyaoChart) -> list[_Subject]:
    """The 用 lines (visible, else their 伏神), then the 世 unless it is one of them.

    000:39 注 「身命，謂世及用爻遇之」 and 000:47 「克害重用爻世爻」: 三刑 and 六害 are judged on both."""
    use = chart.use
    s = chart.shi
    shi = _Subject("世", s.branch, s.position, False, s.element)
    if use is None or use.shi:
        return [shi]
    out = []
    if use.lines:
        out = [
            _Subject("用", chart.lines[i - 1].branch, i, False, chart.lines[i - 1].element) for i in use.lines
        ]
    else:
        for i in use.hidden:
            for h in chart.lines[i - 1].hidden:
                if h.hidden.relative == use.relative:
                    out.append(_Subject("用", h.branch, i, True, h.branch.element))
    if not any(x.line == s.position and not x.hidden for x in out):
        out.append(shi)
    return out


def _agents(chart: LiuyaoChart, subject: _Subject) -> list[_Agent]:
    """Day, month, the other moving lines, and the subject's own 變 (spec §4 三刑)."""
    out = [_Agent(DAY, chart.day.branch, None), _Agent(MONTH, chart.month, None)]
    for ln in chart.lines:
        if not ln.moving:
            continue
        if ln.position != subject.line or subject.hidden:
            out.append(_Agent(MOVING, ln.branch, ln.position))
        if ln.position == subject.line and not subject.hidden and ln.changed is not None:
            out.append(_Agent(CHANGED, ln.changed.branch, ln.position))
    return out


# ---------------------------------------------------------------- 三刑 (seed 000:31, 000:35, 000:39)


def _pairs(chart: LiuyaoChart) -> list[tuple[_Subject, list[_Agent]]]:
    return [(subj, _agents(chart, subj)) for subj in _subjects(chart)]


def san_xing(
    chart: LiuyaoChart, pairs: list[tuple[_Subject, list[_Agent]]] | None = None
) -> tuple[Judgment, ...]:
    """刑 received by the 用神 (or 世), 真刑 = 「刑而兼沖」, the full triple, and 墓開 (seed 000:31–39)."""
    out = []
    earth = chart.options.earth_changsheng
    for subj, agents in pairs if pairs is not None else _pairs(chart):
        hits = []
        for a in agents:
            x, c = _XING[a.branch] == subj.branch, _CHONG[a.branch] == subj.branch
            if x or c:
                hits.append((a, x, c))
        xing_hits = [h for h in hits if h[1]]
        true_hits = [h for h in hits if h[1] and h[2]]
        present = {subj.branch} | {a.branch for a in agents}
        triple = next(("".join(b.char for b in t) for t in _TRIPLES if set(t) <= present), None)
        kind = "真刑" if true_hits else "刑" if xing_hits else None
        # 000:39 「官克世而問訟，五克世而問疏，若世刑而大凶也」: the 世 刑ed in a lawsuit where a 官鬼 line 克s
        # the 世, or in a petition (疏) where the 五爻 (the ruler's line) 克s it.
        grave_by = _grave_by(chart, subj) if xing_hits and subj.label == "世" else None
        grave = grave_by is not None
        checks = (
            Check(
                "xing_received",
                bool(xing_hits),
                _p(
                    subject=subj.branch.char,
                    by=",".join(f"{a.source}{a.branch.char}" for a, _, _ in xing_hits) or "-",
                ),
            ),
            Check(
                "xing_and_chong",
                bool(true_hits),
                _p(
                    subject=subj.branch.char,
                    by=",".join(f"{a.source}{a.branch.char}" for a, _, _ in true_hits) or "-",
                ),
            ),
        )
        out.append(
            Judgment(
                SAN_XING,
                bool(xing_hits),
                kind,
                checks,
                "000:31, 000:35, 000:39",
                (
                    ("subject", _subject_json(subj)),
                    ("grave", grave),
                    ("grave_by", grave_by),
                    (
                        "agents",
                        tuple(
                            {
                                "source": a.source,
                                "branch": a.branch.char,
                                "line": a.line,
                                "xing": x,
                                "chong": c,
                            }
                            for a, x, c in hits
                        ),
                    ),
                    ("triple", triple),
                ),
            )
        )
        # 墓開: 「三刑之法，墓亦賴之，刑則墓開，刑而兼沖，其力更大」 — the subject enters its 墓 on the day,
        # in its own 變 or on a moving line, and that 墓 is 刑/沖ed by the day, month or a moving/changed line.
        tomb = stage_branch_of(subj.element, Stage.MU, earth)
        tomb_at = [a for a in agents if a.branch == tomb and a.source in (DAY, CHANGED, MOVING)]
        if tomb_at:
            openers = []
            pool = [a for a in agents if a not in tomb_at]
            for t in tomb_at:
                for a in pool:
                    x, c = _XING[a.branch] == t.branch, _CHONG[a.branch] == t.branch
                    if x or c:
                        openers.append((t, a, x, c))
            kinds = {"刑而兼沖" if x and c else "刑" if x else "沖" for _, _, x, c in openers}
            out.append(
                Judgment(
                    SAN_XING,
                    bool(openers),
                    "墓開",
                    (
                        Check(
                            "enters_tomb",
                            True,
                            _p(
                                subject=subj.branch.char,
                                tomb=tomb.char,
                                at=",".join(t.source for t in tomb_at),
                            ),
                        ),
                        Check(
                            "tomb_opened",
                            bool(openers),
                            _p(by=",".join(f"{a.source}{a.branch.char}" for _, a, _, _ in openers) or "-"),
                        ),
                    ),
                    "000:39",
                    (
                        ("subject", _subject_json(subj)),
                        ("tomb", tomb),
                        ("opened_by", tuple(sorted(kinds))),
                    ),
                    JI,  # 注「夫墓得刑沖，猶鎖得鑰，故曰墓開」: the subject leaves its 墓
                )
            )
    return tuple(out)


def _grave_by(chart: LiuyaoChart, shi: _Subject) -> str | None:
    """Who 克s the 世 so that its 刑 is 大凶 (000:39): "官" in a lawsuit (「官克世而問訟」), "五" in a petition
    (「五克世而問疏」); None when the question is neither or nothing 克s the 世."""
    use = chart.use
    if use is None or use.category is None:
        return None
    if use.category == "lawsuit":
        if any(ln.relative == Relative.OFFICIAL and ln.element.controls(shi.element) for ln in chart.lines):
            return "官"
        return None
    cat = category(use.category)
    if cat is not None and cat.ruler is not None:
        ruler = chart.lines[cat.ruler - 1]
        if ruler.position != shi.line and ruler.element.controls(shi.element):
            return "五"
    return None


def _subject_json(s: _Subject) -> dict[str, Any]:
    return {"role": s.label, "branch": s.branch.char, "line": s.line, "hidden": s.hidden}


# ---------------------------------------------------------------- 六害 (seed 000:43, 000:47)


def _harm_kind(me: Element, other: Element) -> tuple[str, str]:
    """克害 or 生害, and who acts on whom (no 害 pair shares its 五行)."""
    return {
        Kin.VICTIM: ("克害", "我克彼"),
        Kin.MASTER: ("克害", "彼克我"),
        Kin.CHILD: ("生害", "我生彼"),
    }.get(Kin.of(me, other), ("生害", "彼生我"))


# 000:47 「我克彼者，我強而彼弱，志相惡爾；彼克我者，彼剛而我柔，力被制爾」 and 注「大抵六害重克害」: 生害 weighs
# least, 克害 more, and of 克害 the one where the other 克s me (力被制) more than the one where I 克 it (志相惡).
HARM_WEIGHT = {"我生彼": 1, "彼生我": 1, "我克彼": 2, "彼克我": 3}


def _harm(
    subject: Mapping[str, Any],
    me: Element,
    agent: str,
    other: Branch,
    source: str,
    agent_line: int | None,
    *extra: tuple[str, Any],
) -> Judgment:
    """A 六害 that holds: ``subject`` (its JSON, element ``me``) harmed by ``other`` of ``agent`` (日 月 動 變 應 爻)."""
    kind, relation = _harm_kind(me, other.element)
    by = f"{agent}{other.char}"
    return Judgment(
        LIU_HAI,
        True,
        kind,
        (Check("harm", True, _p(subject=subject["branch"], by=by, direction=relation)),),
        source,
        (
            ("subject", subject),
            ("agent", agent),
            ("agent_line", agent_line),
            ("relation", relation),  # 我克彼 彼克我 我生彼 彼生我
            ("heavy", kind == "克害"),  # 「克害重用爻世爻，及應克世」
            ("weight", HARM_WEIGHT[relation]),
            *extra,
        ),
    )


def _partner(line: int) -> int:
    """The line paired with ``line`` (1-4, 2-5, 3-6): the pairs a 六害卦 harms all three of (spec §2)."""
    return line + 3 if line <= 3 else line - 3


def liu_hai(
    chart: LiuyaoChart, pairs: list[tuple[_Subject, list[_Agent]]] | None = None
) -> tuple[Judgment, ...]:
    """六害 on the 用爻 / 世爻 from the day, month, moving lines, its 變 and its partner line, and between 應 and
    世; 克害 weighs more, 彼克我 more than 我克彼 (seed 000:43, 000:47).

    000:47 注 「若姤恆小畜益卦，雖存六害之名，當察其用而權之」: in a 六害卦 every line pair is a 害, so the 用's
    own partner line (static or not) is reported; the 世's partner is the 應 (「及應克世」)."""
    base = list(pairs) if pairs is not None else _pairs(chart)
    shi, ying = chart.shi, chart.ying
    out = []
    for subj, agents in base:
        sj = _subject_json(subj)
        for a in agents:
            if _HAI[a.branch] == subj.branch:
                out.append(_harm(sj, subj.element, a.source, a.branch, "000:43, 000:47", a.line))
        if subj.hidden:
            continue
        other = chart.lines[_partner(subj.line) - 1]
        if _HAI[other.branch] != subj.branch:
            continue
        if subj.line == shi.position:  # 應 and 世
            ying_controls_shi = ("ying_controls_shi", ying.element.controls(shi.element))
            out.append(_harm(sj, shi.element, "應", ying.branch, "000:47", ying.position, ying_controls_shi))
        else:
            out.append(_harm(sj, subj.element, f"{other.position}爻", other.branch, "000:47", other.position))
    if not out:
        subject = ("subject", _subject_json(_subjects(chart)[0]))
        out.append(Judgment(LIU_HAI, False, None, (Check("harm_found", False),), "000:43", (subject,)))
    return tuple(out)


def judge(chart: LiuyaoChart) -> tuple[Judgment, ...]:
    """All seed-000 judgments of a chart, in the order 助鬼傷身, 局會, 三刑, 六害."""
    pairs = _pairs(chart)
    parts: Iterable[Judgment | tuple[Judgment, ...]] = (
        zhu_gui_shang_shen(chart),
        ju_hui(chart),
        san_xing(chart, pairs),
        liu_hai(chart, pairs),
    )
    out: list[Judgment] = []
    for p in parts:
        if isinstance(p, Judgment):
            out.append(p)
        else:
            out.extend(p)
    return tuple(out)
