"""Issue 14 in the chat: the chart picture goes with the reply, driven through the real python-telegram-bot and
discord.py against the fakes (tests/fakes), which decode every upload with Pillow as the platforms do.

What is checked comes from outside our own output: the picture is a PNG at least 640 px on its short side
(issue 14 "Quality"), and it is the picture of *this* chart — the same bytes ``bot.images`` draws from the
engine's chart of 庚辰 第八局 built here (the renderer is deterministic; tests/images checks its layout
against the sources); the caption is within Telegram's 1,024 visible characters; the board and 三傳 are on
it (丑貴人, 天后: seed 003's 庚辰 第八局).
"""

from __future__ import annotations

import io

import pytest
import telegram
from PIL import Image

from bot.commands import pages
from bot.images import render_liuren
from bot.seal import unsealed
from engine.core.cycle import GanZhi
from engine.liuren import chart_for_ju
from tests.adapters.conftest import running, tg_settings
from tests.chat._views import buttons as _tg_buttons
from tests.chat.test_discord_pages import _buttons as discord_buttons
from tests.chat.test_discord_pages import _press as discord_press
from tests.conftest import discord_bot
from tests.fakes.telegram import visible_text
from tests.images.same import assert_same_picture


def _png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image


async def _ask(tg, run, text, chat_id, **kw):
    before = len(tg.sent_to(chat_id))
    update = tg.user_says(text, chat_id=chat_id, **kw)
    await run.telegram.wait_handled(update["update_id"], 20)
    return update, tg.sent_to(chat_id)[before:]


async def _press(tg, run, button, message, chat_id, **kw):
    edits = len([c for c in tg.calls if c.method.startswith("editMessage")])
    update = tg.callback_query(
        button["callback_data"], chat_id=chat_id, message_id=message["message_id"], message=message, **kw
    )
    await run.telegram.wait_handled(update["update_id"], 20)
    return [c for c in tg.calls if c.method.startswith("editMessage")][edits:]


# seed 003's 庚辰 第八局: 丑 carries 貴人, 寅 天后 — a Korean board reads its cells in 한글 (docs/style.md)
BOARD_CELLS = {"ko": ("축귀인", "인천후"), "lzh": ("丑貴人", "寅天后")}


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_telegram_cast_is_one_photo_with_the_reply_and_its_keyboard(tg, tmp_path, lang):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite"), lang=lang), ready=tg) as run:
        _, [photo] = await _ask(tg, run, "/cast 庚辰 8", 51, language_code=lang)
        assert photo.method == "sendPhoto"
        upload = photo.files["photo"]  # a multipart upload (PTB InputFile), not a URL
        image = _png(upload)
        assert min(image.size) >= 640
        # the picture of this chart, in the reader's language
        assert_same_picture(upload, render_liuren(chart_for_ju(GanZhi.parse("庚辰"), 8), lang))
        caption = visible_text(photo.params["caption"], photo.params["parse_mode"])
        noble, queen = BOARD_CELLS[lang]
        assert len(caption) <= 1024 and noble in caption and queen in caption
        assert len(_tg_buttons(photo)) >= 3  # the keyboard is on the photo
        largest = photo.result["photo"][-1]
        assert (largest["width"], largest["height"]) == image.size
        # a page button edits the caption of the same message; the picture is neither drawn nor sent again
        trace = next(
            b for b in _tg_buttons(photo) if pages.decode(unsealed(b["callback_data"])).page == "trace"
        )
        [edit] = await _press(tg, run, trace, photo.result, 51, language_code=lang)
        assert edit.method == "editMessageCaption" and edit.status == 200
        assert edit.params["message_id"] == photo.result["message_id"]
        assert "重審" in edit.params["caption"]  # seed 003: 「此重審之卦」
        assert tg.messages[("51", photo.result["message_id"])]["photo"] == photo.result["photo"]
        assert not [c for c in tg.calls if c.method in ("editMessageMedia", "sendPhoto")][1:]


