"""Benchmark: the bot's CPU per command and its update → reply latency, against a minimal echo bot (issue #18).

Run (the figures in the README come from these; on a shared machine run each a few times):

    .venv/bin/python bench/bot.py                          # open loop, 20 commands/s, production pacing
    .venv/bin/python bench/bot.py --rate 100 --pace off    # open loop, 100 commands/s, pacing off
    .venv/bin/python bench/bot.py --mode closed            # closed loop: 150 users, each waits for its answer
    .venv/bin/python bench/bot.py send                     # one reply: Bot.send_message/send_photo vs TelegramSender
    add --json for one line of figures

Four processes on 127.0.0.1, nothing leaves the loopback interface:

* this one: the simulated users. 150 private chats (half ``ko``, half ``zh-hant``) send a mix of
  ``/cast now``, ``/liuyao`` and ``/shensha`` (a third each, in turn per user).
* the fake Bot API (``tests/fakes/telegram.py``: real HTTP, long polling, HTML validation) in a process of
  its own (``_bench_fake``), so that the users' loop, which lags at 100/s, no longer delays it: it pushes
  the users' commands as updates and stamps each when queued and its reply when accepted, both with its own
  clock, and ships (chat, update id, time) to the users over a socket pair (``bench/_ipc.py``).
* the bot under test, started as its own process: ``sikpan run`` itself (``--pace production``: the
  production sender, uvloop, the aiohttp transport (``bot/telegram/aiohttprequest.py``), SQLite in WAL mode in a temp dir, the scheduler) — or,
  ``--pace off``, the same application built with the sender's pacing off (``build_application(pace=False)``),
  since 100 messages/s is over Telegram's 30/s and any pacer that keeps to it would queue them;
* the floor: a minimal python-telegram-bot echo bot (``ApplicationBuilder`` defaults, ``concurrent_updates``,
  one handler that answers ``reply_text(text)``), run the same way.
* (``--bots``) the transport floor, ``media``: the echo bot's setup with one handler that answers each command
  with the Telegram traffic sikpan sends for it (``FLOOR_SHAPES``, measured from the fake's recorded sends) and
  no other work: ``/cast now`` a photo (uploaded once per language, then by its ``file_id``) with an HTML
  caption and 19 buttons, ``/liuyao`` a fresh PNG upload each time with 9, ``/shensha`` an HTML text with 8 —
  what any PTB bot answering with the same messages pays; ``media-aiohttp`` and ``echo-aiohttp``: those two
  bots on sikpan's request class (``bot/telegram/aiohttprequest.py``) instead of PTB's httpx one.

Modes. ``open`` (default): Poisson arrivals at ``--rate`` per second, each from a user with no command
pending (so every reply is matched to its command; if all were busy, the longest-idle one); ``--warmup``
commands at the same rate first, not counted. ``closed``: every user sends its next command as soon as the
answer to the previous one has arrived (throughput-bound), after one warm-up command each.

Figures per bot: CPU ms per command (user + system time of the bot process from ``/proc/<pid>/stat`` over
the measured commands, divided by their number; it includes the long polling; the fake's and the users' CPU
are not in it) and per thread (``threads``: ``loop``, the main thread, which runs the event loop —
``loop_cpu_ms_per_command`` —, ``other``, the rest of the process, and ``named``, each thread by the name
Python gave it: the bench children name their OS threads, ``bench/_threads.py``: ``Thread-N (_conn…``,
aiosqlite's connection threads, run the SQLite statements and syncs; chart pictures are drawn on the loop),
latency from the moment the fake queued the update until it accepted the reply (the first ``sendMessage`` or ``sendPhoto`` to the chat: ``/cast`` and ``/liuyao``
answer with a photo), p50/p99/max, commands/s and messages/s. ``cpu_ratio`` = sikpan's CPU per command / the
echo bot's, measured in the same run (``loop_cpu_ratio``: sikpan's event loop alone). ``--repeat N`` runs
sikpan and the echo bot alternately N times each (sikpan, echo, sikpan, echo, …; pair k on seed ``--seed`` +
k) and reports each run (``runs``, ``results``), the median ratio (``cpu_ratio``, ``loop_cpu_ratio``) with its
``…_range`` [min, max], and each bot's medians (``medians``): on this shared 2-core machine one pair's ratio
swings 0.9–1.3, so compare medians of several. With more bots (``--bots sikpan,echo,media``: each run in
turn, the same seed in one round) ``ratios`` holds each bot's CPU per command over each one after it
(``RATIO_ORDER``: ``sikpan/echo``, ``media/echo``, ``sikpan/media``, …), per run and as median, min, max. Latency depends on the machine's load (CPU-time ratios much
less): repeat on a quiet machine.

Unanswered commands are reported, not waited for: when no reply came for ``--stall`` seconds (or after
``--timeout``) the run ends and ``unanswered_detail`` says, per command left, whether the bot fetched the
update and what the fake received for that chat. ``BENCH_PY_SPY=/path/to/py-spy`` records a profile of the
bot over the measured commands (``prof-<bot>.txt``, collapsed stacks); ``BENCH_PROFILE=/path/x.prof`` writes a
cProfile of sikpan's event loop (thread CPU time) over the measured commands only (``bench/_profile.py``:
production pacing); ``BENCH_STAGES=/path/x.json``, the event loop's CPU per stage of a command over them
(``bench/_stages.py``: ``loop_stages`` in the result, ms and calls per command, each stage inclusive).
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/ holds modules named like the standard library's (calendar.py): take it off the path first.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from typing import Any  # noqa: E402

from bench import _figures, _ipc, _stages, _threads  # noqa: E402
from tests.fakes.telegram import FakeTelegram  # noqa: E402

TOKEN = "7000000001:AAbenchmark-token-not-a-real-one-000"
MIX = ("/cast now", "/liuyao", "/shensha")
# the bots ``--bots`` can name, by the name their results carry; and the transport floors' request classes
BOT_NAMES = {
    "sikpan": "sikpan",
    "echo": "echo (httpx)",
    "media": "media (httpx)",
    "media-aiohttp": "media (aiohttp)",
    "echo-aiohttp": "echo (aiohttp)",
}
FLOORS = {  # the floors' processes: the role and the request class (floor_application)
    "echo": ("_echo", "httpx"),
    "media": ("_media", "httpx"),
    "media-aiohttp": ("_media", "aiohttp"),
    "echo-aiohttp": ("_echo", "aiohttp"),
}
RATIO_ORDER = (
    "sikpan",
    "media",
    "media-aiohttp",
    "echo",
    "echo-aiohttp",
)  # ``ratios``: each over those after it
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_times(pid: int, thread: int | None = None) -> tuple[float, float]:
    """(user, system) CPU seconds of a process (all its threads), or of one of its threads, from /proc."""
    with open(f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK  # utime, stime (fields 14 and 15 of stat)


def machine() -> str:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{cpu or platform.processor()} × {os.cpu_count()} cores, Linux {platform.release()}, Python {platform.python_version()}"


# --------------------------------------------------------------------------------------- the bot processes
def _by_path(name: str, file: str) -> str:
    """Code that imports ``bench/<file>`` as ``name`` (and ``runpy``, ``sys``) in a bot process, by its path."""
    return (
        "import importlib.util, runpy, sys\n"
        f"spec = importlib.util.spec_from_file_location('bench_{name}', {str(_HERE / file)!r})\n"
        f"{name} = importlib.util.module_from_spec(spec); spec.loader.exec_module({name})\n"
    )


def _window_marked() -> str:
    """``BENCH_PROFILE`` or ``BENCH_STAGES`` (the first, when both are set): the path the sikpan process
    (production pacing) writes its figures of the measured commands to, which the bench marks with SIGUSR2."""
    return os.environ.get("BENCH_PROFILE") or os.environ.get("BENCH_STAGES") or ""


def bot_command(kind: str, base_url: str, db: str, pace: str) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if kind == "sikpan" and pace == "production":
        env.update(TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=base_url, SIKPAN_DB=db)
        env.pop("DISCORD_BOT_TOKEN", None)
        if os.environ.get("BENCH_PROFILE"):  # the event loop's CPU profile over the measured commands
            code = (  # bench/_profile.py: on and off at SIGUSR2 (drive sends it at their start and end)
                _by_path("profiling", "_profile.py") + "p = profiling.toggled()\n"
                f"sys.argv = ['sikpan', 'run', '--env-file', {os.devnull!r}]\n"
                "try:\n    runpy.run_module('bot.cli', run_name='__main__')\n"
                "except SystemExit:\n    pass\n"
                f"p.disable(); p.dump_stats({os.environ['BENCH_PROFILE']!r})\n"
            )
            return [sys.executable, "-c", code], env
        code = _by_path("threads", "_threads.py") + "threads.name_os_threads()\n"
        if os.environ.get("BENCH_STAGES"):  # the event loop's CPU per stage over the measured commands
            # bench/_stages.py: counted between two SIGUSR2, as the profile
            code += _by_path("stages", "_stages.py") + f"stages.arm({os.environ['BENCH_STAGES']!r})\n"
        code += (  # ``sikpan run`` itself (``python -m bot.cli run``), its threads named (bench/_threads.py)
            f"sys.argv = ['sikpan', 'run', '--env-file', {os.devnull!r}]\n"
            "runpy.run_module('bot.cli', run_name='__main__', alter_sys=True)\n"
        )
        return [sys.executable, "-c", code], env
    if kind in FLOORS:  # a floor on either request class: run_echo_bot, run_media_bot (the transport floor)
        role, transport = FLOORS[kind]
        return [sys.executable, str(Path(__file__).resolve()), role, base_url, db, transport], env
    return [sys.executable, str(Path(__file__).resolve()), "_sikpan_unpaced", base_url, db], env


def floor_application(base_url: str, transport: str = "httpx") -> Any:
    """A floor bot's ``Application``: ``ApplicationBuilder`` defaults with ``concurrent_updates``; ``transport``
    ``httpx``: PTB's own requests (``HTTPXRequest``); ``aiohttp``: sikpan's (``bot.telegram.sender.telegram_request``,
    ``getUpdates`` on an ``AiohttpRequest`` of its own, as ``bot.telegram.build_application``)."""
    from telegram.ext import ApplicationBuilder

    builder = ApplicationBuilder().token(TOKEN).base_url(base_url).concurrent_updates(256)
    if transport == "aiohttp":
        from bot.telegram.aiohttprequest import AiohttpRequest
        from bot.telegram.sender import telegram_request

        builder = builder.request(telegram_request(256)).get_updates_request(
            AiohttpRequest(1, connect_timeout=5.0, read_timeout=10.0)
        )
    return builder.build()


def run_echo_bot(base_url: str, transport: str = "httpx") -> None:
    """The floor: the smallest python-telegram-bot bot that answers every text (PTB's defaults; ``transport``:
    :func:`floor_application`)."""
    from telegram import Update
    from telegram.ext import ContextTypes, MessageHandler, filters

    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.message is not None and update.message.text is not None
        await update.message.reply_text(update.message.text)

    app = floor_application(base_url, transport)
    app.add_handler(MessageHandler(filters.TEXT, echo))
    app.run_polling(poll_interval=0.0, timeout=10)


# The transport floor (issue #31 item 8): sikpan's replies to the bench mix as they reach the Bot API, measured
# on main c51cf2b from the fake's recorded sends (150 users × the three commands, half ko, half zh-hant,
# ``--pace off``: the same sends as production pacing; the README's bench section). Per command and language
# (``zh-hant`` → lzh, ``ko``): the text or caption as (characters, UTF-8 bytes), the picture (PNG bytes; None:
# a text message), the keyboard's rows of buttons as (label characters, callback_data bytes). A ``/cast now`` picture is uploaded once per language and then sent
# by the ``file_id`` the first answer held (every ``/cast now`` of one 時辰 and language draws the same
# picture); a ``/liuyao`` picture is new each time (a fresh upload).
FloorShape = tuple[tuple[int, int], int | None, tuple[tuple[tuple[int, int], ...], ...]]
FLOOR_PICTURES = {"/cast now": (1080, 1230), "/liuyao": (1080, 1072)}  # sikpan's pictures' width, height
FLOOR_SHAPES: dict[tuple[str, str], FloorShape] = {
    ("/cast now", "lzh"): ((409, 807), 64_112, (
        ((3, 32), (1, 31), (1, 32), (1, 32), (1, 32)), ((2, 30), (2, 30), (2, 31), (2, 31)),
        ((2, 31), (2, 31), (2, 30), (2, 31)), ((2, 28), (2, 28), (2, 27)), ((3, 31), (4, 33), (4, 33)),
    )),
    ("/cast now", "ko"): ((557, 1084), 69_404, (
        ((5, 32), (4, 31), (4, 32), (3, 32), (4, 32)), ((2, 30), (2, 30), (2, 31), (2, 31)),
        ((2, 31), (2, 31), (2, 30), (2, 31)), ((6, 28), (5, 28), (2, 27)), ((4, 31), (4, 33), (4, 33)),
    )),
    ("/liuyao", "lzh"): ((415, 884), 42_392, (
        ((3, 32), (1, 34), (2, 32)), ((2, 26), (2, 30), (2, 27)), ((3, 31), (4, 33), (4, 33)),
    )),
    ("/liuyao", "ko"): ((611, 1229), 53_441, (
        ((6, 32), (4, 34), (6, 32)), ((6, 26), (5, 30), (2, 27)), ((4, 31), (4, 33), (4, 33)),
    )),
    ("/shensha", "lzh"): ((826, 1731), None, (
        ((3, 32), (1, 29), (1, 32), (1, 32)), ((2, 27),), ((3, 31), (4, 33), (4, 33)),
    )),
    ("/shensha", "ko"): ((990, 2018), None, (
        ((6, 32), (4, 29), (4, 32), (5, 32)), ((2, 27),), ((4, 31), (4, 33), (4, 33)),
    )),
}  # fmt: skip


def floor_text(chars: int, size: int) -> str:
    """HTML of ``chars`` characters and ``size`` UTF-8 bytes (±1): a bold title, a run of 甲 (3 bytes each)
    and lines of ASCII."""
    wide = (size - chars) // 2  # characters of 3 bytes; the rest of 1
    narrow = chars - wide - len("<b></b>")
    line = "\n" + "x" * 39
    return "<b>甲子</b>" + "甲" * (wide - 2) + line * (narrow // 40) + line[: narrow % 40]


def flat_png(dimensions: tuple[int, int]) -> bytes:
    """A PNG of one colour, ``dimensions`` (width, height) in pixels (a few hundred bytes)."""
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", dimensions, (40, 90, 160)).save(out, format="PNG")
    return out.getvalue()


def floor_png(png: bytes, size: int, serial: int) -> bytes:
    """``png`` (:func:`flat_png`) grown to exactly ``size`` bytes by a private ancillary chunk (``flRb``,
    which readers skip), ``serial`` in its first bytes (so that every serial is a new file): no drawing, no
    compression (tens of µs)."""
    import struct
    import zlib

    pad = size - len(png) - 12  # a chunk: length, type, data, CRC
    data = serial.to_bytes(8, "big") + bytes(pad - 8)
    chunk = struct.pack(">I", len(data)) + b"flRb" + data + struct.pack(">I", zlib.crc32(b"flRb" + data))
    return png[:33] + chunk + png[33:]  # after the 8-byte signature and the IHDR chunk (25 bytes)


def run_media_bot(base_url: str, transport: str) -> None:
    """The transport floor: a minimal python-telegram-bot bot that answers each command of the mix with the
    Telegram traffic sikpan sends for it (:data:`FLOOR_SHAPES`) and no other work — a photo with an HTML
    caption and its inline keyboard (``/cast now`` by ``file_id`` after its first upload per language,
    ``/liuyao`` a fresh upload each time), ``/shensha`` an HTML text with its keyboard; the keyboards built
    per reply (``InlineKeyboardButton``s, as any bot whose buttons carry per-message data). ``transport``:
    ``httpx``, the echo bot's setup, or ``aiohttp``, sikpan's requests (:func:`floor_application`)."""
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputFile, LinkPreviewOptions, Update
    from telegram.ext import ContextTypes, MessageHandler, filters

    texts = {key: floor_text(*shape[0]) for key, shape in FLOOR_SHAPES.items()}
    flat = {command: flat_png(dimensions) for command, dimensions in FLOOR_PICTURES.items()}
    pictures = {key: floor_png(flat[key[0]], shape[1], 0) for key, shape in FLOOR_SHAPES.items() if shape[1]}
    labels = {  # the buttons' labels and callback data (per message in sikpan: sealed, numbered)
        key: [[("乙" * chars, "d" * data) for chars, data in row] for row in shape[2]]
        for key, shape in FLOOR_SHAPES.items()
    }
    file_ids: dict[tuple[str, str], str] = {}
    serial = iter(range(1, 1 << 62))
    no_preview = LinkPreviewOptions(is_disabled=True)

    async def answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.message
        assert message is not None and message.text is not None and message.from_user is not None
        key = (message.text, "ko" if message.from_user.language_code == "ko" else "lzh")
        markup = InlineKeyboardMarkup(
            [[InlineKeyboardButton(label, callback_data=data) for label, data in row] for row in labels[key]]
        )
        chat, text = message.chat_id, texts[key]
        if key not in pictures:
            await context.bot.send_message(
                chat, text, parse_mode="HTML", link_preview_options=no_preview, reply_markup=markup
            )
            return
        if key in file_ids:
            await context.bot.send_photo(
                chat, file_ids[key], caption=text, parse_mode="HTML", reply_markup=markup
            )
            return
        if message.text == "/liuyao":  # a new picture: fresh bytes every time
            fresh = floor_png(flat[message.text], len(pictures[key]), next(serial))
            photo = InputFile(fresh, filename="chart.png")
        else:
            photo = InputFile(pictures[key], filename="chart.png")
        sent = await context.bot.send_photo(chat, photo, caption=text, parse_mode="HTML", reply_markup=markup)
        if message.text == "/cast now":
            file_ids[key] = sent.photo[-1].file_id

    app = floor_application(base_url, transport)
    app.add_handler(MessageHandler(filters.TEXT, answer))
    app.run_polling(poll_interval=0.0, timeout=10)


def _latency() -> Any:
    """``bench/latency.py`` (``--trace``), loaded by path: bench/ is not on ``sys.path`` (see the top)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_latency", _HERE / "latency.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_sikpan_unpaced(base_url: str, db: str) -> None:
    """sikpan's Telegram application as ``sikpan run`` builds it, with the sender's pacing off; with
    ``BENCH_TRACE=path`` (``--trace``) its stages stamped per update (``bench/latency.py``), written there;
    ``BENCH_GC_FREEZE=0``: without ``sikpan run``'s ``freeze_heap``."""
    trace = os.environ.get("BENCH_TRACE")
    latency = _latency() if trace else None
    if latency is not None:
        latency.install()
    from bot.cli.run import freeze_heap, loop_factory
    from bot.config import Settings
    from bot.context import create_context
    from bot.telegram import build_application, poll, prepare

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        ctx = await create_context(Settings(telegram_token=TOKEN, telegram_api_base_url=base_url, db_path=db))
        app = build_application(ctx, TOKEN, base_url, pace=False)
        freeze = freeze_heap if os.environ.get("BENCH_GC_FREEZE") != "0" else lambda: None  # =0: to compare
        freeze()  # as ``sikpan run`` does before it starts; again at SIGUSR1 (after the warm-up)
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, freeze)
        lag = asyncio.ensure_future(latency.watch_lag(latency.LAGS)) if latency is not None else None
        async with app:
            await prepare(app)
            await app.start()
            await poll(app, stop, timeout=10)  # until SIGTERM, then drained (the application stopped)
        if lag is not None:
            lag.cancel()
        await ctx.close()

    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(main())
    if latency is not None and trace:
        latency.dump(trace)


