"""``bot.jsonio`` (issue #18): the history rows' JSON. It writes the compact text ``json.dumps`` wrote for the
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


def test_the_cache_key_is_canonical():
    assert jsonio.sorted_key({"b": 1, "a": [2, {"d": 3, "c": 4}]}) == jsonio.sorted_key(
        {"a": [2, {"c": 4, "d": 3}], "b": 1}
    )
    assert jsonio.sorted_key({"a": 1}) != jsonio.sorted_key({"a": 2})


FROZEN_OBJECT = {"甲": [1, {"乙": "丙"}], "f": 0.1, "none": None}
FROZEN_ARRAY = [{"id": "x", "value": ["子", "丑"]}, 2.5, "三"]


@pytest.mark.parametrize(
    "members",
    [
        [],
        [("a", 1)],
        [("a", "frozen_object")],
        [("a", "frozen_object"), ("b", "frozen_array")],
        [("when", {"local": "2024-02-04 12:30"}), ("readings", "frozen_array"), ("n", 3)],
        [("x", ("tuple", "read", "back")), ("v", "frozen_object"), (1, "an int key"), ("w", "frozen_array")],
        [("v", "frozen_object"), ("empty", {}), ("list", []), ("s", 'a"\\\n')],
    ],
)
def test_round_trip_writes_what_dumps_writes_and_gives_what_loads_reads(members):
    frozen = {"frozen_object": jsonio.freeze(FROZEN_OBJECT), "frozen_array": jsonio.freeze(FROZEN_ARRAY)}
    obj = {key: frozen.get(value, value) if isinstance(value, str) else value for key, value in members}
    text, value = jsonio.round_trip(obj)
    assert text == stdlib(obj)  # the standard library's text of the whole, spliced or not
    assert value == json.loads(text) and list(value) == list(json.loads(text))
    for key, member in obj.items():
        if isinstance(member, jsonio.FrozenDict | jsonio.FrozenList):
            assert value[key] is member  # handed on, not read back
        elif isinstance(member, dict | list | tuple):
            assert value[str(key)] is not member  # read back: the reply's own


def test_a_frozen_value_is_what_loads_reads_of_it_and_keeps_its_text():
    for source in (FROZEN_OBJECT, FROZEN_ARRAY, {"t": ("子", "丑"), 1: "one"}):
        frozen = jsonio.freeze(source)
        assert frozen == json.loads(stdlib(source)) and frozen.json == stdlib(source)
        assert type(frozen) is (jsonio.FrozenDict if isinstance(source, dict) else jsonio.FrozenList)
    with pytest.raises(TypeError):
        jsonio.freeze("text")  # type: ignore[call-overload]


def test_a_frozen_value_refuses_changes_and_copies_are_plain():
    import copy
    import pickle

    frozen = jsonio.freeze(FROZEN_OBJECT)
    inner = frozen["甲"]
    with pytest.raises(TypeError):
        frozen["甲"] = 1
    with pytest.raises(TypeError):
        frozen.update(x=1)
    with pytest.raises(TypeError):
        inner.append(3)
    with pytest.raises(TypeError):
        inner[1]["乙"] = "丁"
    with pytest.raises(TypeError):
        frozen |= {"x": 1}
    assert copy.copy(frozen) is frozen and copy.deepcopy(frozen) is frozen
    again = pickle.loads(pickle.dumps(frozen))
    assert again == frozen and type(again) is jsonio.FrozenDict and again.json == frozen.json
    plain, listed = dict(frozen), list(inner)
    plain["x"] = 1  # a plain copy is the caller's own
    listed.append(3)
    assert type(frozen.copy()) is dict and type(inner[:]) is list and type(frozen | {"y": 2}) is dict
    assert frozen == FROZEN_OBJECT and inner == [1, {"乙": "丙"}]


@pytest.mark.parametrize(
    "members",
    [
        [("b", "frozen_array"), ("a", 1), ("no", 3), ("when", {"z": 1, "a": [2, {"y": 0, "b": 1}]})],
        [("readings", "frozen_array"), ("verdict", "frozen_object")],
        [("z", "frozen_object"), ("m", None), ("a", "frozen_array"), ("é", "…"), ("B", ["x"])],
        [(10, "frozen_object"), (9, "int keys")],  # not string keys: JSON orders them as numbers
    ],
)
def test_sorted_key_is_the_standard_librarys_canonical_text(members):
    frozen = {"frozen_object": jsonio.freeze(FROZEN_OBJECT), "frozen_array": jsonio.freeze(FROZEN_ARRAY)}
    obj = {key: frozen.get(value, value) if isinstance(value, str) else value for key, value in members}
    canonical = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    assert jsonio.sorted_key(obj) == canonical
    assert jsonio.sorted_key(obj) == canonical  # again, from the kept texts
    if all(isinstance(key, str) for key in obj):  # (an int key reads back as a string, sorted otherwise)
        assert (
            jsonio.sorted_key(json.loads(canonical)) == canonical
        )  # equal values, frozen or not: equal keys
    for member in frozen.values():
        assert jsonio.sorted_key(member) == json.dumps(
            member, ensure_ascii=False, separators=(",", ":"), sort_keys=True
        )
