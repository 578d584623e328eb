"""A fake Discord gateway (websocket) + REST server (one aiohttp app on 127.0.0.1) for the real discord.py.

Usage::

    async with FakeDiscord() as dc:
        # DISCORD_API_BASE_URL = dc.api_base_url   ("http://127.0.0.1:PORT/api/v10" → discord.http.Route.BASE)
        # DISCORD_GATEWAY_URL  = dc.gateway_url    ("ws://127.0.0.1:PORT/gateway" → DEFAULT_GATEWAY)
        client = build_client(ctx, dc.token, dc.api_base_url, dc.gateway_url)   # then start it
        await dc.wait_ready()                                   # IDENTIFY received, READY + GUILD_CREATE sent
        inter = await dc.slash("shensha", {"day": "甲子"}, user_id=dc.user_id)  # INTERACTION_CREATE
        [msg] = await dc.wait_followups(inter, 1)               # follow-up messages (webhook)
        inter.acked_at - inter.created_at                       # seconds to the first response (defer)

Gateway (``/gateway``, text JSON frames; the zlib-stream query parameter is accepted and ignored since only
binary frames are decompressed by the client)
    HELLO (op 10, ``heartbeat_interval`` = :attr:`heartbeat_interval_ms`) → IDENTIFY (op 2; wrong token →
    close 4004) → READY (``v``, ``user``, unavailable ``guilds``, ``session_id``, ``resume_gateway_url`` = this
    server, ``application{id,flags}``, ``shard``) → a full GUILD_CREATE per guild (roles incl. @everyone = the
    guild id, :attr:`text_channels` text channels, the bot member). HEARTBEAT (op 1) → HEARTBEAT_ACK (op 11)
    after :attr:`heartbeat_rtt`, counted in :attr:`heartbeats` and logged in :attr:`heartbeat_log` (when,
    the client's ``d``, the sequence sent by then); RESUME (op 6) → RESUMED. ``dispatch(event, data)`` sends
    any DISPATCH (increasing ``s``).
    Sharding as the real gateway does it: IDENTIFY's ``shard: [shard_id, num_shards]`` (absent = ``[0, 1]``)
    is echoed in READY; a guild belongs to shard ``(guild_id >> 22) % num_shards`` and only that shard's
    session gets its GUILD_CREATE and its events (``dispatch`` routes by ``guild_id``; events without one,
    such as DMs, go to shard 0); a shard id ≥ ``num_shards`` is closed with 4010 "Invalid shard".
    :attr:`shards_identified` lists every ``[shard_id, num_shards]`` identified (:attr:`identified_at`: with
    the ``time.monotonic()`` of each IDENTIFY); ``GET /gateway/bot``
    recommends :attr:`recommended_shards`.

REST (prefix ``/api/v10``; JSON bodies; responses are ``Content-Type: application/json`` exactly, which
discord.py requires; every response carries rate-limit headers, see below)
    GET /users/@me, GET /oauth2/applications/@me, GET /gateway (``url`` only), GET /gateway/bot (``url``,
    ``shards`` = :attr:`recommended_shards`, ``session_start_limit``),
    GET|PUT /applications/{app}/commands and /applications/{app}/guilds/{guild}/commands (PUT = bulk
    overwrite, recorded in :attr:`synced` with the time in :attr:`sync_calls`),
    POST /channels/{id}/messages, POST /users/@me/channels (DM channel), GET /channels/{id},
    POST /interactions/{id}/{token}/callback (``?with_response`` → ``{"interaction", "resource"}``, else 204),
    POST /webhooks/{app}/{token} (follow-ups), GET|PATCH|DELETE /webhooks/{app}/{token}/messages/@original.
    Anything else → 404 naming the route.

Discord's rules enforced
    Interaction ack deadline :attr:`ack_deadline` (default 3.0 s; shrink it in tests) → 404 code 10062
    "Unknown interaction"; a second ack → 400 code 40060; content > 2000, > 10 embeds, embed description >
    4096, title > 256, > 6000 embed characters → 400 code 50035 "Invalid Form Body"; empty message → 400 50006.
    Rate limits: a bucket per route and major parameter of :attr:`bucket_limit` requests per
    :attr:`bucket_window` seconds, announced with ``X-RateLimit-Limit/Remaining/Reset/Reset-After/Bucket``;
    exceeding it → 429 with ``retry_after`` (and ``Via``, which discord.py needs to honour a 429). An
    interaction's callback and follow-ups count against that interaction's buckets alone (docs "Rate
    Limits": interaction endpoints are not bound to the global limit), so many interactions of one channel
    never wait for each other.

Uploads (multipart/form-data: ``payload_json`` and ``files[n]`` parts, as discord.py sends a ``discord.File``)
    The ``attachments`` array of the payload names each upload by its index (``{"id": 0, "filename": …}``)
    and, on an edit, keeps an attachment the message has by its id; an edit without ``attachments`` keeps
    them all, ``[]`` removes them (UPDATE_MESSAGE callbacks, type 7). Each new attachment gets a snowflake,
    ``filename``, ``size``, ``url``, and ``width``/``height``/``content_type`` for a picture; the bytes are in
    :attr:`uploaded` by attachment id. An embed image ``attachment://name`` is answered with that
    attachment's URL. More than 10 files → 400 50035; a file over :attr:`upload_limit` → 413 40005; an entry
    naming neither an upload nor a kept attachment → 400 50035. An entry's ``description`` (alt text, at most
    1,024 characters, else 400 50035) is kept on the attachment, as Discord keeps it; with
    :attr:`require_alt_text` (the tests' ``dc`` fixture) a picture without one is refused (400 50035).

Commands (the bulk overwrite, :meth:`_validate_command`)
    Names and their ``name_localizations`` as Discord's regex ``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``
    and lowercase; descriptions and ``description_localizations`` 1–100; locales of Discord's list
    (:data:`LOCALES`); option names unique per locale; ``integration_types`` ⊆ {0, 1} and ``contexts`` ⊆
    {0, 1, 2}: otherwise 400 50035. Interactions come only from where a registered command is offered:
    ``slash(…, where="dm" | "private" | "guild", install="guild" | "user")`` (:meth:`interaction_payload`),
    with ``context`` and ``authorizing_integration_owners`` as Discord sends them; the bot may not post
    to the group DM or to the server it never joined (403 50001), only answer the interaction.

Fault injection
    ``user_message(content, user_id=None, dm=False)`` dispatches MESSAGE_CREATE (for prefix commands);
    ``press(message, custom_id, user_id=…, dm=…)`` dispatches a button press (INTERACTION_CREATE type 3 with
    the message); its answer is a callback of type 7 UPDATE_MESSAGE (the message edited: recorded with
    ``via="update"``), 6, or 4; ``wait_acked(inter)`` waits for it;
    ``forbid_channel(channel_id, code=50007)`` — 403 "Cannot send messages to this user" on messages to it;
    ``rate_limit_next(retry_after, times=1, global_=False, scope=None)`` — the next message posts get a
    429 with Discord's body and headers (per-route ``user``/``shared``, or global);
    ``fail(method, path_regex, status, payload, times=1)`` — generic.

Recording
    :attr:`requests` — every REST request (:class:`Request`: method, path, query, json, at, status);
    :attr:`messages` — every accepted message (channel posts and follow-ups) as dicts with ``channel_id``,
    ``content``, ``embeds``, ``allowed_mentions``, ``flags``, ``via`` ("channel" | "followup" | "callback");
    :attr:`interactions` — :class:`Interaction` records (payload, created_at, acked_at, ack_type, followups);
    ``await wait_for_messages(count, timeout, predicate)``, ``await wait_followups(inter, count, timeout)``,
    ``await wait_ready(timeout)``; :attr:`identify` — the last IDENTIFY payload.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes._server import LoopbackServer

CONTENT_LIMIT = 2000
API_PREFIX = "/api/v10"
ATTACHMENT_DESCRIPTION_LIMIT = 1024  # an attachment's description (alt text)
# Discord's locales (docs "Reference", "Locales"): the keys of name_localizations / description_localizations
LOCALES = frozenset(
    {"id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl",
     "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW",
     "ko"}
)  # fmt: skip
# interaction context types (``context``) and installation types (``authorizing_integration_owners`` keys)
CONTEXTS = {"guild": 0, "dm": 1, "private": 2}
INSTALLS = {"guild": 0, "user": 1}

_snowflakes = itertools.count(1_100_000_000_000_000_000)


def snowflake() -> str:
    return str(next(_snowflakes))


def _name_char(ch: str) -> bool:
    """One character of ``[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]`` (Python's ``re`` has no ``\\p``: the
    general category for letters and numbers, the Unicode blocks of the two scripts for their marks)."""
    if ch in "-_" or unicodedata.category(ch)[0] in "LN":
        return True
    code = ord(ch)
    return 0x0900 <= code <= 0x097F or 0xA8E0 <= code <= 0xA8FF or 0x0E00 <= code <= 0x0E7F


def valid_name(name: str) -> bool:
    """A command or option name (or a localization of one) as Discord accepts it: 1–32 characters of
    :func:`_name_char`, lowercase wherever a character has a lowercase form."""
    return 1 <= len(name) <= 32 and all(_name_char(ch) for ch in name) and name == name.lower()


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    json: Any
    at: float
    status: int = 200
    uploads: dict[int, tuple[str, bytes]] = field(default_factory=dict)  # files[n] → (filename, bytes)


@dataclass
class Interaction:
    payload: dict[str, Any]
    created_at: float
    acked_at: float | None = None
    ack_type: int | None = None
    followups: list[dict[str, Any]] = field(default_factory=list)
    original: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None  # an autocomplete answer (callback type 8)

    @property
    def id(self) -> str:
        return str(self.payload["id"])

    @property
    def token(self) -> str:
        return str(self.payload["token"])


@dataclass
class _Fail:
    method: str
    path: re.Pattern[str]
    status: int
    payload: dict[str, Any]
    times: int | None
    headers: dict[str, str] = field(default_factory=dict)


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class FakeDiscord(LoopbackServer):
    token: str = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GfAkE1.fake-discord-token-for-tests-only_0123"
    host: str = "127.0.0.1"
    ack_deadline: float = 3.0
    upload_limit: int = 10 * 1024 * 1024  # bytes per file (the default upload limit of a bot)
    heartbeat_interval_ms: int = 41250
    # a HEARTBEAT_ACK leaves after a network round trip, as the real gateway's does: discord.py's keep-alive
    # thread records a heartbeat as sent only once the loop has written it, and an ACK read before that
    # (an instant loopback answer) is measured from the previous heartbeat — a whole interval of false
    # "Can't keep up, shard ID 0 websocket is 41.3s behind"
    heartbeat_rtt: float = 0.02
    # a test's own rule, not Discord's (which allows a picture without one): every uploaded picture must carry
    # its description (alt text), else 400 50035 — the ``dc`` fixture turns it on for every end-to-end test
    require_alt_text: bool = False
    bucket_limit: int = 5
    bucket_window: float = 1.0
    guild_locale: str = "ko"
    recommended_shards: int = 1
    text_channels: int = 1  # the guild's text channels: channel_id first, then more (``slash(channel_id=…)``)

    def __post_init__(self) -> None:
        self.application_id = snowflake()
        self.bot_user_id = self.application_id
        self.guild_id = snowflake()
        self.channel_id = snowflake()
        self.channel_ids = [self.channel_id] + [snowflake() for _ in range(self.text_channels - 1)]
        self.owner_id = snowflake()
        self.user_id = snowflake()  # a default human user
        self.friend_id = snowflake()  # the user's friend in the group DM (``where="private"``)
        self.private_channel_id = snowflake()  # that group DM
        self.foreign_guild_id = (
            snowflake()
        )  # a server the bot never joined (a user install's, ``install="user"``)
        self.foreign_channel_id = snowflake()
        self.requests: list[Request] = []
        self.messages: list[dict[str, Any]] = []
        self.uploaded: dict[str, bytes] = {}  # attachment id → the bytes uploaded (files[n] parts)
        self.interactions: list[Interaction] = []
        self.synced: dict[str, list[dict[str, Any]]] = {}  # "global" or guild id → commands
        self.sync_calls: list[tuple[str, float]] = []
        self.identify: dict[str, Any] | None = None
        self.heartbeats = 0
        # every HEARTBEAT (op 1) received: (time.monotonic(), its ``d`` — the last sequence the client
        # read —, the sequence this server had sent by then)
        self.heartbeat_log: list[tuple[float, int | None, int]] = []
        self.sessions: list[web.WebSocketResponse] = []
        self.session_shards: dict[web.WebSocketResponse, tuple[int, int]] = {}  # session → [id, count]
        self.shards_identified: list[tuple[int, int]] = []
        self.identified_at: list[tuple[int, float]] = []  # (shard id, time.monotonic() of its IDENTIFY)
        self._session_ids: dict[str, tuple[int, int]] = {}  # session_id → its shard, for RESUME
        self._seq = 0
        self._fails: list[_Fail] = []
        # the bot is no member of the group DM or of the other server: it may not post there (50001)
        self._forbidden: dict[str, int] = {self.private_channel_id: 50001, self.foreign_channel_id: 50001}
        self._buckets: dict[str, tuple[float, int]] = {}
        self._changed = asyncio.Condition()
        self._ready = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.rate_limited = 0  # 429s served

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> FakeDiscord:
        app = web.Application()
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", API_PREFIX + "/{path:.*}", self._rest)
        return await self._serve(app)

    async def close(self) -> None:
        for ws in list(self.sessions):
            await ws.close()
        await super().close()

    @property
    def api_base_url(self) -> str:
        return f"http://{self.host}:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    # ------------------------------------------------------------------ objects
    def bot_user(self) -> dict[str, Any]:
        return {
            "id": self.bot_user_id,
            "username": "sikpan",
            "discriminator": "0",
            "global_name": "sikpan",
            "avatar": None,
            "bot": True,
            "flags": 0,
            "verified": True,
            "mfa_enabled": False,
        }

    def user(self, user_id: str | int | None = None, name: str = "tester") -> dict[str, Any]:
        return {
            "id": str(user_id or self.user_id),
            "username": name,
            "discriminator": "0",
            "global_name": name,
            "avatar": None,
            "public_flags": 0,
        }

    def channel(self, channel_id: str | None = None) -> dict[str, Any]:
        """A text channel of the guild (:attr:`channel_id`, the first of :attr:`channel_ids`, by default)."""
        channel_id = channel_id or self.channel_id
        position = self.channel_ids.index(channel_id)
        return {
            "id": channel_id,
            "type": 0,
            "guild_id": self.guild_id,
            "name": "general" if position == 0 else f"general-{position + 1}",
            "position": position,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "rate_limit_per_user": 0,
            "last_message_id": None,
            "flags": 0,
        }

    def guild(self) -> dict[str, Any]:
        return {
            "id": self.guild_id,
            "name": "sikpan test guild",
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": self.owner_id,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [
                {
                    "id": self.guild_id,
                    "name": "@everyone",
                    "permissions": "2248473465835073",
                    "position": 0,
                    "color": 0,
                    "hoist": False,
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            ],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.guild_locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": _now_iso(),
            "large": False,
            "unavailable": False,
            "member_count": 2,
            "voice_states": [],
            "members": [
                {
                    "user": self.bot_user(),
                    "roles": [],
                    "joined_at": _now_iso(),
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                }
            ],
            "channels": [self.channel(c) for c in self.channel_ids],
            "threads": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def _attachments(
        self,
        channel_id: str,
        body: dict[str, Any],
        uploads: dict[int, tuple[str, bytes]],
        existing: list[dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        """The message's attachments after a create or an edit (Discord's ``attachments`` array semantics):
        an entry ``{"id": n}`` with a small integer names the upload ``files[n]``; an entry with the id of an
        attachment the message has keeps it; on an edit without ``attachments`` the old ones stay, with
        ``[]`` they are all removed. A file over :attr:`upload_limit` → 413 40005; an entry naming neither an
        upload nor a kept attachment → 400 50035."""
        if "attachments" not in body:
            if existing is not None:
                return existing
            wanted = [{"id": n, "filename": name} for n, (name, _) in sorted(uploads.items())]
        else:
            wanted = list(body.get("attachments") or [])
        old = {str(a["id"]): a for a in existing or []}
        out: list[dict[str, Any]] = []
        for entry in wanted:
            ident = str(entry.get("id"))
            if ident in old:
                out.append(old[ident])
                continue
            if not ident.isdigit() or int(ident) not in uploads:
                raise _DiscordError(
                    400, 50035, "Invalid Form Body", errors={"attachments": "UNKNOWN_ATTACHMENT"}
                )
            filename, data = uploads[int(ident)]
            if len(data) > self.upload_limit:
                raise _DiscordError(413, 40005, "Request entity too large")
            filename = str(entry.get("filename") or filename)
            attachment: dict[str, Any] = {
                "id": snowflake(),
                "filename": filename,
                "size": len(data),
                "url": f"http://{self.host}:{self.port}/attachments/{channel_id}/{filename}",
                "proxy_url": f"http://{self.host}:{self.port}/attachments/{channel_id}/{filename}",
            }
            description = entry.get("description")
            if description is not None:
                if not isinstance(description, str) or len(description) > ATTACHMENT_DESCRIPTION_LIMIT:
                    raise _DiscordError(
                        400,
                        50035,
                        "Invalid Form Body",
                        errors={"attachments": {"description": "BASE_TYPE_MAX_LENGTH"}},
                    )
                attachment["description"] = description
            size = _image_size(data)
            if size is not None:
                attachment.update(width=size[0], height=size[1], content_type="image/png")
                if self.require_alt_text and not attachment.get("description"):
                    raise _DiscordError(
                        400,
                        50035,
                        "Invalid Form Body",
                        errors={"attachments": {"description": "REQUIRED (test)"}},
                    )
            self.uploaded[attachment["id"]] = data
            out.append(attachment)
        return out

    @staticmethod
    def _resolve_images(
        embeds: list[dict[str, Any]], attachments: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """``attachment://name`` in an embed's image becomes that attachment's URL (with its size), as
        Discord answers it."""
        by_name = {a["filename"]: a for a in attachments}
        out = []
        for embed in embeds:
            image = embed.get("image") or {}
            url = str(image.get("url") or "")
            if url.startswith("attachment://") and url[len("attachment://") :] in by_name:
                a = by_name[url[len("attachment://") :]]
                embed = {**embed, "image": {"url": a["url"], "proxy_url": a["proxy_url"],
                                            "width": a.get("width"), "height": a.get("height")}}  # fmt: skip
            out.append(embed)
        return out

    def _message(self, channel_id: str, body: dict[str, Any], **extra: Any) -> dict[str, Any]:
        uploads = extra.pop("uploads", {})
        attachments = self._attachments(str(channel_id), body, uploads)
        return {
            "id": snowflake(),
            "channel_id": str(channel_id),
            "author": self.bot_user(),
            "content": body.get("content") or "",
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": attachments,
            "embeds": self._resolve_images(body.get("embeds") or [], attachments),
            "components": body.get("components") or [],
            "pinned": False,
            "type": 0,
            "flags": int(body.get("flags") or 0),
            **extra,
        }

    # ------------------------------------------------------------------ injection
    def forbid_channel(self, channel_id: str | int, code: int = 50007) -> None:
        self._forbidden[str(channel_id)] = code

    def fail(
        self,
        method: str,
        path_regex: str,
        status: int,
        payload: dict[str, Any],
        times: int | None = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._fails.append(_Fail(method, re.compile(path_regex), status, payload, times, headers or {}))

    def rate_limit_next(
        self, retry_after: float, times: int = 1, global_: bool = False, scope: str | None = None
    ) -> None:
        """The next ``times`` message posts (channel messages and follow-ups) get a 429 as Discord answers it
        (docs "Rate Limits", "Exceeding A Rate Limit"): the body ``{"message", "retry_after", "global"}``;
        ``Retry-After`` in whole seconds (rounded up) and ``Via`` (Cloudflare's, which discord.py requires
        to honour a 429); a per-route limit (``scope`` ``user`` or ``shared``) with its
        ``X-RateLimit-Limit/Remaining: 0/Reset/Reset-After/Bucket/Scope``, a global one (``global_``) with
        ``X-RateLimit-Global: true`` and ``X-RateLimit-Scope: global`` only."""
        payload = {"message": "You are being rate limited.", "retry_after": retry_after, "global": global_}
        headers = {"Retry-After": str(math.ceil(retry_after)), "Via": "1.1 google"}
        if global_:
            headers |= {"X-RateLimit-Global": "true", "X-RateLimit-Scope": "global"}
        else:
            headers |= {
                "X-RateLimit-Limit": str(self.bucket_limit),
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{retry_after:.3f}",
                "X-RateLimit-Bucket": "fake-messages-bucket",
                "X-RateLimit-Scope": scope or "user",
            }
        self.fail("POST", r"^/(channels/\d+/messages|webhooks/.*)$", 429, payload, times, headers)

    @staticmethod
    def shard_of(guild_id: str | int | None, num_shards: int) -> int:
        """The shard a guild's events go to (Discord: ``(guild_id >> 22) % num_shards``; no guild: 0)."""
        return (int(guild_id) >> 22) % num_shards if guild_id is not None else 0

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        guild_id = data.get("guild_id") if isinstance(data, dict) else None
        for ws in list(self.sessions):
            shard_id, count = self.session_shards.get(ws, (0, 1))
            if self.shard_of(guild_id, count) != shard_id:
                continue  # another shard's guild
            self._seq += 1
            await ws.send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))

    def interaction_payload(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        user_id: str | int | None = None,
        locale: str = "ko",
        dm: bool = False,
        where: str | None = None,
        install: str | None = None,
        permissions: str = "2248473465835073",
        command_id: str | None = None,
        channel_id: str | None = None,
    ) -> dict[str, Any]:
        """An interaction as Discord sends it from ``where`` — ``"guild"`` (the default), ``"dm"`` (the bot's
        DM with the user; also ``dm=True``) or ``"private"`` (a group DM the bot is not in) — for an app
        installed by ``install``: ``"guild"`` (the default in a guild: the fake's guild, where the bot is) or
        ``"user"`` (the default in DMs; in a guild it is :attr:`foreign_guild_id`, a server the bot never
        joined). ``context`` and ``authorizing_integration_owners`` say so, as Discord's do (docs
        "Interactions": a guild install in a guild ``{"0": guild id}``, in the bot's DM ``{"0": "0"}``; a user
        install ``{"1": user id}``). Discord offers a command only in the contexts and installs it was
        registered for: for a registered command anything else raises ``ValueError`` (``contexts`` absent =
        every context; ``integration_types`` absent = guild install only). ``channel_id``: which of the
        guild's :attr:`channel_ids` (a guild install in the guild; default :attr:`channel_id`)."""
        where = where or ("dm" if dm else "guild")
        install = install or ("guild" if where == "guild" else "user")
        if where not in CONTEXTS or install not in INSTALLS or (where == "private" and install != "user"):
            raise ValueError(f"no interaction from {where!r} for a {install!r} install")
        typed = []
        for key, value in (options or {}).items():
            kind = 4 if isinstance(value, int) and not isinstance(value, bool) else 5 if isinstance(value, bool) else 10 if isinstance(value, float) else 3  # fmt: skip
            typed.append({"name": key, "type": kind, "value": value})
        synced = {c["name"]: c for cmds in self.synced.values() for c in cmds}
        registered = synced.get(name)
        if registered is not None:
            contexts = registered.get("contexts")
            installs = registered.get("integration_types") or [0]
            if (contexts is not None and CONTEXTS[where] not in contexts) or INSTALLS[
                install
            ] not in installs:
                raise ValueError(f"Discord does not offer /{name} in {where!r} for a {install!r} install")
        data: dict[str, Any] = {
            "id": command_id or (registered or {}).get("id") or snowflake(),
            "name": name,
            "type": 1,
            "options": typed,
        }
        user = self.user(user_id)
        payload: dict[str, Any] = {
            "id": snowflake(),
            "application_id": self.application_id,
            "type": 2,
            "token": "itok-" + snowflake(),
            "version": 1,
            "locale": locale,
            "entitlements": [],
            "attachment_size_limit": 8 * 1024 * 1024,
            "app_permissions": permissions,
            "data": data,
            "context": CONTEXTS[where],
        }
        if where == "dm":
            # one DM channel per user and bot, as on Discord (and as user_says(dm=True) names it)
            dm_channel = str(int(user["id"]) + 1)
            payload.update(
                channel_id=dm_channel,
                channel={
                    "id": dm_channel,
                    "type": 1,
                    "recipients": [user],
                    "last_message_id": None,
                    "flags": 0,
                },
                user=user,
                authorizing_integration_owners={"1": str(user["id"])} if install == "user" else {"0": "0"},
            )
        elif where == "private":
            # a group DM of the user and a friend: the bot is no member (it answers through the interaction only)
            payload.update(
                channel_id=self.private_channel_id,
                channel={
                    "id": self.private_channel_id,
                    "type": 3,
                    "recipients": [user, self.user(self.friend_id, "friend")],
                    "owner_id": str(user["id"]),
                    "name": None,
                    "icon": None,
                    "last_message_id": None,
                    "flags": 0,
                },
                user=user,
                authorizing_integration_owners={"1": str(user["id"])},
                app_permissions="0",
            )
        else:
            foreign = install == "user"  # a user install: a server the bot never joined
            guild_id = self.foreign_guild_id if foreign else self.guild_id
            if channel_id is not None and (foreign or channel_id not in self.channel_ids):
                raise ValueError(f"channel {channel_id} is no text channel of the guild")
            channel = self.channel(channel_id)
            if foreign:
                channel = {**channel, "id": self.foreign_channel_id, "guild_id": guild_id}
            payload.update(
                guild_id=guild_id,
                guild_locale=self.guild_locale,
                channel_id=channel["id"],
                channel=channel,
                member={
                    "user": user,
                    "roles": [],
                    "joined_at": _now_iso(),
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                    "permissions": permissions,
                    "nick": None,
                    "avatar": None,
                    "pending": False,
                },
                authorizing_integration_owners={"1": str(user["id"])} if foreign else {"0": guild_id},
                guild={"id": guild_id, "locale": self.guild_locale, "features": []},
            )
        return payload

    async def user_message(
        self, content: str, *, user_id: str | int | None = None, dm: bool = False
    ) -> dict[str, Any]:
        """Dispatch MESSAGE_CREATE: a user typed ``content`` in the guild's text channel (or a DM)."""
        user = self.user(user_id)
        data: dict[str, Any] = {
            "id": snowflake(),
            "author": user,
            "content": content,
            "timestamp": _now_iso(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
        }
        if dm:
            data["channel_id"] = str(int(user["id"]) + 1)
        else:
            data.update(
                channel_id=self.channel_id,
                guild_id=self.guild_id,
                member={"roles": [], "joined_at": _now_iso(), "deaf": False, "mute": False, "flags": 0},
            )
        await self.dispatch("MESSAGE_CREATE", data)
        return data

    async def press(self, message: dict[str, Any], custom_id: str, **kwargs: Any) -> Interaction:
        """Dispatch INTERACTION_CREATE type 3 (MESSAGE_COMPONENT): a user pressed the button ``custom_id``
        of ``message`` (a message dict the bot sent, e.g. a follow-up); ``kwargs`` as :meth:`slash`."""
        payload = self.interaction_payload("-", None, **kwargs)
        payload["type"] = 3
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        payload["message"] = {**message, "channel_id": payload["channel_id"]}
        inter = Interaction(payload, time.monotonic())
        self.interactions.append(inter)
        await self.dispatch("INTERACTION_CREATE", inter.payload)
        return inter

    async def autocomplete(
        self, name: str, options: dict[str, Any], focused: str, **kwargs: Any
    ) -> Interaction:
        """Dispatch INTERACTION_CREATE type 4 (APPLICATION_COMMAND_AUTOCOMPLETE) for ``/name`` with the
        option ``focused`` being typed; the answer is a callback of type 8 whose ``data.choices`` (at most
        25, names and values 1–100 characters) are kept in :attr:`Interaction.choices`."""
        payload = self.interaction_payload(name, options, **kwargs)
        payload["type"] = 4
        for option in payload["data"]["options"]:
            if option["name"] == focused:
                option["focused"] = True
        inter = Interaction(payload, time.monotonic())
        self.interactions.append(inter)
        await self.dispatch("INTERACTION_CREATE", inter.payload)
        return inter

    async def wait_acked(self, inter: Interaction, timeout: float = 5.0) -> Interaction:
        await self._wait(lambda: inter.acked_at is not None, timeout, "an interaction response")
        return inter

    async def slash(self, name: str, options: dict[str, Any] | None = None, **kwargs: Any) -> Interaction:
        """Dispatch INTERACTION_CREATE for ``/name options`` (as Discord does when a user runs it)."""
        inter = Interaction(self.interaction_payload(name, options, **kwargs), time.monotonic())
        self.interactions.append(inter)
        await self.dispatch("INTERACTION_CREATE", inter.payload)
        return inter

    # ------------------------------------------------------------------ waiting
    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def _wait(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        async def waiter() -> None:
            async with self._changed:
                await self._changed.wait_for(predicate)

        try:
            await asyncio.wait_for(waiter(), timeout)
        except TimeoutError:
            raise TimeoutError(f"{what} within {timeout}s") from None

    async def wait_ready(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self._ready.wait(), timeout)

    async def wait_for_messages(
        self, count: int = 1, timeout: float = 5.0, predicate: Callable[[dict[str, Any]], bool] | None = None
    ) -> list[dict[str, Any]]:
        def found() -> list[dict[str, Any]]:
            return [m for m in self.messages if predicate is None or predicate(m)]

        await self._wait(lambda: len(found()) >= count, timeout, f"{count} messages")
        return found()

    async def wait_followups(
        self, inter: Interaction, count: int = 1, timeout: float = 5.0
    ) -> list[dict[str, Any]]:
        await self._wait(lambda: len(inter.followups) >= count, timeout, f"{count} follow-ups")
        return inter.followups

    async def wait_synced(self, timeout: float = 10.0) -> list[dict[str, Any]]:
        await self._wait(lambda: bool(self.sync_calls), timeout, "a command sync")
        return self.synced.get("global", [])

    # ------------------------------------------------------------------ gateway
    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}}))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                if op == 1:
                    self.heartbeats += 1
                    self.heartbeat_log.append((time.monotonic(), frame.get("d"), self._seq))
                    await asyncio.sleep(self.heartbeat_rtt)
                    await ws.send_str(json.dumps({"op": 11}))
                    await self._notify()
                elif op == 2:
                    self.identify = frame["d"]
                    if frame["d"].get("token") not in (self.token, f"Bot {self.token}"):
                        await ws.close(code=4004, message=b"Authentication failed.")
                        break
                    shard = frame["d"].get("shard") or [0, 1]
                    shard_id, count = int(shard[0]), int(shard[1])
                    if not 0 <= shard_id < count:
                        await ws.close(code=4010, message=b"Invalid shard.")
                        break
                    self.shards_identified.append((shard_id, count))
                    self.identified_at.append((shard_id, time.monotonic()))
                    self.session_shards[ws] = (shard_id, count)
                    self.sessions.append(ws)
                    await self._send_ready(ws, shard_id, count)
                elif op == 6:
                    resumed = self._session_ids.get(str(frame.get("d", {}).get("session_id")))
                    self.session_shards[ws] = resumed or (0, 1)
                    self.sessions.append(ws)
                    self._seq += 1
                    await ws.send_str(json.dumps({"op": 0, "t": "RESUMED", "s": self._seq, "d": {}}))
        finally:
            if ws in self.sessions:
                self.sessions.remove(ws)
            self.session_shards.pop(ws, None)
        return ws

    async def _send_ready(self, ws: web.WebSocketResponse, shard_id: int = 0, count: int = 1) -> None:
        mine = self.shard_of(self.guild_id, count) == shard_id
        session_id = "session-" + snowflake()
        self._session_ids[session_id] = (shard_id, count)
        ready = {
            "v": 10,
            "user": self.bot_user(),
            "guilds": [{"id": self.guild_id, "unavailable": True}] if mine else [],
            "session_id": session_id,
            "resume_gateway_url": self.gateway_url,
            "shard": [shard_id, count],
            "application": {"id": self.application_id, "flags": 0},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
        }
        events = [("READY", ready), ("GUILD_CREATE", self.guild())] if mine else [("READY", ready)]
        for event, data in events:
            self._seq += 1
            await ws.send_str(json.dumps({"op": 0, "t": event, "s": self._seq, "d": data}))
        self._ready.set()
        await self._notify()

    # ------------------------------------------------------------------ REST
    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> web.Response:
        response = web.Response(status=status, body=json.dumps(payload).encode(), headers=headers or {})
        response.headers["Content-Type"] = "application/json"  # exactly; discord.py checks equality
        return response

    def _ratelimit_headers(self, key: str) -> tuple[bool, dict[str, str]]:
        """Fixed windows, as Discord announces them: ``limit`` requests until the bucket resets."""
        now = time.monotonic()
        start, count = self._buckets.get(key, (now, 0))
        if now - start >= self.bucket_window - 0.01:  # ~network latency of grace, as a remote server has
            start, count = now, 0
        over = count >= self.bucket_limit
        if not over:
            count += 1
        self._buckets[key] = (start, count)
        reset_after = max(0.001, math.ceil((start + self.bucket_window - now) * 1000) / 1000)
        headers = {
            "X-RateLimit-Limit": str(self.bucket_limit),
            "X-RateLimit-Remaining": str(max(0, self.bucket_limit - count)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": re.sub(r"\d{6,}", "id", key.split("|")[0]).replace(" ", "_"),
        }
        if over:
            headers["Retry-After"] = str(math.ceil(reset_after))  # whole seconds, as Discord sends it
            headers["Via"] = "1.1 google"
            headers["X-RateLimit-Scope"] = "user"
        return over, headers

    @staticmethod
    def _bucket_key(method: str, path: str) -> str:
        """The bucket a request counts against: its route (ids and tokens as placeholders, which
        ``X-RateLimit-Bucket`` names) and its major parameter (docs "Rate Limits": ``channel_id``,
        ``guild_id``, ``webhook_id`` with its token). An interaction's callback is keyed by the interaction
        and its token, as a follow-up is by ``webhooks/{application}/{token}``: each interaction has limits
        of its own, and neither counts against another interaction's or the bot's (interaction endpoints are
        not bound to the global rate limit)."""
        m = re.match(r"^(channels|guilds|webhooks|interactions)/(\d+)(?:/([^/]+))?", path)
        major = f"{m.group(1)}/{m.group(2)}/{m.group(3) or ''}" if m else ""
        route = re.sub(r"\d{6,}", "{id}", path)
        route = re.sub(r"^(webhooks/\{id\}/)[^/]+", r"\1{token}", route)
        route = re.sub(r"^(interactions/\{id\}/)[^/]+", r"\1{token}", route)
        return f"{method} {route}|{major}"

    async def _rest(self, request: web.Request) -> web.Response:
        path = request.match_info["path"].strip("/")
        body: Any = None
        uploads: dict[int, tuple[str, bytes]] = {}
        if request.can_read_body:
            if request.content_type == "multipart/form-data":
                # payload_json + files[n] parts, as discord.py (and Discord's docs) send an upload
                reader = await request.multipart()
                body = {}
                async for part in reader:
                    name = part.name or ""  # type: ignore[union-attr]
                    data = await part.read()  # type: ignore[union-attr]
                    if name == "payload_json":
                        body = json.loads(data.decode() or "{}")
                    elif (m := re.fullmatch(r"files\[(\d+)\]", name)) is not None:
                        uploads[int(m.group(1))] = (part.filename or "", bytes(data))  # type: ignore[union-attr]
                    else:
                        raise _DiscordError(400, 50035, "Invalid Form Body", errors={name: "UNKNOWN_FIELD"})
            else:
                raw = await request.read()
                body = json.loads(raw) if raw else None
        req = Request(request.method, path, dict(request.query), body, time.monotonic(), uploads=uploads)
        self.requests.append(req)
        try:
            response = await self._route(request, req)
        except _DiscordError as err:
            response = self._json(err.status, {"message": err.message, "code": err.code, **err.extra})
        req.status = response.status
        await self._notify()
        return response

    def _is_authorized(self, request: web.Request, path: str) -> bool:
        if path.startswith(("webhooks/", "interactions/")):
            return True  # authorized by the interaction token in the path
        return request.headers.get("Authorization") == f"Bot {self.token}"

    async def _route(self, request: web.Request, req: Request) -> web.Response:
        method, path, body = req.method, req.path, req.json
        if not self._is_authorized(request, path):
            raise _DiscordError(401, 0, "401: Unauthorized")
        for rule in self._fails:
            if (
                rule.method == method
                and rule.path.search("/" + path)
                and (rule.times is None or rule.times > 0)
            ):
                if rule.times is not None:
                    rule.times -= 1
                if rule.status == 429:
                    self.rate_limited += 1
                return self._json(rule.status, rule.payload, rule.headers)
        over, headers = self._ratelimit_headers(self._bucket_key(method, path))
        if over:
            self.rate_limited += 1
            retry = float(headers["X-RateLimit-Reset-After"])
            payload = {"message": "You are being rate limited.", "retry_after": retry, "global": False}
            return self._json(429, payload, headers)

        def ok(payload: Any, status: int = 200) -> web.Response:
            if status == 204:
                response = web.Response(status=204, headers=headers)
                return response
            return self._json(status, payload, headers)

        if method == "GET" and path == "users/@me":
            return ok(self.bot_user())
        if method == "GET" and path == "oauth2/applications/@me":
            return ok(
                {
                    "id": self.application_id,
                    "name": "sikpan",
                    "description": "",
                    "icon": None,
                    "bot_public": True,
                    "bot_require_code_grant": False,
                    "owner": self.user(self.owner_id, "owner"),
                    "verify_key": "0" * 64,
                    "flags": 0,
                    "team": None,
                }
            )
        if method == "GET" and path == "gateway":
            return ok({"url": self.gateway_url})
        if method == "GET" and path == "gateway/bot":
            return ok(
                {
                    "url": self.gateway_url,
                    "shards": self.recommended_shards,
                    "session_start_limit": {
                        "total": 1000,
                        "remaining": 999,
                        "reset_after": 0,
                        "max_concurrency": 1,
                    },
                }
            )
        m = re.fullmatch(r"applications/(\d+)(?:/guilds/(\d+))?/commands", path)
        if m:
            scope = m.group(2) or "global"
            if method == "GET":
                return ok(self.synced.get(scope, []))
            if method == "PUT":
                commands = []
                for c in body or []:
                    self._validate_command(c)
                    commands.append({**c, "id": snowflake(), "application_id": self.application_id,
                                     "version": snowflake(), "type": c.get("type", 1)})  # fmt: skip
                self.synced[scope] = commands
                self.sync_calls.append((scope, time.monotonic()))
                return ok(commands)
        m = re.fullmatch(r"channels/(\d+)/messages", path)
        if m and method == "POST":
            channel_id = m.group(1)
            if channel_id in self._forbidden:
                code = self._forbidden[channel_id]
                raise _DiscordError(
                    403, code, "Missing Access" if code == 50001 else "Cannot send messages to this user"
                )
            self._validate_message(body or {}, req.uploads)
            message = self._message(channel_id, body or {}, uploads=req.uploads)
            self.messages.append(
                {
                    **(body or {}),
                    "channel_id": channel_id,
                    "via": "channel",
                    "id": message["id"],
                    "attachments": message["attachments"],
                    "embeds": message["embeds"],
                }  # fmt: skip
            )
            return ok(message)
        if method == "GET" and re.fullmatch(r"channels/\d+", path):
            channel_id = path.split("/")[1]
            return ok(self.channel(channel_id if channel_id in self.channel_ids else None))
        if method == "POST" and path == "users/@me/channels":
            recipient = str((body or {}).get("recipient_id"))
            channel_id = str(int(recipient) + 1)  # deterministic DM channel per user
            return ok({"id": channel_id, "type": 1, "recipients": [self.user(recipient)], "last_message_id": None,
                       "flags": 0})  # fmt: skip
        m = re.fullmatch(r"interactions/(\d+)/([^/]+)/callback", path)
        if m and method == "POST":
            return ok(
                *self._callback(m.group(1), m.group(2), body or {}, "with_response" in req.query, req.uploads)
            )
        m = re.fullmatch(r"webhooks/(\d+)/([^/]+)(/messages/@original)?", path)
        if m:
            inter = self._by_token(m.group(2))
            if inter is None or inter.acked_at is None:
                raise _DiscordError(404, 10015, "Unknown Webhook")
            if m.group(3):
                if method == "DELETE":
                    inter.original = None
                    return ok(None, 204)
                if method == "PATCH":
                    self._validate_message(body or {})
                    inter.original = self._message(inter.payload["channel_id"], body or {})
                    self.messages.append({**(body or {}), "channel_id": inter.payload["channel_id"],
                                          "via": "edit_original", "interaction": inter.id})  # fmt: skip
                    inter.followups.append(inter.original)
                return ok(inter.original or self._message(inter.payload["channel_id"], {"content": "…"}))
            if method == "POST":
                self._validate_message(body or {}, req.uploads)
                message = self._message(
                    inter.payload["channel_id"],
                    body or {},
                    webhook_id=self.application_id,
                    uploads=req.uploads,
                )
                self.messages.append({**(body or {}), "channel_id": inter.payload["channel_id"], "via": "followup",
                                      "interaction": inter.id, "id": message["id"],
                                      "attachments": message["attachments"], "embeds": message["embeds"]})  # fmt: skip
                inter.followups.append({**message, "allowed_mentions": (body or {}).get("allowed_mentions")})
                return ok(message if req.query.get("wait") in ("true", "True", "1") else None,
                          200 if req.query.get("wait") in ("true", "True", "1") else 204)  # fmt: skip
        raise _DiscordError(404, 0, f"404: Not Found ({method} /{path} is not implemented by the fake)")

    def _by_token(self, token: str) -> Interaction | None:
        return next((i for i in self.interactions if i.token == token), None)

    def _callback(
        self,
        inter_id: str,
        token: str,
        body: dict[str, Any],
        with_response: bool,
        uploads: dict[int, tuple[str, bytes]] | None = None,
    ) -> tuple[Any, int]:
        uploads = uploads or {}
        inter = self._by_token(token)
        if inter is None or inter.id != inter_id:
            raise _DiscordError(404, 10062, "Unknown interaction")
        now = time.monotonic()
        if inter.acked_at is not None:
            raise _DiscordError(400, 40060, "Interaction has already been acknowledged.")
        if now - inter.created_at > self.ack_deadline:
            raise _DiscordError(404, 10062, "Unknown interaction")
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        if kind in (6, 7) and inter.payload.get("type") != 3:
            raise _DiscordError(400, 40005, "Interaction response type not allowed for this interaction")
        if (kind == 8) != (inter.payload.get("type") == 4):
            raise _DiscordError(400, 40005, "Interaction response type not allowed for this interaction")
        if kind == 8:
            choices = data.get("choices") or []
            if len(choices) > 25 or any(
                not 1 <= len(c.get("name", "")) <= 100 or not 1 <= len(str(c.get("value", ""))) <= 100
                for c in choices
            ):
                raise _DiscordError(
                    400, 50035, "Invalid Form Body", errors={"choices": "BASE_TYPE_BAD_LENGTH"}
                )
            inter.acked_at, inter.ack_type, inter.choices = now, kind, choices
            return (None, 204) if not with_response else ({"interaction": {"id": inter.id, "type": 4}}, 200)
        if kind in (4, 7):
            self._validate_message(data, uploads, editing=kind == 7)
        inter.acked_at, inter.ack_type = now, kind
        flags = int(data.get("flags") or 0)
        message = self._message(inter.payload["channel_id"], data if kind == 4 else {"content": "", "flags": flags},
                                interaction_metadata={"id": inter.id, "type": 2,
                                                      "user": inter.payload.get("user") or inter.payload["member"]["user"],
                                                      "authorizing_integration_owners":
                                                          inter.payload.get("authorizing_integration_owners", {})})  # fmt: skip
        inter.original = message
        if kind == 4:
            self.messages.append({**data, "channel_id": inter.payload["channel_id"], "via": "callback",
                                  "interaction": inter.id})  # fmt: skip
        if kind == 7:  # UPDATE_MESSAGE: the component's message edited in place
            shown = inter.payload["message"]
            attachments = self._attachments(
                inter.payload["channel_id"], data, uploads, list(shown.get("attachments") or [])
            )
            edited = {**shown, **{k: v for k, v in data.items() if k in ("content", "embeds", "components")},
                      "attachments": attachments}  # fmt: skip
            edited["embeds"] = self._resolve_images(list(edited.get("embeds") or []), attachments)
            message = inter.original = edited
            self.messages.append({**data, "channel_id": inter.payload["channel_id"], "via": "update",
                                  "interaction": inter.id, "id": edited.get("id"),
                                  "attachments": attachments, "embeds": edited["embeds"]})  # fmt: skip
        if not with_response:
            return None, 204
        return (
            {
                "interaction": {
                    "id": inter.id,
                    "type": 2,
                    "response_message_id": message["id"],
                    "response_message_loading": kind == 5,
                    "response_message_ephemeral": bool(flags & 64),
                },
                "resource": {"type": kind, "message": message} if kind in (4, 5) else {"type": kind},
            },
            200,
        )

    @staticmethod
    def _validate_command(c: dict[str, Any]) -> None:
        """A command of a bulk overwrite as Discord checks it (docs "Application Commands"): names 1–32
        characters of ``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``, lowercase where the script has
        case (``name_localizations`` too, per locale, and unique per locale among a command's options),
        descriptions 1–100 (``description_localizations`` too), locales of Discord's list only, ≤ 25
        options and choices; ``integration_types`` ⊆ {0 guild install, 1 user install}, ``contexts`` ⊆
        {0 guild, 1 bot DM, 2 private channel}, both non-empty when given."""

        def bad(field: str, code: str) -> _DiscordError:
            return _DiscordError(400, 50035, "Invalid Form Body", errors={field: code})

        def check_names(item: dict[str, Any], field: str) -> None:
            if not valid_name(str(item.get("name", ""))):
                raise bad(field, "APPLICATION_COMMAND_INVALID_NAME")
            names = item.get("name_localizations") or {}
            if not isinstance(names, dict) or not set(names) <= LOCALES:
                raise bad(field + ".name_localizations", "LOCALE_INVALID")
            if not all(isinstance(v, str) and valid_name(v) for v in names.values()):
                raise bad(field + ".name_localizations", "APPLICATION_COMMAND_INVALID_NAME")
            texts = item.get("description_localizations") or {}
            if not isinstance(texts, dict) or not set(texts) <= LOCALES:
                raise bad(field + ".description_localizations", "LOCALE_INVALID")
            if not all(isinstance(v, str) and 1 <= len(v) <= 100 for v in texts.values()):
                raise bad(field + ".description_localizations", "BASE_TYPE_BAD_LENGTH")

        check_names(c, "name")
        if not 1 <= len(c.get("description", "")) <= 100:
            raise bad("description", "BASE_TYPE_BAD_LENGTH")
        for key, allowed in (("integration_types", {0, 1}), ("contexts", {0, 1, 2})):
            if key in c and c[key] is not None:
                values = c[key]
                if not isinstance(values, list) or not values or not set(values) <= allowed:
                    raise bad(key, "BASE_TYPE_CHOICES")
        options = c.get("options") or []
        if len(options) > 25:
            raise bad("options", "BASE_TYPE_MAX_LENGTH")
        seen: dict[str, set[str]] = {}
        for o in options:
            check_names(o, "options")
            if not 1 <= len(o.get("description", "")) <= 100:
                raise bad("options", "BASE_TYPE_BAD_LENGTH")
            for locale, name in [("", o.get("name", "")), *(o.get("name_localizations") or {}).items()]:
                taken = seen.setdefault(locale, set())
                if name in taken:
                    raise bad("options", "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS")
                taken.add(name)
            if len(o.get("choices") or []) > 25:
                raise bad("options.choices", "BASE_TYPE_MAX_LENGTH")
            for choice in o.get("choices") or []:  # a choice's name (and its localizations): 1–100 characters
                names = {"": choice.get("name", ""), **(choice.get("name_localizations") or {})}
                if not set(names) - {""} <= LOCALES:
                    raise bad("options.choices.name_localizations", "LOCALE_INVALID")
                if not all(isinstance(v, str) and 1 <= len(v) <= 100 for v in names.values()):
                    raise bad("options.choices", "BASE_TYPE_BAD_LENGTH")

    @staticmethod
    def _validate_message(
        body: dict[str, Any], uploads: dict[int, tuple[str, bytes]] | None = None, editing: bool = False
    ) -> None:
        content = body.get("content") or ""
        embeds = body.get("embeds") or []
        if (
            not editing
            and not content
            and not embeds
            and not body.get("attachments")
            and not uploads
            and not body.get("components")
        ):
            raise _DiscordError(400, 50006, "Cannot send an empty message")
        if len(uploads or {}) > 10:
            raise _DiscordError(400, 50035, "Invalid Form Body", errors={"files": "BASE_TYPE_MAX_LENGTH"})
        if len(content) > CONTENT_LIMIT:
            raise _DiscordError(400, 50035, "Invalid Form Body",
                                errors={"content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                                                                 "message": "Must be 2000 or fewer in length."}]}})  # fmt: skip
        if len(embeds) > 10:
            raise _DiscordError(400, 50035, "Invalid Form Body", errors={"embeds": "BASE_TYPE_MAX_LENGTH"})
        rows = body.get("components") or []
        if len(rows) > 5 or any(len(r.get("components") or []) > 5 for r in rows):
            raise _DiscordError(
                400, 50035, "Invalid Form Body", errors={"components": "BASE_TYPE_MAX_LENGTH"}
            )
        for row in rows:
            for c in row.get("components") or []:
                if (
                    c.get("type") == 2
                    and c.get("style") != 5
                    and not 1 <= len(c.get("custom_id") or "") <= 100
                ):
                    raise _DiscordError(
                        400, 50035, "Invalid Form Body", errors={"custom_id": "BASE_TYPE_BAD_LENGTH"}
                    )
                if len(c.get("label") or "") > 80:
                    raise _DiscordError(
                        400, 50035, "Invalid Form Body", errors={"label": "BASE_TYPE_MAX_LENGTH"}
                    )
        total = 0
        for e in embeds:
            desc, title = e.get("description") or "", e.get("title") or ""
            if len(desc) > 4096 or len(title) > 256 or len(e.get("fields") or []) > 25:
                raise _DiscordError(
                    400, 50035, "Invalid Form Body", errors={"embeds": "BASE_TYPE_MAX_LENGTH"}
                )
            total += len(desc) + len(title) + len((e.get("footer") or {}).get("text") or "")
            total += sum(len(f.get("name", "")) + len(f.get("value", "")) for f in e.get("fields") or [])
        if total > 6000:
            raise _DiscordError(400, 50035, "Invalid Form Body", errors={"embeds": "MAX_EMBED_SIZE_EXCEEDED"})


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of an uploaded picture (Discord reports them for images), else None."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (UnidentifiedImageError, OSError):
        return None


class _DiscordError(Exception):
    def __init__(self, status: int, code: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra
