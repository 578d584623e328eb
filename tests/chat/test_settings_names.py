"""Issue 32 item 6: settings in words. Every option and every value is shown by its name in ko and lzh (the
names the 法 page uses: 《육임대전》, 묘~신시 주 …), never by its code (mzj, depth_noseat, maoshen, cunyan,
delta_ori, qizhengsuan, liuren.gui_rule); buttons are labelled so; an option, a value or a group is found by
its Korean or Hanja name (/settings 섭해, /settings 涉害 孟仲季)."""

from __future__ import annotations

import re

import pytest

from bot.commands import setting_buttons
from bot.features import options as model
from bot.i18n import LANGS, catalog, gettext
from bot.presentation import present
from bot.views import render

CODES = ("mzj", "depth_noseat", "maoshen", "cunyan", "delta_ori", "qizhengsuan", "liuren.gui_rule", "sanming")


def test_every_option_and_value_has_a_name_in_both_languages():
    for s in model.model():
        assert s.label is not None, s.key
        labels = dict(s.value_labels)
        for v in s.choices:
            assert v in labels, (s.key, v)
            for lang in LANGS:
                assert labels[v] in catalog(lang) and catalog(lang)[labels[v]], (lang, s.key, v)


def test_the_names_are_the_fa_pages_names():
    """The 法 page (footer of a cast) reads liuren.optval.*: the settings show the same names."""
    labels = dict(model.setting("liuren.gui_rule").value_labels)
    assert gettext("ko", labels["liuren"]) == "《육임대전》"
    assert gettext("ko", dict(model.setting("liuren.daynight").value_labels)["maoshen"]) == "묘~신시 주"


@pytest.mark.parametrize("lang", ["ko", "lzh"])
@pytest.mark.parametrize(
    "line", ["/settings", "/settings liuren", "/settings qizheng", "/settings liuren.shehai"]
)
async def test_settings_show_names_not_codes(say, lang, line):
    r = await say(line, lang_hint=lang)
    for channel in ("console", "telegram", "discord"):
        text = render(r, channel)
        for code in CODES:
            assert not re.search(rf"(?<![\w.]){re.escape(code)}(?![\w])", text), (channel, code, text)
        shown = present(r, channel, "u1")
        for row in shown.buttons:
            for b in row:
                assert not any(code in b.label for code in CODES), b.label


@pytest.mark.parametrize(
    ("lang", "word", "key"),
    [
        ("ko", "섭해", "liuren.shehai"), ("ko", "涉害", "liuren.shehai"), ("lzh", "涉害", "liuren.shehai"),
        ("ko", "섭해계산", "liuren.shehai"), ("ko", "귀인표", "liuren.gui_rule"), ("lzh", "晝夜", "liuren.daynight"),
        ("ko", "맹중계", "liuren.shehai"), ("lzh", "孟仲季", "liuren.shehai"), ("ko", "진태양시", "solar_time"),
    ],
)  # fmt: skip
async def test_an_option_by_its_name(say, lang, word, key):
    r = await say(f"/settings {word}", lang_hint=lang)
    assert r.view == "settings" and r.context["option"] == key


async def test_a_group_by_its_name(say):
    assert (await say("/settings 대육임")).context["group"] == "liuren"
    assert (await say("/settings 七政四餘", lang_hint="lzh")).context["group"] == "qizheng"


@pytest.mark.parametrize(
    ("line", "key", "value"),
    [
        ("/settings 섭해 맹중계", "liuren.shehai", "mzj"), ("/settings 涉害 孟仲季", "liuren.shehai", "mzj"),
        ("/settings 섭해 심천자리제외", "liuren.shehai", "depth_noseat"),
        ("/settings 복음자묘 묘자묘", "liuren.fuyin_maozi", "cunyan"), ("/settings 伏吟子卯 卯子卯", "liuren.fuyin_maozi", "cunyan"),
        ("/settings 팔전우선 끔", "liuren.bazhuan_first", "off"), ("/settings 수 적도수도", "qizheng.mansions", "equatorial"),
        ("/settings liuren.shehai mzj", "liuren.shehai", "mzj"),  # the codes still work
    ],
)  # fmt: skip
async def test_set_by_names(say, ctx, line, key, value):
    r = await say(line)
    assert r.view == "settings" and r.context["changed_key"] == key, r.context
    assert (await ctx.storage.get_user("console:u1")).options[key] == value


