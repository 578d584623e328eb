"""/qizheng 1990-05-17 14:30 [서울 | 경도 위도] [save]: a 七政四餘 natal chart.

The place is a city name (``engine.qizheng.find_place``; the time is then read on that city's clock), a
longitude and latitude, or else the user's ``/place``. Birth data is personal: it is kept (in the user's row,
for a later bare ``/qizheng``, and in the history for ``/show``) only when the user consents by ending the
line with ``save`` (저장, 存); ``/qizheng forget`` deletes it again (issue 6: "uses the user's stored birth data
only with their consent").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from bot.context import AppContext
from bot.features import options as engine_options
from bot.features.base import (
    ArgSpec,
    Cast,
    CommandError,
    Incoming,
    Page,
    Reply,
    Stored,
    caller,
    command,
    reply,
)
from bot.features.common import (
    Record,
    find_city,
    fmt_local,
    fmt_offset,
    looks_numeric,
    parse_coordinate,
    parse_local_datetime,
    record_and_reply,
    resolve_local,
    zone_of,
)
from bot.features.qizheng.model import BodyView, QizhengView
from bot.i18n import N_
from bot.pictures import Picture
from engine.errors import EngineInputError
from engine.qizheng import Place, QizhengChart, natal_chart, xian_on

# The date of the 限 (issue #16): a year (2027, 2027년, 2027年) or a date (2027-03-01) after the birth.
_ON_YEAR_RE = re.compile(r"^(\d{4})(?:년|年)?$")
_ON_DATE_RE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$")
# A year stands for its middle: 07-01 is inside the 立春 year of that number (小限 and 流年 run 立春 to 立春).
YEAR_DAY = (7, 1)

# The user's consent to keep their birth data (a last word ``save``); ``forget`` alone deletes what was kept.
SAVE_WORDS = frozenset({"save", "keep", "저장", "보관", "存", "保存", "記"})
FORGET_WORDS = frozenset({"forget", "delete", "삭제", "지우기", "忘", "去"})


@dataclass(frozen=True)
class QizhengArgs:
    """A parsed ``/qizheng`` line: the wall clock (or instant), the place as typed, the consent to save."""

    when: datetime
    coords: tuple[float, float | None] | None = None  # longitude, latitude given as numbers
    city: str | None = None  # a place name for ``engine.qizheng.find_place``
    save: bool = False
    on: str | None = None  # the word naming the date of the 限 (a year or a date), as typed


def is_on_word(word: str) -> bool:
    """Is ``word`` a year or a date for the 限 (``2027``, ``2027년``, ``2027-03-01``)?"""
    return bool(_ON_YEAR_RE.match(word) or _ON_DATE_RE.match(word))


def on_date(word: str) -> date:
    """The date a year or date word names (a year: its 07-01, inside that 立春 year); CommandError blaming
    the word when there is no such date."""
    m = _ON_YEAR_RE.match(word)
    try:
        if m:
            return date(int(m.group(1)), *YEAR_DAY)
        return date(*(int(x) for x in word.split("-")))
    except ValueError:
        raise CommandError("chat.error.qizheng_on", value=word) from None


def split_on(args: tuple[str, ...]) -> tuple[tuple[str, ...], str | None, bool]:
    """(the rest, the 限 year/date word or None, the consent ``save``) from the end of the line, in either order
    (``… 2027 save`` or ``… save 2027``). A year is taken only after a birth date and time."""
    on: str | None = None
    save = False
    rest = list(args)
    while rest:
        last = rest[-1]
        if not save and last.lower() in SAVE_WORDS:
            save = True
        elif on is None and is_on_word(last) and (len(rest) > 2 or len(args) == 1):
            on = last
        else:
            break
        rest.pop()
    return tuple(rest), on, save


def parse_qizheng_args(args: tuple[str, ...]) -> QizhengArgs:
    """``1990-05-17 14:30 [서울 | 126.98 37.57] [2027 | 2027-03-01] [save]``; CommandError (with the usage)
    otherwise."""
    args, on, save = split_on(args)
    if len(args) < 2:
        raise CommandError("bot.error.qizheng_usage")
    when = parse_local_datetime(args[:2])
    place = args[2:]
    if when is None:
        when = parse_local_datetime(args[:1])
        place = args[1:]
    if when is None:
        raise CommandError("bot.error.qizheng_usage")
    if not place:
        return QizhengArgs(when, save=save, on=on)
    if looks_numeric(place[0]):
        if len(place) > 2:
            raise CommandError("bot.error.qizheng_usage")
        lon = parse_coordinate(place[0], 180.0)
        lat = parse_coordinate(place[1], 90.0) if len(place) > 1 else None
        return QizhengArgs(when, coords=(lon, lat), save=save, on=on)
    return QizhengArgs(when, city=" ".join(place), save=save, on=on)


def _round(value: Any, digits: int = 1) -> Any:
    return round(float(value), digits) if isinstance(value, int | float) else value


def xian_view(chart: QizhengChart, on: datetime, word: str | None) -> dict[str, Any] | None:
    """The 限 at ``on`` (``engine.qizheng.xian_on``: 大限, 小限, 流年; the JSON ``xian``) with the date it was
    read for; None when ``on`` was not asked for (today) and falls before the birth. A date the user asked
    for that cannot be read (before the birth, outside the ephemeris) is a CommandError blaming that word."""
    try:
        xian = xian_on(chart, on)
    except EngineInputError:
        if word is None:
            return None
        raise CommandError("chat.error.qizheng_on", value=word) from None
    data = xian.to_json()
    return {**data, "date": on.date().isoformat(), "given": word}


def qizheng_view(data: dict[str, Any]) -> QizhengView:
    """The view model of a ``QizhengChart.to_json()`` (its JSON contract)."""
    bodies: list[BodyView] = [
        {
            "name": name,
            "palace": b.get("palace"),
            "mansion": b.get("mansion"),
            "degree": _round(b.get("mansion_degree")),
            "retrograde": bool(b.get("retrograde")),
            "ru_yuan": bool(b.get("ru_yuan")),
        }
        for name, b in data.get("bodies", {}).items()
    ]
    ming_du = data.get("ming_du") or {}
    return {
        "year": data.get("year"),
        "ming_gong": data.get("ming_gong"),
        "shen_gong": data.get("shen_gong"),
        "ming_zhu": data.get("ming_zhu"),
        "shen_zhu": data.get("shen_zhu"),
        "ming_du": {"mansion": ming_du.get("mansion"), "degree": _round(ming_du.get("mansion_degree"))},
        "bodies": bodies,
        "houses": [
            {"name": h.get("name"), "branch": h.get("branch"), "occupants": list(h.get("occupants", []))}
            for h in data.get("houses", [])
        ],
        "hua_yao": dict(data.get("hua_yao") or {}),
        "daxian": [
            {"house": d.get("house"), "branch": d.get("branch"), "from": d.get("from"), "to": d.get("to")}
            for d in data.get("daxian") or []
        ],
        # 《八格賦》 clauses that hold for this chart (seed 004), with the text in both languages.
        "patterns": [
            {"id": p.get("id"), "ge": p.get("ge"), "lzh": p.get("quote"), "ko": p.get("quote_ko")}
            for p in data.get("patterns", [])
            if isinstance(p, dict) and p.get("holds") is True
        ],
        "xian": None,
    }


def history_summary(context: Mapping[str, Any]) -> dict[str, Any]:
    """/history's line of a 七政四餘 chart: the year and the 命宮."""
    return {"year": context.get("year"), "ming": context.get("ming_gong")}


