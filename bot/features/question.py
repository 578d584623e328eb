"""A question in one's own words (「오늘 재물운 어때?」, 「今日出行吉否」): the one place a plain message — not a
command — becomes the command line that answers it, for the console and the chat adapters alike.

The rule (:func:`question_command`):

- a message starting with ``/`` is a command: not ours (None);
- the first word of the message naming a 大六壬 topic (``engine.lexicon.in_sentence``: a topic of seed 003,
  or a 類神 heading) makes it ``/cast now <word>``: the lesson cast at the moment of asking, the classical
  占時 — a time word in the question (내일, 明日) does not move it;
- a message naming today (/today's own words: 오늘, 今日) makes it ``/today <word>`` instead: the day's reading
  read for that topic, as a /daily subscription with a topic reads it (「오늘 재물운 어때?」 asks about today);
- a message naming 六爻 as well (:data:`LIUYAO_WORDS`: 육효, 괘, 주역, 동전, 六爻, 卦, 筮 …) makes it
  ``/liuyao <word>``: coins cast now, the word the first one naming a 用神 (``in_sentence`` in 六爻), or
  ``/liuyao`` alone when it names none;
- anything else: None (the chat's one-line hint).

On the console a line may also be a command typed without its ``/`` (``cast 庚辰 8 재물``); :func:`is_question`
decides which one a bare line is.
"""

from __future__ import annotations

from bot.features.base import lookup, split_command
from bot.korean import is_syllable
from engine import lexicon

# the words naming 六爻 in a question besides /liuyao's own aliases (육효, 六爻, 괘, 卦): the book of the
# hexagrams and the coins it is cast with, and 筮 (to divine by the 易)
LIUYAO_WORDS = ("주역", "동전", "척전", "筮", "周易", "擲錢", "錢卜")


def _words_of(name: str, *more: str) -> frozenset[str]:
    """The keys of command ``name``'s aliases (and ``more`` words) to look for in a sentence."""
    spec = lookup(name)
    aliases = spec.aliases if spec is not None else ()
    return frozenset(lexicon.normalize(w) for w in (*aliases, *more))


def _is_command(text: str) -> bool:
    return text.lstrip()[:1] in ("/", "／")


def question_command(text: str) -> str | None:
    """The command line answering a plain message (see the module's rule), or None: a command, or a message
    naming no topic."""
    if _is_command(text) or not text.strip():
        return None
    if lexicon.spot(text, _words_of("liuyao", *LIUYAO_WORDS)):
        named = lexicon.in_sentence(text, "liuyao")
        return f"/liuyao {named[0].word}" if named else "/liuyao"
    topics = lexicon.in_sentence(text, "liuren")
    if not topics:
        return None
    if lexicon.spot(text, _words_of("today")):
        return f"/today {topics[0].word}"
    return f"/cast now {topics[0].word}"


def _argument_like(word: str) -> bool:
    """A word a command line may carry: one naming a target as a whole (재물운, 婚姻, 천문 — as /cast reads the
    word after the cast), or one without Hangul naming no topic inside it (庚辰, 8, 07:30, now)."""
    if any(lexicon.named(word, art) for art in lexicon.ARTS):
        return True
    has_hangul = any(map(is_syllable, word))
    return not has_hangul and not any(lexicon.in_sentence(word, art) for art in lexicon.ARTS)


def is_question(line: str) -> bool:
    """Whether a console line is a question in one's own words (:func:`console_question`)."""
    return console_question(line) is not None


def console_question(line: str) -> str | None:
    """The command line answering a console line that is a question in one's own words, or None: a line that
    is a command (typed with or without its ``/``) or names no topic.

    A line starting with ``/`` is a command; a line whose first word names no command is a question when
    :func:`question_command` answers it. A line whose first word names a command (오늘 is /today's alias,
    점 /cast's, 육효 /liuyao's) is that command unless it is a sentence: it names a topic, the command takes
    no free text (an argument ``text``, as /note's), and a later word is no argument (어때, 붙을까,
    出行吉否 — :func:`_argument_like`). So 「오늘 재물운 어때?」 is a question and 「cast 庚辰 8 재물」,
    「점 庚辰 8 재물」, 「매일 07:30 재물」, 「오늘」 stay commands.
    """
    asked = question_command(line)
    if asked is None:  # a command with its / too
        return None
    split = split_command("/" + line.strip())
    spec = lookup(split[0]) if split is not None else None
    if split is None or spec is None:
        return asked
    if any(arg.name == "text" for arg in spec.args):
        return None
    return None if all(_argument_like(word) for word in split[1]) else asked


__all__ = ["LIUYAO_WORDS", "console_question", "is_question", "question_command"]
