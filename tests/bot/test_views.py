"""Rendering per channel: escaping of echoed input, valid Telegram HTML, translated strings, phone width."""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bot.commands import COMMANDS, Reply
from bot.i18n import LANGS, catalog
from bot.views import CHANNELS, escape_discord, render

ROOT = Path(__file__).resolve().parents[2]
TELEGRAM_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "blockquote"}


class TelegramHTML(HTMLParser):
    """Fails like Telegram's parser would (spec/platforms.md §2.3): unknown tags, unbalanced tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in TELEGRAM_TAGS:
            self.errors.append(f"unsupported tag <{tag}>")
        self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unbalanced </{tag}>")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check_telegram(text: str) -> str:
    parser = TelegramHTML()
    parser.feed(text)
    parser.close()
    assert not parser.errors, (parser.errors, text)
    assert not parser.stack, ("unclosed", parser.stack, text)
    assert not re.search(r"&(?!(amp|lt|gt|quot|#\d+);)", text), text
    return "".join(parser.text)


def width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


async def test_script_tag_is_escaped_for_telegram_and_inert_everywhere(say):
    r = await say("/tz <script>alert(1)</script>")
    assert r.view == "error" and "<script>" in r.context["params"]["value"]
    tg = render(r, "telegram")
    assert "<script>" not in tg and "&lt;script&gt;" in tg
    visible = check_telegram(tg)
    assert "<script>alert(1)</script>" in visible  # shown to the user as typed, not interpreted
    assert "<script>alert(1)</script>" in render(r, "console")
    dc = render(r, "discord")
    assert "<script>" not in dc


async def test_everyone_mention_is_defused_for_discord(say):
    r = await say("/tz @everyone")
    dc = render(r, "discord")
    assert "@everyone" not in dc and "@\u200beveryone" in dc
    r = await say("/nosuch_@here")
    dc = render(r, "discord")
    assert "@here" not in dc
    r = await say("/tz <@123456789012345678>")
    assert "<@123456789012345678>" not in render(r, "discord")


async def test_markdown_in_echoed_input_is_escaped_for_discord(say):
    r = await say("/tz **bold**_x_`y`")
    dc = render(r, "discord")
    assert "**bold**" not in dc and r"\*\*bold\*\*" in dc
    assert "`y`" not in dc


def test_escape_discord_examples():
    assert escape_discord("@everyone") == "@\u200beveryone"
    assert escape_discord("a*b") == r"a\*b"
    assert escape_discord("> quote") == r"\> quote"
    assert escape_discord("- item") == r"\- item" and escape_discord("1. item") == r"1\. item"
    assert escape_discord("# title") == r"\# title"
    assert escape_discord("[link](http://x)") == r"\[link\](http://x)"
    assert escape_discord("甲子") == "甲子"


async def test_history_echo_of_typed_commands_is_escaped(say):
    await say("/cast 庚辰 8")
    r = await say("/history")
    r2 = Reply(
        r.view, r.lang, {**r.context, "entries": [{**r.context["entries"][0], "command": "<b>&x @everyone"}]}
    )
    check_telegram(render(r2, "telegram"))
    assert "&lt;b&gt;&amp;x" in render(r2, "telegram")
    assert "@everyone" not in render(r2, "discord")


SAMPLES = (
    "/start",
    "/help",
    "/help cast",
    "/cast now",
    "/cast 庚辰 8",
    "/cast 2026-11-29 23:10",
    "/shensha 甲子 寅",
    "/liuyao 797979",
    "/qizheng 1990-05-01 10:30 126.98 37.57",
    "/history",
    "/show 1",
    "/lang",
    "/tz",
    "/place 126.98 37.57",
    "/settings",
    "/settings day_starts 00:00",
    "/cast 庚辰 99",
    "/nosuch",
    "/forget",
)


@pytest.mark.parametrize("lang", LANGS)
async def test_every_view_renders_in_every_channel(say, lang):
    await say(f"/lang {lang}")
    for text in SAMPLES:
        r = await say(text)
        assert r.lang == lang, text
        for channel in CHANNELS:
            out = render(r, channel)
            assert out.strip(), (text, channel)
            assert not re.search(r"\bbot\.[a-z_]+\.[a-z_.]+", out), (text, channel, out)  # no raw msgid
            assert "\n\n\n" not in out
            if channel == "telegram":
                check_telegram(out)
            if lang == "lzh" and text != "/help cast":  # (aliases include Korean words)
                assert not re.search("[\uac00-\ud7a3]", out), (text, out)
            if channel == "discord":
                assert out.count("```") % 2 == 0
                for line in out.split("\n"):  # a code fence stands on its own line
                    assert "```" not in line or line == "```", (text, line)


async def test_charts_fit_a_phone(say):
    """Lines inside the monospace blocks stay within 36 columns (CJK counts 2)."""
    for text in ("/cast 庚辰 8", "/cast now", "/liuyao 797979", "/liuyao 686868"):
        r = await say(text)
        out = render(r, "telegram")
        blocks = re.findall(r"<pre>(.*?)</pre>", out, flags=re.S)
        assert blocks, out
        for block in blocks:
            for line in block.split("\n"):
                assert width(line) <= 36, line


async def test_console_output_is_plain(say):
    r = await say("/cast 庚辰 8")
    out = render(r, "console")
    assert "<" not in out and "**" not in out and "```" not in out
    assert "庚辰" in out and "寅" in out


async def test_korean_and_chinese_labels_differ(say):
    ko = await say("/cast 庚辰 8")
    lzh = Reply(ko.view, "lzh", ko.context)
    ko_text, lzh_text = render(ko, "console"), render(lzh, "console")
    assert "삼전" in ko_text and "三傳" in lzh_text
    assert "경진(庚辰)" in ko_text  # term reading with the characters (bot.i18n.both)


def _template_msgids() -> set[str]:
    ids: set[str] = set()
    for channel in CHANNELS:
        for path in (ROOT / "templates" / channel).glob("*.j2"):
            if path.name.startswith("daily"):
                continue
            found = re.findall(r"""_\(\s*["']([a-z_.0-9]+)["']""", path.read_text(encoding="utf-8"))
            ids.update(i for i in found if not i.endswith("."))  # prefixes completed at run time
    return ids


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_id_is_translated(lang):
    ids = _template_msgids()
    ids.update(f"bot.lang.name.{code}" for code in LANGS)
    ids.update(f"bot.cast.transmission.{i}" for i in (1, 2, 3))
    for spec in COMMANDS.values():
        if spec.hidden:
            continue
        ids.add(spec.help_msgid)
        ids.add(f"bot.usage.{spec.name}")
        ids.update(a.description_msgid for a in spec.args if a.description_msgid)
    for path in (ROOT / "bot" / "commands").glob("*.py"):
        ids.update(re.findall(r"""["'](bot\.error\.[a-z_]+)["']""", path.read_text(encoding="utf-8")))
    ids.update(re.findall(r"""["'](bot\.error\.[a-z_]+)["']""", (ROOT / "bot" / "config.py").read_text()))
    missing = sorted(i for i in ids if i not in catalog(lang))
    assert not missing, missing


async def test_shensha_lists_every_star_once_grouped_by_branch(say):
    r = await say("/shensha 甲子 寅")
    assert r.view == "shensha", r.context
    grouped = [n for g in r.context["by_branch"] + r.context["by_stem"] for n in g["names"]]
    grouped += [s["name"] for s in r.context["others"]]
    assert sorted(grouped) == sorted(s["name"] for s in r.context["stars"])
    text = render(r, "console")
    for star in r.context["stars"]:
        assert (
            text.count(f"({star['name']})")
            + text.count(f" {star['name']}")
            + text.count(
                "("
                + star["name"].replace("(", "·").rstrip(")")
                + ")"  # 月煞(將星) → (月煞·將星), docs/style.md
            )
            >= 1
        )


def test_discord_code_blocks_carry_no_markdown_escapes():
    from bot.views import channel_environment

    env = channel_environment("ko", "discord")
    out = env.from_string("{% filter pre %}{{ a }} {{ b }}{% endfilter %}").render(
        a="2026-11-30", b="@everyone"
    )
    assert out.startswith("```\n2026-11-30 @\u200beveryone\n```")
