"""One user look-up per command (issue #18): ``dispatch`` reads the caller's row once and hands it to the
handler (``Incoming.user``, read with ``bot.features.base.caller``); the row is written only on first contact
or when the display name changed."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.app import AppContext
from bot.commands import Incoming, dispatch


@pytest.fixture
def counted(ctx: AppContext, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    calls: Counter[str] = Counter()
    storage = ctx.storage
    for name in ("get_user", "touch_user"):
        original = getattr(storage, name)

        def wrapper(*args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(storage, name, wrapper)
    return calls


def _incoming(text: str, name: str | None = "Kim") -> Incoming:
    return Incoming(
        platform="telegram", chat_id="5", user_id="5", text=text, lang_hint="ko", display_name=name
    )


@pytest.mark.parametrize("text", ["/cast now", "/liuyao", "/shensha", "/history", "/settings", "/lang"])
async def test_a_known_user_is_looked_up_once_per_command(ctx, counted, text):
    await dispatch(_incoming("/start"), ctx)  # first contact: read, then created
    assert counted == {"get_user": 1, "touch_user": 1}
    counted.clear()
    answer = await dispatch(_incoming(text), ctx)
    assert answer.view != "error", answer
    assert counted == {"get_user": 1}


async def test_a_new_display_name_is_written_and_the_handler_sees_the_settings(ctx, counted):
    await dispatch(_incoming("/start"), ctx)
    await dispatch(_incoming("/lang lzh"), ctx)
    counted.clear()
    answer = await dispatch(_incoming("/cast now", name="Kim Minjun"), ctx)
    assert counted == {"get_user": 1, "touch_user": 1}
    assert answer.lang == "lzh"
    user = await ctx.storage.get_user("telegram:5")
    assert user is not None and user.display_name == "Kim Minjun" and user.lang == "lzh"


async def test_settings_changed_by_a_command_are_read_back(ctx):
    await dispatch(_incoming("/tz America/New_York"), ctx)
    answer = await dispatch(_incoming("/settings"), ctx)
    assert answer.context["zone"] == "America/New_York"
