"""Dockerfile and docker-compose.yml (Docker cannot run here: check what they promise)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_dockerfile_installs_from_registries_only():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11\.\d+-slim-bookworm\s*$", text, re.M)
    assert "pip install --no-deps '.[all]'" in text  # the project from this folder, with both chat libraries
    assert "--index-url" not in text and "--extra-index-url" not in text and ".whl" not in text
    for folder in ("engine", "bot", "templates", "locales"):
        assert f"COPY {folder} ./{folder}" in text
    assert 'CMD ["run"]' in text and 'ENTRYPOINT ["sikpan"]' in text
    assert "SIKPAN_DB=/data/sikpan.db" in text


def test_dockerfile_installs_the_dependencies_in_their_own_layer_from_the_constraints():
    text = (ROOT / "Dockerfile").read_text()
    deps = text.index("pip install -r /tmp/requirements.txt")
    assert text.index("COPY pyproject.toml constraints.txt ./") < deps < text.index("COPY engine ./engine")
    assert "PIP_CONSTRAINT=/app/constraints.txt" in text  # every pip install of the build is constrained
    assert "extras['telegram'] + extras['discord']" in text  # the [all] extra's libraries are in that layer


def test_compose_uses_a_named_volume_and_the_env_file():
    text = (ROOT / "docker-compose.yml").read_text()
    assert re.search(r"^\s+- sikpan-data:/data\s*$", text, re.M)
    assert re.search(r"^volumes:\n\s+sikpan-data:", text, re.M)
    assert "env_file:" in text and ".env" in text
    assert "SIKPAN_DB: /data/sikpan.db" in text


def test_dockerignore_keeps_secrets_and_databases_out():
    lines = set((ROOT / ".dockerignore").read_text().split())
    assert {".env", "*.db", ".venv", ".git", "*.mo"} <= lines  # .mo files are compiled by the image's build


def test_migrations_are_package_data():
    """``pip install .`` (Dockerfile, README run command) must ship bot/migrations/*.sql."""
    import fnmatch
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = data["tool"]["setuptools"]["package-data"]["*"]
    for sql in (ROOT / "bot" / "migrations").glob("*.sql"):
        assert any(fnmatch.fnmatch(sql.name, p) for p in patterns), sql.name
    assert (ROOT / "bot" / "migrations" / "__init__.py").exists()  # a package, so setuptools finds it


def _name(requirement: str) -> str:
    import re

    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-").replace(".", "-")


def test_constraints_pin_every_requirement_of_the_project_and_its_extras():
    """constraints.txt (scripts/gen_constraints.py) must be regenerated when a dependency is added."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    for extra in ("telegram", "discord", "test"):
        wanted |= {_name(r) for r in project["optional-dependencies"][extra] if not r.startswith("sikpan")}
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, pinned = line.partition("==")
            assert pinned, f"not an exact pin: {line}"
            pins[_name(name)] = pinned
    assert wanted <= pins.keys(), sorted(wanted - pins.keys())


def test_ci_readme_and_docker_install_from_the_constraints():
    readme = (ROOT / "README.md").read_text()
    commands = [line for line in readme.splitlines() if line.startswith("python3 -m venv .venv")]
    assert len(commands) == 2  # exactly two set-up commands: run one, test one
    assert all("pip install -c constraints.txt" in c for c in commands)
    assert "'.[all]'" in commands[0] and "-e '.[test]'" in commands[1]
    assert "test-command" in (ROOT / ".ci" / "run").read_text()


def _floors_script():  # scripts/floors.py, the floors job .ci/run starts
    import importlib.util

    spec = importlib.util.spec_from_file_location("floors", ROOT / "scripts" / "floors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_runs_the_floors_job_beside_the_test_command_once_its_install_is_done():
    """The floors job starts in the background only when the main install has written the project's console
    script (both installs build the project in the tree), and CI waits for it and judges it after the suite."""
    text = (ROOT / ".ci" / "run").read_text()
    started = text.index("python3 scripts/floors.py >")
    assert text.rindex("[ -x .venv/bin/sikpan ] && break", 0, started) < started
    assert started < text.index("floors_job=$!") < text.index('bash -c "$cmd"')
    assert (
        text.index('bash -c "$cmd"') < text.index('wait "$floors_job"') < text.index("for run in main floors")
    )


def test_the_floors_are_the_lower_bounds_of_pyproject(tmp_path):
    import pytest

    floors = _floors_script()
    project = tmp_path / "pyproject.toml"

    def write(dependencies: list[str], extras: dict[str, list[str]]) -> None:
        lines = [
            "[project]",
            'name = "sikpan"',
            f"dependencies = {dependencies!r}",
            "[project.optional-dependencies]",
        ]
        lines += [f"{extra} = {items!r}" for extra, items in extras.items()]
        project.write_text("\n".join(lines) + "\n")

    named = ["Pillow>=11.2", "jinja2 >= 3.1.4", "aiosqlite>=0.21; sys_platform != 'win32'"]
    chat = {"telegram": ["python-telegram-bot[socks]>=22.1,<23"], "discord": ["discord.py>=2.5,<3"]}
    tools = {"test": ["sikpan[all]", "pytest>=8", "not-a-runtime-thing>=1"]}
    write([*named, "skyfield==1.55"], {**chat, "all": ["sikpan[telegram,discord]"], **tools})
    assert floors.floors(project) == {
        "pillow": "11.2",
        "jinja2": "3.1.4",
        "aiosqlite": "0.21",
        "python-telegram-bot": "22.1",
        "discord-py": "2.5",
    }
    write(named, {"telegram": ["python-telegram-bot<23"], "discord": ["discord.py>=2.5"]})
    with pytest.raises(SystemExit, match="python-telegram-bot has no '>=' bound"):
        floors.floors(project)
    write(named[1:], chat)
    with pytest.raises(SystemExit, match="not declared in pyproject.toml: pillow"):
        floors.floors(project)
    write([*named, "left-pad>=1.0"], chat)
    with pytest.raises(SystemExit, match="name the tests that use left-pad"):
        floors.floors(project)
    # The project's own: every floor has a bound and tests that exist.
    assert set(floors.REQUIRED) <= floors.floors().keys()
    assert all((ROOT / path).exists() for path in floors.paths_of(floors.floors()))
    # and every test it leaves out is still there, in a module it runs
    assert len(floors.deselected(floors.paths_of(floors.floors()))) == len(floors.LEFT_OUT)


def test_the_floors_venv_pins_the_floors_and_caps_the_rest():
    floors = _floors_script()
    constraints = "# generated\nPillow==13.1.0\nnumpy==2.4.6\ndiscord.py==2.7.1\n"
    out = floors.constraints_with({"pillow": "11.0", "discord-py": "2.4"}, constraints)
    assert out.splitlines() == ["numpy<=2.4.6", "pillow==11.0", "discord-py==2.4"]
