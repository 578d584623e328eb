"""``sikpan liuyao``: in-process via bot.cli.main, plus subprocess runs for exit status 2 on bad input."""

import json
import re
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


# ------------------------------------------------------------------ issue 19: the exact commands of the issue


def run_text(capsys, *args, lang="ko"):
    assert main(["liuyao", *args, "--lang", lang]) == 0
    return capsys.readouterr().out


def test_issue_kan_lawsuit(capsys):
    # 000:39 「官克世而問訟…若世刑而大凶也」 (注「身命，謂世及用爻遇之」).
    args = ("--coins", "878878", "--month", "午", "--day", "丁卯", "--use", "lawsuit")
    (data,) = run_json(capsys, *args)
    shi = [j for j in data["judgments"] if j["rule"] == "三刑" and j["subject"]["role"] == "世"]
    assert [(j["holds"], j["grave"], j["direction"]) for j in shi] == [(True, True, "凶")]
    assert data["verdict"]["direction"] == "凶"
    assert any("大凶" in r["text"] and r["source"].startswith("000:39") for r in data["verdict"]["reasons"])
    out = run_text(capsys, *args)
    assert "삼형(三刑) 형(刑) 세(世) 자(子) 상효: 성립 · 흉(凶) 대흉(大凶)" in out
    assert "단(斷): 흉(凶)" in out


@pytest.mark.parametrize(
    ("args", "subject", "agent_line"),
    [
        (("--coins", "777877", "--month", "午", "--day", "甲子", "--use", "妻財"), ("辰", 3), 6),  # 小畜
        (("--coins", "877777", "--month", "寅", "--day", "甲子", "--use", "子孫"), ("亥", 2), 5),  # 姤
    ],
)
def test_issue_six_harm_hexagram_partner_line(capsys, args, subject, agent_line):
    # 000:47 注 「若姤恆小畜益卦，雖存六害之名，當察其用而權之」.
    (data,) = run_json(capsys, *args)
    found = [
        j
        for j in data["judgments"]
        if j["rule"] == "六害" and j["holds"] and (j["subject"]["branch"], j["subject"]["line"]) == subject
    ]
    assert [j["agent_line"] for j in found if j["agent_line"] == agent_line] == [agent_line]
    assert all(j["id"] == "chuanxin_liuhai" for j in found)


def test_issue_husband_fan_ji(capsys):
    # 000:11 「若女占夫而官星為用者，遇之反吉也」.
    args = ("--coins", "787787", "--month", "子", "--day", "甲申", "--use", "husband")
    (data,) = run_json(capsys, *args)
    (j,) = [j for j in data["judgments"] if j["rule"] == "助鬼傷身"]
    assert (j["holds"], j["direction"], j["reversed"]) == (True, "吉", True)
    assert "조귀상신(助鬼傷身) 세(世) 사(巳) 상효: 성립 · 길(吉) 반길(反吉)" in run_text(capsys, *args)


def test_issue_illness_and_use_shi(capsys):
    # 000:15 「占疾病枕蓆之患未離…總之以鬼為忌者」: the 世 is the 用; `--use 世` is accepted.
    (ill,) = run_json(capsys, "--coins", "787787", "--month", "子", "--day", "甲申", "--use", "illness")
    (shi,) = run_json(capsys, "--coins", "787787", "--month", "子", "--day", "甲申", "--use", "世")
    assert ill["verdict"]["use"]["role"] == "世" and ill["verdict"]["use"] == shi["verdict"]["use"]
    assert ill["use"]["avoid"] == "官鬼" and shi["use"]["avoid"] is None
    out = run_text(
        capsys, "--coins", "787787", "--month", "子", "--day", "甲申", "--use", "illness", lang="lzh"
    )
    assert "忌官鬼" in out and "斷：" in out


def test_day_clash_and_options_in_text(capsys):
    # 坎為水 on a 午 day: 午 沖 子 (世, line 6, 囚 in a 午 month) — 日沖 and, static and 囚, 日破 (《增刪卜易》).
    out = run_text(capsys, "--coins", "878878", "--month", "午", "--day", "甲午")
    row = next(line for line in out.splitlines() if line.startswith("상효 "))  # 上爻
    assert "일충(日沖)" in row and "일파(日破)" in row
    assert (
        "회국(會局)의 중신은 괘 안에서만 취함 (기본, 《역모》 「何謂之局」)" in out
        and "산(散) = 일충 (기본)" in out
    )
    out2 = run_text(capsys, "--coins", "878878", "--month", "午", "--day", "甲午", "--scatter", "none")
    assert "산(散) 계산 안 함" in out2


