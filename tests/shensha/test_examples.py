"""The seed's own worked examples and spelled-out cases, each with the words it comes from (seed 000 line)."""

from __future__ import annotations

import pytest

from engine.core.cycle import Branch, GanZhi
from engine.shensha import Options, evaluate
from tests.shensha.helpers import MONTHS, br, day_with_stem, gz

ANY_DAY = gz("甲子")


def val(name, day=ANY_DAY, month=None, year=None, hour=None, options=None):
    hit = evaluate(day, month, year, hour, options=options).get(name)
    assert hit is not None, name
    return hit.value


def chars(v):
    if isinstance(v, tuple):
        return "".join(x.char for x in sorted(v))
    return v.char if hasattr(v, "char") else v


def month_row(name, **kw):
    """The star for 正月 … 十二月, as one string."""
    return "".join(chars(val(name, month=m, **kw)) for m in MONTHS)


# ------------------------------------------------------------------ L55 九曜, 三垣
def test_pojun_worked_example():
    # 「如寅建午時占，以戌加寅起至午時在戌，以戌上為破軍，亥是左輔，子是右弼也」
    assert val("破軍", month=br("寅"), hour=br("午")) == br("戌")
    assert val("左輔", month=br("寅"), hour=br("午")) == br("亥")
    assert val("右弼", month=br("寅"), hour=br("午")) == br("子")


def test_sanyuan():
    # 「紫微垣…起子…天市垣…起寅…太微垣…起巳」「三垣皆以正月起順行」
    assert month_row("紫微") == "子丑寅卯辰巳午未申酉戌亥"
    assert month_row("天市") == "寅卯辰巳午未申酉戌亥子丑"
    assert month_row("太微") == "巳午未申酉戌亥子丑寅卯辰"


# ------------------------------------------------------------------ L59–67 四德
def test_tiande():
    # 「天德之星，正月起亥而順行」; 「天干天德寅建在丁，卯建在申」; verse 「正丁二申宮…子巳丑庚逢」
    assert month_row("天德") == "亥子丑寅卯辰巳午未申酉戌"
    assert val("天干天德", month=br("寅")).char == "丁"
    assert val("天干天德", month=br("卯")).char == "申"
    assert month_row("天干天德") == "丁申壬辛亥甲癸寅丙乙巳庚"


def test_tiande_on_a_line_stem():
    # 「如寅建丁亥子孫發動，以丁為天德也」: the stem 丁 is marked in 寅 month
    from engine.core.cycle import Stem
    from engine.shensha import stem_marks

    assert "天干天德" in stem_marks(gz("丁亥"), br("寅"))[Stem.DING]


def test_yuede():
    # 「月德自未而順行」; 「天干月德寅午戌建而舉丙，亥卯未建而舉甲，巳酉丑月德在庚，申子辰月德在壬」
    assert month_row("月德") == "未申酉戌亥子丑寅卯辰巳午"
    assert month_row("天干月德") == "丙甲壬庚丙甲壬庚丙甲壬庚"


# ------------------------------------------------------------------ L71–75 貴人
@pytest.mark.parametrize(
    ("stem", "yang"),
    # 「甲合己而在子，己以子為陽貴；乙合庚而在丑，庚以丑為陽貴；丙合辛而在寅，辛以寅為陽貴；丁合壬而在卯，壬以卯為陽貴；
    #  戊合癸而在巳，癸以巳為陽貴；己合甲而在未，甲以未為陽貴；庚合乙而在申，乙以申為陽貴；辛合丙而在酉，丙以酉為陽貴；
    #  壬合丁而在亥，丁以亥為陽貴；癸合戊而在丑，戊以丑為陽貴」
    [("己", "子"), ("庚", "丑"), ("辛", "寅"), ("壬", "卯"), ("癸", "巳"),
     ("甲", "未"), ("乙", "申"), ("丙", "酉"), ("丁", "亥"), ("戊", "丑")],
)  # fmt: skip
def test_yanggui_prose(stem, yang):
    assert val("陽貴", day=day_with_stem(stem)) == br(yang)


