"""Shared pieces of the CLI: the localized argument parser that fails with exit 2, common options, output.

Every text the CLI prints comes from the catalogs (``locales/<lang>/LC_MESSAGES/*.po``) in the language of
``--lang`` (else ``SIKPAN_LANG``, else ko): our messages by message id, and argparse's own texts (usage,
section titles, its error messages) and the options' help strings by their English text, which is the
message id of ``cli.po`` (the gettext convention for source-language ids).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, NoReturn

from bot.i18n import LANGS, N_, default_lang, gettext, normalize_lang, typeset
from engine.core.cycle import BRANCH_CHARS, STEM_CHARS, Branch, GanZhi
from engine.errors import EngineInputError


class UsageError(Exception):
    """Bad command-line input; ``code`` is a message id in the locale catalogs."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class LocalizedHelpFormatter(argparse.HelpFormatter):
    """Help strings and section titles looked up in the catalogs of the parser's language."""

    def __init__(self, prog: str, lang: str) -> None:
        super().__init__(prog)
        self.lang = lang

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return gettext(self.lang, action.help) if action.help else action.help

    def start_section(self, heading: str | None) -> None:
        super().start_section(gettext(self.lang, heading) if heading else heading)

    def format_help(self) -> str:
        return typeset(self.lang, super().format_help())


class SikpanArgumentParser(argparse.ArgumentParser):
    """argparse in the CLI's language that raises :class:`UsageError` (exit 2) instead of exiting itself."""

    lang = default_lang()  # set for the run of one command line by :func:`argparse_language`

    def _get_formatter(self) -> argparse.HelpFormatter:
        return LocalizedHelpFormatter(self.prog, self.lang)

    def error(self, message: str) -> NoReturn:
        raise UsageError("error.usage", detail=message, prog=self.prog)


@contextmanager
def argparse_language(lang: str) -> Iterator[None]:
    """argparse's own texts in ``lang`` while the block runs.

    argparse looks each of its messages up, when it prints it, through its module globals ``_`` and
    ``ngettext`` (``gettext.gettext``: the hook it has for translations); for the block they are our
    catalogs' lookups, afterwards the originals again.
    """
    namespace = vars(argparse)
    saved = namespace["_"], namespace["ngettext"], SikpanArgumentParser.lang

    def translate(message: str) -> str:
        return gettext(lang, message)

    def ntranslate(singular: str, plural: str, n: int) -> str:
        return gettext(lang, singular if n == 1 else plural)

    hooks: tuple[Callable[[str], str], Callable[[str, str, int], str]] = (translate, ntranslate)
    namespace["_"], namespace["ngettext"] = hooks
    SikpanArgumentParser.lang = lang
    try:
        yield
    finally:
        namespace["_"], namespace["ngettext"], SikpanArgumentParser.lang = saved


def lang_from_argv(argv: Sequence[str]) -> str:
    """The ``--lang`` value if present and valid, else SIKPAN_LANG, else ko (used before parsing)."""
    for i, arg in enumerate(argv):
        value = None
        if arg == "--lang" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--lang="):
            value = arg.split("=", 1)[1]
        if value is not None:
            return normalize_lang(value) or default_lang()
    return default_lang()


def add_common(parser: argparse.ArgumentParser, json_flag: bool = True) -> None:
    """Options every subcommand takes: ``--lang`` and (usually) ``--json``."""
    parser.add_argument("--lang", choices=LANGS, default=default_lang())
    if json_flag:
        parser.add_argument(
            "--json", action="store_true", help=N_("machine-readable output, one JSON object per line")
        )


def parse_instant(text: str) -> datetime:
    """An ISO-8601 date-time **with** a UTC offset (``2024-02-04T16:27:08+08:00`` or ``…Z``)."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError("error.bad_instant", value=text) from None
    if value.tzinfo is None or value.utcoffset() is None:
        raise UsageError("error.missing_offset", value=text)
    return value


def emit_json(obj: Any) -> None:
    """One JSON object on one line, characters unescaped."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")) + "\n")


def emit_text(text: str) -> None:
    sys.stdout.write(text.rstrip("\n") + "\n")


def parse_branch(text: str, suffix: str = "", code: str | None = None) -> Branch:
    """A 地支 (寅) or the branch of a 干支 (丙寅), optionally followed by ``suffix`` (月, 時).

    Anything else raises :class:`EngineInputError` with ``code`` (default: the core 地支 error).
    """
    t = text.strip().removesuffix(suffix) if suffix else text.strip()
    if len(t) == 2 and t[0] in STEM_CHARS and t[1] in BRANCH_CHARS:
        return GanZhi.parse(t).branch
    if code is not None and (len(t) != 1 or t not in BRANCH_CHARS):
        raise EngineInputError(code, f"not a 地支: {text!r}", value=text)
    return Branch.from_char(t)