COLON = {"ko": ": ", "lzh": "："}  # each language's colon after a label or a typed word


def _choices(text: str, lang: str) -> list[tuple[str, str]]:
    """An option page's values as (the word typed for it, its name), in order: the lines between the list's
    heading and the line that changes it."""
    lines = text.splitlines()
    start = lines.index(gettext(lang, "chat.settings.values") + COLON[lang].rstrip()) + 1
    end = next(i for i, ln in enumerate(lines) if ln.startswith(gettext(lang, "chat.settings.change")))
    mark = " · " + gettext(lang, "chat.settings.default")
    rows = [ln.removesuffix(mark).split(COLON[lang], 1) for ln in lines[start:end]]
    return [(word, name) for word, name in rows]


def _change_line(text: str, lang: str) -> str:
    """The ``/settings <option word> <value word>`` an option page shows to change it."""
    head = gettext(lang, "chat.settings.change") + COLON[lang]
    return next(ln for ln in text.splitlines() if ln.startswith(head))[len(head) :]


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_the_typed_lines_shown_work(say, ctx, lang):
    """The option page shows each value by the word typed for it, and the line that changes it; each word,
    typed after the option's, sets that value."""
    r = await say("/settings liuren.fuyin_maozi", lang_hint=lang)
    text = render(r, "console")
    _, option_word, _ = _change_line(text, lang).split(" ")
    words = [word for word, _ in _choices(text, lang)]
    assert len(words) == 2
    for word, want in zip(words, ("daquan", "cunyan"), strict=True):
        done = await say(f"/settings {option_word} {word}", lang_hint=lang)
        assert done.context["changed_key"] == "liuren.fuyin_maozi", word
        assert (await ctx.storage.get_user("console:u1")).options["liuren.fuyin_maozi"] == want


async def test_a_name_several_options_fit_offers_them(say):
    r = await say("/settings 켬")
    assert r.view == "settings" and "solar_time" in r.context["matches"] and len(r.context["matches"]) > 1
    rows = setting_buttons.buttons(r, "u1")
    targets = {setting_buttons.decode(b.data).target for row in rows for b in row}
    assert set(r.context["matches"]) <= targets


async def test_an_unknown_name_is_refused(say):
    r = await say("/settings 어쩌구저쩌구")
    assert r.view == "error" and r.context["code"] == "bot.error.unknown_option"


# --- issue 33: the typed forms the option pages show are words a practitioner types --------------------------


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_every_typed_line_shown_sets_exactly_its_value(say, ctx, lang):
    """Round trip: for every option and every value, the word its page shows for it, typed after the option's
    word of the page's change line (``/settings 수 참수``), selects exactly that option and that value; each
    typed word is one word of letters and digits (no bracket, no punctuation) and is no longer than the name
    compacted (the form shown before)."""
    await say("/place 서울", lang_hint=lang)  # 晝夜 by sunrise and true solar time need a place
    for s in (s for s in model.model() if s.choices):
        text = render(await say(f"/settings {s.key}", lang_hint=lang), "console")
        _, word, _ = _change_line(text, lang).split(" ")
        shown = _choices(text, lang)
        assert len(shown) == len(s.choices), (s.key, shown)
        labels = dict(s.value_labels)
        assert word.isalnum() and len(word) <= len(model.compact(gettext(lang, s.label), lower=False)), word
        assert (await say(f"/settings {word}", lang_hint=lang)).context["option"] == s.key, word
        for (typed, _), value in zip(shown, s.choices, strict=True):
            assert typed.isalnum(), typed
            assert len(typed) <= len(model.compact(gettext(lang, labels[value]), lower=False)), typed
            done = await say(f"/settings {word} {typed}", lang_hint=lang)
            assert done.view == "settings" and done.context["changed_key"] == s.key, (typed, done.context)
            assert (await ctx.storage.get_user("console:u1")).options[s.key] == value, typed


