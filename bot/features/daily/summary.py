"""The first screen of a daily reading (issue 32 item 4): the day's 吉/凶 line with what decided it and what the
seed says it means, the day's 神煞 split into 吉 and 凶 with a few words each, and — when the subscriber chose
one — the topic's line read first.

Nothing here judges: the direction is the engine's (``engine.liuren.verdict.judge`` of the day's 課, as
``/cast`` shows it; the 六爻 reading's own verdict for a 六爻 subscription; a topic's line is
``engine.liuren.topics.read_topic``), the words are the data's:

- the deciding reason is the first counted reason of the position that decided (``decided_by``) pointing the
  way the verdict went; what it means — the day's advice — is its seed-002 text 「以X論」 with its commentary
  (``engine/shensha/data/meanings002.json``: ``ko``, ``gloss.lzh``, ``source``), or the 課體's own text;
  a verdict that balances (平) has no deciding reason, and the template says the texts give none; on one of
  seed 003's eight worked 課 the advice is the seed's own 斷曰 for it;
- a 神煞's nature (吉/凶) and its words are ``engine/shensha/data/stars.json``'s ``nature`` and the first
  sentence of its ``meaning`` (the 神煞 page of ``/shensha`` shows them whole);
- a topic's reasons are the ones that decided it (``TopicReading.deciding``), at most :data:`TOPIC_REASONS`.

All of it is JSON (characters and the data's ko/lzh texts): the template chooses the language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from bot.i18n import head_until

TOPIC_REASONS = 3  # reasons of a topic's line on the first screen (the seed's 解曰 names two or three)


def first_sentence(text: str) -> str:
    """The first sentence of a meaning text (up to its first ``.``/``。`` outside brackets), without the stop."""
    return head_until(text, ".。", "(（「《", ")）」》")


@lru_cache(maxsize=1024)
def star_notes(names: tuple[str, ...]) -> dict[str, list[dict[str, str]]]:
    """The day's stars by nature: ``ji`` and ``xiong`` (name, ko, lzh: the first sentence of the meaning), and
    ``other`` (neither: names only). A name the star table does not know is counted with the others."""
    from engine.errors import EngineInputError
    from engine.shensha import star

    out: dict[str, list[dict[str, str]]] = {"ji": [], "xiong": [], "other": []}
    for name in names:
        try:
            definition = star(name)
        except EngineInputError:
            out["other"].append({"name": name})
            continue
        group = {"吉": "ji", "凶": "xiong"}.get(definition.nature or "")
        if group is None:
            out["other"].append({"name": name})
            continue
        meaning = definition.meaning
        out[group].append(
            {
                "name": name,
                "ko": first_sentence(str(meaning.get("ko") or "")),
                "lzh": first_sentence(str(meaning.get("lzh") or "")),
            }
        )
    return out


def _meaning_of(reason: Mapping[str, Any]) -> dict[str, str]:
    """A verdict reason's name and what the seed reads it as, in both languages, with its source."""
    from engine.shensha import meanings002

    m = meanings002().get(str(reason.get("id")))
    text, text_ko = str(reason.get("text") or ""), str(reason.get("text_ko") or "")
    if m is None:  # a 課體 (pattern.*) or a 類神 entry: its own text, "name：meaning"
        name, _, lzh = text.partition("：")
        _, _, ko = text_ko.partition(": ")
        return {"name": name, "lzh": lzh or text, "ko": ko or text_ko, "source": str(reason.get("source"))}
    gloss = m.get("gloss") or {}
    return {
        "name": str(m.get("name_lzh") or text.partition("：")[0]),
        "lzh": str(gloss.get("lzh") or f"以{m['lzh']}論"),
        "ko": str(m["ko"]),
        "source": str(m["source"]),
    }


def seed_judgment(readings: Sequence[Mapping[str, Any]]) -> dict[str, str] | None:
    """Seed 003's own 斷曰 when the day's 課 is one of its worked examples (the ``seed`` reading of
    ``engine.liuren.reading``), in both languages with its source; else None."""
    from engine.liuren.reading import glossary

    for reading in readings:
        seed = reading.get("seed") if reading.get("kind") == "seed" else None
        for section in (seed or {}).get("sections") or ():
            if section.get("kind") == "duan":
                key = str(section["text"])
                return {
                    "lzh": str(glossary("lzh")[key]["text"]),
                    "ko": str(glossary("ko")[key]["text"]),
                    "source": f"seed 003 entry {seed['entry']}" if seed else "seed 003",
                }
    return None


def liuren_verdict(verdict: Mapping[str, Any], readings: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The day's line from the 大六壬 verdict (``chart_view``'s ``verdict``): direction, the position that
    decided, and the deciding reason with its meaning (None when nothing decided: 平); for one of seed 003's
    worked 課 also the seed's own 斷曰 (``seed``), which the page gives as the day's advice."""
    role = verdict.get("decided_by")
    direction = str(verdict.get("direction"))
    reasons: Sequence[Mapping[str, Any]] = verdict.get("reasons") or ()
    counted = [r for r in reasons if r.get("counted") and r.get("role") == role]
    pick = next((r for r in counted if r.get("direction") == direction), None)
    reason = None
    if pick is not None:
        reason = {"branch": pick.get("branch"), **_meaning_of(pick)}
    return {
        "art": "liuren",
        "direction": direction,
        "decided_by": role,
        "reason": reason,
        "seed": seed_judgment(readings),
    }


def liuyao_verdict(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """The day's line from the 六爻 time cast's verdict: its direction (the 用神, 世 when nothing was asked, is
    shown by the conclusion line of ``chat/liuyao_macros.j2``)."""
    verdict = view.get("verdict")
    if not verdict:
        return None
    return {"art": "liuyao", "direction": str(verdict.get("direction")), "decided_by": None, "reason": None}


def topic_line(reading: Any) -> dict[str, Any]:
    """A topic's line (``engine.liuren.topics.TopicReading``): its names, direction and deciding reasons."""
    reasons = []
    for r in reading.deciding[:TOPIC_REASONS]:
        lzh, ko = r.texts()
        reasons.append({"lzh": lzh, "ko": ko, "direction": r.direction, "source": r.source})
    return {
        "topic": reading.topic.lzh,
        "topic_ko": reading.topic.ko,
        "direction": reading.direction,
        "judged": reading.topic.judged,
        "reasons": reasons,
    }


__all__ = [
    "TOPIC_REASONS",
    "first_sentence",
    "liuren_verdict",
    "liuyao_verdict",
    "seed_judgment",
    "star_notes",
    "topic_line",
]
