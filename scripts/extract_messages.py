"""Extract every message id of the code and templates into ``locales/sikpan.pot`` (pybabel, babel.cfg).

Run: ``.venv/bin/python scripts/extract_messages.py`` (Babel is a build/dev requirement, not a run-time one).
The keywords say where an id stands in our calls: ``gettext(lang, msgid)``, ``ngettext(lang, singular,
plural, n)``, ``N_(msgid)`` (bot/msgids.py and option helps), the errors ``EngineInputError(msgid, …)``,
``CommandError(msgid, …)``, ``error_reply(msgid, …)``, ``UsageError(msgid, …)``; templates call ``_()``.
``tests/language/test_catalog_tools.py`` checks that the checked-in .pot is what this extracts and that it
holds every message of the catalogs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POT = ROOT / "locales" / "sikpan.pot"
KEYWORDS = (
    "_",
    "N_",
    "gettext:2",
    "ngettext:2,3",
    "EngineInputError",
    "CommandError",
    "error_reply",
    "UsageError",
    "ConfigError",
    "StartupError",
)


def command(output: Path) -> list[str]:
    args = [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", str(ROOT / "babel.cfg")]
    args += ["--no-default-keywords", "--no-location", "--omit-header", "--sort-output", "-o", str(output)]
    for keyword in KEYWORDS:
        args += ["-k", keyword]
    return [*args, "."]


def extract(output: Path = POT) -> None:
    subprocess.run(command(output), cwd=ROOT, check=True, capture_output=True)


if __name__ == "__main__":
    extract()
    print(POT)
