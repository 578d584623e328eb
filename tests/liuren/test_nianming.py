"""年命 (engine.liuren.nianming): 本命 and 行年 by the rule of 《六壬粹言》「行年第九」 and 《三命通會》「論小運」."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from engine.core.cycle import GanZhi
from engine.errors import EngineInputError
from engine.liuren.nianming import Sex, age, data, lichun_year, nianming, xingnian, year_ganzhi


def chars(years: int, sex: Sex) -> str:
    return xingnian(years, sex).chars


def test_man_from_bingyin_forward() -> None:
    # 《三命通會》「論小運」: 「男一歲丙寅，二歲丁卯」, forward (順行) through the cycle
    assert [chars(n, Sex.MALE) for n in (1, 2, 3, 4)] == ["丙寅", "丁卯", "戊辰", "己巳"]
    assert chars(11, Sex.MALE) == "丙子"  # ten years on: the stem comes back to 丙, the branch two past 寅
    assert chars(61, Sex.MALE) == "丙寅"  # the cycle of sixty closes: 六十一歲 is 丙寅 again


def test_woman_from_renshen_backward() -> None:
    # 「女一歲壬申，二歲辛未」, backward (逆行)
    assert [chars(n, Sex.FEMALE) for n in (1, 2, 3, 4)] == ["壬申", "辛未", "庚午", "己巳"]
    assert chars(9, Sex.FEMALE) == "甲子"  # 壬申 辛未 庚午 己巳 戊辰 丁卯 丙寅 乙丑 甲子
    assert chars(10, Sex.FEMALE) == "癸亥"
    assert chars(61, Sex.FEMALE) == "壬申"


def test_the_rule_comes_from_its_data_with_its_source() -> None:
    rule = data()["xingnian"]
    assert "《六壬粹言》" in rule["source"] and "男起丙寅" in rule["source"] and "女起壬申" in rule["source"]
    assert (rule["male"]["start"], rule["male"]["step"]) == ("丙寅", 1)
    assert (rule["female"]["start"], rule["female"]["step"]) == ("壬申", -1)
    for key in ("benming", "age"):
        assert data()[key]["ko"] and data()[key]["lzh"] and data()[key]["source"]


def test_benming_is_the_birth_years_taisui() -> None:
    # 1984 is 甲子 (spec/calendar.md); 1990 庚午, 2000 庚辰
    assert year_ganzhi(1984) == GanZhi.parse("甲子")
    assert year_ganzhi(1990).chars == "庚午"
    assert year_ganzhi(2000).chars == "庚辰"


def test_age_counts_the_birth_year_as_one() -> None:
    assert age(1990, 1990) == 1
    assert age(1990, 2026) == 37
    with pytest.raises(EngineInputError) as err:
        age(2030, 2026)
    assert err.value.code == "error.liuren.birth_after_cast"
    with pytest.raises(EngineInputError) as err:
        age(1800, 2026)
    assert err.value.code == "error.liuren.bad_birth_year"
    with pytest.raises(EngineInputError):
        xingnian(0, Sex.MALE)


def test_nianming_in_a_year() -> None:
    man = nianming(1990, 2026, "male")
    assert (man.benming.chars, man.age) == ("庚午", 37)
    assert (
        man.xingnian is not None and man.xingnian.chars == chars(37, Sex.MALE) == "壬寅"
    )  # 丙寅 + 36: three rounds of the branches, 丙 + 6 stems
    woman = nianming(1990, 2026, Sex.FEMALE)
    assert woman.xingnian is not None and woman.xingnian.chars == "丙申"  # 壬申 − 36
    unknown = nianming(1990, 2026)
    assert unknown.xingnian is None and unknown.to_json()["xingnian"] is None
    assert man.to_json() == {
        "birth_year": 1990,
        "year": 2026,
        "benming": "庚午",
        "age": 37,
        "sex": "male",
        "xingnian": "壬寅",
    }


def test_the_year_turns_at_lichun() -> None:
    kst = timezone(timedelta(hours=9))
    # 立春 2026 is on 4 February (spec/calendar.md: the year pillar changes at 立春)
    assert lichun_year(datetime(2026, 1, 20, 12, tzinfo=kst)) == 2025
    assert lichun_year(datetime(2026, 2, 10, 12, tzinfo=kst)) == 2026


def test_xingnian_is_a_position_of_the_reading_and_the_verdict() -> None:
    # seed 002 「干支三傳占時本命等處」 and seed 003 「年命」: the 行年 is read after the 本命, and weighs
    from engine.core.cycle import Branch
    from engine.liuren import chart_for_ju
    from engine.liuren.reading import compose
    from engine.liuren.verdict import judge

    chart = chart_for_ju(GanZhi.parse("庚辰"), 8)
    birth, walk = year_ganzhi(1990).branch, xingnian(37, Sex.MALE).branch  # 午, 寅
    verdict = judge(chart, birth=birth, xingnian=walk)
    roles = [r.role for r in verdict.reasons if r.role is not None]
    assert "xingnian" in roles and roles.index("birth") < roles.index("xingnian")
    assert any(r.counted and r.branch == Branch.YIN for r in verdict.reasons if r.role == "xingnian")
    assert not any(r.role == "xingnian" for r in judge(chart, birth=birth).reasons)
    reading = compose(chart, birth=birth, xingnian=walk)
    assert reading.position("xingnian").branch == Branch.YIN
    assert reading.to_json()["xingnian"] == "寅" and reading.verdict == verdict


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from bot.cli import main

    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_counts_the_xingnian_by_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    # `sikpan cast --born 1990 --sex male --age 37` is the 本命 午 (庚午) and the 行年 寅 (壬寅) given as branches
    import json

    base = ("cast", "--day", "辛巳", "--ju", "2", "--json")
    code, by_rule, _ = _cli(capsys, *base, "--born", "1990", "--sex", "male", "--age", "37")
    assert code == 0
    code, by_branch, _ = _cli(capsys, *base, "--birth", "午", "--xingnian", "寅")
    assert json.loads(by_rule)["topics"] == json.loads(by_branch)["topics"]
    code, without, _ = _cli(capsys, *base)
    assert json.loads(without)["topics"] != json.loads(by_branch)["topics"]  # the 年命 is weighed
    # with an instant the age is counted from the birth year to the cast's 立春 year: 2026-05-01 → 37
    at = ("cast", "--at", "2026-05-01T12:00+09:00", "--json")
    code, counted, _ = _cli(capsys, *at, "--born", "1990", "--sex", "female")
    code, given, _ = _cli(capsys, *at, "--birth", "午", "--xingnian", "申")  # 壬申 − 36 = 丙申
    assert json.loads(counted)["topics"] == json.loads(given)["topics"]
    code, _, err = _cli(capsys, "cast", "--day", "辛巳", "--ju", "2", "--born", "1850", "--lang", "ko")
    assert code == 2 and "1850" in err
