"""Issue #35 item 4, the deployment kit (Docker cannot run here; the files are checked against the
specifications the tools use): docker-compose.yml against the Compose specification (compose-spec, the
parser of the Rust ``compose_spec`` crate), deploy/k8s against the Kubernetes schemas (kubernetes-validate,
strict: an unknown field is an error), and what each promises — TLS in front of the webhook replicas,
secrets as files, resource limits, log rotation, a health check per role that asks its /readyz, no restart
loop for a platform left out, a pinned base image."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from compose_spec import PyCompose

from bot.config import KNOWN_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
K8S_VERSION = "1.31.0"  # the oldest Kubernetes release still supported upstream when this was written


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's ``${NAME}``, ``${NAME:-default}``, ``${NAME:?error}`` (done by docker compose before it
    validates; the parser here takes the result)."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m: re.Match[str]) -> str:
        name, op, arg = m.group(1), m.group(2), m.group(3)
        if name in env:
            return env[name]
        if op == ":?":
            raise KeyError(f"{name}: {arg}")
        return arg or ""

    text = re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", sub, value)
    return int(text) if text.isdigit() and value.startswith("${") and value.endswith("}") else text


def compose(env: dict[str, str] | None = None) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))  # merge keys resolved
    return interpolate(data, {"WEBHOOK_HOST": "bot.example.org", **(env or {})})


def test_compose_follows_the_compose_specification():
    spec = compose()
    PyCompose.from_json(json.dumps(spec))  # raises ValueError on anything the specification refuses
    broken = json.loads(json.dumps(spec))
    broken["services"]["worker"]["restart"] = "sometimes"
    with pytest.raises(ValueError):  # the check can fail
        PyCompose.from_json(json.dumps(broken))
    with pytest.raises(KeyError):  # the proxy needs its host name
        interpolate(yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"], {})


def test_every_long_running_service_rotates_logs_has_limits_and_a_real_health_check():
    services = compose()["services"]
    for name, service in services.items():
        assert service["logging"]["driver"] == "json-file", name
        assert service["logging"]["options"]["max-size"] and service["logging"]["options"]["max-file"], name
        if name == "migrate":
            continue  # a one-off job
        assert service["deploy"]["resources"]["limits"]["memory"], name
        assert service.get("healthcheck", {}).get("test"), name
    for name in ("bot", "scheduler", "worker", "webhook", "discord"):
        assert services[name]["healthcheck"]["test"] == ["CMD", "python", "-m", "bot.healthcheck"], name
        env = services[name]["environment"]
        assert env["SIKPAN_METRICS_PORT"] == "9100", name  # so the check asks /readyz, not a file
    for service in services.values():  # pinned images, never a floating tag
        image = service.get("image", "")
        if image and not image.startswith("sikpan:"):
            assert re.fullmatch(r"[a-z0-9/]+:\d+\.\d+(\.\d+)?-[a-z]+", image), image


def test_secrets_are_files_and_no_token_or_password_is_a_variable():
    spec = compose()
    files = {name: s["file"] for name, s in spec["secrets"].items()}
    assert set(files) == {"db_password", "telegram_bot_token", "telegram_webhook_secret", "discord_bot_token"}
    for name, service in spec["services"].items():
        env = service.get("environment", {})
        for key, value in env.items():
            assert not re.search(r"TOKEN$|SECRET$|PASSWORD$", key), (name, key)  # only their *_FILE
            if key.endswith("_FILE") and key != "SIKPAN_ENV_FILE":
                secret = Path(value).name
                assert value == f"/run/secrets/{secret}" and secret in service["secrets"], (name, key)
        assert ":" not in env.get("SIKPAN_DB", "").split("@")[0].removeprefix("postgresql://"), name


def test_the_webhook_is_behind_a_tls_proxy_and_platforms_left_out_do_not_start():
    services = compose()["services"]
    caddy = services["caddy"]
    assert caddy["profiles"] == ["telegram"] and "443:443" in caddy["ports"]
    assert "./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro" in caddy["volumes"]
    caddyfile = (ROOT / "deploy" / "caddy" / "Caddyfile").read_text()
    assert "{$WEBHOOK_HOST} {" in caddyfile and "dynamic a webhook 8443" in caddyfile
    assert "handle /telegram*" in caddyfile  # only the webhook's path is passed on, never /metrics
    assert (
        "expose" in services["webhook"] and "ports" not in services["webhook"]
    )  # reached through caddy only
    for platform in ("webhook", "discord"):
        service = services[platform]
        assert set(service["profiles"]) <= {"telegram", "discord"}, platform  # not started unless asked
        assert service["restart"] == "on-failure", platform  # a wrong token stops after max_attempts
        assert service["deploy"]["restart_policy"] == {"condition": "on-failure", "max_attempts": 5}
    assert "profiles" not in services["bot"]  # the default: one process, SQLite


def test_the_base_image_is_pinned():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11\.\d+-slim-bookworm\s*$", text, re.M)


def manifests() -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.name, doc)
        for path in sorted(K8S.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8"))
        if doc
    ]


def test_kubernetes_manifests_validate_against_the_schemas():
    docs = manifests()
    kinds = sorted(doc["kind"] for _, doc in docs)
    assert kinds == [
        "ConfigMap",
        "Deployment",
        "Deployment",
        "Deployment",
        "Deployment",
        "Job",
        "Secret",
        "Service",
    ]
    for _, doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)  # raises ValidationError
    bad = next(doc for _, doc in docs if doc["kind"] == "Deployment")
    bad = json.loads(json.dumps(bad))
    bad["spec"]["template"]["spec"]["containers"][0]["livenessProbes"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSION, strict=True)


def test_each_role_has_probes_limits_and_its_secrets_as_files():
    roles = set()
    for _, doc in manifests():
        if doc["kind"] != "Deployment":
            continue
        [container] = doc["spec"]["template"]["spec"]["containers"]
        role = container["args"][container["args"].index("--role") + 1]
        roles.add(role)
        assert container["livenessProbe"]["httpGet"] == {"path": "/livez", "port": "metrics"}, role
        assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}, role
        assert {"name": "metrics", "containerPort": 9100} in container["ports"], role
        assert container["resources"]["limits"]["memory"], role
        assert container["securityContext"]["runAsNonRoot"] is True, role
        env = {e["name"]: e["value"] for e in container["env"]}
        assert all(k.endswith("_FILE") and v.startswith("/run/secrets/sikpan/") for k, v in env.items()), role
    assert roles == {"scheduler", "worker", "webhook", "discord"}
    config = next(doc for _, doc in manifests() if doc["kind"] == "ConfigMap")["data"]
    assert config["SIKPAN_METRICS_PORT"] == "9100" and config["SIKPAN_METRICS_LISTEN"] == "0.0.0.0"
    assert not any(re.search(r"TOKEN$|SECRET$|PASSWORD$", key) for key in config)
    secret = next(doc for _, doc in manifests() if doc["kind"] == "Secret")["stringData"]
    assert set(secret) == {
        "telegram-bot-token",
        "telegram-webhook-secret",
        "discord-bot-token",
        "db-password",
    }


def test_every_variable_the_kit_sets_is_one_the_bot_knows():
    """A typo in a manifest would only be warned about at start: every SIKPAN_/TELEGRAM_/DISCORD_ name the
    compose file and the manifests set is a setting of the bot."""
    names: set[str] = set()
    for service in compose()["services"].values():
        names |= set(service.get("environment", {}))
    for _, doc in manifests():
        if doc["kind"] == "ConfigMap":
            names |= set(doc["data"])
        if doc["kind"] in ("Deployment", "Job"):
            for container in doc["spec"]["template"]["spec"]["containers"]:
                names |= {e["name"] for e in container.get("env", [])}
    ours = {n for n in names if n.startswith(("SIKPAN_", "TELEGRAM_", "DISCORD_"))}
    assert ours and ours <= set(KNOWN_VARIABLES), sorted(ours - set(KNOWN_VARIABLES))
