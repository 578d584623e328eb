"""``bot.app.run``: which transports start, and a clean stop."""

from __future__ import annotations

import asyncio
import io

import pytest

import bot.app as app
from bot.config import Settings


class Lines:
    def __init__(self, lines):
        self.lines = list(lines)

    async def readline(self):
        await asyncio.sleep(0)
        return self.lines.pop(0) if self.lines else None


async def test_no_token_runs_the_console_until_end_of_input(db_path):
    out = io.StringIO()
    stop = asyncio.Event()
    await asyncio.wait_for(
        app.run(Settings(db_path=db_path), stop, console_io=(Lines(["/cast 庚辰 8", "/history"]), out)), 30
    )
    text = out.getvalue()
    assert "庚辰" in text and "#1" in text
    assert stop.is_set()


@pytest.mark.parametrize("tokens", [("telegram",), ("discord",), ("telegram", "discord")])
async def test_tokens_start_their_adapters_and_the_scheduler_then_stop(db_path, monkeypatch, tokens):
    started: list[str] = []
    stopped: list[str] = []

    def fake(name):
        async def runner(ctx, stop, **_):  # the scheduler's runner gets its platforms and transports
            started.append(name)
            assert await ctx.storage.schema_version() >= 1  # the database is open and migrated
            await stop.wait()
            stopped.append(name)

        return runner

    monkeypatch.setattr(app, "transport_runner", fake)
    monkeypatch.setattr(app, "run_scheduler", fake("scheduler"))
    settings = Settings(
        db_path=db_path,
        telegram_token="1:x" if "telegram" in tokens else None,
        discord_token="y" if "discord" in tokens else None,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(app.run(settings, stop))
    for _ in range(100):
        if len(started) == len(tokens) + 1:
            break
        await asyncio.sleep(0.01)
    assert sorted(started) == sorted([*tokens, "scheduler"])
    stop.set()
    await asyncio.wait_for(task, 15)
    assert sorted(stopped) == sorted(started)


async def test_a_crashing_adapter_does_not_take_the_others_down(db_path, monkeypatch, caplog):
    async def crash(ctx, stop):
        raise RuntimeError("adapter exploded")

    async def healthy(ctx, stop, **_):
        await stop.wait()

    monkeypatch.setattr(app, "transport_runner", {"telegram": crash, "discord": healthy}.get)
    monkeypatch.setattr(app, "run_scheduler", healthy)
    stop = asyncio.Event()
    task = asyncio.create_task(
        app.run(Settings(db_path=db_path, telegram_token="1:x", discord_token="y"), stop)
    )
    for _ in range(500):  # the start (migrations, adapters) takes longer on a loaded machine
        if "adapter exploded" in caplog.text or task.done():
            break
        await asyncio.sleep(0.02)
    assert "adapter exploded" in caplog.text
    await asyncio.sleep(0.1)
    assert not task.done()  # the others still run
    stop.set()
    await asyncio.wait_for(task, 15)


@pytest.mark.parametrize("platform", ["telegram", "discord"])
def test_a_token_without_its_chat_library_names_the_extra(monkeypatch, platform):
    import sys

    monkeypatch.setitem(sys.modules, platform, None)  # "not installed": importing it raises ImportError
    monkeypatch.delitem(sys.modules, f"bot.{platform}", raising=False)
    with pytest.raises(app.MissingExtra) as err:
        app.configured_runners(Settings(**{f"{platform}_token": "1:x"}))
    assert err.value.extra == platform and f"sikpan[{platform}]" in str(err.value)


async def test_system_clock_sleeps_until_an_instant_on_the_wall_clock():
    from datetime import timedelta

    from bot.context import SystemClock

    clock = SystemClock()
    start = await clock.now()
    await asyncio.wait_for(clock.sleep_until(start - timedelta(seconds=5)), 0.5)  # the past: at once
    await asyncio.wait_for(clock.sleep_until(start + timedelta(seconds=0.2)), 5)
    assert await clock.now() >= start + timedelta(seconds=0.2)
