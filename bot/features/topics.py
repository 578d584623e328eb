"""Asking in one's own words (issue 32 item 1): a word of ``engine.lexicon`` → the 用神 / topic it names, and
for a word the lexicon does not know (or one the seed leaves to the asker, 婚姻 in 六爻) the ``choose`` reply:
the closest categories, each with the command line that asks it (typed, or pressed: ``bot.commands.word_buttons``).
"""

from __future__ import annotations

from typing import Any

from bot.features.base import Reply, reply
from engine import lexicon


def resolve(word: str, art: str) -> lexicon.Match | None:
    return lexicon.resolve(word, art)


def choose_reply(word: str, art: str, line: str) -> Reply:
    """The closest targets to ``word`` (``lexicon.suggest``), to ask with ``line`` (the command before the
    word): typed as ``line`` + the target's name in the reader's language, pressed as ``line`` + the target
    (``bot.commands.word_buttons``); every name and target reads back to its target (``lexicon.resolve``)."""
    choices: list[dict[str, Any]] = []
    for match in lexicon.suggest(word, art):
        if any(c["ko"] == match.ko and c["lzh"] == match.lzh for c in choices):
            continue  # 父母 the 六親 and 父母 the question: one choice
        choices.append({"target": match.target, "kind": match.kind, "ko": match.ko, "lzh": match.lzh})
    # several named: the seed leaves it to the asker (婚姻 in 六爻: 男娶 / 女嫁, 000:39 注)
    by_asker = len(lexicon.named(word, art)) > 1
    return reply("choose", word=word[:20], art=art, line=line, choices=choices, by_asker=by_asker)


# /help's groups of targets: the 六親 with the 世, the question categories; the topics, the 類神 headings
_GROUPS = {
    "relative": "relative",
    "shi": "relative",
    "category": "category",
    "topic": "topic",
    "heading": "heading",
}


def targets(art: str) -> list[dict[str, Any]]:
    """The targets of an art for ``/help``, by group (``{"kind": group, "names": [{"ko", "lzh"}, …]}``), in the
    lexicon's order, a name shown once (父母 the 六親 and 父母 the question)."""
    groups: dict[str, list[dict[str, str]]] = {}
    for m in lexicon.targets(art):
        names = groups.setdefault(_GROUPS[m.kind], [])
        if not any(n["ko"] == m.ko and n["lzh"] == m.lzh for n in names):
            names.append({"ko": m.ko, "lzh": m.lzh})
    return [{"kind": kind, "names": names} for kind, names in groups.items()]


def asked(match: lexicon.Match) -> dict[str, Any]:
    """What a reply keeps of the asked word: the word as typed and what it named."""
    return {
        "word": match.word,
        "target": match.target,
        "topic": match.topic,
        "heading": match.heading,
        "ko": match.ko,
        "lzh": match.lzh,
    }


__all__ = ["asked", "choose_reply", "resolve", "targets"]
