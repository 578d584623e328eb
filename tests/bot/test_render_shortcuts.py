"""The shortcuts of rendering (issue #18) give what the general mechanism they stand for gives:

- ``bot.i18n.format_message`` fills a message as ``string.Formatter`` (``MessageFormatter``) does;
- ``bot.i18n.typeset`` skips a rule only where it cannot apply: the same text as every rule applied;
- the environments' ``x.name`` of a dict is what a stock ``jinja2.Environment`` gives;
- ``bot.views.content_key``: one key, one value (it is read back to the value it was made from);
- ``x | both`` of a list is ``x | map("both") | list``: the same texts, 한글(漢字) given once in the same order;
- ``macros(name)`` gives the macros ``{% import name as m %}`` gives: the same page.
"""

from __future__ import annotations

import marshal
import string
from pathlib import Path

import jinja2
import pytest
from markupsafe import Markup

from bot import i18n, jsonio
from bot.i18n import LANGS, MessageFormatter, catalog, environment, format_message, typeset
from bot.views import content_key

ROOT = Path(__file__).resolve().parents[2]


def formatted_by_string_formatter(lang: str, text: str, **params: object) -> str:
    """What ``format_message`` gave before it parsed messages once: ``MessageFormatter`` alone."""
    try:
        return MessageFormatter(lang).format(text, **params)
    except (KeyError, IndexError, ValueError):
        return text


def fields(text: str) -> list[str]:
    try:
        return [name for _, name, _, _ in string.Formatter().parse(text) if name]
    except ValueError:
        return []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("value", ["戌", "子", "갑자", 7, 3.5, Markup("<b>亥</b>")])
def test_every_catalog_message_is_filled_as_string_formatter_fills_it(lang, value):
    messages = [text for text in catalog(lang).values() if "{" in text]
    assert len(messages) > 50
    for text in messages:
        params = dict.fromkeys(fields(text), value)
        assert format_message(lang, text, **params) == formatted_by_string_formatter(lang, text, **params), (
            text
        )
        if params:  # one placeholder missing: the text as it is, as before
            del params[next(iter(params))]
            assert format_message(lang, text, **params) == formatted_by_string_formatter(lang, text, **params)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    "text",
    [
        "{day:이} 관귀를 생함",
        "第{ju:num}局",
        "{n:line}爻",
        "{n:>4}",
        "{0} 위치",  # an index
        "{a.real}",  # an attribute
        "{a!r}",  # a conversion
        "{a:{w}}",  # a nested field
        "{a[0]}",
        "{{literal}} {a}",
        "{",  # malformed
        "}",
        "{a",
        "{n:q}",  # a spec int does not know
        "",
        "no field",
    ],
)
def test_any_text_is_filled_as_string_formatter_fills_it(lang, text):
    for params in ({"day": "戌", "ju": 7, "n": 3, "a": 12, "w": 5}, {"a": ["亥"], "n": "x"}, {}):
        assert outcome(format_message, lang, text, params) == outcome(
            formatted_by_string_formatter, lang, text, params
        )


def outcome(fill, lang, text, params):
    """The text filled, or the kind of error raised (``{a[0]}`` of an int raises TypeError either way)."""
    try:
        return fill(lang, text, **params)
    except (TypeError, AttributeError) as error:
        return type(error)


def typeset_every_rule(text: str) -> str:
    """``typeset(lzh)`` as docs/style.md describes it: the rules, each over the whole text, in order, and one
    form per character (真, 剋)."""
    text = i18n._HALF_BRACKET.sub(r"〔\1〕", text)
    text = i18n._CJK_PAREN.sub(r"（\1）", i18n._HALF_PAREN.sub(r"\1（\2）", text))
    text = i18n._HALF_COMMA.sub(lambda m: m.group(1) + ("，" if m.group(2) == "," else "；"), text)
    text = i18n._SPACE_AFTER_STOP.sub("", text)
    text = i18n._COMMAND_COLON.sub(r"\1：", text)
    return i18n._one_form(i18n._HALF_COLON.sub(r"\1：", text))


