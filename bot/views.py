"""Rendering a :class:`~bot.commands.Reply` for one channel.

Templates: ``templates/telegram/<view>.html.j2`` (Telegram HTML, autoescaped), ``templates/discord/<view>.md.j2``
(Discord markdown: every ``{{ … }}`` output has markdown and mentions escaped) and
``templates/console/<view>.txt.j2`` (plain text). All strings come from the catalogs (``_()``) and the term
dictionaries (filters ``term``/``both``) of ``bot.i18n``. A view missing for a channel falls back to the console
template (escaped for the channel). Output has no trailing blank lines and at most one blank line in a row.
"""

from __future__ import annotations

import html
import marshal
import operator
import re
from collections import Counter
from collections.abc import Callable, Hashable, Mapping
from functools import cache, lru_cache, partial
from typing import Any

import jinja2
from markupsafe import Markup

from bot.bounded import BoundedCache
from bot.features.base import Extras, Reply, page_topic, shown_page, stored_as_view
from bot.features.base import first_page as first_page  # the adapters' names
from bot.features.base import pages_of as pages_of
from bot.features.liuren.view import reading_glossary
from bot.i18n import (
    environment,
    gettext,
    given_now,
    given_terms,
    mark_given,
    one_reply,
    terms_given,
    typeset,
)
from bot.sanitize import clean

CHANNELS = ("telegram", "discord", "console")
_EXT = {"telegram": "html.j2", "discord": "md.j2", "console": "txt.j2"}

_MD_ORDERED = re.compile(r"(?m)^(\s*\d+)\.(?=\s)")
_LINK_CLOSE = re.compile(r"(?<!\\)\]")
_MENTION = re.compile(r"@(everyone|here|[!&]?\d{15,21})")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def escape_discord(value: object) -> str:
    """Markdown and mentions made inert: ``*`` → ``\\*``, ``@everyone`` → ``@\u200beveryone``, ``<@1>`` …

    ``discord.utils.escape_markdown`` and ``escape_mentions`` do most of it (imported here: discord.py is
    the optional ``[discord]`` extra and only the Discord channel renders this). Added to them: an ordered-list
    marker ``1.`` at a line start and the ``]`` of a link text (escape_markdown leaves both live), and the
    ``<`` of ``<@id>``, ``<#channel>``, ``<:emoji:id>``, ``<t:…>`` (escape_mentions knows only ``@`` forms;
    the client's ``AllowedMentions.none()`` is the second guard).
    """
    return _escape_discord(str(value))


@lru_cache(maxsize=4096)
def _escape_discord(text: str) -> str:
    """:func:`escape_discord` of a text, remembered: six regular expressions over each value a Discord page
    shows (≈ 120 in a ``/liuyao`` page, most of them the same few terms in every reply; issue #18)."""
    from discord.utils import escape_markdown, escape_mentions

    text = escape_markdown(_CONTROL.sub("", text))
    text = _LINK_CLOSE.sub(r"\\]", _MD_ORDERED.sub(r"\1\\.", text))
    text = escape_mentions(text.replace("<", "<\u200b"))
    return _MENTION.sub("@\u200b\\1", text)


def plain(value: object) -> str:
    """Console text: no terminal control characters."""
    return _CONTROL.sub("", str(value))


def _finalize_discord(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Markup):  # a template marked this trusted (e.g. a code block of chart characters)
        return str(value)
    return escape_discord(value)


def _finalize_console(value: Any) -> Any:
    return "" if value is None else plain(value)


def _tg(value: object) -> str:
    return value if isinstance(value, Markup) else html.escape(str(value), quote=False)


def _dc(value: object) -> str:
    return str(value) if isinstance(value, Markup) else escape_discord(value)


def _defuse(text: str) -> str:
    """Mentions made inert without markdown escapes (inside code spans backslashes would show)."""
    return _MENTION.sub("@\u200b\\1", _CONTROL.sub("", text)).replace("<", "<\u200b")


_MD_ESCAPED = re.compile(r"\\([\\*_`~|>\[\]#.-])")


def _unescape_md(text: str) -> str:
    """Inside a code block markdown is not interpreted: drop the escapes the expressions got."""
    return _MD_ESCAPED.sub(r"\1", text)


def _pc(value: object) -> str:
    return plain(value)


