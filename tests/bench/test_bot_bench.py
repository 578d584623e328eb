"""``bench/bot.py``'s own pieces (issue #18): the ratio and median arithmetic over ``--repeat`` runs, the
per-thread CPU split, the frames between the users' driver and the fake Bot API process, and that process
itself (pushed and reply stamps, diagnosis), driven here by a bot played with plain HTTP calls."""

import asyncio
import io
import json
import os
import socket
import subprocess
import sys
import time

import aiohttp
import pytest

from bench import _figures, _ipc, _threads
from bench import bot as bench_bot


# --------------------------------------------------------------------------------------- figures
def test_ratio_rounds_and_refuses_a_missing_or_zero_floor():
    assert _figures.ratio(3.0, 4.0) == 0.75
    assert _figures.ratio(1.0, 3.0) == 0.333
    assert _figures.ratio(None, 4.0) is None
    assert _figures.ratio(3.0, None) is None
    assert _figures.ratio(3.0, 0.0) is None


def test_spread_is_the_median_and_range_of_the_values_present():
    assert _figures.spread([1.3, 0.9, 1.1]) == {"median": 1.1, "min": 0.9, "max": 1.3}
    assert _figures.spread([1.0, 2.0, None, 4.0, 3.0]) == {"median": 2.5, "min": 1.0, "max": 4.0}
    assert _figures.spread([None]) is None
    assert _figures.spread([]) is None


def test_pair_ratios_put_sikpan_and_its_loop_over_the_whole_echo_bot():
    sikpan = {"cpu_ms_per_command": 3.0, "loop_cpu_ms_per_command": 2.0}
    echo = {"cpu_ms_per_command": 4.0, "loop_cpu_ms_per_command": 3.9}
    assert _figures.pair_ratios(sikpan, echo) == {"cpu_ratio": 0.75, "loop_cpu_ratio": 0.5}
    assert _figures.pair_ratios(sikpan, {"cpu_ms_per_command": None}) == {
        "cpu_ratio": None,
        "loop_cpu_ratio": None,
    }


def test_summary_gives_each_key_its_median_and_range_over_the_runs():
    runs = [
        {"run": 0, "cpu_ratio": 1.2, "loop_cpu_ratio": 0.9},
        {"run": 1, "cpu_ratio": 0.9, "loop_cpu_ratio": 0.7},
        {"run": 2, "cpu_ratio": 1.0, "loop_cpu_ratio": None},
    ]
    assert _figures.summary(runs) == {
        "cpu_ratio": 1.0,
        "cpu_ratio_range": [0.9, 1.2],
        "loop_cpu_ratio": 0.8,
        "loop_cpu_ratio_range": [0.7, 0.9],
    }
    assert _figures.summary([{"run": 0}]) == {}  # a run without the echo bot: no ratio at all


def test_thread_split_counts_the_loop_the_rest_and_each_named_thread():
    main = 100
    before = {main: ("python", 1.0), 101: ("pictures_0", 0.5), 102: ("gone", 0.2)}
    # 102 ended in between (its time is in the process's, not in any thread's); 103 started in between
    after = {main: ("python", 1.6), 101: ("pictures_0", 0.7), 103: ("sqlite-sync_0", 0.1)}
    split = _figures.thread_split(before, after, main, process_seconds=1.0, commands=200)
    assert split == {"loop": 3.0, "other": 2.0, "named": {"pictures_0": 1.0, "sqlite-sync_0": 0.5}}
    assert _figures.thread_split(before, after, main, 1.0, 0)["loop"] is None


def test_cpu_ratios_put_each_bot_over_each_one_after_it_and_spread_over_the_runs():
    order = ("sikpan", "media", "echo")
    pair = {"echo": {"cpu_ms_per_command": 4.0}, "sikpan": {"cpu_ms_per_command": 6.0}}
    assert _figures.cpu_ratios(pair, order) == {"sikpan/echo": 1.5}  # media not measured: no ratio of it
    pair["media"] = {"cpu_ms_per_command": 5.0}
    assert _figures.cpu_ratios(pair, order) == {"sikpan/media": 1.2, "sikpan/echo": 1.5, "media/echo": 1.25}
    runs = [
        {"sikpan/echo": 1.5, "media/echo": 1.25},
        {"sikpan/echo": 1.7, "media/echo": None},
        {"sikpan/echo": 1.4},
    ]
    assert _figures.ratio_spreads(runs) == {
        "sikpan/echo": {"median": 1.5, "min": 1.4, "max": 1.7},
        "media/echo": {"median": 1.25, "min": 1.25, "max": 1.25},
    }


