"""The command-layer fuzz in CI: 10,000 derandomized examples through ``dispatch`` and all three renderers
(tests/reliability/fuzz_core.py says what is checked; ``bench/fuzz_long.py`` runs the long variant)."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings

from bot.app import create_context
from bot.commands import Incoming
from bot.config import Settings
from tests.reliability.fuzz_core import Tally, incomings, run_one

EXAMPLES = 10_000


def test_fuzzed_commands_keep_every_promise_on_every_channel():
    loop = asyncio.new_event_loop()
    ctx = loop.run_until_complete(create_context(Settings(db_path=":memory:", lang="ko", tz="Asia/Seoul")))
    tally = Tally()

    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(incomings())
    def one(incoming: Incoming) -> None:
        loop.run_until_complete(run_one(incoming, ctx, tally))

    try:
        one()
    finally:
        loop.run_until_complete(ctx.close())
        loop.close()
    assert tally.examples >= EXAMPLES
    assert not tally.violations, tally.violations[:20]
    # the fuzz reaches real answers (charts, settings …), not only error paths
    answers = sum(n for view, n in tally.views.items() if "error" not in view)
    assert answers >= EXAMPLES // 20, tally.views
