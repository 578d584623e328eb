"""End to end: the Telegram adapter (python-telegram-bot's bot and request layer, our own polling) started by ``sikpan run`` (in-process and as a
subprocess) against the fake Bot API server."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from pathlib import Path

import pytest

import bot.presentation as presentation
import bot.telegram as tgmod
from bot.commands import error_reply
from bot.i18n import gettext
from bot.telegram import command_menu, file_url_for
from tests.adapters.conftest import day_pillars_now, running, tg_settings
from tests.fakes.telegram import visible_text

ROOT = Path(__file__).resolve().parents[2]


def _text(calls) -> str:
    """The visible text of a reply (all its parts)."""
    return "\n".join(c.shown for c in calls)


async def _ask(tg, run, text, chat_id, timeout=10.0, **kw):
    """Send a command as a user and return every message of the bot's answer (all parts)."""
    before = len(tg.sent_to(chat_id))
    update = tg.user_says(text, chat_id=chat_id, **kw)
    await run.telegram.wait_handled(update["update_id"], timeout)
    return tg.sent_to(chat_id)[before:]


async def test_start_cast_shensha_and_bad_input_in_ko_and_lzh(tg, tmp_path):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        # the command menu was registered on start, in both languages
        assert tg.commands and any(lang == "ko" for (_, lang) in tg.commands)
        names = {c["command"] for cmds in tg.commands.values() for c in cmds}
        assert {"start", "cast", "shensha", "history"} <= names

        start = await _ask(tg, run, "/start", 11, language_code="ko")
        assert all(c.params["parse_mode"] == "HTML" for c in start)
        assert any("\uac00" <= ch <= "\ud7a3" for ch in _text(start))  # Korean

        cast = await _ask(tg, run, "/cast now", 11, language_code="ko")
        assert day_pillars_now("Asia/Seoul") & set(_ganzhi_pairs(_text(cast)))

        sha = await _ask(tg, run, "/shensha 甲子", 11, language_code="ko")
        assert "天乙貴人" in _text(sha)

        bad = await _ask(tg, run, "/cast 甲乙", 11, language_code="ko")
        assert _text(bad).splitlines()[0] == "⚠ " + gettext("ko", "error.not_a_ganzhi", value="甲乙")
        assert "/help cast" in _text(bad).splitlines()[1]  # engine errors point to the usage

        # a Chinese-speaking user with no setting gets Classical Chinese from language_code
        bad_lzh = await _ask(tg, run, "/cast 甲乙", 12, language_code="zh-hant")
        assert _text(bad_lzh).splitlines()[0] == "⚠ " + gettext("lzh", "error.not_a_ganzhi", value="甲乙")
        unknown = await _ask(tg, run, "/nosuch", 12, language_code="zh-hant")
        assert _text(unknown) == "⚠ " + gettext("lzh", "bot.error.unknown_command", name="nosuch")
        cast_lzh = await _ask(tg, run, "/cast now", 12, language_code="zh-hant")
        assert day_pillars_now("Asia/Seoul") & set(_ganzhi_pairs(_text(cast_lzh)))
        assert not any("\uac00" <= ch <= "\ud7a3" for ch in _text(cast_lzh))

        # the user's own setting wins over the platform hint
        await _ask(tg, run, "/lang lzh", 11, language_code="ko")
        after = await _ask(tg, run, "/cast 甲乙", 11, language_code="ko")
        assert _text(after).splitlines()[0] == "⚠ " + gettext("lzh", "error.not_a_ganzhi", value="甲乙")

        # every message the bot sent was valid Telegram HTML (the fake would have refused it)
        assert all(c.status == 200 for c in tg.calls if c.method == "sendMessage")


def _ganzhi_pairs(text: str) -> list[str]:
    from tests.adapters.conftest import BRANCHES, STEMS

    return [text[i : i + 2] for i in range(len(text) - 1) if text[i] in STEMS and text[i + 1] in BRANCHES]


async def test_group_commands_with_and_without_the_bot_name(tg, tmp_path):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        group = -1002003004005
        mine = await _ask(tg, run, "/shensha@sikpan_bot 甲子", group, chat_type="supergroup", user_id=31)
        assert "天乙貴人" in _text(mine)
        assert mine[0].params.get("reply_parameters") or mine[0].params.get("reply_to_message_id")
        tg.user_says("/cast@other_bot now", chat_id=group, chat_type="supergroup", user_id=31)
        tg.user_says("/other_bots_command", chat_id=group, chat_type="supergroup", user_id=31)
        tg.user_says("hello everyone", chat_id=group, chat_type="supergroup", user_id=31)
        help_ = await _ask(tg, run, "/help", group, chat_type="supergroup", user_id=31)
        # the three messages for others were ignored: only the /help answer came after /shensha
        assert tg.sent_to(group) == mine + help_
        assert _text(help_)


