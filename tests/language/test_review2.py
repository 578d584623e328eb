"""Second native review (issue 15): leftovers a rule can catch — the 六爻 brief without a verdict, the
神煞 labels and values the first review left reading oddly in Korean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.features.base import Reply
from bot.features.liuyao.command import liuyao_view
from bot.views import render
from engine.core.cycle import Branch, GanZhi
from engine.liuyao import build, cast_manual

ROOT = Path(__file__).resolve().parents[2]


def _brief_without_verdict(lang: str, channel: str) -> str:
    # 797979 on 戊戌 day in 丑 month: 三刑 (世戌 刑 by the month 丑) holds, a judgment with a type
    chart = build(cast_manual("797979"), Branch.from_char("丑"), GanZhi.parse("戊戌"))
    context = dict(liuyao_view(chart))
    context.update(no=1, when=None, verdict=None)  # no verdict: the brief then lists the judgments by name
    return render(Reply(view="liuyao", lang=lang, context=context), channel)


@pytest.mark.parametrize("channel", ["console", "telegram", "discord"])
def test_lzh_judgment_type_is_in_full_width_brackets(channel: str) -> None:
    text = _brief_without_verdict("lzh", channel)
    line = next(ln for ln in text.split("\n") if "三刑" in ln and "斷" in ln)
    assert "三刑〔刑〕" in line, line
    assert "[" not in line and "]" not in line, line


def test_ko_judgment_type_still_shown() -> None:
    text = _brief_without_verdict("ko", "console")
    assert any("삼형" in ln and "형" in ln.split("삼형", 1)[1] for ln in text.split("\n")), text


def test_shensha_terms_read_as_korean() -> None:
    terms = json.loads((ROOT / "locales/ko/terms/shensha.json").read_text(encoding="utf-8"))
    # 鶴神 上天房中: the 鶴神 is up in heaven, in the 房 quarter's middle — not 「방수 가운데」
    for key, value in terms.items():
        if key.startswith("上天"):
            assert "방수" not in value and value.startswith("하늘"), (key, value)
    # 死(旺相): 死 of the 旺相休囚死 seasons, not a second name: one reading, one set of characters
    assert "(" not in terms["死(旺相)"] and "·" not in terms["死(旺相)"], terms["死(旺相)"]


def test_a_qualifier_that_only_disambiguates_reads_as_one_korean_label() -> None:
    from bot.i18n import both, one_reply

    with one_reply():
        assert both("ko", "死(旺相)") == "왕상휴수사의 사(死·旺相)"  # not 사·왕상(死·旺相)
        assert both("ko", "死") == "사(死)"  # the 長生 stage is another name: its own first use
        assert both("ko", "死(旺相)") == "왕상휴수사의 사"
    assert both("ko", "月煞(將星)") == "월살·장성(月煞·將星)"  # a real second name keeps both
    assert both("lzh", "死(旺相)") == "死(旺相)"
