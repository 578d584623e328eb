"""The daily reading: what is sent each day to a subscribed chat, and how it is rendered for many at once.

A reading is fixed by a :class:`Moment`: the UTC instant it is cast for (the scheduled delivery instant of
that local day), the subscriber's IANA zone, the kind (``liuren`` 大六壬 or ``liuyao`` 六爻 by time casting),
the day start (23:00 子初換日 or 00:00) and the subscriber's 大六壬 school options. Nothing is random, so the
same moment always gives the same text: ``/today`` re-renders exactly what the scheduler sent.

Content (language-neutral, JSON-able; templates ``templates/<channel>/daily*.j2`` put it into words):

- ``head``: local date, wall time, zone and UTC offset of the moment, and the hour pillar;
- ``body``: the year/month/day pillars, the 節氣 in force (``engine.calendar`` ``Pillars.term``) and the
  local date it began, that day's 神煞 (the stars ``engine.shensha.marks`` puts on the day branch and
  ``stem_marks`` on the day stem, keyed by day, 月建 and year), and either the 大六壬 chart cast for the
  moment (``engine.liuren.chart_at``; the seed-003 / composed reading of ``engine.liuren.reading.read``) or
  the 六爻 hexagram of the 梅花 time cast (``engine.liuyao.cast_time`` + ``build`` on the month and day).

Sharing work (:class:`DailyRenderer`): the head is rendered once per (moment, zone, language, channel); the
body, which is what costs, once per distinct (pillars, 月將, 節氣, kind, options, language, channel) — every
subscriber whose moment falls in the same 時辰 of the same day shares one chart and one rendered body.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from bot.bounded import BoundedCache
from bot.zones import zone as zone_named

if TYPE_CHECKING:
    from bot.commands.base import Reply
    from bot.storage import Subscription
    from bot.viewmodels import ChartView, LiuyaoView

KINDS = ("liuren", "liuyao")
DEFAULT_KIND = "liuren"
DEFAULT_TIME = time(7, 0)  # the moment /today uses for a chat without a subscription
DAY_STARTS = ("23:00", "00:00")
# A daily message reads the three transmissions (初傳 中傳 末傳) and the 課體; /cast shows every position.
READING_ROLES = ("initial", "middle", "final")


@dataclass(frozen=True)
class Moment:
    """Everything a daily reading depends on."""

    instant: datetime  # aware; normalized to UTC
    zone: str
    kind: str = DEFAULT_KIND
    day_starts: str = "23:00"
    options: tuple[tuple[str, Any], ...] = ()  # 大六壬 options (Options.from_mapping input), sorted

    @staticmethod
    def of(
        instant: datetime,
        zone: str,
        kind: str = DEFAULT_KIND,
        day_starts: str = "23:00",
        options: Mapping[str, Any] | None = None,
    ) -> Moment:
        if instant.tzinfo is None:
            raise ValueError("a daily moment needs an aware instant")
        if kind not in KINDS:
            raise ValueError(f"unknown daily kind {kind!r}")
        if day_starts not in DAY_STARTS:
            raise ValueError(f"bad day start {day_starts!r}")
        opts = tuple(sorted((str(k), v) for k, v in (options or {}).items()))
        return Moment(instant.astimezone(UTC), zone, kind, day_starts, opts)

    @property
    def local(self) -> datetime:
        return self.instant.astimezone(zone_named(self.zone))


def _hashable(value: Any) -> Any:
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return value


def subscription_moment(sub: Subscription, instant: datetime) -> Moment:
    """The :class:`Moment` a subscription's reading is cast for at ``instant`` (the scheduler's delivery, and
    ``/today``, which shows the delivered reading again)."""
    opts = dict(sub.options)
    day_starts = str(opts.pop("day_starts", "23:00"))
    liuren = {k: _hashable(v) for k, v in opts.items()}
    return Moment.of(instant, sub.tz, sub.kind, day_starts, liuren)


def _offset(at: datetime) -> str:
    off = int((at.utcoffset() or (at - at)).total_seconds()) // 60
    sign = "+" if off >= 0 else "-"
    off = abs(off)
    return f"UTC{sign}{off // 60:02d}:{off % 60:02d}"


@lru_cache(maxsize=4096)
def _shensha_summary(day: str, month: str, year: str) -> dict[str, list[str]]:
    """The stars on the day itself: on the day branch (``marks``) and on the day stem (``stem_marks``)."""
    from engine.core.cycle import Branch, GanZhi
    from engine.shensha import marks, stem_marks

    d, m, y = GanZhi.parse(day), Branch.from_char(month), GanZhi.parse(year)
    return {
        "branch": list(marks(d, m, y)[d.branch]),
        "stem": list(stem_marks(d, m, y)[d.stem]),
    }


@lru_cache(maxsize=4096)
def _liuren_view(at_iso: str, day_starts: str, options_json: str) -> ChartView:
    """The 大六壬 view model of the chart at an instant (one per chart key, see :func:`body_key`)."""
    from bot.features.liuren.command import chart_view
    from engine.calendar import DayStart
    from engine.liuren import Options, chart_at

    at = datetime.fromisoformat(at_iso)
    options = Options.from_mapping(json.loads(options_json))
    chart = chart_at(at, options, day_starts=DayStart.parse(day_starts), shensha=True)
    view = chart_view(chart)
    readings = []
    for r in view["readings"]:
        if r.get("kind") == "composed":
            r = {
                **r,
                "positions": [p for p in r.get("positions", []) if p.get("role") in READING_ROLES],
                "links": [],
            }
        readings.append(r)
    view["readings"] = readings
    return view


@lru_cache(maxsize=4096)
def _liuyao_view(at_iso: str, day_starts: str, month: str, day: str) -> LiuyaoView:
    from bot.features.liuyao.command import liuyao_view
    from engine.calendar import DayStart
    from engine.core.cycle import Branch, GanZhi
    from engine.liuyao import build, cast_time

    at = datetime.fromisoformat(at_iso)
    cast = cast_time(at, day_starts=DayStart.parse(day_starts))
    return liuyao_view(build(cast, Branch.from_char(month), GanZhi.parse(day)))


@dataclass
class Prepared:
    """A moment's head and body contexts and the key its body is shared under."""

    head: dict[str, Any]
    body_key: tuple[Any, ...]
    body: dict[str, Any] | None = None  # filled lazily (only once per body key)


