"""The settings model: every per-user option, stored in ``users.options`` as ``"<key>": "<value>"`` strings.

Two kinds of option, one model (:func:`model`, :class:`Setting`):

- bot options (:data:`BOT_OPTIONS`, the group ``bot``): how an instant becomes pillars, and other choices of
  the shell itself; a new one is one line there (its name, default and other values) and a label id
  ``bot.opt.<name>`` in the catalogs;
- school options per engine (``"<area>.<field>"``): each area names its engine's frozen options dataclass;
  the fields, their allowed values and defaults are read from the class itself (booleans → ``on``/``off``,
  enums → their values, branches → the characters the engine accepts), so a new option in an engine shows
  up without touching the bot.

``/settings`` (text, Telegram and Discord buttons, the console) is built from :func:`model` alone.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.features.base import CommandError
from bot.features.common import parse_bool
from bot.i18n import DEFAULT_LANG, LANGS, catalog, gettext
from bot.msgids import FAMILIES
from bot.storage import UserSettings
from engine.core.cycle import Branch, Stem
from engine.errors import EngineInputError
from engine.liuren import Options as LiurenOptions
from engine.liuren.nianming import check_birth_year
from engine.liuyao import Options as LiuyaoOptions
from engine.qizheng import QizhengOptions

OptionsClass = type[LiurenOptions] | type[LiuyaoOptions] | type[QizhengOptions]

AREAS: dict[str, OptionsClass] = {
    "liuren": LiurenOptions,
    "liuyao": LiuyaoOptions,
    "qizheng": QizhengOptions,
}


def options_class(area: str) -> OptionsClass:
    return AREAS[area]


def to_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Branch | Stem):
        return value.char
    if isinstance(value, enum.Enum):
        return str(value.value)
    return str(value)


def _choices(cls: OptionsClass, name: str, default: Any) -> list[str]:
    if isinstance(default, bool):
        return ["on", "off"]
    if isinstance(default, Branch | Stem):
        # the characters the engine accepts (its own validation decides: 土長生 申 or 寅)
        return [c.char for c in type(default) if _accepted(cls, name, c)]
    if isinstance(default, enum.Enum):
        return [str(m.value) for m in type(default)]
    return []


def _accepted(cls: OptionsClass, name: str, value: Any) -> bool:
    try:
        cls(**{name: value})
    except (ValueError, TypeError):
        return False
    return True


_FIELDS: dict[str, dict[str, tuple[str, list[str]]]] = {}


def fields(area: str) -> dict[str, tuple[str, list[str]]]:
    """``{field: (default as text, allowed values)}``."""
    if area not in _FIELDS:
        cls = options_class(area)
        defaults = cls()
        out: dict[str, tuple[str, list[str]]] = {}
        for f in dataclasses.fields(cls):
            value = getattr(defaults, f.name)
            if isinstance(value, bool | enum.Enum | str | int):
                out[f.name] = (to_text(value), _choices(cls, f.name, value))
        _FIELDS[area] = out
    return _FIELDS[area]


def parse_key(key: str) -> tuple[str, str] | None:
    """``"liuren.gui_rule"`` → ("liuren", "gui_rule") when that option exists."""
    area, _, name = key.partition(".")
    if area in AREAS and name in fields(area):
        return area, name
    return None


@functools.cache  # an enum's values as text, once per enum (was once per option read: a read 58 → 22 µs, 4 lines)
def _values(kind: type[enum.Enum]) -> frozenset[str]:
    return frozenset(str(m.value) for m in kind)


def from_text(default: Any, text: str) -> Any:
    """A value of the default's type from its text form (CommandError when it is not one)."""
    if isinstance(default, bool):
        return parse_bool(text, "")
    try:
        if isinstance(default, Branch):
            return Branch.from_char(text)
        if isinstance(default, Stem):
            return Stem.from_char(text)
        if isinstance(default, enum.Enum):
            kind = type(default)
            return kind(text) if text in _values(kind) else kind(text.lower())
        if isinstance(default, int):
            return int(text)
    except ValueError:
        raise CommandError("bot.error.bad_option_value", name="", value=text[:20]) from None
    return text


