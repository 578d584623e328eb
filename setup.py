"""Build step of sikpan: compile the gettext catalogs (``locales/*/LC_MESSAGES/*.po``) into ``.mo`` files.

Everything else is declared in ``pyproject.toml``. The ``.po`` files are the source of truth; the ``.mo``
files are written next to them (so editable installs and the source tree see them too) before the regular
``build_py`` copies the package data. Babel is a build requirement (``[build-system] requires``), not a
run-time dependency: ``bot.i18n`` reads ``.mo`` files without it.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def compile_catalogs(root: Path = ROOT) -> list[Path]:
    """Compile every ``locales/<lang>/LC_MESSAGES/<domain>.po`` whose ``.mo`` is missing or older."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po in sorted((root / "locales").glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=None)
        with mo.open("wb") as fh:
            write_mo(fh, catalog, use_fuzzy=False)
        written.append(mo)
    return written


class BuildPyWithCatalogs(build_py):
    def run(self) -> None:
        compile_catalogs()
        super().run()


setup(cmdclass={"build_py": BuildPyWithCatalogs})