async def test_telegram_the_same_picture_for_another_chat_is_sent_by_file_id(tg, tmp_path):
    """Issue #18: the second reply with the same chart picture sends the ``file_id`` Telegram gave the first
    upload instead of the bytes; once Telegram refuses the id, the picture is uploaded again."""
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite"), lang="ko"), ready=tg) as run:
        _, [first] = await _ask(tg, run, "/cast 庚辰 8", 61, language_code="ko")
        _, [second] = await _ask(tg, run, "/cast 庚辰 8", 62, language_code="ko")
        expected = render_liuren(chart_for_ju(GanZhi.parse("庚辰"), 8), "ko")
        assert_same_picture(first.files["photo"], expected)
        assert second.files == {} and second.params["photo"] == first.result["photo"][-1]["file_id"]
        assert tg.photos[second.params["photo"]] == first.files["photo"]  # the id names this very upload
        assert second.params["caption"] == first.params["caption"]
        tg.forget_file_ids()
        _, [third] = await _ask(tg, run, "/cast 庚辰 8", 63, language_code="ko")
        assert_same_picture(third.files["photo"], expected)
        asked = [c for c in tg.calls if c.method == "sendPhoto" and c.params["chat_id"] == 63]
        assert [c.status for c in asked] == [400, 200]


async def test_telegram_group_photo_answers_the_asker(tg, tmp_path):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        update, [photo] = await _ask(tg, run, "/cast 庚辰 8", -100321, user_id=77, chat_type="supergroup")
        assert photo.method == "sendPhoto"
        assert photo.params["reply_parameters"]["message_id"] == update["message"]["message_id"]


async def test_telegram_liuyao_and_qizheng_bring_their_pictures(tg, tmp_path):
    async with running(tg_settings(tg, str(tmp_path / "db.sqlite")), ready=tg) as run:
        _, [liuyao] = await _ask(tg, run, "/liuyao 797979", 52)
        assert liuyao.method == "sendPhoto" and min(_png(liuyao.files["photo"]).size) >= 640
        assert len(visible_text(liuyao.params["caption"], "HTML")) <= 1024
        # birth data not saved (no "save"): the picture is drawn for this reply and kept nowhere
        _, [qizheng, *text] = await _ask(tg, run, "/qizheng 1990-05-17 14:30 서울", 52)
        assert qizheng.method == "sendPhoto" and min(_png(qizheng.files["photo"]).size) >= 640
        reply = visible_text(qizheng.params["caption"], "HTML")
        if text:  # a reply longer than a caption: the photo has its title lines, the reply follows as text
            assert [c.method for c in text] == ["sendMessage"]
            shown = visible_text(text[0].params["text"], "HTML")
            assert len(reply) <= 200 and shown.startswith(reply.rstrip()) and len(shown) > 1024
        else:
            assert len(reply) <= 1024


async def test_after_a_restart_the_board_page_puts_the_picture_on_a_text_message(tg, tmp_path):
    """A cast whose message is text (sent before pictures existed): its 盤 button adds the picture, drawn
    again from the stored row after a restart (editMessageMedia may add media to a text message)."""
    db = str(tmp_path / "db.sqlite")
    async with running(tg_settings(tg, db), ready=tg) as run:
        _, [photo] = await _ask(tg, run, "/cast 庚辰 8", 53)
    # the same cast as an old text message (as the bot sent it before pictures): same buttons, no photo
    old = tg._message(
        {"chat_id": 53, "reply_markup": photo.params["reply_markup"]}, text=photo.result["caption"]
    )
    brief = next(b for b in _tg_buttons(photo) if pages.decode(unsealed(b["callback_data"])).page == "brief")
    read = next(b for b in _tg_buttons(photo) if pages.decode(unsealed(b["callback_data"])).page == "read")
    async with running(tg_settings(tg, db), ready=tg) as run:
        [text_edit] = await _press(tg, run, read, old, 53)  # a page without the picture: a text edit
        assert text_edit.method == "editMessageText" and text_edit.status == 200
        [media] = await _press(tg, run, brief, tg.messages[("53", old["message_id"])], 53)
        assert media.method == "editMessageMedia" and media.status == 200
        [(name, upload)] = media.files.items()
        assert media.params["media"]["media"] == f"attach://{name}"
        assert_same_picture(upload, photo.files["photo"])  # the same picture, drawn again from the row
        now = tg.messages[("53", old["message_id"])]
        assert "photo" in now and BOARD_CELLS["ko"][0] in now["caption"] and "text" not in now


