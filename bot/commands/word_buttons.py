"""The choices of a ``choose`` reply (issue 32: a word the lexicon does not know, answered with the closest
categories) as buttons: ``w:<command line>``, the line that asks the chosen one (``/cast now 求財``,
``/liuyao 878878 wealth``); the actions under a reading are such lines too (:mod:`bot.commands.action_buttons`). A press is that line typed by the presser (run through ``dispatch`` and answered
as a new message), so it is validated and answered exactly as the typed line; only ``/cast``, ``/liuyao`` and the
actions' lines (``/ask``, ``/share``, ``/note``) are buttons. At most 64 bytes (Telegram's ``callback_data``); a longer line is not offered as a
button (the reply still shows it to type).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.commands.setting_buttons import DATA_LIMIT, Button
from bot.features.base import Reply

PREFIX = "w:"
COMMANDS = ("/cast", "/liuyao", "/ask", "/share", "/note")  # the last three: a reading's actions


def encode(line: str) -> str | None:
    data = PREFIX + line
    return data if len(data.encode()) <= DATA_LIMIT and decode(data) == line else None


def decode(data: str | None) -> str | None:
    """The command line a word button stands for, or None for data that is not one."""
    if not data or not data.startswith(PREFIX):
        return None
    line = data[len(PREFIX) :]
    if line.split(" ", 1)[0] not in COMMANDS or "\n" in line or len(line) > DATA_LIMIT:
        return None
    return line


def buttons(reply: Reply) -> list[list[Button]]:
    """Rows of buttons under a ``choose`` reply, one per choice (two per row; three for all the topics of
    ``/ask``); empty for any other reply."""
    if reply.view != "choose":
        return []
    ctx: Mapping[str, Any] = reply.context
    choices: Sequence[Mapping[str, Any]] = ctx.get("choices") or []
    items: list[Button] = []
    for choice in choices:
        data = encode(f"{ctx['line']} {choice['target']}")
        if data is None:
            continue
        label = (
            choice["lzh"]
            if reply.lang == "lzh" or choice["ko"] == choice["lzh"]
            else (f"{choice['ko']} {choice['lzh']}")
        )
        items.append(Button(label, data))
    per_row = 3 if ctx.get("asking") else 2  # another question: every topic of the art, three a row
    return [items[i : i + per_row] for i in range(0, len(items), per_row)]


__all__ = ["COMMANDS", "PREFIX", "buttons", "decode", "encode"]
