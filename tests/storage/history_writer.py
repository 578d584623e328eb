"""One writer process of the concurrency test: ``python history_writer.py TARGET USER N`` adds N history
entries for USER (each its own transaction) and prints the numbers it got, one per line."""

from __future__ import annotations

import asyncio
import sys

from bot.storage import Storage


async def main(target: str, user: str, n: int) -> None:
    storage = await Storage.open(target, migrate=False)
    try:
        got = []
        for i in range(n):
            got.append(
                await storage.add_history(
                    user, kind="cast", command=f"/cast {i}", inputs={}, options={}, view="cast", context={}
                )
            )
    finally:
        await storage.close()
    print("\n".join(map(str, got)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