def test_yingui_and_union():
    # verse 「甲牛戊庚羊，乙鼠巳猴鄉 … 壬蛇癸兔藏，六辛乘駿馬」 (丙丁: see test_tables)
    expect = {"甲": "丑", "戊": "未", "庚": "未", "乙": "子", "己": "申", "壬": "巳", "癸": "卯", "辛": "午"}
    for stem, b in expect.items():
        assert val("陰貴", day=day_with_stem(stem)) == br(b)
    assert val("陰貴", day=day_with_stem("丙")) == br("亥")
    assert val("陰貴", day=day_with_stem("丁")) == br("酉")
    literal = Options(yingui="verse")
    assert val("陰貴", day=day_with_stem("丙"), options=literal) == br("酉")
    assert val("陰貴", day=day_with_stem("丁"), options=literal) == br("亥")
    # 「易筮不分陰陽」: the union; issue-4 contract example 甲 → [丑, 未]
    assert val("天乙貴人", day=gz("甲子")) == (br("丑"), br("未"))
    assert val("天乙貴人", day=day_with_stem("丙")) == (br("酉"), br("亥"))
    # the literal verse makes 陰貴 = 陽貴 for 丙 and 丁, so the union shrinks to one branch (spec §5 said unaffected)
    assert val("天乙貴人", day=day_with_stem("丙"), options=literal) == (br("酉"),)
    assert val("天乙貴人", day=day_with_stem("丁"), options=literal) == (br("亥"),)


# ------------------------------------------------------------------ L79–91
def test_fuxing_and_tianchu():
    # 「甲之五遁，丙為食神，故寅為福；乙之五遁，丁為食神，丑亥為福星也」
    assert val("福星貴人", day=day_with_stem("甲")) == (br("寅"),)
    assert set(val("福星貴人", day=day_with_stem("乙"))) == {br("丑"), br("亥")}
    # verse 「甲虎乙豬牛，丙同犬鼠遊，丁雞戊猴走，己羊庚馬頭，辛蛇癸逐兔，壬日占龍樓」
    verse = {"丙": "子戌", "丁": "酉", "戊": "申", "己": "未", "庚": "午", "辛": "巳", "癸": "卯", "壬": "辰"}
    for stem, b in verse.items():
        assert chars(val("福星貴人", day=day_with_stem(stem))) == b
    # 「甲之五遁，祿於丙寅，寅上之丙，復祿於巳，故甲以巳為天廚；癸…故癸以亥為天廚也」
    assert val("天廚貴人", day=day_with_stem("甲")) == br("巳")
    assert val("天廚貴人", day=day_with_stem("癸")) == br("亥")


def test_lu():
    # 「甲木生亥，臨官於寅，乙木生午，臨官於卯，丙戊生於寅，臨官於巳，丁己生於酉，臨官在午」
    for stem, b in {"甲": "寅", "乙": "卯", "丙": "巳", "戊": "巳", "丁": "午", "己": "午"}.items():
        assert val("天元祿", day=day_with_stem(stem)) == br(b)


def test_tiancai_dicai():
    # 「故正月以辰為天財，巳為地財，順而終之」 and verse 「正七起龍蛇，二八馬羊家 …」
    assert month_row("天財") == "辰午申戌子寅辰午申戌子寅"
    assert month_row("地財") == "巳未酉亥丑卯巳未酉亥丑卯"


def test_wenchang():
    # 「甲祿在寅，逾三位而巳是也」「是以辛以戌為文昌也」
    assert val("文昌", day=day_with_stem("甲")) == br("巳")
    assert val("文昌", day=day_with_stem("辛")) == br("戌")


# ------------------------------------------------------------------ L95–99 將星 family, 天馬
def test_jiangxing_family_for_haimaowei():
    # 「故亥卯未，將星在卯，而攀辰鞍，駕巳馬，馬前六害 … 害前華蓋 … 將後為七煞，自申至寅七位是也」
    expect = dict(zip(
        ["將星", "攀鞍", "驛馬", "六害", "華蓋", "劫煞", "災煞", "天煞", "地煞", "年煞", "月煞(將星)", "亡神"],
        "卯辰巳午未申酉戌亥子丑寅", strict=True))  # fmt: skip
    for m in "亥卯未":
        for name, b in expect.items():
            assert val(name, month=br(m)) == br(b), (m, name)


