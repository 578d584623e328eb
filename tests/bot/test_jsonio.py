"""``bot.jsonio`` (issue #18): the JSON of the history rows and settings. It writes the compact text ``json.dumps`` wrote for the
values the bot stores (so rows written before it are the same text), reads them back, and reads ``JsonText``
(a str subclass)."""

from __future__ import annotations

import json

import pytest

from bot import jsonio
from bot.commands import Incoming, dispatch
from bot.storage import JsonText, dumps


def stdlib(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    "value",
    [
        {
            "甲子": "갑자",
            "n": 7,
            "f": 126.978,
            "neg": -0.5,
            "t": True,
            "none": None,
            "list": [1, "二", [3.25]],
        },
        {"escapes": 'a\nb\t"c"\\ \x01 \x7f \u2028 é', "tuple": ("子", "丑")},
        {1: "an int key", "nested": {"k": {"deep": []}}},
    ],
)
def test_the_text_is_the_standard_librarys(value):
    assert jsonio.dumps(value) == stdlib(value)
    assert jsonio.loads(jsonio.dumps(value)) == json.loads(stdlib(value))
    assert jsonio.loads(stdlib(value).encode("utf-8")) == json.loads(stdlib(value))  # from the bytes


@pytest.mark.parametrize(
    "text", ["/cast now", "/cast 庚辰 申 卯 天文", "/liuyao 789678", "/shensha 甲子 寅 午時"]
)
async def test_a_stored_reply_is_written_as_the_standard_library_wrote_it(ctx, text):
    """Every value of a real reply's context (floats, nested lists, Chinese text) spelt the same."""
    reply = await dispatch(Incoming("telegram", "1", "1", text, lang_hint="ko"), ctx)
    assert reply.view in ("cast", "liuyao", "shensha"), reply
    assert jsonio.dumps(dict(reply.context)) == stdlib(dict(reply.context))


def test_rows_the_standard_library_wrote_with_nan_are_still_read():
    row = stdlib({"longitude": float("nan"), "x": float("inf")})
    value = jsonio.loads(row)
    assert value["longitude"] != value["longitude"] and value["x"] == float("inf")
    with pytest.raises(ValueError):
        jsonio.loads('{"broken": ')


def test_json_text_is_read():
    text = dumps({"a": [1, "甲"]})
    assert isinstance(text, JsonText)
    assert jsonio.loads(text) == {"a": [1, "甲"]}
