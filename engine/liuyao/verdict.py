"""The verdict for the question asked: the 用神 line, its strength, who helps and harms it, the judgments that hold
on it (or on the 世) with their direction, and a one-line 吉 / 凶 / 平 conclusion with its reasons.

The seeds give no arithmetic. Each reason carries a signed weight that only encodes the order the text states:

- 000:39 「猶退神之例，而不及旬空月破之凶也」: 刑 ≈ 退神 < 旬空 = 月破; 「刑而兼沖，其力更大」: 真刑 > 刑;
  「若世刑而大凶也」: the 世 刑ed in a lawsuit with 官克世 is the heaviest;
- 000:47 「大抵六害重克害」 and 「我克彼…志相惡爾；彼克我…力被制爾」: 生害 < 克害 (我克彼) < 克害 (彼克我);
  「然亦不及六沖之甚也」: 害 < 沖 (日破 / 沖散);
- 000:3 「世爻逢旺相者弗能傷」: 旺相 protects; 000:15 「惟空破散則吉」: a 忌 鬼 that is 空 / 破 / 散 is good.

The conclusion is the sign of the sum (0 → 平); every weighed rule is listed, so a reader sees what decided it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.cycle import Branch, Element
from engine.core.relations import Kin, Vitality
from engine.liuyao.analysis import (
    Helper,
    LineAnalysis,
    Strength,
    helpers,
    rule,
    strength,
    ying_qi,
)
from engine.liuyao.chart import LiuyaoChart, Scatter
from engine.liuyao.judgments import JI, JU_HUI, LIU_HAI, SAN_XING, ZHU_GUI, Judgment
from engine.liuyao.table import Relative

PING = "平"

# Signed weights (see the module docstring for the order each one encodes).
W_VITALITY = {Vitality.WANG: 2, Vitality.XIANG: 2, Vitality.XIU: -1, Vitality.QIU: -2, Vitality.SI: -2}
W_DAY = {"日生": 1, "日比": 1, "日克": -1}
W_EMPTY = W_BREAK = -5
W_CLASH = -4  # 日破 / 沖散
W_AN_DONG = 1
W_TRANSFORM = {
    "hui_tou_sheng": 3,
    "jin_shen": 2,
    "hui_tou_ke": -3,
    "tui_shen": -3,
    "hua_mu": -2,
    "hua_jue": -2,
    "hua_kong": -3,
    "hua_po": -3,
    "fan_yin": -2,
    "fu_yin": -1,
}
W_HELPER = {"yuan_shen": 2, "ji_shen": -3, "chou_shen": -1}
W_GHOST_DAMAGED = 2
W_GHOST_CONTROLS_SHI = -2
W_ZHU_GUI = 4
W_JU = {"力大": 3, "力存": 2, "力小": 1}
W_XING = {"刑": -3, "真刑": -4, "墓開": 1}
W_GRAVE = -6

# the lines by their names in the texts of a reason (《周易》 爻題: 初九、九二 … 上九 → 初爻 … 上爻)
LINE_NAMES = ("初爻", "二爻", "三爻", "四爻", "五爻", "上爻")


def line_name(position: int) -> str:
    """Line ``position`` (1 = bottom … 6 = top) by its name: 初爻 … 上爻."""
    return LINE_NAMES[position - 1]


@dataclass(frozen=True, slots=True)
class Reason:
    code: str
    text: str  # compact classical phrase (terms and 干支), rendered by the CLI from ``code`` and ``params``
    source: str
    weight: int
    params: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "text": self.text,
            "source": self.source,
            "weight": self.weight,
            **dict(self.params),
        }


@dataclass(frozen=True, slots=True)
class UseLine:
    """The line the verdict reads as the 用神 (role 用 or 世)."""

    role: str
    relative: Relative
    line: int
    branch: Branch
    element: Element
    hidden: bool
    moving: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "relative": self.relative.char,
            "line": self.line,
            "branch": self.branch.char,
            "role": self.role,
            "hidden": self.hidden,
            "moving": self.moving,
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    use: UseLine
    strength: Strength
    transforms: tuple[str, ...]
    helpers: tuple[Helper, ...]
    reasons: tuple[Reason, ...]
    score: int
    direction: str  # 吉 凶 平
    weighed: tuple[str, ...]
    relations: tuple[tuple[str, str], ...] = ()  # how the 世 and 應 stand to the 用 (shown, not weighed)
    # timing only, not weighed: 000:15 「靜遲動速」 of a moving 忌鬼 says when, not whether (issue 32 item 7)
    timing: tuple[Reason, ...] = ()

    @property
    def deciding(self) -> tuple[int, ...]:
        """The reasons that decided the direction, as indices into ``reasons``, heaviest first (of equal weight,
        in the order they are listed): those weighing the way the sum points; when the sum is 0 (平), every
        reason, the sides that balanced. A first screen names the first two or three."""
        sign = 1 if self.direction == "吉" else -1 if self.direction == "凶" else 0
        chosen = [i for i, r in enumerate(self.reasons) if sign == 0 or r.weight * sign > 0]
        return tuple(sorted(chosen, key=lambda i: -abs(self.reasons[i].weight)))

    def to_json(self) -> dict[str, Any]:
        return {
            "use": self.use.to_json(),
            "direction": self.direction,
            "score": self.score,
            "reasons": [r.to_json() for r in self.reasons],
            "deciding": list(self.deciding),
            "strength": self.strength.to_json(),
            "transforms": [rule(t).lzh for t in self.transforms],
            "helpers": [h.to_json() for h in self.helpers],
            "ying_qi": ying_qi(self.use.moving or self.strength.an_dong, self.strength.strong),
            "weighed": list(self.weighed),
            "relations": dict(self.relations),
            "timing": [r.to_json() for r in self.timing],
        }


def _pick(chart: LiuyaoChart, lines: tuple[LineAnalysis, ...]) -> UseLine:
    """The 用神 line: the 世 when no 用 is named or the 用 is the 世; of several visible lines the moving one,
    then one holding 世/應, then an undamaged one (《增刪卜易》 用神兩現, outside the seeds); else its 伏神."""
    use = chart.use
    if use is None or use.shi:
        s = chart.shi
        return UseLine("世", s.relative, s.position, s.branch, s.element, False, s.moving)
    if use.lines:

        def rank(i: int) -> tuple[bool, bool, bool, int]:
            ln = chart.lines[i - 1]
            return (ln.moving, ln.shi or ln.ying, not lines[i - 1].strength.damaged, -i)

        best = chart.lines[max(use.lines, key=rank) - 1]
        return UseLine("用", best.relative, best.position, best.branch, best.element, False, best.moving)
    for i in use.hidden:
        for h in chart.lines[i - 1].hidden:
            if h.hidden.relative == use.relative:
                return UseLine("用", use.relative, i, h.branch, h.branch.element, True, False)
    raise AssertionError("a 用神 always has a visible line or a 伏神")  # pragma: no cover


def _on(j: Judgment, use: UseLine) -> bool:
    if j.rule == JU_HUI:  # a 局 acts on the whole chart; its direction is for the 用's 五行
        return True
    subj = j.get("subject")
    if subj is None:
        return False
    if subj["role"] == "世":
        return True
    return subj["line"] == use.line and bool(subj.get("hidden")) == use.hidden


def _judgment_reason(j: Judgment) -> Reason | None:
    subj = j.get("subject") or {}
    who = f"{subj.get('role', '')}{subj.get('branch', '')}"
    if j.rule == ZHU_GUI:
        w = W_ZHU_GUI if j.direction == JI else -W_ZHU_GUI
        text = f"{j.name}{'·反吉' if j.reversed else ''}"
        return Reason("judgment", text, j.source, w, (("rule", j.name),))
    if j.rule == JU_HUI:
        w = W_JU[j.get("strength")] * (1 if j.direction == JI else -1)
        text = f"{j.get('ju')}{j.type}{j.get('strength')}"
        ju = (("ju", str(j.get("ju"))), ("type", str(j.type)), ("strength", str(j.get("strength"))))
        return Reason("judgment", text, j.source, w, (("rule", j.name), *ju))
    if j.rule == SAN_XING:
        if j.get("grave"):
            by = j.get("grave_by")
            cited = "「五克世而問疏，若世刑而大凶也」" if by == "五" else "「官克世而問訟…若世刑而大凶也」"
            return Reason("judgment", f"{who}{j.type}·大凶", f"000:39 {cited}", W_GRAVE, (("rule", j.name),))
        assert j.type is not None
        agents = ",".join(f"{a['source']}{a['branch']}" for a in j.get("agents", ()) if a["xing"])
        against = agents if j.type != "墓開" else str(j.get("tomb"))
        text = f"{who}{j.type}({against})"
        xing = (("who", who), ("type", j.type), ("against", against))
        return Reason("judgment", text, j.source, W_XING[j.type], (("rule", j.name), *xing))
    if j.rule == LIU_HAI:
        # who acts: 日 月 動 變 應, or a partner line by number (6爻), which the text says by its name (上爻)
        agent = str(j.get("agent"))
        said = LINE_NAMES[int(agent[:-1]) - 1] if agent[:-1].isdigit() else agent
        text = f"{who}{j.name}{j.type}{j.get('relation')}({said})"
        parts = (
            ("who", who),
            ("name", j.name),
            ("type", str(j.type)),
            ("relation", str(j.get("relation"))),
            ("against", str(j.get("agent"))),
        )
        return Reason("judgment", text, j.source, -int(j.get("weight")), (("rule", j.name), *parts))
    return None  # pragma: no cover


def verdict(chart: LiuyaoChart, lines: tuple[LineAnalysis, ...], judgments: tuple[Judgment, ...]) -> Verdict:
    use = _pick(chart, lines)
    opts = chart.options
    if use.hidden:
        hl = next(x for x in chart.lines[use.line - 1].hidden if x.branch == use.branch)
        st = strength(hl.condition, use.element, chart.day.branch, False, opts)
        transforms: tuple[str, ...] = ()
    else:
        st = lines[use.line - 1].strength
        transforms = lines[use.line - 1].transforms
    name = f"{use.role}{use.relative.char}{use.branch.char}"
    r_strong = rule("strong")
    reasons: list[Reason] = [
        Reason(
            "vitality",
            f"{name} 月{st.vitality.char}",
            _vitality_source(use),
            W_VITALITY[st.vitality],
            (("vitality", st.vitality.char),),
        )
    ]
    if st.day_relation in W_DAY:
        reasons.append(Reason("day", st.day_relation, rule("day_support").source, W_DAY[st.day_relation]))
    if st.empty:
        reasons.append(Reason("empty", "旬空", "000:39 「不及旬空月破之凶也」", W_EMPTY))
    if st.month_break:
        reasons.append(Reason("month_break", "月破", "000:39 「不及旬空月破之凶也」", W_BREAK))
    if st.ri_po and opts.scatter == Scatter.DAY_CLASH:
        reasons.append(Reason("ri_po", "日破", rule("ri_po").source, W_CLASH))
    if st.chong_san:
        reasons.append(Reason("chong_san", "沖散", rule("chong_san").source, W_CLASH))
    if st.an_dong:
        reasons.append(Reason("an_dong", "暗動", rule("an_dong").source, W_AN_DONG))
    for t in transforms:
        r = rule(t)
        reasons.append(
            Reason(
                "transform",
                f"化{r.lzh}" if t in ("jin_shen", "tui_shen") else r.lzh,
                r.source,
                W_TRANSFORM[t],
            )
        )
    hs = helpers(chart, use.element, lines)
    for h in hs:
        if h.active:
            r = rule(h.role)
            where = "、".join(line_name(p) for p in h.active)
            reasons.append(Reason("helper", f"{r.lzh}{h.relative.char}{where}動", r.source, W_HELPER[h.role]))
    counted_ji = frozenset(p for h in hs if h.role == "ji_shen" for p in h.active)
    ghost, timing = _ghost_reasons(chart, lines, use, counted_ji)
    reasons += ghost
    for j in judgments:
        if j.holds and _on(j, use):
            r2 = _judgment_reason(j)
            if r2 is not None:
                reasons.append(r2)
    score = sum(r.weight for r in reasons)
    direction = "吉" if score > 0 else "凶" if score < 0 else PING
    weighed = (
        r_strong.lzh,
        "旬空",
        "月破",
        rule("day_clash").lzh,
        "變",
        rule("yuan_shen").lzh,
        rule("ji_shen").lzh,
        rule("chou_shen").lzh,
        ZHU_GUI,
        JU_HUI,
        SAN_XING,
        "穿心六害",
    )
    return Verdict(
        use, st, transforms, hs, tuple(reasons), score, direction, weighed, _relations(chart, use), timing
    )


def _vitality_source(use: UseLine) -> str:
    """The rule the month strength of this 用神 rests on: 000:3 「世爻逢旺相者弗能傷」 speaks of the 世 only; 000:15
    「旺大衰小」 of the 鬼 (官鬼 as the 用); any other 六親 has only the 月令 rule (spec §3), outside the seeds."""
    if use.role == "世":
        return "000:3 「世爻逢旺相者弗能傷」; 「月令旺相休囚死」 (spec §3)"
    if use.relative == Relative.OFFICIAL:
        return "000:15 「旺大衰小」; 「月令旺相休囚死」 (spec §3)"
    # 《增刪卜易》 names the book (its 用神旺相 is a topic, not a line to quote)
    return "「月令旺相休囚死」 (spec §3); 《增刪卜易》 (outside the seeds)"


# How a line's 五行 stands to the 用 (named from the line's side). The seeds weigh 世/應 only inside 六害 (000:47
# 「及應克世」), so these are shown for the reader and not counted.
_TO_USE = {Kin.SAME: "比用", Kin.MOTHER: "生用", Kin.MASTER: "克用", Kin.CHILD: "洩用", Kin.VICTIM: "用克"}


def _relations(chart: LiuyaoChart, use: UseLine) -> tuple[tuple[str, str], ...]:
    out = []
    for role, ln in (("世", chart.shi), ("應", chart.ying)):
        if ln.position == use.line and not use.hidden:
            out.append((role, "即用"))
        else:
            out.append((role, _TO_USE[Kin.of(use.element, ln.element)]))
    return tuple(out)


def _ghost_reasons(
    chart: LiuyaoChart, lines: tuple[LineAnalysis, ...], picked: UseLine, counted_ji: frozenset[int]
) -> tuple[list[Reason], tuple[Reason, ...]]:
    """The 鬼 where the question reads it: 000:15 「總之以鬼為忌者…靜遲動速，旺大衰小，惟空破散則吉也」 and
    「即以官為用者，亦嫌其克世」. Returns (weighed reasons, timing).

    Each moving 忌鬼 weighs once: as the 忌神 that 克s the 用 (``counted_ji``, the lines the helper reason already
    counts). 「靜遲動速」 says how soon (timing), not how ill, so it is reported apart and not weighed; and when the
    用 is the 世, the 鬼 克世 is that same 忌神 克用 and is not counted again."""
    use = chart.use
    if use is None or not (use.ghost is not None or (use.relative == Relative.OFFICIAL and not use.shi)):
        return [], ()
    out = []
    timing: list[Reason] = []
    ghosts = [la for la in lines if la.relative == Relative.OFFICIAL]
    if use.ghost == "avoid":
        if ghosts and all(la.strength.damaged for la in ghosts):
            out.append(Reason("ghost_damaged", "忌鬼空破散", "000:15 「惟空破散則吉也」", W_GHOST_DAMAGED))
        active = [la for la in ghosts if la.moving and not la.strength.damaged]
        if active:
            where = "、".join(line_name(la.position) for la in active)
            timing.append(Reason("ghost_active", f"忌鬼{where}動·速", "000:15 「靜遲動速」", 0))
    shi = chart.shi
    use_is_shi = picked.role == "世" or (picked.line == shi.position and not picked.hidden)
    hit = [
        la
        for la in ghosts
        if la.position != shi.position
        and not la.strength.damaged
        and chart.lines[la.position - 1].element.controls(shi.element)
        and not (use_is_shi and la.position in counted_ji)
    ]
    if hit:
        where = "、".join(f"{la.branch.char}{line_name(la.position)}" for la in hit)
        out.append(
            Reason(
                "ghost_controls_shi",
                f"官鬼{where}克世",
                "000:15 「即以官為用者，亦嫌其克世」",
                W_GHOST_CONTROLS_SHI,
            )
        )
    return out, tuple(timing)