def test_yima():
    # 「如寅午戌，將星在午，則以未為攀鞍，申為駕馬矣」; verse 「寅午戌馬居申，亥卯未馬在巳，申子辰成居寅，巳酉丑馬在亥」
    assert val("將星", month=br("午")) == br("午") and val("攀鞍", month=br("午")) == br("未")
    for group, b in {"寅午戌": "申", "亥卯未": "巳", "申子辰": "寅", "巳酉丑": "亥"}.items():
        for m in group:
            assert val("驛馬", month=br(m)) == br(b)
            # option jiangxing_key=day: the same verse keyed by the day branch (seed 002 馬)
            day = GanZhi.from_parts(day_with_stem("甲").stem.shift(br(m) % 2), br(m))
            assert val("驛馬", day=day, month=br("寅"), options=Options(jiangxing_key="day")) == br(b)
            assert val("馬", day=day) == br(b)


def test_yima_reports_both_keys_when_they_differ():
    hit = evaluate(gz("甲子"), br("寅")).get("驛馬")
    assert hit.value == br("申") and dict(hit.alt) == {"jiangxing_key=day": br("寅")}
    same = evaluate(gz("甲午"), br("寅")).get("驛馬")
    assert same.value == br("申") and same.alt == ()


def test_tianma():
    # 「正月用乾四爻為天馬，二月五爻申」; verse 「正七還騎馬，二八向猴申，三九須從犬，四十鼠相侵，五十一當寅上，六十二定歸辰」
    assert month_row("天馬") == "午申戌子寅辰午申戌子寅辰"


# ------------------------------------------------------------------ L103–111
def test_tianxi_and_xishen():
    # 「孟春建寅，則喜在戌，仲春建卯，則喜在亥，季春建辰，則喜在子」; 「春戌夏丑為天喜，秋辰冬未」
    assert [chars(val("天喜", month=br(m))) for m in "寅卯辰巳申亥"] == list("戌亥子丑辰未")
    # 「故甲己五遁得丙寅，則喜神在寅也，乙庚五遁得丙戌，則喜神在戌矣」; 「甲己東北乙庚乾，丙辛…坤…丁壬…離…戊癸東南」
    palaces = {"甲": ("寅", "東北"), "己": ("寅", "東北"), "乙": ("戌", "乾"), "庚": ("戌", "乾"), "丙": ("申", "坤"),
               "辛": ("申", "坤"), "丁": ("午", "離"), "壬": ("午", "離"), "戊": ("辰", "東南"), "癸": ("辰", "東南")}  # fmt: skip
    for stem, (b, word) in palaces.items():
        hit = evaluate(day_with_stem(stem)).get("喜神")
        assert hit.value == br(b) and word in hit.detail


def test_tianshe():
    # 「冬至甲子為天赦；春首戊寅，夏至甲午，秋首戊申」
    assert val("天赦", day=gz("戊寅"), month=br("寅")) is True
    assert val("天赦", day=gz("戊寅"), month=br("午")) is False
    assert val("天赦", day=gz("甲午"), month=br("午")) is True
    assert val("天赦", day=gz("戊申"), month=br("酉")) is True
    assert val("天赦", day=gz("甲子"), month=br("子")) is True
    assert val("天赦", day=gz("甲子"), month=br("寅")) is False


def test_tianjie_yuejie_hesan():
    # 「天解春以寅，夏以巳，秋以申，冬以亥」
    assert [chars(val("天解", month=br(m))) for m in "寅巳申亥"] == list("寅巳申亥")
    # 「月解法，九十月午，子丑月未，正二月申，三四月酉，五六月戌，七八月亥」
    assert month_row("月解") == "申申酉酉戌戌亥亥午午未未"
    # 「喝散，春木根萌在亥，巳能刈之」; 「春巳夏居申，秋豬冬到寅」
    assert [chars(val("喝散", month=br(m))) for m in "寅巳申亥"] == list("巳申亥寅")