@lru_cache(maxsize=8)
def _day_start(text: str) -> Any:
    from engine.calendar import DayStart

    return DayStart.parse(text)


def _pillars(moment: Moment) -> Any:
    from engine.calendar import four_pillars

    return four_pillars(moment.local, _day_start(moment.day_starts))


def head_context(moment: Moment, pillars: Any | None = None) -> dict[str, Any]:
    p = pillars if pillars is not None else _pillars(moment)
    local = moment.local
    return {
        "date": local.date().isoformat(),
        "time": local.strftime("%H:%M"),
        "weekday": local.weekday(),
        "zone": moment.zone,
        "offset": _offset(local),
        "kind": moment.kind,
        "hour": p.hour.chars,
    }


def body_key(moment: Moment, pillars: Any) -> tuple[Any, ...]:
    """What the body depends on: two moments with the same key get the very same body."""
    p = pillars
    term_date = p.term.at.astimezone(zone_named(moment.zone)).date().isoformat()
    hour = p.hour.chars if moment.kind == "liuyao" else p.hour_branch.char
    return (
        moment.kind,
        moment.day_starts,
        moment.options,
        p.year.chars,
        p.month.chars,
        p.day.chars,
        p.month_general.char,
        hour,
        p.term.name,
        term_date,
    )


def body_context(moment: Moment, pillars: Any | None = None) -> dict[str, Any]:
    p = pillars if pillars is not None else _pillars(moment)
    term_date = p.term.at.astimezone(zone_named(moment.zone)).date().isoformat()
    body: dict[str, Any] = {
        "kind": moment.kind,
        "pillars": {"year": p.year.chars, "month": p.month.chars, "day": p.day.chars},
        "term": {"name": p.term.name, "date": term_date},
        "shensha": _shensha_summary(p.day.chars, p.month.branch.char, p.year.chars),
        "liuren": None,
        "liuyao": None,
    }
    if moment.kind == "liuren":
        options_json = json.dumps(dict(moment.options), sort_keys=True, ensure_ascii=False)
        body["liuren"] = _liuren_view(moment.local.isoformat(), moment.day_starts, options_json)
    else:
        body["liuyao"] = _liuyao_view(
            moment.local.isoformat(), moment.day_starts, p.month.branch.char, p.day.chars
        )
    return body


def daily_context(moment: Moment) -> dict[str, Any]:
    """The whole view model of a reading (``head`` and ``body``), as ``/today`` stores and renders it."""
    p = _pillars(moment)
    context: dict[str, Any] = json.loads(
        json.dumps({"head": head_context(moment, p), "body": body_context(moment, p)}, ensure_ascii=False)
    )
    return context


def daily_reply(moment: Moment, lang: str) -> Reply:
    from bot.commands.base import Reply

    return Reply(view="daily", lang=lang, context=daily_context(moment))