# Formatting filters per channel; each returns Markup so that the channel's escaping is not applied twice.
# ``pre`` wraps a block (``{% filter pre %}…{% endfilter %}``) of chart characters in a monospace block.
_FORMAT: dict[str, dict[str, Any]] = {
    "telegram": {
        "bold": lambda v: Markup(f"<b>{_tg(v)}</b>"),
        "italic": lambda v: Markup(f"<i>{_tg(v)}</i>"),
        "code": lambda v: Markup(f"<code>{_tg(v)}</code>"),
        "pre": lambda v: Markup(f"<pre>{_tg(v)}</pre>\n"),
        "cmd": lambda v: Markup(_tg(v)),  # plain, so that Telegram makes /commands tappable
    },
    "discord": {
        "bold": lambda v: Markup(f"**{_dc(v)}**"),
        "italic": lambda v: Markup(f"*{_dc(v)}*"),
        "code": lambda v: Markup("`" + _defuse(str(v)).replace("`", "ˋ") + "`"),
        "pre": lambda v: Markup(
            "```\n" + _defuse(_unescape_md(str(v))).replace("```", "ˋˋˋ").strip("\n") + "\n```\n"
        ),
        "cmd": lambda v: Markup("`" + _defuse(str(v)).replace("`", "ˋ") + "`"),
    },
    "console": {
        "bold": lambda v: Markup(_pc(v)),
        "italic": lambda v: Markup(_pc(v)),
        "code": lambda v: Markup(_pc(v)),
        "pre": lambda v: Markup(_pc(v).rstrip("\n") + "\n"),
        "cmd": lambda v: Markup(_pc(v)),
    },
}


@cache
def channel_environment(lang: str, channel: str) -> jinja2.Environment:
    """``bot.i18n.environment(lang)`` overlaid with the channel's escaping."""
    base = environment(lang)
    # auto_reload off: the templates are package data, so a ``get_template`` need not stat the file
    if channel == "telegram":
        env = base.overlay(autoescape=True, cache_size=400, auto_reload=False)
    elif channel == "discord":
        env = base.overlay(autoescape=False, finalize=_finalize_discord, cache_size=400, auto_reload=False)
    elif channel == "console":
        env = base.overlay(autoescape=False, finalize=_finalize_console, cache_size=400, auto_reload=False)
    else:
        raise ValueError(f"unknown channel {channel!r}; expected one of {CHANNELS}")
    env.filters = dict(env.filters)
    env.filters.update(_FORMAT[channel])
    # Views that embed a 大六壬 reading outside a ``cast`` reply (the daily reading) look texts up here.
    # ``macros(name)`` (``bot.i18n.environment``) of this environment: the macros escaped for the channel
    env.globals = {
        **env.globals,
        "reading_gloss": reading_glossary,
        "rendered_reading": lambda readings: rendered_reading(lang, channel, readings),
        "rows": lambda name, items, fields, when=None: rendered_rows(
            lang, channel, name, items, fields, when
        ),
        "macros": lambda name: env.get_template(name).module,
    }
    return env


def content_key(value: Any) -> Hashable | None:
    """A key of a render cache for ``value`` (a reply's context or a part of it: JSON values): equal keys are
    equal values, of the same types. None: ``value`` holds something ``marshal`` does not write (not a JSON
    value), so it is rendered without a cache.

    ``marshal`` writes the value's bytes in its own order, ≈ 6× cheaper than the canonical JSON (keys sorted)
    of a 21 kB ``/cast`` context (≈ 65 against ≈ 410 µs, ``bench/render.py``), and its bytes are read back
    to the value they were written from, so two values with one key are equal. It is not canonical: the same
    value with its keys in another order (or with objects shared another way) gets another key — a miss,
    never a wrong hit; a reply's context comes from one command's code, so key order repeats.
    """
    try:
        return marshal.dumps(value)
    except ValueError:  # e.g. a str subclass (Markup) or an object of a class of its own
        return None