# --------------------------------------------------------------------------------------- the fake's process
REPLY_METHODS = frozenset({"sendMessage", "sendPhoto"})  # a reply is a text or a photo message


class BenchTelegram(FakeTelegram):
    """The fake Bot API, telling ``on_reply(chat_id, update_id, t)`` of every message it accepts (text or
    photo): the oldest update of that chat not yet answered (``None``: none left, a split reply)."""

    on_reply: Any = None
    answered: dict[int, float] | None = None  # --trace: update id → when a getUpdates answer first held it
    polling: asyncio.Event | None = None  # set at the bot's first getUpdates
    waiting: dict[int, collections.deque[int]] | None = None  # chat → its updates pushed, not yet answered

    async def _m_getupdates(self, params: dict[str, Any], files: dict[str, bytes]) -> Any:
        if self.polling is not None:
            self.polling.set()
        updates = await super()._m_getupdates(params, files)
        if self.answered is not None:
            now = time.perf_counter()
            for u in updates:
                self.answered.setdefault(u["update_id"], now)
        return updates

    async def _dispatch(
        self, token: str, method: str, params: dict[str, Any], files: dict[str, bytes], call: Any
    ) -> Any:
        response = await super()._dispatch(token, method, params, files, call)
        if call.status == 200 and method in REPLY_METHODS and self.on_reply is not None:
            now = time.perf_counter()
            chat = int(params["chat_id"])
            queue = self.waiting.get(chat) if self.waiting is not None else None
            self.on_reply(chat, queue.popleft() if queue else None, now)
        return response


