"""One writer process of the concurrency test: ``python history_writer.py TARGET USER N`` adds N history
entries for USER (each its own transaction) and prints each number it got as its write returns, one per line
(the crash test kills it midway and looks for every number printed)."""

from __future__ import annotations

import asyncio
import sys

from bot.storage import Storage


async def main(target: str, user: str, n: int) -> None:
    storage = await Storage.open(target, migrate=False)
    try:
        for i in range(n):
            seq = await storage.add_history(
                user, kind="cast", command=f"/cast {i}", inputs={}, options={}, view="cast", context={}
            )
            print(seq, flush=True)
    finally:
        await storage.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
