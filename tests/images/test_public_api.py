"""The pictures use Pillow's public API only (issue 31): no private module (``PIL._imaging``), no ``_`` name of
Pillow, and none of the core objects behind its public classes (``Image.im``, ``Image.core``,
``ImageDraw.draw``), which change between versions without notice."""

from __future__ import annotations

import ast
from pathlib import Path

import bot.images

SOURCES = sorted(Path(bot.images.__file__).parent.glob("*.py"))
CORE_ATTRIBUTES = {"im", "core", "draw"}  # Image.im, Image.core, ImageDraw.ImageDraw.draw


def private_uses(source: str) -> list[str]:
    """Each use of a private or core part of Pillow in a module's source, as ``line: what``."""
    found = []
    pillow: set[str] = set()  # the names Pillow's modules are bound to
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "PIL":
                    pillow.add((alias.asname or alias.name).split(".")[0])
                    if any(part.startswith("_") for part in alias.name.split(".")):
                        found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "PIL":
            module = node.module or ""
            for alias in node.names:
                pillow.add(alias.asname or alias.name)
                if any(part.startswith("_") for part in [*module.split("."), alias.name]):
                    found.append(f"{node.lineno}: from {module} import {alias.name}")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            on_pillow = isinstance(node.value, ast.Name) and node.value.id in pillow
            if node.attr in CORE_ATTRIBUTES or (on_pillow and node.attr.startswith("_")):
                found.append(f"{node.lineno}: .{node.attr}")
    return found


def test_the_pictures_use_no_private_part_of_pillow() -> None:
    assert SOURCES
    uses = {path.name: private_uses(path.read_text(encoding="utf-8")) for path in SOURCES}
    assert not {name: found for name, found in uses.items() if found}


def test_the_check_finds_each_kind_of_private_use() -> None:
    source = (
        "from PIL import Image, _imaging\n"
        "import PIL._imaging\n"
        "from PIL._imaging import ImagingCore\n"
        "core = Image.new('L', (1, 1)).im\n"
        "Image._getencoder\n"
        "pen.draw.draw_bitmap\n"
        "Image.core.fill\n"
    )
    assert private_uses(source) == [
        "1: from PIL import _imaging",
        "2: import PIL._imaging",
        "3: from PIL._imaging import ImagingCore",
        "4: .im",
        "5: ._getencoder",
        "6: .draw",
        "7: .core",
    ]
    assert private_uses("from PIL import Image\nImage.frombuffer\nImage.new('L', (1, 1)).crop\n") == []
