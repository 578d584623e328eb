"""``sikpan liuyao``: cast a 六爻 chart (coins, six digits, recorded tosses or 梅花 time) and show it with the
裝卦 analysis, the seed-000 judgments and the verdict; ``sikpan liuyao table`` lists the 64 卦 (issue 5 JSON).

The human-readable text is composed here from locale messages (locales/*/LC_MESSAGES/liuyao.po, ``liuyao.*``)
and the reading's JSON, so the CLI shows exactly what ``--json`` carries.

    sikpan liuyao --coins 797979 --month 寅 --day 戊戌 [--use 官鬼|世|lawsuit] [--json]
    sikpan liuyao --at 2024-02-04T16:27:08+08:00          # 梅花 time cast, month/day from the calendar
    sikpan liuyao --random [--at ISO | --month … --day …]  # three coins with the secrets RNG
    sikpan liuyao table --json
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime
from typing import Any

from bot.cli.common import UsageError, add_common, emit_json, emit_text, parse_branch, parse_instant
from bot.cli.png import add_png_option, write_png
from bot.i18n import N_, both, both_values, cite, gettext, render, series, signed, typeset
from bot.msgids import msgid
from engine.core.cycle import Branch, GanZhi
from engine.errors import EngineInputError
from engine.liuyao import (
    Cast,
    ChangedRelatives,
    MiddleSource,
    Options,
    Scatter,
    build,
    cast_coins,
    cast_manual,
    cast_time,
    cast_tosses,
    hexagram_table,
)
from engine.liuyao.verdict import LINE_NAMES

# message ids used inside the f-strings below: pybabel extract does not look into an f-string before
# Python 3.12, so they are marked here
_IN_FSTRINGS = (
    N_("liuyao.changed"),
    N_("liuyao.day"),
    N_("liuyao.flags"),
    N_("liuyao.hidden"),
    N_("liuyao.main"),
    N_("liuyao.month"),
    N_("liuyao.options"),
    N_("liuyao.stars"),
    N_("liuyao.strong"),
    N_("liuyao.title"),
    N_("liuyao.tosses"),
    N_("liuyao.use"),
    N_("liuyao.use.none"),
    N_("liuyao.verdict.basis"),
    N_("liuyao.verdict.helpers"),
    N_("liuyao.verdict.moving"),
    N_("liuyao.verdict.reasons"),
    N_("liuyao.verdict.relations"),
    N_("liuyao.verdict.strength"),
    N_("liuyao.verdict.transforms"),
    N_("liuyao.verdict.weighed"),
    N_("liuyao.verdict.ying_qi"),
    N_("liuyao.xunkong"),
)


def _lines_named(text: str) -> list[int]:
    """The line positions a verdict reason's classical phrase names (初爻 … 上爻), in order."""
    found = [(text.find(name), i) for i, name in enumerate(LINE_NAMES, 1) if name in text]
    return [i for _, i in sorted(found)]


def _line(lang: str, n: int) -> str:
    """A line of the hexagram as the language names it: 3 in ko, 三爻 in lzh (初爻 … 上爻)."""
    return gettext(lang, "liuyao.line_name", n=n)


def parse_month(text: str) -> Branch:
    """月建 as a branch (寅) or a month 干支 (丙寅)."""
    return parse_branch(text, "月")


def parse_tosses(text: str) -> Cast:
    """``322,233,…`` (six groups of three coins 2/3, bottom line first)."""
    groups = [g for g in text.replace(" ", ",").split(",") if g]
    try:
        rows = [[int(ch) for ch in g] for g in groups]
    except ValueError:
        raise EngineInputError("error.liuyao.bad_tosses", f"bad tosses {text!r}", value=text) from None
    return cast_tosses(rows)


def _options(args: argparse.Namespace) -> Options:
    try:
        changed = ChangedRelatives(args.changed_relatives)
    except ValueError:
        raise EngineInputError(
            "error.liuyao.bad_option",
            f"bad --changed-relatives {args.changed_relatives!r}",
            value=args.changed_relatives,
        ) from None
    try:
        middle = MiddleSource(args.middle_source)
        scatter = Scatter(args.scatter)
    except ValueError:
        raise EngineInputError(
            "error.liuyao.bad_option",
            f"bad --middle-source {args.middle_source!r} or --scatter {args.scatter!r}",
            value=f"{args.middle_source} / {args.scatter}",
        ) from None
    return Options(
        changed_relatives=changed,
        earth_changsheng=Branch.from_char(args.earth_changsheng.strip()),
        allow_static=args.allow_static,
        middle_source=middle,
        scatter=scatter,
    )


