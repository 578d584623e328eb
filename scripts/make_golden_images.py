"""Regenerate the golden chart pictures of tests/images/golden from the cases of tests/images/cases.py.

    python scripts/make_golden_images.py

Run it after a deliberate change of a picture (layout, font, colours), look at the three PNGs, then commit.
tests/images/test_golden.py compares fresh renders with them within a small pixel tolerance.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.images import render_liuren, render_liuyao, render_qizheng  # noqa: E402
from tests.images.cases import liuren_case, liuyao_case, qizheng_case  # noqa: E402

GOLDEN = ROOT / "tests" / "images" / "golden"


def main() -> int:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    qz, place = qizheng_case()
    images = {
        "liuren_ko.png": render_liuren(liuren_case(), "ko"),
        "liuyao_lzh.png": render_liuyao(liuyao_case(), "lzh"),
        "qizheng_ko.png": render_qizheng(qz, "ko", place),
    }
    for name, data in images.items():
        (GOLDEN / name).write_bytes(data)
        print(f"{(GOLDEN / name).relative_to(ROOT)}: {len(data)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
