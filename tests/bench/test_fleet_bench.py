"""``bench/webhook.py`` and ``bench/roles_rss.py`` (issue #35) run a tiny configuration to the end: every update
answered by the replica and every reply accepted by the fake, the memory read from ``/proc``. A functional check
of the scripts, not a timing: no figure is asserted beyond what was counted."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.servers import require_pg, require_redis

ROOT = Path(__file__).resolve().parents[2]


def bench(script: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args, "--json"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_the_webhook_bench_answers_every_update_once():
    require_pg()
    require_redis()
    figures = bench("webhook.py", "--replicas", "1", "--n", "6", "--warmup", "3", "--concurrency", "3")
    [run] = figures["runs"]
    assert run["updates"] == 6 and run["not_200"] == {}
    assert run["replies_accepted"] == 6 and run["reply_chats"] == 6  # one reply per update, each to its chat
    assert run["warmup_replies"] == 3 and run["429"] == 0
    assert run["cpu_ms_per_update"] > 0 and run["rss_mib"][0] > 20


def test_the_memory_bench_reads_a_role_after_serving():
    require_pg()
    require_redis()
    figures = bench("roles_rss.py", "--roles", "webhook", "--n", "3")
    [row] = figures["roles"]
    assert row["role"] == "webhook" and row["served"] == 3 and row["errors_logged"] == 0
    assert row["peak_rss_mib"] >= row["rss_mib"] > 20
