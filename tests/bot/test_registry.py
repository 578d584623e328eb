"""Issue #31: the command spec carries every piece of a command's metadata and the registry drives /help,
privacy, /history and the pages from it. A bare ``/bazi`` used to make plain ``/help`` answer
``bot.error.internal`` for every user (its usage id was looked up in a side table) and its Discord embed was
titled 대육임(大六壬) (another command's title, the side table's fallback)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot import privacy
from bot.commands import (
    COMMANDS,
    CommandSpec,
    Page,
    Reply,
    Stored,
    load_commands,
    lookup,
    register,
    reply,
    unregister,
)
from bot.features.base import Cast
from bot.i18n import gettext
from bot.msgids import msgid
from bot.views import page_title, pages_of, render


async def _bazi(args, incoming, ctx):
    return reply("help", commands=[])


def _cast(inputs, options):
    return Cast({})


@pytest.fixture
def scratch() -> Iterator[list[str]]:
    """Names of throw-away commands to take out of the registry after the test."""
    names: list[str] = []
    yield names
    for name in names:
        unregister(name)


def test_a_bare_command_fails_at_registration_not_at_help():
    with pytest.raises(ValueError) as err:
        register(CommandSpec("bazi", _bazi, help_msgid="bot.help.bazi", usage_msgid="bot.usage.bazi"))
    assert "'bot.help.bazi' not in the ko catalog" in str(err.value)
    assert "'bot.usage.bazi' not in the lzh catalog" in str(err.value)
    assert lookup("bazi") is None  # nothing half-registered
    with pytest.raises(ValueError, match="needs help_msgid and usage_msgid"):
        register(CommandSpec("bazi", _bazi))


@pytest.mark.parametrize(
    "spec, problem",
    [
        (CommandSpec("cast", _bazi, hidden=True), "'cast' is already /cast"),
        (CommandSpec("bazi", _bazi, aliases=("점",), hidden=True), "'점' is already /cast"),
        (CommandSpec("Ba-zi", _bazi, hidden=True), "bad name"),
        (
            CommandSpec("bazi", _bazi, hidden=True, stored=Stored("cast", "bazi", cast=_cast)),
            "history kind 'cast'",
        ),
        (CommandSpec("bazi", _bazi, hidden=True, stored=Stored("bazi", "cast", cast=_cast)), "view 'cast'"),
        (
            CommandSpec(
                "bazi",
                _bazi,
                hidden=True,
                stored=Stored("bazi", "bazi", pages=(Page("x", "nope"),), cast=_cast),
            ),
            "'nope' not in the ko catalog",
        ),
        (
            CommandSpec(
                "bazi", _bazi, hidden=True, stored=Stored("bazi", "bazi", picture="bazi", cast=_cast)
            ),
            "picture",
        ),
    ],
)
def test_a_spec_that_would_fail_a_user_is_refused(spec, problem):
    with pytest.raises(ValueError, match=problem):
        register(spec)
    assert lookup("bazi") is None


async def test_a_command_without_title_or_pages_gets_its_own_defaults(say, scratch):
    # messages that exist (the throw-away command borrows /cast's words): /help must list it and still work
    register(
        CommandSpec(
            "bazi",
            _bazi,
            help_msgid="bot.help.cast",
            usage_msgid="bot.usage.cast",
            order=0,
            stored=Stored(kind="bazi", view="bazi", cast=_cast),
        )
    )
    scratch.append("bazi")
    answer = await say("/help")
    assert answer.view == "help", answer.context
    assert [c["name"] for c in answer.context["commands"]][:2] == ["cast", "bazi"]  # order, then registration
    assert "/bazi" in render(answer, "console")
    assert (await say("/help bazi")).context["usage"] == "bot.usage.cast"
    assert pages_of("bazi") == ()
    title, _ = page_title(Reply("bazi", "ko", {"no": 3}))
    assert title == "/bazi · #3" and gettext("ko", "bot.cast.title") not in title


def test_page_labels_reach_the_adapters_look_up_and_leave_with_the_command(scratch):
    stored = Stored(
        "bazi",
        "bazi",
        pages=(Page("chart", "chat.page.cast.brief"), Page("luck", "chat.page.cast.read")),
        cast=_cast,
    )
    register(CommandSpec("bazi", _bazi, hidden=True, stored=stored))
    scratch.append("bazi")
    assert pages_of("bazi") == ("chart", "luck")
    assert msgid("chat.page", "bazi.luck") == "chat.page.cast.read"  # what Telegram and Discord label it with
    unregister("bazi")
    assert pages_of("bazi") == () and lookup("bazi") is None
    with pytest.raises(KeyError):
        msgid("chat.page", "bazi.luck")


async def test_privacy_is_the_spec_s(say, scratch):
    private = {name for name, spec in COMMANDS.items() if spec.private_only}
    assert private == {
        "history",
        "show",
        "settings",
        "place",
        "tz",
        "qizheng",
        "forget",
        "note",
        "journal",
        "export",
    }
    register(CommandSpec("zz_private", _bazi, hidden=True, private_only=True))
    scratch.append("zz_private")
    assert privacy.private_only("zz_private") and not privacy.private_only("cast")
    refused = await say("/zz_private", chat="g1", chat_kind="group")
    assert refused.view == "error" and refused.context["code"] == "bot.error.private_only"
    assert (await say("/zz_private")).view == "help"


def test_views_and_commands_share_types_without_importing_each_other():
    """docs/architecture.md's layers: the views render a Reply without the command layer, and the command layer
    (pages of a stored cast included) answers without the views; both read the shared types and the registry
    of ``bot.features.base``."""
    import grimp

    graph = grimp.build_graph("bot", "engine")
    assert graph.find_shortest_chain(importer="bot.views", imported="bot.commands") is None
    # no command imports the views (``bot.daily``, the scheduler's renderer of a delivery, does: /daily reaches
    # them through it)
    for module in graph.find_children("bot.commands"):
        assert not graph.direct_import_exists(importer=module, imported="bot.views"), module
    assert graph.find_shortest_chain(importer="bot.commands.pages", imported="bot.views") is None
    assert graph.find_shortest_chain(importer="bot.features.base", imported="bot.commands") is None
    assert graph.find_shortest_chain(importer="bot.features.base", imported="bot.views") is None


def test_feature_packages_never_import_the_command_package():
    """``bot.commands`` imports every feature's command module; a feature importing back into ``bot.commands``
    (whose package runs first) would find its own module half-imported."""
    import grimp

    graph = grimp.build_graph("bot", "engine")
    for module in graph.find_descendants("bot.features"):
        imported = graph.find_modules_directly_imported_by(module)
        assert not [m for m in imported if m == "bot.commands" or m.startswith("bot.commands.")], module


@pytest.mark.parametrize(
    "first", ["bot.features.liuyao.command", "bot.features.shensha.command", "bot.daily"]
)
def test_the_commands_order_does_not_depend_on_which_module_is_imported_first(first):
    import subprocess
    import sys

    code = f"import {first}\nfrom bot.commands import load_commands\nprint(' '.join(load_commands()))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == list(load_commands())
    assert out[:3] == ["cast", "start", "help"]  # Telegram's command menu: the modules' order (MODULES)