def normalize(area: str, name: str, text: str) -> str:
    """The stored text of a valid value for an option (raises CommandError otherwise)."""
    cls = options_class(area)
    default = getattr(cls(), name)
    try:
        value = from_text(default, text.strip())
        cls(**{name: value})  # the engine's own validation (e.g. 土長生 申 or 寅 only)
    except CommandError as err:
        raise CommandError("bot.error.bad_option_value", name=f"{area}.{name}", value=text[:20]) from err
    except (ValueError, TypeError):
        raise CommandError("bot.error.bad_option_value", name=f"{area}.{name}", value=text[:20]) from None
    return to_text(value)


def build(area: str, stored: Mapping[str, Any]) -> Any:
    """The engine options object from a user's stored options (unknown or stale keys are ignored)."""
    cls = options_class(area)
    defaults = cls()
    kwargs: dict[str, Any] = {}
    prefix = f"{area}."
    for key, text in stored.items():
        if not key.startswith(prefix):
            continue
        name = key[len(prefix) :]
        if name not in fields(area):
            continue
        try:
            kwargs[name] = from_text(getattr(defaults, name), str(text))
        except CommandError:
            continue
    try:
        return cls(**kwargs)
    except (ValueError, TypeError):
        return defaults


def from_json(area: str, data: Mapping[str, Any]) -> Any:
    """The engine options object of ``area`` from its ``to_json`` form (a history row's options): the one way
    the bot reads stored options back, by the same reflection as :func:`build` (each field by its default's
    type). ``ValueError`` for a name the class does not have or a value it does not accept (a row this version
    cannot cast as it was cast).

    Cached per (area, the names, types and values given): every /cast and /liuyao reads its row's options
    back, and users keep a few option sets (issue 31 item 8: 58 → 4 µs a read, 10 lines); the objects are
    frozen. A value that is no JSON scalar (unhashable) is read uncached (and refused as before)."""
    try:
        return _options_of(area, tuple((name, type(value), value) for name, value in data.items()))
    except TypeError:
        return _read_options(area, data)


@functools.lru_cache(maxsize=64)
def _options_of(area: str, items: tuple[tuple[str, type, Any], ...]) -> Any:
    return _read_options(area, {name: value for name, _, value in items})


def _read_options(area: str, data: Mapping[str, Any]) -> Any:
    cls = options_class(area)
    defaults = cls()
    known = {f.name for f in dataclasses.fields(cls)}
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        if name not in known:
            raise ValueError(f"no {area} option {name!r}")
        default = getattr(defaults, name)
        try:
            kwargs[name] = value if isinstance(value, bool) else from_text(default, str(value))
        except CommandError:
            raise ValueError(f"bad value {value!r} of the {area} option {name!r}") from None
        if isinstance(default, bool) != isinstance(kwargs[name], bool):
            raise ValueError(f"bad value {value!r} of the {area} option {name!r}")
    try:
        return cls(**kwargs)
    except (EngineInputError, TypeError) as exc:
        raise ValueError(f"bad {area} options {dict(data)!r}: {exc}") from None


# ---- the settings model -----------------------------------------------------------------------------------

# Bot options (not engine options): name → (default, the other allowed values …). A new per-user option of
# the shell is one entry here (and its label ``bot.opt.<name>`` in both catalogs); /settings offers it at once.
BOT_OPTIONS: dict[str, tuple[str, ...]] = {
    "day_starts": ("23:00", "00:00"),
    "solar_time": ("off", "on"),
    # does the daily reading carry the picture of the day's 課 (or 卦)? (issue 14: the scheduler's transports)
    "daily_picture": ("on", "off"),
    # the asker's sex: where the 行年 starts and which way it runs (男 丙寅 順行, 女 壬申 逆行:
    # engine.liuren.nianming); asked once, when a 行年 is wanted and it is not set (issue 32 item 5)
    "sex": ("unset", "male", "female"),
    # the asker's birth year alone (本命, and with the sex the 行年), for /cast in private chats when no birth
    # is saved with /qizheng … save (issue 32 limit 2): free text, a year of FIRST_YEAR–LAST_YEAR or "unset"
    "birth_year": ("unset",),
}
# Bot options whose value is typed rather than chosen: no list of values (``Setting.choices`` empty)
FREE_OPTIONS = frozenset({"birth_year"})
BOT_GROUP = "bot"
GROUPS: tuple[str, ...] = (BOT_GROUP, *AREAS)  # the order /settings shows them in

