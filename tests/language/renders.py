"""What users get, rendered once per test session (issue 33 item 1): one harness, several rule checks.

Every page of every view as each channel shows it — Telegram (message text, photo caption and its caption parts,
button labels), Discord (embed title, description, footer, button labels, the picture's alt text), the console
(text and hint lines) — and the ``sikpan`` CLI with every flag its argparse parser defines (:data:`CLI_CASES`;
:func:`cli_flags` lists the parser's flags so a new one is not skipped silently: it must be used by a case or
named in :data:`CLI_NOT_RENDERED` with the reason).

The casts are chosen to cover: a 大六壬 課 for each of the 54 課體/雜格 names the engine gives over the 720 課 by
晝 and 夜 (:func:`keti_cover`, a deterministic greedy cover), a 課 for each 類神 entry a board cast can show
(:data:`LEISHEN_CASTS`; those that read the 月建, which a board cast lacks, by chat casts for a date:
:data:`LEISHEN_MONTH_CHAT`), every 神煞 of ``stars.json`` on the ``/shensha`` pages, and the sample commands of
``scripts/gen_samples.py``. The tests read :func:`chat_lines` and :func:`cli_lines`, which are cached for the
session.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import io
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.app import create_context
from bot.commands import Incoming, dispatch
from bot.config import Settings
from bot.features.base import pages_of
from bot.pictures import Picture, scene
from bot.presentation import caption_parts, fit_page, photo_caption, present
from bot.views import picture_alt
from engine.core.cycle import all_ganzhi
from engine.liuren import leishen, reading
from engine.liuren.chart import chart_for_ju
from tests.fakes.clock import ManualClock

LANGS = ("ko", "lzh")
CHANNELS = ("telegram", "discord", "console")
INSTANT = datetime(2024, 2, 4, 3, 30, tzinfo=UTC)
CITY = {"ko": "서울", "lzh": "首爾"}


@dataclass(frozen=True)
class Line:
    """One line a user reads: ``where`` (channel, part, page and the command typed), the ``text``, and
    ``said`` — what the user typed (what they typed may come back)."""

    where: str
    text: str
    said: str


# --- the chart set ---------------------------------------------------------------------------------------


@functools.cache
def keti_cover() -> tuple[tuple[str, str, str], ...]:
    """(day, 月將, 占時) of board casts (``/cast 甲子 亥 午``) that together show every 課體/雜格 name the engine
    gives over the 720 課 by 晝 and 夜: a greedy cover, in the order of the 60 days and 12 局 (deterministic)."""
    found: list[tuple[tuple[str, str, str], frozenset[str]]] = []
    for day in all_ganzhi():
        for ju in range(1, 13):
            for daytime in (True, False):
                chart = chart_for_ju(day, ju, daytime=daytime)
                key = (day.chars, chart.month_general.char, chart.hour.char)
                found.append((key, frozenset(chart.ke_ti())))
    return tuple(key for key, _ in _cover(found))


def keti_names() -> frozenset[str]:
    """Every 課體/雜格 name the engine gives over the 720 課 by 晝 and 夜."""
    names: set[str] = set()
    for day in all_ganzhi():
        for ju in range(1, 13):
            for daytime in (True, False):
                names.update(chart_for_ju(day, ju, daytime=daytime).ke_ti())
    return frozenset(names)


def _cover(
    found: list[tuple[tuple[str, str, str], frozenset[str]]],
) -> list[tuple[tuple[str, str, str], frozenset[str]]]:
    left = frozenset().union(*(names for _, names in found))
    chosen = []
    while left:
        key, names = max(found, key=lambda item: len(item[1] & left))  # the first of the best, in order
        chosen.append((key, names & left))
        left -= names
    return chosen


def leishen_entries() -> dict[str, str]:
    """Every 類神 entry id with its category."""
    path = Path(__file__).resolve().parents[2] / "engine" / "liuren" / "data" / "leishen.json"
    data = json.loads(path.read_text(encoding="utf-8"))["categories"]
    return {e["id"]: name for name, c in data.items() for e in c["entries"]}


def leishen_search() -> tuple[tuple[tuple[str, str, str], str], ...]:
    """((day, 月將, 占時), category) of board casts with a 類神 heading that together show every entry a board
    cast can show (a greedy cover per category, deterministic); the entries no board cast shows (those read the
    月建: 旺相·休囚, 「月建屬月」) are :func:`leishen_month_entries`, shown by chat casts by date."""
    out = []
    for category in leishen.categories():
        found = []
        for day in all_ganzhi():
            for ju in range(1, 13):
                for daytime in (True, False):
                    chart = chart_for_ju(day, ju, daytime=daytime)
                    composed = reading.compose(chart, category)
                    ids = frozenset(h.entry for p in composed.positions for h in p.leishen)
                    found.append(((day.chars, chart.month_general.char, chart.hour.char), ids))
        out += [(key, category) for key, _ in _cover(found)]
    return tuple(out)


# leishen_search() as it stands (15 s: the tests read the result; test_renders checks every entry is shown, and
# a data change that breaks it is fixed by pasting ``python -m tests.language.renders`` here)
LEISHEN_CASTS: tuple[tuple[tuple[str, str, str], str], ...] = (
    (("戊子", "寅", "子"), "天文"),
    (("己巳", "辰", "午"), "天文"),
    (("甲子", "巳", "午"), "天文"),
    (("戊辰", "酉", "午"), "地理"),
    (("丙子", "戌", "子"), "地理"),
    (("甲子", "丑", "午"), "地理"),
    (("甲子", "酉", "午"), "宮室"),
    (("癸酉", "酉", "午"), "宮室"),
    (("乙丑", "寅", "午"), "宮室"),
    (("乙丑", "丑", "午"), "人物"),
    (("乙亥", "亥", "午"), "人物"),
    (("甲子", "巳", "午"), "人物"),
    (("甲子", "酉", "午"), "姓氏"),
    (("癸酉", "酉", "午"), "姓氏"),
    (("乙丑", "寅", "午"), "姓氏"),
    (("甲子", "酉", "午"), "臟腑"),
    (("甲子", "未", "子"), "臟腑"),
    (("乙丑", "丑", "午"), "飲食"),
    (("辛未", "丑", "午"), "飲食"),
    (("丙寅", "辰", "午"), "器用"),
    (("丁丑", "未", "子"), "器用"),
    (("甲子", "丑", "午"), "器用"),
    (("庚午", "亥", "午"), "數目"),
    (("甲子", "申", "子"), "顏色"),
    (("甲子", "酉", "午"), "飛潛動植"),
    (("丙子", "戌", "子"), "飛潛動植"),
    (("甲子", "丑", "午"), "飛潛動植"),
)


def reads_month(match: dict[str, object]) -> bool:
    """Whether a leishen.json ``match`` reads the 月建: 「月建屬月」 (``role`` month_branch) or 旺相·休囚 (
    ``vitality``), seed 002 類神 天文, 數目, 顏色. The 月將 (「月將屬日」) is on every board; the 月建 is not."""
    parts = match.get("any")
    if isinstance(parts, list):
        return any(reads_month(part) for part in parts)
    return "vitality" in match or match.get("role") == "month_branch"


def leishen_month_entries() -> dict[str, str]:
    """The 類神 entries that read the 月建, with their category: a board cast (/cast 甲子 亥 午) has no month,
    so :func:`leishen_search` never reaches them; a cast for a date has its month (:data:`LEISHEN_MONTH_CHAT`)."""
    path = Path(__file__).resolve().parents[2] / "engine" / "liuren" / "data" / "leishen.json"
    data = json.loads(path.read_text(encoding="utf-8"))["categories"]
    return {e["id"]: name for name, c in data.items() for e in c["entries"] if reads_month(e["match"])}


MONTH_START = datetime(2026, 3, 5, 10, 0)  # a wall clock in the renders' zone (Asia/Seoul)


def leishen_month_search() -> tuple[tuple[str, str], ...]:
    """(local date-time, category) of chat casts by date (``/cast 2026-03-05 10:00 天文``) that together show
    every entry of :func:`leishen_month_entries`: per category, the first day from :data:`MONTH_START` (same
    hour) whose reading shows all of that category's month entries (deterministic)."""
    from zoneinfo import ZoneInfo

    from engine.liuren import chart_at

    by_category: dict[str, set[str]] = {}
    for entry_id, category in leishen_month_entries().items():
        by_category.setdefault(category, set()).add(entry_id)
    out = []
    for category, ids in by_category.items():
        for k in range(366):
            local = MONTH_START + timedelta(days=k)
            composed = reading.compose(chart_at(local.replace(tzinfo=ZoneInfo("Asia/Seoul"))), category)
            if ids <= {h.entry for p in composed.positions for h in p.leishen}:
                out.append((local.strftime("%Y-%m-%d %H:%M"), category))
                break
    return tuple(out)