def test_text_has_no_repeated_line_and_stars_on_moving_lines_only(capsys):
    out = run_text(capsys, "--coins", "777877", "--month", "午", "--day", "甲子", "--use", "妻財")
    heads = [line for line in out.splitlines() if line.startswith("- ")]
    assert len(heads) == len(set(heads))
    names = ("상효", "5효", "4효", "3효", "2효", "초효")  # 初爻 … 上爻, printed from the top
    rows = [line for line in out.splitlines() if line.split(" ", 1)[0] in names]
    assert len(rows) == 6 and not any("신살" in r for r in rows)  # no moving line: no 神煞 shown
    moving = run_text(capsys, "--coins", "777977", "--month", "卯", "--day", "甲子")
    rows = [line for line in moving.splitlines() if line.split(" ", 1)[0] in names]
    assert [r.split(" ", 1)[0] for r in rows if "신살" in r] == ["4효"] and "六害" in rows[2]


def test_bad_option_values_exit_2(capsys):
    assert main(["liuyao", "--coins", "797979", "--month", "寅", "--day", "戊戌", "--scatter", "x"]) == 2
    assert "x" in capsys.readouterr().err


# Issue 33 item 6: the Korean CLI says its 六爻 rows, checks and reasons in Korean (한글(漢字)), not in bare 漢字:
# no run of three or more 漢字 outside a 한글(漢字) pair, a 「」 quotation or a 《》 title; no 、 as a Korean list
# separator.
_QUOTED = re.compile(r"「[^」]*」|《[^》]*》|[\uac00-\ud7a3]+\([^()]*\)")
_HANJA_RUN = re.compile(r"[\u3400-\u9fff](?:[\s·,]*[\u3400-\u9fff]){2,}")


@pytest.mark.parametrize(
    "args",
    [
        ("--coins", "877987", "--month", "午", "--day", "丁卯", "--use", "lawsuit"),
        ("--coins", "777977", "--month", "卯", "--day", "甲子"),
        ("--coins", "787787", "--month", "子", "--day", "甲申", "--use", "illness"),
    ],
)
def test_korean_cli_reads_its_terms(capsys, args):
    out = run_text(capsys, *args)
    body = [ln for ln in out.splitlines() if not ln.startswith(("육효(六爻) ·", "본괘", "변괘"))]
    bare = [(ln, m.group()) for ln in body for m in _HANJA_RUN.finditer(_QUOTED.sub("", ln))]
    assert bare == []
    assert not any("、" in ln for ln in body)
    reasons = out.split("이유:")[1].splitlines()[1:]
    assert reasons and all(
        re.match(r"\s+[+-]\d+ [\uac00-\ud7a3]", r) for r in reasons if r.startswith("    ")
    )


def test_the_bare_hanja_check_can_fail():
    assert _HANJA_RUN.search(_QUOTED.sub("", "-2 월령 用官鬼亥 月死"))
    assert _HANJA_RUN.search(_QUOTED.sub("", "신살: 太微 陰貴 天乙貴人"))
    assert not _HANJA_RUN.search(
        _QUOTED.sub("", "신살: 태미(太微) 음귀(陰貴) 《역모(易冒)》 「世爻逢旺相者弗能傷」")
    )


@pytest.mark.parametrize(
    ("word", "canonical"),
    [
        ("처재", "妻財"),
        ("관귀", "官鬼"),
        ("돈", "wealth"),
        ("소송", "lawsuit"),
        ("官司", "lawsuit"),
        ("상소", "疏"),
    ],
)
def test_use_takes_the_words_of_the_lexicon(capsys, word, canonical):
    # issue 32: `--use` reads a word as the chat does (`/liuyao 878878 처재`), to the same 用神 as its canonical name
    args = ("--coins", "878878", "--month", "午", "--day", "丁卯", "--use")
    (by_word,) = run_json(capsys, *args, word)
    (by_name,) = run_json(capsys, *args, canonical)
    assert by_word["use"] == by_name["use"] and by_word["verdict"] == by_name["verdict"]


def test_use_petition_and_the_asker_split(capsys):
    # 000:39 「五克世而問疏」: 疏 (the petition) reads the 世, the petitioner
    (data,) = run_json(capsys, "--coins", "878878", "--month", "午", "--day", "丁卯", "--use", "疏")
    assert data["use"]["category"] == "petition" and data["use"]["shi"]
    # 婚姻 is the asker's to split (000:39 注 「男娶謂財、女嫁謂官」): a usage error naming both
    assert (
        main(
            [
                "liuyao",
                "--coins",
                "878878",
                "--month",
                "午",
                "--day",
                "丁卯",
                "--use",
                "婚姻",
                "--lang",
                "lzh",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "男娶" in err and "女嫁" in err and len(err.strip().splitlines()) == 1
