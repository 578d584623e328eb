"""The daily scheduler's Discord transport: a reading goes out through the adapter's sender.

:mod:`bot.app` hands :class:`DiscordTransport` to :func:`bot.scheduler.run_scheduler` in the processes that
run the Discord client (role ``all``, ``discord`` with Redis, ``scheduler`` without Redis): the scheduler
knows transports only by :class:`bot.scheduler.Transport`, never by import.
"""

from __future__ import annotations

from bot import pictures
from bot.context import AppContext
from bot.features.daily.reading import Moment
from bot.scheduler import button_rows, reading_message, reading_picture
from bot.sending import BeforeRequest, SendOutcome
from bot.storage import Subscription


class DiscordTransport:
    """Sends through ``ctx.discord_sender`` (:class:`bot.discord.sender.DiscordSender`) to the channel
    ``ctx.discord_client.get_partial_messageable(chat_id)`` (DM channels included)."""

    platform = "discord"
    channel = "discord"

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def configured(self) -> bool:
        return bool(self.ctx.settings.discord_token) or self.ctx.discord_sender is not None

    def ready(self) -> bool:
        client = self.ctx.discord_client
        if self.ctx.discord_sender is None or client is None:
            return False
        return bool(client.is_ready())

    async def send(
        self,
        sub: Subscription,
        text: str,
        *,
        before_request: BeforeRequest | None = None,
        moment: Moment | None = None,
    ) -> SendOutcome:
        """The reading, its page buttons under it; with its picture uploaded in the same request (``files[0]``,
        ``chart.png``)."""
        sender, client = self.ctx.discord_sender, self.ctx.discord_client
        assert sender is not None and client is not None  # ready() was checked
        target = client.get_partial_messageable(int(sub.chat_id))
        picture = await reading_picture(self.ctx, sub, moment)
        shown = reading_message(self.ctx, sub, text, self.channel, moment, picture)
        outcome: SendOutcome = await sender.send(
            target,
            shown.text,
            target_id=sub.chat_id,
            before_request=before_request,
            view=sender.buttons(button_rows(shown)),
            file=shown.picture,
            filename=pictures.FILENAME,
            description=shown.alt,
        )
        return outcome


__all__ = ["DiscordTransport"]
