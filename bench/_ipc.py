"""Frames between ``bench/bot.py``'s simulated users and its fake Bot API process (issue #18).

The fake runs in a process of its own (its loop no longer shares a core's time slices with the users'
driver); the two speak over a socket pair. A frame is a JSON array behind its length (4 bytes, big-endian):
``["push", chat, text, language]`` from the driver; ``["pushed", chat, update_id, t]`` and
``["reply", chat, update_id, t]`` from the fake, both stamped with the fake's ``time.perf_counter()`` (one
clock for the latency: reply − pushed), and the few requests and answers around a run (see ``bench/bot.py``).
"""

from __future__ import annotations

import asyncio
import json
import struct
from typing import Any

HEADER = struct.Struct("!I")


def encode(message: list[Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    return HEADER.pack(len(body)) + body


async def read(reader: asyncio.StreamReader) -> list[Any] | None:
    """The next frame, or ``None`` when the other side closed the socket between frames."""
    try:
        header = await reader.readexactly(HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise
        return None
    (size,) = HEADER.unpack(header)
    message = json.loads(await reader.readexactly(size))
    if not isinstance(message, list):
        raise ValueError(f"a frame must hold a JSON array, not {type(message).__name__}")
    return message
