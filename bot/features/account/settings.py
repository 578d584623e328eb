"""/lang /tz /place /settings: the user's own settings."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.features import options as engine_options
from bot.features.base import ArgSpec, CommandError, Incoming, Reply, caller, command, lang_of, reply
from bot.features.common import check_zone, find_city, looks_numeric, parse_coordinate, zone_of
from bot.i18n import LANGS, N_, gettext
from bot.msgids import FAMILIES

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


@command(
    "lang",
    aliases=("언어", "語"),
    help_msgid=N_("bot.help.lang"),
    usage_msgid=N_("bot.usage.lang"),
    args=(ArgSpec("lang", required=False, description_msgid=N_("bot.arg.lang.lang"), choices=LANGS),),
    ephemeral=True,
    order=8,
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
    usage_msgid=N_("bot.usage.tz"),
    args=(ArgSpec("zone", description_msgid=N_("bot.arg.tz.zone"), complete="zone"),),
    ephemeral=True,
    private_only=True,
    order=9,
)
async def tz(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if args:
        word = " ".join(args).strip()  # a place of two words (미국 동부, New York) is one name
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


@command(
    "place",
    aliases=("장소", "지역", "地"),
    help_msgid=N_("bot.help.place"),
    usage_msgid=N_("bot.usage.place"),
    args=(
        ArgSpec("longitude", "string", description_msgid=N_("bot.arg.place.longitude"), complete="place"),
        ArgSpec("latitude", "string", description_msgid=N_("bot.arg.place.latitude")),
    ),
    ephemeral=True,
    private_only=True,
    order=10,
)
async def place(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    tz_hint: str | None = None
    if args:
        if args[0].strip().lower() in RESET_WORDS:
            await ctx.storage.update_user(incoming.user_key, longitude=None, latitude=None, place_name=None)
        elif looks_numeric(args[0]):
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


# ---- /settings ------------------------------------------------------------------------------------------


def _option_rows(options: dict[str, Any]) -> list[dict[str, Any]]:
    """Every option of the settings model with the user's value (the default where none is saved)."""
    rows = []
    for s in engine_options.model():
        value = str(options.get(s.key, s.default))
        rows.append(
            {
                "name": s.key,
                "area": s.group,
                "value": value,
                "default": s.default,
                "is_default": value == s.default,
                "choices": list(s.choices),
                "label": s.label,
                "value_labels": s.shown_labels(),  # a short name where the value's name is a sentence
                # how the option and each value are typed by name, per language (/settings 섭해 맹중계)
                "typed": {lang: engine_options.typed_option(s, lang) for lang in LANGS},
                "typed_values": {
                    v: {lang: engine_options.typed_value(s, v, lang) for lang in LANGS}
                    for v in s.choices or (s.default,)  # a typed option: how its default is typed
                },
            }
        )
    return rows


def _group_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    labels = FAMILIES["chat.settings.group"]
    return [
        {
            "name": g,
            "label": labels.get(g),
            "count": sum(1 for r in rows if r["area"] == g),
            "changed": sum(1 for r in rows if r["area"] == g and not r["is_default"]),
            # how the group is typed by name, per language (/settings 육효, /settings 六爻)
            "typed": {lang: engine_options.typed_group(g, lang) for lang in LANGS},
        }
        for g in engine_options.GROUPS
        if any(r["area"] == g for r in rows)
    ]


@command(
    "settings",
    aliases=("설정", "設"),
    help_msgid=N_("bot.help.settings"),
    usage_msgid=N_("bot.usage.settings"),
    args=(
        ArgSpec("option", description_msgid=N_("bot.arg.settings.option")),
        ArgSpec("value", description_msgid=N_("bot.arg.settings.value")),
    ),
    ephemeral=True,
    private_only=True,
    order=11,
)
async def settings(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    """``/settings`` (everything), ``/settings liuren`` (one group), ``/settings liuren.daynight`` (one option
    and its values), ``/settings <option> <value>`` (set it), ``/settings reset``. The buttons of Telegram and
    Discord send the same lines (:mod:`bot.commands.setting_buttons`)."""
    user = await caller(incoming, ctx)
    options: dict[str, Any] = dict(user.options) if user else {}
    changed: str | None = None
    group: str | None = None
    option: engine_options.Setting | None = None
    matches: list[str] = []  # several options a name fits (계산, 켬): each shown, to choose
    if len(args) > 2:
        raise CommandError("bot.error.settings_usage")
    if len(args) == 1 and args[0].lower() in RESET_WORDS:
        options = {}
        changed = "*"
    elif len(args) == 1 and args[0].lower() in engine_options.GROUPS:
        group = args[0].lower()
    elif args:
        # an option by its key, or by the name it is shown by (섭해, 涉害)
        option = engine_options.option_named(args[0])
        if option is None:  # a value or a group by the name it is shown by (맹중계, 대육임), or several
            keys = sorted({key for key, _ in engine_options.named(args[0])})
            if len(keys) > 1 and len(args) == 1:
                matches = [k for k in keys if k not in engine_options.GROUPS]
            elif len(keys) == 1 and keys[0] in engine_options.GROUPS and len(args) == 1:
                group = keys[0]
            else:
                raise CommandError("bot.error.unknown_option", name=args[0][:32])
        if option is not None:
            group = option.group
        if option is not None and len(args) == 2:
            try:
                value = engine_options.normalize_setting(option, args[1])
            except CommandError as err:  # said with the option's name in the reader's language, not its key
                if err.code != "bot.error.bad_option_value" or option.label is None:
                    raise
                shown = gettext(lang_of(user, incoming, ctx), option.label)
                raise CommandError(err.code, name=shown, value=args[1][:20]) from err
            refused = engine_options.refusal(option, value, user)
            if refused is not None:  # it cannot work yet (晝夜 by sunrise without a place): said now
                raise CommandError(refused)
            options[option.key] = value
            changed = option.key
            option = None  # back to its group, the new value in place
    if changed is not None:
        await ctx.storage.update_user(incoming.user_key, options=options)
        user = await ctx.storage.get_user(incoming.user_key)
    zone = zone_of(user, ctx)
    rows = _option_rows(options)
    return reply(
        "settings",
        user_lang=(user.lang if user else None),
        zone=zone.key,
        longitude=user.longitude if user else None,
        latitude=user.latitude if user else None,
        city=dict(user.place_name) if user and user.place_name else None,
        birth_saved=bool(user and user.birth),
        options=rows,
        groups=_group_rows(rows),
        group=group,
        option=option.key if option else None,
        matches=matches,
        word=args[0][:20] if matches else None,
        changed=changed is not None,
        changed_key=changed,
    )
