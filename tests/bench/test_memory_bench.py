"""``bench/memory.py`` (issue 36 item 7) runs its mix and prints the RSS at its marks and the caches' bytes,
every cache within its byte bound (a short run: the full 20,000 is for the benchmark itself)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_run_prints_the_rss_and_every_cache_within_its_bound():
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "memory.py"), "--commands", "40", "--users", "5", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    figures = json.loads(out.splitlines()[-1])
    assert set(figures["rss_mb"]) == {"0", "40"} and figures["rss_mb"]["40"] > 0
    assert figures["caches"]["pictures.liuren"]["entries"] >= 1  # the mix cast (and drew) something
    for name, cache in figures["caches"].items():
        limit = cache["limit_bytes"]
        assert limit is None or cache["bytes"] <= limit, name
