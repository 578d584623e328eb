"""Localization: gettext catalogs (Babel ``.po``), term dictionaries and Jinja2 rendering.

Layout (every file is package data, loaded once per language on first use):

- ``locales/<lang>/LC_MESSAGES/<domain>.po``: message catalogs, one domain per area
  (``core``, ``calendar``, ``liuren`` …); all domains of a language are merged, so message ids must be
  unique across domains (prefix them with the area: ``calendar.term``, ``error.not_a_ganzhi``).
- ``locales/<lang>/terms/<domain>.json``: term dictionaries, ``{"甲子": "갑자", …}`` — how a technical
  term is read in that language. ``lzh`` needs none (the term is its own reading).
- ``templates/<channel>/<name>.<ext>.j2``: Jinja2 templates; channel is ``cli``, ``console``,
  ``telegram`` (HTML, autoescaped) or ``discord`` (markdown). Templates call ``_("msgid")`` and the
  filters ``term`` (reading in the language) and ``both`` (reading with the characters, e.g. 갑자(甲子)).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from babel.messages.pofile import read_po

LANGS: tuple[str, ...] = ("ko", "lzh")
DEFAULT_LANG = "ko"


def normalize_lang(value: str | None) -> str | None:
    """Map a language hint (``ko``, ``ko-KR``, ``lzh``, ``zh-Hant`` …) to one of LANGS, or None."""
    if not value:
        return None
    v = value.strip().lower().replace("_", "-")
    if v.startswith("ko"):
        return "ko"
    if v.startswith("lzh") or v.startswith("zh"):
        return "lzh"
    return None


def default_lang() -> str:
    """SIKPAN_LANG from the environment, else Korean."""
    return normalize_lang(os.environ.get("SIKPAN_LANG")) or DEFAULT_LANG


def _check(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"unsupported language {lang!r}; expected one of {LANGS}")
    return lang


@cache
def catalog(lang: str) -> Mapping[str, str]:
    """All messages of a language, merged over its domains."""
    messages: dict[str, str] = {}
    folder = resources.files("locales").joinpath(_check(lang), "LC_MESSAGES")
    if not folder.is_dir():
        return messages
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".po"):
            continue
        with entry.open("rb") as fh:
            cat = read_po(fh, locale=None)
        for message in cat:
            if message.id and message.string and isinstance(message.id, str):
                if message.id in messages:
                    raise ValueError(f"duplicate message id {message.id!r} in {lang}/{entry.name}")
                messages[message.id] = str(message.string)
    return messages


def gettext(lang: str, msgid: str, **params: Any) -> str:
    """Translate ``msgid`` (falling back to the id itself) and fill ``{name}`` placeholders."""
    text = catalog(lang).get(msgid, msgid)
    if params:
        try:
            return text.format(**params)
        except (KeyError, IndexError, ValueError):
            return text
    return text


@cache
def terms(lang: str) -> Mapping[str, str]:
    """The merged term dictionary of a language (empty for lzh unless files exist)."""
    out: dict[str, str] = {}
    folder = resources.files("locales").joinpath(_check(lang), "terms")
    if folder.is_dir():
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                out.update(json.loads(entry.read_text(encoding="utf-8")))
    return out


def term(lang: str, text: object) -> str:
    """How a term is read in ``lang``: 甲子 → 갑자 in ko, itself in lzh.

    Unknown multi-character terms are read character by character when every character is known.
    """
    s = str(text)
    table = terms(lang)
    if s in table:
        return table[s]
    if lang == "lzh" or not s:
        return s
    if len(s) > 1 and all(ch in table for ch in s):
        return "".join(table[ch] for ch in s)
    return s


def both(lang: str, text: object) -> str:
    """The reading with the characters after it, e.g. 갑자(甲子); just the characters in lzh."""
    s = str(text)
    reading = term(lang, s)
    return s if reading == s else f"{reading}({s})"


@cache
def environment(lang: str) -> jinja2.Environment:
    """A Jinja2 environment for one language (``_`` is bound to that language's catalog)."""
    _check(lang)
    root = resources.files("templates")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        undefined=jinja2.StrictUndefined,
    )

    def _gettext(msgid: str, **params: Any) -> str:
        return gettext(lang, msgid, **params)

    def _ngettext(singular: str, plural: str, n: int, **params: Any) -> str:
        return gettext(lang, singular if n == 1 else plural, n=n, **params)

    env.install_gettext_callables(_gettext, _ngettext, newstyle=False)  # type: ignore[attr-defined]
    env.globals["lang"] = lang
    env.filters["term"] = lambda value: term(lang, value)
    env.filters["both"] = lambda value: both(lang, value)
    return env


def render(template: str, lang: str, **context: Any) -> str:
    """Render ``templates/<template>`` in ``lang``."""
    return environment(lang).get_template(template).render(**context).strip("\n")