async def test_the_mansions_page_shows_the_word_that_tells_each_value_apart(say):
    """qizheng.mansions in Korean: 수 (宿) and, of each value's name, its first word no other value shares —
    not the whole name compacted (``금수今宿거성距星기준``, ``금수참수거성오리온자리δ``). 금수 and 거성 are in
    three values' names, so 「금수(今宿), 거성(距星) 기준」 is typed by 기준; 「금수·참수 거성 오리온자리 δ」 by 참수
    (參宿, whose 距星 is δ Ori), 「금수·규수 …」 by 규수 (奎宿), 「고수(수시력 황도수도)」 by 고수, 「적도수도(…)」 by
    적도수도."""
    text = render(await say("/settings qizheng.mansions", lang_hint="ko"), "console")
    assert {name: word for word, name in _choices(text, "ko")} == {
        "금수(今宿), 거성(距星) 기준": "기준",
        "금수·참수 거성 오리온자리 δ": "참수",
        "금수·규수 거성 안드로메다자리 η": "규수",
        "고수(수시력 황도수도)": "고수",
        "적도수도(赤道宿度), 거성(距星) 적경": "적도수도",
    }
    assert _change_line(text, "ko") == "/settings 수 참수"  # the first value that is not the current one
    assert "금수今宿" not in text and "오리온자리δ" not in text


@pytest.mark.parametrize(
    ("lang", "key", "typed", "want"),
    [
        ("ko", "day_starts", "하루시작", {"23:00": "자시", "00:00": "자정"}),  # the catalog's word (not 하루의시작)
        ("ko", "liuren.daynight", "주야", {"maoshen": "묘신시", "sishu": "사술시", "ziwu": "자사시", "sun": "일출일몰"}),
        ("ko", "liuyao.scatter", "산", {"day_clash": "일충", "none": "없음"}),  # the catalog's (not 판정, 계산안함)
        ("ko", "liuyao.earth_changsheng", "장생", {"寅": "인", "申": "신"}),  # not 토는화를따름
        ("lzh", "liuren.shehai", "涉害", {"depth": "連所臨", "depth_noseat": "不連所臨", "mzj": "孟仲季"}),
        ("lzh", "qizheng.mansions", "宿", {"modern": "今宿", "delta_ori": "參用δ", "eta_and": "奎用η", "shoushi": "古宿"}),
    ],
)  # fmt: skip
def test_typed_words_of_some_names(lang, key, typed, want):
    """A range is one word (묘~신시 → 묘신시), a word leaning on the next is joined to it, a negation to both
    sides; in 文言 the phrase in the brackets when the head is shared (計深淺 is in both 深淺 values); the
    catalog's word (``settings.word``) where the name gives none short and natural (今宿 of 今宿（距星）)."""
    option = model.setting(key)
    assert model.typed_option(option, lang) == typed
    assert {v: model.typed_value(option, v, lang) for v in want} == want


# --- the typed words are names a user types: short, one word, no sentence run together ------------------------

# At most four letters (a digit, a Hangul syllable, a Chinese character, a Greek letter each count one): the
# longest names practitioners type as one word are four-character terms (六壬大全, 真太陽時, 일출일몰, 적도수도,
# 1975); a longer typed word has always been a phrase of the shown name (起丙寅順行, 토는화를따름, 중신은괘).
BOUND = 4
# Korean particles and connectives that end a word leaning on the next (오행의 묘, 토는 화를, 중신을 일, 정하지
# 않음): inside a typed word they are a phrase glued together, not a name
GLUED_KO = frozenset("의을를은는에로지")
# 文言 function words that make a clause of a phrase (卯至申為晝, 強宮之外, 命限以命度, 八專先於遙剋)
GLUED_LZH = frozenset("之為以於而也者乎")


