"""/start /help /lang /tz /place /settings: the user's own settings."""

from __future__ import annotations

import math
from typing import Any

from bot.commands import _options as engine_options
from bot.commands._common import check_zone, parse_bool, zone_of
from bot.commands.base import COMMANDS, ArgSpec, CommandError, Incoming, Reply, caller, command, lookup, reply
from bot.context import AppContext
from bot.i18n import DEFAULT_LANG, LANGS, N_, catalog
from bot.msgids import msgid
from engine.qizheng.places import find_place

LANG_WORDS = {
    "ko": "ko",
    "kor": "ko",
    "korean": "ko",
    "한국어": "ko",
    "한글": "ko",
    "조선어": "ko",
    "lzh": "lzh",
    "文言": "lzh",
    "漢文": "lzh",
    "한문": "lzh",
    "classical": "lzh",
}
RESET_WORDS = frozenset({"reset", "default", "off", "초기화", "기본", "復", "默認", "默认"})


def _help_rows() -> list[dict[str, Any]]:
    rows = []
    for spec in sorted(COMMANDS.values(), key=lambda s: _ORDER.get(s.name, 99)):
        if spec.hidden:
            continue
        rows.append(
            {
                "name": spec.name,
                "help": spec.help_msgid,
                "usage": msgid("bot.usage", spec.name),
                "aliases": [a for a in spec.aliases if a != spec.name],
            }
        )
    return rows


_ORDER = {
    name: i
    for i, name in enumerate(
        (
            "cast",
            "shensha",
            "liuyao",
            "qizheng",
            "daily",
            "today",
            "history",
            "show",
            "lang",
            "tz",
            "place",
            "settings",
            "forget",
            "help",
            "start",
        )
    )
}


