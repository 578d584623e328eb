"""``--png PATH`` of ``sikpan cast``, ``liuyao`` and ``qizheng``: write the chart picture (bot.images)."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.cli.common import UsageError
from bot.i18n import N_


def add_png_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--png", metavar="PATH", help=N_("also write the chart picture (PNG) to PATH"))


def write_png(path: str, data: bytes) -> None:
    """Write the picture; a path that cannot be written is a usage error (localized message, exit 2)."""
    try:
        Path(path).write_bytes(data)
    except OSError as err:
        raise UsageError("error.image.unwritable", path=path, detail=err.strerror or str(err)) from None
