"""``BENCH_STAGES`` of ``bench/bot.py``: the event loop's CPU per stage of a command, over the measured commands.

cProfile charges about 1 µs to every Python call (the loop runs twice as slowly profiled, and the cheap
functions look dear); a sampling profiler of the GIL misplaces C calls. This measures a few stages only —
:data:`STAGES`, each a function of the bot — with ``time.thread_time_ns`` of the main thread (the event loop's):
a plain function from its call to its return, a coroutine function over each step of its coroutine (from a
resume to the next suspension: the time it waits for an answer, a lock or another thread is not its own). A
stage's time includes the stages it calls (inclusive, like cProfile's ``cumtime``).

:func:`arm` installs a handler of ``SIGUSR2`` (Python runs it in the main thread): the first signal wraps the
stages (by then the bot's modules are imported) and starts counting, the second stops and writes
``{"total_ns": …, "stages": {label: [calls, ns]}}`` to the path given — ``total_ns`` being the main thread's
CPU between the two signals. The bench sends the signals when the measured commands start and when their
replies are in, and reports each stage per command. A stage is wrapped where the bot looks it up (a class's
attribute, or the module global its caller reads), so a name that moved fails :func:`wrap` loudly.

Loaded by path from the bot process, as ``bench/_profile.py``.
"""

from __future__ import annotations

import functools
import importlib
import json
import signal
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

# (module, class or None for a module global, attribute, label, coroutine function?)
Stage = tuple[str, str | None, str, str, bool]
STAGES: tuple[Stage, ...] = (
    ("bot.telegram", "TelegramAdapter", "handle", "handle", True),
    ("bot.telegram", "TelegramAdapter", "incoming", "handle.incoming", True),
    ("bot.telegram", None, "dispatch", "handle.dispatch", True),
    ("bot.storage", "Storage", "get_user", "dispatch.get_user", True),
    ("bot.storage", "Storage", "touch_user", "dispatch.touch_user", True),
    # the view models of the one cast of a command (``Stored.cast``: chart, reading and verdict)
    ("bot.features.liuren.command", None, "chart_view", "cast.liuren_view", False),
    ("bot.features.liuyao.command", None, "liuyao_view", "cast.liuyao_view", False),
    ("bot.features.shensha.command", None, "stars_view", "cast.shensha_stars", False),
    ("bot.storage", "Storage", "add_history", "record.add_history", True),
    ("bot.telegram", None, "present", "handle.present", False),
    ("bot.presentation", None, "render", "present.render", False),
    ("bot.presentation", None, "keyboard", "present.keyboard", False),
    ("bot.pictures", None, "render", "handle.pictures", False),
    ("bot.telegram", "TelegramAdapter", "send", "handle.send", True),
    ("telegram.ext", "ExtBot", "send_message", "send.send_message", True),
    ("telegram.ext", "ExtBot", "send_photo", "send.send_photo", True),
    ("bot.telegram", "PollingBot", "get_updates", "poll.getUpdates", True),
    ("telegram.ext", "Application", "process_update", "process_update", True),
)

_clock = time.thread_time_ns


class _Timed:
    """A coroutine whose steps are counted into ``tally`` (``[calls, ns]``) while it runs."""

    __slots__ = ("coro", "tally")

    def __init__(self, coro: Any, tally: list[int]) -> None:
        self.coro = coro
        self.tally = tally

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, tally = self.coro, self.tally
        tally[0] += 1
        value: Any = None
        error: BaseException | None = None
        while True:
            started = _clock()
            try:
                yielded = coro.send(value) if error is None else coro.throw(error)
            except StopIteration as stop:
                tally[1] += _clock() - started
                return stop.value
            except BaseException:
                tally[1] += _clock() - started
                raise
            tally[1] += _clock() - started
            try:
                value, error = (yield yielded), None
            except BaseException as exc:  # thrown in (a cancellation): passed on to the coroutine
                value, error = None, exc


class Stages:
    """The tallies of :data:`STAGES` (see the module docstring); counting only while :attr:`on`."""

    def __init__(self, stages: tuple[Stage, ...] = STAGES) -> None:
        self.stages = stages
        self.tallies: dict[str, list[int]] = {}
        self.on = False
        self.wrapped = False
        self._main = threading.main_thread().ident
        self._started = 0
        self.total_ns = 0

    def wrap(self) -> None:
        """Each stage replaced by a counting wrapper, where the bot looks it up."""
        for module, owner, name, label, is_coroutine in self.stages:
            target: Any = importlib.import_module(module)
            if owner is not None:
                target = getattr(target, owner)
            setattr(target, name, self._counting(getattr(target, name), label, is_coroutine))
        self.wrapped = True

    def _counting(self, func: Callable[..., Any], label: str, is_coroutine: bool) -> Callable[..., Any]:
        tally = self.tallies.setdefault(label, [0, 0])
        if is_coroutine:

            @functools.wraps(func)
            def timed_coroutine(*args: Any, **kwargs: Any) -> Any:
                coro = func(*args, **kwargs)
                return _Timed(coro, tally) if self.on else coro

            return timed_coroutine

        @functools.wraps(func)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not self.on or threading.get_ident() != self._main:
                return func(*args, **kwargs)
            tally[0] += 1
            started = _clock()
            try:
                return func(*args, **kwargs)
            finally:
                tally[1] += _clock() - started

        return timed

    def start(self) -> None:
        if not self.wrapped:
            self.wrap()
        for tally in self.tallies.values():
            tally[0] = tally[1] = 0
        self._started = _clock()
        self.on = True

    def stop(self) -> dict[str, Any]:
        self.on = False
        self.total_ns = _clock() - self._started
        return {"total_ns": self.total_ns, "stages": {k: list(v) for k, v in self.tallies.items()}}


def arm(path: str, signum: int = signal.SIGUSR2, stages: Stages | None = None) -> Stages:
    """Count :data:`STAGES` between two ``signum`` and write the figures to ``path`` (module docstring)."""
    counting = stages if stages is not None else Stages()

    def toggle(_signum: int, _frame: Any) -> None:
        if not counting.on:
            counting.start()
            return
        with open(path, "w") as f:
            json.dump(counting.stop(), f)

    signal.signal(signum, toggle)
    return counting


def per_command(figures: dict[str, Any], commands: int) -> dict[str, Any]:
    """The figures :func:`arm` wrote, as CPU ms per command (``loop``: the whole main thread) and calls per
    command, stage by stage."""
    return {
        "loop_ms": round(figures["total_ns"] / 1e6 / commands, 3),
        "stages": {
            label: {"ms": round(ns / 1e6 / commands, 3), "calls": round(calls / commands, 2)}
            for label, (calls, ns) in figures["stages"].items()
        },
    }
