"""/qizheng 1990-05-01 10:30 [경도 위도]: a 七政四餘 natal chart at the user's place (or the one given)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.commands import ArgSpec, CommandError, Incoming, Reply, command
from bot.commands import _options as engine_options
from bot.commands._common import (
    Record,
    coming_soon,
    engine_ready,
    fmt_local,
    fmt_offset,
    parse_local_datetime,
    record_and_reply,
    resolve_local,
    zone_of,
)
from bot.commands.core import parse_coordinate

if TYPE_CHECKING:
    from bot.app import AppContext


def parse_qizheng_args(args: tuple[str, ...]) -> tuple[Any, float | None, float | None]:
    """(datetime, longitude or None, latitude or None): a date and time, then optionally a place."""
    if len(args) < 2:
        raise CommandError("bot.error.qizheng_usage")
    when = parse_local_datetime(args[:2])
    place = args[2:]
    if when is None:
        when = parse_local_datetime(args[:1])
        place = args[1:]
    if when is None or len(place) > 2:
        raise CommandError("bot.error.qizheng_usage")
    lon = parse_coordinate(place[0], 180.0) if place else None
    lat = parse_coordinate(place[1], 90.0) if len(place) > 1 else None
    return when, lon, lat


def _round(value: Any, digits: int = 1) -> Any:
    return round(float(value), digits) if isinstance(value, int | float) else value


def qizheng_view(data: dict[str, Any]) -> dict[str, Any]:
    """The view model of a ``QizhengChart.to_json()``."""
    bodies = [
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
            for d in (data.get("daxian") or [])[:6]
        ],
        # 《八格賦》 clauses that hold for this chart (seed 004), with the text in both languages.
        "patterns": [
            {"id": p.get("id"), "ge": p.get("ge"), "lzh": p.get("quote"), "ko": p.get("quote_ko")}
            for p in data.get("patterns", [])
            if isinstance(p, dict) and p.get("holds") is True
        ],
    }


@command(
    "qizheng",
    aliases=("칠정", "七政", "칠정사여"),
    help_msgid="bot.help.qizheng",
    args=(ArgSpec("when", "string", required=True, description_msgid="bot.arg.qizheng.when"),),
)
async def qizheng(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    engine = engine_ready("engine.qizheng", "natal_chart")
    if engine is None:
        return coming_soon("qizheng")
    naive, lon, lat = parse_qizheng_args(args)
    user = await ctx.storage.get_user(incoming.user_key)
    if lon is None:
        if user is None or user.longitude is None:
            raise CommandError("bot.error.place_needed")
        lon, lat = user.longitude, user.latitude
    zone = zone_of(user, ctx)
    at = resolve_local(naive, zone) if naive.tzinfo is None else naive
    chart = engine.natal_chart(at, lon, lat, engine_options.build("qizheng", user.options if user else {}))
    inputs = {"at": at.isoformat(), "zone": zone.key, "lon": lon, "lat": lat}
    context = {
        "when": {"local": fmt_local(at), "zone": zone.key, "offset": fmt_offset(at), "lon": lon, "lat": lat},
        **qizheng_view(chart.to_json()),
    }
    return await record_and_reply(
        incoming,
        ctx,
        Record(
            kind="qizheng", inputs=inputs, options=chart.options.to_json(), view="qizheng", context=context
        ),
    )
