"""The 10,000-reading broadcast of issue #17 (``test_broadcast.py::test_ten_thousand_…``, marker
``full_broadcast``) takes about six minutes at 30 sends per second: when it is selected it starts in the
background right after collection (``broadcast_run.BackgroundRun``: its own processes, servers, schema and
key prefix) while the rest of the suite runs, and the test — moved to the end of the session — checks its
result. ``pytest -m "not full_broadcast"`` leaves it out (README; the marker is registered in pyproject.toml);
CI runs it."""

from __future__ import annotations

import pytest

from tests.scale.broadcast_run import RUN, BackgroundRun
from tests.servers import pg_unavailable, redis_unavailable


@pytest.hookimpl(trylast=True)  # after -m / -k have deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    full = [item for item in items if item.get_closest_marker("full_broadcast")]
    if not full:
        return
    for item in full:  # last: it waits for the background run
        items.remove(item)
        items.append(item)
    if config.option.collectonly or pg_unavailable() or redis_unavailable():
        return  # the test skips (or fails under CI) with the reason
    config.stash[RUN] = BackgroundRun()


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(RUN, None)
    if run is not None:
        run.stop()  # a session that ended early (-x) does not leave the broadcast running
