"""``sikpan cast`` and ``sikpan liuren table`` (issue 3 CLI and JSON contract)."""

import json
import subprocess
import sys

import pytest

from bot.cli import main
from bot.cli.common import parse_instant
from bot.i18n import term


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_table_json_contract(capsys):
    code, out, _ = run(capsys, "liuren", "table", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 720
    assert [(r["day"], r["ju"]) for r in lines[:13]][:2] == [("甲子", 1), ("甲子", 2)]
    assert lines[12]["day"] == "乙丑" and lines[-1]["day"] == "癸亥" and lines[-1]["ju"] == 12
    row = next(r for r in lines if r["day"] == "庚辰" and r["ju"] == 8)
    assert set(row) == {"day", "ju", "lessons", "transmissions", "method", "ke_ti", "guiren_dependent"}
    assert row["lessons"][0] == ["丑", "庚"]  # 庚辰日 第8局 has 丑 over the day stem
    assert row["transmissions"] == ["寅", "未", "子"]
    assert row["method"] == "賊剋" and row["ke_ti"][0] == "重審"
    assert {r["method"] for r in lines} == {
        "賊剋",
        "比用",
        "涉害",
        "遙剋",
        "昴星",
        "別責",
        "八專",
        "伏吟",
        "返吟",
    }


def test_table_says_which_guiren(capsys):
    # seed 003 entry 3 (庚辰 第10局) 「夜貴閉口」; entry 2 (第9局) 「兩貴臨門」 (勵德 under both 貴人)
    _, out, _ = run(capsys, "liuren", "table", "--json")
    rows = {(r["day"], r["ju"]): r for r in map(json.loads, out.splitlines())}
    e3, e2 = rows[("庚辰", 10)], rows[("庚辰", 9)]
    assert e3["guiren_dependent"] == {"閉口": ["夜"]} and "閉口" not in e3["ke_ti"]
    assert e2["guiren_dependent"]["勵德"] == ["晝", "夜"] and "勵德" in e2["ke_ti"]
    kinds = {"閉口", "勵德", "貴登天門"}
    for r in rows.values():
        assert set(r["guiren_dependent"]) <= kinds
        for name, when in r["guiren_dependent"].items():
            assert when in (["晝"], ["夜"], ["晝", "夜"])
            assert (name in r["ke_ti"]) == (when == ["晝", "夜"])
    # every 貴登天門 holds through one 貴人 only (one 貴人 sits on 亥 at a time)
    assert all(r["guiren_dependent"].get("貴登天門", ["晝"]) != ["晝", "夜"] for r in rows.values())


def test_table_options(capsys):
    _, default, _ = run(capsys, "liuren", "table", "--json")
    _, mzj, _ = run(capsys, "liuren", "table", "--json", "--shehai", "mzj")
    a = [json.loads(x)["transmissions"] for x in default.splitlines()]
    b = [json.loads(x)["transmissions"] for x in mzj.splitlines()]
    assert sum(x != y for x, y in zip(a, b)) == 23


def test_table_text(capsys):
    code, out, _ = run(capsys, "liuren", "table", "--lang", "lzh")
    assert code == 0
    assert "庚辰 　八 | 丑/庚 午/丑 酉/辰 寅/酉 | 寅未子 | 賊剋 | 重審" in out  # the 局 in Chinese numerals
    # a 貴人-dependent 課體 carries the 貴人 it holds under (seed 003 entry 3 「夜貴閉口」)
    assert (
        "庚辰 　十 | 亥/庚 寅/亥 未/辰 戌/未 | 寅巳申 | 遙剋 | 彈射 刖足 元胎 閉口（夜）" in out.splitlines()
    )  # full-width in lzh


def test_cast_day_ju_json(capsys):
    code, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "11", "--json")
    assert code == 0
    obj = json.loads(out)
    for key in ("day", "month_general", "hour", "ju", "lessons", "transmissions", "method", "ke_ti",
                "generals", "daytime", "xunkong", "trace", "options", "patterns", "reading"):  # fmt: skip
        assert key in obj
    assert obj["transmissions"] == ["申", "戌", "子"] and obj["method"] == "涉害"
    assert obj["generals"]["貴人"] == "丑" and obj["daytime"] is True
    assert obj["xunkong"] == ["申", "酉"]
    depths = {c["branch"]: c["depth"] for c in obj["trace"]["candidates"]}
    assert depths["申"] > depths["子"]
    assert obj["options"]["shehai"] == "depth"


