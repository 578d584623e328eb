"""/daily HH:MM [topic] | /daily | /daily off | /daily liuren | /daily liuyao | /daily <topic word> | /daily
주제없음, and /today (the same day's reading, with its pages: day · chart · topics)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

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
    resolve_lang,
)
from bot.features.common import OFF_WORDS, Record, record_and_reply, zone_of
from bot.features.daily.reading import (
    DEFAULT_TIME,
    Moment,
    check_moment,
    daily_context,
    subscription_moment,
    topic_named,
)
from bot.features.topics import choose_reply, resolve
from bot.i18n import N_
from bot.schedule_time import due_instant, next_due, parse_hhmm
from bot.storage import DailyStore, Subscription
from engine import lexicon

if TYPE_CHECKING:
    from bot.context import AppContext
    from bot.storage import UserSettings

KIND_WORDS = {
    "liuren": "liuren",
    "六壬": "liuren",
    "大六壬": "liuren",
    "육임": "liuren",
    "대육임": "liuren",
    "liuyao": "liuyao",
    "六爻": "liuyao",
    "육효": "liuyao",
}
STATUS_WORDS = frozenset({"status", "show", "보기", "상태", "觀"})
# words that take the topic off a subscription (the day's reading alone)
NO_TOPIC_WORDS = frozenset({"주제없음", "주제끄기", "無題", "去題", "notopic"})


def topic_of(word: str) -> str | None:
    """The 大六壬 topic (its 文言 name) a word of the lexicon names (재물 → 求財, 婚姻, 결혼 …), or None."""
    match = resolve(word, "liuren")
    return match.topic if match is not None else None


def subscription_options(user: UserSettings | None) -> dict[str, Any]:
    """The subscriber's day start and 大六壬 options (``liuren.*`` settings), frozen into the subscription."""
    options = dict(user.options) if user else {}
    out: dict[str, Any] = {"day_starts": str(options.get("day_starts", "23:00"))}
    for key, value in options.items():
        if key.startswith("liuren."):
            out[key[len("liuren.") :]] = {"on": True, "off": False}.get(value, value)
    return out


def _topic_names(topic: str | None) -> dict[str, str] | None:
    """A stored topic's names (ko, lzh) for the status, or None."""
    named = topic_named(topic) if topic else None
    return {"ko": named.ko, "lzh": named.lzh} if named is not None else None


