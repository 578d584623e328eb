"""The command-layer fuzz in CI: 10,000 derandomized examples through ``dispatch`` and all three renderers
(tests/reliability/fuzz_core.py says what is checked; ``bench/fuzz_long.py`` runs the long variant)."""

from __future__ import annotations

from tests.reliability.fuzz_core import fuzz

EXAMPLES = 10_000


def test_fuzzed_commands_keep_every_promise_on_every_channel():
    tally = fuzz(EXAMPLES)
    assert tally.examples >= EXAMPLES
    assert not tally.violations, tally.violations[:20]
    # the fuzz reaches real answers (charts, settings …), not only error paths
    answers = sum(n for view, n in tally.views.items() if "error" not in view)
    assert answers >= EXAMPLES // 20, tally.views
