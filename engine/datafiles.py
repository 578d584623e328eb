"""The engine packages' own data files (``engine/<area>/data/…``), read lazily through importlib.resources."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


def read_text(package: str, name: str) -> str:
    """The text of ``data/<name>`` in ``package`` (e.g. ``"engine.calendar"``)."""
    return resources.files(package).joinpath("data", name).read_text(encoding="utf-8")


@cache
def load_json(package: str, name: str) -> Any:
    """``data/<name>`` of ``package`` parsed, read once per process (shared: callers must not mutate it)."""
    return json.loads(read_text(package, name))