async def test_429_is_waited_out_and_the_reply_arrives_once(tg, tmp_path):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        tg.rate_limit(1, chat_id=21)
        await _ask(tg, run, "/shensha 甲子", 21)
        attempts = [c for c in tg.calls if c.method == "sendMessage" and c.params.get("chat_id") == 21]
        assert [c.status for c in attempts] == [429, 200]
        assert attempts[1].at - attempts[0].at >= 1.0
        await asyncio.sleep(0.3)
        assert len(tg.sent_to(21)) == 1


async def test_403_blocked_user_reported_not_retried_and_the_bot_keeps_going(tg, tmp_path):
    reports: list[tuple[str, str, str]] = []
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        run.ctx.on_blocked.append(lambda *a: reports.append(a))
        tg.block(41)
        update = tg.user_says("/start", chat_id=41)
        outcome = await run.telegram.wait_handled(update["update_id"])
        assert outcome is not None and not outcome.ok and outcome.error == "forbidden"
        assert reports == [("telegram", "41", "Forbidden: bot was blocked by the user")]
        assert await _ask(tg, run, "/start", 42)  # others are still served
        attempts = [c for c in tg.calls if c.method == "sendMessage" and c.params.get("chat_id") == 41]
        assert [c.status for c in attempts] == [403]  # not retried


async def test_a_rendering_bug_reaches_the_error_handler_which_logs_and_answers(
    tg, tmp_path, monkeypatch, caplog
):
    real_render = presentation.render

    def broken_render(reply, channel, page=None):
        if reply.view == "shensha":
            raise RuntimeError("template bug")
        return real_render(reply, channel, page=page)

    monkeypatch.setattr(presentation, "render", broken_render)
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg):
        update = tg.user_says("/shensha 甲子", chat_id=57)
        for _ in range(500):
            if tg.sent_to(57):
                break
            await asyncio.sleep(0.01)
    [answer] = tg.sent_to(57)
    assert answer.params["text"] == real_render(error_reply("bot.error.internal", "ko"), "telegram")
    assert "template bug" in caplog.text and f"update {update['update_id']} in chat 57" in caplog.text


async def test_a_reply_longer_than_4096_is_split_into_valid_html_parts(tg, tmp_path, monkeypatch):
    real_render = presentation.render

    def long_render(reply, channel, page=None):  # the real 神煞 rendering (a page), eight times over
        one = real_render(reply, channel, page=page)
        return "\n".join([one] * 8) if reply.view == "shensha" else one

    monkeypatch.setattr(presentation, "render", long_render)
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        parts = await _ask(tg, run, "/shensha 甲子 寅", 51)
        assert len(parts) >= 2
        for call in parts:
            shown = visible_text(call.params["text"], "HTML")  # valid HTML on its own
            assert 0 < len(shown) <= 4096
        whole = _text(parts)
        assert len(whole) > 4096
        assert whole.count("天乙貴人") == 8


async def test_restart_on_the_same_database_keeps_history(tg, tmp_path):
    db = str(tmp_path / "db.sqlite")
    async with running(tg_settings(tg, db), ready=tg) as run:
        await _ask(tg, run, "/cast 2026-11-29 23:10", 61)
    async with running(tg_settings(tg, db), ready=tg) as run:
        history = await _ask(tg, run, "/history", 61)
        assert "/cast 2026-11-29 23:10" in _text(history)
        shown = await _ask(tg, run, "/show 1", 61)
        assert _ganzhi_pairs(_text(shown))


