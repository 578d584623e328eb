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
    assert len(first) <= 1500 and "축귀인" in first  # the board reads in 한글 in ko
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
    # no cast shown yet: a bare "2" is no command either — the one-line hint, never an echo of "/2"
    assert await session.answer("2") == gettext("ko", "chat.hint")


async def test_after_an_unsaved_reply_a_number_is_no_page_and_a_bare_word_gets_the_hint(ctx):
    """Issue #34 item 7: after an unsaved /qizheng (no history number) a typed 2 is not page 2 of the cast
    before it; a bare 5 or 안녕하세요 gets the one-line hint, never "/5" or "/안녕하세요" echoed back."""
    session = ConsoleSession(ctx)
    await session.answer("/cast 庚辰 8")
    assert SEED_003["ko"] in await session.answer("2")  # page 2 of that cast
    unsaved = await session.answer("/qizheng 1990-05-01 10:30 126.98 37.57")
    assert "#" not in unsaved.splitlines()[0]  # not kept: no number
    assert SEED_003["ko"] not in await session.answer("2")
    for word in ("5", "안녕하세요"):
        hint = await session.answer(word)
        assert hint == gettext("ko", "chat.hint") and "/" + word not in hint
    assert "축귀인" in await session.answer("cast 庚辰 8")  # a command typed without its / still is one
