"""The daily heads put together from a form (``bot.daily.HeadForms``) are byte for byte what the
``daily_head`` template renders, over zones with whole, half and 45-minute offsets, DST transitions, both
languages, all three channels, both kinds and every hour of several days — and a form is refused when the
template would render the free fields differently."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.daily import HeadForms, render_head
from bot.features.daily.reading import Moment, head_context

ZONES = (
    "Asia/Seoul",
    "Asia/Kolkata",
    "Asia/Kathmandu",  # +05:45
    "Australia/Adelaide",  # +09:30 / +10:30
    "America/St_Johns",  # −03:30 / −02:30, and "_" that Discord markdown escapes
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Pacific/Auckland",
    "Europe/London",
    "Pacific/Honolulu",
    "Etc/GMT+12",
    "Pacific/Kiritimati",  # +14:00
)
# days across DST changes (US 2026-03-08 and 2026-11-01, EU 2026-03-29 and 2026-10-25, NZ and AU in April)
DAYS = (datetime(2026, 3, 7, tzinfo=UTC), datetime(2026, 4, 4, tzinfo=UTC), datetime(2026, 10, 24, tzinfo=UTC),
        datetime(2026, 10, 31, tzinfo=UTC), datetime(2027, 1, 1, tzinfo=UTC))  # fmt: skip


@pytest.mark.parametrize("channel", ["telegram", "discord", "console"])
def test_forms_equal_the_template(channel: str) -> None:
    forms = HeadForms()
    checked = 0
    for start in DAYS:
        for step in range(0, 48 * 60, 97):  # every 97 minutes over two days: all hours, odd minutes
            at = start + timedelta(minutes=step)
            for zone in ZONES:
                for kind in ("liuren", "liuyao"):
                    head = head_context(Moment.of(at, zone, kind))
                    for lang in ("ko", "lzh"):
                        assert forms.render(head, lang, channel) == render_head(head, lang, channel), (
                            zone,
                            at,
                            lang,
                        )
                        checked += 1
    assert checked == len(DAYS) * 30 * len(ZONES) * 2 * 2


def test_one_form_serves_a_whole_hour() -> None:
    # 丑時 in Seoul (01:00–02:59 KST): 120 minutes, one form per language; the template rendered 3 × 2 times
    forms = HeadForms()
    start = datetime(2026, 11, 30, 1, 0, tzinfo=UTC) - timedelta(hours=9)
    for minute in range(120):
        head = head_context(Moment.of(start + timedelta(minutes=minute), "Asia/Seoul"))
        for lang in ("ko", "lzh"):
            assert forms.render(head, lang, "telegram") == render_head(head, lang, "telegram")
    assert forms.compiled == 2


def test_a_form_that_would_differ_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # a template that renders a free field its own way (here: the time without its colon for one value) is
    # caught by the check against the real head or the probe, and that key keeps using the template
    import bot.daily as daily

    head = head_context(Moment.of(datetime(2026, 11, 30, tzinfo=UTC), "Asia/Seoul"))
    real = daily.render_head

    def odd(h: dict[str, object], lang: str, channel: str) -> str:
        text = real(h, lang, channel)
        return text.replace("23:59", "2359")  # only the probe's time is rendered differently

    monkeypatch.setattr(daily, "render_head", odd)
    forms = HeadForms()
    assert forms.render(head, "ko", "telegram") == real(head, "ko", "telegram")
    assert list(forms._forms.values()) == [None]


def test_a_value_with_a_slot_character_uses_the_template() -> None:
    forms = HeadForms()
    head = {
        **head_context(Moment.of(datetime(2026, 11, 30, tzinfo=UTC), "Asia/Seoul")),
        "zone": "Asia/\ue000",
    }
    assert forms.render(head, "ko", "console") == render_head(head, "ko", "console")
    assert list(forms._forms.values()) == [None]
