"""Issue 32 item 6: settings in words. Every option and every value is shown by its name in ko and lzh (the
names the 法 page uses: 《육임대전》, 묘~신시 주 …), never by its code (mzj, depth_noseat, maoshen, cunyan,
delta_ori, qizhengsuan, liuren.gui_rule); buttons are labelled so; an option, a value or a group is found by
its Korean or Hanja name (/settings 섭해, /settings 涉害 孟仲季)."""

from __future__ import annotations

import re

import pytest

from bot.commands import setting_buttons
from bot.features import options as model
from bot.i18n import LANGS, catalog, gettext
from bot.presentation import present
from bot.views import render

CODES = ("mzj", "depth_noseat", "maoshen", "cunyan", "delta_ori", "qizhengsuan", "liuren.gui_rule", "sanming")


def test_every_option_and_value_has_a_name_in_both_languages():
    for s in model.model():
        assert s.label is not None, s.key
        labels = dict(s.value_labels)
        for v in s.choices:
            assert v in labels, (s.key, v)
            for lang in LANGS:
                assert labels[v] in catalog(lang) and catalog(lang)[labels[v]], (lang, s.key, v)


def test_the_names_are_the_fa_pages_names():
    """The 法 page (footer of a cast) reads liuren.optval.*: the settings show the same names."""
    labels = dict(model.setting("liuren.gui_rule").value_labels)
    assert gettext("ko", labels["liuren"]) == "《육임대전》"
    assert gettext("ko", dict(model.setting("liuren.daynight").value_labels)["maoshen"]) == "묘~신시 주"


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize(
    "line", ["/settings", "/settings liuren", "/settings qizheng", "/settings liuren.shehai"]
)
async def test_settings_show_names_not_codes(say, lang, line):
    r = await say(line, lang_hint=lang)
    for channel in ("console", "telegram", "discord"):
        text = render(r, channel)
        for code in CODES:
            assert not re.search(rf"(?<![\w.]){re.escape(code)}(?![\w])", text), (channel, code, text)
        shown = present(r, channel, "u1")
        for row in shown.buttons:
            for b in row:
                assert not any(code in b.label for code in CODES), b.label


@pytest.mark.parametrize(
    ("lang", "word", "key"),
    [
        ("ko", "섭해", "liuren.shehai"), ("ko", "涉害", "liuren.shehai"), ("lzh", "涉害", "liuren.shehai"),
        ("ko", "섭해계산", "liuren.shehai"), ("ko", "귀인표", "liuren.gui_rule"), ("lzh", "晝夜", "liuren.daynight"),
        ("ko", "맹중계", "liuren.shehai"), ("lzh", "孟仲季", "liuren.shehai"), ("ko", "진태양시", "solar_time"),
    ],
)  # fmt: skip
async def test_an_option_by_its_name(say, lang, word, key):
    r = await say(f"/settings {word}", lang_hint=lang)
    assert r.view == "settings" and r.context["option"] == key


async def test_a_group_by_its_name(say):
    assert (await say("/settings 대육임")).context["group"] == "liuren"
    assert (await say("/settings 七政四餘", lang_hint="lzh")).context["group"] == "qizheng"


@pytest.mark.parametrize(
    ("line", "key", "value"),
    [
        ("/settings 섭해 맹중계", "liuren.shehai", "mzj"), ("/settings 涉害 孟仲季", "liuren.shehai", "mzj"),
        ("/settings 섭해 심천자리제외", "liuren.shehai", "depth_noseat"),
        ("/settings 복음자묘 묘자묘", "liuren.fuyin_maozi", "cunyan"), ("/settings 伏吟子卯 卯子卯", "liuren.fuyin_maozi", "cunyan"),
        ("/settings 팔전우선 끔", "liuren.bazhuan_first", "off"), ("/settings 수 적도수도", "qizheng.mansions", "equatorial"),
        ("/settings liuren.shehai mzj", "liuren.shehai", "mzj"),  # the codes still work
    ],
)  # fmt: skip
async def test_set_by_names(say, ctx, line, key, value):
    r = await say(line)
    assert r.view == "settings" and r.context["changed_key"] == key, r.context
    assert (await ctx.storage.get_user("console:u1")).options[key] == value


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_the_typed_lines_shown_work(say, ctx, lang):
    """The option page shows each value as a line to type, by name; each one sets that value."""
    r = await say("/settings liuren.fuyin_maozi", lang_hint=lang)
    lines = re.findall(r"[:：] ?(/settings \S+ \S+)$", render(r, "console"), re.M)
    assert len(lines) == 2
    for line, want in zip(lines, ("daquan", "cunyan"), strict=True):
        done = await say(line, lang_hint=lang)
        assert done.context["changed_key"] == "liuren.fuyin_maozi", line
        assert (await ctx.storage.get_user("console:u1")).options["liuren.fuyin_maozi"] == want


async def test_a_name_several_options_fit_offers_them(say):
    r = await say("/settings 켬")
    assert r.view == "settings" and "solar_time" in r.context["matches"] and len(r.context["matches"]) > 1
    rows = setting_buttons.buttons(r, "u1")
    targets = {setting_buttons.decode(b.data).target for row in rows for b in row}
    assert set(r.context["matches"]) <= targets


async def test_an_unknown_name_is_refused(say):
    r = await say("/settings 어쩌구저쩌구")
    assert r.view == "error" and r.context["code"] == "bot.error.unknown_option"
