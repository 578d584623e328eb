"""Render every view of a sample of casts in each language into ``docs/samples/`` for a reader to review.

Run: ``.venv/bin/python scripts/gen_samples.py`` (no network; a temporary database; a fixed clock at
2024-02-04 03:30 UTC = 12:30 in Seoul, a 戊戌 day). It writes ``docs/samples/<lang>/<channel>.txt`` for the
chat channels (console, telegram, discord) — each command's reply, the help, the errors — and
``docs/samples/<lang>/cli.txt`` for the ``sikpan`` subcommands. ``tests/language/test_lzh_purity.py`` reads
the same renders (:func:`chat_samples`, :func:`cli_samples`).

The casts: 大六壬 (now, seed 003 entry 1 庚辰日第八局, with a 類神 category), 六爻 (six digits, a time cast),
神煞 (a day 干支), 七政四餘 (a birth in Seoul), the daily reading, the settings views and the errors a user
meets (an unknown command, a bad zone, a bad 干支, a record that does not exist, a text without /).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.app import create_context  # noqa: E402
from bot.commands import Incoming, dispatch, load_commands  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.features.base import pages_of  # noqa: E402
from bot.views import CHANNELS, page_title, render  # noqa: E402
from tests.fakes.clock import ManualClock  # noqa: E402

INSTANT = datetime(2024, 2, 4, 3, 30, tzinfo=UTC)
# a user of each language names the city in their own script
CITY = {"ko": "서울", "lzh": "首爾"}
# and asks about money in their own words (issue 32: a topic reading of the 課)
TOPIC = {"ko": "재물", "lzh": "求財"}

# (what a user types, chat kind, is the user an admin) — in this order, on one user's history
CHAT: tuple[tuple[str, str, bool], ...] = (
    ("/start", "private", True),
    ("/help", "private", True),
    *((f"/help {name}", "private", True) for name in load_commands()),
    ("/cast now", "private", True),
    ("/cast 庚辰 8", "private", True),
    ("/cast now 天文", "private", True),
    ("/cast 甲子 亥 午", "private", True),
    ("/liuyao 797979", "private", True),
    ("/liuyao 876789", "private", True),
    ("/liuyao time", "private", True),
    ("/liuyao 878878 lawsuit", "private", True),
    ("/shensha 甲子", "private", True),
    ("/shensha", "private", True),
    ("/qizheng 1990-05-17 14:30 {city}", "private", True),
    ("/qizheng 1990-05-17 14:30 {city} 2027", "private", True),
    ("/place {city}", "private", True),
    ("/place", "private", True),
    ("/tz", "private", True),
    ("/tz Asia/Seoul", "private", True),
    ("/settings", "private", True),
    ("/settings day_starts 00:00", "private", True),
    ("/settings liuren", "private", True),
    ("/settings qizheng.mansions", "private", True),
    ("/daily", "private", True),
    ("/daily 07:30", "private", True),
    ("/today", "private", True),
    ("/history", "private", True),
    ("/show 1", "private", True),
    ("/lang", "private", True),
    # errors
    ("/nothing", "private", True),
    ("hello", "private", True),
    ("/cast 甲乙 99", "private", True),
    ("/tz Nowhere/City", "private", True),
    ("/show 99", "private", True),
    ("/settings colour blue", "private", True),
    ("/daily 07:30", "group", False),
    ("/forget", "private", True),
    ("/forget yes", "private", True),
)

CLI: tuple[tuple[str, ...], ...] = (
    ("cast", "--day", "庚辰", "--ju", "8"),
    ("cast", "--day", "庚辰", "--ju", "8", "--topic", "{topic}"),
    ("cast", "--at", "2024-02-04T12:30:00+09:00", "--category", "天文"),
    ("calendar", "--at", "2024-02-04T12:30:00+09:00"),
    ("shensha", "--day", "甲子"),
    ("liuyao", "--coins", "797979", "--at", "2024-02-04T12:30:00+09:00"),
    ("liuyao", "--coins", "878878", "--month", "午", "--day", "丁卯", "--use", "疏"),
    ("qizheng", "--at", "1990-05-17T14:30:00+09:00", "--place", "{city}"),
    ("qizheng", "--at", "1990-05-17T14:30:00+09:00", "--place", "{city}", "--on", "2041-07-01"),
    ("cast", "--day", "甲乙", "--ju", "8"),
    ("cast", "--help"),
)


async def _chat(lang: str, pages: bool) -> list[tuple[str, dict[str, str]]]:
    with tempfile.TemporaryDirectory() as tmp:
        ctx = await create_context(
            Settings(db_path=str(Path(tmp) / "samples.db"), lang=lang, tz="Asia/Seoul"),
            clock=ManualClock(INSTANT),
        )
        try:
            # each channel is its own user and chat (what a reply says may depend on the platform: /daily on
            # the console, a group's admin on Telegram, a server's manager on Discord)
            rendered: dict[str, list[str]] = {channel: [] for channel in CHANNELS}
            embeds: list[str] = []
            extra: dict[str, list[dict[str, str]]] = {channel: [] for channel in CHANNELS}
            for channel in CHANNELS:
                for text, kind, admin in CHAT:
                    incoming = Incoming(
                        platform=channel,
                        chat_id="chat-sample" if kind == "private" else "group-sample",
                        user_id="sample",
                        text=text.format(city=CITY[lang]),
                        lang_hint=lang,
                        chat_kind=kind,
                        user_is_admin=admin,
                    )
                    reply = await dispatch(incoming, ctx)
                    rendered[channel].append(render(reply, channel))
                    shown = pages_of(reply.view) if pages and reply.context.get("no") else ()
                    extra[channel].append(
                        {f"{channel} page {p}": render(reply, channel, page=p) for p in shown}
                    )
                    # a stored cast's embed has a title and a footer besides its text
                    if channel == "discord":
                        embeds.append("\n".join(page_title(reply)) if reply.context.get("no") else "")
            texts = [text.format(city=CITY[lang]) for text, _, _ in CHAT]
            return [
                (
                    t,
                    {c: rendered[c][i] for c in CHANNELS}
                    | ({"discord embed": embeds[i]} if embeds[i] else {})
                    | {k: v for c in CHANNELS for k, v in extra[c][i].items()},
                )
                for i, t in enumerate(texts)
            ]
        finally:
            await ctx.close()


def chat_samples(lang: str, pages: bool = False) -> list[tuple[str, dict[str, str]]]:
    """Each sample line a user types, with the reply rendered for each channel (``"console"`` …), a stored
    cast's Discord embed title and footer (``"discord embed"``) and, with ``pages``, each page of a stored cast
    as the channel shows it (``"console page brief"`` …)."""
    return asyncio.run(_chat(lang, pages))


def cli_samples(lang: str) -> list[tuple[str, str]]:
    """Each ``sikpan`` sample command line with what it prints (stdout and stderr)."""
    from bot.cli import main

    out = []
    saved = os.environ.get("SIKPAN_LANG")
    os.environ["SIKPAN_LANG"] = lang
    try:
        for template in CLI:
            argv = tuple(a.format(city=CITY[lang], topic=TOPIC[lang]) for a in template)
            stdout, stderr = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                with contextlib.suppress(SystemExit):
                    main([*argv, "--lang", lang] if "--help" not in argv else [*argv])
            out.append(("sikpan " + " ".join(argv), (stdout.getvalue() + stderr.getvalue()).rstrip("\n")))
    finally:
        if saved is None:
            os.environ.pop("SIKPAN_LANG", None)
        else:
            os.environ["SIKPAN_LANG"] = saved
    return out


def write(lang: str, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    chat = chat_samples(lang)
    written = []
    for channel in CHANNELS:
        path = folder / f"{channel}.txt"
        blocks = [f"» {text}\n\n{texts[channel]}" for text, texts in chat]
        path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
        written.append(path)
    path = folder / "cli.txt"
    path.write_text(
        "\n\n".join(f"$ {cmd}\n\n{text}" for cmd, text in cli_samples(lang)) + "\n", encoding="utf-8"
    )
    return [*written, path]


if __name__ == "__main__":
    for lang in ("ko", "lzh"):
        for p in write(lang, ROOT / "docs" / "samples" / lang):
            print(p.relative_to(ROOT))