# What a user may type for a bot option's name or value, besides the name and the values themselves.
ALIASES = {
    "day": "day_starts",
    "daystart": "day_starts",
    "換日": "day_starts",
    "자시": "day_starts",
    "solar": "solar_time",
    "진태양시": "solar_time",
    "眞太陽時": "solar_time",
    "真太陽時": "solar_time",
    "picture": "daily_picture",
    "그림": "daily_picture",
    "圖": "daily_picture",
    "성별": "sex",
    "남녀": "sex",
    "男女": "sex",
    "性別": "sex",
    "性别": "sex",
    "생년": "birth_year",
    "출생연도": "birth_year",
    "태어난해": "birth_year",
    "生年": "birth_year",
    "birth": "birth_year",
    "year": "birth_year",
}
# The asker's sex as typed (``/settings 성별 남``, ``/cast now 1990 여``, ``1990年生 男``).
SEX_WORDS = {
    "남": "male",
    "남자": "male",
    "남성": "male",
    "男": "male",
    "男子": "male",
    "m": "male",
    "male": "male",
    "여": "female",
    "여자": "female",
    "여성": "female",
    "女": "female",
    "女子": "female",
    "f": "female",
    "female": "female",
}
_VALUE_WORDS = {
    "day_starts": {"23": "23:00", "0": "00:00", "00": "00:00", "24": "00:00"},
    "sex": {**SEX_WORDS, "모름": "unset", "미정": "unset", "未定": "unset"},
    "birth_year": {"모름": "unset", "미정": "unset", "없음": "unset", "未定": "unset", "無": "unset"},
}
# a birth year as typed on its own: 1990, 1990년, 1990년생, 1990年, 1990年生
_YEAR_RE = re.compile(r"^(\d{1,4})(?:년생|년|생|年生|年|生)?$")

# Where the label of an option lives: the engine areas' own catalogs (liuren.opt.*, qizheng.opt.*), else ours.
_LABEL_IDS = {BOT_GROUP: "bot.opt.{name}", "liuren": "liuren.opt.{name}", "qizheng": "qizheng.opt.{name}"}


@dataclass(frozen=True)
class Setting:
    """One per-user option: its stored key, its group, its default and allowed values (as stored text)."""

    key: str  # "day_starts", "liuren.daynight"
    group: str  # "bot" or an engine area
    name: str  # the key within its group
    default: str
    choices: tuple[str, ...]  # every allowed value, in the model's order; empty: free text
    label: str | None  # the message id of its label, if a catalog has one
    value_labels: tuple[tuple[str, str], ...] = ()  # (value, message id) where a catalog names a value
    # the message ids of the words typed for it and its values where the names give none short and natural
    # (``settings.word``: 今宿 for 今宿（距星）); a name's own words are typed otherwise (:func:`typed_value`)
    word: str | None = None
    value_words: tuple[tuple[str, str], ...] = ()
    # (value, message id) of a shorter name the /settings pages show where the value's name is a sentence
    # (``settings.short``); it is typed as well
    value_short: tuple[tuple[str, str], ...] = ()

    def shown_labels(self) -> dict[str, str]:
        """The message id each value is shown by on the /settings pages: its short name, else its name."""
        return {**dict(self.value_labels), **dict(self.value_short)}


def _label(group: str, name: str) -> str | None:
    for pattern in (_LABEL_IDS.get(group), "bot.opt.{area}.{name}"):
        if pattern is None:
            continue
        found = pattern.format(area=group, name=name)
        if found in catalog(DEFAULT_LANG):
            return found
    return None


def _setting(key: str, group: str, name: str, default: str, choices: tuple[str, ...]) -> Setting:
    label = _label(group, name)
    names = FAMILIES["settings.value"]  # every value's name, written out once (bot/msgids.py) …
    switch = FAMILIES["chat.settings.switch"]  # … and on / off of any on/off option
    value_labels = tuple(  # a typed option names its default ("unset") only
        (v, names.get(f"{key}={v}") or switch[v])
        for v in (choices or (default,))
        if f"{key}={v}" in names or v in switch
    )
    words = FAMILIES["settings.word"]
    value_words = tuple((v, words[f"{key}={v}"]) for v in (choices or (default,)) if f"{key}={v}" in words)
    shorts = FAMILIES["settings.short"]
    value_short = tuple((v, shorts[f"{key}={v}"]) for v in choices if f"{key}={v}" in shorts)
    return Setting(
        key, group, name, default, choices, label, value_labels, words.get(key), value_words, value_short
    )