def _day_starts(text: str | None) -> Any:
    from engine.calendar import DayStart

    return DayStart.parse(text) if text else DayStart.ZI_23


def chart_handler(args: argparse.Namespace) -> int:
    sources = [x for x in (args.coins, args.tosses) if x is not None] + ([True] if args.random else [])
    if len(sources) > 1:
        raise UsageError("error.liuyao.one_method")
    options = _options(args)
    at = parse_instant(args.at) if args.at else None
    pillars = None
    if at is not None or args.month is None or args.day is None:
        from engine.calendar import four_pillars

        pillars = four_pillars(at or datetime.now(UTC), day_starts=_day_starts(args.day_starts))
    if args.coins is not None:
        cast = cast_manual(args.coins)
    elif args.tosses is not None:
        cast = parse_tosses(args.tosses)
    elif args.random:
        cast = cast_coins()
    elif at is not None:
        cast = cast_time(at, day_starts=_day_starts(args.day_starts))
    else:
        raise UsageError("error.liuyao.no_method")
    month = parse_month(args.month) if args.month is not None else None
    day = GanZhi.parse(args.day) if args.day is not None else None
    if month is None or day is None:
        assert pillars is not None
        month = month if month is not None else pillars.month.branch
        day = day if day is not None else pillars.day
    chart = build(cast, month, day, use=_use(args.use, args.lang), options=options)
    if args.png is not None:
        from bot.images import render_liuyao

        write_png(args.png, render_liuyao(chart.chart, args.lang))
    data = chart.to_json()
    if args.json:
        emit_json(data)
        return 0
    emit_text(typeset(args.lang, chart_text(data, args.lang)))
    return 0


def _use(word: str | None, lang: str) -> str | None:
    """The 用神 a ``--use`` word names, read as the chat reads it (``engine.lexicon``: 처재, 妻財, 소송, 疏, 돈 …);
    a word the lexicon does not know (or one the seed leaves to the asker, 婚姻: 男娶 or 女嫁) is a usage error
    naming the closest targets."""
    if word is None:
        return None
    from engine import lexicon

    match = lexicon.resolve(word, "liuyao")
    if match is not None:
        return match.target
    names: list[str] = []
    for m in lexicon.suggest(word, "liuyao"):
        name = m.lzh if lang == "lzh" else m.ko
        if name not in names:
            names.append(name)
    raise UsageError("error.liuyao.unknown_use", value=word[:20], choices=series(lang, names))


def table_handler(args: argparse.Namespace) -> int:
    rows = [h.to_json() for h in hexagram_table()]
    if args.json:
        for row in rows:
            emit_json(row)
        return 0
    emit_text(render("cli/liuyao_table.txt.j2", args.lang, rows=rows))
    return 0


def handler(args: argparse.Namespace) -> int:
    if args.what == "table":
        return table_handler(args)
    return chart_handler(args)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("liuyao", help=N_("六爻 納甲 chart and the judgments of 《易冒》"))
    parser.add_argument(
        "what", nargs="?", choices=("table",), help=N_("table: the 64 卦 with 納甲, 世應, 伏神")
    )
    add_common(parser)
    parser.add_argument("--coins", metavar="797979", help=N_("six digits 6/7/8/9, bottom line first"))
    parser.add_argument(
        "--tosses", metavar="322,233,…", help=N_("replay recorded coin tosses (2/3 per coin)")
    )
    parser.add_argument("--random", action="store_true", help=N_("toss three coins with the secrets RNG"))
    parser.add_argument(
        "--at", metavar="ISO", help=N_("instant with UTC offset: 梅花 time cast / month and day")
    )
    parser.add_argument("--month", metavar="寅", help=N_("月建 branch"))
    parser.add_argument("--day", metavar="戊戌", help=N_("day 干支"))
    parser.add_argument(
        "--use", metavar="官鬼", help=N_("用神: a 六親, 世, or a question category (illness → the 世)")
    )
    parser.add_argument("--day-starts", metavar="23:00|00:00", default=None)
    parser.add_argument("--changed-relatives", default="palace", metavar="palace|own_palace")
    parser.add_argument("--earth-changsheng", default="申", metavar="申|寅")
    parser.add_argument("--allow-static", action="store_true", help=N_("局會: count static lines"))
    parser.add_argument(
        "--middle-source",
        default="hexagram",
        metavar="hexagram|day_month",
        help=N_("局會 中神 from the hexagram only (default, 000:19) or also from the day/month"),
    )
    parser.add_argument(
        "--scatter",
        default="day_clash",
        metavar="day_clash|none",
        help=N_("散 (000:15 「惟空破散」) = 日沖 (default) or not counted"),
    )
    add_png_option(parser)
    parser.set_defaults(func=handler)


# ---------------------------------------------------------------- human-readable text


def _row(lang: str, h: dict[str, Any]) -> str:
    return f"{both(lang, h['name'])} · {both(lang, h['palace'] + '宮')} {both(lang, h['stage'])}"


def _subject(lang: str, s: dict[str, Any]) -> str:
    return gettext(
        lang, "liuyao.subject", role=both(lang, s["role"]), branch=both(lang, s["branch"]), n=s["line"]
    )


def _judgment_lines(lang: str, j: dict[str, Any]) -> list[str]:
    def _(msgid: str, **kw: Any) -> str:
        return gettext(lang, msgid, **kw)

    head = [both(lang, j["name"])]
    if j.get("type"):
        head.append(both(lang, j["type"]))
    if j.get("ju"):
        head.append(both(lang, j["ju"]))
    if j.get("subject"):
        head.append(_subject(lang, j["subject"]))
    if j.get("agent") and lang == "lzh":
        head.append(_("liuyao.agent", agent=_named_lines(j["agent"]), relation=both(lang, j["relation"])))
    elif j.get("agent"):  # ko: 상효, 상대가 나를 극함(彼克我) — not 6爻 (피극아(彼克我)) (issue 33)
        head.append(
            _("liuyao.agent", agent=_agents(lang, j["agent"]), relation=_relation(lang, j["relation"]))
        )
    status = _("liuyao.holds") if j["holds"] else _("liuyao.not_holds")
    if j["holds"]:
        status += " · " + both(lang, j["direction"])
        if j.get("reversed"):
            status += " " + both(lang, "反吉")
        if j.get("grave"):
            status += " " + both(lang, "大凶")
    extra = []
    if j.get("strength"):
        extra.append(_("liuyao.strength", value=both(lang, j["strength"])))
    if j.get("triple"):
        extra.append(_("liuyao.triple", value=j["triple"]))
    if j.get("middle_source"):
        extra.append(_(msgid("liuyao.option", "middle_source." + j["middle_source"])))
    out = [
        f"- {' '.join(head)}: {status}" + "".join(f" · {x}" for x in extra) + f" ({cite(lang, j['source'])})"
    ]
    for ch in j["checks"]:
        out.append(
            f"    {'✓' if ch['ok'] else '✗'} {gettext(lang, msgid('liuyao.check', ch['check']), **_check_values(lang, ch))}"
        )
    return out


def _named_lines(agents: str) -> str:
    """Who acts, as the engine joins them, with a line given by number said by its name in 文言 (``6爻戌`` →
    ``上爻戌``; issue 33: no Arabic digit in a 文言 reply)."""
    return re.sub(r"([1-6])爻", lambda m: LINE_NAMES[int(m.group(1)) - 1], agents)


def _agents(lang: str, agents: str) -> str:
    """Who acts, as the engine joins them (``日卯,動巳``, ``6爻卯``, ``應``), said in ko as the reasons say them."""
    return render("cli/liuyao_agents.txt.j2", lang, agents=agents.split(",")).strip()


def _relation(lang: str, relation: str) -> str:
    """A 六害's relation (彼克我) said from the subject's side: 상대가 나를 극함(彼克我) in ko."""
    return gettext(lang, msgid("liuyao.why.relation", relation))


