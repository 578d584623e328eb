"""Issue #35 on the webhook app: ``/livez`` and ``/readyz`` beside ``/healthz`` (on the monitoring
listener); an update being handled is counted in ``sikpan_webhook_in_flight`` and carries its ``update_id`` on every log line meanwhile (the JSON
format of ``SIKPAN_LOG_FORMAT=json``); an update the library cannot read is counted as dropped."""

from __future__ import annotations

import asyncio
import io
import json
import logging

from bot import metrics
from bot.logs import JsonFormatter
from tests.webhook.conftest import free_port, webhook, webhook_settings


async def test_livez_readyz_and_the_ids_of_an_update_in_the_json_logs(tg, tmp_path):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    try:
        async with webhook(webhook_settings(tg, str(tmp_path / "hook.db"), free_port())) as hook:
            registry = metrics.enable()

            def value(name: str, **labels: str) -> float:
                return registry.get_sample_value(name, labels) or 0.0

            for path, body in (("/livez", {"loop": "ok"}), ("/readyz", {"database": "ok"})):
                async with hook.http.get(hook.monitor + path) as r:
                    assert (r.status, await r.json()) == (200, body)
            dropped = value("sikpan_dropped_total", what="update_unreadable")
            unreadable = {"update_id": tg.make_update("x")["update_id"], "message": 5}
            chatless = tg.make_update("/shensha 甲子", chat_id=87)
            del chatless["message"]["chat"]  # read, then failed on by the handlers (logged by them)
            for update in (unreadable, chatless):
                assert (await hook.post(update)).status == 200
            assert value("sikpan_dropped_total", what="update_unreadable") - dropped == 1
            assert value("sikpan_webhook_in_flight") == 0

            # while an update is handled, the gauge counts it
            seen: list[float] = []
            original = hook.ctx.webhook_state.application.process_update

            async def slow(update):  # type: ignore[no-untyped-def]
                seen.append(value("sikpan_webhook_in_flight"))
                await asyncio.sleep(0.05)
                return await original(update)

            hook.ctx.webhook_state.application.process_update = slow
            answers = await asyncio.gather(
                *(hook.post(tg.make_update("/help", chat_id=88 + i)) for i in range(3))
            )
            assert [a.status for a in answers] == [200, 200, 200]
            assert max(seen) >= 2 and value("sikpan_webhook_in_flight") == 0
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    by_update = {e.get("update_id") for e in lines}
    cannot_read = [e for e in lines if "could not be read" in e["message"]]
    assert cannot_read and cannot_read[0]["update_id"] == unreadable["update_id"]
    assert cannot_read[0]["logger"] == "bot.web" and cannot_read[0]["level"] == "WARNING"
    assert chatless["update_id"] in by_update  # the handler's own failure line carries it too
    started = [e for e in lines if "webhook for @" in e["message"]]
    assert started and "update_id" not in started[0]  # outside an update: no id