# ---- the rendered 大六壬 reading, cached (issue #18) ------------------------------------------------------
# The reading partial (``templates/liuren/reading.*``) is most of a whole ``cast`` view (≈ 6 of 8 ms for
# Telegram, 15 of 18 for Discord) and the same text for every cast of that 課 with those options. Its text is
# a function of (language, channel, the readings' JSON) and of which terms the reply already gave as 한글(漢字)
# (``bot.i18n.both``): an entry keeps the terms the partial gives (``used``) and one text per subset of them
# given before it. Bounded: the least recently used 課 is dropped past READING_CACHE_SIZE.
READING_CACHE_SIZE = 512
READING_CACHE_BYTES = 6 << 20  # ≈ 150 課 of one language and channel (≈ 40 kB a text and its variants)
_READING_EXT = {"telegram": "html", "discord": "md"}


class _ReadingEntry:
    __slots__ = ("texts", "used")

    def __init__(self, used: frozenset[str]) -> None:
        self.used = used  # the terms the partial gives as 한글(漢字) when none was given before
        self.texts: dict[frozenset[str], str] = {}  # (terms of ``used`` given before) → text

    def text(
        self,
        seen: frozenset[str],
        render: Callable[[frozenset[str]], str],
        grew: Callable[[int], None] | None = None,
    ) -> str:
        """The text when the terms ``seen`` were given before, rendered by ``render(seen)`` the first time
        (``grew``: told the bytes the entry took or gave back, for its cache's byte bound)."""
        cached = self.texts.get(seen)
        if cached is None:
            delta = 0
            if len(self.texts) >= 16:  # bounded too (a handful of variants in practice)
                delta -= text_bytes(self.texts.pop(next(iter(self.texts))))
            cached = self.texts[seen] = render(seen)
            if grew is not None:
                grew(delta + text_bytes(cached))
        return cached

    def size(self) -> int:
        """Bytes held (estimate): its texts, its terms, the entry itself."""
        return sum(text_bytes(t) for t in self.texts.values()) + 64 * len(self.used) + ENTRY_OVERHEAD


ENTRY_OVERHEAD = 600  # bytes of an entry besides its texts: the object, its dict, a frozenset, the key


def text_bytes(text: str) -> int:
    """Bytes a str holds: 1, 2 or 4 a character (PEP 393, the widest character decides) and its header."""
    if text.isascii():
        return 49 + len(text)
    return 74 + len(text) * (2 if max(text) <= "\uffff" else 4)


reading_cache_stats: Counter[str] = Counter()  # "hit" / "miss" (for tests and the benchmark)
_READINGS: BoundedCache[tuple[str, str, Hashable], _ReadingEntry] = BoundedCache(
    lambda: READING_CACHE_SIZE,
    reading_cache_stats,
    name="views.readings",
    max_bytes=lambda: READING_CACHE_BYTES,
    size_of=_ReadingEntry.size,
)


def _render_reading(
    lang: str, channel: str, readings: Any, before: frozenset[str] | None
) -> tuple[str, set[str]]:
    template = channel_environment(lang, channel).get_template(
        f"liuren/reading.{_READING_EXT.get(channel, 'txt')}.j2"
    )
    with terms_given(before if before is not None else ()) as given:
        text = template.render(readings=readings, gloss=reading_glossary(lang), channel=channel, lang=lang)
    return text, given or set()


def rendered_reading(lang: str, channel: str, readings: Any) -> Markup:
    """The reading partial for ``readings`` (the ``readings`` of a ``cast`` view) in ``lang`` for ``channel``,
    already escaped for the channel; cached (see above). Inside a reply, the terms it gives count as given."""
    before = given_terms()
    content = content_key(readings)
    if content is None:
        text, given = _render_reading(lang, channel, readings, before)
        if before is not None:
            mark_given(given)
        return Markup(text)
    key = (lang, channel, content)
    entry = _READINGS.find(key)
    if entry is None:
        text, used = _render_reading(lang, channel, readings, frozenset())
        entry = _ReadingEntry(frozenset(used))
        entry.texts[frozenset()] = text
        _READINGS.keep(key, entry)
    seen = entry.used & before if before is not None else frozenset()
    cached = entry.text(
        seen,
        lambda seen: _render_reading(lang, channel, readings, seen)[0],
        partial(_READINGS.grow, key),
    )
    if before is not None:
        mark_given(entry.used)
    return Markup(cached)


