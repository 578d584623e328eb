"""What a 大六壬 cast asks for, parsed from the words a user types (shared by the CLI and the chat).

``/cast 辛巳 辰將 巳時`` or ``sikpan cast --day 辛巳 --general 辰 --hour 巳``: a day 干支 and either a 局, or a
月將 and an 占時, or a 局 with one of them. :func:`chart_for_request` builds the chart and records in
``Chart.assumed`` what had to be assumed (the 占時, and with it the 月將, when only a 局 is given), so nothing
is assumed silently (issue 20).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuren.chart import Chart, build_chart, chart_for_ju, ju_of
from engine.liuren.options import DEFAULT_OPTIONS, Options

_GENERAL_SUFFIX = "將"
_HOUR_SUFFIX = "時"
_NIGHT = frozenset({"夜", "夜占", "night"})
_DAY = frozenset({"晝", "晝占", "day"})


@dataclass(frozen=True, slots=True)
class CastRequest:
    """A day 干支 with a 局 and/or a 月將 and 占時; ``night`` picks the 夜貴 when the 占時 is assumed."""

    day: GanZhi
    ju: int | None = None
    month_general: Branch | None = None
    hour: Branch | None = None
    night: bool = False


def _branch(text: str, suffix: str, code: str) -> Branch:
    core = text.strip().removesuffix(suffix)
    if len(core) == 1:
        try:
            return Branch.from_char(core)
        except ValueError:
            pass
    raise EngineInputError(code, f"not a branch: {text!r}", value=text)


def parse_month_general(text: str) -> Branch:
    """月將 from 「辰」 or 「辰將」 (seed 003 entry 7 「斬關月將」 is 辰)."""
    return _branch(text, _GENERAL_SUFFIX, "error.liuren.bad_general")


def parse_hour(text: str) -> Branch:
    """占時 from 「巳」 or 「巳時」."""
    return _branch(text, _HOUR_SUFFIX, "error.liuren.bad_hour")


def parse_ju(text: str) -> int:
    """局 from 「8」, 「第8局」 or 「8局」 (1…12)."""
    core = text.strip().removeprefix("第").removesuffix("局")
    if core.isdigit() and 1 <= int(core) <= 12:
        return int(core)
    raise EngineInputError("error.liuren.bad_ju", f"局 must be 1…12, not {text!r}", value=text)


def parse_tokens(tokens: Sequence[str]) -> CastRequest:
    """A request from words: the day 干支 first, then in any order a 局 (「8」), 「辰將」, 「巳時」, 「夜」/「晝」.

    A bare branch after the day is read as the 占時 (「辛巳 巳」), the way a 課 is usually asked.
    """
    if not tokens:
        raise EngineInputError("error.liuren.need_day", "a day 干支 is needed", value="")
    try:
        day = GanZhi.parse(tokens[0])
    except ValueError:
        raise EngineInputError(
            "error.liuren.need_day", f"not a day 干支: {tokens[0]!r}", value=tokens[0]
        ) from None
    ju: int | None = None
    general: Branch | None = None
    hour: Branch | None = None
    night = False
    for token in tokens[1:]:
        t = token.strip()
        if t in _NIGHT or t in _DAY:
            night = t in _NIGHT
        elif t.endswith(_GENERAL_SUFFIX):
            general = parse_month_general(t)
        elif t.endswith(_HOUR_SUFFIX) or (len(t) == 1 and not t.isdigit()):
            hour = parse_hour(t)
        else:
            ju = parse_ju(t)
    return CastRequest(day, ju, general, hour, night)


def chart_for_request(request: CastRequest, options: Options = DEFAULT_OPTIONS) -> Chart:
    """The chart a request asks for.

    - 月將 and 占時 (and no 局, or the 局 they make): :func:`build_chart`, nothing assumed;
    - a 局 with one of 月將 / 占時: the other follows from the 局, nothing assumed;
    - a 局 alone: the 占時 is assumed (``chart_for_ju``'s rule, 晝 or 夜 by ``night``), and so the 月將;
      the chart's ``assumed`` says so.
    """
    general, hour, ju = request.month_general, request.hour, request.ju
    if general is not None and hour is not None:
        if ju is not None and ju_of(general, hour) != ju:
            raise EngineInputError(
                "error.liuren.ju_mismatch",
                f"{general.char}將 {hour.char}時 make 第{ju_of(general, hour)}局, not 第{ju}局",
                general=general.char,
                hour=hour.char,
                ju=ju,
                actual=ju_of(general, hour),
            )
        return build_chart(request.day, general, hour, options)
    if ju is None:
        raise EngineInputError("error.liuren.need_ju", "give a 局, or a 月將 and an 占時", value="")
    return chart_for_ju(request.day, ju, options, hour=hour, daytime=not request.night, month_general=general)
