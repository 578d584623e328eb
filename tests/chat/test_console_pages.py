"""Issue #13 point 4: on the console a stored cast answers with its first page and names the others; typing
a page's number or name shows that page of the same stored cast (read again from the history)."""

from __future__ import annotations

from bot.console import ConsoleSession
from bot.i18n import gettext

# seed 003, 庚辰 第八局: 「此重審之卦，前引後從，日干拱貴」 (Korean translation below)
SEED_003 = {"ko": "앞에서 이끌고 뒤에서 따르며", "lzh": "此重審之卦，前引後從，日干拱貴"}


async def test_pages_by_number_and_by_name_in_ko_and_lzh(ctx):
    session = ConsoleSession(ctx)
    first = await session.answer("/cast 庚辰 8")
    assert len(first) <= 1500 and "丑貴人" in first
    assert gettext("ko", "chat.page.cast.read") in first  # the other pages are named
    read = await session.answer("2")
    assert SEED_003["ko"] in read
    trace = await session.answer("法")
    assert "重審" in trace and gettext("ko", "liuren.options") in trace
    await session.answer("/lang lzh")
    await session.answer("/cast 庚辰 8")
    assert SEED_003["lzh"] in await session.answer("解")


async def test_a_page_word_without_a_cast_is_a_command(ctx):
    session = ConsoleSession(ctx)
    assert "⚠" in await session.answer("2")  # no cast shown yet: "/2" is an unknown command
