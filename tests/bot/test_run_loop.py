"""``sikpan run`` runs on uvloop where uvloop is a dependency (pyproject's marker: CPython, not Windows), on
asyncio's loop elsewhere or when ``SIKPAN_UVLOOP=0`` (issue #18)."""

from __future__ import annotations

import asyncio
import sys
from importlib.metadata import requires

import pytest

from bot.cli.run import UVLOOP_PLATFORM, loop_factory


def test_uvloop_is_the_loop_where_it_is_a_dependency() -> None:
    if not UVLOOP_PLATFORM:
        pytest.skip(f"uvloop is no dependency on {sys.platform}")  # Windows or PyPy: nothing to test
    import uvloop

    factory = loop_factory({})
    assert factory is uvloop.new_event_loop
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)
        assert loop.run_until_complete(asyncio.sleep(0, result=7)) == 7
    finally:
        loop.close()


def test_the_condition_is_the_dependency_marker() -> None:
    [uvloop] = [r for r in requires("sikpan") or [] if r.startswith("uvloop")]
    assert "extra ==" not in uvloop  # a dependency of every install, not of an extra
    assert 'sys_platform != "win32"' in uvloop and 'platform_python_implementation == "CPython"' in uvloop


@pytest.mark.parametrize("value", ["0", "off", "false", "no"])
def test_sikpan_uvloop_0_chooses_asyncios_loop(value: str) -> None:
    assert loop_factory({"SIKPAN_UVLOOP": value}) is None


def test_off_the_uvloop_platforms_the_default_loop_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # not installed there: never imported
    assert loop_factory({}, uvloop_platform=False) is None
    with asyncio.Runner(loop_factory=loop_factory({}, uvloop_platform=False)) as runner:
        assert runner.run(asyncio.sleep(0, result="ok")) == "ok"
