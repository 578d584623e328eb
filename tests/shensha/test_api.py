"""The public engine API fixed in the brief: evaluate / marks / stem_marks, omissions, options, JSON contract."""

from __future__ import annotations

import json

import pytest

from engine.core.cycle import Branch, GanZhi, Stem
from engine.errors import EngineInputError
from engine.shensha import (
    OPTION_VALUES,
    Options,
    ShenshaResult,
    StarHit,
    evaluate,
    marks,
    star_defs,
    stem_marks,
)
from tests.shensha.helpers import br, gz


def test_evaluate_returns_frozen_hits():
    r = evaluate(gz("甲子"), br("寅"))
    assert isinstance(r, ShenshaResult) and all(isinstance(h, StarHit) for h in r.stars)
    with pytest.raises(AttributeError):
        r.stars[0].value = Branch.ZI  # type: ignore[misc]
    assert r == evaluate(gz("甲子"), br("寅"))  # deterministic


def test_json_contract():
    out = evaluate(gz("甲子"), br("寅")).to_json()
    json.dumps(out, ensure_ascii=False)
    assert out["day"] == "甲子" and out["month"] == "寅"
    row = next(s for s in out["stars"] if s["name"] == "天乙貴人")
    assert row["value"] == ["丑", "未"] and row["key"] == "day stem" and row["source"].startswith("000:")
    assert {"name", "value", "key", "source"} <= set(row)
    by_name = {s["name"]: s for s in out["stars"]}
    assert by_name["天赦"]["value"] is False  # a property of the day
    assert by_name["鶴神"]["value"] == "東南"  # a direction word
    assert by_name["天干天德"]["value"] == "丁"  # a stem
    assert by_name["旬空"]["value"] == ["戌", "亥"]
    assert (
        evaluate(gz("甲子"), br("申"), gz("甲子")).get("天官符").to_json()["value"] == "坤宮"
    )  # a palace word


def test_missing_keys_are_omitted_never_guessed():
    r = evaluate(gz("甲子"))
    names = {h.name for h in r.stars}
    assert "天德" not in names and "驛馬" not in names and "太歲" not in names and "破軍" not in names
    needs = {o.name: o.needs for o in r.omitted}
    assert needs["天德"] == ("month",)
    assert needs["太歲"] == ("year",)
    assert needs["破軍"] == ("month", "hour")
    assert needs["天官符"] == ("month", "year")
    assert needs["天赦"] == ("month",)
    # day-keyed stars are all there
    assert {"天乙貴人", "羊刃", "旬空", "馬", "丁神", "鶴神"} <= names
    assert evaluate(gz("甲子"), br("寅"), hour=br("午")).get("破軍").value == br("戌")


def test_bad_inputs_raise_engine_input_errors():
    with pytest.raises(EngineInputError) as e:
        evaluate("甲子")  # type: ignore[arg-type]
    assert e.value.code == "error.not_a_ganzhi"
    with pytest.raises(EngineInputError) as e:
        evaluate(gz("甲子"), month=3)  # type: ignore[arg-type]
    assert e.value.code == "error.shensha.bad_month"
    with pytest.raises(EngineInputError) as e:
        Options(yingui="nope")
    assert e.value.code == "error.shensha.bad_option"
    with pytest.raises(EngineInputError) as e:
        Options().with_option("nope", "x")
    assert e.value.code == "error.shensha.unknown_option"


def test_marks_put_names_on_branches():
    m = marks(gz("甲子"), br("寅"))
    assert set(m) == set(Branch)
    assert "天乙貴人" in m[br("丑")] and "天乙貴人" in m[br("未")]
    assert "驛馬" in m[br("申")]  # month key (default)
    assert "馬" in m[br("寅")]  # seed 002: by the day branch
    assert "羊刃" in m[br("卯")] and "天元祿" in m[br("寅")]
    assert "旬空" in m[br("戌")] and "旬空" in m[br("亥")]
    assert "天馬" in m[br("午")] and "咸池" in m[br("卯")] and "丁神" in m[br("卯")]
    assert "天罡" in m[br("巳")] and "太乙" not in m[br("午")]  # 「餘十將不司卦內吉凶」
    assert "印" not in m[br("子")]  # per-branch tables only on request
    assert "印" in marks(gz("甲子"), br("寅"), include_tables=True)[br("子")]
    day_key = marks(gz("甲子"), br("寅"), options=Options(jiangxing_key="day"))
    assert "驛馬" in day_key[br("寅")] and "驛馬" not in day_key[br("申")]