# --------------------------------------------------------------------------------------- frames
async def test_frames_survive_being_read_in_pieces():
    messages = [["push", 10_001, "/cast now", "zh-hant"], ["reply", 10_001, 7, 12345.678901], ["polling"]]
    data = b"".join(_ipc.encode(m) for m in messages)
    reader = asyncio.StreamReader()
    for i in range(0, len(data), 3):  # three bytes at a time: headers and bodies split anywhere
        reader.feed_data(data[i : i + 3])
    reader.feed_eof()
    assert [await _ipc.read(reader) for _ in messages] == messages
    assert await _ipc.read(reader) is None  # closed between frames: the end


async def test_a_frame_cut_short_or_not_an_array_is_an_error():
    reader = asyncio.StreamReader()
    reader.feed_data(_ipc.encode(["pushed", 1, 2, 3.0])[:-2])
    reader.feed_eof()
    with pytest.raises(asyncio.IncompleteReadError):
        await _ipc.read(reader)
    body = json.dumps({"not": "a list"}).encode()
    reader = asyncio.StreamReader()
    reader.feed_data(_ipc.HEADER.pack(len(body)) + body)
    with pytest.raises(ValueError):
        await _ipc.read(reader)


async def test_frames_cross_a_socket_pair():
    ours, theirs = socket.socketpair()
    reader, our_writer = await asyncio.open_connection(sock=ours)  # kept: a dropped writer closes its socket
    their_reader, writer = await asyncio.open_connection(sock=theirs)
    writer.write(_ipc.encode(["push", 10_002, "/liuyao", "ko"]) + _ipc.encode(["diagnose", [[10_002, 9]]]))
    await writer.drain()
    writer.close()
    assert await _ipc.read(reader) == ["push", 10_002, "/liuyao", "ko"]
    assert await _ipc.read(reader) == ["diagnose", [[10_002, 9]]]
    assert await _ipc.read(reader) is None
    our_writer.close()


