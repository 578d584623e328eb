"""Make the shipped font: a subset of Noto Sans CJK KR (SIL OFL 1.1, Debian's fonts-noto-cjk) holding every
character the chart pictures can draw (``bot.images.charset.drawable_characters``), plus its licence.

    apt-get install -y fonts-noto-cjk && pip install -e '.[test]'     # fontTools comes with the test extra
    python scripts/make_font_subset.py [--source-dir /usr/share/fonts/opentype/noto]

Writes bot/images/data/NotoSansCJKkr-{Regular,Bold}.subset.otf and bot/images/data/OFL.txt. Run it again
whenever a table, a place or an ``image.*`` message gains a character (tests/images/test_font.py fails until
then). The output is deterministic for a given source font and fontTools version.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.images.charset import drawable_characters  # noqa: E402
from bot.images.draw import FONT_FILES  # noqa: E402

FACE = "Noto Sans CJK KR"
SOURCES = {False: "NotoSansCJK-Regular.ttc", True: "NotoSansCJK-Bold.ttc"}
COPYRIGHT = Path("/usr/share/doc/fonts-noto-cjk/copyright")


def _face(collection: TTCollection) -> TTFont:
    for font in collection.fonts:
        if font["name"].getDebugName(1) == FACE or font["name"].getDebugName(16) == FACE:
            return font
    raise SystemExit(f"no face {FACE!r} in the collection")


def make(source: Path, target: Path, chars: str) -> None:
    font = _face(TTCollection(str(source)))
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.hinting = False
    options.desubroutinize = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    font["head"].modified = font["head"].created  # no build timestamp …
    font.recalcTimestamp = False  # … and none put back on save: the same input gives the same bytes
    font.save(str(target))


def licence_text() -> str:
    """The SIL OFL 1.1 text of Debian's copyright file for the package, and the font's own copyright."""
    lines = COPYRIGHT.read_text(encoding="utf-8").splitlines()
    start = lines.index("License: SIL-1.1", lines.index("License: SIL-1.1") + 1)
    body = []
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break
        body.append("" if line.strip() == "." else line[1:])
    return "\n".join(body).strip() + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source-dir", type=Path, default=Path("/usr/share/fonts/opentype/noto"))
    args = parser.parse_args()
    chars = "".join(sorted(drawable_characters()))
    data = ROOT / "bot" / "images" / "data"
    for bold, name in SOURCES.items():
        target = data / FONT_FILES[bold]
        make(args.source_dir / name, target, chars)
        print(f"{target.relative_to(ROOT)}: {len(chars)} characters, {target.stat().st_size} bytes")
    font = _face(TTCollection(str(args.source_dir / SOURCES[False])))
    copyright_line = font["name"].getDebugName(0)
    header = (
        f"The font files in this folder are subsets of {FACE} (Regular, Bold) from Debian's fonts-noto-cjk,\n"
        f"made by scripts/make_font_subset.py. {copyright_line}\n"
        "They are licensed under the SIL Open Font License, Version 1.1, reproduced below.\n\n"
    )
    (data / "OFL.txt").write_text(header + licence_text(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