def cast_of(inputs: Mapping[str, Any], options: Mapping[str, Any]) -> Cast:
    """The one cast of a ``/qizheng`` row's inputs and options (``Stored.cast``): the natal chart's view model
    with its 限 at the stored date, and its picture (a row is stored with the user's consent: ``saved``)."""
    at = datetime.fromisoformat(str(inputs["at"]))
    lon, lat = inputs["lon"], inputs.get("lat")
    chart = natal_chart(
        at, float(lon), float(lat) if lat is not None else None, engine_options.from_json("qizheng", options)
    )
    zone_key = inputs.get("zone")
    place_name = inputs.get("place")
    given = inputs.get("given")
    context: dict[str, Any] = {
        "when": {"local": fmt_local(at), "zone": zone_key, "offset": fmt_offset(at), "lon": lon, "lat": lat},
        "place": place_name,
        "saved": True,
        **qizheng_view(chart.to_json()),
        "xian": xian_view(chart, datetime.fromisoformat(str(inputs["on"])), given),
    }
    place = None
    if isinstance(place_name, Mapping) and place_name.get("name"):
        place = Place(
            name=str(place_name["name"]),
            ko=str(place_name.get("ko") or place_name["name"]),
            zh=str(place_name.get("zh") or place_name["name"]),
            country="",
            lat=float(lat) if lat is not None else 0.0,
            lon=float(lon),
            tz=str(zone_key or "UTC"),
        )
    return Cast(context, Picture("qizheng", chart, place))