def check_moment(moment: Moment) -> None:
    """Cast once so bad options (an EngineInputError) surface when subscribing, not at 7 a.m."""
    body_context(moment)


# ---- rendering ---------------------------------------------------------------------------------------


def render_daily(context: Mapping[str, Any], lang: str, channel: str) -> str:
    """The text of a reading: head and body rendered separately and joined (equal to the ``daily`` view)."""
    return join_parts(
        render_head(context["head"], lang, channel), render_body(context["body"], lang, channel)
    )


def render_head(head: Mapping[str, Any], lang: str, channel: str) -> str:
    from bot.commands.base import Reply
    from bot.views import render

    return render(Reply(view="daily_head", lang=lang, context={"head": head}), channel)


# Private-use code points stand for the head's free fields while its template is rendered once: no template,
# escaping (HTML, Discord markdown), typesetting or cleaning rule of bot.views touches them.
_SLOTS = {"date": "\ue000", "time": "\ue001", "offset": "\ue002"}
_SLOT_SPLIT = re.compile("([\ue000-\ue002])")
_SLOT_INDEX = {char: n for n, char in enumerate(_SLOTS.values())}  # date 0, time 1, offset 2
# A head with other values in the free fields, rendered to check a form (see HeadForms._compile).
_PROBE = {"date": "1999-12-31", "time": "23:59", "offset": "UTC-09:30"}


class HeadForms:
    """Heads without a template per subscription (issue 18): the ``daily_head`` template is rendered once per
    (language, channel, kind, weekday, 時, zone) with placeholders in the fields that vary from minute to
    minute — date, wall time, UTC offset — and each head is that form with the values put in.

    Those values are digits and ``-`` ``:`` ``+``, which no escaping or typesetting rule changes. Each form is
    checked when made against the template rendered with the real head, and the first form of each
    (language, channel, kind) also with a probe head of other values; a form that differs is not used (that
    key renders through the template, as before).
    """

    def __init__(self) -> None:
        self._forms: dict[tuple[Any, ...], str | None] = {}
        self._probed: dict[tuple[str, str, Any], bool] = {}
        self.compiled = 0  # forms made (two or three template renders each)

    def render(self, head: Mapping[str, Any], lang: str, channel: str) -> str:
        key = (lang, channel, head["kind"], head["weekday"], head["hour"], head["zone"])
        if key not in self._forms:
            if len(self._forms) >= 20_000:
                self._forms.clear()
            self._forms[key] = self._compile(head, lang, channel)
        form = self._forms[key]
        if form is None:
            return render_head(head, lang, channel)
        return form.format(head["date"], head["time"], head["offset"])

    def _compile(self, head: Mapping[str, Any], lang: str, channel: str) -> str | None:
        self.compiled += 1
        if any(_SLOT_SPLIT.search(str(v)) for v in head.values()):
            return None
        text = render_head({**head, **_SLOTS}, lang, channel)
        form = _SLOT_SPLIT.sub(
            lambda m: "{" + str(_SLOT_INDEX[m.group(1)]) + "}", text.replace("{", "{{").replace("}", "}}")
        )
        samples = [head]
        family = (lang, channel, head["kind"])
        if family not in self._probed:
            samples.append({**head, **_PROBE})
        for sample in samples:
            if form.format(sample["date"], sample["time"], sample["offset"]) != render_head(
                sample, lang, channel
            ):
                return None
        self._probed[family] = True
        return form


def render_body(body: Mapping[str, Any], lang: str, channel: str) -> str:
    from bot.commands.base import Reply
    from bot.views import render

    return render(Reply(view="daily_body", lang=lang, context={"body": body}), channel)


def join_parts(head: str, body: str) -> str:
    return head + "\n\n" + body


@dataclass
class RenderStats:
    heads: int = 0
    bodies: int = 0  # body contexts computed (one chart each)
    body_renders: int = 0  # (body, language, channel) renders
    texts: int = 0  # texts handed out