_MODEL: list[Setting] = []


def model() -> list[Setting]:
    """Every per-user option, the bot's first, then each engine area's in its dataclass order."""
    if not _MODEL:
        for name, allowed in BOT_OPTIONS.items():
            typed_or_chosen = () if name in FREE_OPTIONS else tuple(allowed)
            _MODEL.append(_setting(name, BOT_GROUP, name, allowed[0], typed_or_chosen))
        for area in AREAS:
            for name, (default, choices) in fields(area).items():
                _MODEL.append(_setting(f"{area}.{name}", area, name, default, tuple(choices)))
    return _MODEL


def setting(key: str) -> Setting | None:
    """The option stored under ``key`` (or typed as one of its aliases), if there is one."""
    key = ALIASES.get(key, key.lower())
    return next((s for s in model() if s.key == key), None)


def normalize_setting(option: Setting, text: str) -> str:
    """The stored text of a valid value of ``option`` (CommandError ``bot.error.bad_option_value`` otherwise);
    a value may be typed by its name (``맹중계약법``, ``孟仲季``: :func:`value_named`)."""
    named = value_named(option, text)
    if named is not None:
        return named
    if option.group != BOT_GROUP:
        return normalize(option.group, option.name, text)
    value = text.strip()
    if option.key == "birth_year":
        return birth_year_value(value)
    if option.choices == ("off", "on") or option.choices == ("on", "off"):
        return "on" if parse_bool(value, option.key) else "off"
    value = _VALUE_WORDS.get(option.key, {}).get(value.lower(), value)
    if value not in option.choices:
        raise CommandError("bot.error.bad_option_value", name=option.key, value=value[:20])
    return value


def birth_year_value(text: str) -> str:
    """The stored text of a birth year typed alone (``1990``, ``1990년생``, ``1990年``; ``모름``/``未定``:
    "unset"): a year the 年命 can be counted from (``engine.liuren.nianming``), else CommandError
    ``error.liuren.bad_birth_year`` (the one the cast line's year gets)."""
    word = text.strip()
    unset = _VALUE_WORDS["birth_year"].get(word.lower(), word.lower())
    if unset == "unset":
        return "unset"
    m = _YEAR_RE.match(word)
    if m is None:
        raise CommandError("error.liuren.bad_birth_year", value=word[:20])
    try:
        return str(check_birth_year(int(m.group(1))))
    except EngineInputError:
        raise CommandError("error.liuren.bad_birth_year", value=word[:20]) from None


def saved_birth_year(options: Mapping[str, Any]) -> int | None:
    """The birth year saved with ``/settings 생년`` (the ``birth_year`` option), or None."""
    value = str(options.get("birth_year", "unset"))
    return int(value) if value.isdigit() else None


def refusal(option: Setting, value: str, user: UserSettings | None) -> str | None:
    """Why a valid value cannot work yet for this user (a message id said in chat words), or None.

    晝夜 by sunrise needs the place's latitude and longitude, true solar time its longitude: refused when it
    is set, not at every cast afterwards.
    """
    lat = user.latitude if user else None
    lon = user.longitude if user else None
    if option.key == "liuren.daynight" and value == "sun" and (lat is None or lon is None):
        return "chat.error.sun_needs_place"
    if option.key == "solar_time" and value == "on" and lon is None:
        return "bot.error.solar_needs_place"
    return None


# ---- names (issue 32 item 6): an option, a value or a group found by the name it is shown by -------------

_PUNCT = frozenset(" \t\u3000()（）《》〈〉「」『』[]【】,，、.。:：;；·・~='\"")
# where a name's phrases end (brackets, commas, colons): a typed name is words of one phrase
_PHRASE_ENDS = frozenset("()（）《》〈〉「」『』[]【】,，、。:：;；")
# the endings of a Korean word that leans on the next (하루의, 화를, 중신은, 정하지): not a name alone
_LEANING = ("의", "을", "를", "은", "는", "에", "로", "지")
_NEGATIONS = frozenset({"안", "못"})  # a Korean negation before its verb (계산 안 함)