# leishen_month_search() as it stands (test_renders checks that the chat renders of these casts show every month
# entry on every channel, and that this is the search's result)
LEISHEN_MONTH_CHAT: tuple[tuple[str, str], ...] = (
    ("2026-03-05 10:00", "天文"),
    ("2026-03-05 10:00", "數目"),
    ("2026-03-05 10:00", "顏色"),
)
# a cast by day reaches them with the 月建 given: in the chat a month word (子月), in the CLI ``--month``
MONTH_WORD_CASTS: tuple[tuple[str, str], ...] = tuple(
    ("甲子 午將 午時 子月", category) for category in ("天文", "數目", "顏色")
)
LEISHEN_MONTH_CASTS: tuple[tuple[str, ...], ...] = tuple(
    ("cast", "--day", "甲子", "--general", "午", "--hour", "午", "--month", "子", "--category", category)
    for category in ("天文", "數目", "顏色")
)


# --- the chat -----------------------------------------------------------------------------------------------

SAMPLES: tuple[str, ...] = (
    "/start",
    "/help",
    "/cast now",
    "/cast 庚辰 8",
    "/cast now 天文",
    "/liuyao 797979",
    "/liuyao 876789",
    "/liuyao time",
    "/liuyao 878878 lawsuit",
    "/shensha 甲子 寅 甲辰年 午時",
    "/shensha 甲子",
    "/shensha",
    "/qizheng 1990-05-17 14:30 {city}",
    "/qizheng 1990-05-17 14:30 {city} 2027",
    "/place {city}",
    "/tz",
    "/tz Asia/Seoul",
    "/settings",
    "/settings liuren",
    "/settings qizheng.mansions",
    "/daily",
    "/daily 07:30",
    "/today",
    "/history",
    "/show 1",
    "/lang",
    "/nothing",
    "hello",
    "/cast 甲乙 99",
    "/tz Nowhere/City",
    "/show 99",
    "/settings colour blue",
    "/daily liuyao",  # the daily reading by a 六爻 time cast: its line and the reasons that decided it
    "/today",
)


