"""The Telegram webhook app (bot.web) against the fake Telegram, on SQLite and PostgreSQL: the secret, the
update handled before its 200, update ids deduplicated, /healthz and /metrics."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage.webhook import UpdateLedger
from tests.webhook.conftest import SECRET, free_port, webhook, webhook_settings


async def test_setwebhook_with_the_secret_and_allowed_updates_at_start(tg, target):
    async with webhook(webhook_settings(tg, target, free_port())):
        assert tg.webhook is not None
        assert tg.webhook["url"] == "https://bot.example.org/hook"
        assert tg.webhook["secret_token"] == SECRET
        assert tg.webhook["allowed_updates"] == [
            "message",
            "callback_query",
            "my_chat_member",
            "inline_query",
            "chosen_inline_result",
        ]
        assert not tg.webhook.get("drop_pending_updates")  # updates queued at Telegram are never dropped


@pytest.mark.parametrize("secret, status", [(None, 401), ("wrong", 403), ("", 403), (SECRET + "x", 403)])
async def test_a_missing_or_wrong_secret_is_refused_and_nothing_is_handled(tg, tmp_path, secret, status):
    db = str(tmp_path / "hook.db")
    async with webhook(webhook_settings(tg, db, free_port())) as hook:
        update = tg.make_update("/start", chat_id=81)
        response = await hook.post(update, secret=secret)
        assert response.status == status
        await asyncio.sleep(0.3)
        assert tg.sent_to(81) == []
        ledger = UpdateLedger(hook.ctx.storage, f"telegram:{tg.bot_id}")
        assert await ledger.state(update["update_id"]) is None  # not even claimed
        assert (
            await hook.ctx.storage.fetchone("SELECT COUNT(*) FROM users") == (0,)
            or (await hook.ctx.storage.fetchone("SELECT COUNT(*) FROM users"))[0] == 0
        )


async def test_the_update_is_handled_before_the_200(tg, target):
    async with webhook(webhook_settings(tg, target, free_port())) as hook:
        response = await hook.post(tg.make_update("/start", chat_id=82))
        assert response.status == 200
        # no waiting: by the time Telegram gets its 200, the reply is at Telegram
        [call] = tg.sent_to(82)
        assert call.params["chat_id"] == 82 and call.params["text"]


async def test_a_duplicate_update_id_is_handled_once(tg, target):
    async with webhook(webhook_settings(tg, target, free_port())) as hook:
        update = tg.make_update("/start", chat_id=83)
        first = await hook.post(update)
        again = await hook.post(update)
        assert (first.status, again.status) == (200, 200)  # Telegram must stop redelivering
        # five redeliveries at once: one handler, the others answered without handling
        burst = tg.make_update("/help", chat_id=84)
        answers = await asyncio.gather(*(hook.post(burst) for _ in range(5)))
        assert all(a.status in (200, 503) for a in answers)
        for _ in range(3):  # what got 503 is redelivered later, as Telegram does
            retry = [a for a in answers if a.status != 200]
            if not retry:
                break
            await asyncio.sleep(0.2)
            answers = await asyncio.gather(*(hook.post(burst) for _ in retry))
        assert all(a.status == 200 for a in answers)
        await asyncio.sleep(0.2)
        assert len(tg.sent_to(83)) == 1
        assert len(tg.sent_to(84)) == 1


async def test_malformed_bodies_are_400_and_not_claimed(tg, tmp_path):
    async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        for body in (b"{not json", b'{"no_update_id": 1}', b'{"update_id": "7"}', b"[]"):
            async with hook.http.post(hook.url, data=body, headers=headers) as r:
                assert r.status == 400, body
        row = await hook.ctx.storage.fetchone("SELECT COUNT(*) FROM webhook_updates")
        assert row[0] == 0


async def test_json_nested_100000_deep_is_400_without_a_traceback(tg, tmp_path, caplog):
    """Issue 36: the parser's recursion limit is a malformed body (400), not a 500 with a traceback."""
    async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        for body in (b"[" * 100_000 + b"]" * 100_000, b'{"update_id": 5, "message": ' + b"[" * 100_000):
            async with hook.http.post(hook.url, data=body, headers=headers) as r:
                assert r.status == 400
        assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
        assert (await hook.post(tg.make_update("/start", chat_id=87))).status == 200  # still serving
        assert len(tg.sent_to(87)) == 1


