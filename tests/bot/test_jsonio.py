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


CACHED = {
    "readings": [{"id": "x", "value": ["子", "丑"]}, 2.5, "三"],
    "verdict": {"甲": [1, {"乙": "丙"}], "f": 0.1},
}


@pytest.mark.parametrize(
    "members",
    [
        [],
        [("a", 1)],
        [("readings", "cached")],
        [("readings", "cached"), ("verdict", "cached")],
        [("when", {"local": "2024-02-04 12:30"}), ("readings", "cached"), ("n", 3)],
        [("x", ("tuple", "read", "back")), ("verdict", "cached"), (1, "an int key"), ("readings", "cached")],
        [("verdict", "cached"), ("empty", {}), ("list", []), ("s", 'a"\\\n')],
    ],
)
def test_dumps_loads_with_kept_members_writes_what_dumps_writes_and_reads_what_loads_reads(members):
    obj = {key: CACHED[key] if value == "cached" else value for key, value in members}
    written = {key: jsonio.kept(CACHED[key]) for key, value in members if value == "cached"}
    for kept in (written, {}):
        text, value = jsonio.dumps_loads_with(obj, kept)
        assert text == stdlib(obj)  # spliced or not, the standard library's text
        assert value == json.loads(text) and list(value) == list(json.loads(text))  # order kept
        assert jsonio.dumps(value) == text
        for key, member in value.items():
            if key in kept:
                assert member is kept[key].value  # the kept value, not read again
            elif isinstance(member, dict | list):  # read back from the text: no container of the caller's
                assert all(c is not member for c in obj.values())
    # the kept text is what is stored, and the kept value what is read: a text that differed from the value
    # would be stored (and answered) as it is
    if written:
        name = next(iter(written))
        text, value = jsonio.dumps_loads_with(obj, {**written, name: jsonio.Kept('"kept"', "kept")})
        assert json.loads(text)[name] == "kept" == value[name]


def test_a_repeated_name_reads_as_loads_reads_it():
    """An int key and a str key that write one name: ``loads`` keeps the first place and the last value."""
    for obj in ({"1": "cached", 1: "x", "z": 0}, {1: "x", "1": "cached", "z": 0}):
        written = {"1": jsonio.kept(CACHED["verdict"])}
        text, value = jsonio.dumps_loads_with(obj, written)
        assert value == json.loads(text) and list(value) == list(json.loads(text))


def test_a_kept_value_is_read_only_and_equal_to_what_loads_reads():
    text = stdlib(CACHED)
    kept = jsonio.kept(CACHED)
    assert kept.text == text and kept.value == json.loads(text) and json.loads(text) == kept.value
    frozen = kept.value
    objects = [frozen, frozen["readings"], frozen["readings"][0], frozen["verdict"]["甲"]]
    assert [type(o) for o in objects] == [
        jsonio.FrozenDict,
        jsonio.FrozenList,
        jsonio.FrozenDict,
        jsonio.FrozenList,
    ]
    changes = {
        jsonio.FrozenDict: [
            lambda d: d.__setitem__("k", 1),
            lambda d: d.__delitem__(next(iter(d))),
            lambda d: d.__ior__({"k": 1}),
            lambda d: d.clear(),
            lambda d: d.pop(next(iter(d))),
            lambda d: d.popitem(),
            lambda d: d.setdefault("k", 1),
            lambda d: d.update(k=1),
        ],
        jsonio.FrozenList: [
            lambda v: v.__setitem__(0, 1),
            lambda v: v.__setitem__(slice(0, 1), [1]),
            lambda v: v.__delitem__(0),
            lambda v: v.__iadd__([1]),
            lambda v: v.__imul__(2),
            lambda v: v.append(1),
            lambda v: v.extend([1]),
            lambda v: v.insert(0, 1),
            lambda v: v.pop(),
            lambda v: v.remove(v[0]),
            lambda v: v.clear(),
            lambda v: v.sort(key=str),
            lambda v: v.reverse(),
        ],
    }
    for o in objects:
        for change in changes[type(o)]:
            with pytest.raises(TypeError):
                change(o)
    assert jsonio.dumps(frozen) == text  # nothing changed
    assert jsonio.text_of(frozen) is kept.text  # the kept text, not written again
    for o in objects:  # a part's own text, written when asked
        assert jsonio.text_of(o) == jsonio.dumps(o) and jsonio.loads(jsonio.text_of(o)) == o


def test_copies_of_a_kept_value_are_plain_and_changeable():
    import copy
    import pickle

    frozen = jsonio.kept(CACHED).value
    for plain in (jsonio.thaw(frozen), copy.deepcopy(frozen), pickle.loads(pickle.dumps(frozen))):
        assert plain == CACHED and type(plain) is dict and type(plain["readings"][0]) is dict
        plain["readings"][0]["id"] = "changed"
        plain["verdict"].clear()
    shallow = copy.copy(frozen)
    assert type(shallow) is dict and shallow == CACHED
    shallow.clear()
    assert jsonio.dumps(frozen) == stdlib(CACHED)