@command("start", aliases=("시작", "始"), help_msgid=N_("bot.help.start"))
async def start(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    return reply("start", name=incoming.display_name or "", commands=_help_rows())


@command(
    "help",
    aliases=("도움", "도움말", "助", "幫助"),
    help_msgid=N_("bot.help.help"),
    args=(ArgSpec("command", description_msgid=N_("bot.arg.help.command")),),
)
async def help_(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if args:
        spec = lookup(args[0].lstrip("/／"))
        if spec is None:
            raise CommandError("bot.error.unknown_command", name=args[0][:32])
        return reply(
            "help_command",
            name=spec.name,
            help=spec.help_msgid,
            usage=msgid("bot.usage", spec.name),
            aliases=list(spec.aliases),
            # the typed choices that are words (/cast: seed 002's 類神 categories), so help lists them
            choices={
                a.name: list(a.choices)
                for a in spec.args
                if a.choices and not all(c.isascii() for c in a.choices)
            },
        )
    return reply("help", commands=_help_rows())


@command(
    "lang",
    aliases=("언어", "語"),
    help_msgid=N_("bot.help.lang"),
    args=(ArgSpec("lang", required=False, description_msgid=N_("bot.arg.lang.lang"), choices=LANGS),),
    ephemeral=True,
)
async def lang(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    user = await caller(incoming, ctx)
    if not args:
        return reply("lang", current=(user.lang if user else None), langs=list(LANGS), changed=False)
    word = args[0].strip().lower()
    if word in RESET_WORDS:
        await ctx.storage.update_user(incoming.user_key, lang=None)
        return reply("lang", current=None, langs=list(LANGS), changed=True)
    value = LANG_WORDS.get(word) or LANG_WORDS.get(args[0].strip())
    if value is None:
        raise CommandError("bot.error.bad_lang", value=args[0][:20])
    await ctx.storage.update_user(incoming.user_key, lang=value)
    return Reply(view="lang", lang=value, context={"current": value, "langs": list(LANGS), "changed": True})


@command(
    "tz",
    aliases=("시간대", "時區"),
    help_msgid=N_("bot.help.tz"),
    args=(ArgSpec("zone", description_msgid=N_("bot.arg.tz.zone"), complete="zone"),),
    ephemeral=True,
)
async def tz(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if args:
        word = args[0].strip()
        if word.lower() in RESET_WORDS:
            await ctx.storage.update_user(incoming.user_key, tz=None)
        else:
            await ctx.storage.update_user(incoming.user_key, tz=check_zone(word))
    user = await ctx.storage.get_user(incoming.user_key)
    zone = zone_of(user, ctx)
    now = (await ctx.clock.now()).astimezone(zone)
    return reply(
        "tz",
        zone=zone.key,
        is_default=not (user and user.tz),
        local=now.strftime("%Y-%m-%d %H:%M"),
        changed=bool(args),
    )


def parse_coordinate(text: str, limit: float) -> float:
    """``126.98``, ``126.98E``, ``74W``, ``37.5°N`` → signed degrees within ±limit."""
    s = text.strip().upper().replace("°", "")
    sign = 1.0
    if s and s[-1] in "EWNS":
        sign = -1.0 if s[-1] in "WS" else 1.0
        s = s[:-1]
    try:
        value = float(s) * sign
    except ValueError:
        raise CommandError("bot.error.bad_place", value=text[:30]) from None
    if not math.isfinite(value) or abs(value) > limit:
        raise CommandError("bot.error.bad_place", value=text[:30])
    return round(value, 4)


@command(
    "place",
    aliases=("장소", "지역", "地"),
    help_msgid=N_("bot.help.place"),
    args=(
        ArgSpec("longitude", "string", description_msgid=N_("bot.arg.place.longitude"), complete="place"),
        ArgSpec("latitude", "string", description_msgid=N_("bot.arg.place.latitude")),
    ),
    ephemeral=True,
)
async def place(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    tz_hint: str | None = None
    if args:
        if args[0].strip().lower() in RESET_WORDS:
            await ctx.storage.update_user(incoming.user_key, longitude=None, latitude=None, place_name=None)
        elif _looks_numeric(args[0]):
            if len(args) > 2:
                raise CommandError("bot.error.bad_place", value=" ".join(args)[:30])
            lon = parse_coordinate(args[0], 180.0)
            lat = parse_coordinate(args[1], 90.0) if len(args) > 1 else None
            await ctx.storage.update_user(incoming.user_key, longitude=lon, latitude=lat, place_name=None)
        else:
            city = find_city(" ".join(args))
            tz_hint = city["tz"]
            await ctx.storage.update_user(
                incoming.user_key,
                longitude=city["lon"],
                latitude=city["lat"],
                place_name={k: city[k] for k in ("name", "ko", "zh", "tz")},
            )
    user = await ctx.storage.get_user(incoming.user_key)
    city_view = dict(user.place_name) if user and user.place_name else None
    if city_view is not None:
        # the city's zone is offered as a /tz hint right after choosing it, if it is not the user's already
        city_view["tz"] = tz_hint if tz_hint and tz_hint != zone_of(user, ctx).key else None
    return reply(
        "place",
        longitude=user.longitude if user else None,
        latitude=user.latitude if user else None,
        changed=bool(args),
        city=city_view,
    )


def find_city(name: str) -> dict[str, Any]:
    """A city of the 七政四餘 engine's place table by name (서울, 首爾, Seoul …): its names and coordinates.

    ``EngineInputError`` (error.qizheng.unknown_place) for a name not in the table.
    """
    city = find_place(name)
    return {
        "name": city.name,
        "ko": city.ko,
        "zh": city.zh,
        "tz": city.tz,
        "lon": round(city.lon, 4),
        "lat": round(city.lat, 4),
    }


def _looks_numeric(text: str) -> bool:
    s = text.strip().upper().replace("°", "").rstrip("EWNS")
    return bool(s) and s.lstrip("+-").replace(".", "", 1).isdigit()


# ---- /settings ------------------------------------------------------------------------------------------

# Bot-level options (not engine options): how an instant becomes day and hour pillars.
BOT_OPTIONS: dict[str, tuple[str, ...]] = {
    "day_starts": ("23:00", "00:00"),
    "solar_time": ("off", "on"),
}
_OPTION_ALIASES = {
    "day": "day_starts",
    "daystart": "day_starts",
    "換日": "day_starts",
    "자시": "day_starts",
    "solar": "solar_time",
    "진태양시": "solar_time",
    "眞太陽時": "solar_time",
    "真太陽時": "solar_time",
}


# Where the label of an option lives: the engine areas' own catalogs (liuren.opt.*, qizheng.opt.*), else ours.
_LABEL_IDS = {"bot": "bot.opt.{name}", "liuren": "liuren.opt.{name}", "qizheng": "qizheng.opt.{name}"}


def _option_label(area: str, name: str) -> str | None:
    """The message id of the option's label, if a catalog has one (else the template shows only the key)."""
    for pattern in (_LABEL_IDS.get(area), "bot.opt.{area}.{name}"):
        if pattern is None:
            continue
        msgid = pattern.format(area=area, name=name)
        if msgid in catalog(DEFAULT_LANG):
            return msgid
    return None


def _option_view(options: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, allowed in BOT_OPTIONS.items():
        rows.append(
            {
                "name": name,
                "value": options.get(name, allowed[0]),
                "choices": list(allowed),
                "area": "bot",
                "label": _option_label("bot", name),
            }
        )
    for area in engine_options.AREAS:
        for name, (default, choices) in engine_options.fields(area).items():
            key = f"{area}.{name}"
            rows.append(
                {
                    "name": key,
                    "value": options.get(key, default),
                    "choices": choices,
                    "area": area,
                    "label": _option_label(area, name),
                }
            )
    return rows


@command(
    "settings",
    aliases=("설정", "設"),
    help_msgid=N_("bot.help.settings"),
    args=(
        ArgSpec("option", description_msgid=N_("bot.arg.settings.option")),
        ArgSpec("value", description_msgid=N_("bot.arg.settings.value")),
    ),
    ephemeral=True,
)
async def settings(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    user = await caller(incoming, ctx)
    options: dict[str, Any] = dict(user.options) if user else {}
    changed = False
    if args:
        key = _OPTION_ALIASES.get(args[0], args[0].lower())
        if key in RESET_WORDS and len(args) == 1:
            options = {}
            changed = True
        else:
            if len(args) != 2:
                raise CommandError("bot.error.settings_usage")
            value = args[1]
            if key in BOT_OPTIONS:
                if key == "solar_time":
                    value = "on" if parse_bool(value, key) else "off"
                elif key == "day_starts":
                    value = {"23": "23:00", "0": "00:00", "00": "00:00", "24": "00:00"}.get(value, value)
                if value not in BOT_OPTIONS[key]:
                    raise CommandError("bot.error.bad_option_value", name=key, value=value[:20])
            elif (parsed := engine_options.parse_key(key)) is not None:
                value = engine_options.normalize(parsed[0], parsed[1], value)
                # 晝夜 by sunrise needs the place (latitude and longitude): refused now, not at every cast
                if (
                    key == "liuren.daynight"
                    and value == "sun"
                    and (user is None or user.latitude is None or user.longitude is None)
                ):
                    raise CommandError("chat.error.sun_needs_place")
            else:
                raise CommandError("bot.error.unknown_option", name=key[:32])
            options[key] = value
            changed = True
        await ctx.storage.update_user(incoming.user_key, options=options)
        user = await ctx.storage.get_user(incoming.user_key)
    zone = zone_of(user, ctx)
    return reply(
        "settings",
        user_lang=(user.lang if user else None),
        zone=zone.key,
        longitude=user.longitude if user else None,
        latitude=user.latitude if user else None,
        city=dict(user.place_name) if user and user.place_name else None,
        birth_saved=bool(user and user.birth),
        options=_option_view(options),
        changed=changed,
    )
