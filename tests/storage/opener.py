"""A process that opens a SQLite database (``Storage.open``: WAL conversion, migrations) at a given instant and
closes it: ``python opener.py PATH EPOCH_SECONDS``. Exit 0 when it opened; the error's line and 1 otherwise."""

from __future__ import annotations

import asyncio
import sys
import time

from bot.storage import Storage


async def main(path: str, at: float) -> int:
    await asyncio.sleep(max(0.0, at - time.time()))
    try:
        store = await Storage.open(path)
    except Exception as exc:  # the process's boundary: reported to the test
        print(repr(exc), file=sys.stderr)
        return 1
    await store.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], float(sys.argv[2]))))