# ---- rows of a page, rendered once per the values they read (issue #18) ----------------------------------
# A ``/liuyao`` page is another chart for every cast, but its rows are not: a line's row of the chart block
# reads its 六神, 六親, 干支, yin or yang, moving, 世/應, 空 and 破 (and its 變), its strength row its position,
# branch, strength tags and 變 — a few hundred of each in a day, where the page writes twelve rows of ≈ 8
# ``{{ … }}`` each (≈ 60 % of rendering the page). ``rows(name, items, fields)`` in a template renders the row
# template ``name`` for each item (a dict) as ``l``, a dict of only ``fields`` of the item (StrictUndefined: a
# row template that read another would fail, never be cached wrong), and takes the text from a bounded cache
# keyed by (language, channel, ``name``, the item's values of ``fields``) and, as the 大六壬 reading's, by
# which of the terms the row gives as 한글(漢字) the reply gave before it (an entry keeps one text per such
# subset). An item without one of the fields is rendered without the cache (rows stored before the field).
ROW_CACHE_SIZE = 4096  # per (language, channel, row template)
ROW_CACHE_BYTES = 1 << 20  # per (language, channel, row template): ≈ 1,000 rows of ≈ 1 kB with their keys
row_cache_stats: Counter[str] = Counter()  # "hit" / "miss" (for tests and the benchmark)
_ROWS: dict[tuple[str, str, str], BoundedCache[bytes, _ReadingEntry]] = {}
_NONE_GIVEN: frozenset[str] = frozenset()


