"""Write locales/passages.json: how a reader finds a line of a seed text that our data cites as ``000:19``.

    python scripts/gen_passages.py [SEED_DIR]      # default: ../shared/seeds beside the repository

For each line of Classical Chinese of seeds 000 and 002, its opening words (up to the first punctuation, at
most eight characters; a 002 entry's name before its space); for each line of seed 003, the example it belongs
to (counted by the 課體 lines). ``bot.i18n.cite`` names a seed line by them (《易冒》「何謂之局」, 八課例第一例);
tests/language/test_jargon.py checks the table against the seeds.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HAN = re.compile(r"[\u4e00-\u9fff]")
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def _lines(seed_dir: Path, seed: str) -> list[str]:
    return next(seed_dir.glob(f"{seed}_*.txt")).read_text(encoding="utf-8").split("\n")


def main(argv: list[str]) -> int:
    seed_dir = Path(argv[0]) if argv else ROOT.parent / "shared" / "seeds"
    out: dict[str, object] = {
        "source": "the seed texts 000, 002, 003: for each line of Classical Chinese, how a reader finds it — its "
        "opening words (000, 002) or its example (003, counted by its 課體 line); scripts/gen_passages.py",
        "openings": {},
        "examples": {},
    }
    openings: dict[str, dict[str, str]] = {}
    for seed in ("000", "002"):
        table = {}
        for i, line in enumerate(_lines(seed_dir, seed), 1):
            s = line.strip().lstrip("（(")
            if not s or HANGUL.search(s) or not HAN.match(s):
                continue
            head = re.split(r"[，。：；、？！ 　]", s, maxsplit=1)[0]
            if seed == "002" and " " in s and len(s.split(" ")[0]) <= 4:
                head = s.split(" ")[0]
            table[str(i)] = head[:8]
        openings[seed] = table
    examples: dict[str, int] = {}
    n = 0
    for i, line in enumerate(_lines(seed_dir, "003"), 1):
        if line.startswith("課體："):
            n += 1
        if line.strip() and not HANGUL.search(line):
            examples[str(i)] = max(n, 1)
    out["openings"] = openings
    out["examples"] = {"003": examples}
    path = ROOT / "locales" / "passages.json"
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
