"""The eight worked 課 of seed 003 (spec/liuren.md §5): 干上, 三傳, method and the facts their text states.

All eight are in the 甲戌旬 (空 申酉). Expected values are quoted from the seed text, not from our output.
"""

import pytest

from engine.core.cycle import Branch, GanZhi, Stem
from engine.liuren import General, Method, chart_for_ju

B = Branch.from_char
G = General.from_char

# (day, 局, 干上, 三傳, method, the 九宗門 name the 課體 line starts with)
SEED003 = [
    ("庚辰", 8, "丑", "寅未子", Method.ZEIKE, "重審"),  # 「課體：重審，驀越，引從」; 中傳入墓 → 未 (not 丑)
    ("庚辰", 9, "子", "辰申子", Method.ZEIKE, "元首"),  # 「課體：元首，潤下，不備…」; 「初末水土」 → 辰…子
    ("庚辰", 10, "亥", "寅巳申", Method.YAOKE, "彈射"),  # 「課體：彈射，元胎」
    ("庚辰", 11, "戌", "申戌子", Method.SHEHAI, "涉害"),  # 「課體：涉害，間傳，斬關，涉三淵」
    ("庚辰", 12, "酉", "午未申", Method.YAOKE, "蒿矢"),  # 「課體：蒿矢，進茹，麗明」
    ("辛巳", 1, "戌", "巳申寅", Method.FUYIN, "伏吟"),  # 「課體：伏吟，元胎，斬關」
    ("辛巳", 2, "酉", "卯寅丑", Method.ZEIKE, "元首"),  # 「課體：元首，退茹，斬關，勵德」
    ("辛巳", 3, "申", "丑亥酉", Method.ZEIKE, "重審"),  # 間傳 極陰; 「辛巳日丑加卯為用」 (神應經)
]


def chart(day: str, ju: int, daytime: bool = True):
    return chart_for_ju(GanZhi.parse(day), ju, daytime=daytime)


@pytest.mark.parametrize(("day", "ju", "gan_shang", "trans", "method", "name"), SEED003)
def test_seed003_chart(day, ju, gan_shang, trans, method, name):
    c = chart(day, ju)
    assert c.lessons[0].upper == B(gan_shang)
    assert c.lessons[0].lower == GanZhi.parse(day).stem
    assert "".join(b.char for b in c.branches) == trans
    assert c.method is method
    assert name in c.method_names
    assert c.xunkong == (B("申"), B("酉"))  # all in the 甲戌旬


def test_entry1_gengchen_8():
    c = chart("庚辰", 8)
    # 「干上丑為旬奇 … 丑旬遁為丁鬼」
    assert c.dun_stem(B("丑")) == Stem.DING
    # 「晝為旦貴臨身」: the day 貴人 rides 丑 over 申 (庚 寄申)
    assert c.guiren == B("丑") and c.earth_of(B("丑")) == B("申")
    # 「因坐空鄉」: the 初傳 寅 sits on a 空 branch
    assert c.transmissions[0].seat in c.xunkong
    # 秦瑞生《畢法賦精注詳解》: 「庚辰日第8局 … 初傳寅加酉」
    assert c.transmissions[0].seat == B("酉")
    # 「中傳入墓 … 丑未相沖」: 未 is 中傳, 丑 is 干上
    assert c.transmissions[1].branch == B("未")
    # 重審: a single 下賊上 (寅 over 酉: 金克木)
    assert c.trace.rule == "zeike.chongshen"
    assert [x.branch for x in c.trace.candidates] == [B("寅")]
    # 「寅為日之財」
    assert c.transmissions[0].relative == "財"
    # 局 numbering trap: 丑 over 申 means offset 5, 局 8 (not offset + 1)
    assert c.offset == 5 and c.ju == 8


def test_entry2_gengchen_9():
    c = chart("庚辰", 9)
    assert c.transmissions[1].branch == B("申") and c.transmissions[1].is_empty  # 「中申又值旬空」
    assert c.transmissions[1].dun_stem is None
    assert c.distinct_lessons == 3  # 不備
    # 「兩貴臨門，晝貴…夜貴」: 晝貴丑 on 酉, 夜貴未 on 卯
    assert c.guiren == B("丑") and c.earth_of(B("丑")) == B("酉")
    night = chart("庚辰", 9, daytime=False)
    assert night.guiren == B("未") and night.earth_of(B("未")) == B("卯")
    # 「三傳盜洩旺氣」: the 末傳 子 is 盜 (我生) of 庚
    assert c.transmissions[2].relative == "盜"


