"""``sikpan calendar`` (issue 2 §5): JSON contract, human-readable output, and bad input → one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = {
    "at": "2024-02-04T16:27:08+08:00",
    "year": "甲辰",
    "month": "丙寅",
    "day": "戊戌",
    "hour": "庚申",
    "month_general": "子",
    "xunkong": ["辰", "巳"],
    "term": {"name": "立春", "at": "2024-02-04T08:27:08Z"},
}


def test_json_contract(capsys: pytest.CaptureFixture[str], term_at) -> None:  # type: ignore[no-untyped-def]
    assert term_at(2024, 21) == datetime(2024, 2, 4, 8, 27, 8, tzinfo=UTC)  # independent physics
    assert main(["calendar", "--at", "2024-02-04T16:27:08+08:00", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    obj = json.loads(out)
    assert obj == CONTRACT and list(obj) == list(CONTRACT)
    assert out.strip() == json.dumps(CONTRACT, ensure_ascii=False, separators=(", ", ": "))


def test_one_line_per_at_with_input_verbatim(capsys: pytest.CaptureFixture[str]) -> None:
    ats = ["2024-02-10T23:30:00+09:00", "2024-02-10T14:30:00Z"]
    assert main(["calendar", "--at", ats[0], "--at", ats[1], "--day-starts", "00:00", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["at"] for x in lines] == ats
    # same instant, different wall clocks: +9 midnight rule gives 甲辰 day with the next day's 丙子 hour (spec §2
    # example); the UTC wall clock reads 14:30, 未 hour of a 甲 day = 辛未 (五鼠遁 甲己→甲子)
    assert [(x["day"], x["hour"]) for x in lines] == [("甲辰", "丙子"), ("甲辰", "辛未")]
    assert main(["calendar", "--at", ats[0], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["day"] == "乙巳"


def test_solar_time_option(capsys: pytest.CaptureFixture[str]) -> None:
    # 23:30 on a +9 clock at 126.98°E is ≈ 22:44 apparent solar time (EoT ≈ −14 min in February): 亥 hour
    assert main(["calendar", "--at", "2024-02-10T23:30:00+09:00", "--solar-time", "126.98", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert (obj["day"], obj["hour"]) == ("甲辰", "乙亥")
    assert (
        main(["calendar", "--at", "2024-02-10T23:30:00+09:00", "--solar-time", "126.98", "--mean-solar-time"])
        == 0
    )
    assert "지방평균태양시: 2024-02-10 22:57:55" in capsys.readouterr().out


def test_terms_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calendar", "terms", "--from", "1900", "--to", "1901", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 48
    assert list(lines[0]) == ["name", "longitude", "at"]
    assert (
        lines[0]["name"] == "小寒" and lines[0]["longitude"] == 285 and lines[0]["at"].startswith("1900-01-0")
    )
    assert all(x["at"].endswith("Z") and len(x["at"]) == 20 for x in lines)
    assert [x["at"] for x in lines] == sorted(x["at"] for x in lines)
    assert main(["calendar", "--json", "terms", "--from", "2024", "--to", "2024"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[2])["at"] == "2024-02-04T08:27:08Z"


def test_human_readable_ko_and_lzh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calendar", "--at", "2024-02-04T16:27:08+08:00"]) == 0
    ko = capsys.readouterr().out
    assert "갑진(甲辰)년 병인(丙寅)월 무술(戊戌)일 경신(庚申)시" in ko
    assert "입춘(立春) 2024-02-04 08:27:08 UTC" in ko and "신후(神后)" in ko and "진사(辰巳)" in ko
    assert main(["calendar", "--lang", "lzh", "--at", "2024-02-04T16:27:08+08:00"]) == 0
    lzh = capsys.readouterr().out
    assert (
        "甲辰年 丙寅月 戊戌日 庚申時" in lzh and "月將：子 神后" in lzh and "旬空：辰巳" in lzh
    )  # full-width in lzh (docs/style.md)
    assert main(["calendar", "terms", "--from", "2024", "--to", "2024"]) == 0
    assert "2024-02-04 08:27:08 UTC  315°  입춘(立春)" in capsys.readouterr().out


def test_naive_time_with_zone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calendar", "--zone", "Asia/Seoul", "--at", "1957-07-01T23:10", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["hour"][1] == "子"


BAD = [
    (["--at", "2024-02-04T16:27:08"], "UTC 오프셋이 없습니다"),
    (["--at", "yesterday"], "시각을 읽을 수 없습니다"),
    (["--at", "1899-12-31T12:00:00+09:00"], "1900~2100년 밖의"),
    (["--at", "2101-01-01T00:00:00Z"], "1900~2100년 밖의"),
    (["--bogus"], "명령을 이해하지 못했습니다"),
    (["--day-starts", "01:00", "--at", "2024-01-01T00:00Z"], "명령을 이해하지 못했습니다"),
    (["--solar-time", "east", "--at", "2024-01-01T00:00Z"], "경도는"),
    (["--zone", "Mars/Base", "--at", "2024-01-01T00:00"], "알 수 없는 시간대"),
    (["--zone", "Asia/Seoul", "--at", "1987-05-10T02:30"], "시각이 없습니다"),
    (["terms", "--from", "1899", "--to", "1900"], "연도는 1900~2100"),
    (["terms", "--from", "2000", "--to", "1999"], "늦습니다"),
    (["terms", "--from", "MMXX", "--to", "2021"], "연도를 읽을 수 없습니다"),
    (["terms", "--from", "2000"], "명령을 이해하지 못했습니다"),
]


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_bad_input_in_process(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(["calendar", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err


def test_bad_input_lzh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calendar", "--lang", "lzh", "--at", "2101-01-01T00:00:00Z"]) == 2
    assert "1900至2100年之外不推" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["--at", "2024-02-04T16:27:08"],
        ["--at", "not-a-time"],
        ["--at", "1850-01-01T00:00:00+08:00"],
        ["terms", "--from", "2101", "--to", "2102"],
        ["--unknown-flag"],
    ],
)
def test_bad_input_subprocess(argv: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SIKPAN_LANG": "ko"}
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "calendar", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_subprocess_json_contract(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "calendar", "--at", "2024-02-04T16:27:08+08:00", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == CONTRACT
