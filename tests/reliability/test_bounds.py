"""#12.12 bounded structures: history retention (SIKPAN_HISTORY_LIMIT, default keep all), Discord's
``client.handled`` kept to its latest outcomes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.config import ConfigError, load_settings


async def _casts(say, n: int) -> list[int]:
    numbers = []
    for day in range(1, n + 1):
        answer = await say(f"/cast 2026-11-{day:02d} 10:00", user="h1")
        assert answer.view == "cast"
        numbers.append(answer.context["no"])
    return numbers


async def test_history_is_kept_whole_by_default(say, ctx):
    assert ctx.settings.history_limit is None
    assert await _casts(say, 6) == [1, 2, 3, 4, 5, 6]
    assert await ctx.storage.count_history("console:h1") == 6


async def test_history_limit_keeps_the_newest_casts_and_never_reuses_numbers(say, ctx):
    ctx.settings = replace(ctx.settings, history_limit=3)
    assert await _casts(say, 5) == [1, 2, 3, 4, 5]
    assert await ctx.storage.count_history("console:h1") == 3
    assert [e.seq for e in await ctx.storage.list_history("console:h1")] == [5, 4, 3]
    gone = await say("/show 1", user="h1")
    assert gone.view == "error" and gone.context["code"] == "bot.error.no_such_entry"
    assert (await say("/show 3", user="h1")).view == "cast"
    assert (await _casts(say, 1)) == [6]  # the next number continues


@pytest.mark.parametrize(("raw", "expected"), [("0", None), ("", None), ("250", 250)])
def test_sikpan_history_limit_setting(raw, expected):
    assert load_settings({"SIKPAN_HISTORY_LIMIT": raw}, env_file="/nonexistent").history_limit == expected


@pytest.mark.parametrize("raw", ["-1", "ten", "1e9", "9" * 5000])
def test_a_bad_sikpan_history_limit_is_a_config_error(raw):
    with pytest.raises(ConfigError) as info:
        load_settings({"SIKPAN_HISTORY_LIMIT": raw}, env_file="/nonexistent")
    assert info.value.code == "bot.error.config_history_limit"
    assert len(str(info.value.params["value"])) <= 64


def test_discord_handled_is_bounded(ctx):
    import bot.discord as dmod
    from bot.discord.sender import DiscordSender
    from bot.sending import SendOutcome

    client = dmod.SikpanClient(ctx, sender=DiscordSender())
    for i in range(5 * dmod.HANDLED_KEPT):
        client.handled.append(SendOutcome(True, 1, (i,)))
    assert len(client.handled) == dmod.HANDLED_KEPT
    assert client.handled[-1].message_ids == (5 * dmod.HANDLED_KEPT - 1,)
