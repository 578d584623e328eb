"""The cached readings and verdicts (engine.liuren.reading.cached_read, engine.liuren.verdict.cached_judge):
a cached value is the one computed afresh, a school option is part of the key, the cache is bounded."""

from dataclasses import FrozenInstanceError, replace
from datetime import UTC, datetime, timedelta

import pytest

from engine.calendar import DayStart
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuren import GuiRule, Options, Shehai, chart_at, chart_for_ju, reading, verdict
from engine.liuren.chart import clear_caches
from engine.liuren.reading import compose, read, seed_keys, seed_reading
from engine.liuren.verdict import judge

B = Branch.from_char


def sample() -> list:
    """The eight 課 of seed 003 and every 7th of the 720 (day, 局), with and without a question's branches."""
    keys = [*seed_keys(), *((GanZhi.of(n // 12), n % 12 + 1) for n in range(0, 720, 7))]
    return [
        (chart_for_ju(day, ju), category, ming)
        for n, (day, ju) in enumerate(keys)
        for category, ming in (
            (None, {}),
            ("天文" if n % 2 else None, {"birth": B("午"), "xingnian": B("寅")}),
        )
    ]


def test_a_cached_reading_and_verdict_equal_the_ones_computed_afresh():
    cases = sample()
    cached = []
    for chart, category, ming in cases:
        first = read(chart, category, month=B("寅"), year=B("午"), **ming)
        again = read(chart, category, month=B("寅"), year=B("午"), **ming)
        assert again is first  # the second is the cache's
        assert judge(chart, category, **ming) is judge(chart, category, **ming)
        cached.append((first, judge(chart, category, **ming)))
    clear_caches()
    for (chart, category, ming), (readings, judged) in zip(cases, cached, strict=True):
        composed = compose(chart, category, month=B("寅"), year=B("午"), **ming)  # never cached
        seed = seed_reading(chart)
        assert readings == ((seed, composed) if seed is not None else (composed,)), (chart.day, chart.ju)
        assert read(chart, category, month=B("寅"), year=B("午"), **ming) == readings
        assert judged == judge(chart, category, **ming) == composed.verdict


def test_a_chart_with_its_instant_reads_as_the_same_chart_without_it():
    """The instant gives the 月建 and 太歲 (of its month and year pillars) and nothing else: one entry."""
    start = datetime(2026, 2, 1, 0, 0, tzinfo=UTC)
    for step in range(0, 24 * 40, 17):
        chart = chart_at(start + timedelta(hours=step), Options(), day_starts=DayStart.parse("23:00"))
        assert chart.moment is not None
        bare = replace(chart, moment=None)
        month, year = chart.moment.month.branch, chart.moment.year.branch
        assert read(chart) is read(bare, month=month, year=year)
        assert read(chart)[-1] == compose(chart)


def test_a_school_option_is_part_of_the_key():
    # 《六壬大全》 乙卯 第3局 「當取亥加丑為用」; the 孟仲季 涉害 shortcut takes another 初傳 (tests/liuren/test_classical)
    day = GanZhi.parse("乙卯")
    depth, mzj = chart_for_ju(day, 3), chart_for_ju(day, 3, Options(shehai=Shehai.MZJ))
    assert read(depth)[-1].position("initial").branch == B("亥")
    other = read(mzj)
    assert other[-1].position("initial").branch != B("亥")
    assert other == (compose(mzj),) and judge(mzj) == compose(mzj).verdict != judge(depth)
    # 貴人 by the 《六壬大全》 table (乙 晝 子) and by seed 000's 三命 table (乙 陽貴 申): other 天將 on each branch
    daquan = chart_for_ju(day, 5, daytime=True)
    sanming = chart_for_ju(day, 5, Options(gui_rule=GuiRule.SANMING), daytime=True)
    assert (daquan.guiren, sanming.guiren) == (B("子"), B("申"))
    first, second = read(daquan)[-1], read(sanming)[-1]
    assert first != second and second == compose(sanming)
    for chart, composed in ((daquan, first), (sanming, second)):
        assert all(p.general == chart.general_on(p.branch) for p in composed.positions)


def test_the_asker_and_the_question_are_part_of_the_key():
    chart = chart_for_ju(GanZhi.parse("庚辰"), 8)
    plain = read(chart)[-1]
    asked = read(chart, birth=B("午"), xingnian=B("寅"))[-1]
    assert [p.role for p in plain.positions][-2:] == ["zhi_upper", "hour"]
    assert [p.role for p in asked.positions][-2:] == ["birth", "xingnian"]
    assert read(chart, "天文")[-1].category == "天文" and plain.category is None
    assert judge(chart, "天文").category == "天文" and judge(chart).category == "general"


def test_an_int_is_not_taken_for_the_branch_it_equals():
    chart = chart_for_ju(GanZhi.parse("庚辰"), 8)
    read(chart, month=B("子"))
    with pytest.raises(EngineInputError):
        read(chart, month=0)  # type: ignore[arg-type]


def test_cached_values_are_frozen():
    readings = read(chart_for_ju(GanZhi.parse("庚辰"), 8), birth=B("午"))
    with pytest.raises(FrozenInstanceError):
        readings[-1].positions[0].attributes[0].id = "x"  # type: ignore[misc]
    assert isinstance(readings, tuple) and isinstance(readings[-1].verdict.reasons, tuple)


def test_the_caches_are_bounded():
    clear_caches()
    chart = chart_for_ju(GanZhi.parse("庚辰"), 8)
    asked = [(b, x) for b in Branch for x in Branch]  # 144 askers per 課, 2 課
    for other in (chart, chart_for_ju(GanZhi.parse("甲子"), 1)):
        for birth, xingnian in asked:
            read(other, birth=birth, xingnian=xingnian)
    for cache, size in (
        (reading.cached_read, reading.READ_CACHE_SIZE),
        (verdict.cached_judge, verdict.JUDGE_CACHE_SIZE),
    ):
        info = cache.cache_info()
        assert info.maxsize == size < 2 * len(asked) and info.currsize == size
