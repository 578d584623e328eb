"""Threads of a bench child by name (issue #18, ``bench/bot.py``): Python 3.11 gives its threads names
only inside Python (aiosqlite's ``Thread-1 (_connection_worker_thread)``, ``asyncio_0``);
:func:`name_os_threads`, called in the bot's process before it starts (the bench child only, never the bot
itself), makes every thread started after it set its kernel name (``/proc/<pid>/task/<tid>/comm``, 15 bytes) to that name by ``prctl``, so the
driver can tell aiosqlite's thread from the other threads in :func:`snapshot`."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from typing import Any

PR_SET_NAME = 15
CLK_TCK = os.sysconf("SC_CLK_TCK")


def name_os_threads() -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    original = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def bootstrap_inner(self: threading.Thread) -> Any:
        libc.prctl(PR_SET_NAME, ctypes.c_char_p(self.name.encode()[:15]), 0, 0, 0)
        return original(self)

    threading.Thread._bootstrap_inner = bootstrap_inner  # type: ignore[attr-defined]


def snapshot(pid: int) -> dict[int, tuple[str, float]]:
    """Every thread of ``pid`` now: thread id → (kernel name, user + system CPU seconds)."""
    out: dict[int, tuple[str, float]] = {}
    for entry in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{entry}/stat") as f:
                stat = f.read()
        except OSError:  # the thread ended
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        out[int(entry)] = (name, (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out
