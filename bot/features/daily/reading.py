"""The daily reading's content: what is sent each day to a subscribed chat, as a view model and a picture.
The daily reading: what is sent each day to a subscribed chat, and how it is rendered for many at once.

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
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from bot.bounded import BoundedCache, cached
from bot.features.base import Reply
from bot.features.daily import summary
from bot.pictures import Picture
from bot.zones import zone as zone_named

if TYPE_CHECKING:
    from bot.features.liuren.model import ChartView
    from bot.features.liuyao.model import LiuyaoView
    from bot.storage import Subscription

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
    topic: str | None = None  # the 大六壬 topic read first (engine.liuren.topics, its 文言 name), None: none

    @staticmethod
    def of(
        instant: datetime,
        zone: str,
        kind: str = DEFAULT_KIND,
        day_starts: str = "23:00",
        options: Mapping[str, Any] | None = None,
        topic: str | None = None,
    ) -> Moment:
        if instant.tzinfo is None:
            raise ValueError("a daily moment needs an aware instant")
        if kind not in KINDS:
            raise ValueError(f"unknown daily kind {kind!r}")
        if day_starts not in DAY_STARTS:
            raise ValueError(f"bad day start {day_starts!r}")
        opts = tuple(sorted((str(k), v) for k, v in (options or {}).items()))
        if topic is not None and topic_named(topic) is None:
            raise ValueError(f"unknown daily topic {topic!r}")
        return Moment(instant.astimezone(UTC), zone, kind, day_starts, opts, topic)

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
    # a topic no longer named (a row of an older lexicon) reads as none rather than failing the delivery
    topic = sub.topic if sub.topic is not None and topic_named(sub.topic) is not None else None
    return Moment.of(instant, sub.tz, sub.kind, day_starts, liuren, topic)


def _offset(at: datetime) -> str:
    off = int((at.utcoffset() or (at - at)).total_seconds()) // 60
    sign = "+" if off >= 0 else "-"
    off = abs(off)
    return f"UTC{sign}{off // 60:02d}:{off % 60:02d}"


def topic_named(name: str) -> Any:
    """The 大六壬 topic (``engine.liuren.topics.Topic``) of a stored topic name (its 文言 name), or None."""
    from engine.liuren.topics import topic_for

    return topic_for(name)


@lru_cache(maxsize=1024)
def _topic_lines(at_iso: str, day_starts: str, options_json: str) -> tuple[dict[str, Any], ...]:
    """Every topic's line for the 大六壬 課 of an instant (the month's 旺相休囚 weighed), in seed 003's order, as
    :func:`bot.features.daily.summary.topic_line`: read for either kind of reading (shared values: never
    mutate them)."""
    from bot.features import options as engine_options
    from bot.features.daily.summary import topic_line
    from engine.calendar import DayStart
    from engine.liuren import chart_at
    from engine.liuren.topics import read_topics

    options = engine_options.from_json("liuren", json.loads(options_json))
    chart = chart_at(datetime.fromisoformat(at_iso), options, day_starts=DayStart.parse(day_starts))
    month = chart.moment.month.branch if chart.moment is not None else None
    return tuple(topic_line(reading) for reading in read_topics(chart, month=month))


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


# The daily readings' views, bounded in bytes (issue 36 item 7): a 大六壬 view as read back is ≈ 170 kB, so
# 4,096 of them could hold 700 MB. VIEW_BYTES_PER_CHAR: bytes a plain (not interned) view holds per character
# of its JSON text (tests/bot/test_cache_bytes.py).
VIEWS_BYTES = 16 << 20
VIEW_BYTES_PER_CHAR = 8


def view_bytes(view: Mapping[str, Any]) -> int:
    """What a view model holds, estimated from its JSON text (made only when a view is kept)."""
    return VIEW_BYTES_PER_CHAR * len(json.dumps(view, ensure_ascii=False, separators=(",", ":")))


@cached("daily.liuren_views", maxsize=4096, max_bytes=VIEWS_BYTES, size_of=view_bytes)
def _liuren_view(at_iso: str, day_starts: str, options_json: str) -> ChartView:
    """The 大六壬 view model of the chart at an instant (one per chart key, see :func:`body_key`)."""
    from bot.features import options as engine_options
    from bot.features.liuren.command import chart_view
    from engine.calendar import DayStart
    from engine.liuren import chart_at

    at = datetime.fromisoformat(at_iso)
    options = engine_options.from_json("liuren", json.loads(options_json))
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


@cached("daily.liuyao_views", maxsize=4096, max_bytes=VIEWS_BYTES // 2, size_of=view_bytes)
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


def pillars_of(moment: Moment) -> Any:
    from engine.calendar import four_pillars

    return four_pillars(moment.local, _day_start(moment.day_starts))


def head_context(moment: Moment, pillars: Any | None = None) -> dict[str, Any]:
    p = pillars if pillars is not None else pillars_of(moment)
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
        moment.topic,
        p.year.chars,
        p.month.chars,
        p.day.chars,
        p.month_general.char,
        hour,
        p.term.name,
        term_date,
    )


def body_context(moment: Moment, pillars: Any | None = None) -> dict[str, Any]:
    p = pillars if pillars is not None else pillars_of(moment)
    term_date = p.term.at.astimezone(zone_named(moment.zone)).date().isoformat()
    body: dict[str, Any] = {
        "kind": moment.kind,
        "pillars": {"year": p.year.chars, "month": p.month.chars, "day": p.day.chars},
        "term": {"name": p.term.name, "date": term_date},
        "shensha": _shensha_summary(p.day.chars, p.month.branch.char, p.year.chars),
        "liuren": None,
        "liuyao": None,
    }
    options_json = json.dumps(dict(moment.options), sort_keys=True, ensure_ascii=False)
    if moment.kind == "liuren":
        body["liuren"] = _liuren_view(moment.local.isoformat(), moment.day_starts, options_json)
        body["verdict"] = summary.liuren_verdict(body["liuren"]["verdict"], body["liuren"]["readings"])
    else:
        body["liuyao"] = _liuyao_view(
            moment.local.isoformat(), moment.day_starts, p.month.branch.char, p.day.chars
        )
        body["verdict"] = summary.liuyao_verdict(body["liuyao"])
    stars = body["shensha"]
    body["stars"] = summary.star_notes(tuple(stars["stem"]) + tuple(stars["branch"]))
    lines = _topic_lines(moment.local.isoformat(), moment.day_starts, options_json)
    body["topics"] = [  # the topics page: each topic's direction and its first deciding reason
        {**line, "reasons": line["reasons"][:1]} for line in lines
    ]
    body["topic"] = next((line for line in lines if line["topic"] == moment.topic), None)
    return body


def daily_context(moment: Moment) -> dict[str, Any]:
    """The whole view model of a reading (``head`` and ``body``), as ``/today`` stores and renders it."""
    p = pillars_of(moment)
    context: dict[str, Any] = json.loads(
        json.dumps({"head": head_context(moment, p), "body": body_context(moment, p)}, ensure_ascii=False)
    )
    return context


def daily_reply(moment: Moment, lang: str) -> Reply:
    return Reply(view="daily", lang=lang, context=daily_context(moment))


def check_moment(moment: Moment) -> None:
    """Cast once so bad options (an EngineInputError) surface when subscribing, not at 7 a.m."""
    body_context(moment)


# ---- the picture -----------------------------------------------------------------------------------------

PICTURES_KEPT = 64  # pictures kept (≈ 40–60 KiB each): the readings of one 時辰 of one day share one
PICTURES_BYTES = 3 << 20  # and at most this many bytes of them (issue 36 item 7)
_pictures: BoundedCache[tuple[Any, ...], bytes] = BoundedCache(
    lambda: PICTURES_KEPT, name="daily.pictures", max_bytes=lambda: PICTURES_BYTES, size_of=len
)


def picture(moment: Moment, lang: str) -> bytes:
    """The picture of a reading (the 大六壬 課 or the 六爻 卦 of the moment, ``bot.images``), shared like the body:
    every subscriber whose reading has the same :func:`body_key` gets the same bytes, rendered once."""
    pillars = pillars_of(moment)
    key = (body_key(moment, pillars), lang)
    cached = _pictures.find(key)
    if cached is not None:
        return cached
    return _pictures.keep(key, _draw(moment, pillars, lang))


def _draw(moment: Moment, pillars: Any, lang: str) -> bytes:
    from bot.images import render_liuren, render_liuyao

    drawn = chart_picture(moment, pillars)
    if drawn.kind == "liuyao":
        return render_liuyao(drawn.chart, lang)
    return render_liuren(drawn.chart, lang)


def chart_picture(moment: Moment, pillars: Any | None = None) -> Picture:
    """What a reading's picture is drawn from (``bot.pictures.Picture``: the 大六壬 課 of the moment, kind
    ``cast``, or its 六爻 time cast's 卦, kind ``liuyao``): :func:`picture` draws it, and the language tests read
    its words from its scene (``bot.pictures.scene``)."""
    from bot.features import options as engine_options
    from engine.calendar import DayStart
    from engine.liuren import chart_at
    from engine.liuyao import build, cast_time

    p = pillars if pillars is not None else pillars_of(moment)
    day_starts = DayStart.parse(moment.day_starts)
    if moment.kind == "liuyao":
        cast = cast_time(moment.local, day_starts=day_starts)
        return Picture("liuyao", build(cast, p.month.branch, p.day).chart)
    options = engine_options.from_json("liuren", dict(moment.options))
    return Picture("cast", chart_at(moment.local, options, day_starts=day_starts))


__all__ = [
    "DAY_STARTS",
    "DEFAULT_KIND",
    "DEFAULT_TIME",
    "KINDS",
    "Moment",
    "Prepared",
    "chart_picture",
    "check_moment",
    "daily_context",
    "daily_reply",
    "picture",
    "pillars_of",
    "subscription_moment",
]
