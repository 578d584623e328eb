"""``sikpan run`` runs on uvloop where it is installed, on asyncio's loop otherwise (issue #18)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bot.cli.run import loop_factory


def test_uvloop_is_the_loop_when_installed() -> None:
    uvloop = pytest.importorskip("uvloop")  # the telegram/discord extras install it on Linux and macOS
    factory = loop_factory({})
    assert factory is uvloop.new_event_loop
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)
        assert loop.run_until_complete(asyncio.sleep(0, result=7)) == 7
    finally:
        loop.close()


@pytest.mark.parametrize("value", ["0", "off", "false", "no"])
def test_sikpan_uvloop_0_chooses_asyncios_loop(value: str) -> None:
    assert loop_factory({"SIKPAN_UVLOOP": value}) is None


def test_without_uvloop_the_default_loop_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop → ImportError
    assert loop_factory({}) is None
    with asyncio.Runner(loop_factory=loop_factory({})) as runner:
        assert runner.run(asyncio.sleep(0, result="ok")) == "ok"