def chat_commands(lang: str) -> tuple[str, ...]:
    from bot.commands import load_commands

    helps = tuple(f"/help {name}" for name in load_commands())
    casts = tuple(f"/cast {d} {g} {h}" for d, g, h in keti_cover())
    topics = tuple(f"/cast {d} {g} {h} {category}" for (d, g, h), category in LEISHEN_CASTS)
    months = tuple(f"/cast {when} {category}" for when, category in LEISHEN_MONTH_CHAT + MONTH_WORD_CASTS)
    return tuple(s.format(city=CITY[lang]) for s in SAMPLES) + helps + casts + topics + months


def _message_lines(message: object, where: str, said: str) -> Iterator[Line]:
    from bot.presentation import Message

    assert isinstance(message, Message)
    for part in ("text", "caption", "title", "footer", "hint", "alt"):
        value = getattr(message, part)
        if value:
            yield from (Line(f"{where} {part}", line, said) for line in value.split("\n"))
    for row in message.buttons:
        for button in row:
            yield Line(f"{where} button", button.label, said)


async def _chat(lang: str) -> tuple[list[Line], dict[str, Picture]]:
    out: list[Line] = []
    pictures: dict[str, Picture] = {}  # the picture of each command that has one (the channels share it)
    with tempfile.TemporaryDirectory() as tmp:
        ctx = await create_context(
            Settings(db_path=str(Path(tmp) / "renders.db"), lang=lang, tz="Asia/Seoul"),
            clock=ManualClock(INSTANT),
        )
        try:
            for said in chat_commands(lang):
                for channel in CHANNELS:
                    incoming = Incoming(
                        platform=channel,
                        chat_id="chat",
                        user_id="u",
                        text=said,
                        lang_hint=lang,
                        chat_kind="private",
                        user_is_admin=True,
                    )
                    reply = await dispatch(incoming, ctx)
                    numbered = isinstance(reply.context.get("no"), int)
                    shown = pages_of(reply.view) if numbered else (None,)
                    for page in shown:
                        where = f"{channel} {page or ''} «{said}»"
                        message = present(reply, channel, "u", page, picture=False)
                        out += _message_lines(message, where, said)
                        if reply.picture is None:
                            continue
                        if channel == "telegram" and page is not None:
                            body = fit_page(message.text or message.caption or "", lang)
                            for k, caption in enumerate(caption_parts(body)):
                                out += [
                                    Line(f"{where} caption part {k}", t, said) for t in caption.split("\n")
                                ]
                            out += [
                                Line(f"{where} photo caption", t, said)
                                for t in photo_caption(body).split("\n")
                            ]
                    if reply.picture is not None and channel == "discord":
                        alt = picture_alt(reply) or ""
                        out += [Line(f"discord alt «{said}»", t, said) for t in alt.split("\n")]
                    if reply.picture is not None:
                        pictures.setdefault(said, reply.picture)
        finally:
            await ctx.close()
    # inline mode: the button Telegram shows above the answers ("open a chat with me")
    from bot.telegram.inline import open_button

    out.append(Line("telegram inline button", open_button(lang).text, "@bot"))
    return out, pictures


