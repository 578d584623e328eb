"""``sikpan run`` as a subprocess against the fake Bot API, killed (SIGKILL or SIGTERM) mid-work.

Shared by ``test_crash.py`` (CI: ≥ 20 kill -9 cycles, a SIGTERM run) and ``bench/fuzz_long.py --kills``.
The database holds ``readings`` daily subscriptions due a minute ago (real clock: the subprocess uses the
system clock), so every start sends readings; during each cycle some users also ask for casts (writes).
:func:`audit` reads the database and the fake's record and returns the figures of docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import sqlite3
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from time import monotonic
from zoneinfo import ZoneInfo

from bot.scheduler import DailyStore
from bot.storage import Storage
from tests.fakes.telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "7012345678:AAHfake-TelegramToken_for-crash-cycles-01"
FIRST_CHAT = 700_000  # subscription chats: FIRST_CHAT … FIRST_CHAT + readings - 1
CAST_CHAT = 900_000  # users asking for casts: CAST_CHAT + n


@dataclass
class Figures:
    cycles: int = 0
    readings: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    received: Counter[str] = field(default_factory=Counter)  # daily messages per chat at the fake
    uncertain_never_requested: int = 0  # uncertain rows whose request never reached the fake
    claimed: int = 0
    acknowledged_casts: int = 0
    lost_casts: int = 0  # acknowledged (the reply arrived) but not in the history


async def subscribe(db: str, readings: int) -> None:
    now = datetime.now(UTC)
    local = now.astimezone(ZoneInfo("Asia/Seoul")) - timedelta(minutes=2)
    storage = await Storage.open(db)
    try:
        store = DailyStore(storage)
        for i in range(readings):
            await store.subscribe(
                platform="telegram", chat_id=str(FIRST_CHAT + i), chat_kind="private",
                user_key=f"telegram:{FIRST_CHAT + i}", at_time=time(local.hour, local.minute), tz="Asia/Seoul",
                lang="ko", kind="liuren", options={}, now=now - timedelta(days=1),
            )  # fmt: skip
    finally:
        await storage.close()


# The settling run's overall send rate: no signal comes during it, so the pacing (the cycles' default 28/s,
# which keeps readings queued behind the pacer when a signal comes) has nothing to show there.
SETTLE_RATE = "300"


def _env(tg: FakeTelegram, db: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "SIKPAN_"))}
    env.update({"TELEGRAM_BOT_TOKEN": tg.token, "TELEGRAM_API_BASE_URL": tg.base_url, "SIKPAN_DB": db,
                "SIKPAN_LANG": "ko", "PYTHONPATH": str(ROOT), "PTB_TIMEDELTA": "1"})  # fmt: skip
    env.update(extra)
    return env


def daily_requests(tg: FakeTelegram) -> list[str]:
    chats = []
    for c in tg.calls:
        chat = str(c.params.get("chat_id"))
        if (
            c.method in ("sendMessage", "sendPhoto")
            and chat.isdigit()
            and FIRST_CHAT <= int(chat) < CAST_CHAT
        ):
            chats.append(chat)
    return chats


async def up(tg: FakeTelegram, started: float) -> None:
    """Until the process started at ``started`` (``time.monotonic``, the fake's clock) polls: its first
    getUpdates is held or answered. Only its own requests count — a previous process's long poll still held
    when it was killed ends after the start (409 or empty), but arrived before it."""
    await tg.wait_polling(started, timeout=60)


async def cycle(tg: FakeTelegram, db: str, log: Path, rng: random.Random, sig: int, casts: int = 3) -> bool:
    """Start ``sikpan run``, let it work a little, then send it ``sig``. False if it never came up."""
    started = monotonic()
    with log.open("ab") as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", "--env-file", os.devnull, env=_env(tg, db), cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    try:
        try:
            await up(tg, started)
        except TimeoutError:
            return False
        replies = len(cast_replies(tg))
        for _ in range(casts):  # writes in flight when the signal comes
            user = CAST_CHAT + rng.randrange(50)
            tg.user_says(f"/cast 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} 10:00", chat_id=user)
        sent = len(daily_requests(tg))
        # a few more readings, as many as are left: once every reading is out only the cast is awaited
        want = sent + min(rng.randint(1, 6), unsent(db))
        for _ in range(400):  # a few readings out and (usually) a cast answered, then the signal
            if len(daily_requests(tg)) >= want and len(cast_replies(tg)) > replies:
                break
            await asyncio.sleep(0.005)
        await asyncio.sleep(rng.random() * 0.03)
    finally:
        if proc.returncode is None:
            proc.send_signal(sig)
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    return True


def unsent(db: str) -> int:
    """Readings this start will still request: ``claimed`` rows and subscriptions not yet claimed today
    (a ``sending`` row is never requested again: it becomes ``uncertain``)."""
    con = sqlite3.connect(db)
    try:
        subscriptions = con.execute("SELECT COUNT(*) FROM subscriptions").fetchone()[0]
        rows, claimed = con.execute(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'claimed') FROM deliveries"
        ).fetchone()
    finally:
        con.close()
    return int(subscriptions - rows + claimed)


_CAST_NO = re.compile(r"#(\d+)")


def cast_replies(tg: FakeTelegram) -> list[str]:
    return [c.result.get("text", "") for c in tg.sent if str(c.params.get("chat_id")).isdigit()
            and int(c.params.get("chat_id")) >= CAST_CHAT]  # fmt: skip


def audit(tg: FakeTelegram, db: str, readings: int, cycles: int) -> Figures:
    figures = Figures(cycles=cycles, readings=readings)
    requested = Counter(daily_requests(tg))
    figures.received = Counter(
        str(c.params.get("chat_id"))
        for c in tg.sent
        if str(c.params.get("chat_id")).isdigit() and FIRST_CHAT <= int(c.params.get("chat_id")) < CAST_CHAT
    )
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT s.chat_id, d.status FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id"
        ).fetchall()
        figures.statuses = Counter(status for _, status in rows)
        figures.claimed = figures.statuses["claimed"]
        figures.uncertain_never_requested = sum(
            1 for chat, status in rows if status in ("uncertain", "sending") and chat not in requested
        )
        history = {(key, seq) for key, seq in con.execute("SELECT user_key, seq FROM history")}
    finally:
        con.close()
    for c in tg.sent:
        chat = str(c.params.get("chat_id"))
        if chat.isdigit() and int(chat) >= CAST_CHAT:
            m = _CAST_NO.search(c.shown)
            if m:
                figures.acknowledged_casts += 1
                if (f"telegram:{chat}", int(m.group(1))) not in history:
                    figures.lost_casts += 1
    return figures


async def settle_run(tg: FakeTelegram, db: str, log: Path, readings: int, timeout: float = 60) -> None:
    """A last start that runs until no reading is left ``claimed``, then a clean SIGTERM."""
    started = monotonic()
    with log.open("ab") as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", "--env-file", os.devnull, cwd=ROOT,
            env=_env(tg, db, TELEGRAM_SEND_RATE=SETTLE_RATE),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    try:
        await up(tg, started)
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while loop.time() < end:
            con = sqlite3.connect(db)
            try:
                left = con.execute(
                    "SELECT COUNT(*) FROM deliveries WHERE status IN ('claimed', 'sending')"
                ).fetchone()[0]
                total = con.execute("SELECT COUNT(*) FROM deliveries").fetchone()[0]
            finally:
                con.close()
            if total >= readings and left == 0:
                break
            await asyncio.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 30)
