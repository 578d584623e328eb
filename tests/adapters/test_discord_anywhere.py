"""Discord anywhere (issue 34 item 4), with the real discord.py against the fake gateway + REST.

- The commands are registered for a server install and a user install (``integration_types`` 0 and 1), in
  servers, the bot's DM and private channels (``contexts`` 0, 1, 2); /daily, a subscription the bot must
  post to later, not in private channels (the fake then refuses to send such an interaction, as Discord
  never offers it there).
- Option names and descriptions are localized for ko and zh-TW from the catalogs (``chat.option.*``).
- Every uploaded picture has a description (alt text): what it draws and the cast as /history sums it up.
- The 六爻 pages keep their picture when a page button is pressed.
- A user install answers in the bot's DM, in a group DM and in a server that never added the bot; what
  shows the user's own data is ephemeral wherever others read the channel.
- ``/tz`` autocomplete finds zones by Korean and Chinese names, abbreviations and offsets.

Expected values: the hexagram of the lines 878878 (bottom up: 8 7 8 = ☵, twice) is 坎 (the King Wen order's
29th, 坎為水); the zones are the IANA ``zone.tab`` zones of Seoul (KR) and Shanghai (CN), and UTC+9 is the
POSIX-signed ``Etc/GMT-9``; KST is tzdata's abbreviation of Asia/Seoul.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp
import pytest

from bot.i18n import gettext
from tests.chat._views import components
from tests.conftest import discord_bot
from tests.fakes.discord import FakeDiscord

pytestmark = pytest.mark.usefixtures("restore_discord_endpoints")
EPHEMERAL = 1 << 6


def _buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The page buttons of a message (not its reading's actions: tests/chat/_views.py)."""
    return components(message)


def _answers(dc: FakeDiscord, inter: Any) -> list[dict[str, Any]]:
    return [m for m in dc.messages if m.get("interaction") == inter.id]


async def _press(dc: FakeDiscord, message: dict[str, Any], button: dict[str, Any], **kw: Any) -> Any:
    inter = await dc.press(message, button["custom_id"], **kw)
    await dc.wait_acked(inter, timeout=10)
    return inter


