"""``BENCH_PROFILE`` of ``bench/bot.py``: a CPU-time profile of the bot's event loop over a window the bench marks.

:func:`toggled` gives a ``cProfile.Profile`` timed by ``time.thread_time`` (the CPU of the profiled thread
alone: ``process_time`` would charge each function with what the picture thread burned meanwhile), not yet
enabled, and installs a handler of ``SIGUSR2`` that turns it on, then off, then on … Python runs a signal
handler in the main thread, the one that runs the event loop, so that is the thread profiled. The bench sends
the signal when the measured commands start and again when their replies are in: the profile leaves out
start-up, the templates' compilation and the warm-up. (cProfile adds about 1 µs of CPU a Python call: the
loop runs about twice as slowly profiled; compare inclusive times of the same code, not with
``bench/bot.py``'s figures.)

Loaded by path from the bot process (``bench/`` is not a package the bot imports): ``bench/bot.py``'s
``bot_command`` writes the code that does it.
"""

from __future__ import annotations

import cProfile
import signal
import time
from typing import Any


def toggled(signum: int = signal.SIGUSR2) -> cProfile.Profile:
    """A thread-time profile, off; each ``signum`` this process receives turns it on or off (see above)."""
    profile = cProfile.Profile(time.thread_time)
    on = False

    def toggle(_signum: int, _frame: Any) -> None:
        nonlocal on
        if on:
            profile.disable()
        else:
            profile.enable()
        on = not on

    signal.signal(signum, toggle)
    return profile