async def test_tokens_never_reach_the_logs(tg, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        await _ask(tg, run, "/start", 71)
        tg.rate_limit(0, chat_id=72)
        tg.block(73)
        tg.user_says("/start", chat_id=73)
        await _ask(tg, run, "/start", 72)
    secret = tg.token.split(":", 1)[1]
    assert caplog.records
    assert secret not in caplog.text
    for record in caplog.records:
        assert secret not in record.getMessage()


def test_factory_starts_nothing_and_derives_the_file_url():
    assert file_url_for("http://127.0.0.1:8081/bot") == "http://127.0.0.1:8081/file/bot"
    assert file_url_for("https://api.telegram.org/bot") == "https://api.telegram.org/file/bot"
    menu = command_menu("ko")
    assert all(1 <= len(c.description) <= 256 and c.command.isascii() for c in menu)


async def test_the_application_is_built_with_ptb_handlers_on_the_aiohttp_request_and_starts_nothing(tmp_path):
    from telegram.ext import (
        CallbackQueryHandler,
        ChatMemberHandler,
        ChosenInlineResultHandler,
        CommandHandler,
        InlineQueryHandler,
        MessageHandler,
    )

    from bot.app import create_context
    from bot.config import Settings
    from bot.telegram.aiohttprequest import AiohttpRequest

    ctx = await create_context(Settings(db_path=str(tmp_path / "x.db")))
    try:
        app = tgmod.build_application(
            ctx, "7000000001:AAtest-token-not-a-real-one-0000000", "http://127.0.0.1:9/bot"
        )
    finally:
        await ctx.close()
    requests = app.bot.polling.requests
    assert all(isinstance(r, AiohttpRequest) for r in requests) and requests[0] is not requests[1]
    assert app.bot.request is requests[0] and not app.running and app.updater is not None
    kinds = [type(h) for h in app.handlers[0]]
    assert kinds == [CommandHandler, MessageHandler, CallbackQueryHandler, MessageHandler, ChatMemberHandler,
                     InlineQueryHandler, ChosenInlineResultHandler]  # fmt: skip
    commands = app.handlers[0][0]
    assert {"cast", "shensha", "help"} <= commands.commands and "점" not in commands.commands
    assert app.error_handlers
    await app.bot.polling.requests[1].shutdown()
    await app.bot.request.shutdown()


async def test_sikpan_run_subprocess_answers_and_stops_on_sigterm(tg, tmp_path):
    env = {
        **os.environ,
        "TELEGRAM_BOT_TOKEN": tg.token,
        "TELEGRAM_API_BASE_URL": tg.base_url,
        "SIKPAN_DB": str(tmp_path / "db.sqlite"),
        "SIKPAN_LANG": "ko",
        "SIKPAN_TZ": "Asia/Seoul",
        "SIKPAN_ENV_FILE": str(tmp_path / "none.env"),
    }
    env.pop("DISCORD_BOT_TOKEN", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot.cli",
        "run",
        "--log-level",
        "DEBUG",
        cwd=str(ROOT),
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        await tg.wait_for("getUpdates", timeout=30)
        tg.user_says("/cast now", chat_id=91)
        tg.user_says("/shensha 甲子", chat_id=92)
        await tg.wait_sent(91, 1, timeout=20)
        await tg.wait_sent(92, 1, timeout=20)
        await asyncio.sleep(1.5)  # let every part arrive
        assert day_pillars_now("Asia/Seoul") & set(_ganzhi_pairs(_text(tg.sent_to(91))))
        assert "天乙貴人" in _text(tg.sent_to(92))
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert tg.token.split(":", 1)[1] not in err.decode() + out.decode()


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_menu_descriptions_come_from_the_catalogs(lang):
    menu = {c.command: c.description for c in command_menu(lang)}
    assert menu["cast"] == gettext(lang, "bot.help.cast").split("\n", 1)[0].strip()[:256]


async def test_group_admin_status_comes_from_get_chat_member(tg, tmp_path):
    from telegram import Update

    from bot.app import create_context

    ctx = await create_context(tg_settings(tg, str(tmp_path / "db.sqlite")))
    app = tgmod.build_application(ctx, tg.token, tg.base_url)
    adapter = app.bot_data["adapter"]
    group = -100777
    tg.admins[group] = {5}
    tg.owners[group] = 6
    async with app:
        await tgmod.prepare(app)

        def update(user_id: int, text: str = "/daily 07:00") -> Update:
            data = tg.make_update(text, chat_id=group, chat_type="supergroup", user_id=user_id)
            return Update.de_json(data, app.bot)

        assert await adapter.is_admin(update(5)) is True
        assert await adapter.is_admin(update(6)) is True
        assert await adapter.is_admin(update(7)) is False
        incoming = await adapter.incoming(update(7), "/daily 07:00")
        assert incoming.chat_kind == "group" and incoming.user_is_admin is False
        # private chats never ask
        before = len([c for c in tg.calls if c.method == "getChatMember"])
        private = Update.de_json(tg.make_update("/daily 07:00", chat_id=8), app.bot)
        assert (await adapter.incoming(private, "/daily 07:00")).user_is_admin is True
        assert len([c for c in tg.calls if c.method == "getChatMember"]) == before
    await ctx.close()


async def test_command_lists_per_scope_and_language_and_the_menu_button(tg, tmp_path):
    """Issue #34 item 3: private chats list every command, groups leave out those answered only in private
    (/history, /settings …: refused there); each in the bot's language and in ko and zh (文言) for users whose
    app speaks them; the chat's menu button opens the command list."""
    from bot.commands import load_commands

    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg):
        for _ in range(100):
            if tg.menu_buttons:
                break
            await asyncio.sleep(0.05)

        def listed(scope: str, code: str = "") -> list[str]:
            key = (json.dumps({"type": scope}, sort_keys=True), code)
            return [c["command"] for c in tg.commands[key]]

        private_only = {name for name, spec in load_commands().items() if spec.private_only}
        assert {"history", "settings"} <= private_only
        for code in ("", "ko", "zh"):
            assert private_only <= set(listed("all_private_chats", code))
            assert not private_only & set(listed("all_group_chats", code))
            assert "cast" in listed("all_group_chats", code)
        ko = {
            c["command"]: c["description"]
            for c in tg.commands[(json.dumps({"type": "all_private_chats"}), "ko")]
        }
        zh = {
            c["command"]: c["description"]
            for c in tg.commands[(json.dumps({"type": "all_private_chats"}), "zh")]
        }
        assert ko["cast"] == gettext("ko", "bot.help.cast").split("\n", 1)[0].strip()
        assert zh["cast"] == gettext("lzh", "bot.help.cast").split("\n", 1)[0].strip()
        assert tg.menu_buttons[""] == {"type": "commands"}