@functools.cache
def _chat_run(lang: str) -> tuple[tuple[Line, ...], tuple[tuple[str, Picture], ...]]:
    lines, pictures = asyncio.run(_chat(lang))
    return tuple(lines), tuple(pictures.items())


def chat_lines(lang: str) -> tuple[Line, ...]:
    """Every line of every page of the chat replies in ``lang``, on every channel (cached: once per session)."""
    return _chat_run(lang)[0]


# --- the CLI ------------------------------------------------------------------------------------------------

BIRTH = "1960-08-20T18:45+08:00"
# the 大六壬 school options a board cast and the 720-課 table both take (each away from its default)
SCHOOL_FLAGS = ("--fuyin-maozi", "cunyan", "--bazhuan-first", "false", "--liuyinyang-lowers", "true")
AT = "2024-05-01T10:00:00+09:00"
CLI_CASES: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("calendar", "--at", AT, "--zone", "Asia/Seoul", "--day-starts", "00:00", "--solar-time", "126.98"),
    ("calendar", "--at", AT, "--mean-solar-time", "--solar-time", "126.98"),
    ("calendar", "terms", "--from", "2024", "--to", "2024"),
    (
        "cast",
        "--at",
        AT,
        "--topic",
        "求財",
        "--birth",
        "子",
        "--xingnian",
        "午",
        "--solar-time",
        "126.98",
        "--lat",
        "37.5",
        "--day-starts",
        "00:00",
        "--daynight",
        "sun",
    ),
    (
        "cast",
        "--day",
        "庚辰",
        "--ju",
        "8",
        "--hour",
        "巳",
        "--month",
        "寅",
        "--gui-rule",
        "kinliuren",
        "--category",
        "天文",
        "--shehai",
        "mzj",
        "--mu",
        "changsheng",
        "--png",
        "chart.png",
    ),
    (
        "cast",
        "--day",
        "甲子",
        "--general",
        "亥",
        "--hour",
        "午",
        "--born",
        "1990",
        "--sex",
        "female",
        "--age",
        "35",
    ),
    (
        "cast",
        "--day",
        "甲子",
        "--ju",
        "3",
        "--night",
        *SCHOOL_FLAGS,
    ),
    (
        "liuren",
        "table",
        "--gui-rule",
        "kinliuren",
        "--daynight",
        "ziwu",
        "--shehai",
        "depth_noseat",
        *SCHOOL_FLAGS,
        "--mu",
        "changsheng",
    ),
    (
        "liuyao",
        "--coins",
        "797989",
        "--at",
        AT,
        "--use",
        "官鬼",
        "--day-starts",
        "00:00",
        "--png",
        "chart.png",
    ),
    (
        "liuyao",
        "--tosses",
        "322,233,222,333,223,232",
        "--month",
        "寅",
        "--day",
        "戊戌",
        "--changed-relatives",
        "own_palace",
        "--earth-changsheng",
        "寅",
        "--allow-static",
        "--middle-source",
        "day_month",
        "--scatter",
        "none",
    ),
    (
        "shensha",
        "甲子",
        "--month",
        "寅",
        "--year",
        "甲辰",
        "--hour",
        "午",
        "--tables",
        "--all-months",
        "--sources",
    ),
    ("shensha", "庚辰", "--option", "jiangxing_key=day"),
    ("qizheng", "--at", BIRTH, "--place", "北京", "--all"),
    (
        "qizheng",
        "--at",
        BIRTH,
        "--lon",
        "116.4",
        "--lat",
        "39.9",
        "--all",
        "--on",
        "2020-01-01",
        "--palaces",
        "zheng",
        "--mansions",
        "shoushi",
        "--naming",
        "qing",
        "--node",
        "true",
        "--apogee",
        "true",
        "--ziqi",
        "moira",
        "--ming",
        "ascendant",
        "--shen",
        "hour",
        "--hour",
        "mean",
        "--hua",
        "rotation",
        "--weak",
        "moira",
        "--daxian",
        "ancient",
        "--tongxian",
        "10",
        "--png",
        "chart.png",
    ),
    ("qizheng", "place", "北京"),
    # what test_jargon reads besides: 九宗門 比用 (甲子 第2局), a 六爻 of six moving lines, a 用神 by its topic
    ("cast", "--day", "甲子", "--ju", "2"),
    ("liuyao", "--coins", "696969", "--month", "寅", "--day", "戊戌"),
    ("liuyao", "--coins", "878878", "--month", "午", "--day", "丁卯", "--use", "疏"),
    # a 六害卦 (姤) whose 用's partner line harms it: the partner named as a line (三爻, 上爻; 文言 has no 3爻)
    ("liuyao", "--coins", "877777", "--month", "寅", "--day", "甲子", "--use", "官鬼"),
    # a 妻財 用: its month strength rests on a rule outside the seeds (《增刪卜易》), cited by the book's name
    ("liuyao", "--coins", "877777", "--month", "寅", "--day", "甲子", "--use", "妻財"),
    ("cast", "--day", "甲乙", "--ju", "8"),
    *LEISHEN_MONTH_CASTS,
)
# what the rendered CLI leaves out, and why: not a reading a user reads in a language
CLI_NOT_RENDERED = {
    "--json": "machine output (JSON keys), not prose",
    "--help": "argparse's help of each subcommand: the root --help is rendered",
    "--lang": "every case runs in both languages",
    "--version": "a version number",
    "--random": "a random cast: its words are those of --coins",
    "run": "starts the bot (operations)",
    "backup": "operations",
    "migrate": "operations",
    "export": "operations: a user's data as JSON",
    "import": "operations",
}