# ------------------------------------------------------------------ L115–131
def test_tianyi_doctor():
    # 「正月以丁卯為天醫」「二月乙遁得丁亥」「三月則以丁丑為天醫」 … 「十二月乙遁復得丁亥終焉」
    assert month_row("天醫") == "卯亥丑未巳卯亥丑未巳卯亥"
    ganzhi = Options(tianyi_value="ganzhi")
    assert val("天醫", month=br("寅"), options=ganzhi) == gz("丁卯")
    assert val("天醫", month=br("辰"), options=ganzhi) == gz("丁丑")
    # 「發微通書，以天喜為天醫誤矣」: never the 天喜 table
    assert month_row("天醫") != month_row("天喜")


def test_huoyao_leihuo_wangluo_tianermu():
    assert month_row("活曜") == "卯辰巳午未申酉戌亥子丑寅"  # 「活曜法，正月從卯順行」
    assert month_row("雷火") == "寅亥申巳" * 3  # 「正寅二亥，三申四巳，循環三復是焉」
    assert month_row("網羅") == month_row("雷火")  # 「然網羅同之」
    assert "網羅" not in [
        h.name for h in evaluate(ANY_DAY, br("寅"), options=Options(wangluo="unstated")).stars
    ]
    # 「春巳夏寅秋亥冬申天耳也，春亥夏申秋巳冬寅天目也」
    assert [chars(val("天耳", month=br(m))) for m in "卯午酉子"] == list("巳寅亥申")
    assert [chars(val("天目", month=br(m))) for m in "卯午酉子"] == list("亥申巳寅")
    # 「旌旗春卯夏子秋酉冬子」
    assert [chars(val("旌旗", month=br(m))) for m in "卯午酉子"] == list("卯子酉子")


def test_tiangang_and_animals():
    assert month_row("天罡煞") == "寅卯辰巳" * 3  # 「正月…二卯三辰四巳…復寅而三重之」
    assert month_row("天犬")[0] == "戌" and month_row("天犬")[1] == "亥"  # 「天犬正月從戌順行」
    # 「豬鼠牛正月從亥子丑逆行也」
    assert month_row("天豬")[:3] == "亥戌酉"
    assert month_row("天鼠")[:3] == "子亥戌"
    assert month_row("天牛")[:3] == "丑子亥"


# ------------------------------------------------------------------ L135–155
def test_gouchen_anjin_posui():
    assert month_row("勾陳煞")[:3] == "辰卯寅"  # 「正月自辰起逆行」
    assert month_row("暗金") == "巳酉丑" * 4  # 「暗金以巳酉丑，自正月四輪複數是也」
    # 「辰戌丑未月在丑，寅申巳亥月在酉，子午卯酉月在蛇」
    for m in MONTHS:
        assert val("破碎", month=m).char == {0: "酉", 1: "巳", 2: "丑"}[(m - 2) % 3]


def test_hao_huangwu_yuekong_yuesha():
    assert month_row("大耗") == "申酉戌亥子丑寅卯辰巳午未"  # 「正月起申順行為大耗」
    assert month_row("小耗")[0] == "未"  # 「起未順行為小耗」
    # 「荒蕪之法，春巳酉丑，夏辰申子，秋卯未亥，冬寅午戌」
    assert [chars(val("荒蕪", month=br(m))) for m in "寅巳申亥"] == ["丑巳酉", "子辰申", "卯未亥", "寅午戌"]
    assert val("月空", month=br("午")).char == "壬"  # 「寅午戌月壬廢為月空」
    # 「壬水衰於丑，故丑為月煞，亥卯未月庚廢戌煞，申子辰月丙廢未煞，巳酉丑月甲廢辰煞」
    for group, (stem, b) in {"寅午戌": "壬丑", "亥卯未": "庚戌", "申子辰": "丙未", "巳酉丑": "甲辰"}.items():
        for m in group:
            assert val("月空", month=br(m)).char == stem and val("月煞", month=br(m)) == br(b)


