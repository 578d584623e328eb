"""The /settings pages fit a phone and answer first (a user on a phone: a long label shown three times on one
line, forty such lines). Every expected text is built from the settings model and the catalogs, never copied
from a page:

- the overview (``/settings``): the personal lines, then per group the line that opens it (``/settings 육효``)
  and only the settings changed from their defaults, or ``chat.settings.all_default``;
- a group page: one line per setting, ``label: value``, marked when it is the default; no other value named;
- an option page: each value once, by the word typed for it (``typed_value``) and its name, the default
  marked, and the line that changes it (typed back, it does).

WIDTH is the phone's line: 48 display columns, a Hangul syllable, a Chinese character or a full-width sign
counting two (Unicode East Asian Width W/F) — about 24 Hangul syllables, what a chat bubble of a 360–390 pt
wide phone shows on one line at the default text size. Each page is measured on every channel as the reader
sees it (Telegram's HTML parsed, Discord's markdown marks dropped)."""

from __future__ import annotations

import re
import unicodedata

import pytest

from bot.features import options as model
from bot.i18n import LANGS, gettext
from bot.views import render
from tests.fakes.telegram import visible_text

WIDTH = 48
CHANNELS = ("console", "telegram", "discord")
COLON = {"ko": ": ", "lzh": "："}  # each language's colon after a label (文言 the full-width one)


def width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def shown(reply, channel: str) -> list[str]:
    """The page's lines as its reader sees them."""
    text = render(reply, channel)
    if channel == "telegram":
        text = visible_text(text, "HTML")
    elif channel == "discord":
        text = re.sub(r"\\(.)", r"\1", text.replace("**", "").replace("`", ""))
    return text.splitlines()


def label(lang: str, s: model.Setting) -> str:
    return gettext(lang, s.label) if s.label else s.key


def value_name(lang: str, s: model.Setting, value: str) -> str:
    names = s.shown_labels()
    return gettext(lang, names[value]) if value in names else value


def marked(lang: str, text: str, is_default: bool) -> str:
    return f"{text} · {gettext(lang, 'chat.settings.default')}" if is_default else text


@pytest.mark.parametrize("lang", LANGS)
async def test_a_group_page_is_one_short_line_per_setting(say, lang):
    for group in model.GROUPS:
        reply = await say(f"/settings {group}", lang_hint=lang)
        for channel in CHANNELS:
            lines = shown(reply, channel)
            assert all(width(line) <= WIDTH for line in lines), (channel, max(lines, key=width))
            for s in (s for s in model.model() if s.group == group):
                head = label(lang, s) + COLON[lang]
                [row] = [line for line in lines if line.startswith(head)]
                current = value_name(lang, s, s.default)  # a new user's values are the defaults
                assert row == head + marked(lang, current, True), (channel, row)
                # the label once (a label of one character, 宮 or 수, is part of its values' names: 分至宮)
                assert len(label(lang, s)) == 1 or label(lang, s) not in row[len(head) :], row
                for other in s.choices:  # no list of the other values
                    name = value_name(lang, s, other)
                    assert other == s.default or name not in row or name in head + current, (row, name)


@pytest.mark.parametrize("lang", LANGS)
async def test_the_overview_shows_what_differs_and_how_to_open_each_group(say, lang):
    moved = model.setting("liuyao.middle_source")
    await say(f"/settings {moved.key} day_month", lang_hint=lang)
    reply = await say("/settings", lang_hint=lang)
    groups = {g for g in model.GROUPS if g != moved.group}
    for channel in CHANNELS:
        lines = shown(reply, channel)
        assert all(width(line) <= WIDTH for line in lines), (channel, max(lines, key=width))
        assert label(lang, moved) + COLON[lang] + value_name(lang, moved, "day_month") in lines
        for s in model.model():  # the unchanged settings are not listed
            if s is not moved:
                assert not any(line.startswith(label(lang, s) + COLON[lang]) for line in lines), (
                    channel,
                    s.key,
                )
        assert lines.count(gettext(lang, "chat.settings.all_default")) == len(groups)
        for g in model.GROUPS:
            opener = f"/settings {model.typed_group(g, lang)}"
            assert any(line.endswith(opener) for line in lines), (channel, opener)
        assert f"{gettext(lang, 'chat.settings.reset')}{COLON[lang]}/settings reset" in lines


@pytest.mark.parametrize("lang", LANGS)
async def test_each_group_opener_opens_its_group(say, lang):
    for g in model.GROUPS:
        reply = await say(f"/settings {model.typed_group(g, lang)}", lang_hint=lang)
        assert reply.view == "settings" and reply.context["group"] == g and not reply.context["option"]


@pytest.mark.parametrize("lang", LANGS)
async def test_an_option_page_names_each_value_once_by_its_typed_word(say, ctx, lang):
    await say("/place 서울", lang_hint=lang)  # true solar time (and 晝夜 by sunrise) need a place
    for s in (s for s in model.model() if s.choices):
        reply = await say(f"/settings {s.key}", lang_hint=lang)
        for channel in CHANNELS:
            lines = shown(reply, channel)
            assert all(width(line) <= WIDTH for line in lines), (channel, max(lines, key=width))
            for v in s.choices:
                row = model.typed_value(s, v, lang) + COLON[lang] + value_name(lang, s, v)
                assert lines.count(marked(lang, row, v == s.default)) == 1, (channel, s.key, v)
            [change] = [
                ln for ln in lines if ln.startswith(gettext(lang, "chat.settings.change") + COLON[lang])
            ]
        other = next(v for v in s.choices if v != s.default)
        assert change.endswith(f"/settings {model.typed_option(s, lang)} {model.typed_value(s, other, lang)}")
        done = await say(change.split(COLON[lang], 1)[1], lang_hint=lang)
        assert done.context["changed_key"] == s.key, change
        assert (await ctx.storage.get_user("console:u1")).options[s.key] == other
