"""The Discord sender (discord.py): escape, split, send, and handle Discord's errors.

- Text is Discord markdown. Every outgoing text has its mentions escaped
  (``discord.utils.escape_mentions``: ``@everyone`` → ``@\\u200beveryone``) and is sent with
  ``AllowedMentions.none()``, so nothing can ping.
- :func:`bot.sending.split_discord` splits at line boundaries within 2000 characters, closing and reopening
  ``` code fences across parts; :func:`bot.sending.split_embed_descriptions` packs text into embed
  descriptions (4096 each, ≤ 10 embeds and ≤ 6000 characters per message).
- Pacing: discord.py's HTTP client follows Discord's rate-limit headers (per-route buckets, global 429 with
  ``retry_after``) by itself; the sender adds nothing to it. ``Forbidden`` (403, e.g. 50007 "Cannot send
  messages to this user") and ``NotFound`` of a channel → ``on_blocked``, no retry; a connection that could
  not be made (provably not sent) → retried with backoff a bounded number of times; a 5xx after discord.py's
  own retries, or an answer lost after the request left → ``uncertain``, never sent again (at most once).

It returns a :class:`bot.sending.SendOutcome`, like the Telegram sender.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import aiohttp
import discord

from bot import metrics
from bot.sending import (
    DISCORD_CONTENT_LIMIT,
    BeforeRequest,
    BlockedCallback,
    SendOutcome,
    call_back,
    split_discord,
    split_embed_descriptions,
)

log = logging.getLogger(__name__)


class DiscordSender:
    """Sends Discord markdown to a channel, a user or an interaction's follow-up webhook."""

    platform = "discord"

    def __init__(
        self,
        *,
        on_blocked: BlockedCallback | None = None,
        max_attempts: int = 3,
        backoff: float = 0.5,
        limit: int = DISCORD_CONTENT_LIMIT,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.on_blocked = on_blocked
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.limit = limit
        self._sleep = sleep
        self.dropped: Counter[str] = Counter()  # replies not delivered, by reason (logged at ERROR)

    def _dropped(self, outcome: SendOutcome, detail: str) -> SendOutcome:
        self.dropped[outcome.error or "failed"] += 1
        log.error("discord: reply to %s dropped (%s): %s", outcome.chat_id, outcome.error, detail)
        return outcome

    @staticmethod
    def prepare(text: str) -> str:
        """Escape mentions so that nothing can ping (``@everyone``, ``@here``, ``<@id>``, ``<@&role>``)."""
        return discord.utils.escape_mentions(text)

    @staticmethod
    def buttons(rows: Sequence[Sequence[tuple[str, str]]]) -> discord.ui.View | None:
        """A ``ui.View`` of rows of (label, custom_id) buttons, None for none (the scheduler's readings carry
        their page buttons so); never dispatched to: the client answers every button by its data."""
        if not any(rows):
            return None
        view = discord.ui.View(timeout=1.0)
        for index, row in enumerate(r for r in rows if r):
            for label, data in row[:5]:
                view.add_item(
                    discord.ui.Button(
                        label=label[:80], custom_id=data, style=discord.ButtonStyle.secondary, row=index
                    )
                )
        return view

    def split(self, text: str) -> list[str]:
        return split_discord(self.prepare(text), self.limit)

    @metrics.counts_sends
    async def send(
        self,
        target: Any,
        text: str,
        *,
        ephemeral: bool = False,
        as_embeds: bool = False,
        target_id: str | None = None,
        before_request: BeforeRequest | None = None,
        embed: Any = None,
        view: Any = None,
        file: bytes | None = None,
        filename: str = "chart.png",
        documents: Sequence[tuple[str, bytes]] = (),
        description: str | None = None,
    ) -> SendOutcome:
        """Send to ``target``: a ``discord.abc.Messageable`` (channel, user, member) or an interaction
        ``followup`` webhook (then ``ephemeral`` applies). ``embed`` (a ready ``discord.Embed``) is sent
        alone instead of ``text``; ``view`` (buttons) goes with the last message. ``file`` (PNG bytes) is
        uploaded with the first message as ``files[0]`` named ``filename`` (multipart ``payload_json``),
        in the same request: an embed shows it with ``embed.set_image(url="attachment://chart.png")``;
        ``description`` is its alt text (the attachment's ``description``, at most 1,024 characters).
        ``documents`` ((filename, bytes) each, ``/export``) are uploaded with the first message instead."""
        is_webhook = isinstance(target, discord.Webhook)
        ident = target_id or str(getattr(target, "id", "?"))
        payloads: list[dict[str, Any]]
        if embed is not None:
            payloads = [{"embed": embed}]
        elif as_embeds:
            payloads = [
                {"embeds": [discord.Embed(description=d) for d in group]}
                for group in split_embed_descriptions(self.prepare(text))
            ]
        else:
            payloads = [{"content": part} for part in self.split(text)]
        ids: list[int] = []
        if before_request is not None and payloads and not await before_request():
            return SendOutcome(False, 0, (), "not_attempted", ident)
        for index, payload in enumerate(payloads):
            kwargs: dict[str, Any] = dict(payload, allowed_mentions=discord.AllowedMentions.none())
            if view is not None and index == len(payloads) - 1:
                kwargs["view"] = view
            if is_webhook:
                kwargs["ephemeral"] = ephemeral
                kwargs["wait"] = True
            attempt = 0
            while True:
                attempt += 1
                if file is not None and index == 0:  # a fresh File per attempt: a send reads it to the end
                    kwargs["file"] = discord.File(
                        io.BytesIO(file), filename=filename, description=(description or "")[:1024] or None
                    )
                elif documents and index == 0:
                    kwargs["files"] = [
                        discord.File(io.BytesIO(data), filename=name) for name, data in documents
                    ]
                try:
                    message = await target.send(**kwargs)
                    if message is not None:
                        ids.append(message.id)
                    break
                except discord.Forbidden as exc:
                    log.info("discord: %s refuses messages (code %s)", ident, exc.code)
                    await call_back(self.on_blocked, self.platform, ident, f"{exc.code} {exc.text}")
                    return SendOutcome(False, len(ids), tuple(ids), "forbidden", ident)
                except discord.NotFound as exc:
                    if exc.code == 10062 or is_webhook:
                        return self._dropped(
                            SendOutcome(False, len(ids), tuple(ids), "expired", ident),
                            f"interaction expired (code {exc.code})",
                        )
                    await call_back(self.on_blocked, self.platform, ident, f"{exc.code} {exc.text}")
                    return SendOutcome(False, len(ids), tuple(ids), "chat_not_found", ident)
                except discord.DiscordServerError as exc:
                    # a 5xx after discord.py's own retries: the message may exist; never sent again
                    return self._dropped(
                        SendOutcome(False, len(ids), tuple(ids), "uncertain", ident), f"HTTP {exc.status}"
                    )
                except discord.HTTPException as exc:
                    return self._dropped(
                        SendOutcome(False, len(ids), tuple(ids), "bad_request", ident),
                        f"{exc.code} {exc.text}",
                    )
                except aiohttp.ClientConnectorError as exc:  # no connection: provably not sent
                    if attempt >= self.max_attempts:
                        return self._dropped(
                            SendOutcome(False, len(ids), tuple(ids), "gave_up", ident), str(exc)
                        )
                    await self._sleep(self.backoff * 2 ** (attempt - 1))
                except (aiohttp.ClientError, TimeoutError) as exc:  # sent, answer lost: maybe delivered
                    return self._dropped(
                        SendOutcome(False, len(ids), tuple(ids), "uncertain", ident), repr(exc)
                    )
        return SendOutcome(True, len(ids), tuple(ids), None, ident)


__all__ = ["DiscordSender"]
