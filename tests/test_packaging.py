"""A non-editable install (the built wheel) carries templates, locales and engine data files.

Builds the wheel, installs it without dependencies into a fresh virtual environment that borrows the
test environment's third-party packages, and runs the ``sikpan`` console script from another directory.
"""

import json
import os
import site
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_installs_and_runs_from_elsewhere(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        check=True,
        timeout=600,
    )
    wheels = list(dist.glob("sikpan-*.whl"))
    assert len(wheels) == 1

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    target_site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # Dependencies come from the test environment; the project itself only from the wheel.
    (target_site / "_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target_site),
            str(wheels[0]),
        ],
        check=True,
        timeout=600,
    )
    sikpan = target_site / "bin" / "sikpan"
    assert sikpan.exists()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SIKPAN_LANG")}
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(py), str(sikpan), *args], cwd=workdir, env=env, capture_output=True, text=True, timeout=120
        )

    where = subprocess.run(
        [str(py), "-c", "import engine, bot, templates, locales; print(engine.__file__)"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
    )
    assert str(target_site) in where.stdout, where.stdout + where.stderr

    out = run("calendar", "--at", "2024-02-04T16:27:08+08:00", "--json")
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert (row["year"], row["month"], row["day"], row["hour"]) == ("甲辰", "丙寅", "戊戌", "庚申")

    # Human output goes through templates and catalogs: both must be in the wheel.
    human = run("calendar", "--at", "2024-02-04T16:27:08+08:00")
    assert human.returncode == 0 and "戊戌" in human.stdout, human.stderr
    bad = run("shensha", "甲丑")
    assert bad.returncode == 2
    assert "甲丑" in bad.stderr and "Traceback" not in bad.stderr
