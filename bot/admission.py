"""Per-user and per-chat admission limits: one user cannot hold the bot for everybody else.

Every command a transport receives is checked *before* any work is done for it (no database access, no
chart): two token buckets must each hold a token, the user's (``platform:user_id``) and the chat's
(``platform:chat_id``, so a group of many users is bounded too).

- admitted: both buckets give a token and the command runs;
- refused, and nothing was refused in that chat for :attr:`Limits.flood_quiet` seconds (a new flood):
  :attr:`Verdict.WARN` — the transport answers one polite localized ``bot.error.slow_down`` and runs nothing;
- refused during a flood (a refusal in the same chat less than ``flood_quiet`` seconds before):
  :attr:`Verdict.DROP` — dropped silently. A flood gets exactly one "slow down" **per chat**, not one per
  member: a group of 1,000 members each sending a command is one flood of that group, and its one warning
  is all it adds to the group's send budget (20 messages a minute).

Defaults (:class:`Limits`): a user may send a burst of 10 commands and then one per second; a chat a burst
of 30 and then two per second. A person typing commands never meets them (replies to one chat are paced at
one message per second anyway); a script sending 1,000 commands gets ~10 answers and one "slow down",
and everybody else keeps their normal latency. Replies the admitted commands produce wait for the chat's
send budget in the sender's queue for that chat, bounded in depth and age
(:class:`bot.telegram.sender.TelegramSender`), never in the transport's intake.

State is bounded: at most :attr:`Limits.max_keys` buckets are kept, the least recently used dropped first
(a dropped key starts again with a full bucket).
"""

from __future__ import annotations

import enum
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final


class Verdict(enum.Enum):
    ADMIT = "admit"
    WARN = "warn"  # refused; answer one "slow down"
    DROP = "drop"  # refused; already warned: answer nothing


@dataclass(frozen=True)
class Limits:
    user_burst: float = 10.0
    user_per_second: float = 1.0
    chat_burst: float = 30.0
    chat_per_second: float = 2.0
    flood_quiet: float = 30.0  # seconds without a refusal in a chat that end its flood (next one: warned)
    max_keys: int = 20_000


DEFAULT_LIMITS: Final = Limits()


class _Buckets:
    """Token buckets by key, least recently used dropped beyond ``max_keys``."""

    def __init__(self, burst: float, per_second: float, max_keys: int) -> None:
        self.burst = burst
        self.rate = per_second
        self.max_keys = max_keys
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key → (tokens, at)

    def tokens(self, key: str, now: float) -> float:
        tokens, at = self._state.get(key, (self.burst, now))
        return min(self.burst, tokens + max(0.0, now - at) * self.rate)

    def take(self, key: str, now: float) -> None:
        self._state[key] = (self.tokens(key, now) - 1.0, now)
        self._state.move_to_end(key)
        while len(self._state) > self.max_keys:
            self._state.popitem(last=False)

    def __len__(self) -> int:
        return len(self._state)


class Admission:
    """The admission check shared by the transports of one application."""

    def __init__(self, limits: Limits = DEFAULT_LIMITS, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self._clock = clock
        self._users = _Buckets(limits.user_burst, limits.user_per_second, limits.max_keys)
        self._chats = _Buckets(limits.chat_burst, limits.chat_per_second, limits.max_keys)
        self._refused: OrderedDict[str, float] = OrderedDict()  # chat key → its latest refusal
        self.admitted = 0
        self.warned = 0
        self.dropped = 0

    def check(self, user_key: str, chat_key: str) -> Verdict:
        now = self._clock()
        if self._users.tokens(user_key, now) >= 1.0 and self._chats.tokens(chat_key, now) >= 1.0:
            self._users.take(user_key, now)
            self._chats.take(chat_key, now)
            self.admitted += 1
            return Verdict.ADMIT
        last = self._refused.pop(chat_key, None)
        self._refused[chat_key] = now
        while len(self._refused) > self.limits.max_keys:
            self._refused.popitem(last=False)
        if last is not None and now - last < self.limits.flood_quiet:
            self.dropped += 1
            return Verdict.DROP
        self.warned += 1
        return Verdict.WARN

    def keys(self) -> int:
        """Buckets held (bounded by ``2 * max_keys``)."""
        return len(self._users) + len(self._chats)


__all__ = ["DEFAULT_LIMITS", "Admission", "Limits", "Verdict"]