def test_typeset_gives_what_every_rule_applied_gives():
    texts = [
        "朱雀: 信息",
        "<b>初傳 亥</b> (遁 己): 朱雀",
        "…曰斷橋。 凡占…",
        "…曰斷橋。\t凡占…",
        "《易冒》·三, 《易冒》·七; 八",
        "世 [囚 死]",
        "甲, 乙。 丙 (丁): 戊 [己]",
        "10:00 /cast now (UTC+09:00), [link](x)",
        "今宿·參用δ: /settings 宿 參用δ",
        "今宿·參用δ: `/settings 宿 參用δ`, https://example.org/x",
        "全無標點之文",
        "",
    ]
    for path in sorted((ROOT / "docs" / "samples").glob("*/*.txt")):  # every sample reply, untypeset
        texts.extend(path.read_text("utf-8").split("\n\n"))
    assert len(texts) > 500
    for text in texts:
        assert typeset("lzh", text) == typeset_every_rule(text), text
        assert typeset("ko", text) == text
    # docs/style.md: full-width colon, comma, parentheses and brackets after Chinese, no space after a stop
    assert typeset("lzh", "朱雀: 信息, 乙。 丙 (戊) [丁]") == "朱雀：信息，乙。丙（戊） 〔丁〕"


class Row:
    spirit = "朱雀"


@pytest.mark.parametrize(
    "source",
    [
        "{{ d.spirit }} {{ d.line }}",
        "{{ d.items }}",  # a key named like a dict's method: Jinja gives the method
        "{{ d['items'] }} {{ d.get('spirit') }} {{ d.keys() | list | join(',') }}",
        "{{ d.missing is defined }} {{ d.missing2 | default('none') }}",
        "{{ d.__class__.__name__ }} {{ d.nested.x }}",
        "{{ r.spirit }} {{ s.spirit }} {{ m.spirit }}",
        "{% for l in lines if l.strength is defined %}{{ l.strength }}{% endfor %}",
    ],
)
def test_a_dicts_attribute_is_what_stock_jinja_gives(source):
    class Sub(dict):
        spirit = "attribute"

    context = {
        "d": {"spirit": "朱雀", "line": 3, "items": "key", "nested": {"x": 1}},
        "r": Row(),
        "s": Sub(spirit="key"),  # a dict subclass with an attribute of the same name: the attribute
        "m": jsonio.loads('{"spirit": "青龍"}'),
        "lines": [{"strength": "旺"}, {"line": 2}],
    }
    ours = environment("ko").from_string(source).render(**context)
    stock = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(source).render(**context)
    assert ours == stock
    assert "attribute" in ours or "r.spirit" not in source


def test_a_missing_key_fails_as_stock_jinja_fails():
    for env in (environment("ko"), jinja2.Environment(undefined=jinja2.StrictUndefined)):
        with pytest.raises(jinja2.UndefinedError, match="has no attribute 'missing'"):
            env.from_string("{{ d.missing }}").render(d={"spirit": 1})


def test_the_content_key_is_one_value():
    text = '{"day": "甲子", "stars": [{"id": "tianyi", "value": ["丑", "未"]}], "no": 1, "x": 1.5, "t": true}'
    first, second = jsonio.loads(text), jsonio.loads(text)
    assert content_key(first) == content_key(second)  # another reply's context of the same text
    assert marshal.loads(content_key(first)) == first  # the key is read back to its value
    others = [
        {**first, "no": 2},
        {**first, "x": 1.25},
        {**first, "t": 1},  # true and 1 are equal in Python, not in a reply
        {**first, "stars": [{"id": "tianyi", "value": ("丑", "未")}]},
        {**first, "day": "甲午"},
    ]
    keys = {content_key(v) for v in others}
    assert content_key(first) not in keys and len(keys) == len(others)
    assert content_key({"m": Markup("<b>x</b>")}) is None  # not a JSON value: no key