def test_cast_at_json(capsys):
    code, out, _ = run(capsys, "cast", "--at", "2024-03-20T13:00:00+09:00", "--json")
    assert code == 0
    obj = json.loads(out)
    assert obj["month_general"] == "戌" and obj["hour"] == "未"  # after 春分 (03:06 UTC); 13:00 is 未時
    assert obj["ju"] == 10  # (未 − 戌) mod 12 + 1
    assert obj["moment"]["term"] == "春分"


@pytest.mark.parametrize("lang", ["ko", "lzh"])
def test_cast_text_board(capsys, lang):
    code, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--lang", lang)
    assert code == 0
    # in ko each cell is read in 한글, one syllable a character (a 天將 by its short form's syllable: 后 → 후)
    short = {"后": "天后", "空": "天空"}

    def cells(text: str) -> list[str]:
        if lang == "lzh":
            return text.split()
        return [term("ko", short[c])[1] if c in short else term("ko", c) for c in text.split()]

    lines = out.splitlines()
    # the 天地盤 square: 天盤 over 巳午未申 on top (戌亥子丑 for 第8局), 寅丑子亥 at the bottom (未午巳辰)
    assert any(line.split() == cells("戌 亥 子 丑") for line in lines)
    assert any(line.split() == cells("未 午 巳 辰") for line in lines)
    # left and right sides: 酉 over 辰 and 申 over 卯 (left), 寅 over 酉 and 卯 over 戌 (right), 天將 outside
    assert any(line.split()[1:3] == cells("酉 寅") for line in lines if len(line.split()) == 4)
    assert any(line.split()[1:3] == cells("申 卯") for line in lines if len(line.split()) == 4)
    # 四課 right to left: uppers 寅 酉 午 丑 over lowers 酉 辰 丑 庚
    assert any(line.split() == cells("寅 酉 午 丑") for line in lines)
    assert any(line.split() == cells("酉 辰 丑 庚") for line in lines)
    # 三傳 with 遁干 and 天將 (晝: 寅 天后, 未 天空, 子 螣蛇)
    assert any(" ".join(cells("財 戊 寅 后")) in line for line in lines)
    assert any(" ".join(cells("印 癸 未 空")) in line for line in lines)
    word = {"ko": "삼전", "lzh": "三傳"}[lang]
    assert word in out


