"""Topic readings of a 大六壬 課 (issue 32 item 2): one line per topic — 天時 家宅 婚姻 胎產 功名 求財 疾病 失脫
出行 行人 爭訟 投謁 — each 吉, 凶 or 平 with its reasons, every reason citing its seed line.

Seed 003 reads each worked 課 as 課體/課義 → 解曰 → 斷曰 → one line per topic; the topic lines name a 類神
(妻財, 胎神, 官星, 祿馬, 元武 …) and weigh where it stands. Seed 002 gives what each branch and 天將 stands for
(人物 「財煞屬妻」 「鬼煞屬官屬夫」 「玄武屬盜賊逃人」 …, 宮室 「貴人官宦宅 …」, 天文 「亥子 … 為雨澤」) and the one
rule 「視…所乘何神、所臨何煞定其吉凶」. This module is only rules: the topic → 類神 mapping, the texts of the
reasons and their sources live in ``data/topics.json``; no table is keyed by a day, a 局 or a 課.

For a topic, each 類神 is looked for on the board (三傳, then the 四課 uppers, then the 天盤 over the asker's
本命 and 行年 when given); a 類神 the topic wants strong (``want`` 1: 財 for 求財) and one it fears (``want``
−1: 鬼 for 疾病) read the same facts in opposite directions. The facts weighed, each once:

- 旬空 of the branch or of its seat (不實; for a feared 類神 「虛驚」), filled by 年命 (「填實」);
- 旺相休囚 in the month, when the month is known;
- the 天將 riding it (seed 002's keyword, or the topic's own table: 家宅 uses 002:107);
- its seat: a seat that 克s it (「下被克」) and the day stem's 絕/死/墓/沐浴 there (「臨絕地」 「臨敗地」);
- its 十二長生 stage (墓 unless 沖 opens it, 長生 臨官 帝旺, 死 絕);
- 生/克 of the 日干 and the 日支, and 合 刑 破 害 (沖 for the topics of movement) with them;
- standing over the asker's 年命;
- a 類神 the topic needs and the board lacks (「胎神與子孫爻不見」, 「元武不見」).

The seeds give no weights: every counted reason is one, the sum decides, and a tie follows the 課's 斷
(``engine.liuren.verdict``) as seed 003 reads the topic lines after 斷曰. The output says so (``notes``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.core.cycle import STEMS, Branch, xun_dun_stem
from engine.core.relations import Kin, Stage, chong, vitality, yima
from engine.datafiles import load_json
from engine.liuren.branch_relations import relations
from engine.liuren.methods import jigong
from engine.liuren.patterns import detect
from engine.liuren.verdict import VerdictChart, judge
from engine.shensha import meanings002
from engine.shensha.stages import stage_at

JI, XIONG, PING = "吉", "凶", "平"
# where a 類神 is looked for, in the order it weighs (seed 003 opens every 解曰 with the 三傳)
BOARD_ROLES = ("initial", "middle", "final", "gan_upper", "gan_yin", "zhi_upper", "zhi_yin")
_STRONG_STAGES = (Stage.CHANGSHENG, Stage.LINGUAN, Stage.DIWANG)
_WEAK_STAGES = (Stage.SI, Stage.JUE)
_BAD_SEATS = (Stage.JUE, Stage.SI, Stage.MU, Stage.MUYU)
_MENG = frozenset({Branch.YIN, Branch.SHEN, Branch.SI, Branch.HAI})
_ZHONG = frozenset({Branch.ZI, Branch.WU, Branch.MAO, Branch.YOU})


@cache
def _data() -> Mapping[str, Any]:
    data: Mapping[str, Any] = load_json("engine.liuren", "topics.json")
    return data


@dataclass(frozen=True, slots=True)
class Selector:
    """One 類神 of a topic: ``kind`` relative | general | stage | yima | dun | branch | role."""

    kind: str
    value: str
    want: int  # 1 wanted strong, -1 feared, 0 only a sign (天時)
    absent: str | None  # the direction its absence from the board gives (None: absence says nothing)
    lzh: str
    ko: str
    source: str
    plate: bool = False  # not in the 課傳: read where it stands on the 天盤 (seed 003 「胎神臨絕地」)


@dataclass(frozen=True, slots=True)
class Topic:
    """A topic of seed 003's topic lines, with the words that name it and its 類神."""

    id: str
    lzh: str
    ko: str
    words: tuple[str, ...]
    selectors: tuple[Selector, ...]
    source: str
    judged: bool = True  # False: the seed forecasts (天時), it does not judge 吉凶
    moves: bool = False  # 沖 counts as movement wanted (出行, 行人)
    tiangang: bool = False  # the 天罡 rule of 行人
    gui: bool = False  # the 貴人 rules of 投謁
    generals: tuple[tuple[str, str], ...] = ()  # the topic's own 天將 table (家宅: 002:107)
    generals_source: str = ""
    facts: frozenset[str] = (
        frozenset()
    )  # the facts weighed (topics.json facts_all unless the topic names some)
    transmissions_only: bool = False  # its 類神 are read in the 三傳 only (出行, 行人: 「末傳乘丁」)
    # 課體 that weigh for the topic: (name, direction, lzh, ko, source) — 斬關 moves (002:7), 斷橋 stops (002:15)
    patterns: tuple[tuple[str, str, str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class TopicReason:
    """One reason: ``rule`` is a key of topics.json ``rules``; ``params`` fill its texts."""

    rule: str
    direction: str  # 吉 凶 平
    counted: bool
    source: str
    params: tuple[tuple[str, str], ...] = ()

    def texts(self) -> tuple[str, str]:
        """(lzh, ko) of the reason."""
        r = _data()["rules"][self.rule]
        p = dict(self.params)
        return str(r["lzh"]).format(**p), str(r["ko"]).format(**p)

    def to_json(self) -> dict[str, Any]:
        lzh, ko = self.texts()
        return {
            "text": lzh,
            "text_ko": ko,
            "source": self.source,
            "rule": self.rule,
            "direction": self.direction,
            "counted": self.counted,
        }


@dataclass(frozen=True, slots=True)
class TopicReading:
    """A topic's line: the direction and the reasons (``deciding``: those that point the same way)."""

    topic: Topic
    direction: str
    reasons: tuple[TopicReason, ...]
    notes: tuple[str, ...]

    @property
    def deciding(self) -> tuple[TopicReason, ...]:
        """The reasons that decided: those counted in the direction; after a tie, those that balanced and the 斷
        that broke it."""
        if any(r.rule == "tie_duan" for r in self.reasons):
            return tuple(r for r in self.reasons if r.counted or r.rule == "tie_duan")
        if self.direction == PING:
            return tuple(r for r in self.reasons if r.counted or r.rule.startswith("tie")) or self.reasons
        return tuple(r for r in self.reasons if r.counted and r.direction == self.direction)

    def to_json(self) -> dict[str, Any]:
        deciding = set(map(id, self.deciding))
        return {
            "topic": self.topic.lzh,
            "topic_ko": self.topic.ko,
            "id": self.topic.id,
            "direction": self.direction,
            "reasons": [{**r.to_json(), "deciding": id(r) in deciding} for r in self.reasons],
            "notes": list(self.notes),
        }


# ------------------------------------------------------------------------------------------- topics


@cache
def topics() -> tuple[Topic, ...]:
    """Every topic, in seed 003's order (天時 家宅 婚姻 胎產 功名 求財 疾病 失脫 出行 行人 爭訟 投謁)."""
    out: list[Topic] = []
    for t in _data()["topics"]:
        gen = t.get("generals", {})
        out.append(
            Topic(
                id=str(t["id"]),
                lzh=str(t["lzh"]),
                ko=str(t["ko"]),
                words=tuple(str(w) for w in t["words"]),
                selectors=tuple(
                    Selector(
                        str(s["kind"]),
                        str(s["value"]),
                        int(s["want"]),
                        str(s["absent"]) if "absent" in s else None,
                        str(s["lzh"]),
                        str(s["ko"]),
                        str(s["source"]),
                        bool(s.get("plate", False)),
                    )
                    for s in t["leishen"]
                ),
                source=str(t["source"]),
                judged=bool(t.get("judged", True)),
                moves=bool(t.get("moves", False)),
                tiangang=bool(t.get("tiangang", False)),
                gui=bool(t.get("gui", False)),
                generals=tuple((str(k), str(v)) for k, v in gen.get("directions", {}).items()),
                generals_source=str(gen.get("source", "")),
                facts=frozenset(str(f) for f in t.get("facts", _data()["facts_all"])),
                transmissions_only=t.get("board") == "transmissions",
                patterns=tuple(
                    (str(x["name"]), str(x["direction"]), str(x["lzh"]), str(x["ko"]), str(x["source"]))
                    for x in t.get("patterns", ())
                ),
            )
        )
    return tuple(out)


def _normal(word: str) -> str:
    return "".join(word.split()).replace("·", "")


@cache
def _word_index() -> Mapping[str, Topic]:
    index: dict[str, Topic] = {}
    for t in topics():
        for w in (t.id, t.lzh, t.ko, *t.words):
            index.setdefault(_normal(w), t)
    return index


def topic_for(word: str) -> Topic | None:
    """The topic a word names (婚姻, 혼인, 결혼, 재물, 求財 …), or None. One small function so that a fuller
    everyday-word lexicon can replace it."""
    return _word_index().get(_normal(word))


# -------------------------------------------------------------------------------------------- board


@dataclass(frozen=True, slots=True)
class _Hit:
    selector: Selector
    branch: Branch
    roles: tuple[str, ...]


def _board(
    chart: VerdictChart, birth: Branch | None, xingnian: Branch | None
) -> tuple[tuple[str, Branch], ...]:
    t = chart.transmissions
    ls = chart.lessons
    out = [
        ("initial", t[0].branch),
        ("middle", t[1].branch),
        ("final", t[2].branch),
        ("gan_upper", ls[0].upper),
        ("gan_yin", ls[1].upper),
        ("zhi_upper", ls[2].upper),
        ("zhi_yin", ls[3].upper),
    ]
    if birth is not None:
        out.append(("birth_upper", chart.heaven[birth]))
    if xingnian is not None:
        out.append(("xingnian_upper", chart.heaven[xingnian]))
    return tuple(out)


def _matches(chart: VerdictChart, s: Selector, role: str, b: Branch) -> bool:
    day = chart.day
    if s.kind == "relative":
        return Kin.of(day.stem.element, b.element).char == s.value
    if s.kind == "general":
        return chart.general_on(b).char == s.value
    if s.kind == "stage":
        stage = stage_at(day.stem, b, chart.options.mu)
        return stage is not None and stage.char == s.value
    if s.kind == "yima":
        return b == yima(day.branch)
    if s.kind == "dun":
        dun = xun_dun_stem(day.xun_head, b)
        return dun is not None and dun.char == s.value
    if s.kind == "branch":
        return b.char in s.value
    if s.kind == "role":
        return role == s.value
    raise ValueError(f"topics.json: unknown 類神 kind {s.kind!r}")


def _hits(chart: VerdictChart, s: Selector, board: tuple[tuple[str, Branch], ...]) -> tuple[_Hit, ...]:
    """Each distinct branch the 類神 stands on, with every position it holds (first = the weightiest)."""
    roles: dict[Branch, list[str]] = {}
    for role, b in board:
        if _matches(chart, s, role, b):
            roles.setdefault(b, []).append(role)
    if not roles and s.plate:
        return tuple(_Hit(s, b, ("plate",)) for b in Branch if _matches(chart, s, "plate", b))
    return tuple(_Hit(s, b, tuple(rs)) for b, rs in roles.items())


# -------------------------------------------------------------------------------------------- rules


def _source(rule: str, **fill: str) -> str:
    return str(_data()["rules"][rule]["source"]).format(**fill)


def _toward(want: int, good: bool) -> str:
    """The direction of a fact that strengthens (``good``) or weakens the 類神, for the topic."""
    if want == 0:
        return PING
    return JI if (want > 0) == good else XIONG


def _pos(role: str, lang: str) -> str:
    return str(_data()["positions"][role][lang])


def _reason(
    rule: str, direction: str, counted: bool, source: str | None = None, **params: str
) -> TopicReason:
    return TopicReason(
        rule, direction, counted and direction != PING, source or _source(rule), tuple(params.items())
    )


def _general_direction(topic: Topic, g: str) -> tuple[str, str]:
    own = dict(topic.generals)
    if g in own:
        return own[g], topic.generals_source
    m = meanings002()[f"general.{g}"]
    return str(m["direction"]), str(m["source"])


def _seen(chart: VerdictChart) -> frozenset[Branch]:
    t = chart.transmissions
    return frozenset((*(x.branch for x in t), chart.lessons[0].upper, chart.lessons[2].upper))


def _read_hit(
    chart: VerdictChart,
    topic: Topic,
    hit: _Hit,
    month: Branch | None,
    ming: frozenset[Branch],
) -> list[TopicReason]:
    """The reasons of one 類神 on the board, for the topic's ``facts``."""
    s, b = hit.selector, hit.branch
    day = chart.day
    facts = topic.facts
    ls = {"ls": s.lzh, "ls_ko": s.ko, "b": b.char}
    out: list[TopicReason] = []

    def add(rule: str, good: bool | None, counted: bool = True, source: str | None = None, **p: str) -> None:
        direction = PING if good is None else _toward(s.want, good)
        out.append(_reason(rule, direction, counted, source, **ls, **p))

    pos = hit.roles[0]
    out.append(_reason("present", PING, False, s.source, pos=_pos(pos, "lzh"), pos_ko=_pos(pos, "ko"), **ls))
    seat = chart.earth_of(b)
    void = False
    if "kong" in facts and _is_void(chart, b, seat, pos):
        void = b not in ming
        if not void:
            add("filled", True)
        elif s.want < 0:
            add("kong_feared", False)
        elif b in chart.xunkong:
            add("kong", False)
        else:
            add("seat_kong", False, seat=seat.char)
    live = not void
    moving = [r for r in hit.roles if r in ("initial", "middle", "final")]
    if "moving" in facts and moving:
        add("moving", True, live, pos=_pos(moving[0], "lzh"), pos_ko=_pos(moving[0], "ko"))
    if "vitality" in facts and month is not None:
        v = vitality(b.element, month)
        strong = v.char in ("旺", "相")
        v_ko = str(_data()["vitality_names"][v.char])
        add(
            "vitality_strong" if strong else "vitality_weak",
            strong,
            live,
            month=month.char,
            v=v.char,
            v_ko=v_ko,
        )
    if "general" in facts and s.kind != "general":
        g = chart.general_on(b).char
        direction, gsource = _general_direction(topic, g)
        g_ko = str(meanings002()[f"general.{g}"]["name_ko"])
        out.append(
            _reason("general", direction, live, _source("general", g_source=gsource), g=g, g_ko=g_ko, **ls)
        )
    stages_ko = _data()["stage_names"]
    if "seat" in facts and seat != b:
        if seat.element.controls(b.element):
            add("seat_ke", False, live, seat=seat.char)
        seat_stage = stage_at(day.stem, seat, chart.options.mu)
        if seat_stage is not None and seat_stage in _BAD_SEATS:
            st = seat_stage.char
            add("seat_stage", False, live, seat=seat.char, stage=st, stage_ko=str(stages_ko[st]))
        own = stage_at(STEMS[2 * int(b.element)], seat, chart.options.mu)  # the 類神's own 五行 (陽干)
        if own is not None and own in _BAD_SEATS and own != seat_stage:
            st = own.char
            add("seat_stage_own", False, live, seat=seat.char, stage=st, stage_ko=str(stages_ko[st]))
    if "stage" in facts and s.kind != "stage":
        stage = stage_at(day.stem, b, chart.options.mu)
        if stage is Stage.MU:
            opener = chong(b)
            if opener in _seen(chart):
                add("mu_opened", None, False, opener=opener.char)
            else:
                out.append(_reason("mu", XIONG, live, **ls))
        elif stage is not None and stage in _STRONG_STAGES:
            add("stage_strong", True, live, stage=stage.char, stage_ko=str(stages_ko[stage.char]))
        elif stage is not None and stage in _WEAK_STAGES:
            add("stage_weak", False, live, stage=stage.char, stage_ko=str(stages_ko[stage.char]))
    if "gan" in facts and s.kind != "relative":
        if b.element.generates(day.stem.element):
            out.append(_reason("sheng_gan", JI, live, **ls))
        elif b.element.controls(day.stem.element):
            out.append(_reason("ke_gan", XIONG, live, **ls))
    if "zhi" in facts:
        if b.element.generates(day.branch.element):
            out.append(_reason("sheng_zhi", JI, live, **ls))
        elif b.element.controls(day.branch.element):
            out.append(_reason("ke_zhi", XIONG, live, **ls))
    sides = _data()["sides"]
    rel_ko = _data()["relation_names"]
    for side, target in (("gan", jigong(day.stem)), ("zhi", day.branch)):
        for kind in relations(b, target):
            sd = sides[side]
            p = {
                "side": str(sd["lzh"]),
                "side_ko": str(sd["ko"]),
                "side_wa": str(sd["ko_wa"]),
                "side_reul": str(sd["ko_reul"]),
                "t": target.char,
            }
            if kind == "沖":
                if "chong" in facts:
                    out.append(_reason("chong_moves", JI, live, **ls, **p))
            elif "relations" not in facts:
                continue
            elif kind == "合":
                add("he", True, live, **p)
            else:
                out.append(_reason("harm", XIONG, live, rel=kind, rel_ko=str(rel_ko[kind]), **ls, **p))
    if "ming" in facts and ming and (b in ming or seat in ming):
        add("ming", True)
    return out


def _is_void(chart: VerdictChart, b: Branch, seat: Branch, role: str) -> bool:
    """旬空 of the branch, or of the seat of a 傳 (seed 003 「坐空鄉」)."""
    kong = chart.xunkong
    return b in kong or (seat != b and seat in kong and role in ("initial", "middle", "final"))


def _special(chart: VerdictChart, topic: Topic) -> list[TopicReason]:
    out: list[TopicReason] = []
    if topic.tiangang:
        seat = chart.earth_of(Branch.CHEN)
        if seat == Branch.CHEN:
            out.append(_reason("tiangang_self", XIONG, True))
        elif seat in _ZHONG:
            out.append(_reason("tiangang_zhong", PING, False, seat=seat.char))
        elif seat in _MENG:
            out.append(_reason("tiangang_meng", PING, False, seat=seat.char))
    if topic.patterns:
        held = {h.name for h in detect(chart)}
        for name, direction, lzh, ko, source in topic.patterns:
            if name in held:
                out.append(_reason("pattern", direction, True, source, text=lzh, text_ko=ko))
    if topic.gui:
        gui = next(b for b in Branch if chart.general_on(b).char == "貴人")
        tail = chart.day.xun_head.branch.shift(9)
        if gui == tail:
            out.append(_reason("gui_bikou", XIONG, True, b=gui.char))
        if gui == chart.lessons[0].upper:
            out.append(_reason("gui_lin_gan", JI, True, b=gui.char))
    return out


def read_topic(
    chart: VerdictChart,
    topic: Topic,
    *,
    month: Branch | None = None,
    birth: Branch | None = None,
    xingnian: Branch | None = None,
) -> TopicReading:
    """The topic's line for a chart. ``month`` the 月建 (旺相休囚), ``birth`` the asker's 本命 branch,
    ``xingnian`` the 行年 branch (seed 003 「年命」)."""
    board = _board(chart, birth, xingnian)
    ming = frozenset(b for b in (birth, xingnian) if b is not None)
    notes = ["no_weights"]
    if month is None:
        notes.append("month_unknown")
    reasons: list[TopicReason] = []
    if not topic.judged:
        reasons.append(_reason("weather_no_judgment", PING, False))
        for s in topic.selectors:
            for h in _hits(chart, s, board[:3]):
                g = chart.general_on(h.branch).char
                reasons.append(
                    _reason(
                        "weather",
                        PING,
                        False,
                        s.source,
                        b=h.branch.char,
                        g=g,
                        g_ko=str(meanings002()[f"general.{g}"]["name_ko"]),
                        ls=s.lzh,
                        ls_ko=s.ko,
                    )
                )
        if not any(r.rule == "weather" and dict(r.params)["ls"] == "雨澤" for r in reasons):
            reasons.append(_reason("weather_none", PING, False))
        return TopicReading(topic, PING, tuple(reasons), tuple(notes))
    if topic.transmissions_only:
        board = board[:3]
    for s in topic.selectors:
        hits = _hits(chart, s, board)
        if not hits and s.absent is not None:
            reasons.append(_reason("absent", s.absent, True, None, ls=s.lzh, ls_ko=s.ko))
        for h in hits:
            reasons.extend(_read_hit(chart, topic, h, month, ming))
    reasons.extend(_special(chart, topic))
    balance = sum(1 if r.direction == JI else -1 for r in reasons if r.counted)
    direction = JI if balance > 0 else XIONG if balance < 0 else PING
    if balance == 0:
        duan = judge(chart).direction
        names = _data()["directions"]
        if duan == PING:
            reasons.append(_reason("tie_even", PING, False))
        else:
            reasons.append(_reason("tie_duan", duan, False, d=duan, d_ko=str(names[duan]["ko"])))
            direction = duan
    return TopicReading(topic, direction, tuple(reasons), tuple(notes))


def read_topics(
    chart: VerdictChart,
    *,
    month: Branch | None = None,
    birth: Branch | None = None,
    xingnian: Branch | None = None,
) -> tuple[TopicReading, ...]:
    """Every topic's line, in seed 003's order."""
    return tuple(read_topic(chart, t, month=month, birth=birth, xingnian=xingnian) for t in topics())
