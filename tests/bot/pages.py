"""What the page-cache tests (``test_page_bodies``, ``test_page_rows``) share: a page template's output
finished as ``bot.views.render`` finishes every page — typeset for the language, cleaned of controls, no
line ending in blanks, runs of blank lines folded into one — written out here, not taken from the cache path."""

from __future__ import annotations

from bot import views
from bot.i18n import typeset
from bot.sanitize import clean


def finished(lang: str, text: str) -> str:
    text = "\n".join(line.rstrip() for line in clean(typeset(lang, text)).split("\n"))
    return views._BLANKS.sub("\n\n", text).strip("\n")