def test_tianzei_tiangou_dizei_tianzhu_tianhuo():
    # verse 「正龍二雞三虎鄉，四羊五鼠六蛇藏，七犬八兔九猴位，十牛子馬丑豬忙」
    assert month_row("天賊") == "辰酉寅未子巳戌卯申丑午亥"
    # 「春之天賊，辰滿酉破寅開也，秋之天賊，戌滿卯破申開也」
    assert month_row("天賊")[6:9] == "戌卯申"
    # 「隨賊而吠，天狗也，其義欲除之、執之、收之」 (main text, default): 建除 除 (孟) 執 (仲) 收 (季) = 天賊 − 1
    assert month_row("天狗") == "卯申丑午亥辰酉寅未子巳戌"
    assert month_row("天狗") == "".join(Branch.from_char(c).shift(-1).char for c in month_row("天賊"))
    # option tiangou=chong, the note 「天狗隨之沖擊也」: 沖 of 天賊
    assert month_row("天狗", options=Options(tiangou="chong")) == "".join(
        Branch.from_char(c).shift(6).char for c in month_row("天賊")
    )
    assert month_row("地賊")[:2] == "丑子"  # 「地賊出丑而逆行焉」
    assert month_row("天燭")[0] == "巳" and month_row("天燭")[-1] == "辰"  # 「正月起蛇宮，蕩蕩順行數至龍」
    assert month_row("天火") == "子卯午酉" * 3  # 「寅午戌月火局胎於子」「五九月又起子，故一歲三復」


def test_tianguanfu_worked_example():
    # 「如子年…十月在中宮…十一月在乾，十二月在兌…正月入中宮，二月乾，三月兌，四月艮，五月離，六坎，七坤，八震，九巽」
    expect = "中乾兌艮離坎坤震巽"
    for i, palace in enumerate(expect):
        assert val("天官符", month=MONTHS[i], year=gz("甲子")).startswith(palace)
    for m, palace in zip("亥子丑", "中乾兌", strict=True):
        assert val("天官符", month=br(m), year=gz("甲子")).startswith(palace)
    # 「設如七月占，若鬼動坤宮，為天官符也」
    assert val("天官符", month=br("申"), year=gz("丙子")) == "坤宮"
    # 申子辰 years share the table (「以年局臨官於中宮」)
    assert val("天官符", month=br("申"), year=gz("甲辰")) == "坤宮"


def test_shengqi_siqi_guanfu_chuimen():
    assert (
        month_row("生氣")[0] == "子" and month_row("死氣")[0] == "午"
    )  # 「生氣正月從子順行，死氣及官符從午順行」
    assert month_row("官符") == month_row("死氣")
    # 「正七慮行村，二八鼠當門，三九居戌位，四十弄猴猻，五十一騎馬走，六十二跳龍門」 (慮 = 虎)
    assert month_row("鎚門官符") == "寅子戌申午辰" * 2


# ------------------------------------------------------------------ L159–179
def test_tianyu_diyu():
    # 「寅午戌月絕於亥，巳酉丑月絕於寅」; 「如申子辰水局絕巳」; verse 「正月逢亥二月申，三月隨蛇四月寅」
    assert month_row("天獄") == "亥申巳寅" * 3
    assert month_row("地獄")[:3] == "戌酉申"  # 「故地獄自正月起戌逆行」


def test_xueren_xueji():
    # 「故正三五七九鼠月，以丑寅卯辰巳午為血刃」「故二四六八十臘月，以未申酉戌亥子為血忌」
    odd, even = MONTHS[0::2], MONTHS[1::2]
    assert "".join(val("血刃", month=m).char for m in odd) == "丑寅卯辰巳午"
    assert "".join(val("血忌", month=m).char for m in even) == "未申酉戌亥子"
    for m in even:
        assert evaluate(ANY_DAY, m).get("血刃") is None
    combined = Options(xueji="combined")
    assert (
        month_row("血忌", options=combined)
        == month_row("血刃", options=combined)
        == "丑未寅申卯酉辰戌巳亥午子"
    )


