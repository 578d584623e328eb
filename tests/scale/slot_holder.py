"""A process that takes send-window slots and never settles them (its requests "in flight" forever), for the
lease test: ``python slot_holder.py REDIS_URL KEY COUNT`` prints ``held`` once it holds COUNT slots of a
``Window(COUNT, 1 s)`` and then waits to be killed (kill -9: nothing settles them)."""

from __future__ import annotations

import asyncio
import sys

from bot.limits import RedisLimiter, Window


async def main(url: str, key: str, count: int) -> None:
    limiter = RedisLimiter.from_url(url)
    budget = Window(count, 1.0)
    for _ in range(count):
        await limiter.acquire(key, budget)
    print("held", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
