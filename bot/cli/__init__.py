"""The ``sikpan`` command line.

Each subcommand lives in its own module ``bot.cli.<name>`` exposing ``register(subparsers)``; the module
sets ``func`` on its parser (``func(args) -> int``). Only the module of the subcommand given is imported (a
command loads only what it uses: ``sikpan calendar`` never imports the 七政 ephemeris or the chat shell);
``sikpan``, ``sikpan --help`` and an unknown subcommand load them all, for the list.

- ``sikpan --version``: the installed version.
- ``sikpan`` alone: the usage with the list of subcommands, on stderr, exit status 2 (nothing was run).
- Bad input ends with one localized line on stderr and exit status 2, never a traceback. Every text is in
  the language of ``--lang`` (argparse's own included).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from bot.cli.common import SikpanArgumentParser, UsageError, argparse_language, lang_from_argv
from bot.i18n import N_, gettext
from bot.sanitize import bounded_params
from engine.errors import EngineInputError

SUBCOMMANDS = (
    "calendar",
    "cast",
    "liuren",
    "shensha",
    "liuyao",
    "qizheng",
    "run",
    "backup",
    "migrate",
    "export",
    "import",
)
# the module of a subcommand when it is not ``bot.cli.<name>`` (``import`` is a keyword; export is its pair)
MODULES = {"export": "transfer", "import": "transfer"}


class VersionAction(argparse.Action):
    """``--version``: reads the installed distribution's version only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help=N_("show program's version number and exit"))

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from importlib.metadata import version

        sys.stdout.write(f"sikpan {version('sikpan')}\n")
        parser.exit(0)


def _wanted(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option), if it is one."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in SUBCOMMANDS else None
    return None


def build_parser(only: str | None = None) -> SikpanArgumentParser:
    """The parser, with every subcommand or (``only``) just that one."""
    parser = SikpanArgumentParser(prog="sikpan", description="式盤 sikpan")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=SikpanArgumentParser)
    names = SUBCOMMANDS if only is None else (only,)
    for module in dict.fromkeys(MODULES.get(name, name) for name in names):
        importlib.import_module(f"bot.cli.{module}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    lang = lang_from_argv(args_list)
    with argparse_language(lang):
        try:
            parser = build_parser(_wanted(args_list))
            args = parser.parse_args(args_list)
            if args.command is None:  # a bare ``sikpan`` (or only options): what there is to run
                sys.stderr.write(parser.format_help())
                return 2
            return int(args.func(args) or 0)
        except UsageError as err:  # the echoed values are bounded: a 1 MB argument echoes 80 characters
            # … and never carry a secret (a database URL's password, a token: bot.config.redact)
            from bot.config import redact_known  # loaded on an error only (a command loads what it uses)

            print(redact_known(gettext(lang, err.code, **bounded_params(err.params, 200))), file=sys.stderr)
            return 2
        except EngineInputError as err:
            print(gettext(lang, err.code, **bounded_params(err.params)), file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            return 0


if __name__ == "__main__":
    sys.exit(main())
