"""Lint, format and type checks are part of the test suite (the README's one test command runs them)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; it is part of the test extra")
    return found


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint():
    result = _run(_tool("ruff"), "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format():
    result = _run(_tool("ruff"), "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_bot_and_engine():
    result = _run(_tool("mypy"), "--strict", "bot", "engine")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_blanket_type_ignores():
    """A ``# type: ignore`` names its error code (third-party gaps only); a bare one would hide anything."""
    bare = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("bot", "engine")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "# type: ignore" in line and "# type: ignore[" not in line
    ]
    assert not bare, bare