def serve_bench_fake(fd: int) -> None:
    """The fake Bot API of the ``bots`` modes, in its own process (``_bench_fake FD``): frames on the
    socket ``fd`` (``bench/_ipc.py``). Pushes the driver's commands as updates and stamps each (``pushed``)
    and each reply it accepts (``reply``) with its own clock; ``trace`` starts the ``--trace`` stamps,
    ``diagnose`` answers what it saw of commands left unanswered, ``finish`` hands over the trace stamps."""

    async def main() -> None:
        reader, writer = await asyncio.open_connection(sock=socket.socket(fileno=fd))

        def out(message: list[Any]) -> None:
            writer.write(_ipc.encode(message))

        lags: list[tuple[float, float]] = []
        lag: asyncio.Future[None] | None = None
        async with BenchTelegram(token=TOKEN) as fake:
            fake.polling, fake.waiting = asyncio.Event(), collections.defaultdict(collections.deque)
            fake.on_reply = lambda chat, update_id, t: out(["reply", chat, update_id, t])
            out(["url", fake.base_url])
            asyncio.get_running_loop().create_task(_when_polling(fake.polling, out))
            while (message := await _ipc.read(reader)) is not None:
                kind = message[0]
                if kind == "push":
                    _, chat, text, lang = message
                    update = fake.make_update(text, chat_id=chat, language_code=lang)
                    now = time.perf_counter()
                    fake.waiting[chat].append(update["update_id"])
                    fake.push_update(update)
                    out(["pushed", chat, update["update_id"], now])
                elif kind == "trace":
                    fake.answered = {}
                    lag = asyncio.ensure_future(_latency().watch_lag(lags))
                elif kind == "diagnose":
                    out(["diagnosis", diagnose_calls(fake, message[1])])
                elif kind == "finish":
                    if lag is not None:
                        lag.cancel()
                    out(["finished", {"answered": fake.answered or {}, "lags": lags}])
                    await writer.drain()
            writer.close()

    asyncio.run(main())