def compact(text: str, lower: bool = True) -> str:
    """A name as one typed word: NFKC, lower case (unless ``lower`` is False: how it is shown), without
    spaces, brackets and punctuation (``섭해 계산`` → ``섭해계산``, ``《육임대전》`` → ``육임대전``)."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in (text.lower() if lower else text) if ch not in _PUNCT)


def _parts(text: str, lower: bool = True) -> list[str]:
    """The parts of a name in order, split at spaces, brackets and punctuation (NFKC; lower case unless
    ``lower`` is False: how they are shown)."""
    text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    part: list[str] = []
    for ch in text.lower() if lower else text:
        if ch in _PUNCT:
            out += ["".join(part)] if part else []
            part = []
        else:
            part.append(ch)
    return out + (["".join(part)] if part else [])


def _words(text: str) -> set[str]:
    """The parts of a name (split at spaces, brackets and punctuation) of two or more letters."""
    return {part for part in _parts(text) if len(part) >= 2}


def _phrase_words(phrase: str) -> list[str]:
    """The words of a phrase as typed: split at spaces and · (its parts), a range kept whole (``묘신시`` of
    ``묘~신시``), a word leaning on the next joined to it (``하루의시작``, ``정하지않음``), a negation joined to
    both sides (``계산안함``: never ``계산`` alone), a particle the phrase starts with dropped (``의 장생`` after
    ``토(土)``)."""
    words: list[str] = []
    leaning = False
    for part in _parts(phrase.replace("~", ""), lower=False):
        if words and (leaning or part in _NEGATIONS):
            words[-1] += part
        elif words or part not in _LEANING:
            words.append(part)
        leaning = part.endswith(_LEANING) or part in _NEGATIONS
    return words


def _typed_candidates(text: str, lang: str) -> list[str]:
    """The ways a shown name may be typed, the most natural first: each word of the name (:func:`_phrase_words`
    of each phrase between its brackets, commas and colons), in order; then runs of words of one phrase,
    shorter first; last the whole name compacted. A Korean name's Hangul words come before its 漢字 ones, and
    only words of letters and digits are typed (``=``, ``°`` are not)."""
    text = unicodedata.normalize("NFKC", text)
    phrases = [
        _phrase_words(p) for p in "".join("\n" if ch in _PHRASE_ENDS else ch for ch in text).split("\n")
    ]
    words = [w for ws in phrases for w in ws]
    runs = sorted(
        ("".join(ws[i:j]) for ws in phrases for i in range(len(ws)) for j in range(i + 2, len(ws) + 1)),
        key=len,
    )
    typed = [w for w in (*words, *runs) if w.isalnum() and not w.endswith(_LEANING)]
    if lang == "ko":
        typed.sort(key=lambda w: not any("\uac00" <= ch <= "\ud7a3" for ch in w))
    return [*typed, compact(text, lower=False)]


# The typed words are searched once per option, value and language (≈ 19 ms for a /settings page otherwise, on
# the event loop): the catalogs and the model do not change while the process runs.
@functools.cache
def typed_option(option: Setting, lang: str) -> str:
    """The word typed for an option in ``lang`` that ``/settings`` takes for exactly that option
    (:func:`option_named`): its catalog word (``settings.word``: 하루시작), else the shortest natural word of
    its name (``수`` of 宿); its key when its name has none."""
    if option.label is None:
        return option.key
    shown = _typed_candidates(gettext(lang, option.label), lang)
    found = (w for w in (*_catalog_word(option.word, lang), *shown) if option_named(w) == option)
    return next(found, option.key)


@functools.cache
def typed_value(option: Setting, value: str, lang: str) -> str:
    """The word typed for a value in ``lang`` that ``/settings`` takes for exactly that value of ``option``
    (:func:`normalize_setting`): its catalog word (``settings.word``: 今宿 for 今宿（距星）, 인 for 인(寅): 토는
    화를 따름), else the shortest natural word of its name (``참수`` of 금수·참수 거성 오리온자리 δ, ``자정``); the
    value itself when its name has none. The words shown before stay accepted: they are words of the name."""
    msgid = dict(option.value_labels).get(value)
    if msgid is None:
        return value
    shown = _typed_candidates(gettext(lang, msgid), lang)
    word = _catalog_word(dict(option.value_words).get(value), lang)
    found = (w for w in (*word, *shown) if value_named(option, w) == value)
    return next(found, value)


@functools.cache
def typed_group(group: str, lang: str) -> str:
    """The word typed for a group in ``lang`` that ``/settings`` takes for exactly that group (``육효`` of
    육효(六爻), ``七政四餘``): the shortest natural word of its name; its code when its name has none."""
    msgid = FAMILIES["chat.settings.group"].get(group)
    if msgid is None:
        return group
    shown = _typed_candidates(gettext(lang, msgid), lang)
    found = (w for w in shown if sorted({key for key, _ in named(w)}) == [group])
    return next(found, group)


def _catalog_word(msgid: str | None, lang: str) -> list[str]:
    """The word the catalog of ``lang`` gives for typing an option or a value (``settings.word``), if any."""
    return [catalog(lang)[msgid]] if msgid is not None and msgid in catalog(lang) else []


def _match(word: str, names: list[tuple[str, str]]) -> list[str]:
    """The ids whose names ``word`` is: whole (a name compacted) first, then a part of a name, then the
    start of a name, then inside a name (two letters or more); the first of these that finds anything
    decides."""
    key = compact(word)
    if not key:
        return []
    whole = sorted({i for i, n in names if compact(n) == key})
    if whole:
        return whole
    part = sorted({i for i, n in names if key in _words(n)})
    if part:
        return part
    start = sorted({i for i, n in names if len(key) >= 2 and compact(n).startswith(key)})
    if start:
        return start
    return sorted({i for i, n in names if len(key) >= 2 and key in compact(n)})


def _label_texts(msgid: str | None) -> list[str]:
    return [] if msgid is None else [catalog(lang)[msgid] for lang in LANGS if msgid in catalog(lang)]


def _value_names(option: Setting, values: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(value, name)`` for each name ``values`` of ``option`` are typed by, in ko and lzh: its label, its
    catalog word and its short name on the /settings pages."""
    labels, words, shorts = dict(option.value_labels), dict(option.value_words), dict(option.value_short)
    return [
        (v, t)
        for v in values
        for msgid in (labels.get(v), words.get(v), shorts.get(v))
        for t in _label_texts(msgid)
    ]


