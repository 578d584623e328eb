"""The one settings model behind /settings and its buttons (issue #13 item 5): defaults and allowed values
are the engines' own (spec/liuren.md §3: 晝夜 卯申 by default; spec/liuyao.md: 土長生 申, or 寅), every
button fits Telegram's 64 bytes, and a new option shows up as text and buttons without new code."""

from __future__ import annotations

import pytest

from bot.commands import setting_buttons
from bot.features import options as _options
from bot.i18n import gettext
from bot.views import render

DISCORD_SNOWFLAKE = "1" * 19  # the longest owner id a button names


def _targets(reply) -> set[tuple[str, str | None]]:
    return {
        (ref.target, ref.value)
        for row in setting_buttons.buttons(reply, "7")
        for b in row
        if (ref := setting_buttons.decode(b.data))
    }


def test_defaults_and_values_are_the_engines():
    daynight = _options.setting("liuren.daynight")
    assert daynight.default == "maoshen" and set(daynight.choices) == {"maoshen", "sishu", "ziwu", "sun"}
    earth = _options.setting("liuyao.earth_changsheng")
    assert earth.default == "申" and set(earth.choices) == {"申", "寅"}  # what the engine accepts, no more
    assert _options.setting("진태양시").key == "solar_time"  # a typed alias


def test_every_button_of_the_model_fits_64_bytes():
    for option in _options.model():
        for value in option.choices:
            data = setting_buttons.SettingRef(DISCORD_SNOWFLAKE, option.key, value).encode()
            assert data is not None and len(data.encode()) <= 64, (option.key, value)
            assert setting_buttons.decode(data).command_line() == f"/settings {option.key} {value}"
    assert setting_buttons.decode("s:7:liuren.daynight=noon") is None  # not a value of the option
    assert setting_buttons.decode("s:7:reset") is None  # a button never resets everything
    assert setting_buttons.decode("p:7:1:read") is None  # a page button is not ours


@pytest.fixture
def daily_picture(monkeypatch):
    """Another area adds a per-user on/off option: one entry of ``BOT_OPTIONS``, nothing else."""
    monkeypatch.setitem(_options.BOT_OPTIONS, "daily_picture", ("off", "on"))
    monkeypatch.setattr(_options, "_MODEL", [])
    yield
    _options._MODEL.clear()


@pytest.mark.usefixtures("daily_picture")
async def test_a_new_option_shows_up_without_new_code(say, ctx):
    group = await say("/settings bot")
    assert ("daily_picture", None) in _targets(group)
    off, on = gettext("ko", "chat.settings.off"), gettext("ko", "chat.settings.on")
    line = f"{gettext('ko', 'bot.opt.daily_picture')}: {off} · {gettext('ko', 'chat.settings.default')}"
    assert line in render(group, "console").splitlines()  # its value, not the list of values
    assert f"{on}: {on}" in render(await say("/settings daily_picture"), "console").splitlines()
    option = await say("/settings daily_picture")
    assert {("daily_picture", "on"), ("daily_picture", "off")} <= _targets(option)
    assert (await say("/settings daily_picture on")).view == "settings"
    assert (await ctx.storage.get_user("console:u1")).options["daily_picture"] == "on"
    bad = await say("/settings daily_picture maybe")
    assert bad.view == "error"