@dataclass
class DailyRenderer:
    """Renders readings for many subscribers, sharing every piece that is the same between them."""

    stats: RenderStats = field(default_factory=RenderStats)
    _prepared: dict[Moment, Prepared] = field(default_factory=dict)
    # per (instant, zone, day start): the pillars and the head, shared by both kinds and every option set
    _local: dict[tuple[datetime, str, str], tuple[Any, dict[str, Any]]] = field(default_factory=dict)
    _bodies: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)
    _heads: dict[tuple[Moment, str, str], str] = field(default_factory=dict)
    _body_texts: dict[tuple[tuple[Any, ...], str, str], str] = field(default_factory=dict)
    forms: HeadForms = field(default_factory=HeadForms)

    max_heads: int = 200_000  # bounded memory in a long-running process: beyond this the caches start over
    max_bodies: int = 5_000

    def prepared(self, moment: Moment) -> Prepared:
        prep = self._prepared.get(moment)
        if prep is None:
            if len(self._prepared) >= self.max_heads:
                self.end_pass()
            lkey = (moment.instant, moment.zone, moment.day_starts)
            local = self._local.get(lkey)
            if local is None:
                p = _pillars(moment)
                local = self._local[lkey] = (p, head_context(moment, p))
            p, head = local
            if head["kind"] != moment.kind:
                head = {**head, "kind": moment.kind}
            prep = self._prepared[moment] = Prepared(head=head, body_key=body_key(moment, p))
        return prep

    def end_pass(self) -> None:
        """Forget the per-moment pieces (pillars, head contexts, heads): a scheduler's pass renders the
        moments due now, which no later pass renders again; bodies and head forms, shared over hours, stay."""
        self._prepared.clear()
        self._local.clear()
        self._heads.clear()

    def body(self, moment: Moment) -> dict[str, Any]:
        prep = self.prepared(moment)
        body = self._bodies.get(prep.body_key)
        if body is None:
            if len(self._bodies) >= self.max_bodies:
                self._bodies.clear()
                self._body_texts.clear()
            body = json.loads(json.dumps(body_context(moment), ensure_ascii=False))
            self._bodies[prep.body_key] = body
            self.stats.bodies += 1
        return body

    def text(self, moment: Moment, lang: str, channel: str) -> str:
        return join_parts(*self.parts(moment, lang, channel))

    def parts(self, moment: Moment, lang: str, channel: str) -> tuple[str, str]:
        """(head, body) of the text: shared strings, joined only when the reading is sent, so that a queue of
        100,000 readings holds one copy of each body rather than 100,000 texts (issue 18)."""
        prep = self.prepared(moment)
        hkey = (moment, lang, channel)
        head = self._heads.get(hkey)
        if head is None:
            head = self._heads[hkey] = self.forms.render(prep.head, lang, channel)
            self.stats.heads += 1
        bkey = (prep.body_key, lang, channel)
        body_text = self._body_texts.get(bkey)
        if body_text is None:
            body_text = self._body_texts[bkey] = render_body(self.body(moment), lang, channel)
            self.stats.body_renders += 1
        self.stats.texts += 1
        return head, body_text

    def clear(self) -> None:
        """Forget the cached pieces (the scheduler calls this between runs so memory stays bounded)."""
        self.end_pass()
        self._bodies.clear()
        self._body_texts.clear()


# ---- the picture -----------------------------------------------------------------------------------------

PICTURES_KEPT = 64  # pictures kept (≈ 40–60 KiB each): the readings of one 時辰 of one day share one
_pictures: BoundedCache[tuple[Any, ...], bytes] = BoundedCache(lambda: PICTURES_KEPT)


def picture(moment: Moment, lang: str) -> bytes:
    """The picture of a reading (the 大六壬 課 or the 六爻 卦 of the moment, ``bot.images``), shared like the body:
    every subscriber whose reading has the same :func:`body_key` gets the same bytes, rendered once."""
    pillars = _pillars(moment)
    key = (body_key(moment, pillars), lang)
    cached = _pictures.find(key)
    if cached is not None:
        return cached
    return _pictures.keep(key, _draw(moment, pillars, lang))


def _draw(moment: Moment, pillars: Any, lang: str) -> bytes:
    from bot.images import render_liuren, render_liuyao
    from engine.calendar import DayStart
    from engine.liuren import Options, chart_at
    from engine.liuyao import build, cast_time

    day_starts = DayStart.parse(moment.day_starts)
    if moment.kind == "liuyao":
        cast = cast_time(moment.local, day_starts=day_starts)
        return render_liuyao(build(cast, pillars.month.branch, pillars.day).chart, lang)
    options = Options.from_mapping(json.loads(json.dumps(dict(moment.options))))
    return render_liuren(chart_at(moment.local, options, day_starts=day_starts), lang)


__all__ = [
    "DAY_STARTS",
    "DEFAULT_KIND",
    "DEFAULT_TIME",
    "KINDS",
    "DailyRenderer",
    "Moment",
    "RenderStats",
    "check_moment",
    "daily_context",
    "daily_reply",
    "picture",
    "render_daily",
    "subscription_moment",
]
