"""``sikpan qizheng`` in-process and as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.cli import main
from engine.qizheng import find_place, natal_chart, places

AT = "1990-05-17T14:30+09:00"


def run_json(capsys, *argv: str) -> dict:
    assert main(["qizheng", *argv, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    return json.loads(out[0])


def test_json_contract(capsys):
    data = run_json(capsys, "--at", AT, "--lon", "126.98", "--lat", "37.57")
    names = ["太陽", "太陰", "水星", "金星", "火星", "木星", "土星", "羅睺", "計都", "月孛", "紫氣"]
    assert list(data["bodies"]) == names
    for b in data["bodies"].values():
        assert set(b) >= {"longitude", "mansion", "mansion_degree", "palace"}
    assert data["ming_gong"] == "巳" and data["shen_gong"] == data["bodies"]["太陰"]["palace"]
    assert [h["name"] for h in data["houses"]][:3] == ["命宮", "財帛", "兄弟"] and len(data["houses"]) == 12
    assert all(set(h) >= {"name", "branch", "lord"} for h in data["houses"])
    assert set(data["hua_yao"]) == set("祿暗福耗蔭貴刑印囚權")
    assert all(set(p) >= {"id", "ge", "quote", "holds"} for p in data["patterns"])
    assert data["options"]["palaces"] == "tropical"


def test_options_are_echoed(capsys):
    data = run_json(
        capsys, "--at", AT, "--lon", "126.98", "--naming", "qing", "--ziqi", "moira", "--hua", "rotation"
    )
    assert data["options"]["naming"] == "qing" and data["options"]["ziqi"] == "moira"
    assert data["options"]["hua"] == "rotation"


def test_place_lookup(capsys):
    data = run_json(capsys, "--at", AT, "--place", "서울")
    assert data["input"]["lon"] == pytest.approx(126.98, abs=0.01)
    assert data["input"]["place"]["zh"] == "首爾"
    assert find_place("Seoul") == find_place("首爾") == find_place("서울")
    assert find_place("busan").ko == "부산" and find_place("東京").name == "Tokyo"
    assert 300 <= len(places()) <= 500


def test_city_names_without_the_city_suffix():
    # GeoNames calls them "New York City", "Jeju City"; people type "New York", "Jeju".
    assert find_place("New York") == find_place("뉴욕") and find_place("new york").tz == "America/New_York"
    assert find_place("Jeju").ko == find_place("Jeju City").ko
    assert find_place("Ho Chi Minh").tz == "Asia/Ho_Chi_Minh"


@pytest.mark.parametrize("lang,marker", [("ko", "칠정사여"), ("lzh", "七政四餘命盤")])
def test_text_output(capsys, lang, marker):
    assert main(["qizheng", "--at", AT, "--lon", "126.98", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert marker in out and "命宮" in out or "명궁" in out
    assert "qizheng." not in out  # every message id is translated


def test_place_subcommand(capsys):
    assert main(["qizheng", "place", "北京", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "Beijing" and data["lat"] == pytest.approx(39.9, abs=0.1)


@pytest.mark.parametrize(
    "argv,code_text",
    [
        (["--at", "1850-01-01T00:00+08:00", "--lon", "120"], "1900"),
        (["--at", AT], "--lon"),
        (["--at", AT, "--place", "Atlantis"], "Atlantis"),
        (["--at", AT, "--lon", "500"], "500"),
        (["--at", AT, "--lon", "127", "--ming", "ascendant"], "--lat"),
    ],
)
def test_bad_input_exit_2(capsys, argv, code_text):
    assert main(["qizheng", *argv]) == 2
    err = capsys.readouterr().err
    assert code_text in err and len(err.strip().splitlines()) == 1


def test_subprocess_exit_code():
    proc = subprocess.run(
        [sys.executable, "-m", "bot.cli", "qizheng", "--at", "2200-01-01T00:00+00:00", "--lon", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.strip()


@pytest.mark.parametrize("template", ["qizheng/chart.html.j2", "qizheng/chart.md.j2", "qizheng/chart.txt.j2"])
@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_partials_render(template, lang):
    from datetime import datetime, timedelta, timezone

    from bot.i18n import render

    chart = natal_chart(datetime(1990, 5, 17, 14, 30, tzinfo=timezone(timedelta(hours=9))), 126.98, 37.57)
    out = render(template, lang, chart=chart.to_json(), show_all=False)
    assert "qizheng." not in out and "命" in out
    held = [p for p in chart.to_json()["patterns"] if p["holds"]]
    assert held and all(p["quote"] in out for p in held)
    assert ("<b>" in out) == template.endswith(".html.j2")


def test_every_fact_test_and_option_has_messages():
    from bot.i18n import catalog
    from engine.qizheng import QizhengOptions
    from engine.qizheng.patterns import Evaluator

    ops = {name[3:] for name in dir(Evaluator) if name.startswith("op_")}
    opts = QizhengOptions()
    for lang in ("ko", "lzh"):
        cat = catalog(lang)
        assert all(f"qizheng.fact.{op}" in cat for op in ops), lang
        for field in opts.to_json():
            assert f"qizheng.opt.{field}" in cat
            for member in type(getattr(opts, field)):
                assert f"qizheng.opt.{field}.{member.value}" in cat, (lang, field, member)


def test_json_motion_panzhi_and_xian(capsys):
    data = run_json(capsys, "--at", AT, "--place", "서울", "--on", "2027-03-01")
    for name in ("水星", "金星", "火星", "木星", "土星"):
        assert data["bodies"][name]["motion"] in ("順", "逆", "留") and "speed" in data["bodies"][name]
    assert data["bodies"]["水星"]["motion"] == "留"  # turns direct 3.5 h before the birth
    assert data["pan_zhi"]["mansion_frame"] == "ecliptic" and data["pan_zhi"]["station_window_days"] == 1.0
    xian = data["xian"]
    assert xian["on"].startswith("2027-03-01T12:00") and xian["liunian"]["year"] == "丁未"
    assert xian["daxian"]["house"] == "官祿" and xian["xiaoxian"]["house"]


@pytest.mark.parametrize(
    "lang,marks", [("ko", ("반제", "정류", "소한", "유년")), ("lzh", ("盤制", "留", "小限", "流年"))]
)
def test_text_prints_panzhi_motion_and_xian(capsys, lang, marks):
    assert main(["qizheng", "--at", AT, "--place", "서울", "--on", "2027-03-01", "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert all(m in out for m in marks), out[-800:]
    assert "qizheng." not in out


def test_options_tongxian_and_equatorial(capsys):
    data = run_json(capsys, "--at", AT, "--place", "서울", "--tongxian", "10", "--mansions", "equatorial")
    assert data["options"]["tongxian"] == "10" and data["daxian"][0]["from"] == 11
    assert data["pan_zhi"]["mansion_frame"] == "equatorial"


@pytest.mark.parametrize("on,text", [("20x7", "20x7"), ("1980-01-01", "1980")])
def test_bad_on_exit_2(capsys, on, text):
    assert main(["qizheng", "--at", AT, "--place", "서울", "--on", on]) == 2
    assert text in capsys.readouterr().err


def test_text_names_the_broad_clauses_that_hold(capsys):
    data = run_json(capsys, "--at", AT, "--place", "서울")
    broad = [p["id"] for p in data["patterns"] if p["holds"] and p["broad"]]
    assert broad  # e.g. p29.2 (閒神攘殿) in this chart
    assert main(["qizheng", "--at", AT, "--place", "서울"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("넓은 조목"))
    # named as a reader names a passage (제29단 2구), never by its id (issue 33 item 5)
    named = [f"제{int(pid[1:3])}단 {pid.split('.')[1]}구" for pid in broad]
    assert all(name in line for name in named) and not any(pid in line for pid in broad)
