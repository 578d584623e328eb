"""Settings as choices (issue #13 item 5): the buttons of a ``/settings`` reply and what a press means.

A button names a line of ``/settings`` — never process memory, so it works after a restart and on any
worker: ``s:`` (everything), ``s:<group>`` (one group of options), ``s:<key>`` (one option and its values),
``s:<key>=<value>`` (set it). The adapter seals it for its owner alone (:mod:`bot.seal`, audience = the owner's
user id: the seal holds only when the owner presses it, in the chat it was sent to), so the owner is not in the
data; with the seal at most 64 bytes (Telegram's ``callback_data``; Discord's ``custom_id``). A press is the
owner's typed command (:meth:`SettingRef.command_line`) run through ``dispatch``, so a button is validated and
refused exactly as the typed command is (晝夜 by sunrise without a place); a press by anyone else, or of a
button whose seal does not hold here, changes nothing (``chat.settings.not_yours``). Buttons sent before
seals, ``s:<owner>:<target>[=<value>]``, still work for the owner they name (:func:`pressed`).

The buttons are built from the reply alone, which is built from the settings model
(:func:`bot.features.options.model`): a new option or group shows up without new code here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.features import options as model
from bot.features.base import Reply
from bot.i18n import gettext
from bot.seal import FORGED, INNER_LIMIT, LEGACY, Opened

DATA_LIMIT = INNER_LIMIT  # bytes of the data before its seal (with it: Telegram's 64)
_DATA = re.compile(r"^s:([a-z0-9_.]{0,40})(?:=(\S{1,20}))?$")
_LEGACY = re.compile(r"^s:([^:=\s]{1,40}):([a-z0-9_.]{0,40})(?:=(\S{1,20}))?$")  # before seals


@dataclass(frozen=True)
class SettingRef:
    owner: str  # the platform user id whose settings these are (``Incoming.user_id``)
    target: str = ""  # "" (everything), a group, or an option key
    value: str | None = None  # set ``target`` to this

    def encode(self) -> str | None:
        """The button data (to be sealed for the owner), or None when it would not fit (then that button is
        not offered)."""
        data = f"s:{self.target}" + (f"={self.value}" if self.value is not None else "")
        return data if len(data.encode()) <= DATA_LIMIT and decode(data, self.owner) == self else None

    def command_line(self) -> str:
        """The ``/settings`` line this button stands for (what the owner could type instead)."""
        return " ".join(p for p in ("/settings", self.target, self.value) if p)


def decode(data: str | None, owner: str = "") -> SettingRef | None:
    """The settings button ``data`` (without its seal) names, as ``owner``'s; None for data that is not one
    (or names no option/value). Data from before seals names its owner itself."""
    m = _DATA.match(data or "")
    if m is not None:
        target, value = m.group(1), m.group(2)
    else:
        m = _LEGACY.match(data or "")
        if m is None:
            return None
        owner, target, value = m.group(1), m.group(2), m.group(3)
    if target and target not in model.GROUPS and model.setting(target) is None:
        return None
    if value is not None:
        option = model.setting(target)
        if option is None or (option.choices and value not in option.choices):
            return None
    return SettingRef(owner, target, value)


def is_setting(data: str) -> bool:
    """Is ``data`` (without its seal) a settings button's, of either form?"""
    return decode(data) is not None


def pressed(opened: Opened, presser: str) -> SettingRef | None:
    """The settings line a press stands for, when ``presser`` may run it: the seal holds for them (sealed for
    its owner alone), or — a button from before seals — it names them; else None (it changes nothing)."""
    if opened.status == FORGED:
        return None
    if opened.status == LEGACY:
        legacy = _LEGACY.match(opened.data)
        ref = decode(opened.data) if legacy is not None else None
        return ref if ref is not None and ref.owner == presser else None
    return decode(opened.data, presser) if _DATA.match(opened.data) else None


@dataclass(frozen=True)
class Button:
    """A transport-neutral button: its label, its data, and whether it shows the current choice."""

    label: str
    data: str
    current: bool = False


def buttons(reply: Reply, owner: str) -> list[list[Button]]:
    """The rows of buttons under a ``/settings`` reply: its groups, a group's options, or an option's values;
    with a way back. Empty for any other reply."""
    if reply.view != "settings":
        return []
    ctx = reply.context
    lang = reply.lang
    options: Sequence[Mapping[str, Any]] = ctx.get("options") or []
    rows: list[list[Button]] = []
    back: SettingRef | None = None
    if ctx.get("option"):
        option = next((o for o in options if o["name"] == ctx["option"]), None)
        if option is None:
            return []
        current = str(option["value"])
        labels: Mapping[str, str] = option.get("value_labels") or {}
        choices = [
            _button(
                ("• " if v == current else "") + (gettext(lang, labels[v]) if v in labels else v),
                SettingRef(owner, option["name"], v),
                current=v == current,
            )
            for v in option["choices"]
        ]
        rows = _rows([b for b in choices if b is not None], 3)
        back = SettingRef(owner, str(option["area"]))
    elif ctx.get("matches"):  # a name several options fit: those options, then back to everything
        items = [
            _button(gettext(lang, o["label"]) if o.get("label") else o["name"], SettingRef(owner, o["name"]))
            for o in options
            if o["name"] in ctx["matches"]
        ]
        rows = _rows([b for b in items if b is not None], 2)
        back = SettingRef(owner)
    elif ctx.get("group"):
        items = [
            _button(
                (gettext(lang, o["label"]) if o.get("label") else o["name"])
                + ("" if o["is_default"] else " *"),
                SettingRef(owner, o["name"]),
            )
            for o in options
            if o["area"] == ctx["group"]
        ]
        rows = _rows([b for b in items if b is not None], 2)
        back = SettingRef(owner)
    else:
        groups = [
            _button(
                (gettext(lang, g["label"]) if g.get("label") else g["name"])
                + (f" ({g['changed']})" if g.get("changed") else ""),
                SettingRef(owner, g["name"]),
            )
            for g in ctx.get("groups") or []
        ]
        rows = _rows([b for b in groups if b is not None], 2)
    if back is not None and (nav := _button(gettext(lang, "chat.settings.back"), back)) is not None:
        rows.append([nav])
    return rows


def _button(label: str, ref: SettingRef, current: bool = False) -> Button | None:
    data = ref.encode()
    return Button(label, data, current) if data is not None else None


def _rows(items: list[Button], per_row: int) -> list[list[Button]]:
    return [items[i : i + per_row] for i in range(0, len(items), per_row)]


__all__ = ["DATA_LIMIT", "Button", "SettingRef", "buttons", "decode", "is_setting", "pressed"]