@pytest.mark.parametrize("update_id", [2**70, 2**63, -1])
async def test_an_update_id_out_of_range_is_200_and_dropped(tg, target, update_id):
    """Issue 36: 2**70 used to overflow SQLite's integer (503: Telegram would redeliver it forever)."""
    async with webhook(webhook_settings(tg, target, free_port())) as hook:
        update = tg.make_update("/start", chat_id=88)
        update["update_id"] = update_id
        assert (await hook.post(update)).status == 200
        await asyncio.sleep(0.2)
        assert tg.sent_to(88) == []  # dropped: nothing handled
        good = tg.make_update("/start", chat_id=88)
        good["update_id"] = 2**63 - 1  # the largest the ledger holds is still an update
        assert (await hook.post(good)).status == 200
        assert len(tg.sent_to(88)) == 1


async def test_metrics_count_the_commands_sends_and_updates(tg, tmp_path):
    async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
        from bot import metrics

        registry = metrics.enable()

        def value(name, **labels):
            got = registry.get_sample_value(name, labels)
            return got or 0.0

        before = {
            "start": value("sikpan_commands_total", command="start", outcome="ok"),
            "nope": value("sikpan_commands_total", command="unknown", outcome="error"),
            "sends": value("sikpan_sends_total", platform="telegram", outcome="ok"),
            "handled": value("sikpan_webhook_updates_total", result="handled"),
            "dup": value("sikpan_webhook_updates_total", result="duplicate"),
            "latency": value("sikpan_command_seconds_count", command="start"),
        }
        updates = [tg.make_update("/start", chat_id=90 + i) for i in range(3)]
        for update in updates:
            assert (await hook.post(update)).status == 200
        assert (await hook.post(updates[0])).status == 200  # a redelivery
        assert (await hook.post(tg.make_update("/nosuchcommand", chat_id=95))).status == 200
        async with hook.http.get(hook.monitor + "/metrics") as r:
            assert r.status == 200
            assert r.headers["Content-Type"].startswith("text/plain")
            text = await r.text()
        assert 'sikpan_commands_total{command="start",outcome="ok"}' in text
        assert "sikpan_command_seconds_bucket" in text
        assert value("sikpan_commands_total", command="start", outcome="ok") - before["start"] == 3
        assert value("sikpan_commands_total", command="unknown", outcome="error") - before["nope"] == 1
        assert value("sikpan_command_seconds_count", command="start") - before["latency"] == 3
        assert value("sikpan_sends_total", platform="telegram", outcome="ok") - before["sends"] == 4
        assert value("sikpan_webhook_updates_total", result="handled") - before["handled"] == 4
        assert value("sikpan_webhook_updates_total", result="duplicate") - before["dup"] == 1


async def test_a_telegram_429_is_counted(tg, tmp_path):
    async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
        from bot import metrics

        registry = metrics.enable()

        def value(name: str) -> float:
            return registry.get_sample_value(name, {"platform": "telegram"}) or 0.0

        before = value("sikpan_rate_limited_total"), value("sikpan_rate_limit_wait_seconds_sum")
        tg.rate_limit(1, chat_id=96)  # (PTB reads retry_after 0 as no RetryAfter at all)
        assert (await hook.post(tg.make_update("/start", chat_id=96))).status == 200
        # the 429's wait is the chat's: the reply waits in its queue, not in the webhook's request
        await tg.wait_sent(96, count=1, timeout=5.0)  # sent after the wait Telegram asked for
        assert len(tg.sent_to(96)) == 1
        assert value("sikpan_rate_limited_total") - before[0] == 1
        assert value("sikpan_rate_limit_wait_seconds_sum") - before[1] == 1.0  # its retry_after


async def test_with_redis_configured_update_ids_are_kept_in_redis(tg, tmp_path):
    from tests.servers import REDIS_URL, require_redis

    require_redis()
    settings = webhook_settings(tg, str(tmp_path / "hook.db"), free_port(), redis_url=REDIS_URL)
    async with webhook(settings) as hook:
        import random

        update = tg.make_update("/start", chat_id=97)
        update["update_id"] = random.randrange(10**9, 2**31)  # Redis outlives the test: a fresh id
        assert (await hook.post(update)).status == 200
        assert (await hook.post(update)).status == 200
        assert len(tg.sent_to(97)) == 1
        ledger = hook.ctx.webhook_state.ledger
        assert await ledger.state(update["update_id"]) == "done"
        row = await hook.ctx.storage.fetchone("SELECT COUNT(*) FROM webhook_updates")
        assert row[0] == 0  # the database saw none of it
        await ledger.client.delete(ledger.key(update["update_id"]))


