"""Shared helpers for the 神煞 tests: the seed excerpts (verbatim lines of the seed files) and small constructors."""

from __future__ import annotations

from pathlib import Path

from engine.core.cycle import Branch, GanZhi, Stem

HERE = Path(__file__).parent

# Verbatim Classical Chinese lines of the seeds, "line<TAB>text" (line numbers of /work/shared/seeds/*):
# seed 000 lines 51–223 (神煞 chapter), seed 002 lines 19–87 (the 44 神煞 tables), seed 003 lines 7 and 19.
SEED_FILES = {"000": "seed000_shensha.tsv", "002": "seed002_tables.tsv", "003": "seed003_excerpt.tsv"}


def load_seed(seed: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for row in (HERE / SEED_FILES[seed]).read_text(encoding="utf-8").splitlines():
        line, text = row.split("\t", 1)
        out[int(line)] = text
    return out


SEEDS = {seed: load_seed(seed) for seed in SEED_FILES}


def gz(text: str) -> GanZhi:
    return GanZhi.parse(text)


def br(ch: str) -> Branch:
    return Branch.from_char(ch)


def day_with_stem(stem: Stem | str) -> GanZhi:
    """A day whose stem is ``stem`` (its 子/丑 day)."""
    s = Stem.from_char(stem) if isinstance(stem, str) else stem
    return GanZhi.from_parts(s, Branch(s % 2))


def day_with_branch(branch: Branch | str) -> GanZhi:
    b = Branch.from_char(branch) if isinstance(branch, str) else branch
    return GanZhi.from_parts(Stem(b % 2), b)


MONTHS = [Branch.YIN.shift(i) for i in range(12)]  # 正月 寅 … 十二月 丑
