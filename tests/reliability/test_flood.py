"""#12.1 one user cannot silence everybody: per-user and per-chat admission limits.

The flood scenario of the issue: 1,000 commands from one chat, then another user's ``/start``, through
``sikpan run`` (the real python-telegram-bot ``Application``) against the fake Bot API.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.admission import Admission, Limits, Verdict
from bot.i18n import gettext
from tests.adapters.conftest import running, tg_settings

pytestmark = pytest.mark.filterwarnings("ignore:Deprecated since version v22.2")


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_then_one_warning_then_silence_then_refill():
    clock = Ticks()
    gate = Admission(Limits(user_burst=3, user_per_second=1.0, chat_burst=100, chat_per_second=10), clock)
    verdicts = [gate.check("u", "c") for _ in range(10)]
    assert verdicts == [Verdict.ADMIT] * 3 + [Verdict.WARN] + [Verdict.DROP] * 6
    assert gate.check("someone else", "c") is Verdict.ADMIT  # other users are not affected
    clock.now += 1.0
    assert gate.check("u", "c") is Verdict.ADMIT  # one token back after a second
    assert gate.check("u", "c") is Verdict.WARN  # a new flood gets a new (single) warning


def test_the_chat_limit_bounds_a_group_of_many_users():
    clock = Ticks()
    gate = Admission(Limits(user_burst=5, user_per_second=1, chat_burst=4, chat_per_second=1), clock)
    verdicts = [gate.check(f"user{i}", "group") for i in range(6)]
    assert verdicts[:4] == [Verdict.ADMIT] * 4 and verdicts[4:] == [Verdict.WARN, Verdict.WARN]
    assert gate.check("user0", "private chat") is Verdict.ADMIT


def test_admission_state_is_bounded():
    clock = Ticks()
    gate = Admission(Limits(max_keys=100), clock)
    for i in range(5000):
        gate.check(f"u{i}", f"c{i}")
    assert gate.keys() <= 200


def _text(calls) -> str:
    return "\n".join(c.shown for c in calls)


async def test_a_1000_command_flood_leaves_another_users_start_answered_within_2_seconds(tg, tmp_path):
    flooder, other = 777, 888
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        lines = ("/start", "/cast now", "/shensha 甲子", "/help", "/liuyao 123456")
        for i in range(1000):
            tg.user_says(lines[i % len(lines)], chat_id=flooder)
        await asyncio.sleep(0)
        start = time.monotonic()
        update = tg.user_says("/start", chat_id=other)
        await run.telegram.wait_handled(update["update_id"], timeout=5.0)
        [answer] = tg.sent_to(other)
        latency = answer.at - start
        assert latency < 2.0, latency
        assert not _text([answer]).startswith("⚠")  # the real /start answer, not an error
        slow_down = "⚠ " + gettext("ko", "bot.error.slow_down")
        # the warning queues behind the admitted replies, which the per-chat pacer sends about 1 a second
        for _ in range(100):
            await asyncio.sleep(0.1)
            if any(c.result.get("text") == slow_down for c in tg.sent_to(flooder)):  # a photo has a caption
                break
        await asyncio.sleep(0.5)  # a second warning would follow right after the first
        to_flooder = tg.sent_to(flooder)
        assert [c.result.get("text") for c in to_flooder].count(slow_down) == 1  # one polite warning …
        gate = run.ctx.admission
        assert gate.admitted <= 20 and gate.dropped >= 970  # … and the excess was dropped
        run.ctx.telegram_sender.pace = False  # let the few admitted replies drain quickly