def _check_values(lang: str, ch: dict[str, Any]) -> dict[str, Any]:
    """A check's values for its message: 漢字 given as 한글(漢字); in ko who acts and a 六害's relation said in words
    (issue 33: ``일진 묘(卯)``, ``상대가 나를 극함(彼克我)``, not ``일묘(日卯)``, ``피극아(彼克我)``)."""
    values = both_values(lang, ch)
    if lang == "lzh":
        if ch.get("by") not in (None, "-"):
            values["by"] = _named_lines(str(ch["by"]))
        return values
    if ch.get("by") not in (None, "-"):
        values["by"] = _agents(lang, str(ch["by"]))
    if ch.get("direction"):
        values["direction"] = _relation(lang, str(ch["direction"]))
    if ch.get("source") in ("卦", "日月"):  # where a 局's 中神 stands
        values["source"] = gettext(lang, msgid("liuyao.why.place", ch["source"]))
    if ch.get("branches"):  # 子申: 자(子)·신(申), not 자신(子申)
        values["branches"] = "·".join(both(lang, b) for b in str(ch["branches"]))
    if ch.get("hang") not in (None, "-"):  # 日終,月始 or 始,終: who hangs on which seat of the 局
        values["hang"] = ", ".join(_hung(lang, h) for h in str(ch["hang"]).split(","))
    if ch.get("at"):  # 日,變: where the subject enters its 墓
        values["at"] = _agents(lang, str(ch["at"]))
    if ch.get("hidden"):  # 子/申: the 伏神 under its 飛神
        values["hidden"] = ", ".join(
            gettext(lang, "liuyao.why.hidden_under", hidden=both(lang, h), flying=both(lang, f))
            for h, f in (pair.split("/") for pair in str(ch["hidden"]).split(","))
        )
    return values


def _hung(lang: str, hang: str) -> str:
    """``日終`` (the day on the 局's 終) or ``終`` alone, in words: 일진 묘 자리(終)."""
    seat = gettext(lang, msgid("liuyao.why.seat", hang[-1]))
    if len(hang) == 1:
        return seat
    return gettext(lang, "liuyao.why.hung", by=gettext(lang, msgid("liuyao.why.by", hang[0])), seat=seat)


def chart_text(c: dict[str, Any], lang: str) -> str:
    """The reading (``Reading.to_json()``) as text: chart, per-line strength, judgments and the verdict."""

    def _(msgid: str, **kw: Any) -> str:
        return gettext(lang, msgid, **kw)

    def b(x: object) -> str:
        return both(lang, x)

    out = [f"{_('liuyao.title')} · {_(msgid('liuyao.method', c['cast']['method']))} {c['cast']['digits']}"]
    if c["cast"].get("tosses"):
        out.append(f"{_('liuyao.tosses')}: {' '.join(''.join(map(str, t)) for t in c['cast']['tosses'])}")
    if c["cast"].get("numbers"):
        out.append(_("liuyao.numbers", **c["cast"]["numbers"]))
    out.append(f"{_('liuyao.main')}: {_row(lang, c['main'])}")
    out.append(
        f"{_('liuyao.changed')}: {_row(lang, c['changed']) if c['changed'] else _('liuyao.no_change')}"
    )
    out.append("")
    out.append(
        f"{_('liuyao.month')} {b(c['month'])} · {_('liuyao.day')} {b(c['day'])}"
        f" · {_('liuyao.xunkong')} {b(''.join(c['xunkong']))}"
    )
    use = c["use"]
    if use is None:
        out.append(f"{_('liuyao.use')}: {_('liuyao.use.none')}")
    else:
        where = [_("liuyao.use.lines", n=n) for n in use["lines"]] + [
            _("liuyao.use.hidden", n=n) for n in use["hidden"]
        ]
        text = b("世") if use["shi"] else b(use["relative"])
        if use["shi"]:
            where = [_("liuyao.use.lines", n=n) for n in use["lines"]] + [b(use["relative"])]
        if use["category"]:
            where.append(f"({_(msgid('liuyao.category', use['category']))})")
        if use["avoid"]:
            where.append(_("liuyao.use.avoid", relative=b(use["avoid"])))
        out.append(f"{_('liuyao.use')}: {text} {' '.join(where)}".rstrip())
    opts = c["options"]
    out.append(
        f"{_('liuyao.options')}: {_(msgid('liuyao.option', 'middle_source.' + opts['middle_source']))}"
        f" · {_(msgid('liuyao.option', 'scatter.' + opts['scatter']))}"
    )
    if c["flags"]:
        out.append(f"{_('liuyao.flags')}: {' '.join(b(f) for f in c['flags'])}")
    out.append("")

    def element(name: str) -> str:  # 己巳火 in lzh; 기사(己巳) 화(火) in ko
        return name if lang == "lzh" else f" {b(name)}"

    for ln, an in zip(reversed(c["lines"]), reversed(c["analysis"]), strict=True):
        mark = ("○" if ln["yang"] else "×") if ln["moving"] else " "
        role = b("世") if ln["shi"] else b("應") if ln["ying"] else ""
        row = (
            f"{_line(lang, ln['line'])} {b(ln['spirit'])} {b(ln['relative'])} {b(ln['ganzhi'])}{element(ln['element'])}"
            f" {'━━━━━' if ln['yang'] else '━━ ━━'} {mark} {role}"
        ).rstrip()
        if ln["changed"]:
            ch = ln["changed"]
            row += f" → {b(ch['relative'])} {b(ch['ganzhi'])}{element(ch['element'])}"
        st = an["strength"]
        tags = [b(t) for t in st["tags"]]
        tags.append(_("liuyao.strong") if st["strong"] else _("liuyao.weak"))
        row += f" [{' '.join(tags)}]"
        if an["transforms"]:
            row += " ⟨" + " ".join(b(t) for t in an["transforms"]) + "⟩"
        for h in ln["hidden"]:
            row += f" {_('liuyao.hidden')} {b(h['relative'])} {b(h['ganzhi'])}"
        if an["stars"]:
            row += f" · {_('liuyao.stars')}: {' '.join(b(star) for star in an['stars'])}"
        out.append(row)
    out.append("")
    out.append(_("liuyao.judgments"))
    seen: set[str] = set()
    for j in c["judgments"]:
        for line in _judgment_lines(lang, j):
            if line.startswith("- ") and line in seen:
                break
            seen.add(line)
            out.append(line)
    out.append("")
    out += _verdict_lines(lang, c["verdict"])
    return "\n".join(out)