@lru_cache(maxsize=64)
def _fields_of(fields: tuple[str, ...]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """The values of ``fields`` of an item, as a tuple (one C call a row)."""
    if len(fields) == 1:
        (field,) = fields
        return lambda item: (item[field],)
    return operator.itemgetter(*fields)


def _render_row(
    template: jinja2.Template, row: Mapping[str, Any], before: frozenset[str]
) -> tuple[str, set[str]]:
    with terms_given(before) as given:
        text = template.render(l=row)
    return text, given or set()


def _variant_row(
    lang: str, channel: str, name: str, fields: tuple[str, ...], item: Mapping[str, Any], seen: frozenset[str]
) -> str:
    """A cached row's text for another set of terms given before it (rendered on its first need only)."""
    template = channel_environment(lang, channel).get_template(name)
    return _render_row(template, dict(zip(fields, _fields_of(fields)(item), strict=True)), seen)[0]


def rendered_rows(
    lang: str, channel: str, name: str, items: Any, fields: tuple[str, ...], when: str | None = None
) -> Markup:
    """The row template ``name`` rendered for each of ``items`` in order (those with the key ``when``, if one is
    given), already escaped for ``channel``; cached (see above). Inside a reply, the terms a row gives count as
    given, as when the rows are written out in the page."""
    rows = _ROWS.get((lang, channel, name))
    if rows is None:
        rows = _ROWS.setdefault(
            (lang, channel, name),
            BoundedCache(
                lambda: ROW_CACHE_SIZE,
                row_cache_stats,
                name=f"views.rows.{lang}.{channel}.{name}",
                max_bytes=lambda: ROW_CACHE_BYTES,
                size_of=_ReadingEntry.size,
            ),
        )
    pick = _fields_of(fields)
    given = given_now()
    out: list[str] = []
    for item in items:
        if when is not None and when not in item:
            continue
        try:
            key = marshal.dumps(pick(item))
        except (KeyError, ValueError):  # a row stored before a field (fails as written out), or no JSON value
            template = channel_environment(lang, channel).get_template(name)
            row = {f: item[f] for f in fields if f in item}
            text, named = _render_row(template, row, frozenset(given or ()))
            out.append(text)
            if given is not None:
                given.update(named)
            continue
        entry = rows.find(key)
        if entry is None:
            template = channel_environment(lang, channel).get_template(name)
            text, named = _render_row(template, dict(zip(fields, pick(item), strict=True)), _NONE_GIVEN)
            entry = _ReadingEntry(frozenset(named))
            entry.texts[_NONE_GIVEN] = text
            rows.keep(key, entry)
        if not entry.used:  # no term of the row is given as 한글(漢字): one text
            out.append(entry.texts[_NONE_GIVEN])
            continue
        seen = entry.used & given if given else _NONE_GIVEN
        out.append(
            entry.text(
                seen, partial(_variant_row, lang, channel, name, fields, item), partial(rows.grow, key)
            )
        )
        if given is not None:
            given |= entry.used
    return Markup("".join(out))


def template_name(view: str, channel: str) -> str:
    return f"{channel}/{view}.{_EXT[channel]}"


# The pages of a stored cast (issue #13) are its command's (``Stored.pages``): the first is the reply, the
# others one tap away. A page is the template ``<view>_<page>`` (``full``: the view's own template) rendered
# from the stored history row. ``pages_of`` and ``first_page`` are the registry's (bot.features.base).


def page_title(reply: Reply) -> tuple[str, str]:
    """(title, footer) of a stored cast shown as an embed: the view's title with its number, and the
    options it was cast with (``templates/chat/footer.txt.j2``)."""
    title = view_title(reply.lang, reply.view)
    number = reply.context.get("no")
    env = channel_environment(reply.lang, "console")
    footer = env.get_template("chat/footer.txt.j2").render(**dict(reply.context), view=reply.view)
    return (f"{title} · #{number}" if number else title), typeset(reply.lang, " ".join(footer.split()))


ALT_LIMIT = 1024  # a Discord attachment's description (alt text)


def picture_alt(reply: Reply) -> str | None:
    """The description (alt text) of the picture of ``reply``'s cast: what the picture draws, then the cast as
    ``/history`` sums it up (``templates/chat/picture_alt.txt.j2``: the view's ``Stored.summary`` and line),
    plain text of at most :data:`ALT_LIMIT` characters; None for a reply without a picture kind."""
    spec = stored_as_view(reply.view)
    stored = spec.stored if spec is not None else None
    kind = reply.picture.kind if reply.picture is not None else (stored.picture if stored is not None else "")
    if not kind:
        return None
    summary = stored.summary(reply.context) if stored is not None and stored.summary is not None else {}
    line = stored.line if stored is not None and summary else ""
    env = channel_environment(reply.lang, "console")
    text = env.get_template("chat/picture_alt.txt.j2").render(kind=kind, s=summary, line=line)
    return " ".join(text.split())[:ALT_LIMIT] or None


def extras_of(view: str, page: str | None = None) -> Extras | None:
    """The language-dependent data ``view`` needs besides its stored context (``Stored.extras``; kept out of
    the history rows), or None — also for a page that reads none (``Page.extras``; StrictUndefined: a page that
    did would fail, never render wrong)."""
    spec = stored_as_view(view)
    stored = spec.stored if spec is not None else None
    if stored is None or stored.extras is None:
        return None
    if page is not None and any(p.name == page and not p.extras for p in stored.pages):
        return None
    return stored.extras


def view_title(lang: str, view: str) -> str:
    """The title of a stored cast of ``view``: its command's title, else the command's own name."""
    spec = stored_as_view(view)
    if spec is None:
        return view
    if spec.stored is not None and spec.stored.title_msgid:
        return gettext(lang, spec.stored.title_msgid)
    return "/" + spec.name


def page_view(view: str, page: str | None) -> str:
    """The template view name of ``page`` of ``view`` (a topic page: its first page's)."""
    page = shown_page(view, page)
    if page is None or page == "full" or page not in pages_of(view):
        return view
    return f"{view}_{page}"


@cache
def _view_template(lang: str, channel: str, view: str) -> jinja2.Template:
    """The channel's template of ``view``, else the console's (resolved once: a missing template is a file
    look-up and an exception every time Jinja is asked for it)."""
    env = channel_environment(lang, channel)
    try:
        return env.get_template(template_name(view, channel))
    except jinja2.TemplateNotFound:
        return env.get_template(template_name(view, "console"))


_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")

# ---- pages rendered as a head of their own and a shared body (issue #18) --------------------------------
# The first page of ``/cast now`` and ``/shensha`` is, but for its first lines (the reply's number and the time
# asked), the same text for every reply of that 課 or day in one 時辰 — 150 users asking within the hour get
# the same body. Such a page's template is ``{% include head %}{% include body %}``; ``render`` renders the head
# per reply and takes the body from a bounded cache keyed by (language, channel, body, the terms the head gave
# as 한글(漢字), ``content_key`` of the context without the head's keys). The body is rendered without the
# head's keys in its context (StrictUndefined: a body that read one would fail, never be cached wrong). The
# cache holds the body already typeset and cleaned line by line (``_lines``), which is the same as doing it
# to the whole page when the head ends a line: no rule of ``typeset``/``clean`` reads across a line's end.
# page view → (head view, body view, the context keys only the head reads)
SPLIT_PAGES: Mapping[str, tuple[str, str, frozenset[str]]] = {
    "cast_brief": ("cast_head", "cast_brief_body", frozenset({"no", "when", "asked", "topic"})),
    "shensha_brief": ("shensha_head", "shensha_brief_body", frozenset({"no", "when"})),
}
BODY_CACHE_SIZE = 512
body_cache_stats: Counter[str] = Counter()  # "hit" / "miss" (for tests and the benchmark)
# key → (the body's text after ``_lines``, the terms it gave as 한글(漢字))
_BODIES: BoundedCache[tuple[str, str, str, frozenset[str], Hashable], tuple[str, frozenset[str]]] = (
    BoundedCache(lambda: BODY_CACHE_SIZE, body_cache_stats)
)


def _lines(lang: str, text: str) -> str:
    """``text`` typeset for ``lang``, without controls or bidi characters, and no line ending in blanks.

    In lzh line by line, each line's text remembered (:func:`_lzh_line`): the same as the whole text at once,
    since no rule of ``typeset``/``clean`` reads across a line's end or makes or takes one."""
    if lang == "lzh":
        return "\n".join(map(_lzh_line, text.split("\n")))
    return "\n".join(line.rstrip() for line in clean(typeset(lang, text)).split("\n"))


@lru_cache(maxsize=4096)
def _lzh_line(line: str) -> str:
    """A line of a page typeset for lzh, cleaned, without trailing blanks, remembered: ``typeset``'s rules start
    with a look-behind the regex engine tries at every character (≈ 0.3 µs a character in lzh, ≈ 130 µs for
    a ``/liuyao`` first page of 400 characters), and most lines of a page (a chart's rows, a verdict's
    reasons, the page's labels) are another reply's too. A fresh ``/liuyao`` lzh first page: ≈ 0.12 ms less
    (in process). 4,096 lines of at most a few hundred characters; 9 lines."""
    return clean(typeset("lzh", line)).rstrip()


def _render_split(reply: Reply, channel: str, page: str | None, view: str) -> str:
    """The page, after ``_lines``."""
    head_view, body_view, head_keys = SPLIT_PAGES[view]
    common = {"view": reply.view, "channel": channel, "page": page}
    head = _view_template(reply.lang, channel, head_view).render(**reply.context, **common)
    shared = {k: v for k, v in reply.context.items() if k not in head_keys}
    before = given_terms() or frozenset()
    content = content_key(shared) if head.endswith("\n") else None
    key = (reply.lang, channel, body_view, before, content or b"")
    found = _BODIES.find(key) if content is not None else None
    if found is None:
        extra = extras_of(reply.view)
        if extra:
            shared.update(extra(reply.lang, shared))
        with terms_given(before) as given:
            body = _view_template(reply.lang, channel, body_view).render(**shared, **common)
        if content is None:  # not cached: the page as a whole
            mark_given(given or ())
            return _lines(reply.lang, head + body)
        found = _BODIES.keep(key, (_lines(reply.lang, body), frozenset(given or ()) - before))
    mark_given(found[1])
    return _lines(reply.lang, head) + found[0]


def render(reply: Reply, channel: str, page: str | None = None) -> str:
    """The text of ``reply`` for ``channel`` ("telegram" | "discord" | "console"); ``page`` one of
    :func:`pages_of` ``(reply.view)`` (None: the whole view, as before pages existed), a topic page, or a page
    read for a topic (``basis.hun``: rendered as its page, the reply already read for that topic)."""
    page = page_topic(reply.view, page)[0]
    view = page_view(reply.view, page)
    with one_reply():
        if view in SPLIT_PAGES:
            text = _render_split(reply, channel, page, view)
        else:
            template = _view_template(reply.lang, channel, view)
            extra = extras_of(reply.view, page)
            context = {**dict(reply.context), **(extra(reply.lang, reply.context) if extra else {})}
            text = _lines(reply.lang, template.render(**context, view=reply.view, channel=channel, page=page))
    return _BLANKS.sub("\n\n", text).strip("\n")
