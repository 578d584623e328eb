"""``record_and_reply`` (issue #18): the reply is made of exactly what is stored, for every kind of view, and a
command's cache is never handed out.

- The reply's context (its ``no`` aside) equals ``jsonio.loads`` of the stored ``context`` text, key order
  included, and that text is ``jsonio.dumps`` of the context the command built, character for character (the
  cached members' kept texts, ``Record.written``, spliced in write what a whole ``dumps`` writes); the
  picture is made of the stored inputs and options.
- The cached 大六壬 reading and verdict and the 神煞 stars are not the reply's to change: a dict or list of a
  reply that is an object of the caches is read-only (``jsonio.freeze``: every change raises ``TypeError``),
  the others are the reply's own, so changing a reply (all it lets be changed) touches neither the caches,
  nor the next reply, nor the stored row that ``/show N`` answers from.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot import jsonio
from bot.commands import Incoming, dispatch
from bot.commands import cast as cast_command
from bot.commands import shensha as shensha_command
from bot.features.common import parse_branch, parse_ganzhi
from bot.pictures import source as picture_source

# every view that record_and_reply answers (cast in each of its modes, liuyao, shensha, qizheng, daily)
COMMANDS = [
    "/cast now",
    "/cast 甲子 3局",
    "/cast 庚辰 申 卯 天文",
    "/cast 2026-03-01 10:00",
    "/cast 12:00 人物",
    "/liuyao",
    "/liuyao 789678 官鬼",
    "/liuyao time",
    "/shensha",
    "/shensha 庚辰 酉 甲辰年",
    "/shensha 甲子 寅 午時",
    "/qizheng 1990-05-01 10:30 126.98 37.57 save",
    "/today",
]
CACHED_MEMBERS = {
    "cast": ("readings", "verdict", "board", "lessons", "transmissions", "trace"),
    "shensha": ("stars", "by_branch", "by_stem", "others"),
}


def containers(value: Any) -> Iterator[Any]:
    """Every dict and list inside ``value`` (itself included)."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from containers(v)
    elif isinstance(value, list):
        yield value
        for v in value:
            yield from containers(v)


async def stored(ctx, incoming: Incoming, seq: int) -> dict[str, str]:
    """The stored texts of an entry; ``context``: the whole context as stored — the row's own text, with the
    kept members (its ``kept`` row, migration 0011) in their places (the row's text has ``null`` there)."""
    row = await ctx.storage.fetchone(
        "SELECT h.context, h.inputs, h.options, h.kind, k.text AS kept FROM history AS h"
        " LEFT JOIN kept AS k ON k.digest = h.kept WHERE h.user_key = ? AND h.seq = ?",
        (incoming.user_key, seq),
    )
    assert row is not None
    own, kept = jsonio.loads(row["context"]), jsonio.loads(row["kept"] or "{}")
    assert all(own[name] is None for name in kept)  # each kept member has its place in the row's text
    whole = {name: kept[name] if name in kept else value for name, value in own.items()}
    return {"context": jsonio.dumps(whole), "kept": row["kept"]} | {
        name: row[name] for name in ("inputs", "options", "kind")
    }


@pytest.mark.parametrize("text", COMMANDS)
async def test_the_reply_is_what_loads_gives_of_the_stored_text(ctx, text):
    for user in ("1", "2"):  # the second: the commands' caches are warm
        incoming = Incoming("telegram", user, user, text, lang_hint="ko")
        reply = await dispatch(incoming, ctx)
        assert reply.view in ("cast", "liuyao", "shensha", "qizheng", "daily"), reply.context
        row = await stored(ctx, incoming, reply.context["no"])
        context = {k: v for k, v in reply.context.items() if k != "no"}
        assert context == jsonio.loads(row["context"])
        assert list(context) == list(jsonio.loads(row["context"]))  # display order kept
        assert jsonio.dumps(context) == row["context"]  # the spliced text is the whole dumps
        # the cached members are stored apart, once for every cast that shares them
        kept = jsonio.loads(row["kept"] or "{}")
        assert set(CACHED_MEMBERS.get(reply.view, ())) <= set(kept)
        assert bool(kept) == (reply.view in CACHED_MEMBERS)
        expected_picture = picture_source(
            row["kind"], jsonio.loads(row["inputs"]), jsonio.loads(row["options"])
        )
        assert reply.picture == expected_picture


def cache_containers() -> dict[int, Any]:
    """id → every dict and list held by the reading cache and the stars cache (kept alive while compared)."""
    held: dict[int, Any] = {}
    for entry in cast_command._READINGS.values():
        for c in (c for member in entry.view.values() for c in containers(member)):
            held[id(c)] = c
    return held


@pytest.mark.parametrize("text", COMMANDS)
async def test_no_part_of_a_reply_is_a_caches_and_changing_it_touches_nothing_else(ctx, text):
    first = await dispatch(Incoming("telegram", "1", "1", text, lang_hint="ko"), ctx)
    row = await stored(ctx, Incoming("telegram", "1", "1", text), first.context["no"])
    cached = cache_containers()
    if first.view == "shensha":
        day, month, year, hour = (first.context[k] for k in ("day", "month", "year", "hour"))
        stars, groups, _ = shensha_command.stars_of(
            parse_ganzhi(day),
            parse_branch(month) if month else None,
            parse_ganzhi(year) if year else None,
            parse_branch(hour) if hour else None,
        )
        for c in (*containers(stars), *(c for v in groups.values() for c in containers(v))):
            cached[id(c)] = c
    assert cached or first.view not in CACHED_MEMBERS, "the command's cache holds the chart's values"
    for name in CACHED_MEMBERS.get(first.view, ()):
        assert first.context[name] == jsonio.loads(row["context"])[name]
    own = [c for value in first.context.values() for c in containers(value)]
    shared = [c for c in own if id(c) in cached and cached[id(c)] is c]
    assert all(type(c) in jsonio.FROZEN for c in shared)  # an object of a cache only read-only
    snapshot = {i: jsonio.dumps(c) for i, c in cached.items()}
    for container in own:
        if type(container) in jsonio.FROZEN:
            with pytest.raises(TypeError):
                container.clear()
        else:
            container.clear()  # the reply's own: allowed, and harmless
    assert {i: jsonio.dumps(c) for i, c in cached.items()} == snapshot  # the caches are as they were
    again = await dispatch(Incoming("telegram", "2", "2", text, lang_hint="ko"), ctx)
    if first.view in CACHED_MEMBERS:  # the same chart for the next user (the clock stands still)
        assert {k: v for k, v in again.context.items() if k != "no"} == jsonio.loads(row["context"])
    assert (await stored(ctx, Incoming("telegram", "1", "1", text), first.context["no"])) == row
    shown = await dispatch(
        Incoming("telegram", "1", "1", f"/show {first.context['no']}", lang_hint="ko"), ctx
    )
    assert {k: v for k, v in shown.context.items() if k != "no"} == jsonio.loads(row["context"])
