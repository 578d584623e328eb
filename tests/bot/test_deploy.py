"""Dockerfile and docker-compose.yml (Docker cannot run here: check what they promise)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_dockerfile_installs_from_registries_only():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\s*$", text, re.M)
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
