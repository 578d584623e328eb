"""#12.1 one user cannot silence everybody: per-user and per-chat admission limits.

The flood scenario of the issue: 1,000 commands from one chat, then another user's ``/start``, through
``sikpan run`` (the real python-telegram-bot ``Application``) against the fake Bot API.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

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
    assert gate.check("u", "c") is Verdict.DROP  # the same flood (a refusal 1 s before): no second warning
    clock.now += 29.9
    assert [gate.check("u", "c") for _ in range(4)] == [Verdict.ADMIT] * 3 + [Verdict.DROP]  # still 29.9 s
    clock.now += 30.0  # 30 s without a refusal in the chat: the flood is over
    assert [gate.check("u", "c") for _ in range(5)] == [Verdict.ADMIT] * 3 + [Verdict.WARN, Verdict.DROP]


def test_the_chat_limit_bounds_a_group_of_many_users():
    clock = Ticks()
    gate = Admission(Limits(user_burst=5, user_per_second=1, chat_burst=4, chat_per_second=1), clock)
    verdicts = [gate.check(f"user{i}", "group") for i in range(6)]
    # one warning for the group, not one per member: each would take a place in the group's send budget
    assert verdicts[:4] == [Verdict.ADMIT] * 4 and verdicts[4:] == [Verdict.WARN, Verdict.DROP]
    assert gate.check("user0", "private chat") is Verdict.ADMIT
    assert gate.check("user9", "another group") is Verdict.ADMIT


def test_one_warning_per_chat_whatever_the_number_of_members():
    clock = Ticks()
    gate = Admission(Limits(chat_burst=30, chat_per_second=2), clock)
    verdicts = []
    for i in range(1000):  # 1,000 members, one command each, over 10 seconds
        clock.now = i / 100
        verdicts.append(gate.check(f"member{i}", "group"))
    assert verdicts.count(Verdict.WARN) == 1
    assert verdicts.count(Verdict.ADMIT) == 30 + 19  # the burst, then 2 a second: 19 more by 9.99 s


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


GROUP = -1001234567890
LINES = ("/start", "/cast now", "/shensha 甲子", "/help", "/liuyao 123456")


async def warm_up(tg) -> None:
    """A running bot has drawn each kind of reply before (templates compiled, fonts and tables loaded): one
    of each, privately, before the flood — the flood measures isolation, not a cold start."""
    chat = 777_001
    for line in LINES:
        tg.user_says(line, chat_id=chat)
    await tg.wait_sent(chat, count=len(LINES), timeout=60.0)


async def test_a_group_of_1000_members_flooding_leaves_a_private_start_answered_and_stops_in_10s(
    tg, tmp_path
):
    """Issue 36: 1,000 members of one group each send a command (the admission admits the chat's burst,
    the rest of the group is one flood); another user's private /start is answered within 2 s, the group
    gets one "slow down" in all, its queued replies are bounded (the excess counted in /metrics), the
    polling goes on, and a stop ends within 10 s with the group's replies still queued."""
    from bot import metrics

    registry = metrics.enable()

    def commands_run() -> float:
        return sum(
            sample.value
            for family in registry.collect()
            if family.name == "sikpan_commands"
            for sample in family.samples
            if sample.name == "sikpan_commands_total"
        )

    other = 888
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        await warm_up(tg)
        before = commands_run()
        for i in range(1000):
            tg.user_says(LINES[i % len(LINES)], chat_id=GROUP, user_id=10_000 + i, chat_type="supergroup")
        await asyncio.sleep(0)
        start = time.monotonic()
        update = tg.user_says("/start", chat_id=other)
        await run.telegram.wait_handled(update["update_id"], timeout=5.0)
        [answer] = tg.sent_to(other)
        assert answer.at - start < 2.0, answer.at - start
        assert not _text([answer]).startswith("⚠")  # the real /start answer, not an error
        polls = len([c for c in tg.calls if c.method == "getUpdates"])
        # the polling goes on while the group's replies wait for its budget (20 a minute)
        later = tg.user_says("/help", chat_id=other + 1)
        await run.telegram.wait_handled(later["update_id"], timeout=5.0)
        assert len([c for c in tg.calls if c.method == "getUpdates"]) > polls
        sender = run.ctx.telegram_sender
        assert 0 < sender.queued() <= sender.max_pending  # the group's replies wait, at most 10
        assert sender.dropped["queue_full"] >= 10  # the admitted burst beyond the queue's depth
        exposed = metrics.exposition(registry)[0].decode()
        assert 'sikpan_sends_total{outcome="queue_full",platform="telegram"}' in exposed
        gate = run.ctx.admission
        assert gate.warned == 1 and gate.dropped >= 900
        # a full queue is checked before the work: of the ~30 commands admitted, only those with a place
        # in the group's queue were run (the 2 private commands besides)
        assert commands_run() - before <= sender.max_pending + 3 + 2 < gate.admitted
        slow_down = "⚠ " + gettext("ko", "bot.error.slow_down")
        to_group = [c.result.get("text") for c in tg.sent_to(GROUP)]
        assert to_group.count(slow_down) <= 1
        queued = sender.queued()
        stopping = time.monotonic()
        run.stop.set()
        assert run.task is not None
        await asyncio.wait_for(asyncio.shield(run.task), 10.0)
        assert time.monotonic() - stopping <= 10.0
        # what could not be sent within the drain is recorded as not sent, nothing is left behind
        assert sender.queued() == 0
        assert sender.dropped["not_sent_at_stop"] >= 1
        sent_during_drain = len(tg.sent_to(GROUP)) - len(to_group)
        assert sender.dropped["not_sent_at_stop"] + sent_during_drain == queued
        assert [c.result.get("text") for c in tg.sent_to(GROUP)].count(slow_down) <= 1


async def test_sikpan_run_under_a_group_flood_answers_a_private_start_and_exits_on_sigterm_within_10s(
    tg, tmp_path
):
    """The issue's measurement: ``sikpan run`` as a process of its own (the real PTB client polling the fake
    Bot API), a group of 1,000 members each sending a command, another user's private /start, then SIGTERM
    while the group's replies still wait for its budget."""
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_", "SIKPAN_"))}
    env.update(
        TELEGRAM_BOT_TOKEN=tg.token, TELEGRAM_API_BASE_URL=tg.base_url, SIKPAN_DB=str(tmp_path / "db.sqlite")
    )
    other = 889
    log = tmp_path / "run.log"
    with log.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", "--env-file", os.devnull,
            env=env, cwd=root,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    try:
        await tg.wait_for("getUpdates", 1, timeout=60)
        await warm_up(tg)
        for i in range(1000):
            tg.user_says(LINES[i % len(LINES)], chat_id=GROUP, user_id=20_000 + i, chat_type="supergroup")
        start = time.monotonic()
        tg.user_says("/start", chat_id=other)
        [answer] = await tg.wait_sent(other, count=1, timeout=10.0)
        assert answer.at - start < 2.0, answer.at - start
        assert not _text([answer]).startswith("⚠")
        await asyncio.sleep(0.5)
        stopping = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(proc.wait(), 10.0)
        assert time.monotonic() - stopping <= 10.0
        assert proc.returncode == 0, log.read_text()[-2000:]
        assert len(tg.sent_to(GROUP)) <= 20  # the group's budget: 20 a minute, whatever was queued
        assert "not_sent_at_stop" in log.read_text()  # what the drain could not send is recorded
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