def _fmt(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M")


def _offset(at: datetime) -> str:
    off = int((at.utcoffset() or timedelta(0)).total_seconds()) // 60
    sign = "+" if off >= 0 else "-"
    return f"UTC{sign}{abs(off) // 60:02d}:{abs(off) % 60:02d}"


async def next_delivery(store: DailyStore, sub: Subscription, now: datetime) -> datetime:
    """The next instant this subscription will be delivered (a day that has a delivery row is done)."""
    day, due = next_due(sub.at_time, sub.zone, now)
    while await store.delivery(sub.id, day) is not None:
        day, due = next_due(sub.at_time, sub.zone, due)
    return due


def status_view(sub: Subscription | None, nxt: datetime | None, changed: bool) -> Reply:
    sub_view = None
    if sub is not None:
        sub_view = {
            "active": sub.active,
            "time": sub.at_time.strftime("%H:%M"),
            "zone": sub.tz,
            "kind": sub.kind,
            "reason": sub.disabled_reason,
            "platform": sub.platform,
            "topic": _topic_names(sub.topic),
        }
    next_view = None
    if nxt is not None and sub is not None:
        local = nxt.astimezone(sub.zone)
        next_view = {"local": _fmt(local), "offset": _offset(local), "utc": _fmt(nxt.astimezone(UTC))}
    return reply("daily_status", sub=sub_view, next=next_view, changed=changed)


def _can_change(incoming: Incoming) -> None:
    if incoming.chat_kind != "private" and not incoming.user_is_admin:
        raise CommandError("bot.error.admin_only", name="daily")


@command(
    "daily",
    aliases=("매일", "每日", "일일"),
    help_msgid=N_("bot.help.daily"),
    usage_msgid=N_("bot.usage.daily"),
    args=(ArgSpec("setting", "string", required=False, description_msgid=N_("bot.arg.daily.setting")),),
    admin_in_groups=True,
    subscribes=True,
    order=4,
)
async def daily(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    store = DailyStore(ctx.storage)
    now = await ctx.clock.now()
    sub = await store.for_chat(incoming.platform, incoming.chat_id)
    words = [a.strip() for a in args if a.strip()]
    if not words or (len(words) == 1 and words[0].lower() in STATUS_WORDS):
        active = sub if sub is not None and sub.active else None
        nxt = await next_delivery(store, active, now) if active is not None else None
        return status_view(sub, nxt, changed=False)
    _can_change(incoming)
    if len(words) == 1 and words[0].lower() in OFF_WORDS:
        if sub is not None:
            await store.disable(incoming.platform, incoming.chat_id, "off", now)
            _notify(ctx, sub.id)
        return status_view(None, None, changed=True)
    at_time = None
    kind: str | None = None
    topic: str | None = None  # "": no topic any more
    for n, word in enumerate(words):
        k = KIND_WORDS.get(word.lower()) or KIND_WORDS.get(word)
        if k is not None and kind is None:
            kind = k
            continue
        t = parse_hhmm(word)
        if t is not None and at_time is None:
            at_time = t
            continue
        if word[:1].isdigit():
            raise CommandError("daily.error.bad_time", value=word[:20])
        if topic is None and word.lower() in NO_TOPIC_WORDS:
            topic = ""
            continue
        named = topic_of(word) if topic is None else None
        if named is not None:
            topic = named
            continue
        timed = any(parse_hhmm(w) is not None for w in words)
        if topic is None and (timed or lexicon.suggest(word, "liuren", fallback=False)):
            # a word beside a time, or close to a topic: the closest topics, each with the line that asks it
            return choose_reply(word, "liuren", " ".join(("/daily", *words[:n], *words[n + 1 :])))
        raise CommandError("daily.error.usage")
    if at_time is None:
        # only the kind or the topic: change it on the existing subscription
        if sub is None or not sub.active:
            raise CommandError("daily.error.no_subscription")
        if kind is not None:
            await store.set_kind(sub.id, kind, now)
        if topic is not None:
            await store.set_topic(sub.id, topic or None, now)
        _notify(ctx, sub.id)
        sub = await store.get(sub.id)
        assert sub is not None
        return status_view(sub, await next_delivery(store, sub, now), changed=True)
    user = await caller(incoming, ctx)
    zone = zone_of(user, ctx)
    options = subscription_options(user)
    lang = await resolve_lang(incoming, ctx)
    candidate = Subscription(
        id=0,
        platform=incoming.platform,
        chat_id=incoming.chat_id,
        chat_kind=incoming.chat_kind,
        user_key=incoming.user_key,
        at_time=at_time,
        tz=zone.key,
        lang=lang,
        kind=kind or (sub.kind if sub is not None else "liuren"),
        options=options,
        active=True,
        since=now,
        topic=(topic or None) if topic is not None else (sub.topic if sub is not None else None),
    )
    # cast once now: bad options (an EngineInputError) are reported here, not at delivery time
    check_moment(subscription_moment(candidate, next_due(at_time, zone, now)[1]))
    sub = await store.subscribe(
        platform=incoming.platform,
        chat_id=incoming.chat_id,
        chat_kind=incoming.chat_kind,
        user_key=incoming.user_key,
        at_time=at_time,
        tz=zone.key,
        lang=lang,
        kind=kind,
        options=options,
        now=now,
        topic=topic,
    )
    _notify(ctx, sub.id)
    return status_view(sub, await next_delivery(store, sub, now), changed=True)


def _notify(ctx: AppContext, sub_id: int) -> None:
    if ctx.daily_scheduler is not None:
        ctx.daily_scheduler.notify(sub_id)


async def today_moment(incoming: Incoming, ctx: AppContext) -> Moment:
    """The moment of this chat's reading for its local today: the delivered one if there was one."""
    store = DailyStore(ctx.storage)
    now = await ctx.clock.now()
    sub = await store.for_chat(incoming.platform, incoming.chat_id)
    if sub is not None and sub.active:
        local_today = now.astimezone(sub.zone).date()
        delivered = await store.delivery(sub.id, local_today)
        due = delivered.due_at if delivered is not None else due_instant(local_today, sub.at_time, sub.zone)
        return subscription_moment(sub, due)
    user = await caller(incoming, ctx)
    zone = zone_of(user, ctx)
    options = subscription_options(user)
    day_starts = str(options.pop("day_starts"))
    local_today = now.astimezone(zone).date()
    return Moment.of(due_instant(local_today, DEFAULT_TIME, zone), zone.key, "liuren", day_starts, options)


def cast_of(inputs: Mapping[str, Any], options: Mapping[str, Any]) -> Cast:
    """The one cast of a ``/today`` row's inputs and options (``Stored.cast``): the reading of its moment."""
    topic = inputs.get("topic")
    topic = str(topic) if topic and topic_named(str(topic)) is not None else None
    moment = Moment.of(
        datetime.fromisoformat(str(inputs["at"])),
        str(inputs["zone"]),
        str(inputs["kind"]),
        str(inputs["day_starts"]),
        options,
        topic,
    )
    return Cast(daily_context(moment))


def history_summary(context: Mapping[str, Any]) -> dict[str, Any]:
    """/history's line of a /today reading: the day's 干支 and which reading it carried."""
    body = context.get("body") or {}
    return {"day": (body.get("pillars") or {}).get("day"), "reading": body.get("kind")}


@command(
    "today",
    aliases=("오늘", "今日"),
    help_msgid=N_("bot.help.today"),
    usage_msgid=N_("bot.usage.today"),
    order=5,
    stored=Stored(
        kind="daily",
        view="daily",
        summary=history_summary,
        line="chat/history_daily.txt.j2",
        pages=(
            Page("day", N_("chat.page.daily.day")),
            Page("chart", N_("chat.page.daily.chart")),
            Page("topics", N_("chat.page.daily.topics")),
        ),
        public=("head", "body", "no", "picture"),  # the reading of a moment: nothing of the user's in it
        cast=cast_of,
    ),
)
async def today(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    """/today, and /today <topic word> (재물, 婚姻): the same day's reading read for that topic, as a /daily
    subscription with a topic reads it; a word close to the topics gets the closest (words naming none and
    close to none are left aside, as /today always did)."""
    moment = await today_moment(incoming, ctx)
    if args:
        word = " ".join(args)
        topic = topic_of(word)
        if topic is not None:
            moment = replace(moment, topic=topic)
        elif lexicon.suggest(word, "liuren", fallback=False):
            return choose_reply(word, "liuren", "/today")
    inputs = {
        "at": moment.instant.isoformat(),
        "zone": moment.zone,
        "kind": moment.kind,
        "day_starts": moment.day_starts,
        "topic": moment.topic,
    }
    return await record_and_reply(
        incoming, ctx, Record(kind="daily", inputs=inputs, options=dict(moment.options))
    )


__all__ = ["daily", "next_delivery", "subscription_options", "today", "today_moment"]