def test_cast_text_names_options(capsys):
    _, out, _ = run(capsys, "cast", "--day", "甲辰", "--ju", "5", "--shehai", "mzj", "--lang", "lzh")
    assert "孟仲季" in out and "卯子午" in out and "卯至申為晝" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["cast", "--day", "甲丑", "--ju", "3"], "甲丑"),
        (["cast", "--day", "甲子", "--ju", "13"], "13"),
        (["cast", "--day", "甲子", "--ju", "3", "--gui-rule", "xx"], "xx"),
        (["cast", "--day", "甲子"], "--ju"),
    ],
)
def test_bad_input_is_localized(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_bad_ju_message_ko_and_lzh(capsys):
    _, _, err = run(capsys, "cast", "--day", "甲子", "--ju", "13")
    assert "국(局)" in err
    _, _, err = run(capsys, "cast", "--day", "甲子", "--ju", "13", "--lang", "lzh")
    assert "局當在一至十二" in err


def test_subprocess_exit_code():
    for argv in (["cast", "--day", "甲丑", "--ju", "3"], ["cast", "--day", "甲子", "--ju", "13"]):
        proc = subprocess.run(
            [sys.executable, "-m", "bot.cli", *argv], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 2
        assert proc.stderr.strip() and "Traceback" not in proc.stderr


def test_cast_shows_seed_reading(capsys):
    # seed 003 entry 1 (庚辰 第8局): the full text in the user's language
    _, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--lang", "lzh")
    assert "課義：己財先費，方獲厚利，初引末從，旬丁晝貴。" in out
    _, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8")
    assert "큰 이익(厚利)" in out  # 課義 「方獲厚利」 (seed 003 entry 1)
    _, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--json")
    obj = json.loads(out)
    assert obj["reading"][0]["kind"] == "seed" and obj["reading"][-1]["kind"] == "composed"
    assert "引從" in obj["ke_ti"]  # 課體 named by seed 003 entry 1, detected by engine.liuren.patterns


def test_cast_marks_transmissions_with_shensha(capsys):
    from engine.calendar import four_pillars
    from engine.liuren import chart_at
    from engine.shensha import marks

    iso = "2024-05-01T10:00:00+09:00"
    _, out, _ = run(capsys, "cast", "--at", iso, "--json")
    obj = json.loads(out)
    p = four_pillars(parse_instant(iso))
    expected = marks(p.day, month=p.month.branch, year=p.year, hour=p.hour.branch)
    c = chart_at(parse_instant(iso))
    for t, shown in zip(c.transmissions, obj["transmission_detail"]):
        assert shown["marks"] == list(expected[t.branch])
    assert any(shown["marks"] for shown in obj["transmission_detail"])


@pytest.mark.parametrize("lang", ["lzh", "ko"])
def test_generic_jianchuan_says_nothing_of_jiyin(capsys, lang):
    # 甲子 第11局: 三傳 辰午申 (間傳, 六陽). 「極陰間傳，昏晦之中，復多阻隔」 is seed 003 entry 8's 斷曰 of 辛巳 第3局
    code, out, _ = run(capsys, "cast", "--day", "甲子", "--ju", "11", "--lang", lang)
    assert code == 0 and "間傳" in out
    # (六陽's own text 「亦以陽極陰生論」 contains the characters 極陰, so look for the remark and the name)
    assert "極陰間傳" not in out and "昏晦" not in out and "阻隔" not in out and "극음" not in out
    assert "極陰," not in out and "極陰:" not in out and not out.rstrip().endswith("極陰")
    # the remark stays with its own 課
    _, out8, _ = run(capsys, "cast", "--day", "辛巳", "--ju", "3", "--lang", "lzh")
    assert "極陰間傳，昏晦之中，復多阻隔" in out8


def test_cast_day_ju_states_what_it_assumes(capsys):
    # issue 20: 「--day/--ju silently fixes 占時 午」 — now stated, in JSON and in the text
    _, out, _ = run(capsys, "cast", "--day", "辛巳", "--ju", "2", "--json")
    data = json.loads(out)
    assert data["assumed"] == {"month_general": "巳", "hour": "午"}
    _, text, _ = run(capsys, "cast", "--day", "辛巳", "--ju", "2", "--lang", "lzh")
    assert "未言占時，姑以午時起課，月將從之為巳" in text


def test_cast_general_and_hour(capsys):
    # seed 003 entry 7 「斬關月將」: 月將 辰; given, nothing is assumed
    code, out, _ = run(
        capsys, "cast", "--day", "辛巳", "--ju", "2", "--general", "辰", "--hour", "巳", "--json"
    )
    data = json.loads(out)
    assert code == 0 and (data["month_general"], data["hour"], data["ju"]) == ("辰", "巳", 2)
    assert "assumed" not in data
    # without --ju: the 局 follows from 月將 and 占時
    _, out, _ = run(capsys, "cast", "--day", "辛巳", "--general", "辰將", "--hour", "巳時", "--json")
    assert json.loads(out)["ju"] == 2
    # a 局 that the two do not make: a localized error, exit 2
    code, _, err = run(
        capsys, "cast", "--day", "辛巳", "--ju", "3", "--general", "辰", "--hour", "巳", "--lang", "lzh"
    )
    assert code == 2 and "辰將巳時為第二局，非第三局" in err


def test_cast_night_decides_with_the_night_guiren(capsys):
    # 丙 晝貴亥 夜貴酉; 丙寅 第5局 --night: 貴人 酉 over 丑 — no 勵德 (貴人臨卯酉) by the 晝貴 any more
    _, out, _ = run(capsys, "cast", "--day", "丙寅", "--ju", "5", "--night", "--json")
    data = json.loads(out)
    assert data["guiren"] == "酉" and data["daytime"] is False
    assert "勵德" not in data["ke_ti"]
    assert data["guiren_dependent"]["勵德"] == ["晝"]
    _, out, _ = run(capsys, "cast", "--day", "丙寅", "--ju", "5", "--json")
    assert "勵德" in json.loads(out)["ke_ti"]


def test_seed003_rule_names_shown_apart(capsys):
    # seed 003 entry 2 「課體：元首，潤下，不備，勵德，閉口」: 閉口 is the 夜貴's (「兩貴」), not this 晝 cast's;
    # 六陽 迴環 斷橋 hold by rule but are not in the seed's line — both said apart from the seed's own names
    _, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "9", "--json")
    seed = next(r["seed"] for r in json.loads(out)["reading"] if r["kind"] == "seed")
    assert seed["ke_ti"] == ["元首", "潤下", "不備", "勵德", "閉口"]
    assert seed["seed_only"] == ["閉口"] and {"迴環", "斷橋"} <= set(seed["derived"])
    _, text, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "9", "--lang", "lzh")
    assert "原書課體：元首，潤下，不備，勵德，閉口" in text and "原書所列而本占貴人不成者：閉口" in text
    # entry 1 「課體：重審，驀越，引從」: with the 驀越 of seed 003 nothing is derived beside it
    _, out, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--json")
    seed = next(r["seed"] for r in json.loads(out)["reading"] if r["kind"] == "seed")
    assert seed["derived"] == [] and seed["seed_only"] == []


