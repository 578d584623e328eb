"""Settings as choices on Telegram (issue #13 item 5), with the real python-telegram-bot against the fake Bot
API: ``/settings`` shows the groups of the settings model as buttons; a group its options, an option its
allowed values with the current one and the default; a value button sets it, edits the message in place and
is answered (``answerCallbackQuery``); the buttons name the owner and the ``/settings`` line (≤ 64 bytes), so
they work after a restart; someone else's press changes nothing; 晝夜 by sunrise without a place is refused
through a button too, in chat words. Defaults and allowed values are the engines' own (``engine.liuren``'s
``Options``: 晝夜 卯申 by default, spec/liuren.md §3)."""

from __future__ import annotations

import pytest

from bot.commands import setting_buttons
from bot.features import options as _options
from bot.i18n import gettext
from bot.seal import unsealed
from tests.adapters.conftest import running, tg_settings
from tests.chat.test_telegram_pages import _ask, _buttons, _press
from tests.fakes.telegram import visible_text


def _by_target(buttons, target, value=None):
    return next(
        b
        for b in buttons
        if (ref := setting_buttons.decode(unsealed(b["callback_data"])))
        and ref.target == target
        and ref.value == value
    )


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_choose_group_option_value_in_place_and_after_restart(tg, tmp_path, lang):
    db, chat = str(tmp_path / "db.sqlite"), 51
    async with running(tg_settings(tg, db, lang=lang), ready=tg) as run:
        [first] = await _ask(tg, run, "/settings", chat, language_code=lang)
        buttons = _buttons(first)
        assert {setting_buttons.decode(unsealed(b["callback_data"])).target for b in buttons} == set(
            _options.GROUPS
        )
        assert all(len(b["callback_data"].encode()) <= 64 for b in buttons)
        assert gettext(lang, "chat.settings.all_default") in first.result["text"]

        _, edit = await _press(tg, run, _by_target(buttons, "liuren"), first.result, chat, language_code=lang)
        assert edit is not None and edit.params["message_id"] == first.result["message_id"]
        group = visible_text(edit.params["text"], "HTML")
        # the engine's values, by their names (issue 32 item 6): 묘~신시 주, not maoshen; on the group page
        # the current one alone, marked as the default (the others are on the option's page)
        names = [gettext(lang, f"liuren.optval.{v}") for v in ("maoshen", "sishu", "ziwu", "sun")]
        default = gettext(lang, "chat.settings.default")
        row = f"{gettext(lang, 'liuren.opt.daynight')}: {names[0]} · {default}"
        assert row in group.replace("：", ": ").splitlines() and "maoshen" not in group
        assert not any(name in group for name in names[1:])

        _, edit = await _press(tg, run, _by_target(_buttons(edit), "liuren.daynight"), first.result, chat)
        values = _buttons(edit)
        assert {setting_buttons.decode(unsealed(b["callback_data"])).value for b in values} >= {
            "maoshen", "sishu", "ziwu", "sun",
        }  # fmt: skip
        current = _by_target(values, "liuren.daynight", "maoshen")
        assert current["text"].startswith("• ")  # the default is the current value of a new user
        option_text = visible_text(edit.params["text"], "HTML")
        assert gettext(lang, "chat.settings.default") in option_text

        answer, edit = await _press(
            tg, run, _by_target(values, "liuren.daynight", "sishu"), first.result, chat, language_code=lang
        )
        assert not answer.params.get("show_alert")
        assert gettext(lang, "bot.settings.changed") in edit.params["text"]
        changed = visible_text(edit.params["text"], "HTML")
        assert f"{gettext(lang, 'liuren.opt.daynight')}: {gettext(lang, 'liuren.optval.sishu')}" in (
            changed.replace("：", ": ")
        )
        user = await run.ctx.storage.get_user(f"telegram:{chat}")
        assert user.options["liuren.daynight"] == "sishu"
        ziwu = _by_target(values, "liuren.daynight", "ziwu")
    # a restart: the old message's buttons name the owner and the line, not process memory
    async with running(tg_settings(tg, db, lang=lang), ready=tg) as run:
        _, edit = await _press(tg, run, ziwu, first.result, chat, language_code=lang)
        assert edit is not None
        assert (await run.ctx.storage.get_user(f"telegram:{chat}")).options["liuren.daynight"] == "ziwu"


async def test_sunrise_without_a_place_is_refused_through_a_button(tg, tmp_path):
    chat = 52
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        [first] = await _ask(tg, run, "/settings liuren.daynight", chat)
        sun = _by_target(_buttons(first), "liuren.daynight", "sun")
        answer, edit = await _press(tg, run, sun, first.result, chat)
        assert edit is None and answer.params["show_alert"] is True
        assert gettext("ko", "chat.error.sun_needs_place") in answer.params["text"]
        assert "--" not in answer.params["text"]  # no CLI flag
        user = await run.ctx.storage.get_user(f"telegram:{chat}")
        assert "liuren.daynight" not in user.options
        await _ask(tg, run, "/place 서울", chat)
        answer, edit = await _press(tg, run, sun, first.result, chat)
        assert edit is not None and not answer.params.get("show_alert")
        assert (await run.ctx.storage.get_user(f"telegram:{chat}")).options["liuren.daynight"] == "sun"


async def test_another_users_press_changes_nothing_and_groups_are_answered_privately(tg, tmp_path):
    owner, other, group = 61, 62, -100555
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        [first] = await _ask(tg, run, "/settings day_starts", owner)
        midnight = _by_target(_buttons(first), "day_starts", "00:00")
        # the button reaches someone else (a forwarded message): their press is refused, in their language
        answer, edit = await _press(
            tg, run, midnight, first.result, owner, user_id=other, language_code="lzh"
        )
        assert edit is None and answer.params["text"] == gettext("lzh", "chat.settings.not_yours")
        for key in (f"telegram:{owner}", f"telegram:{other}"):
            user = await run.ctx.storage.get_user(key)
            assert user is None or "day_starts" not in user.options
        # in a group /settings is not shown (the caller's own data), and no buttons are offered
        update = tg.user_says("/settings", chat_id=group, user_id=owner, chat_type="supergroup")
        await run.telegram.wait_handled(update["update_id"], 20)
        [refused] = tg.sent_to(group)
        assert refused.result["text"] == "⚠ " + gettext("ko", "bot.error.private_only", name="settings")
        assert not _buttons(refused)
        # the owner's own button (sealed for their private chat) pressed in a group: its seal does not hold
        # there (bot.seal), nothing changes, and the press is answered
        answer, edit = await _press(
            tg, run, midnight, {"message_id": 9, "text": "x"}, group, user_id=owner, chat_type="supergroup"
        )
        assert edit is None and answer.params["text"] == gettext("ko", "chat.settings.not_yours")
        # an old button (unsealed, naming its owner) pressed by the owner in a group: the typed line's refusal
        answer, edit = await _press(
            tg,
            run,
            {"callback_data": f"s:{owner}:day_starts=00:00"},
            {"message_id": 9, "text": "x"},
            group,
            user_id=owner,
            chat_type="supergroup",
        )
        assert (
            edit is None and gettext("ko", "bot.error.private_only", name="settings") in answer.params["text"]
        )
        assert "day_starts" not in (await run.ctx.storage.get_user(f"telegram:{owner}")).options
