"""``record_and_reply`` (issue #18): the reply is made of exactly what is stored, for every kind of view, and
the commands' cached values it shares are frozen.

- The reply's context (its ``no`` aside) equals ``jsonio.loads`` of the stored ``context`` text, key order
  included, and that text is ``jsonio.dumps`` of it character for character (the frozen members' kept texts
  spliced in write what a whole ``dumps`` writes); the picture is made of the stored inputs and options.
- The cached 大六壬 reading and verdict and the 神煞 stars are the very frozen objects of the commands' caches
  (not a copy a cast made): every way to change them in place raises ``TypeError``. Everything else of a
  reply's context is its own (read back from the stored text): changing it touches no other reply, nor the
  stored row that ``/show N`` answers from.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot import jsonio
from bot.commands import Incoming, dispatch
from bot.commands import cast as cast_command
from bot.commands import shensha as shensha_command
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
FROZEN_MEMBERS = {
    "cast": ("readings", "verdict"),
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


def changes(container: Any) -> list[Any]:
    """Every in-place change of a dict or a list, each a function of the container."""
    if isinstance(container, dict):
        key = next(iter(container), "k")
        return [
            lambda c: c.__setitem__("added", 1),
            lambda c: c.__delitem__(key),
            lambda c: c.__ior__({"added": 1}),
            lambda c: c.clear(),
            lambda c: c.pop(key),
            lambda c: c.popitem(),
            lambda c: c.setdefault("added", 1),
            lambda c: c.update(added=1),
        ]
    return [
        lambda c: c.__setitem__(0, "changed"),
        lambda c: c.__delitem__(0),
        lambda c: c.__iadd__(["added"]),
        lambda c: c.__imul__(2),
        lambda c: c.append("added"),
        lambda c: c.clear(),
        lambda c: c.extend(["added"]),
        lambda c: c.insert(0, "added"),
        lambda c: c.pop(),
        lambda c: c.remove(c[0]) if c else c.remove("x"),
        lambda c: c.reverse(),
        lambda c: c.sort(key=str),
    ]


async def stored(ctx, incoming: Incoming, seq: int) -> dict[str, str]:
    row = await ctx.storage.fetchone(
        "SELECT context, inputs, options, kind FROM history WHERE user_key = ? AND seq = ?",
        (incoming.user_key, seq),
    )
    assert row is not None
    return {name: row[name] for name in ("context", "inputs", "options", "kind")}


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
        expected_picture = picture_source(
            row["kind"], jsonio.loads(row["inputs"]), jsonio.loads(row["options"])
        )
        assert reply.picture == expected_picture


@pytest.mark.parametrize("text", ["/cast now", "/cast 甲子 3局", "/shensha", "/shensha 庚辰 酉 甲辰年"])
async def test_the_cached_members_are_shared_frozen_and_refuse_every_change(ctx, text):
    first = await dispatch(Incoming("telegram", "1", "1", text, lang_hint="ko"), ctx)
    second = await dispatch(Incoming("telegram", "2", "2", text, lang_hint="ko"), ctx)
    names = FROZEN_MEMBERS[first.view]
    for name in names:
        member = first.context[name]
        assert isinstance(member, jsonio.FrozenDict | jsonio.FrozenList), name
        assert second.context[name] is member  # the cache's object, not a copy per cast
        assert member.json == jsonio.dumps(member)
    if first.view == "cast":  # the reading cache's own values
        assert any(first.context["readings"] is readings for readings, _ in cast_command._READINGS.values())
        assert any(first.context["verdict"] is verdict for _, verdict in cast_command._READINGS.values())
    else:
        assert shensha_command.stars_of.cache_info().hits >= 1
    for name in names:
        for inner in containers(first.context[name]):
            assert isinstance(inner, jsonio.FrozenDict | jsonio.FrozenList)
            before = jsonio.dumps(inner)
            for change in changes(inner):
                with pytest.raises(TypeError):
                    change(inner)
            type(inner).__init__(inner)  # a second __init__ (dict.__init__ would update) changes nothing
            assert jsonio.dumps(inner) == before
    third = await dispatch(Incoming("telegram", "3", "3", text, lang_hint="ko"), ctx)
    assert {k: v for k, v in third.context.items() if k != "no"} == {
        k: v for k, v in first.context.items() if k != "no"
    }


@pytest.mark.parametrize("text", COMMANDS)
async def test_changing_the_rest_of_a_reply_touches_nothing_else(ctx, text):
    incoming = Incoming("telegram", "1", "1", text, lang_hint="ko")
    first = await dispatch(incoming, ctx)
    row = await stored(ctx, incoming, first.context["no"])
    frozen = [
        c for c in containers(dict(first.context)) if isinstance(c, jsonio.FrozenDict | jsonio.FrozenList)
    ]
    own = [
        c
        for name, value in first.context.items()
        if not isinstance(value, jsonio.FrozenDict | jsonio.FrozenList)
        for c in containers(value)
    ]
    assert not any(isinstance(c, jsonio.FrozenDict | jsonio.FrozenList) for c in own)
    for container in own:
        container.clear()  # its own: allowed
    assert all(jsonio.dumps(c) == c.json for c in frozen if c.json is not None)
    again = await dispatch(Incoming("telegram", "2", "2", text, lang_hint="ko"), ctx)
    assert (await stored(ctx, incoming, first.context["no"])) == row  # the stored row is as it was
    shown = await dispatch(
        Incoming("telegram", "1", "1", f"/show {first.context['no']}", lang_hint="ko"), ctx
    )
    assert {k: v for k, v in shown.context.items() if k != "no"} == jsonio.loads(row["context"])
    if text.startswith(
        ("/cast 甲子", "/cast 庚辰", "/shensha 庚辰", "/shensha 甲子")
    ):  # same chart, other user
        assert {k: v for k, v in again.context.items() if k != "no"} == jsonio.loads(row["context"])
