"""The ``sikpan`` shell itself (issue 11): --version, usage on a bare ``sikpan``, localized argparse texts,
lazy imports, and a token whose chat library is missing."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from bot.cli import SUBCOMMANDS, main
from bot.i18n import gettext

ROOT = Path(__file__).resolve().parents[2]


def _sikpan(*args: str, env_lang: str = "ko") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "SIKPAN_LANG": env_lang},
    )


def test_version_is_the_installed_distribution():
    out = _sikpan("--version")
    assert out.returncode == 0 and out.stdout == f"sikpan {version('sikpan')}\n"


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_bare_sikpan_prints_the_usage_with_every_subcommand(lang):
    out = _sikpan(env_lang=lang)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(gettext(lang, "usage: ") + "sikpan")
    assert all(f"    {name} " in out.stderr for name in SUBCOMMANDS), out.stderr
    assert gettext(lang, "大六壬 reference tables") in out.stderr and "reference tables" not in out.stderr


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_argparse_errors_are_one_localized_line(lang):
    out = _sikpan("liuren", env_lang=lang)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    required = gettext(lang, "the following arguments are required: %s") % "liuren_command"
    assert gettext(lang, "error.usage", detail=required) in out.stderr
    assert "required" not in out.stderr and "Traceback" not in out.stderr
    bad = _sikpan("calendar", "--lang", lang, "--bogus")
    assert bad.returncode == 2 and gettext(lang, "unrecognized arguments: %s") % "--bogus" in bad.stderr


def test_calendar_json_loads_only_what_it_uses():
    code = (
        "import io, sys, contextlib\n"
        "from bot.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main(['calendar', '--at', '2024-02-04T16:27:08+08:00', '--json']) == 0\n"
        "assert '戊戌' in out.getvalue()\n"
        "heavy = ('jinja2', 'babel', 'numpy', 'skyfield', 'telegram', 'discord', 'asyncpg', 'bot.commands',"
        " 'bot.app', 'engine.qizheng', 'engine.liuren', 'engine.shensha')\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(heavy))\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120, cwd=ROOT)


@pytest.mark.parametrize("platform", ["telegram", "discord"])
def test_run_with_a_token_but_without_the_chat_library_names_the_extra(
    monkeypatch, capsys, tmp_path, platform
):
    monkeypatch.setitem(sys.modules, platform, None)  # the library is not installed
    monkeypatch.delitem(sys.modules, f"bot.{platform}", raising=False)
    monkeypatch.setenv(f"{platform.upper()}_BOT_TOKEN", "123456:" + "x" * 35)
    monkeypatch.setenv("SIKPAN_DB", str(tmp_path / "x.db"))
    monkeypatch.setenv("SIKPAN_LANG", "ko")
    assert main(["run", "--env-file", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == gettext("ko", "bot.error.missing_extra", platform=platform, extra=platform)
    assert f"sikpan[{platform}]" in err and not (tmp_path / "x.db").exists()