def test_yangren():
    # 「如甲祿在寅，則右順卯為羊刃，乙祿到卯，則左逆寅為羊刃，丙戊祿巳，則右順午為羊刃，丁己祿午，則左逆巳為羊刃」
    # verse 「乙逢寅動當為刃，辛見申搖豈不凶，丁己忌巳癸憂亥」
    for stem, b in {
        "甲": "卯",
        "乙": "寅",
        "丙": "午",
        "戊": "午",
        "丁": "巳",
        "己": "巳",
        "辛": "申",
        "癸": "亥",
    }.items():
        assert val("羊刃", day=day_with_stem(stem)) == br(b)
    assert val("羊刃", day=day_with_stem("乙")) != br("辰")  # 「誤認乙祿到卯，辰為羊刃之說，特為正之」


def test_yinsha_zhesha_yupen_xianchi():
    assert month_row("陰煞") == "寅辰午申戌子" * 2  # 「正七寅、二八辰、三九午、四十申、五十一戌、六十二子」
    # 「寅午戌以酉為折，申子辰以卯為折也」「如二六十月午為折煞，巳酉丑月子為看煞」
    for group, b in {"寅午戌": "酉", "申子辰": "卯", "卯未亥": "午", "巳酉丑": "子"}.items():
        for m in group:
            assert val("折煞", month=br(m)) == br(b)
    # 「春木養戌，而辰折之」「如火養在丑，為未暴折」; 「春辰夏未秋逢戌，冬季推來在丑神」
    assert [chars(val("浴盆煞", month=br(m))) for m in "寅巳申亥"] == list("辰未戌丑")
    # 「寅午戌，兔從卯裡出，亥卯未，鼠子當頭忌，申子辰，雞叫亂人偷，巳酉丑，躍馬南方來」
    for group, b in {"寅午戌": "卯", "亥卯未": "子", "申子辰": "酉", "巳酉丑": "午"}.items():
        for m in group:
            assert val("咸池", month=br(m)) == br(b)


# ------------------------------------------------------------------ L183–199
def test_tianku_sangmen_diaoke():
    assert month_row("天哭") == "未申酉戌" * 3  # 「故正未二申三酉四戌，五復未而再三」
    # 「以寅午戌月墓戌，亥卯未月墓未，申子辰月墓辰，巳酉丑月墓丑，如正月戌為喪門，則辰為弔客」
    for group, b in {"寅午戌": "戌", "亥卯未": "未", "申子辰": "辰", "巳酉丑": "丑"}.items():
        for m in group:
            assert val("喪門", month=br(m)) == br(b)
    assert val("弔客", month=br("寅")) == br("辰")


def test_wangren_sangche_wumu_sanqiu():
    # 「蓋冬水以巳絕，乘午為喪車」; 「喪車春雞夏鼠來，秋卯冬午」
    assert val("亡人", month=br("子")) == br("巳") and val("喪車", month=br("子")) == br("午")
    assert [chars(val("喪車", month=br(m))) for m in "寅巳申亥"] == list("酉子卯午")
    # 「故春木墓未，夏火墓戌」; 「羊犬牛龍五墓尋」; 「故春以丑為坵」; 「丑辰未戌三坵煞」
    assert [chars(val("五墓", month=br(m))) for m in "寅巳申亥"] == list("未戌丑辰")
    assert [chars(val("三坵", month=br(m))) for m in "寅巳申亥"] == list("丑辰未戌")


def test_guchen_guasu_guansuo():
    # 「寅卯辰，巳孤丑寡，巳午未，申孤辰寡，申酉戌，亥孤未寡，亥子丑，寅孤戌寡」
    assert [chars(val("孤辰", month=br(m))) for m in "辰午酉丑"] == list("巳申亥寅")
    assert [chars(val("寡宿", month=br(m))) for m in "辰午酉丑"] == list("丑辰未戌")
    # 「申酉戌月，亥關鎖也」; verse 「春關牛與蛇，夏鎖龍猴嗟，秋忌羊豬位，冬犬虎交加」
    for m in "申酉戌":
        assert val("關", month=br(m)) == br("亥")
    combined = Options(guansuo="combined")
    for m, pair in zip("寅巳申亥", ["丑巳", "辰申", "未亥", "寅戌"], strict=True):
        result = evaluate(ANY_DAY, br(m), options=combined)
        assert chars(result.get("關鎖").value) == pair and result.get("鎖") is None