def cli_flags() -> set[tuple[str, str]]:
    """(subcommand path, flag) of every option the ``sikpan`` parser defines, and ("", name) of each
    subcommand path."""
    from bot.cli import build_parser

    out: set[tuple[str, str]] = set()

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        for action in parser._actions:  # noqa: SLF001 - argparse keeps its actions there
            if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
                for name, sub in action.choices.items():
                    out.add(("", " ".join((*path, name))))
                    walk(sub, (*path, name))
            for flag in action.option_strings:
                if flag.startswith("--"):
                    out.add((" ".join(path), flag))

    walk(build_parser(), ())
    return out


def _case_path(case: tuple[str, ...]) -> str:
    words = [w for w in case if not w.startswith("-")]
    paths = {path for _, path in cli_flags() if path}
    best = ""
    for n in range(1, len(words) + 1):
        if " ".join(words[:n]) in paths:
            best = " ".join(words[:n])
    return best


def cli_flags_rendered() -> set[tuple[str, str]]:
    paths = {_case_path(c) for c in CLI_CASES if _case_path(c)}
    return {(_case_path(c), w) for c in CLI_CASES for w in c if w.startswith("--")} | {
        ("", " ".join(path.split()[:n])) for path in paths for n in range(1, len(path.split()) + 1)
    }


def command_names() -> frozenset[str]:
    """The names a user types after / or ``sikpan``: the chat commands and the CLI's subcommands."""
    from bot.commands import load_commands

    return frozenset(load_commands()) | {word for _, path in cli_flags() for word in path.split()}


def _run(argv: tuple[str, ...], lang: str) -> str:
    from bot.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.get("SIKPAN_LANG")
    os.environ["SIKPAN_LANG"] = lang  # the root --help takes no --lang
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            contextlib.suppress(SystemExit),
        ):
            main([*argv, "--lang", lang] if argv != ("--help",) else list(argv))
    finally:
        if saved is None:
            os.environ.pop("SIKPAN_LANG", None)
        else:
            os.environ["SIKPAN_LANG"] = saved
    return out.getvalue() + err.getvalue()


