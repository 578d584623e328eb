"""What commands, views and adapters share: what a transport hands in (:class:`Incoming`), what a command
answers (:class:`Reply`), a command's spec with all its metadata (:class:`CommandSpec`: help, usage, Discord
name, privacy, order in /help, how its casts are stored and paged, :class:`Stored`) and the registry built
from the specs (:func:`register`, :func:`command`, :data:`COMMANDS`, :func:`lookup`, :func:`pages_of` …).

Command modules and ``bot.views`` import from here, never from the package ``bot.commands`` (which imports
every command module and the dispatcher), so the import graph runs one way: adapters → ``bot.commands`` →
command modules → ``bot.features.base``, and ``bot.views`` → ``bot.features.base`` (views never import a
command, commands never import the views). Registering checks a spec (:func:`check`): a message id
missing from a catalog fails at import, not at a user's ``/help``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from bot import msgids, pictures
from bot.context import AppContext
from bot.i18n import (
    LANGS,
    add_catalogs,
    add_templates,
    catalog,
    normalize_lang,
    remove_catalogs,
    remove_templates,
)
from bot.storage import UserSettings


@dataclass(frozen=True)
class Incoming:
    """One command from a user, as a transport received it."""

    platform: str  # "telegram" | "discord" | "console"
    chat_id: str
    user_id: str
    text: str  # the command line as typed, e.g. "/cast now" (no @botname)
    lang_hint: str | None = None  # platform language code (ko, zh-TW, en …)
    chat_kind: str = "private"  # "private" | "group" | "channel" | "inline" (an inline query: any chat)
    user_is_admin: bool = True
    display_name: str | None = None
    private_reply: bool = False  # the transport can answer the caller alone here (Discord: ephemeral)
    bot_name: str = ""  # the bot's own username where links name it (Telegram: t.me/<bot_name>)
    # asked where the answer may be posted into any chat (a Telegram inline query): only a cast anyone may see
    # runs (``bot.privacy.public_cast``), it sees none of the caller's saved settings but the language
    # (:func:`anonymous_user`), and nothing is stored (no user row, no history row: the reply has no number)
    anonymous: bool = False
    # The caller's row as ``dispatch`` read it for this command (one user look-up per command); read it
    # with :func:`caller`. Adapters leave it None.
    user: UserSettings | None = field(default=None, compare=False, repr=False)

    @property
    def user_key(self) -> str:
        """The storage key of the user: ``platform:user_id``."""
        return f"{self.platform}:{self.user_id}"

    @property
    def chat_key(self) -> str:
        return f"{self.platform}:{self.chat_id}"


@dataclass(frozen=True)
class Attachment:
    """A file a reply carries (``/export``): sent as a document (Telegram), an attachment (Discord), written
    to a file (console)."""

    filename: str  # ASCII, no directory
    data: bytes


@dataclass(frozen=True)
class Reply:
    """A platform-neutral answer: a template name, its language and its (JSON-able) context."""

    view: str  # template name, e.g. "cast", "shensha", "error", "help"
    lang: str  # resolved language ("" inside handlers: dispatch fills it in)
    context: Mapping[str, Any] = field(default_factory=dict)
    ephemeral: bool = False
    # the chart picture of the cast the context was made from (``bot.pictures.Picture``: drawn from that
    # cast's chart, never cast again), or None for a reply without a picture
    picture: pictures.Picture | None = None
    files: tuple[Attachment, ...] = ()  # sent with the reply, to the caller alone (``private_only`` commands)


@dataclass(frozen=True)
class ArgSpec:
    """One argument, for help texts and Discord slash options."""

    name: str  # ASCII, lowercase (slash option name)
    type: str = "string"  # "string" | "integer" | "number" | "boolean"
    required: bool = False
    description_msgid: str = ""
    choices: tuple[str, ...] = ()
    complete: str = ""  # a suggestion source of bot.commands.complete ("zone", "place"): Discord autocomplete


@dataclass(frozen=True)
class Cast:
    """One cast of a stored command's inputs and options (:attr:`Stored.cast`): the view model its templates
    read (JSON values only: what a reply shows, the first time and at every ``/show`` and page) and the
    picture of that same cast."""

    context: Mapping[str, Any]
    picture: pictures.Picture | None = None


Handler = Callable[[tuple[str, ...], Incoming, AppContext], Awaitable[Reply]]
# (a history row's inputs, its options) → the one cast of them; ``EngineInputError`` or ``CommandError`` for
# inputs that cannot be cast
Recast = Callable[[Mapping[str, Any], Mapping[str, Any]], Cast]
Summary = Callable[[Mapping[str, Any]], dict[str, Any]]
# (language, a reply's context) → what its templates read besides the context (kept out of the history rows)
Extras = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class Page:
    """One page of a stored cast: the template ``<view>_<name>`` (issue #13), its button's label."""

    name: str  # a–z, 1–8 characters (it travels in the button's data)
    label_msgid: str
    extras: bool = True  # False: the page reads none of its view's ``Stored.extras`` (they are not computed)


# (a history row's inputs, the name of a topic page) → the same inputs asking that topic (issue 32)
Ask = Callable[[Mapping[str, Any], str], Mapping[str, Any]]


@dataclass(frozen=True)
class Topics:
    """The topic buttons of a stored cast (issue 32 item 3): each shows the row's first page again, read for
    its topic — the same stored inputs with ``ask(inputs, page)`` (no new cast of the moment, no new row).
    A topic page's name travels in the button's data as a page's does (``p:<owner>:<number>:<name>``)."""

    pages: tuple[Page, ...]  # name: a–z, 1–8 characters, none a page's; label: the topic's button
    ask: Ask
    # the topic pages without a button, reached by a word typed (the console; issue 32 limit 1): names as above
    typed: tuple[str, ...] = ()
    # a word in the user's own words → the topic page it names, read as the command's line reads a topic word
    # (재물, 돈, 婚姻, 천문 …), or None
    named: Callable[[str], str | None] | None = None
    # a word close to the topics but naming none → the reply suggesting the closest (``choose``), or None
    unknown: Callable[[str], Reply | None] | None = None


@dataclass(frozen=True)
class Stored:
    """How a command's casts are stored in the history and shown again (``/history``, ``/show``, pages)."""

    kind: str  # the history row's kind (``Record.kind``)
    view: str  # the view ``/show`` and the page buttons render again
    # the cast of a row's inputs and options: the first reply, ``/show``, every page and the picture are made
    # of one call (``bot.features.common.record_and_reply``, ``replay``); the row keeps inputs, not renderings
    cast: Recast = field(kw_only=True)
    # what ``/history`` says of a row, in characters only (JSON: the template localizes the labels) …
    summary: Summary | None = None
    # … and the template of that line's tail (it reads ``s``, the summary); "" for none
    line: str = ""
    title_msgid: str = ""  # the title of a stored cast's embed ("" → the command's own name, ``/name``)
    pages: tuple[Page, ...] = ()  # empty: a one-page view
    picture: str = ""  # the chart picture's kind (``bot.pictures``: drawn by ``bot/images``), "" for none
    extras: Extras | None = None  # what the view reads besides its context, in the reader's language
    # what a group may see of it (bot.privacy.public_context): context members ("when.local": one member of
    # ``when``), never birth data or a saved place; empty: the view is never shown to a group
    public: tuple[str, ...] = ()
    topics: Topics | None = None  # topic buttons re-reading the same row for another topic (issue 32)


@dataclass(frozen=True)
class CommandSpec:
    """A command with every piece of its metadata: the registry builds ``/help``, the Discord commands,
    privacy, ``/history`` and the pages of its stored casts from it."""

    name: str  # ASCII, 1–32 of a–z 0–9 _ (valid on Telegram and Discord)
    handler: Handler
    aliases: tuple[str, ...] = ()  # extra names (Korean/Chinese aliases work on the console and in text)
    help_msgid: str = ""  # one line for /help and the Discord command's description
    usage_msgid: str = ""  # /help <name>: how to call it, with examples
    name_msgid: str = ""  # the name as Discord shows it in ko / lzh ("": the ASCII name)
    args: tuple[ArgSpec, ...] = ()
    ephemeral: bool = False  # answer only the caller where the platform can (Discord)
    admin_in_groups: bool = False  # in groups only platform admins may run it
    hidden: bool = False  # not listed by /help, no Discord command
    private_only: bool = False  # shows the caller's own data: never answered to a group (bot.privacy)
    # it keeps sending to the chat it was given in (a subscription): offered only where the bot itself can
    # post (Discord: not in group DMs, nor in a server where only the user installed the app)
    subscribes: bool = False
    order: int = 100  # position in /help (then registration order)
    stored: Stored | None = None  # its casts are kept in the history


class CommandError(Exception):
    """Bad user input: ``code`` is a message id of the catalogs, ``params`` fill its placeholders."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


_REGISTRY: dict[str, CommandSpec] = {}
_ALIASES: dict[str, str] = {}
_KINDS: dict[str, CommandSpec] = {}  # history kind → the command that stores it
_VIEWS: dict[str, CommandSpec] = {}  # stored view → the command that stores it
COMMANDS: Mapping[str, CommandSpec] = MappingProxyType(_REGISTRY)
_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
_PAGE = re.compile(r"^[a-z]{1,8}$")


def messages_of(spec: CommandSpec) -> list[str]:
    """Every message id ``spec`` names."""
    ids = [spec.help_msgid, spec.usage_msgid, spec.name_msgid, *(a.description_msgid for a in spec.args)]
    if spec.stored is not None:
        ids += [spec.stored.title_msgid, *(p.label_msgid for p in spec.stored.pages)]
        ids += [p.label_msgid for p in (spec.stored.topics.pages if spec.stored.topics else ())]
    return [i for i in ids if i]


def check(spec: CommandSpec) -> None:
    """``ValueError`` for a spec that would fail a user later: a bad name, a name or alias taken, a message
    id missing from a catalog, a listed command without its help or usage, a bad page name."""
    problems: list[str] = []
    if not _NAME.match(spec.name):
        problems.append(f"bad name {spec.name!r}")
    for word in (spec.name, *spec.aliases):
        taken = lookup(word)
        if taken is not None:
            problems.append(f"{word!r} is already /{taken.name}")
    if not spec.hidden and not (spec.help_msgid and spec.usage_msgid):
        problems.append("a listed command needs help_msgid and usage_msgid")
    for lang in LANGS:
        messages = catalog(lang)
        problems += [f"{m!r} not in the {lang} catalog" for m in messages_of(spec) if m not in messages]
    stored = spec.stored
    if stored is not None:
        problems += [f"bad page name {p.name!r}" for p in stored.pages if not _PAGE.match(p.name)]
        typed = stored.topics.typed if stored.topics is not None else ()
        for name in (*(p.name for p in (stored.topics.pages if stored.topics is not None else ())), *typed):
            if not _PAGE.match(name) or name in (q.name for q in stored.pages):
                problems.append(f"bad topic page name {name!r}")
        if stored.picture and stored.picture not in pictures.KINDS:
            problems.append(f"no picture kind {stored.picture!r} (bot.pictures.KINDS)")
        if stored.kind in _KINDS:
            problems.append(f"history kind {stored.kind!r} is already /{_KINDS[stored.kind].name}'s")
        if stored.view in _VIEWS:
            problems.append(f"view {stored.view!r} is already /{_VIEWS[stored.view].name}'s")
    if problems:
        raise ValueError(f"/{spec.name}: " + "; ".join(problems))


def register(spec: CommandSpec) -> CommandSpec:
    """Add ``spec`` to the registry after :func:`check` (so a bad spec fails at import, not at a user's
    ``/help``)."""
    check(spec)
    _REGISTRY[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[alias.lower()] = spec.name
    if spec.stored is not None:
        _KINDS[spec.stored.kind] = _VIEWS[spec.stored.view] = spec
        for page in spec.stored.pages:  # the adapters name a page's button by ``msgid("chat.page", …)``
            msgids.add("chat.page", f"{spec.stored.view}.{page.name}", page.label_msgid)
    return spec


def unregister(name: str) -> None:
    """Take ``/name`` out of the registry again (a test's throw-away command)."""
    spec = _REGISTRY.pop(name, None)
    if spec is None:
        return
    for alias in spec.aliases:
        _ALIASES.pop(alias.lower(), None)
    if spec.stored is not None:
        _KINDS.pop(spec.stored.kind, None)
        _VIEWS.pop(spec.stored.view, None)
        for page in spec.stored.pages:
            msgids.remove("chat.page", f"{spec.stored.view}.{page.name}")


@dataclass(frozen=True)
class Feature:
    """A command family's package: its commands, and the templates and compiled catalogs it brings when it
    lives outside the project's ``templates/`` and ``locales/`` (a package of ``bot/features`` keeps its words
    in ``locales/`` and its templates in ``templates/``: None). See docs/adding-a-command.md."""

    commands: tuple[CommandSpec, ...]
    templates: Path | None = None  # laid out as templates/: <channel>/<view>.<ext> (console/: every channel)
    catalogs: Path | None = None  # laid out as locales/: <lang>/LC_MESSAGES/<domain>.mo


def install(feature: Feature) -> None:
    """Its catalogs and templates, then each of its commands (:func:`register`); all or nothing."""
    if feature.catalogs is not None:
        add_catalogs(feature.catalogs)
    if feature.templates is not None:
        add_templates(feature.templates)
    done: list[str] = []
    try:
        for spec in feature.commands:
            register(spec)
            done.append(spec.name)
    except ValueError:
        for name in done:
            unregister(name)
        _remove_folders(feature)
        raise


def uninstall(feature: Feature) -> None:
    """Undo :func:`install` (a test's throw-away command)."""
    for spec in feature.commands:
        if _REGISTRY.get(spec.name) is spec:
            unregister(spec.name)
    _remove_folders(feature)


def _remove_folders(feature: Feature) -> None:
    if feature.catalogs is not None:
        remove_catalogs(feature.catalogs)
    if feature.templates is not None:
        remove_templates(feature.templates)


def command(
    name: str,
    *,
    aliases: tuple[str, ...] = (),
    help_msgid: str | None = None,
    usage_msgid: str | None = None,
    name_msgid: str = "",
    args: tuple[ArgSpec, ...] = (),
    ephemeral: bool = False,
    admin_in_groups: bool = False,
    hidden: bool = False,
    private_only: bool = False,
    subscribes: bool = False,
    order: int = 100,
    stored: Stored | None = None,
) -> Callable[[Handler], Handler]:
    """Register ``handler`` as ``/name`` (and its aliases); a listed command's help and usage default to
    ``bot.help.<name>`` and ``bot.usage.<name>``."""

    def deco(handler: Handler) -> Handler:
        register(
            CommandSpec(
                name=name,
                handler=handler,
                aliases=aliases,
                help_msgid=help_msgid if help_msgid is not None else ("" if hidden else f"bot.help.{name}"),
                usage_msgid=usage_msgid
                if usage_msgid is not None
                else ("" if hidden else f"bot.usage.{name}"),
                name_msgid=name_msgid,
                args=args,
                ephemeral=ephemeral,
                admin_in_groups=admin_in_groups,
                hidden=hidden,
                private_only=private_only,
                subscribes=subscribes,
                order=order,
                stored=stored,
            )
        )
        return handler

    return deco


def lookup(name: str) -> CommandSpec | None:
    """The command named ``name`` or one of its aliases (case-insensitive)."""
    key = name.lower()
    if key in _REGISTRY:
        return _REGISTRY[key]
    target = _ALIASES.get(key)
    return _REGISTRY.get(target) if target else None


def listed() -> list[CommandSpec]:
    """The commands /help lists, in its order."""
    return sorted((s for s in _REGISTRY.values() if not s.hidden), key=lambda s: s.order)


def stored_as_kind(kind: str) -> Stored | None:
    """How the history rows of ``kind`` are stored and shown (None: a kind no command stores)."""
    spec = _KINDS.get(kind)
    return spec.stored if spec is not None else None


def stored_as_view(view: str) -> CommandSpec | None:
    """The command whose stored casts render as ``view`` (None: not a stored view)."""
    return _VIEWS.get(view)


def pages_of(view: str) -> tuple[str, ...]:
    """The pages of ``view`` (empty: a one-page view)."""
    spec = _VIEWS.get(view)
    return tuple(p.name for p in spec.stored.pages) if spec is not None and spec.stored is not None else ()


def _topics(view: str) -> Topics | None:
    """The topics of ``view``'s stored casts (``Stored.topics``), or None."""
    spec = _VIEWS.get(view)
    return spec.stored.topics if spec is not None and spec.stored is not None else None


def topic_pages(view: str) -> tuple[Page, ...]:
    """The topic pages of ``view`` (``Stored.topics``: each a button re-reading the row for its topic)."""
    topics = _topics(view)
    return topics.pages if topics is not None else ()


def topic_names(view: str) -> frozenset[str]:
    """The names of every topic page of ``view``: its topic buttons' and those reached by a word typed."""
    topics = _topics(view)
    if topics is None:
        return frozenset()
    return frozenset((*(p.name for p in topics.pages), *topics.typed))


def topic_named(view: str, word: str) -> str | None:
    """The topic page of ``view`` a word in the user's own words names (``Topics.named``), or None."""
    topics = _topics(view)
    return topics.named(word) if topics is not None and topics.named is not None else None


def topic_unknown(view: str, word: str) -> Reply | None:
    """The reply suggesting the closest topics of ``view`` to a word naming none (``Topics.unknown``), or
    None (no topics, or a word close to none of them)."""
    topics = _topics(view)
    return topics.unknown(word) if topics is not None and topics.unknown is not None else None


# a page read for a topic the user turned to (issue 32 limit): ``<page>.<topic page>`` — ``basis.hun`` is the
# 근거 page of the row read for 婚姻, reached from the 혼인 button's page; a topic page alone (``hun``) is the
# first page read for its topic
TOPIC_MARK = "."


def page_topic(view: str, page: str | None) -> tuple[str | None, str | None]:
    """(the page, the topic page in view) of the page name ``page`` of ``view``: ``basis.hun`` → (basis, hun);
    the topic page ``hun`` → (hun, hun); a page read as the row asks → (page, None)."""
    if page is None:
        return None, None
    name, mark, topic = page.partition(TOPIC_MARK)
    topics = topic_names(view)
    if mark:
        return name, topic if topic in topics else None
    return page, page if page in topics else None


def is_page(view: str, page: str) -> bool:
    """Whether ``page`` names a page of ``view``: one of its pages, a topic page, or a page (not the first)
    read for a topic page."""
    name, mark, topic = page.partition(TOPIC_MARK)
    topics = topic_names(view)
    if mark:
        return name in pages_of(view) and name != first_page(view) and topic in topics
    return page in pages_of(view) or page in topics


def on_topic(view: str, page: str, topic: str | None) -> str:
    """The name of ``page`` of ``view`` read for the topic page ``topic`` in view (None: as the row asks). The
    first page stays the row's own (the cast as asked: the topic's own button shows its first page)."""
    if topic is None or page == first_page(view) or page not in pages_of(view):
        return page
    return f"{page}{TOPIC_MARK}{topic}"


def ask_topic(view: str, inputs: Mapping[str, Any], page: str) -> Mapping[str, Any] | None:
    """A row's ``inputs`` asking the topic of the topic page ``page`` of ``view`` (or of a page read for a
    topic, ``basis.hun``); None: no topic page."""
    topics = _topics(view)
    topic = page_topic(view, page)[1]
    if topics is None or topic is None:
        return None
    return topics.ask(inputs, topic)


def shown_page(view: str, page: str | None) -> str | None:
    """The page whose template shows ``page``: a topic page is the first page read for its topic; a page read
    for a topic (``basis.hun``) is that page."""
    if page is not None and page in topic_names(view):
        return first_page(view)
    return page_topic(view, page)[0] if page is not None and TOPIC_MARK in page else page


def first_page(view: str) -> str | None:
    """The page a fresh reply of ``view`` shows, or None for a one-page view."""
    pages = pages_of(view)
    return pages[0] if pages else None


def split_command(text: str) -> tuple[str, tuple[str, ...]] | None:
    """``"/cast 2026-11-29 23:10"`` → ``("cast", ("2026-11-29", "23:10"))``; None if not a command.

    A ``@botname`` suffix on the command word is dropped; full-width forms (／, ２０２６－１１－２９, the
    ideographic space) typed on CJK keyboards are folded to ASCII (NFKC).
    """
    line = unicodedata.normalize("NFKC", text).strip()
    if not line or line[0] not in "/／":
        return None
    parts = line[1:].split()
    if not parts:
        return None
    name = parts[0].split("@", 1)[0]
    if not name:
        return None
    return name, tuple(parts[1:])


def reply(
    view: str, *, ephemeral: bool = False, picture: pictures.Picture | None = None, **context: Any
) -> Reply:
    """A reply from a handler (dispatch fills in the language); ``picture`` as :attr:`Reply.picture`."""
    return Reply(view=view, lang="", context=context, ephemeral=ephemeral, picture=picture)


def error_reply(code: str, lang: str = "", *, help_for: str | None = None, **params: Any) -> Reply:
    """An ``error`` reply; ``help_for`` adds a pointer to ``/help <command>`` (for messages without an example)."""
    context: dict[str, Any] = {"code": code, "params": _jsonable(params)}
    if help_for:
        context["help_for"] = help_for
    return Reply(view="error", lang=lang, context=context)


# An echoed value (the user's own input in an error message) is cut to this many characters.
ECHO_LIMIT = 40


def _jsonable(params: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in params.items():
        value = v if isinstance(v, int | float | bool) or v is None else str(v)
        if isinstance(value, str) and len(value) > ECHO_LIMIT:
            value = value[: ECHO_LIMIT - 1] + "…"
        out[k] = value
    return out


def allowed(context: Mapping[str, Any], public: tuple[str, ...]) -> Mapping[str, Any] | None:
    """What a group may see of a stored cast (``bot.privacy.public_context``; a shared reading): ``context``
    with only the members ``public`` names (``"a"``: member ``a`` whole; ``"a.b"``: member ``b`` of the
    mapping ``a``, its other members None); None when ``public`` is empty."""
    if not public:
        return None
    whole = {name for name in public if "." not in name}
    parts: dict[str, set[str]] = {}
    for name in public:
        if "." in name:
            head, _, tail = name.partition(".")
            parts.setdefault(head, set()).add(tail)
    shown: dict[str, Any] = {}
    for key, value in context.items():
        if key in whole:
            shown[key] = value
        elif key in parts and isinstance(value, Mapping):
            shown[key] = {k: (v if k in parts[key] else None) for k, v in value.items()}
        elif key in parts:
            shown[key] = None
    return shown


def lang_of(user: UserSettings | None, incoming: Incoming, ctx: AppContext) -> str:
    """The user's setting, else the platform's language hint, else SIKPAN_LANG."""
    if user is not None and user.lang in LANGS:
        return user.lang
    return normalize_lang(incoming.lang_hint) or ctx.settings.lang


def anonymous_user(incoming: Incoming, user: UserSettings | None) -> UserSettings:
    """What an anonymous request (:attr:`Incoming.anonymous`) may use of the caller's row: the language only
    (no zone, place, options or birth data: its answer may be posted anywhere)."""
    return UserSettings(
        incoming.user_key, incoming.platform, incoming.user_id, lang=user.lang if user is not None else None
    )


async def caller(incoming: Incoming, ctx: AppContext) -> UserSettings | None:
    """The caller's settings: the row ``dispatch`` read for this command, else one look-up.

    A handler that changes the user (``update_user``) reads the row again from the storage afterwards.
    """
    if incoming.user is not None and incoming.user.user_key == incoming.user_key:
        return incoming.user
    return await ctx.storage.get_user(incoming.user_key)


async def resolve_lang(incoming: Incoming, ctx: AppContext) -> str:
    """The user's setting, else the platform's language hint, else SIKPAN_LANG."""
    return lang_of(await caller(incoming, ctx), incoming, ctx)
