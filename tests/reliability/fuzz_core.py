"""The command-layer fuzz shared by ``test_fuzz.py`` (CI, 10,000 examples) and ``bench/fuzz_long.py``.

A generated command line (real command words and aliases, ``@botname`` suffixes, plausible and hostile
arguments: dates, 干支, numbers, zones, 5,000-character values, control and bidi characters, lone
surrogates) from a user in a private chat, a group or a channel, on each platform, goes through
``bot.commands.dispatch`` and is rendered for all three channels. :func:`check` returns the violations of
the promises of docs/reliability.md for that example (an empty list when all hold):

- no exception leaves ``dispatch`` or the renderer, and none inside a command (``bot.error.internal``);
- Telegram text is valid Bot API HTML (checked with the fake server's parser), every split part within
  4096 visible UTF-16 units; Discord parts within 2000 characters and no live ``@everyone``/``@here``;
- no control, bidi or lone-surrogate character in any rendered text;
- in a group or channel a private-only command answers ``bot.error.private_only`` (nothing personal).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from bot.app import create_context
from bot.commands import COMMANDS, Incoming, Reply, dispatch, lookup, split_command
from bot.config import Settings
from bot.privacy import private_only
from bot.sanitize import clean
from bot.sending import split_discord, split_telegram_html, utf16_len
from bot.views import CHANNELS, render
from tests.fakes.telegram import EntityParseError, visible_text

NAMES = sorted({n for spec in COMMANDS.values() for n in (spec.name, *spec.aliases)})
HOSTILE = ("\x1b[2J", "\x00", "\x07", "\u202e", "\u2066", "\u200f", "\ud800", "\udfff", "\x85", "\x7f",
           "<b>", "</i>", "&amp", "&#0;", "<script>", "@everyone", "@here", "<@123456789012345678>", "```",
           "*", "_", "~~", "||", "\\", "${x}", "{name}", "%s", "'; DROP TABLE users; --", "\n", "\t", "　",
           "／", "２０２６－１１－２９", "𠀀", "👩\u200d💻", "0" * 40, "9" * 400, "x" * 5000)  # fmt: skip
WORDS = ("now", "지금", "今", "save", "yes", "off", "on", "reset", "甲子", "갑자", "甲乙", "寅", "인월", "123456",
         "2026-11-29", "23:10", "1984-03-05", "14:20", "24:00", "2026-13-01", "1900-01-01", "9999-12-31",
         "126.98", "37.57", "-74W", "181", "NaN", "inf", "서울", "Seoul", "New York", "Asia/Seoul", "America",
         "Etc/GMT+9", "../etc/passwd", "ko", "lzh", "liuren", "liuyao", "06:30", "#1", "1", "0", "-1",
         "day_starts", "solar_time", "liuren.school", "00:00")  # fmt: skip

_chars = st.characters(codec=None, categories=None)  # every code point, surrogates included
_token = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(HOSTILE),
    st.text(_chars, min_size=1, max_size=12),
    st.builds(lambda a, b: a + b, st.sampled_from(WORDS), st.sampled_from(HOSTILE)),
)
_word = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(NAMES).map(lambda n: n + "@sikpan_bot"),
    st.sampled_from(NAMES).map(str.upper),
    st.text(_chars, max_size=8),
)


@st.composite
def lines(draw: Any) -> str:
    slash = draw(st.sampled_from(("/", "/", "/", "／", "", " /")))
    args = draw(st.lists(_token, max_size=5))
    sep = draw(st.sampled_from((" ", " ", "  ", "\u3000", "\t")))
    return slash + draw(_word) + "".join(sep + a for a in args)


@st.composite
def incomings(draw: Any) -> Incoming:
    platform = draw(st.sampled_from(("telegram", "discord", "console")))
    kind = draw(st.sampled_from(("private", "private", "group", "channel")))
    user = draw(st.sampled_from(("u1", "u2", "u3", "1087968824@-100")))
    return Incoming(
        platform=platform,
        chat_id=user if kind == "private" else "-100",
        user_id=user,
        text=draw(lines()),
        lang_hint=draw(st.sampled_from(("ko", "zh-hant", "en", None))),
        chat_kind=kind,
        user_is_admin=draw(st.booleans()),
        display_name=draw(st.one_of(st.none(), st.text(_chars, max_size=20))),
        private_reply=platform == "discord" and draw(st.booleans()),
    )


@dataclass
class Tally:
    examples: int = 0
    views: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)


def check(incoming: Incoming, answer: Reply) -> list[str]:
    """The promises broken by ``answer`` to ``incoming`` (rendering included); empty when all hold."""
    problems: list[str] = []
    if answer.view == "error" and answer.context.get("code") == "bot.error.internal":
        problems.append("internal error")
    name = answer.context.get("name") if answer.view == "error" else None
    texts = {channel: render(answer, channel) for channel in CHANNELS}
    for channel, text in texts.items():
        if clean(text) != text:
            problems.append(f"{channel}: control/bidi/surrogate character")
    for part in split_telegram_html(texts["telegram"]):
        try:
            shown = visible_text(part, "HTML")
        except EntityParseError as exc:
            problems.append(f"telegram: invalid HTML ({exc})")
            continue
        if utf16_len(shown) > 4096 or not shown.strip():
            problems.append("telegram: part length")
    for part in split_discord(texts["discord"]):
        if len(part) > 2000:
            problems.append("discord: part length")
    if "@everyone" in texts["discord"] or "@here" in texts["discord"]:
        problems.append("discord: live mention")
    parsed = split_command(incoming.text)
    spec = lookup(parsed[0]) if parsed else None
    if (
        spec is not None
        and private_only(spec.name)
        and incoming.chat_kind != "private"
        and not incoming.private_reply
        and not (answer.view == "error" and answer.context.get("code") in ("bot.error.private_only",))
    ):
        problems.append(f"private /{spec.name} answered in a {incoming.chat_kind}: {answer.view} {name}")
    return problems


async def run_one(incoming: Incoming, ctx: Any, tally: Tally) -> None:
    answer = await dispatch(incoming, ctx)
    tally.examples += 1
    tally.views[answer.view if answer.view != "error" else str(answer.context.get("code"))] += 1
    for problem in check(incoming, answer):
        tally.violations.append(f"{problem}: {incoming.text[:60]!r}")


def fuzz(examples: int, random_seed: int | None = None) -> Tally:
    """``examples`` generated command lines through :func:`run_one` on one in-memory database.

    Derandomized (the same examples every run, as CI wants) unless ``random_seed`` is given.
    """
    loop = asyncio.new_event_loop()
    ctx = loop.run_until_complete(create_context(Settings(db_path=":memory:", lang="ko", tz="Asia/Seoul")))
    tally = Tally()

    @settings(max_examples=examples, derandomize=random_seed is None, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(incomings())
    def one(incoming: Incoming) -> None:
        loop.run_until_complete(run_one(incoming, ctx, tally))

    try:
        (one if random_seed is None else seed(random_seed)(one))()
    finally:
        loop.run_until_complete(ctx.close())
        loop.close()
    return tally