async def test_registered_for_both_installs_and_every_context_with_localized_options(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        commands = {c["name"]: c for c in await dc.wait_synced()}
        assert {"cast", "liuyao", "tz", "history", "settings", "journal", "daily"} <= set(commands)
        for name, command in commands.items():
            assert command["integration_types"] == [0, 1], name
            assert command["contexts"] == ([0, 1] if name == "daily" else [0, 1, 2]), name
            for option in command.get("options") or []:
                msgid = "chat.option." + option["name"]
                assert option["name_localizations"] == {
                    "ko": gettext("ko", msgid),
                    "zh-TW": gettext("lzh", msgid),
                }, (name, option["name"])
                assert set(option["description_localizations"]) == {"ko", "zh-TW"}
        named = {o["name"] for c in commands.values() for o in c.get("options") or []}
        assert {"when", "category", "lines", "use", "zone"} <= named
        # the fixed choices keep their values and show localized names (동전 던지기 for ``coins``)
        method = next(o for o in commands["liuyao"]["options"] if o["name"] == "method")
        for choice in method["choices"]:
            msgid = "chat.choice.method." + choice["value"]
            assert choice["name_localizations"] == {
                "ko": gettext("ko", msgid),
                "zh-TW": gettext("lzh", msgid),
            }
        when = next(o for o in commands["cast"]["options"] if o["name"] == "when")
        assert when["name_localizations"] != {"ko": "when", "zh-TW": "when"}  # a word of each language
    with pytest.raises(ValueError):  # Discord never offers /daily in a group DM: nothing could arrive there
        dc.interaction_payload("daily", {"setting": "07:00"}, where="private")


async def _rest(dc: FakeDiscord, method: str, path: str, **kw: Any) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bot {dc.token}"}
    async with aiohttp.ClientSession() as session:
        async with session.request(method, dc.api_base_url + path, headers=headers, **kw) as response:
            return response.status, await response.json(content_type=None)


async def test_the_fake_refuses_what_discord_refuses():
    async with FakeDiscord(bucket_limit=100) as dc:  # no rate limit in the way
        path = f"/applications/{dc.application_id}/commands"
        option = {"type": 3, "name": "when", "description": "when", "name_localizations": {"ko": "시각"}}
        good = {"name": "cast", "description": "cast", "integration_types": [0, 1], "contexts": [0, 1, 2],
                "name_localizations": {"ko": "점", "zh-TW": "占"}, "options": [option]}  # fmt: skip
        assert (await _rest(dc, "PUT", path, json=[good]))[0] == 200
        bad = [
            {"name": "Cast"},  # uppercase
            {"name": "two words"},
            {"name": "x" * 33},
            {"name_localizations": {"ko": "큰 점"}},  # a space in a localized name
            {"name_localizations": {"ko": "Big"}},
            {"name_localizations": {"xx": "cast"}},  # no such locale
            {"description_localizations": {"ko": "d" * 101}},
            {"integration_types": [2]},
            {"contexts": [3]},
            {"contexts": []},
            {"options": [option, {**option, "name": "at"}]},  # two options called 시각 in ko
        ]
        for change in bad:
            status, body = await _rest(dc, "PUT", path, json=[{**good, **change}])
            assert (status, body.get("code")) == (400, 50035), change
        # an attachment's description (alt text) is at most 1,024 characters
        for description, status in (("a chart", 200), ("x" * 1025, 400)):
            form = aiohttp.FormData()
            form.add_field(
                "payload_json",
                json.dumps({"attachments": [{"id": 0, "filename": "a.png", "description": description}]}),
                content_type="application/json",
            )
            form.add_field("files[0]", b"\x89PNG", filename="a.png", content_type="image/png")
            got, body = await _rest(dc, "POST", f"/channels/{dc.channel_id}/messages", data=form)
            assert got == status
            if status == 200:
                assert body["attachments"][0]["description"] == description


async def test_pictures_have_descriptions_and_the_liuyao_pages_keep_theirs(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter = await dc.slash("cast", {"when": "庚辰 8"})
        [cast] = await dc.wait_followups(inter, 1, timeout=10)
        [picture] = cast["attachments"]
        assert picture["description"].startswith(gettext("ko", "chat.picture.cast"))
        assert "庚辰" in picture["description"]

        inter = await dc.slash("liuyao", {"lines": "878878"}, locale="zh-TW", user_id=777)
        [liuyao] = await dc.wait_followups(inter, 1, timeout=10)
        [picture] = liuyao["attachments"]
        assert picture["description"].startswith(gettext("lzh", "chat.picture.liuyao"))
        assert "坎" in picture["description"]
        assert liuyao["embeds"][0]["image"]["url"] == picture["url"]
        buttons = _buttons(liuyao)
        assert len(buttons) == 3
        for button in (*buttons[1:], buttons[0]):  # every page, and back to the first
            pressed = await _press(dc, liuyao, button, user_id=777, locale="zh-TW")
            assert pressed.ack_type == 7  # UPDATE_MESSAGE
            [embed] = pressed.original["embeds"]
            assert embed["image"]["url"] == picture["url"]  # the picture stays on every page
            assert pressed.original["attachments"] == [picture]
        # a message that lost its picture (sent before pictures) gets it back, drawn again, with its description
        bare = {**liuyao, "attachments": [], "embeds": [{**liuyao["embeds"][0], "image": None}]}
        pressed = await _press(dc, bare, buttons[1], user_id=777, locale="zh-TW")
        [again] = pressed.original["attachments"]
        assert again["id"] != picture["id"] and again["description"] == picture["description"]
        assert pressed.original["embeds"][0]["image"]["url"] == again["url"]
    uploads = [a for m in dc.messages for a in m.get("attachments") or []]
    assert len(uploads) >= 3 and all(a.get("description") for a in uploads)


async def test_a_user_install_answers_in_dms_group_dms_and_servers_without_the_bot(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        await dc.wait_synced()
        # the bot's DM: a private chat
        inter = await dc.slash("cast", {"when": "庚辰 8"}, where="dm", install="user")
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        assert inter.payload["authorizing_integration_owners"] == {"1": dc.user_id}
        assert first["embeds"] and not first["flags"] & EPHEMERAL and first["attachments"][0]["description"]

        # a group DM the bot is not in: a reading for everyone there, the user's own data for the user alone
        inter = await dc.slash("cast", {"when": "庚辰 8"}, where="private")
        [group] = await dc.wait_followups(inter, 1, timeout=10)
        assert group["channel_id"] == dc.private_channel_id and not group["flags"] & EPHEMERAL
        private = [("show", {"number": 1}), ("history", None), ("settings", None), ("journal", None), ("tz", None),
                   ("qizheng", {"when": "1990-05-17 14:30 서울"})]  # fmt: skip
        for number, (name, options) in enumerate(private):
            user = dc.user_id if name == "show" else 900 + number  # each within the admission's burst
            for where, install in (("private", "user"), ("guild", "user")):  # a group DM; a server without it
                asked = await dc.slash(name, options, where=where, install=install, user_id=user)
                shown = await dc.wait_followups(asked, 1, timeout=10)
                assert all(m["flags"] & EPHEMERAL for m in shown), (name, where)
                assert asked.ack_type == 5 and asked.original and asked.original["flags"] & EPHEMERAL
        assert not [r for r in dc.requests if r.status >= 400]

        # /daily in a server where only the user installed the app: the bot could never post there
        asked = await dc.slash("daily", {"setting": "07:00"}, install="user")
        await dc.wait_acked(asked, timeout=10)
        [refused] = _answers(dc, asked)
        assert refused["flags"] & EPHEMERAL
        assert gettext("ko", "bot.error.not_installed", name="daily")[:12] in refused["content"]
        # … and in the bot's DM it subscribes
        asked = await dc.slash("daily", {"setting": "07:00"}, where="dm", install="user")
        [subscribed] = await dc.wait_followups(asked, 1, timeout=10)
        assert "07:00" in subscribed["content"]


def _standard_offsets(zone: str) -> set[timedelta | None]:
    at = (datetime(2026, 1, 15, tzinfo=UTC), datetime(2026, 7, 15, tzinfo=UTC))
    return {moment.astimezone(ZoneInfo(zone)).utcoffset() for moment in at}


async def test_tz_autocomplete_and_typed_names_find_zones_by_korean_and_chinese_names(dc, tmp_path):
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        await dc.wait_synced()
        cases = [("서", "ko", "Asia/Seoul", "서울"), ("上海", "zh-TW", "Asia/Shanghai", "上海"),
                 ("上海", "ko", "Asia/Shanghai", "상하이"), ("KST", "ko", "Asia/Seoul", "서울")]  # fmt: skip
        for typed, locale, zone, name in cases:
            asked = await dc.autocomplete("tz", {"zone": typed}, "zone", where="dm", locale=locale)
            await dc.wait_acked(asked, timeout=10)
            assert asked.ack_type == 8
            assert asked.choices[0]["value"] == zone and asked.choices[0]["name"].startswith(name), (
                asked.choices
            )
            assert zone in asked.choices[0]["name"]
        asked = await dc.autocomplete("tz", {"zone": "UTC+9"}, "zone")
        await dc.wait_acked(asked, timeout=10)
        values = [c["value"] for c in asked.choices]
        assert values[0] == "Etc/GMT-9" and {"Asia/Seoul", "Asia/Tokyo"} <= set(values)
        assert all(timedelta(hours=9) in _standard_offsets(v) for v in values)

        # the typed /tz reads the same table
        for typed, zone in (("上海", "Asia/Shanghai"), ("KST", "Asia/Seoul"), ("UTC+9", "Etc/GMT-9")):
            asked = await dc.slash("tz", {"zone": typed}, where="dm")
            [answer] = await dc.wait_followups(asked, 1, timeout=10)
            assert zone in answer["content"], answer["content"]