def test_entry3_gengchen_10():
    c = chart("庚辰", 10)
    night = chart("庚辰", 10, daytime=False)
    # 「夜貴旬尾臨辰」: 夜貴未 (旬尾 of 甲戌旬) over 辰
    assert night.guiren == B("未") and night.earth_of(B("未")) == B("辰")
    assert c.transmissions[2].branch == B("申") and c.transmissions[2].is_empty  # 「末傳申值旬空」
    assert c.earth_of(B("申")) == B("巳")  # 「申加巳為生胎」
    assert night.general_on(B("寅")) is G("白虎")  # 「寅妻乘白虎」 (夜)
    assert c.transmissions[0].relative == "財"  # 「寅乃日之財」
    assert c.trace.rule == "yaoke.danshe"


def test_entry4_gengchen_11():
    c = chart("庚辰", 11)
    night = chart("庚辰", 11, daytime=False)
    depths = {x.branch: x.depth for x in c.trace.candidates}
    assert depths[B("申")] > depths[B("子")]  # 涉害: 申 deeper than 子
    assert c.trace.tie_break is None
    assert c.general_on(B("申")) is G("白虎")  # 「申，虎也。又乘晝虎」
    assert c.general_on(B("戌")) is G("玄武") and night.general_on(B("戌")) is G("玄武")  # 「戌乘兩武」
    assert c.guiren == B("丑") and c.earth_of(B("丑")) == B("亥")  # 「貴登天門」
    assert c.transmissions[0].is_empty  # 「初傳申為旬空」
    assert c.transmissions[1].seat in c.xunkong  # 「中傳戌為坐空」


def test_entry5_gengchen_12():
    c = chart("庚辰", 12)
    night = chart("庚辰", 12, daytime=False)
    # 蒿矢: 巳 and 午 both 克 庚 from afar; 午 is 比 (陽) with 庚
    assert sorted(x.branch for x in c.trace.candidates) == [B("巳"), B("午")]
    assert c.trace.chosen == B("午") and c.trace.rule == "yaoke.haoshi.bi"
    assert c.method_names == ("蒿矢",)
    assert c.general_on(B("申")) is G("白虎") and c.transmissions[2].is_empty  # 「又乘晝虎 … 值旬空」
    assert night.general_on(B("未")) is G("貴人")  # 「初傳末傳，又拱中傳夜貴」


def test_entry6_xinsi_1():
    c = chart("辛巳", 1)
    assert c.method_names == ("伏吟", "自信")
    assert c.transmissions[1].branch == B("申") and c.transmissions[1].is_empty  # 「中既空亡」


def test_entry7_xinsi_2():
    c = chart("辛巳", 2)
    night = chart("辛巳", 2, daytime=False)
    assert c.dun_stem(B("丑")) == Stem.DING  # 「末傳丑遁旬丁」
    assert night.general_on(c.lessons[0].upper) is G("白虎")  # 「干乘白虎」 (干上酉, 夜)
    assert c.lessons[2].upper == B("辰")  # 罡 (辰) on 支
    assert c.general_on(B("辰")) is G("朱雀") and night.general_on(B("辰")) is G("朱雀")  # 「晝夜皆乘朱雀」


def test_entry8_xinsi_3():
    c = chart("辛巳", 3)
    night = chart("辛巳", 3, daytime=False)
    assert c.transmissions[0].general is G("青龍")  # 「青龍發用」 (晝)
    assert night.general_on(B("申")) is G("天空") and B("申") in c.xunkong  # 「申夜空空」
    assert c.general_on(B("酉")) is G("玄武") and night.general_on(B("酉")) is G("白虎")  # 「晝元夜虎」
    assert c.earth_of(B("丑")) == B("卯") and night.general_on(B("丑")) is G("天后")  # 「丑加卯，夜占乘後」
    assert (
        c.transmissions[0].relative == "印" and c.transmissions[1].relative == "盜"
    )  # 「丑為日墓，亥為日脫」