async def test_an_update_that_cannot_be_read_or_handled_is_200_logged_and_done(tg, tmp_path, caplog):
    """An update ``Update.de_json`` refuses, or one it reads that the handlers then fail on (a message without
    its chat): Telegram would only send it again, so each is answered 200 and marked done (logged), and the
    next update is handled as usual."""
    async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
        unreadable = {"update_id": tg.make_update("x")["update_id"], "message": 5}
        chatless = tg.make_update("/shensha 甲子", chat_id=85)
        del chatless["message"]["chat"]
        for update in (unreadable, chatless):
            assert (await hook.post(update)).status == 200
        good = tg.make_update("/shensha 甲子", chat_id=86)
        assert (await hook.post(good)).status == 200
        assert len(tg.sent_to(86)) == 1  # handled before its 200
        for update in (unreadable, chatless):
            row = await hook.ctx.storage.fetchone(
                "SELECT COUNT(*) FROM webhook_updates WHERE update_id = ? AND state = 'done'",
                (update["update_id"],),
            )
            assert row[0] == 1
    assert f"update {unreadable['update_id']} could not be read" in caplog.text
    assert f"update {chatless['update_id']} in chat - failed" in caplog.text
    assert tg.sent_to(85) == []


async def test_the_200_never_waits_for_a_chats_send_budget(tg, tmp_path):
    """Issue 36: replies to a busy group wait in its queue (1 message a second per chat), not in the
    webhook's requests: every update is answered 200 at once, and a private /start is answered as usual."""
    async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
        group = -1009876543210
        updates = [
            tg.make_update("/help", chat_id=group, user_id=5000 + i, chat_type="supergroup")
            for i in range(12)
        ]
        began = asyncio.get_running_loop().time()
        answers = await asyncio.gather(*(hook.post(u) for u in updates))
        assert [a.status for a in answers] == [200] * 12
        assert asyncio.get_running_loop().time() - began < 3.0  # 12 replies to one chat take ≥ 9 s to send
        assert len(tg.sent_to(group)) < 12
        response = await hook.post(tg.make_update("/start", chat_id=86))
        assert response.status == 200 and len(tg.sent_to(86)) == 1  # sent before its 200, as always


def test_monitoring_has_a_port_of_its_own_by_default():
    """Issue 36: a process serving the webhook gets /metrics and /healthz on SIKPAN_METRICS_PORT (default
    9100, on 127.0.0.1), never on the public webhook listener unless that port is named."""
    from bot.app import plan
    from bot.config import DEFAULT_WEBHOOK_METRICS_PORT, Settings, load_settings

    base = {
        "TELEGRAM_BOT_TOKEN": "7012345678:AAHfake-TelegramToken_for-tests-0123456",
        "TELEGRAM_WEBHOOK_URL": "https://bot.example.org/hook",
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "SIKPAN_ROLE": "webhook",
        "SIKPAN_ENV_FILE": "/nonexistent",
    }
    settings = load_settings(base)
    assert settings.monitor_port == DEFAULT_WEBHOOK_METRICS_PORT == 9100
    assert settings.metrics_listen == "127.0.0.1" and not settings.monitor_on_webhook
    assert "metrics" in plan(settings).runners
    named = load_settings({**base, "SIKPAN_METRICS_PORT": "8443", "TELEGRAM_WEBHOOK_PORT": "8443"})
    assert named.monitor_on_webhook and "metrics" not in plan(named).runners
    assert Settings(role="scheduler").monitor_port is None  # other roles: only when asked for


async def test_the_webhook_listener_serves_no_monitoring_unless_its_port_is_named(tg, tmp_path):
    async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
        assert hook.monitor != hook.base
        for path in ("/healthz", "/metrics"):
            async with hook.http.get(hook.base + path) as r:
                assert r.status == 404, path  # the public listener: the update path only
            async with hook.http.get(hook.monitor + path) as r:
                assert r.status == 200, path
    port = free_port()
    async with webhook(webhook_settings(tg, str(tmp_path / "hook2.db"), port, metrics_port=port)) as hook:
        assert hook.monitor == hook.base
        async with hook.http.get(hook.base + "/healthz") as r:
            assert r.status == 200