def named(word: str) -> list[tuple[str, str | None]]:
    """What ``word`` names among the groups, options and values, by the names they are shown by in ko or
    lzh (or their codes): ``[(group or option key, value or None), …]``; several when it is not unique."""
    groups = FAMILIES["chat.settings.group"]
    names: list[tuple[str, str]] = []
    for g in GROUPS:
        names += [(g, g)] + [(g, t) for t in _label_texts(groups.get(g))]
    for s in model():
        names += [(s.key, s.key), (s.key, s.name)] + [(s.key, t) for t in _label_texts(s.label)]
        names += [(s.key, t) for t in _label_texts(s.word)]
    found: list[tuple[str, str | None]] = [(k, None) for k in _match(word, names)]
    if found:
        return found
    values = [(f"{s.key}={v}", t) for s in model() for v, t in _value_names(s, s.choices)]
    return [(k.split("=", 1)[0], k.split("=", 1)[1]) for k in _match(word, values)]


def option_named(word: str) -> Setting | None:
    """The option ``word`` names before a value (``/settings <option> <value>``): its key or an alias
    (:func:`setting`), else a name (ko or lzh) that fits that option alone, not a group."""
    found = setting(word)
    if found is not None:
        return found
    keys = sorted({key for key, _ in named(word)})
    return setting(keys[0]) if len(keys) == 1 and keys[0] not in GROUPS else None


def value_named(option: Setting, word: str) -> str | None:
    """The value of ``option`` that ``word`` names by its shown name (ko or lzh), if exactly one."""
    found = _match(word, _value_names(option, option.choices or (option.default,)))
    return found[0] if len(found) == 1 else None
