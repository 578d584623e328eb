"""/start /help: what the bot can do, from the registry (each command's help, usage, aliases and order)."""

from __future__ import annotations

from typing import Any

from bot.context import AppContext
from bot.features.base import ArgSpec, CommandError, Incoming, Reply, command, listed, lookup, reply
from bot.features.share.command import shared_reply
from bot.features.topics import targets
from bot.i18n import N_

# the autocomplete sources that are the words of a question (bot.commands.complete) → the lexicon's art
TOPIC_SOURCES = {"liuyao_use": "liuyao", "liuren_topic": "liuren"}


def _help_rows() -> list[dict[str, Any]]:
    return [
        {
            "name": spec.name,
            "help": spec.help_msgid,
            "usage": spec.usage_msgid,
            "aliases": [a for a in spec.aliases if a != spec.name],
        }
        for spec in listed()
    ]


# the deep link of the button above inline answers (bot/telegram/inline.py: "open a chat with me"): ``/start
# inline`` opens a private chat on the welcome; a share token (22 characters) is never this word
INLINE_START = "inline"


@command(
    "start",
    aliases=("시작", "始"),
    help_msgid=N_("bot.help.start"),
    usage_msgid=N_("bot.usage.start"),
    # a shared reading's token (the deep link t.me/<bot>?start=<token> arrives as "/start <token>")
    args=(ArgSpec("token", description_msgid=N_("bot.arg.start.token")),),
    order=14,
)
async def start(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if args and args[0] != INLINE_START:
        return await shared_reply(args[0], ctx)
    return reply("start", name=incoming.display_name or "", commands=_help_rows())


@command(
    "help",
    aliases=("도움", "도움말", "助", "幫助"),
    help_msgid=N_("bot.help.help"),
    usage_msgid=N_("bot.usage.help"),
    name_msgid=N_("chat.name.help"),
    args=(ArgSpec("command", description_msgid=N_("bot.arg.help.command")),),
    order=13,
)
async def help_(args: tuple[str, ...], incoming: Incoming, ctx: AppContext) -> Reply:
    if args:
        spec = lookup(args[0].lstrip("/／"))
        if spec is None:
            raise CommandError("bot.error.unknown_command", name=args[0][:32])
        return reply(
            "help_command",
            name=spec.name,
            help=spec.help_msgid,
            usage=spec.usage_msgid,
            aliases=list(spec.aliases),
            # the typed choices that are words (/cast: seed 002's 類神 categories), so help lists them
            choices={
                a.name: list(a.choices)
                for a in spec.args
                if a.choices and not all(c.isascii() for c in a.choices)
            },
            # the words of a question (issue 32): /liuyao's 用神 and categories, /cast's topics and 類神
            topics={
                a.name: targets(TOPIC_SOURCES[a.complete]) for a in spec.args if a.complete in TOPIC_SOURCES
            },
        )
    return reply("help", commands=_help_rows())
