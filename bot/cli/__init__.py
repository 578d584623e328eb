"""The ``sikpan`` command line.

Each subcommand lives in its own module ``bot.cli.<name>`` exposing ``register(subparsers)``; the module
sets ``func`` on its parser (``func(args) -> int``). Bad input ends with a one-line localized message on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Sequence

from bot.cli.common import SikpanArgumentParser, UsageError, lang_from_argv
from bot.i18n import gettext
from bot.sanitize import bounded_params
from engine.errors import EngineInputError

SUBCOMMANDS = ("calendar", "cast", "liuren", "shensha", "liuyao", "qizheng", "run")


def build_parser() -> SikpanArgumentParser:
    parser = SikpanArgumentParser(prog="sikpan", description="式盤 sikpan")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=SikpanArgumentParser)
    for name in SUBCOMMANDS:
        module_name = f"bot.cli.{name}"
        if importlib.util.find_spec(module_name) is None:
            continue
        importlib.import_module(module_name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    lang = lang_from_argv(args_list)
    try:
        args = build_parser().parse_args(args_list)
        result = args.func(args)
        return int(result or 0)
    except UsageError as err:  # the echoed values are bounded: a 1 MB argument echoes 80 characters
        print(gettext(lang, err.code, **bounded_params(err.params, 200)), file=sys.stderr)
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