# --------------------------------------------------------------------------------------- threads
def test_threads_started_after_name_os_threads_carry_their_name_in_the_kernel():
    code = (
        "import os, threading, sys\n"
        "from bench import _threads\n"
        "_threads.name_os_threads()\n"
        "seen = {}\n"
        "def look():\n"
        "    with open(f'/proc/self/task/{threading.get_native_id()}/comm') as f: seen['comm'] = f.read().strip()\n"
        "    seen['listed'] = _threads.snapshot(os.getpid())[threading.get_native_id()][0]\n"
        "t = threading.Thread(target=look, name='pictures_0-and-a-long-tail'); t.start(); t.join()\n"
        "print(seen['comm'], seen['listed'])\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["pictures_0-and-", "pictures_0-and-"]  # the kernel keeps 15 bytes


def test_snapshot_lists_this_process_threads_with_their_cpu():
    busy = time.process_time() + 0.05
    while time.process_time() < busy:
        pass
    threads = _threads.snapshot(os.getpid())
    assert os.getpid() in threads  # the main thread's id is the process's
    name, seconds = threads[os.getpid()]
    assert name and seconds > 0


# --------------------------------------------------------------------------------------- the fake's process
async def test_the_fake_process_stamps_pushes_and_replies_and_tells_what_it_saw():
    users = bench_bot.Users(2)
    fake = bench_bot.FakeProcess(users)
    await fake.start()
    try:
        url = fake.base_url + bench_bot.TOKEN
        async with aiohttp.ClientSession() as http:

            async def call(method, **params):
                async with http.post(f"{url}/{method}", json=params) as response:
                    return await response.json()

            assert (await call("getUpdates", timeout=0))["result"] == []
            await asyncio.wait_for(fake.polling.wait(), 10)
            for chat in (10_000, 10_001, 10_000):  # chat 10,000 twice: its replies match in order
                text, lang = users.text_for(chat)
                users.add(chat, text, record=True)
                fake.send(["push", chat, text, lang])
            users.recording = True
            updates = []
            while len(updates) < 3:
                updates += (await call("getUpdates", offset=len(updates) + 1, timeout=1))["result"]
            first, second, third = (u["update_id"] for u in updates)
            assert [u["message"]["chat"]["id"] for u in updates] == [10_000, 10_001, 10_000]
            assert [u["message"]["from"]["language_code"] for u in updates] == ["zh-hant", "ko", "zh-hant"]
            assert await call("sendMessage", chat_id=10_000, text="one") is not None
            await call("sendMessage", chat_id=10_001, text="two")
            while len(users.replied_at) < 2:
                await asyncio.wait_for(users.changed.wait(), 10)
                users.changed.clear()
            assert set(users.replied_at) == {first, second}
            assert users.pending[10_000][0][1] == third  # still waiting, pushed
            for uid in (first, second):
                assert users.replied_at[uid] > users.pushed_at[uid]
            assert sorted(users.latencies) == sorted(
                users.replied_at[u] - users.pushed_at[u] for u in (first, second)
            )
            seen = await fake.ask(["diagnose", [[10_000, third]]], "diagnosis")
            assert seen[str(third)]["fetched"] is False  # not confirmed by a later offset yet
            assert seen[str(third)]["calls_to_chat"] == ["sendMessage 200"]
            await call("getUpdates", offset=third + 1, timeout=0)
            seen = await fake.ask(["diagnose", [[10_000, third]]], "diagnosis")
            assert seen[str(third)]["fetched"] is True
            await call("sendMessage", chat_id=10_001, text="an extra message: no command pending")
            while users.unmatched == 0:
                await asyncio.wait_for(users.changed.wait(), 10)
                users.changed.clear()
    finally:
        await fake.stop()
    assert fake.proc.returncode == 0


async def test_the_driver_hears_when_the_fake_process_is_gone():
    fake = bench_bot.FakeProcess(bench_bot.Users(1))
    await fake.start()
    try:
        fake.check()  # running: nothing to say
        fake.proc.kill()
        with pytest.raises(RuntimeError, match="frames stopped"):
            for _ in range(200):
                fake.check()
                await asyncio.sleep(0.05)
    finally:
        await fake.stop()


# --------------------------------------------------------------------------------------- the transport floor
def test_floor_text_and_picture_have_the_sizes_asked_for():
    text = bench_bot.floor_text(557, 1084)
    assert len(text) == 557 and len(text.encode()) in (1083, 1084)
    from PIL import Image

    flat = bench_bot.flat_png((1080, 1230))
    one, two = bench_bot.floor_png(flat, 69_404, 1), bench_bot.floor_png(flat, 69_404, 2)
    assert len(one) == len(two) == 69_404 and one != two
    with Image.open(io.BytesIO(two)) as image:
        image.load()  # a valid PNG: its private chunk skipped, its CRC right
        assert image.size == (1080, 1230)


@pytest.mark.parametrize("kind", ["media", "media-aiohttp"])
async def test_the_transport_floor_sends_sikpan_s_reply_shapes(kind, tmp_path):
    """The floor bot (its own process, either request class) against the fake Bot API: per command and
    language the send method, the caption or text, the keyboard and the picture of ``FLOOR_SHAPES``; a
    ``/cast now`` picture uploaded once and then sent by the ``file_id`` the fake gave, ``/liuyao`` a new
    upload each time."""
    from tests.fakes.telegram import FakeTelegram

    async with FakeTelegram(token=bench_bot.TOKEN) as fake:
        argv, env = bench_bot.bot_command(kind, fake.base_url, str(tmp_path / "x.db"), "production")
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            await fake.wait_for("getUpdates", timeout=30)
            sends = []
            for round_ in range(2):
                for chat, lang, shape_lang in ((501, "ko", "ko"), (502, "zh-hant", "lzh")):
                    for command in bench_bot.MIX:
                        fake.user_says(command, chat_id=chat, language_code=lang)
                        sent = await fake.wait_sent(count=len(sends) + 1, timeout=20)
                        sends.append((command, shape_lang, round_, sent[-1]))
        finally:
            proc.kill()  # nothing to drain (PTB's stop would wait for its last poll)
            _, err = proc.communicate(timeout=30)
    assert b"Traceback" not in err, err.decode()[-2000:]  # no error logged by the floor's handler
    uploads: dict[tuple[str, str], list[bytes]] = {}
    for command, lang, round_, call in sends:
        (chars, size), picture, rows = bench_bot.FLOOR_SHAPES[(command, lang)]
        assert call.status == 200
        assert call.params["parse_mode"] == "HTML"
        assert len(call.html) == chars and len(call.html.encode()) in (size - 1, size)
        keyboard = call.params["reply_markup"]["inline_keyboard"]
        assert [[(len(b["text"]), len(b["callback_data"].encode())) for b in row] for row in keyboard] == [
            list(row) for row in rows
        ]
        if picture is None:
            assert call.method == "sendMessage" and call.params["link_preview_options"] == {
                "is_disabled": True
            }
            continue
        assert call.method == "sendPhoto"
        if command == "/cast now" and round_ == 1:  # by the file_id of the first one's answer
            first = next(c for m, g, r, c in sends if (m, g, r) == (command, lang, 0))
            assert not call.files and call.params["photo"] == first.result["photo"][-1]["file_id"]
            continue
        assert len(call.files["photo"]) == picture
        uploads.setdefault((command, lang), []).append(bytes(call.files["photo"]))
    assert {key: len(pictures) for key, pictures in uploads.items()} == {
        ("/cast now", "ko"): 1, ("/cast now", "lzh"): 1, ("/liuyao", "ko"): 2, ("/liuyao", "lzh"): 2,
    }  # fmt: skip
    assert all(len(set(pictures)) == len(pictures) for pictures in uploads.values())  # no bytes sent twice


# --------------------------------------------------------------------------------------- BENCH_PROFILE
def test_the_loop_profile_covers_the_signalled_window_in_the_main_thread_cpu_time(tmp_path):
    """``bench/_profile.py`` as ``bench/bot.py`` loads it in the bot process: only what runs between the two
    SIGUSR2 is in the profile, and a function is charged its own thread's CPU time — not the CPU another
    thread burns while it sleeps (as ``process_time`` would charge it)."""
    out = tmp_path / "x.prof"
    code = bench_bot._by_path("profiling", "_profile.py") + (
        "import os, signal, threading, time\n"
        "p = profiling.toggled()\n"
        "def spin(seconds):\n"
        "    end = time.thread_time() + seconds\n"
        "    while time.thread_time() < end: pass\n"
        "def before(): spin(0.02)\n"
        "def inside(): spin(0.02)\n"
        "def sleeper(): time.sleep(0.3)\n"
        "def after(): spin(0.02)\n"
        "before()\n"
        "os.kill(os.getpid(), signal.SIGUSR2)\n"
        "inside()\n"
        "burner = threading.Thread(target=spin, args=(0.25,)); burner.start()\n"
        "sleeper(); burner.join()\n"
        "os.kill(os.getpid(), signal.SIGUSR2)\n"
        "after()\n"
        f"p.dump_stats({str(out)!r})\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    import pstats

    stats = pstats.Stats(str(out)).stats  # type: ignore[attr-defined]
    by_name = {func[2]: figures for func, figures in stats.items()}
    assert "inside" in by_name and "sleeper" in by_name
    assert "before" not in by_name and "after" not in by_name
    assert by_name["inside"][3] >= 0.015  # cumulative CPU seconds: its spin
    assert by_name["sleeper"][3] < 0.1  # asleep: the burner thread's 0.25 s are not its own


# --------------------------------------------------------------------------------------- BENCH_STAGES
def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class _Staged:
    """A stand-in for the bot's classes: a plain stage and a coroutine stage that waits in the middle."""

    def work(self) -> None:
        _spin(0.02)

    async def request(self) -> str:
        _spin(0.02)
        await asyncio.sleep(0.2)  # waiting (another coroutine burns CPU meanwhile): not the stage's own
        _spin(0.02)
        return "answer"


async def test_stages_count_own_cpu_of_each_step_only_inside_the_window(tmp_path):
    import signal

    from bench import _stages

    module = type(sys)("staged_for_test")
    module.Staged = _Staged  # type: ignore[attr-defined]
    sys.modules["staged_for_test"] = module
    old = signal.getsignal(signal.SIGUSR2)
    try:
        counting = _stages.Stages(
            (
                ("staged_for_test", "Staged", "work", "work", False),
                ("staged_for_test", "Staged", "request", "request", True),
            )
        )
        path = tmp_path / "stages.json"
        _stages.arm(str(path), stages=counting)
        staged = _Staged()
        os.kill(os.getpid(), signal.SIGUSR2)  # on: the stages wrapped now
        assert counting.on and counting.wrapped
        staged.work()

        async def burn() -> None:  # on the same thread, while request() waits
            await asyncio.sleep(0.05)
            _spin(0.1)

        answer, _ = await asyncio.gather(staged.request(), burn())
        assert answer == "answer"
        os.kill(os.getpid(), signal.SIGUSR2)  # off: the figures written
        staged.work()  # outside the window: not counted
        figures = json.loads(path.read_text())
    finally:
        signal.signal(signal.SIGUSR2, old)
        del sys.modules["staged_for_test"]
    calls = {label: tally[0] for label, tally in figures["stages"].items()}
    seconds = {label: tally[1] / 1e9 for label, tally in figures["stages"].items()}
    assert calls == {"work": 1, "request": 1}
    assert 0.015 <= seconds["work"] < 0.05
    assert 0.035 <= seconds["request"] < 0.09  # its two spins, not burn()'s 0.1 s while it waited
    assert figures["total_ns"] / 1e9 >= seconds["work"] + seconds["request"]
    per = _stages.per_command(figures, 2)
    assert per["stages"]["work"]["calls"] == 0.5 and per["loop_ms"] == round(figures["total_ns"] / 2e6, 3)


def test_every_stage_names_a_function_of_the_bot():
    """A stage whose function moved or was renamed fails here, not silently in a benchmark."""
    import importlib
    import inspect

    from bench import _stages

    for module, owner, name, _label, is_coroutine in _stages.STAGES:
        target = importlib.import_module(module)
        if owner is not None:
            target = getattr(target, owner)
        func = getattr(target, name)
        assert inspect.iscoroutinefunction(func) == is_coroutine, (module, owner, name)