@pytest.mark.parametrize("lang", LANGS)
def test_both_of_a_list_is_both_of_each_item(lang):
    env = environment(lang)
    values = ["甲子", "旺", "甲子", "月破", "not a term", "死(旺相)"]
    with i18n.one_reply():
        listed = env.from_string('{{ v | both | join(" ") }} / {{ v | both | join(" ") }}').render(v=values)
    with i18n.one_reply():
        mapped = env.from_string(
            '{{ v | map("both") | join(" ") }} / {{ v | map("both") | join(" ") }}'
        ).render(v=values)
    assert listed == mapped
    assert env.from_string("{{ t | both }}").render(t=tuple(values)) == str(
        [i18n.both(lang, v) for v in values]
    )


MACRO_PAGES = sorted(
    str(p.relative_to(ROOT / "templates"))
    for p in (ROOT / "templates").rglob("*.j2")
    if "macros(" in p.read_text()
)


# a row template of ``rows(…)`` in a page (``bot.views.rendered_rows``) renders one row, ``l``: what the page gives it
ROW_OF = {
    "chat/liuyao_conclusion.txt.j2": lambda context: {k: context["verdict"][k] for k in ("direction", "use")},
}


def imported(source: str) -> str:
    """A template's source with ``{% set m = macros(name) %}`` written as the import it stands for."""
    import re

    return re.sub(r'\{% set (\w+) = macros\("([^"]+)"\) %\}', r'{% import "\2" as \1 %}', source)


async def test_macros_give_the_page_the_import_gives(ctx):
    """Every template that takes its macros with ``macros(name)`` renders, for real replies in each language
    and channel (and the CLI's environment), what it renders with ``{% import name as m %}`` instead."""
    from bot.cli import shensha as cli_shensha
    from bot.commands import Incoming, dispatch
    from bot.views import channel_environment, extras_of
    from engine.core.cycle import Branch, GanZhi
    from engine.shensha import evaluate

    assert {"console/liuyao_brief.txt.j2", "console/liuyao_stars.txt.j2", "shensha/stars.txt.j2"} <= set(
        MACRO_PAGES
    )
    replies = {}
    for text in ("/liuyao 789678", "/liuyao 987696 官鬼", "/shensha 甲子 寅 午時"):
        for hint in ("ko", "zh-hant"):
            reply = await dispatch(Incoming("telegram", "1", "1", text, lang_hint=hint), ctx)
            replies.setdefault(reply.view, []).append(reply)
    for page in MACRO_PAGES:
        if "liuyao" not in page and "shensha" not in page:
            continue  # a page of another view using these macros (the daily reading's): its own tests render it
        view = "liuyao" if "liuyao" in page else "shensha"
        for reply in replies[view]:
            envs = [channel_environment(reply.lang, c) for c in ("telegram", "discord", "console")]
            if page.startswith("shensha/"):  # a page of the CLI too
                envs.append(environment(reply.lang))
            for env in envs:
                source = env.loader.get_source(env, page)[0]
                context = {**reply.context, **extras_of(view)(reply.lang, reply.context)}
                context.update(view=view, channel="console", page=None, nature="吉")
                if page.startswith("shensha/"):  # the CLI's page of the stars: the CLI's context
                    context = cli_shensha.view(evaluate(GanZhi.parse("甲子"), month=Branch.YIN), reply.lang)
                if page in ROW_OF:
                    context["l"] = ROW_OF[page](context)
                with i18n.one_reply():
                    ours = env.from_string(source).render(**context)
                with i18n.one_reply():
                    theirs = env.from_string(imported(source)).render(**context)
                assert ours == theirs and ours.strip(), (page, reply.lang)


def test_a_templates_globals_are_what_jinjas_chainmap_gives():
    """The environments keep a template's globals in a plain dict: the same names and values as Jinja's
    ``ChainMap(template's own, environment's)``, the template's own first."""
    from collections import ChainMap

    env = environment("ko")
    own = {"x": 1, "lang": "over"}
    template = env.from_string("{{ lang }} {{ x }} {{ _('bot.cast.title') }}", globals=dict(own))
    assert type(template.globals) is dict and template.globals == dict(ChainMap(own, env.globals))
    assert template.render() == f"over 1 {i18n.gettext('ko', 'bot.cast.title')}"
    plain = env.from_string("{{ lang }}")
    assert plain.globals == dict(env.globals) and plain.render() == "ko"