async def test_the_fake_refuses_what_telegram_refuses(tg):
    png = render_liuren(chart_for_ju(GanZhi.parse("庚辰"), 8), "ko")
    async with telegram.Bot(tg.token, base_url=tg.base_url) as bot:
        with pytest.raises(telegram.error.BadRequest, match="(?i)caption is too long"):
            await bot.send_photo(5, photo=png, caption="가" * 1025)
        with pytest.raises(telegram.error.BadRequest, match="(?i)image_process_failed"):
            await bot.send_photo(5, photo=b"not a picture at all", caption="x")
        message = await bot.send_photo(5, photo=png, caption="가" * 1024)
        with pytest.raises(telegram.error.BadRequest, match="(?i)no text in the message"):
            await bot.edit_message_text("y", chat_id=5, message_id=message.message_id)
        again = await bot.send_photo(5, photo=message.photo[-1].file_id)  # a file_id is sent again, no upload
        assert again.photo[-1].file_id == message.photo[-1].file_id


@pytest.mark.usefixtures("restore_discord_endpoints")
async def test_discord_cast_embed_carries_the_picture_and_page_edits_keep_it(dc, tmp_path):
    db = str(tmp_path / "db.sqlite")
    async with discord_bot(dc, db):
        inter = await dc.slash("cast", {"when": "庚辰 8"})
        [first] = await dc.wait_followups(inter, 1, timeout=10)
        [attachment] = first["attachments"]
        assert attachment["filename"] == "chart.png"
        upload = dc.uploaded[attachment["id"]]
        assert (
            min(_png(upload).size) >= 640 and (attachment["width"], attachment["height"]) == _png(upload).size
        )
        assert_same_picture(upload, render_liuren(chart_for_ju(GanZhi.parse("庚辰"), 8), "ko"))
        [embed] = first["embeds"]
        assert embed["image"]["url"] == attachment["url"]  # attachment://chart.png, resolved
        uploads = sum(bool(r.uploads) for r in dc.requests)
        read = next(
            b for b in discord_buttons(first) if pages.decode(unsealed(b["custom_id"])).page == "read"
        )
        pressed = await discord_press(dc, first, read, user_id=dc.user_id)
        assert pressed.ack_type == 7
        assert pressed.original["attachments"] == [attachment]  # kept by its id, not uploaded again
        assert pressed.original["embeds"][0]["image"]["url"] == attachment["url"]
        assert sum(bool(r.uploads) for r in dc.requests) == uploads
    # after a restart, a message without the picture (sent before pictures) gets it drawn from the row
    old = {**first, "attachments": [], "embeds": [{k: v for k, v in embed.items() if k != "image"}]}
    async with discord_bot(dc, db):
        brief = next(
            b for b in discord_buttons(first) if pages.decode(unsealed(b["custom_id"])).page == "brief"
        )
        pressed = await discord_press(dc, old, brief, user_id=dc.user_id)
        assert pressed.ack_type == 7
        [restored] = pressed.original["attachments"]
        assert_same_picture(dc.uploaded[restored["id"]], upload)


@pytest.mark.usefixtures("restore_discord_endpoints")
@pytest.mark.parametrize(
    ("command", "options"),
    [("liuyao", {"lines": "797979"}), ("qizheng", {"when": "1990-05-17 14:30 서울"})],
)
async def test_discord_liuyao_and_qizheng_embeds_carry_their_pictures(dc, tmp_path, command, options):
    """Issue 14 "Done when": /liuyao 797979 and /qizheng 1990-05-17 14:30 서울 bring a picture on Discord too."""
    async with discord_bot(dc, str(tmp_path / "db.sqlite")):
        inter = await dc.slash(command, options)
        [first] = await dc.wait_followups(inter, 1, timeout=15)
        [attachment] = first["attachments"]
        assert attachment["filename"] == "chart.png"
        picture = _png(dc.uploaded[attachment["id"]])
        assert min(picture.size) >= 640 and (attachment["width"], attachment["height"]) == picture.size
        if first["embeds"]:  # a stored cast: an embed with its pages, the picture inside it
            assert first["embeds"][0]["image"]["url"] == attachment["url"]
        else:  # an unsaved birth chart (no pages): the reply as text with the picture attached
            assert "1990" in first["content"]