def _is_a_name(word: str, lang: str) -> bool:
    glued = GLUED_KO if lang == "ko" else GLUED_LZH
    return 0 < len(word) <= BOUND and word.isalnum() and not any(ch in glued for ch in word[1:])


def test_the_rule_of_a_name_refuses_the_old_phrases():
    """The check itself: the phrases shown before (and a word over the bound) fail it, plain names pass."""
    for word in (
        "오행의묘",
        "중신을일",
        "토는화를따름",
        "정하지않음",
        "본괘의궁",
        "명도로명한",
        "칠정산내편",
    ):
        assert not _is_a_name(word, "ko"), word
    for word in ("卯至申為晝", "強宮之外", "命限以命度", "起丙寅順行", "今宿距星" + "x"):
        assert not _is_a_name(word, "lzh"), word
    assert all(_is_a_name(w, "ko") for w in ("일출일몰", "인", "1975")) and _is_a_name("參用δ", "lzh")


@pytest.mark.parametrize("lang", ["ko", "lzh"])
async def test_every_typed_word_is_a_short_name_that_chooses_its_value(say, ctx, lang):
    """Every option's and every value's typed word (the free 생년's default too) is a name by the rule above,
    and ``/settings <option word> <value word>`` through the real command sets exactly that value."""
    await say("/place 서울", lang_hint=lang)  # 晝夜 by sunrise and true solar time need a place
    for s in model.model():
        word = model.typed_option(s, lang)
        assert _is_a_name(word, lang), (s.key, word)
        for value in s.choices or (s.default,):
            typed = model.typed_value(s, value, lang)
            assert _is_a_name(typed, lang), (s.key, value, typed)
            done = await say(f"/settings {word} {typed}", lang_hint=lang)
            assert done.view == "settings" and done.context["changed_key"] == s.key, (
                word,
                typed,
                done.context,
            )
            assert (await ctx.storage.get_user("console:u1")).options[s.key] == value, (word, typed)


