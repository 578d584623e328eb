"""``sikpan run`` freezes the heap it has built (``gc.freeze``) at start and once more a while later, so the
garbage collector's full collections do not scan the tables and caches every command uses (issue #18)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest

from bot.cli import run as run_cli
from bot.config import Settings


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the rest of the test session collects as usual


def _is_scanned(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects())


def test_freeze_heap_takes_what_is_alive_out_of_the_collections() -> None:
    table = {"kept": [1, 2, 3]}
    assert _is_scanned(table)
    run_cli.freeze_heap()
    assert not _is_scanned(table) and gc.get_freeze_count() > 0
    later = {"made": ["after"]}
    assert _is_scanned(later)  # what comes after is collected as before


def test_frozen_objects_are_still_freed_by_reference_counting() -> None:
    import weakref

    class Box:
        pass

    box = Box()
    gone = weakref.ref(box)
    run_cli.freeze_heap()
    del box
    assert gone() is None


def test_run_freezes_at_start_and_once_more_later(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    async def fake_run(settings: Settings, stop: asyncio.Event) -> None:
        seen["at_start"] = not _is_scanned(settings)  # built before: frozen by the first freeze
        built_later = seen["built_later"] = {"cache": ["filled by a command"]}
        seen["before_second"] = _is_scanned(built_later)
        await asyncio.sleep(0.3)
        seen["after_second"] = not _is_scanned(built_later)

    import bot.app

    monkeypatch.setattr(bot.app, "run", fake_run)
    monkeypatch.setattr(run_cli, "FREEZE_AGAIN_AFTER", 0.05)
    asyncio.run(run_cli.main_async(Settings()))
    assert seen["at_start"] and seen["before_second"] and seen["after_second"]