@command(
    "qizheng",
    aliases=("칠정", "七政", "칠정사여"),
    help_msgid=N_("bot.help.qizheng"),
    usage_msgid=N_("bot.usage.qizheng"),
    name_msgid=N_("chat.name.qizheng"),
    private_only=True,  # birth data (saved, or typed) and the saved place
    order=3,
    stored=Stored(
        kind="qizheng",
        view="qizheng",
        summary=history_summary,
        line="chat/history_qizheng.txt.j2",
        title_msgid=N_("bot.qizheng.title"),
        pages=(
            Page("brief", N_("chat.page.qizheng.brief")),
            Page("houses", N_("chat.page.qizheng.houses")),
            Page("patterns", N_("chat.page.qizheng.patterns")),
            Page("daxian", N_("chat.page.qizheng.daxian")),
        ),
        picture="qizheng",
        cast=cast_of,
    ),
    args=(ArgSpec("when", "string", required=False, description_msgid=N_("bot.arg.qizheng.when")),),
)
async def qizheng(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    user = await caller(incoming, ctx)
    if len(args) == 1 and args[0].lower() in FORGET_WORDS:
        await ctx.storage.update_user(incoming.user_key, birth=None)
        return reply("qizheng_birth", forgotten=True)
    stored_on: str | None = None
    if len(args) == 1 and is_on_word(args[0]):  # ``/qizheng 2027``: the saved birth, the 限 of that year
        stored_on = args[0]
        args = ()
    if not args:
        if user is None or not user.birth:
            raise CommandError("bot.error.qizheng_usage")
        birth = user.birth
        at = datetime.fromisoformat(birth["at"])
        zone_key = str(birth.get("zone") or at.tzname())
        lon, lat, place_name, save = birth["lon"], birth.get("lat"), birth.get("place"), True
        on_word = stored_on
    else:
        parsed = parse_qizheng_args(args)
        zone = zone_of(user, ctx)
        place_name = None
        if parsed.city is not None:
            city = find_city(parsed.city)
            lon, lat = city["lon"], city["lat"]
            place_name = {k: city[k] for k in ("name", "ko", "zh")}
            zone = ZoneInfo(city["tz"])  # a birth time is read on the clock of the birth place
        elif parsed.coords is not None:
            lon, lat = parsed.coords
        else:
            if user is None or user.longitude is None:
                raise CommandError("bot.error.place_needed")
            lon, lat = user.longitude, user.latitude
            place_name = dict(user.place_name) if user.place_name else None
            if place_name and place_name.get("tz"):
                zone = ZoneInfo(str(place_name.pop("tz")))
        naive = parsed.when
        at = resolve_local(naive, zone) if naive.tzinfo is None else naive
        zone_key, save, on_word = zone.key, parsed.save, parsed.on
    options = engine_options.build("qizheng", user.options if user else {})
    # the 限 at the date asked for (noon of it on the user's clock), else now (the one clock)
    here = zone_of(user, ctx)
    on = (
        datetime.combine(on_date(on_word), time(12, 0), tzinfo=here)
        if on_word is not None
        else (await ctx.clock.now()).astimezone(here)
    )
    inputs = {"at": at.isoformat(), "zone": zone_key, "lon": lon, "lat": lat, "place": place_name}
    # the history also keeps the date of the 限 and the word that named it; the user's row the birth only
    record = {**inputs, "on": on.isoformat(), "given": on_word}
    if not save:
        # Without the user's consent their birth data is neither kept nor written to the history (its picture
        # is drawn for this reply alone, from this cast, and kept nowhere).
        cast = cast_of(record, options.to_json())
        return reply(
            "qizheng",
            **{**cast.context, "saved": False},
            no=None,
            retry=_save_hint(args),
            picture=cast.picture,
        )
    answer = await record_and_reply(
        incoming, ctx, Record(kind="qizheng", inputs=record, options=options.to_json())
    )
    await ctx.storage.update_user(incoming.user_key, birth=inputs)  # kept once the cast was answered
    return answer


def _save_hint(args: tuple[str, ...]) -> str:
    """The same command with ``save`` at the end (shown as the way to consent)."""
    return ("/qizheng " + " ".join(args))[:80] + " save"