# The typed lines the option pages showed before the catalog's words (users may have learned them): each still
# sets its value.
SHOWN_BEFORE = [
    ("ko", "/settings 하루의시작 자정", "day_starts", "00:00"),
    ("ko", "/settings 매일 끔", "daily_picture", "off"),
    ("ko", "/settings 성별 정하지않음", "sex", "unset"),
    ("ko", "/settings 생년 정하지않음", "birth_year", "unset"),
    ("ko", "/settings 규칙 오행의묘", "liuren.mu", "wuxing"),
    ("ko", "/settings 변효 본괘의궁", "liuyao.changed_relatives", "palace"),
    ("ko", "/settings 장생 토는수를따름", "liuyao.earth_changsheng", "申"),
    ("ko", "/settings 장생 토는화를따름", "liuyao.earth_changsheng", "寅"),
    ("ko", "/settings 중신 중신을일", "liuyao.middle_source", "day_month"),
    ("ko", "/settings 중신 중신은괘", "liuyao.middle_source", "hexagram"),
    ("ko", "/settings 판정 계산안함", "liuyao.scatter", "none"),
    ("ko", "/settings 자기 1975년", "qizheng.ziqi", "moira"),
    ("ko", "/settings 자기 칠정산내편", "qizheng.ziqi", "qizhengsuan"),
    ("ko", "/settings 신궁 생시를태음궁에더해", "qizheng.shen", "hour"),
    ("ko", "/settings 시진 평균태양시", "qizheng.hour", "mean"),
    ("ko", "/settings 대한 명도로명한", "qizheng.daxian", "mingdu"),
    ("lzh", "/settings 男女 起壬申逆行", "sex", "female"),
    ("lzh", "/settings 男女 起丙寅順行", "sex", "male"),
    ("lzh", "/settings 貴人 三命陽貴陰貴", "liuren.gui_rule", "sanming"),
    ("lzh", "/settings 貴人 壬癸晝貴在巳之表", "liuren.gui_rule", "kinliuren"),
    ("lzh", "/settings 晝夜 巳至戌為晝", "liuren.daynight", "sishu"),
    ("lzh", "/settings 晝夜 子至巳用陽貴", "liuren.daynight", "ziwu"),
    ("lzh", "/settings 晝夜 卯至申為晝", "liuren.daynight", "maoshen"),
    ("lzh", "/settings 八專先於遙剋 不用", "liuren.bazhuan_first", "off"),
    ("lzh", "/settings 六陰六陽兼下神 不用", "liuren.liuyinyang_lowers", "off"),
    ("lzh", "/settings 日墓 從長生表陽順陰逆", "liuren.mu", "changsheng"),
    ("lzh", "/settings 變爻六親所從 從之卦本宮", "liuyao.changed_relatives", "own_palace"),
    ("lzh", "/settings 變爻六親所從 從本卦之宮", "liuyao.changed_relatives", "palace"),
    ("lzh", "/settings 土之長生 土隨水", "liuyao.earth_changsheng", "申"),
    ("lzh", "/settings 局會兼取靜爻 不用", "liuyao.allow_static", "off"),
    ("lzh", "/settings 局會中神所取 局會中神兼取日月", "liuyao.middle_source", "day_month"),
    ("lzh", "/settings 局會中神所取 局會中神唯取卦中", "liuyao.middle_source", "hexagram"),
    ("lzh", "/settings 散之所定 不計散", "liuyao.scatter", "none"),
    ("lzh", "/settings 宮 鄭氏恆星宮", "qizheng.palaces", "zheng"),
    ("lzh", "/settings 宿 今宿距星", "qizheng.mansions", "modern"),
    ("lzh", "/settings 紫氣 七政算內篇元", "qizheng.ziqi", "qizhengsuan"),
    ("lzh", "/settings 命宮 數至實日出時", "qizheng.ming", "sunrise"),
    ("lzh", "/settings 命宮 太陽加時逢卯安命", "qizheng.ming", "sun_hour"),
    ("lzh", "/settings 身宮 生時加太陰逆數至酉", "qizheng.shen", "hour"),
    ("lzh", "/settings 身宮 太陰為身", "qizheng.shen", "moon"),
    ("lzh", "/settings 惡弱 兄弟奴僕疾厄遷移相貌", "qizheng.weak", "moira"),
    ("lzh", "/settings 惡弱 強宮之外", "qizheng.weak", "seed"),
    ("lzh", "/settings 大限 命限以命度", "qizheng.daxian", "mingdu"),
    ("lzh", "/settings 童限 一歲起大限", "qizheng.tongxian", "none"),
]


@pytest.mark.parametrize(("lang", "line", "key", "value"), SHOWN_BEFORE)
async def test_the_typed_words_shown_before_still_work(say, ctx, lang, line, key, value):
    done = await say(line, lang_hint=lang)
    assert done.view == "settings" and done.context["changed_key"] == key, done.context
    assert (await ctx.storage.get_user("console:u1")).options[key] == value


async def test_every_value_line_of_an_option_page_takes_its_languages_colon(say):
    """文言 writes the full-width colon after every value's typed word, whatever it ends in (參用δ：今宿·參用δ,
    as 古宿：古宿（授時黃道宿度）); Korean keeps its ``: ``."""
    for s in (s for s in model.model() if s.choices):
        for lang, colon, other in (("lzh", "：", ": "), ("ko", ": ", "：")):
            page = await say(f"/settings {s.key}", lang_hint=lang)
            for channel in ("console", "telegram", "discord"):
                text = render(page, channel)
                for value in s.choices:
                    word = model.typed_value(s, value, lang)
                    [line] = [ln for ln in text.splitlines() if ln.startswith(word + colon)]
                    head = line.split(colon, 1)[0] + colon
                    assert other not in head, (lang, channel, line)