def test_stem_marks():
    sm = stem_marks(gz("丁亥"), br("寅"))
    assert set(sm) == set(Stem)
    assert "天干天德" in sm[Stem.DING] and "天干月德" in sm[Stem.BING] and "月空" in sm[Stem.REN]
    # 卯 month: 天干天德 is the branch 申, so it marks a branch, not a stem
    assert not any("天干天德" in v for v in stem_marks(gz("丁亥"), br("卯")).values())
    assert "天干天德" in marks(gz("丁亥"), br("卯"))[br("申")]


def test_options_change_values_and_alternatives_are_reported():
    hit = evaluate(gz("丙寅"), br("寅")).get("陰貴")
    assert hit.value == br("亥") and dict(hit.alt) == {"yingui=verse": br("酉")}
    assert evaluate(gz("丙寅"), br("寅"), options=Options(yingui="verse")).get("陰貴").value == br("酉")
    r = evaluate(gz("甲子"), br("寅"), options=Options(guansuo="combined"))
    assert r.get("關鎖") is not None and r.get("鎖") is None
    assert any(o.name == "鎖" and o.reason == "merged" for o in r.omitted)
    assert r.to_json()["options"] == {"guansuo": "combined"}


def test_every_day_and_month_evaluates():
    for i in range(60):
        for m in range(12):
            r = evaluate(GanZhi.of(i), Branch(m))
            assert len(r.stars) >= 140


def _marks_from_evaluate(day, month, year, hour, options, include_tables):
    """The marks as the API defines them, read straight off ``evaluate``: each marked hit's branches and stems,
    in data order (seed-002 per-branch tables only on request, the 天將 never)."""
    defs = {s.id: s for s in star_defs()}
    branches = {b: [] for b in Branch}
    stems = {s: [] for s in Stem}
    for hit in evaluate(day, month, year, hour, options=options).stars:
        s = defs[hit.id]
        if include_tables:
            keep = s.group not in ("summary", "general")
        else:
            keep = s.mark and s.group not in ("liuqin", "changsheng", "vitality", "summary", "general")
        if not keep:
            continue
        v = hit.value
        for b in (v.branch,) if isinstance(v, GanZhi) else v if isinstance(v, tuple) else (v,):
            if isinstance(b, Branch) and hit.name not in branches[b]:
                branches[b].append(hit.name)
            if isinstance(b, Stem) and hit.name not in stems[b]:
                stems[b].append(hit.name)
    return {b: tuple(n) for b, n in branches.items()}, {s: tuple(n) for s, n in stems.items()}


@pytest.mark.parametrize(
    "options",
    [Options()] + [Options().with_option(name, values[1]) for name, values in OPTION_VALUES.items()],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.changed().items()) or "default",
)
def test_marks_equal_the_stars_of_evaluate(options):
    """The precomputed marking plan gives exactly what ``evaluate`` gives, with any inputs absent."""
    for i in range(60):
        present = i % 8  # every combination of month / year / hour being given
        month = Branch(i % 12) if present & 1 else None
        year = GanZhi.of(7 * i % 60) if present & 2 else None
        hour = Branch(5 * i % 12) if present & 4 else None
        day = GanZhi.of(i)
        for include_tables in (False, True):
            want_b, want_s = _marks_from_evaluate(day, month, year, hour, options, include_tables)
            got = marks(day, month, year, hour, options=options, include_tables=include_tables)
            assert dict(got) == want_b, (day.chars, month, year, hour, include_tables)
        assert (
            dict(stem_marks(day, month, year, hour, options=options))
            == _marks_from_evaluate(day, month, year, hour, options, False)[1]
        )