def test_cast_ends_in_a_verdict(capsys):
    # 「視所乘何神、視所屬何煞、所臨何煞定其吉凶」: every composed reading ends in a verdict with cited reasons
    _, out, _ = run(capsys, "cast", "--day", "甲子", "--ju", "11", "--json", "--category", "人物")
    data = json.loads(out)
    v = data["verdict"]
    assert v["category"] == "人物" and v["direction"] in ("吉", "凶", "平")
    assert all(r["text"] and r["source"] for r in v["reasons"])
    composed = next(r for r in data["reading"] if r["kind"] == "composed")
    assert composed["verdict"] == v
    _, text, _ = run(capsys, "cast", "--day", "甲子", "--ju", "11", "--lang", "lzh")
    tail = text.rstrip().splitlines()
    assert any(line.startswith("【斷】 總斷") for line in tail) and tail[-1].startswith("※ 原書不言輕重")


def test_cast_text_with_hour_and_instant(capsys):
    # given 占時: no assumption line, the 占時 position weighs (seed 002 「干支三傳占時本命」)
    code, text, _ = run(capsys, "cast", "--day", "庚辰", "--ju", "8", "--hour", "午", "--lang", "lzh")
    assert code == 0 and "未言占時" not in text
    verdict = text[text.index("【斷】") :].splitlines()
    assert any(line.lstrip("　").startswith(("＋ 占時 午", "－ 占時 午")) for line in verdict)
    code, text, _ = run(capsys, "cast", "--at", "2024-05-01T10:00:00+09:00", "--lang", "ko")
    assert code == 0 and "【판단】" in text and "점시를 주지 않아" not in text
