"""History keeps inputs, not renderings (issue 31 item 6): ``record_and_reply`` stores a cast's inputs, options
and the engine version, and answers with ONE cast of them — the reply's text, every page and its picture —
which ``/show N`` and the page buttons make again from the row (``bot.features.common.replay``).

- The row holds no view model (``context`` is ``{}``): its inputs, its options (the engine options' JSON), the
  engine version that cast it and ``/history``'s line of it (the command's ``Stored.summary`` of the reply).
- The reply is its command's ``Stored.cast`` of the row's inputs and options, as read back: context and picture.
- One cast per command: the chart is cast once for a reply with its picture drawn (``/cast``, ``/liuyao``,
  ``/qizheng``), once for ``/show`` (its text: the picture went with the first reply), once for a page press
  that puts the picture back (text and picture).
- No part of a reply is another reply's (no command keeps a cache of view models to hand out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bot import jsonio, pictures
from bot.commands import Incoming, dispatch, pages
from bot.features import options as engine_options
from bot.features.base import stored_as_kind
from bot.features.common import ENGINE_VERSION
from bot.features.liuren import command as liuren_command
from bot.features.liuyao import command as liuyao_command
from bot.features.qizheng import command as qizheng_command
from bot.presentation import present

# every kind record_and_reply stores (cast in each of its modes, liuyao, shensha, qizheng, daily)
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
    "/qizheng 1990-05-01 10:30 서울 2030 save",
    "/today",
]


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


async def row_of(ctx, incoming: Incoming, seq: int) -> dict[str, Any]:
    row = await ctx.storage.fetchone(
        "SELECT kind, view, inputs, options, context, engine, summary FROM history"
        " WHERE user_key = ? AND seq = ?",
        (incoming.user_key, seq),
    )
    assert row is not None
    return {name: row[name] for name in ("kind", "view", "inputs", "options", "context", "engine", "summary")}


@pytest.mark.parametrize("text", COMMANDS)
async def test_the_row_keeps_inputs_and_the_reply_is_their_one_cast(ctx, text):
    incoming = Incoming("telegram", "1", "1", text, lang_hint="ko")
    reply = await dispatch(incoming, ctx)
    assert reply.view in ("cast", "liuyao", "shensha", "qizheng", "daily"), reply.context
    row = await row_of(ctx, incoming, reply.context["no"])
    assert row["context"] == "{}" and row["engine"] == ENGINE_VERSION
    stored = stored_as_kind(row["kind"])
    assert stored is not None and row["view"] == stored.view == reply.view
    cast = stored.cast(jsonio.loads(row["inputs"]), jsonio.loads(row["options"]))
    context = {k: v for k, v in reply.context.items() if k != "no"}
    assert context == dict(cast.context) and list(context) == list(cast.context)  # display order too
    assert reply.picture == cast.picture
    assert (reply.picture is not None) == (row["kind"] in pictures.KINDS)
    assert stored.summary is not None and jsonio.loads(row["summary"]) == stored.summary(context)
    # the options are the engine's (read back the one way the bot reads stored options)
    if row["kind"] in ("cast", "liuyao", "qizheng"):
        area = {"cast": "liuren"}.get(row["kind"], row["kind"])
        assert engine_options.from_json(area, jsonio.loads(row["options"])).to_json() == jsonio.loads(
            row["options"]
        )
    assert len(row["inputs"]) < 1000  # inputs, not a rendering (a /cast view model is ≈ 21 kB)


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Count the calls of ``module.name`` (the module's own reference, as its code calls it)."""
    calls: list[int] = []
    original: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


CASTS = [
    ("/cast now", liuren_command, "chart_at", "telegram"),
    ("/cast 甲子 3局", liuren_command, "chart_for_ju", "discord"),
    ("/liuyao 789678 官鬼", liuyao_command, "build", "telegram"),
    ("/qizheng 1990-05-01 10:30 126.98 37.57 save", qizheng_command, "natal_chart", "telegram"),
    ("/qizheng 1990-05-01 10:30 126.98 37.57", qizheng_command, "natal_chart", "discord"),  # not stored
]


@pytest.mark.parametrize(("text", "module", "name", "channel"), CASTS)
async def test_one_cast_per_reply_show_and_page(ctx, monkeypatch, text, module, name, channel):
    calls = counting(monkeypatch, module, name)
    incoming = Incoming(channel, "1", "1", text, lang_hint="ko")
    reply = await dispatch(incoming, ctx)
    shown = present(reply, channel, "1")  # the reply as sent: its text and its picture
    assert shown.picture is not None and shown.picture.startswith(b"\x89PNG")
    assert len(calls) == 1, "the reply and its picture come from one cast"
    if reply.context.get("no") is None:
        return
    again = await dispatch(Incoming(channel, "1", "1", f"/show {reply.context['no']}", lang_hint="ko"), ctx)
    assert again.view == reply.view and present(again, channel, "1").picture is None
    assert len(calls) == 2, "/show casts the row once"
    page = pages.refs(reply.view, "1", reply.context["no"])[0]
    loaded = await pages.load(channel, page, "ko", "full", ctx)  # the owner, in private
    assert not isinstance(loaded, str) and pictures.render(loaded.picture, "ko") == shown.picture
    assert len(calls) == 3, "a page press casts the row once, its picture included"


@pytest.mark.parametrize("text", ["/cast now", "/cast 甲子 3局", "/shensha", "/liuyao 789678"])
async def test_no_part_of_a_reply_is_another_replys(ctx, text):
    first = await dispatch(Incoming("telegram", "1", "1", text, lang_hint="ko"), ctx)
    again = await dispatch(Incoming("telegram", "2", "2", text, lang_hint="ko"), ctx)
    mine = {id(c) for value in first.context.values() for c in containers(value)}
    theirs = {id(c) for value in again.context.values() for c in containers(value)}
    assert mine and not mine & theirs
    for value in first.context.values():
        for container in list(containers(value)):
            container.clear()  # the reply's own: changing it touches nothing else
    assert {k: v for k, v in again.context.items() if k != "no"} == {
        k: v
        for k, v in (await dispatch(Incoming("telegram", "3", "3", text), ctx)).context.items()
        if k != "no"
    }
