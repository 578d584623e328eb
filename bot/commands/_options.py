"""School options per engine, stored in ``users.options`` as ``"<area>.<field>": "<value>"`` strings.

Each area names its engine's frozen options dataclass; the fields, their allowed values and defaults are read
from the class itself (booleans → ``on``/``off``, enums → their values, branches → their characters), so a
new option in an engine shows up in ``/settings`` without touching the bot.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from bot.commands._common import parse_bool
from bot.commands.base import CommandError
from engine.core.cycle import Branch, Stem
from engine.liuren import Options as LiurenOptions
from engine.liuyao import Options as LiuyaoOptions
from engine.qizheng import QizhengOptions

OptionsClass = type[LiurenOptions] | type[LiuyaoOptions] | type[QizhengOptions]

AREAS: dict[str, OptionsClass] = {
    "liuren": LiurenOptions,
    "liuyao": LiuyaoOptions,
    "qizheng": QizhengOptions,
}


def options_class(area: str) -> OptionsClass:
    return AREAS[area]


def to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Branch | Stem):
        return value.char
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


def _choices(default: Any) -> list[str]:
    if isinstance(default, bool):
        return ["on", "off"]
    if isinstance(default, Branch | Stem):
        return []  # any character parses; the engine says which it accepts
    if isinstance(default, enum.Enum):
        return [str(m.value) for m in type(default)]
    return []


def fields(area: str) -> dict[str, tuple[str, list[str]]]:
    """``{field: (default as text, allowed values)}``."""
    cls = options_class(area)
    defaults = cls()
    out: dict[str, tuple[str, list[str]]] = {}
    for f in dataclasses.fields(cls):
        value = getattr(defaults, f.name)
        if isinstance(value, bool | enum.Enum | str | int):
            out[f.name] = (to_text(value), _choices(value))
    return out


def parse_key(key: str) -> tuple[str, str] | None:
    """``"liuren.gui_rule"`` → ("liuren", "gui_rule") when that option exists."""
    area, _, name = key.partition(".")
    if area in AREAS and name in fields(area):
        return area, name
    return None


def from_text(default: Any, text: str) -> Any:
    """A value of the default's type from its text form (CommandError when it is not one)."""
    if isinstance(default, bool):
        return parse_bool(text, "")
    try:
        if isinstance(default, Branch):
            return Branch.from_char(text)
        if isinstance(default, Stem):
            return Stem.from_char(text)
        if isinstance(default, enum.Enum):
            kind = type(default)
            return kind(text) if text in {str(m.value) for m in kind} else kind(text.lower())
        if isinstance(default, int):
            return int(text)
    except ValueError:
        raise CommandError("bot.error.bad_option_value", name="", value=text[:20]) from None
    return text


def normalize(area: str, name: str, text: str) -> str:
    """The stored text of a valid value for an option (raises CommandError otherwise)."""
    cls = options_class(area)
    default = getattr(cls(), name)
    try:
        value = from_text(default, text.strip())
        cls(**{name: value})  # the engine's own validation (e.g. 土長生 申 or 寅 only)
    except CommandError as err:
        raise CommandError("bot.error.bad_option_value", name=f"{area}.{name}", value=text[:20]) from err
    except (ValueError, TypeError):
        raise CommandError("bot.error.bad_option_value", name=f"{area}.{name}", value=text[:20]) from None
    return to_text(value)


def build(area: str, stored: Mapping[str, Any]) -> Any:
    """The engine options object from a user's stored options (unknown or stale keys are ignored)."""
    cls = options_class(area)
    defaults = cls()
    kwargs: dict[str, Any] = {}
    prefix = f"{area}."
    for key, text in stored.items():
        if not key.startswith(prefix):
            continue
        name = key[len(prefix) :]
        if name not in fields(area):
            continue
        try:
            kwargs[name] = from_text(getattr(defaults, name), str(text))
        except CommandError:
            continue
    try:
        return cls(**kwargs)
    except (ValueError, TypeError):
        return defaults
