"""The gettext catalogs: ``.po`` is the source, the build's ``.mo`` is what runs (issue 11, packaging).

- every ``.mo`` says what its ``.po`` says (a stale one fails: rebuild with ``pip install -e .``);
- ``bot.i18n.read_mo`` reads what the standard library's ``gettext.GNUTranslations`` reads;
- message ids are unique across the domains of a language (they are merged);
- the CLI's texts (argparse's own and every option's help) exist in both languages.
"""

from __future__ import annotations

import argparse
import gettext
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot.i18n import LANGS, catalog, read_mo

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = sorted((ROOT / "locales").glob("*/LC_MESSAGES/*.po"))


def _po_messages(po: Path) -> dict[str, str]:
    with po.open("rb") as fh:
        cat = read_po(fh, locale=None)
    return {m.id: m.string for m in cat if m.id and isinstance(m.id, str) and m.string}


@pytest.mark.parametrize("po", CATALOGS, ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_each_mo_is_compiled_from_its_po(po):
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: the build compiles it (pip install -e .)"
    assert read_mo(mo.read_bytes()) == _po_messages(po), f"{mo} is stale: rebuild (pip install -e .)"


@pytest.mark.parametrize("po", CATALOGS, ids=lambda p: f"{p.parts[-3]}/{p.name}")
def test_read_mo_agrees_with_the_standard_library(po):
    mo = po.with_suffix(".mo")
    ours = read_mo(mo.read_bytes())
    with mo.open("rb") as fh:
        theirs = gettext.GNUTranslations(fh)
    assert ours and all(theirs.gettext(msgid) == text for msgid, text in ours.items())


@pytest.mark.parametrize("lang", LANGS)
def test_message_ids_are_unique_across_domains(lang):
    seen: dict[str, str] = {}
    for po in CATALOGS:
        if po.parts[-3] != lang:
            continue
        for msgid in _po_messages(po):
            assert msgid not in seen, f"{msgid!r} in both {seen[msgid]} and {po.name}"
            seen[msgid] = po.name
    assert seen.keys() == catalog(lang).keys()


def _help_texts(parser: argparse.ArgumentParser) -> set[str]:
    texts = {g.title for g in parser._action_groups if g.title}
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            texts.add(action.help)
        if isinstance(action, argparse._SubParsersAction):
            texts |= {a.help for a in action._choices_actions if a.help}
            for sub in action.choices.values():
                texts |= _help_texts(sub)
    return texts


@pytest.mark.parametrize("lang", LANGS)
def test_every_cli_text_is_translated(lang):
    from bot.cli import build_parser

    texts = _help_texts(build_parser()) - {"式盤 sikpan"}  # built outside argparse_language: English ids
    texts |= {"usage: ", "the following arguments are required: %s", "unrecognized arguments: %s"}
    missing = sorted(t for t in texts if t not in catalog(lang))
    assert not missing, missing
