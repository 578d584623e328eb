"""The asker's 本命 and 行年 on the 大六壬 picture (issue 32 item 5): marked in the 地盤 cell of their branch and
named in the header; the picture cache keeps charts with and without them apart."""

from __future__ import annotations

from bot import pictures
from bot.images import liuren
from bot.images.labels import label
from engine.liuren.nianming import Sex, xingnian, year_ganzhi
from tests.images.cases import liuren_case

# one born in 1990 (庚午) asking at 37 세: a man's 行年 丙寅 + 36 = 壬寅 (《三命通會》「論小運」 counting)
MING = (year_ganzhi(1990), xingnian(37, Sex.MALE))


def test_cells_of_benming_and_xingnian_are_marked():
    lay = liuren.layout(liuren_case(), "ko", MING)
    marked = {cell.earth.char: cell.ming for cell in lay.cells if cell.ming}
    assert marked == {"午": ("benming",), "寅": ("xingnian",)}
    for cell in lay.cells:
        if cell.ming:
            near = [t.text for t in lay.scene.texts() if abs(t.x - cell.x) < 83 and abs(t.y - cell.y) < 83]
            assert all(label("ko", f"liuren.{m}") in near for m in cell.ming)
    assert any("庚午" in line and "壬寅" in line for line in lay.header)


def test_without_them_nothing_is_marked():
    lay = liuren.layout(liuren_case(), "lzh")
    assert not any(cell.ming for cell in lay.cells)
    assert not any(label("lzh", "liuren.benming") in line for line in lay.header)
    only = liuren.layout(liuren_case(), "lzh", (MING[0], None))
    assert {c.earth.char for c in only.cells if c.ming} == {"午"}
    assert any("本命庚午" in line for line in only.header)


def test_the_cache_keeps_them_apart():
    chart = liuren_case()
    assert pictures.liuren_key(chart, "ko", MING) != pictures.liuren_key(chart, "ko")
    assert pictures.liuren_png(chart, "ko", MING) != pictures.liuren_png(chart, "ko")