def test_wangwang_guiji_juelu_fuzhou_bailang():
    # 「正寅二巳三申位，四豬五兔六馬悲，七雞八鼠九辰忌，十羊子犬丑牛危」
    assert month_row("往亡") == "寅巳申亥卯午酉子辰未戌丑"
    # 「蓋子月當子而反孟寅，丑月當丑而反仲子，寅月當寅而反季丑」
    assert val("歸忌", month=br("子")) == br("寅")
    assert val("歸忌", month=br("丑")) == br("子")
    assert val("歸忌", month=br("寅")) == br("丑")
    # 「甲己五遁，壬癸加申酉，故申酉為絕路」; 「甲己申酉…乙庚午未…丙辛辰巳…丁壬寅卯…戊癸子丑」
    for stems, pair in {
        "甲己": "申酉",
        "乙庚": "午未",
        "丙辛": "辰巳",
        "丁壬": "寅卯",
        "戊癸": "子丑",
    }.items():
        for s in stems:
            assert chars(val("絕路空", day=day_with_stem(s))) == pair
    assert month_row("覆舟")[0] == "申" and month_row("白浪") == "寅卯辰巳午未申酉戌亥子丑"


# ------------------------------------------------------------------ L203–219
def test_heshen():
    # 「因從巳酉下地 … 四維六日而更，四正五日而遷，第四十五日上天而居於房北 … 戊申居中」
    assert val("鶴神", day=gz("己酉")) == "東北"
    assert val("鶴神", day=gz("甲寅")) == "東北"  # 6th day
    assert val("鶴神", day=gz("乙卯")) == "東"  # 7th day
    assert val("鶴神", day=gz("癸巳")) == "上天房北"  # the 45th day
    assert val("鶴神", day=gz("戊戌")) == "上天房中"  # 「復五日而入房中」
    assert val("鶴神", day=gz("戊申")) == "中宮"
    days = [val("鶴神", day=GanZhi.of(45 + i)) for i in range(44)]
    assert len(set(days)) == 8 and days.count("東北") == 6 and days.count("東") == 5


def test_wufu_family():
    # 「蓋以甲祿在寅為法，寅乃五符」「風伯乃巽位」「亥為天關，子為地匣」「陽順陰逆」
    jia = day_with_stem("甲")
    assert val("五符", day=jia) == br("寅") and val("風伯", day=jia) == br("巳")
    assert val("天關", day=jia) == br("亥") and val("地匣", day=jia) == br("子")
    assert val("天賊(五符)", day=jia) == br("丑")
    yi = day_with_stem("乙")
    assert val("五符", day=yi) == br("卯") and val("天曹", day=yi) == br("寅")


def test_gangkui():
    # 「天罡正月起巳順行，河魁正月起亥順行」
    assert month_row("天罡") == "巳午未申酉戌亥子丑寅卯辰"
    assert month_row("河魁") == "亥子丑寅卯辰巳午未申酉戌"


def test_taisui_twelve():
    # 「十二年喪門以寅為始」「白虎以申為始焉，飛廉附之」「以辰起官符 … 五鬼附之」「歲之沖曰歲破，欄杆附之」
    # 「戌 … 故名弔客，天狗附之」「巳始死符，亥始病符」「以丑起太陽，卯起太陰，未起龍德，酉起福德」
    year = gz("甲子")
    expect = {"太歲": "子", "太陽": "丑", "喪門(歲)": "寅", "太陰": "卯", "官符(歲)": "辰", "死符": "巳", "歲破": "午",
              "龍德": "未", "白虎": "申", "福德": "酉", "弔客(歲)": "戌", "病符": "亥",
              "飛廉": "申", "五鬼": "辰", "欄杆": "午", "天狗(歲)": "戌"}  # fmt: skip
    for name, b in expect.items():
        assert val(name, year=year) == br(b), name
    # 「又有月上飛廉，正月從申逆行，月上五鬼，正月從寅逆行」
    assert month_row("月上飛廉")[:3] == "申未午"
    assert month_row("月上五鬼")[:3] == "寅丑子"


def test_dingshen_seed_003():
    # seed 003 (庚辰日, 甲戌旬): 「丑旬遁為丁鬼」
    assert val("丁神", day=gz("庚辰")) == br("丑")
