"""The daily readings rendered for many subscribers at once (the scheduler's side of the daily reading).

What a reading says is :mod:`bot.features.daily.reading` (a :class:`~bot.features.daily.reading.Moment` →
head and body view models, and the picture); this module renders them through :mod:`bot.views`, sharing
every piece that is the same between subscribers (:class:`DailyRenderer`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.features.base import Reply
from bot.features.daily.reading import Moment, Prepared, body_context, body_key, head_context, pillars_of
from bot.views import render

# ---- rendering ---------------------------------------------------------------------------------------


def render_daily(context: Mapping[str, Any], lang: str, channel: str) -> str:
    """The text of a reading: head and body rendered separately and joined (equal to the ``daily`` view)."""
    return join_parts(
        render_head(context["head"], lang, channel), render_body(context["body"], lang, channel)
    )


def render_head(head: Mapping[str, Any], lang: str, channel: str) -> str:
    return render(Reply(view="daily_head", lang=lang, context={"head": head}), channel)


# Private-use code points stand for the head's free fields while its template is rendered once: no template,
# escaping (HTML, Discord markdown), typesetting or cleaning rule of bot.views touches them.
_SLOTS = {"date": "\ue000", "time": "\ue001", "offset": "\ue002"}
_SLOT_SPLIT = re.compile("([\ue000-\ue002])")
_SLOT_INDEX = {char: n for n, char in enumerate(_SLOTS.values())}  # date 0, time 1, offset 2
# A head with other values in the free fields, rendered to check a form (see HeadForms._compile).
_PROBE = {"date": "1999-12-31", "time": "23:59", "offset": "UTC-09:30"}


class HeadForms:
    """Heads without a template per subscription (issue 18): the ``daily_head`` template is rendered once per
    (language, channel, kind, weekday, 時, zone) with placeholders in the fields that vary from minute to
    minute — date, wall time, UTC offset — and each head is that form with the values put in.

    Those values are digits and ``-`` ``:`` ``+``, which no escaping or typesetting rule changes. Each form is
    checked when made against the template rendered with the real head, and the first form of each
    (language, channel, kind) also with a probe head of other values; a form that differs is not used (that
    key renders through the template, as before).
    """

    def __init__(self) -> None:
        self._forms: dict[tuple[Any, ...], str | None] = {}
        self._probed: dict[tuple[str, str, Any], bool] = {}
        self.compiled = 0  # forms made (two or three template renders each)

    def render(self, head: Mapping[str, Any], lang: str, channel: str) -> str:
        key = (lang, channel, head["kind"], head["weekday"], head["hour"], head["zone"])
        if key not in self._forms:
            if len(self._forms) >= 20_000:
                self._forms.clear()
            self._forms[key] = self._compile(head, lang, channel)
        form = self._forms[key]
        if form is None:
            return render_head(head, lang, channel)
        return form.format(head["date"], head["time"], head["offset"])

    def _compile(self, head: Mapping[str, Any], lang: str, channel: str) -> str | None:
        self.compiled += 1
        if any(_SLOT_SPLIT.search(str(v)) for v in head.values()):
            return None
        text = render_head({**head, **_SLOTS}, lang, channel)
        form = _SLOT_SPLIT.sub(
            lambda m: "{" + str(_SLOT_INDEX[m.group(1)]) + "}", text.replace("{", "{{").replace("}", "}}")
        )
        samples = [head]
        family = (lang, channel, head["kind"])
        if family not in self._probed:
            samples.append({**head, **_PROBE})
        for sample in samples:
            if form.format(sample["date"], sample["time"], sample["offset"]) != render_head(
                sample, lang, channel
            ):
                return None
        self._probed[family] = True
        return form


def render_body(body: Mapping[str, Any], lang: str, channel: str) -> str:
    return render(Reply(view="daily_body", lang=lang, context={"body": body}), channel)


def join_parts(head: str, body: str) -> str:
    return head + "\n\n" + body


@dataclass
class RenderStats:
    heads: int = 0
    bodies: int = 0  # body contexts computed (one chart each)
    body_renders: int = 0  # (body, language, channel) renders
    texts: int = 0  # texts handed out


@dataclass
class DailyRenderer:
    """Renders readings for many subscribers, sharing every piece that is the same between them."""

    stats: RenderStats = field(default_factory=RenderStats)
    _prepared: dict[Moment, Prepared] = field(default_factory=dict)
    # per (instant, zone, day start): the pillars and the head, shared by both kinds and every option set
    _local: dict[tuple[datetime, str, str], tuple[Any, dict[str, Any]]] = field(default_factory=dict)
    _bodies: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)
    _heads: dict[tuple[Moment, str, str], str] = field(default_factory=dict)
    _body_texts: dict[tuple[tuple[Any, ...], str, str], str] = field(default_factory=dict)
    forms: HeadForms = field(default_factory=HeadForms)

    max_heads: int = 200_000  # bounded memory in a long-running process: beyond this the caches start over
    max_bodies: int = 5_000

    def prepared(self, moment: Moment) -> Prepared:
        prep = self._prepared.get(moment)
        if prep is None:
            if len(self._prepared) >= self.max_heads:
                self.end_pass()
            lkey = (moment.instant, moment.zone, moment.day_starts)
            local = self._local.get(lkey)
            if local is None:
                p = pillars_of(moment)
                local = self._local[lkey] = (p, head_context(moment, p))
            p, head = local
            if head["kind"] != moment.kind:
                head = {**head, "kind": moment.kind}
            prep = self._prepared[moment] = Prepared(head=head, body_key=body_key(moment, p))
        return prep

    def end_pass(self) -> None:
        """Forget the per-moment pieces (pillars, head contexts, heads): a scheduler's pass renders the
        moments due now, which no later pass renders again; bodies and head forms, shared over hours, stay."""
        self._prepared.clear()
        self._local.clear()
        self._heads.clear()

    def body(self, moment: Moment) -> dict[str, Any]:
        prep = self.prepared(moment)
        body = self._bodies.get(prep.body_key)
        if body is None:
            if len(self._bodies) >= self.max_bodies:
                self._bodies.clear()
                self._body_texts.clear()
            body = json.loads(json.dumps(body_context(moment), ensure_ascii=False))
            self._bodies[prep.body_key] = body
            self.stats.bodies += 1
        return body

    def text(self, moment: Moment, lang: str, channel: str) -> str:
        return join_parts(*self.parts(moment, lang, channel))

    def parts(self, moment: Moment, lang: str, channel: str) -> tuple[str, str]:
        """(head, body) of the text: shared strings, joined only when the reading is sent, so that a queue of
        100,000 readings holds one copy of each body rather than 100,000 texts (issue 18)."""
        prep = self.prepared(moment)
        hkey = (moment, lang, channel)
        head = self._heads.get(hkey)
        if head is None:
            head = self._heads[hkey] = self.forms.render(prep.head, lang, channel)
            self.stats.heads += 1
        bkey = (prep.body_key, lang, channel)
        body_text = self._body_texts.get(bkey)
        if body_text is None:
            body_text = self._body_texts[bkey] = render_body(self.body(moment), lang, channel)
            self.stats.body_renders += 1
        self.stats.texts += 1
        return head, body_text

    def clear(self) -> None:
        """Forget the cached pieces (the scheduler calls this between runs so memory stays bounded)."""
        self.end_pass()
        self._bodies.clear()
        self._body_texts.clear()


__all__ = [
    "DailyRenderer",
    "HeadForms",
    "RenderStats",
    "join_parts",
    "render_body",
    "render_daily",
    "render_head",
]