async def _when_polling(polling: asyncio.Event, out: Any) -> None:
    await polling.wait()
    out(["polling"])


def diagnose_calls(fake: Any, commands: list[list[int]]) -> dict[str, Any]:
    """For each (chat, update id) left unanswered: whether the bot fetched the update (the offset it
    confirmed) and the last calls the fake received for that chat."""
    out = {}
    for chat, update_id in commands:
        calls = [
            f"{c.method} {c.status}"
            for c in fake.calls
            if str(c.params.get("chat_id")) == str(chat) and c.method != "getUpdates"
        ]
        out[str(update_id)] = {"fetched": fake.confirmed_offset > update_id, "calls_to_chat": calls[-6:]}
    return out


class FakeProcess:
    """The driver's side of :func:`serve_bench_fake`: the process, the frames it sends dispatched to
    ``users`` (pushed, reply) or to the one request waiting for its answer."""

    def __init__(self, users: Users) -> None:
        self.users = users
        self.base_url = ""
        self.polling = asyncio.Event()
        self._answers: dict[str, asyncio.Future[Any]] = {}

    async def start(self) -> None:
        ours, theirs = socket.socketpair()
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "_bench_fake", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
        )
        theirs.close()
        self.reader, self.writer = await asyncio.open_connection(sock=ours)
        first = await asyncio.wait_for(_ipc.read(self.reader), 60)
        if not first or first[0] != "url":
            raise RuntimeError(f"the fake Bot API did not start: {first!r}")
        self.base_url = first[1]
        self._events = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while (message := await _ipc.read(self.reader)) is not None:
            kind = message[0]
            if kind == "pushed":
                self.users.pushed(*message[1:])
            elif kind == "reply":
                self.users.replied(*message[1:])
            elif kind == "polling":
                self.polling.set()
            elif kind in self._answers:
                self._answers.pop(kind).set_result(message[1])

    def send(self, message: list[Any]) -> None:
        self.writer.write(_ipc.encode(message))

    async def ask(self, message: list[Any], answer: str) -> Any:
        future = self._answers[answer] = asyncio.get_running_loop().create_future()
        self.send(message)
        return await asyncio.wait_for(future, 60)

    def check(self) -> None:
        """Raise what stopped the reading of the fake's frames, if anything did (the fake's end, a bug)."""
        if self._events.done() and not self._events.cancelled():
            error = self._events.exception()
            raise RuntimeError(f"the fake Bot API's frames stopped: {error!r}") from error

    async def stop(self) -> None:
        self.writer.close()
        self._events.cancel()
        try:
            await asyncio.to_thread(self.proc.wait, 30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# --------------------------------------------------------------------------------------- the driver
class Users:
    """The simulated users: per chat the queue of pending commands ([text, update id, measured]; the update
    id once the fake has pushed it); replies are matched in order. Times are the fake process's."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.sent = [0] * count
        self.pending: dict[int, collections.deque[list[Any]]] = {
            10_000 + i: collections.deque() for i in range(count)
        }
        self.idle_since: dict[int, float] = {chat: 0.0 for chat in self.pending}
        self.latencies: list[float] = []
        self.messages = 0
        self.unmatched = 0
        self.recording = False
        self.changed = asyncio.Event()
        self.pushed_at: dict[int, float] = {}  # update id → when the fake queued it
        self.replied_at: dict[int, float] = {}  # update id → when the fake accepted its reply
        self.measured: set[int] = set()  # update ids of the measured commands (not the warm-up)

    def text_for(self, chat: int) -> tuple[str, str]:
        i = chat - 10_000
        text = MIX[(i + self.sent[i]) % len(MIX)]
        self.sent[i] += 1
        return text, ("ko" if i % 2 else "zh-hant")

    def add(self, chat: int, text: str, record: bool) -> None:
        self.pending[chat].append([text, None, record])

    def pushed(self, chat: int, update_id: int, t: float) -> None:
        entry = next(e for e in self.pending[chat] if e[1] is None)  # the fake pushes in the order sent
        entry[1] = update_id
        self.pushed_at[update_id] = t
        if entry[2]:
            self.measured.add(update_id)

    def replied(self, chat: int, update_id: int | None, t: float) -> None:
        self.messages += self.recording
        queue = self.pending.get(chat)
        if not queue or update_id is None:
            self.unmatched += 1
            return
        _, head, record = queue.popleft()
        assert head == update_id, (chat, head, update_id)  # both sides match a chat's replies in order
        self.replied_at[update_id] = t
        if self.recording and record:
            self.latencies.append(t - self.pushed_at[update_id])
        if not queue:
            self.idle_since[chat] = t
        self.changed.set()

    def outstanding(self) -> int:
        return sum(len(q) for q in self.pending.values())

    def unanswered(self) -> list[tuple[int, bool, str, int]]:
        """(chat, measured, text, update id) of every command still waiting for its reply."""
        return [
            (chat, record, text, uid if uid is not None else -1)
            for chat, q in self.pending.items()
            for text, uid, record in q
        ]


async def drive(
    kind: str, mode: str, rate: float, commands: int, warmup: int, users_n: int, pace: str,
    timeout: float, stall: float, seed: int, trace: bool = False,
) -> dict[str, Any]:  # fmt: skip
    rng = random.Random(seed)
    users = Users(users_n)
    trace = trace and kind == "sikpan" and pace == "off"  # the stages are stamped in the unpaced child
    fake = FakeProcess(users)
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if trace:
                fake.send(["trace"])
            argv, env = bot_command(kind, fake.base_url, f"{tmp}/bench.db", pace)
            if trace:
                env["BENCH_TRACE"] = f"{tmp}/trace.json"
            proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                await _ready(fake, proc, timeout=60)

                def send(chat: int, record: bool) -> None:
                    text, lang = users.text_for(chat)
                    users.add(chat, text, record)
                    fake.send(["push", chat, text, lang])

                async def settle() -> None:
                    """Until every command is answered, or no reply came for ``stall`` seconds (or
                    ``timeout`` passed): what is left is reported as unanswered, not waited for."""
                    deadline = time.perf_counter() + timeout
                    last, left = time.perf_counter(), users.outstanding()
                    while left and time.perf_counter() < deadline and time.perf_counter() - last < stall:
                        fake.check()
                        users.changed.clear()
                        try:
                            await asyncio.wait_for(users.changed.wait(), 1.0)
                        except TimeoutError:
                            pass
                        if users.outstanding() != left:
                            last, left = time.perf_counter(), users.outstanding()

                async def open_loop(n: int, record: bool) -> None:
                    loop = asyncio.get_running_loop()
                    due = loop.time()
                    for _ in range(n):
                        due += rng.expovariate(rate)
                        delay = due - loop.time()
                        if delay > 0:
                            await asyncio.sleep(delay)
                        idle = [c for c, q in users.pending.items() if not q]
                        chat = (
                            rng.choice(idle) if idle else min(users.pending, key=users.idle_since.__getitem__)
                        )
                        send(chat, record)

                async def closed_loop(n: int, record: bool) -> None:
                    left = n

                    async def user(chat: int) -> None:
                        nonlocal left
                        while left > 0:
                            left -= 1
                            send(chat, record)
                            while users.pending[chat]:
                                users.changed.clear()
                                await users.changed.wait()

                    await asyncio.gather(*(user(chat) for chat in list(users.pending)))

                if mode == "open":
                    await open_loop(warmup, False)
                else:
                    for chat in users.pending:  # one command each: every user known, every cache warm
                        send(chat, False)
                await settle()
                # the unpaced child's second freeze_heap, as ``sikpan run`` makes it after a minute
                if kind == "sikpan" and pace == "off":
                    proc.send_signal(signal.SIGUSR1)
                    await asyncio.sleep(0.2)
                users.recording = True
                spy = _py_spy(proc.pid, kind)
                profiled = kind == "sikpan" and pace == "production" and bool(_window_marked())
                if profiled:  # the profile (or the stages) covers the measured commands only (bot_command)
                    proc.send_signal(signal.SIGUSR2)
                cpu0, t0 = cpu_times(proc.pid), time.perf_counter()
                threads0 = _threads.snapshot(proc.pid)
                if mode == "open":
                    await open_loop(commands, True)
                else:
                    await asyncio.wait_for(closed_loop(commands, True), timeout)
                await settle()
                if profiled:
                    proc.send_signal(signal.SIGUSR2)
                threads1 = _threads.snapshot(proc.pid)
                cpu1, t1 = cpu_times(proc.pid), time.perf_counter()
                users.recording = False
                left = users.unanswered()
                seen = await fake.ask(["diagnose", [[chat, uid] for chat, _, _, uid in left]], "diagnosis")
                if spy is not None:
                    spy.send_signal(signal.SIGINT)
                    await asyncio.to_thread(spy.wait, 60)
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    _, err = await asyncio.to_thread(proc.communicate, timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    _, err = proc.communicate()
            latency = None
            if trace:
                fake_side = await fake.ask(["finish"], "finished")
                answered = {int(uid): t for uid, t in fake_side["answered"].items()}
                with open(f"{tmp}/trace.json") as f:
                    bot_side = json.load(f)
                driver = {
                    uid: {"pushed": users.pushed_at[uid], "answered": answered.get(uid, users.pushed_at[uid]), "reply": t}
                    for uid, t in users.replied_at.items()
                    if uid in users.pushed_at and uid in users.measured
                }  # fmt: skip
                latency = _latency().breakdown(bot_side, driver, [tuple(x) for x in fake_side["lags"]])
            errors = [
                line for line in (err or b"").decode(errors="replace").splitlines() if " ERROR " in line
            ]
    finally:
        await fake.stop()
    unanswered = [
        {
            "chat": chat, "text": text, "update_id": uid, "warmup": not record,
            "pending_in_chat": len(users.pending[chat]), **seen.get(str(uid), {}),
        }
        for chat, record, text, uid in left
    ]  # fmt: skip
    done = len(users.latencies)
    lat = users.latencies
    process_seconds = sum(cpu1) - sum(cpu0)
    split = _figures.thread_split(threads0, threads1, proc.pid, process_seconds, done)
    return {
        "bot": BOT_NAMES[kind],
        "commands": done,
        # measured commands with no reply when the replies stopped coming (``--stall``) or ``--timeout``
        "unanswered": commands - done,
        "unanswered_warmup": sum(1 for u in unanswered if u["warmup"]),
        "unanswered_detail": unanswered[:10],
        # of those, in a chat with several commands pending (a user over the admission limits: dropped)
        "unanswered_in_backlog": sum(1 for u in unanswered if u["pending_in_chat"] > 1),
        "unmatched_messages": users.unmatched,  # messages to a chat with no command pending (a split reply)
        "messages": users.messages,
        "cpu_ms_per_command": round(process_seconds * 1000 / done, 3) if done else None,
        "system_ms_per_command": round((cpu1[1] - cpu0[1]) * 1000 / done, 3) if done else None,
        # the event loop's thread alone; the rest is other threads (sikpan: the picture drawer)
        "loop_cpu_ms_per_command": split["loop"],
        "threads": split,
        "seconds": round(t1 - t0, 2),
        "commands_per_s": round(done / (t1 - t0), 1),
        "p50_ms": round(_figures.percentile(lat, 0.50) * 1000, 1),
        "p99_ms": round(_figures.percentile(lat, 0.99) * 1000, 1),
        "max_ms": round(max(lat) * 1000, 1) if lat else None,
        "mean_ms": round(statistics.fmean(lat) * 1000, 1) if lat else None,
        "bot_errors_logged": len(errors),
        "bot_errors": errors[:3],
        **({"latency": latency} if latency else {}),
        **({"loop_stages": _stages_of(done)} if profiled and not os.environ.get("BENCH_PROFILE") else {}),
    }


def _stages_of(commands: int) -> dict[str, Any] | None:
    """``BENCH_STAGES``: the event loop's CPU per stage, per measured command (``bench/_stages.py``); None
    when the bot wrote none (it did not get to the end of the measured commands)."""
    try:
        with open(os.environ["BENCH_STAGES"]) as f:
            figures = json.load(f)
    except (OSError, ValueError):
        return None
    return _stages.per_command(figures, commands) if commands else None


def _py_spy(pid: int, kind: str) -> subprocess.Popen[bytes] | None:
    """With ``BENCH_PY_SPY=/path/to/py-spy`` (not a project dependency): a sampling profile of the bot over
    the measured commands, ``prof-<bot>.txt`` in the working directory (collapsed stacks, for flamegraph tools) (all threads, idle
    samples left out: where the CPU time goes)."""
    exe = os.environ.get("BENCH_PY_SPY")
    if not exe:
        return None
    out = f"prof-{kind}.txt"
    return subprocess.Popen(
        [exe, "record", "--pid", str(pid), "--format", "raw", "--rate", "250", "-o", out],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def _ready(fake: FakeProcess, proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Until the bot polls (after ``getMe`` and, for sikpan, the command menu)."""
    deadline = time.perf_counter() + timeout
    while not fake.polling.is_set():
        if proc.poll() is not None:
            raise RuntimeError(
                f"the bot exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}"
            )  # type: ignore[union-attr]
        if time.perf_counter() > deadline:
            raise RuntimeError("the bot did not start polling")
        await asyncio.sleep(0.05)


# --------------------------------------------------------------------------------------- one reply alone
def serve_fake() -> None:
    """A fake Bot API in its own process for ``send``: prints its base URL, serves until stdin closes."""

    async def main() -> None:
        async with FakeTelegram(token=TOKEN) as fake:
            print(fake.base_url, flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)

    asyncio.run(main())


def start_fake() -> tuple[subprocess.Popen[bytes], str]:
    """:func:`serve_fake` started as a child process: (the process, its base URL); closing its stdin ends it."""
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "_fake"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stdin is not None
    return proc, proc.stdout.readline().decode().strip()


def stop_fake(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=30)


async def sends(requests: int) -> list[dict[str, Any]]:
    """CPU of this process per reply (the fake Bot API in another process): python-telegram-bot's
    ``Bot.send_message`` / ``send_photo`` against ``TelegramSender.send`` (the same methods, with the sender's
    splitting and error policy; a picture sent before goes by ``file_id``), both on the bot's transport
    (``bot.telegram.sender.telegram_request``), pacing off. The reply: 40 bold runs of text with a keyboard of four page buttons; the photos: four
    800×600 PNGs in turn (as every ``/cast now`` of one 時辰 in one language draws the same picture)."""
    import io

    import telegram
    from PIL import Image

    from bot.telegram.sender import TelegramSender, telegram_request

    def png(i: int) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (800, 600), (40 * i, 90, 160)).save(out, format="PNG")
        return out.getvalue()

    proc, base_url = start_fake()
    text = "<b>甲子</b> 하루 " * 40
    labels = [("盤", "p:1:brief"), ("讀", "p:1:read"), ("解", "p:1:gloss"), ("審", "p:1:trace")]
    pictures = [png(i) for i in range(4)]
    rows: list[dict[str, Any]] = []
    try:
        async with telegram.Bot(TOKEN, base_url=base_url, request=telegram_request()) as bot:
            sender = TelegramSender(bot, pace=False)

            async def ptb(i: int, photo: bool) -> None:
                markup = telegram.InlineKeyboardMarkup(
                    [[telegram.InlineKeyboardButton(t, callback_data=d) for t, d in labels]]
                )
                chat = 20_000 + i % 150
                if photo:
                    upload = telegram.InputFile(pictures[i % 4], filename="chart.png")
                    await bot.send_photo(chat, upload, caption=text, parse_mode="HTML", reply_markup=markup)
                else:
                    await bot.send_message(
                        chat, text, parse_mode="HTML", disable_web_page_preview=True, reply_markup=markup
                    )

            async def ours(i: int, photo: bool) -> None:
                markup = telegram.InlineKeyboardMarkup(
                    [[telegram.InlineKeyboardButton(t, callback_data=d) for t, d in labels]]
                )
                chat = 20_000 + i % 150
                if photo:
                    await sender.send(chat, "", photo=pictures[i % 4], caption=text, reply_markup=markup)
                else:
                    await sender.send(chat, text, reply_markup=markup)

            for photo in (False, True):
                for name, one in (("Bot.send_*", ptb), ("TelegramSender", ours)):
                    for i in range(50):  # warm: connections, the sender's file_ids
                        await one(i, photo)
                    c0 = time.thread_time()
                    for i in range(requests):
                        await one(i, photo)
                    cpu = time.thread_time() - c0
                    rows.append({
                        "reply": "photo" if photo else "text", "via": name, "replies": requests,
                        "cpu_ms_per_reply": round(cpu * 1000 / requests, 3),
                    })  # fmt: skip
    finally:
        stop_fake(proc)
    return rows


