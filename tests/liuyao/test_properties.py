"""Invariants over arbitrary casts, days and months (hypothesis), and the ko readings of the 卦 names."""

import json
from importlib import resources

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.i18n import term
from engine.core.cycle import Branch, GanZhi
from engine.core.relations import chong
from engine.liuyao import build, cast_manual, hexagram_table

digits = st.text(alphabet="6789", min_size=6, max_size=6)
months = st.sampled_from(list(Branch))
days = st.integers(0, 59).map(GanZhi.of)
uses = st.sampled_from([None, "父母", "兄弟", "子孫", "妻財", "官鬼"])


@settings(max_examples=300, deadline=None)
@given(digits, months, days, uses)
def test_chart_invariants(d, month, day, use):
    ch = build(cast_manual(d), month, day, use=use)
    assert [ln.digit for ln in ch.chart.lines] == [int(x) for x in d]
    assert (
        ch.chart.shi.shi and ch.chart.ying.ying and abs(ch.chart.shi.position - ch.chart.ying.position) == 3
    )
    for ln in ch.chart.lines:
        assert ln.condition.empty == (ln.branch in day.xunkong)
        assert ln.condition.month_break == (chong(month) == ln.branch)
        if ln.moving:
            assert ch.chart.changed is not None and ln.changed is not None
            assert ln.changed.ganzhi == ch.chart.changed.najia[ln.position - 1]
            assert ln.yang != (ch.chart.changed.bits[ln.position - 1] == "1")
        else:
            assert ln.changed is None
    if use is not None:
        assert ch.chart.use is not None
        assert bool(ch.chart.use.lines) != bool(ch.chart.use.hidden)  # visible, else exactly its 伏神
        assert 1 not in ch.chart.use.hidden or any(h.hidden.line == 1 for h in ch.chart.lines[0].hidden)
    rules = {j.rule for j in ch.judgments}
    assert rules == {"助鬼傷身", "局會", "三刑", "六害"}
    data = json.loads(json.dumps(ch.to_json(), ensure_ascii=False))
    assert all(isinstance(j["holds"], bool) for j in data["judgments"])


def test_korean_readings_of_hexagram_names_match_engine_data():
    doc = json.loads(resources.files("engine.liuyao").joinpath("data", "hexagrams.json").read_text("utf-8"))
    for h in doc["hexagrams"]:
        assert term("ko", h["name"]) == h["ko"]
        assert term("lzh", h["name"]) == h["name"]
    assert {h.name for h in hexagram_table()} == {h["name"] for h in doc["hexagrams"]}
    for rel, ko in (("官鬼", "관귀"), ("妻財", "처재"), ("螣蛇", "등사"), ("遊魂", "유혼"), ("真刑", "진형")):
        assert term("ko", rel) == ko