def _verdict_lines(lang: str, v: dict[str, Any]) -> list[str]:
    def _(msgid: str, **kw: Any) -> str:
        return gettext(lang, msgid, **kw)

    def b(x: object) -> str:
        return both(lang, x)

    u = v["use"]
    where = _("liuyao.use.hidden", n=u["line"]) if u["hidden"] else _("liuyao.use.lines", n=u["line"])
    out = [
        _(
            "liuyao.verdict",
            direction=b(v["direction"]),
            role=b(u["role"]),
            relative=b(u["relative"]),
            branch=b(u["branch"]),
            where=where,
            score=signed(lang, v["score"]),
        )
    ]
    st = v["strength"]
    tags = " ".join(b(t) for t in st["tags"])
    out.append(
        f"  {_('liuyao.verdict.strength')}: {tags} · {_('liuyao.strong') if st['strong'] else _('liuyao.weak')}"
    )
    if v["transforms"]:
        out.append(f"  {_('liuyao.verdict.transforms')}: {' '.join(b(t) for t in v['transforms'])}")
    helpers = []
    for h in v["helpers"]:
        lines = series(lang, [_line(lang, n) for n in h["lines"]]) or "-"
        moving = (
            f" {_('liuyao.verdict.moving', lines=series(lang, [_line(lang, n) for n in h['moving']]))}"
            if h["moving"]
            else ""
        )
        element = f"({h['element']})" if lang == "lzh" else f" {b(h['element'])}"
        helpers.append(f"{b(h['name'])} {b(h['relative'])}{element} {lines}{moving}")
    out.append(f"  {_('liuyao.verdict.helpers')}: {' · '.join(helpers)}")
    rel = " · ".join(f"{b(k)} {_(msgid('liuyao.relation', x))}" for k, x in v["relations"].items())
    out.append(f"  {_('liuyao.verdict.relations')}: {rel}")
    yq = v["ying_qi"]
    out.append(
        f"  {_('liuyao.verdict.ying_qi')}: {_(msgid('liuyao.speed', yq['speed']))} · {_(msgid('liuyao.size', yq['size']))}"
        f" ({cite(lang, yq['source'])})"
    )

    def said(r: dict[str, Any]) -> str:
        # lzh keeps the engine's classical phrase; ko says the reason as a sentence, as the chat does (issue 33)
        if lang == "lzh":
            return f"{_(msgid('liuyao.reason', r['code']))} {r['text']}"
        return render("cli/liuyao_reason.txt.j2", lang, r={**r, "lines": _lines_named(r["text"])}).strip()

    for r in v.get("timing", ()):
        out.append(f"    {said(r)} ({cite(lang, r['source'])})")
    out.append(f"  {_('liuyao.verdict.reasons')}:")
    for r in v["reasons"]:
        out.append(f"    {signed(lang, r['weight'])} {said(r)} ({cite(lang, r['source'])})")
    out.append(f"  {_('liuyao.verdict.weighed')}: {' '.join(b(w) for w in v['weighed'])}")
    out.append(f"  {_('liuyao.verdict.basis')}")
    return out
