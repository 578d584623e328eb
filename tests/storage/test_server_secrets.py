"""The server's own secrets (migration 0013, ``Storage.server_secret``): the buttons' key is generated once per
database and every process on it — and every later start — uses the same one (issue 36 item 2), unless the
operator sets ``SIKPAN_BUTTON_SECRET``."""

from __future__ import annotations

import asyncio

from bot.config import Settings
from bot.context import create_context
from bot.seal import PUBLIC, ButtonSeal
from bot.storage import Storage


async def test_a_secret_is_generated_once_and_shared_by_every_connection(target: str):
    stores = [await Storage.open(target) for _ in range(4)]
    try:
        values = await asyncio.gather(*(s.server_secret("buttons") for s in stores))
        assert len(set(values)) == 1 and len(values[0]) >= 40  # 32 random bytes, base64url
        assert await stores[0].server_secret("other") != values[0]
    finally:
        for s in stores:
            await s.close()
    again = await Storage.open(target)
    try:
        assert await again.server_secret("buttons") == values[0]  # a restart keeps it
        assert "server_secrets" not in await again.user_tables()  # nobody's data: /forget leaves it
    finally:
        await again.close()


async def test_buttons_sealed_by_one_process_open_in_another_and_after_a_restart(target: str):
    first = await create_context(Settings(db_path=target))
    second = await create_context(Settings(db_path=target))
    try:
        data = first.buttons.seal("telegram", "-100", "p:7:1:brief")
        assert second.buttons.open("telegram", "-100", "8", data).status == PUBLIC
    finally:
        await first.close()
        await second.close()
    configured = await create_context(Settings(db_path=target, button_secret="operator's own"))
    try:  # the operator's secret replaces the stored key
        assert configured.buttons == ButtonSeal.from_secret("operator's own")
        assert configured.buttons.open("telegram", "-100", "8", data).status != PUBLIC
    finally:
        await configured.close()
