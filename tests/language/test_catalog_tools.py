"""The catalogs as the gettext tools expect them (issue 15, point 5).

- ``pybabel extract`` (babel.cfg, scripts/extract_messages.py) finds every message of the catalogs, and the
  catalogs hold every message it finds: no id is built where the tools cannot see it;
- the checked-in ``locales/sikpan.pot`` is what extraction gives today;
- no template builds a message id by concatenation (``_("a." ~ code)``);
- every catalog declares its plural forms (Korean and Classical Chinese have one: nplurals=1).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import extract_messages  # noqa: E402


def _ids(path: Path) -> set[str]:
    with path.open("rb") as fh:
        return {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(fh, locale=None) if m.id}


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> set[str]:
    pot = tmp_path_factory.mktemp("pot") / "sikpan.pot"
    extract_messages.extract(pot)
    return _ids(pot)


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_extraction_finds_every_catalog_message_and_no_other(extracted, lang):
    catalog: set[str] = set()
    for po in (ROOT / "locales" / lang / "LC_MESSAGES").glob("*.po"):
        catalog |= _ids(po)
    assert sorted(catalog - extracted) == [], (
        "in the catalog, but no code or template names it where pybabel sees"
    )
    assert sorted(extracted - catalog) == [], "used by code or a template, but not in the catalog"


def test_the_checked_in_pot_is_up_to_date(extracted):
    assert _ids(ROOT / "locales" / "sikpan.pot") == extracted, "run scripts/extract_messages.py"


CONCATENATED = re.compile(r"""_\(\s*["'][^"']*["']\s*(~|\+)""")


def test_no_template_builds_a_message_id():
    bad = [
        (str(t.relative_to(ROOT)), m.group(0))
        for t in sorted((ROOT / "templates").rglob("*.j2"))
        for m in CONCATENATED.finditer(t.read_text(encoding="utf-8"))
    ]
    assert bad == []
    assert CONCATENATED.search("""{{ _("liuyao.check." ~ ch.check) }}""")


@pytest.mark.parametrize("po", sorted((ROOT / "locales").glob("*/LC_MESSAGES/*.po")), ids=lambda p: p.name)
def test_each_catalog_declares_its_plural_forms(po):
    assert '"Plural-Forms: nplurals=1; plural=0;\\n"' in po.read_text(encoding="utf-8")