# --------------------------------------------------------------------------------------- main
def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1].startswith("_"):  # a child process of this benchmark
        role, rest = sys.argv[1], sys.argv[2:]
        if role in ("_echo", "_sikpan_unpaced", "_media"):
            _threads.name_os_threads()
        if role == "_echo":
            run_echo_bot(rest[0], rest[2])
        elif role == "_media":
            run_media_bot(rest[0], rest[2])
        elif role == "_sikpan_unpaced":
            run_sikpan_unpaced(rest[0], rest[1])
        elif role == "_fake":
            serve_fake()
        elif role == "_bench_fake":
            serve_bench_fake(int(rest[0]))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", nargs="?", default="bots", choices=("bots", "send"))
    parser.add_argument("--mode", choices=("open", "closed"), default="open")
    parser.add_argument("--rate", type=float, default=20.0, help="open loop: commands per second (Poisson)")
    parser.add_argument(
        "--commands", type=int, default=None, help="measured commands (default: 30 s worth, ≥ 600)"
    )
    parser.add_argument("--warmup", type=int, default=150, help="open loop: warm-up commands, not counted")
    parser.add_argument("--users", type=int, default=150)
    parser.add_argument("--pace", choices=("production", "off"), default="production")
    parser.add_argument(
        "--bots", default="sikpan,echo",
        help="comma-separated, run in this order: sikpan, echo, media (the transport floor on PTB's httpx "
        "requests, as the echo bot), media-aiohttp and echo-aiohttp (those two on sikpan's aiohttp requests)",
    )  # fmt: skip
    parser.add_argument("--requests", type=int, default=1000, help="send: replies per way of sending")
    parser.add_argument("--timeout", type=float, default=300.0, help="longest wait for the last replies")
    parser.add_argument(
        "--stall", type=float, default=20.0, help="stop waiting when no reply came for this many seconds"
    )
    parser.add_argument("--seed", type=int, default=18, help="the first pair's; run k (from 0) uses seed + k")
    parser.add_argument(
        "--repeat", type=int, default=1, help="run sikpan and echo alternately this many times each"
    )
    parser.add_argument("--json", action="store_true", help="one line of JSON")
    parser.add_argument(
        "--trace", action="store_true",
        help="with --pace off: where sikpan's slowest commands wait, stage by stage (bench/latency.py)",
    )  # fmt: skip
    args = parser.parse_args()
    stamp = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine()}
    if args.what == "send":
        rows = asyncio.run(sends(min(args.requests, 1000)))
        if args.json:
            print(json.dumps({**stamp, "send": rows}, ensure_ascii=False))
        else:
            for r in rows:
                print(f"{r['reply']:5s} via {r['via']:15s}: {r['cpu_ms_per_reply']:.3f} ms CPU/reply")
        return
    commands = args.commands or max(600, int(args.rate * 30))
    kinds = [k.strip() for k in args.bots.split(",")]
    if unknown := [k for k in kinds if k not in BOT_NAMES]:
        parser.error(f"--bots: unknown {', '.join(unknown)} (known: {', '.join(BOT_NAMES)})")
    results: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for run in range(args.repeat):  # sikpan, echo, sikpan, echo, …: one seed per pair
        seed = args.seed + run
        pair = {}
        for kind in kinds:
            r = asyncio.run(drive(
                kind, args.mode, args.rate, commands, args.warmup, args.users, args.pace,
                args.timeout, args.stall, seed, args.trace,
            ))  # fmt: skip
            r["run"] = run
            results.append(r)
            pair[kind] = r
        row: dict[str, Any] = {"run": run, "seed": seed}
        if "sikpan" in pair and "echo" in pair:
            row.update(_figures.pair_ratios(pair["sikpan"], pair["echo"]))
        if len(pair) > 1:  # every bot's CPU per command over each bot after it in RATIO_ORDER
            row["ratios"] = _figures.cpu_ratios(pair, RATIO_ORDER)
        runs.append(row)
    out: dict[str, Any] = {
        **stamp, "mode": args.mode, "rate": args.rate if args.mode == "open" else None,
        "users": args.users, "pace": args.pace, "mix": list(MIX), "repeat": args.repeat,
        # the medians over the runs (cpu_ratio, loop_cpu_ratio) and their [min, max] (…_range)
        **_figures.summary(runs), "runs": runs,
        # "a/b": a's CPU per command over b's, the median over the runs and its [min, max]
        **({"ratios": _figures.ratio_spreads([r["ratios"] for r in runs if "ratios" in r])} if len(kinds) > 1 else {}),
        "medians": {
            r["bot"]: _figures.summary(
                [x for x in results if x["bot"] == r["bot"]],
                ("cpu_ms_per_command", "loop_cpu_ms_per_command", "system_ms_per_command", "p50_ms", "p99_ms"),
            )
            for r in results[: len(kinds)]
        },
        "results": results,
    }  # fmt: skip
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return
    print(f"{out['date']} · {out['machine']}")
    print(
        f"{args.mode} loop"
        + (f", {args.rate:g} commands/s (Poisson)" if args.mode == "open" else f", {args.users} users")
        + f", pacing {args.pace}, {args.repeat} run(s)"
    )
    for r in results:
        threads = ", ".join(f"{name} {ms}" for name, ms in r["threads"]["named"].items())
        print(
            f"  run {r['run']} {r['bot']:15s} {r['commands']} commands ({r['unanswered']} unanswered, {r['unanswered_in_backlog']} of them queued behind others of their user, {r['messages']} messages) in {r['seconds']} s: "
            f"{r['cpu_ms_per_command']} ms CPU/command ({r['loop_cpu_ms_per_command']} on the event loop, {r['threads']['other']} on other threads: {threads or '—'}), "
            f"{r['commands_per_s']} commands/s; latency p50 {r['p50_ms']} ms, "
            f"p99 {r['p99_ms']} ms, max {r['max_ms']} ms; {r['bot_errors_logged']} errors logged"
        )
    for r in results:
        if "latency" in r:
            print(json.dumps(r["latency"], ensure_ascii=False, indent=1))
    for row in runs:
        if "cpu_ratio" in row:
            print(
                f"  run {row['run']} (seed {row['seed']}): CPU ratio {row['cpu_ratio']}×, loop {row['loop_cpu_ratio']}×"
            )
    for name, s in out.get("ratios", {}).items():
        if name == "sikpan/echo":  # the line below
            continue
        print(f"  CPU per command, {name}: median {s['median']}× ({s['min']}–{s['max']})")
    if "cpu_ratio" in out:
        print(
            f"  CPU per command, sikpan / echo bot: median {out['cpu_ratio']}× ({out['cpu_ratio_range'][0]}–{out['cpu_ratio_range'][1]});"
            f" sikpan's event loop alone: {out['loop_cpu_ratio']}× ({out['loop_cpu_ratio_range'][0]}–{out['loop_cpu_ratio_range'][1]})"
        )


if __name__ == "__main__":
    main()