@contextlib.contextmanager
def _pictures_drawn() -> Iterator[list[tuple[str, Picture]]]:
    """(language, picture) of each chart picture ``sikpan … --png`` draws while the block runs: the three
    renderers of ``bot.images`` (which the CLI looks up when it draws) note the chart they are given and draw
    it as before. What a picture shows is then read from its scene (:func:`picture_lines`), not from the
    drawing."""
    import bot.images

    drawn: list[tuple[str, Picture]] = []
    saved = {kind: getattr(bot.images, name) for kind, name in PICTURE_RENDERERS.items()}

    def noting(kind: str) -> object:
        def render(chart: object, lang: str, *place: object) -> bytes:  # render_qizheng takes the place
            drawn.append((lang, Picture(kind, chart, place[0] if place else None)))
            return saved[kind](chart, lang, *place)  # type: ignore[no-any-return]

        return render

    for kind, name in PICTURE_RENDERERS.items():
        setattr(bot.images, name, noting(kind))
    try:
        yield drawn
    finally:
        for kind, name in PICTURE_RENDERERS.items():
            setattr(bot.images, name, saved[kind])


# the renderer of each picture kind (bot.pictures.KINDS) the CLI's --png calls
PICTURE_RENDERERS = {"cast": "render_liuren", "liuyao": "render_liuyao", "qizheng": "render_qizheng"}


@functools.cache
def _cli_run(lang: str) -> tuple[tuple[Line, ...], tuple[tuple[str, Picture], ...]]:
    lines: list[Line] = []
    pictures: list[tuple[str, Picture]] = []
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp), _pictures_drawn() as drawn:
        for case in CLI_CASES:  # --png writes chart.png in the temporary directory
            said = "sikpan " + " ".join(case)
            lines += [Line(f"«{said}»", line, said) for line in _run(case, lang).split("\n")]
            assert all(drawn_lang == lang for drawn_lang, _ in drawn), said
            pictures += [(said, picture) for _, picture in drawn]
            drawn.clear()
    return tuple(lines), tuple(pictures)


def cli_lines(lang: str) -> tuple[Line, ...]:
    """Every line the ``sikpan`` cases print in ``lang`` (cached: once per session)."""
    return _cli_run(lang)[0]


# --- the pictures ---------------------------------------------------------------------------------------------


# the daily readings (``bot.features.daily``): each kind, without a topic and with one, as ``/daily`` subscribes
# them; the scheduled reading sends its picture (``bot.features.daily.reading.picture``), ``/today`` shows the
# same reading
DAILY_READINGS: tuple[tuple[str, str | None], ...] = (
    ("liuren", None),
    ("liuren", "求財"),
    ("liuyao", None),
    ("liuyao", "求財"),
)
DAILY_AT = datetime(2024, 2, 4, 7, 0)  # a wall clock in the renders' zone (Asia/Seoul): the default 07:00


def daily_pictures() -> tuple[tuple[str, Picture], ...]:
    """(the ``/daily`` that subscribes it, picture) of each reading of :data:`DAILY_READINGS` at
    :data:`DAILY_AT`: what the scheduled reading draws (``bot.features.daily.reading.chart_picture``)."""
    from zoneinfo import ZoneInfo

    from bot.features.daily.reading import Moment, chart_picture

    instant = DAILY_AT.replace(tzinfo=ZoneInfo("Asia/Seoul"))
    return tuple(
        (
            " ".join(("/daily", DAILY_AT.strftime("%H:%M"), kind, *((topic,) if topic else ()))),
            chart_picture(Moment.of(instant, "Asia/Seoul", kind, topic=topic)),
        )
        for kind, topic in DAILY_READINGS
    )


def pictures(lang: str) -> tuple[tuple[str, Picture], ...]:
    """(what was typed, picture) of every chart picture the renders give in ``lang``: the chat's casts (one
    picture a command: every channel and page shows the same), the CLI's ``--png`` cases and the daily
    readings (:func:`daily_pictures`)."""
    return _chat_run(lang)[1] + _cli_run(lang)[1] + daily_pictures()


def picture_lines(lang: str) -> tuple[Line, ...]:
    """The words drawn inside each picture of :func:`pictures`: the text of every ``Text`` of its scene
    (``bot.pictures.scene``, the layout the PNG is drawn from), one line each, ``picture «…» ko``."""
    return tuple(
        Line(f"picture «{said}» {lang}", text.text, said)
        for said, picture in pictures(lang)
        for text in scene(picture, lang).texts()
    )


def all_lines(lang: str) -> tuple[Line, ...]:
    """What the rules check: the chat, the CLI and the words inside the pictures."""
    return chat_lines(lang) + cli_lines(lang) + picture_lines(lang)


if __name__ == "__main__":
    print(leishen_search())
