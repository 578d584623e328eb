"""``sikpan liuyao``: in-process via bot.cli.main, plus subprocess runs for exit status 2 on bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run_json(capsys, *args):
    assert main(["liuyao", *args, "--json"]) == 0
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines()]


def test_table_json_has_64_contract_rows(capsys):
    rows = run_json(capsys, "table")
    assert len(rows) == 64
    keys = {"lines", "name", "palace", "stage", "shi", "ying", "najia", "relatives", "hidden"}
    assert all(set(r) == keys for r in rows)
    assert rows[0]["name"] == "乾為天" and rows[0]["najia"][3] == "壬午"
    stages = {r["stage"] for r in rows}
    assert stages == {"本宮", "一世", "二世", "三世", "四世", "五世", "遊魂", "歸魂"}
    jian = next(r for r in rows if r["name"] == "水山蹇")
    assert (jian["palace"], jian["stage"], jian["shi"], jian["ying"]) == ("兌", "四世", 4, 1)


def test_coins_chart_json(capsys):
    (data,) = run_json(capsys, "--coins", "797979", "--month", "寅", "--day", "戊戌", "--use", "官鬼")
    assert data["main"]["name"] == "乾為天" and data["changed"]["name"] == "水火既濟"
    assert data["moving"] == [2, 4, 6]
    ju = [j for j in data["judgments"] if j["rule"] == "局會" and j["holds"]]
    assert [(j["type"], j["ju"]) for j in ju] == [("動會", "寅午戌")]  # seed 000:23 乾之既濟
    assert data["cast"]["method"] == "manual"


def test_random_prints_tosses(capsys):
    assert main(["liuyao", "--random", "--month", "寅", "--day", "戊戌"]) == 0
    out = capsys.readouterr().out
    assert "동전:" in out and "육효" in out
    (data,) = run_json(capsys, "--random", "--month", "寅", "--day", "戊戌")
    assert data["cast"]["method"] == "coins" and len(data["cast"]["tosses"]) == 6


def test_tosses_replay(capsys):
    (data,) = run_json(capsys, "--tosses", "333,232,223,222,322,233", "--month", "寅", "--day", "戊戌")
    assert data["cast"]["digits"] == "977678"  # 3+3+3, 2+3+2, 2+2+3, 2+2+2, 3+2+2, 2+3+3


def test_time_cast(capsys):
    (data,) = run_json(capsys, "--at", "2024-02-04T16:27:08+08:00")
    assert data["cast"]["method"] == "time"
    assert data["cast"]["numbers"]["pillars"][2] == data["day"]
    assert len(data["moving"]) == 1


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_human_output_in_both_languages(capsys, lang):
    assert (
        main(
            ["liuyao", "--coins", "678778", "--month", "酉", "--day", "庚申", "--use", "妻財", "--lang", lang]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "澤水困" in out and "兌為澤" in out
    assert ("진형(真刑)" if lang == "ko" else "真刑") in out
    assert main(["liuyao", "table", "--lang", lang]) == 0
    table = capsys.readouterr().out
    assert len(table.strip().splitlines()) == 65


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--coins", "79797", "--month", "寅", "--day", "戊戌"], "79797"),
        (["--coins", "12345x", "--month", "寅", "--day", "戊戌"], "12345x"),
        (["--coins", "797979", "--month", "甲", "--day", "戊戌"], "甲"),
        (["--coins", "797979", "--month", "寅", "--day", "戊亥"], "戊亥"),
        (["--coins", "797979", "--month", "寅", "--day", "戊戌", "--use", "太歲"], "太歲"),
    ],
)
def test_bad_input_in_process(capsys, args, needle):
    assert main(["liuyao", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "lang", "expected"),
    [
        (["--coins", "79797", "--month", "寅", "--day", "戊戌"], "ko", "여섯 자리"),
        (["--coins", "12345x", "--month", "寅", "--day", "戊戌"], "lzh", "六七八九"),
        (["--coins", "797979", "--month", "子丑", "--day", "戊戌"], "ko", "子丑"),
        (["--coins", "797979", "--month", "寅", "--day", "甲丑"], "lzh", "非六十甲子"),
    ],
)
def test_bad_input_subprocess_exit_2(args, lang, expected):
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "liuyao", *args, "--lang", lang],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert expected in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize("template", ["liuyao/chart.txt.j2", "liuyao/chart.html.j2", "liuyao/chart.md.j2"])
def test_partials_render_for_every_channel(lang, template):
    from bot.i18n import render

    from .conftest import chart

    c = chart("困", "兌", "酉", "庚申", use="財").to_json()
    out = render(template, lang, c=c)
    assert "澤水困" in out and "庚申" in out
    assert "liuyao." not in out  # every message id resolved
    if template.endswith(".html.j2"):
        assert "<b>" in out and "<pre>" in out
