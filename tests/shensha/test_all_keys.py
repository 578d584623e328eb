"""Every star against its generative rule (as spec shensha.md states it, written here independently of the data)
for all keys: 12 months, 10 stems, 12 day branches, 60 days, 12 years; and the seed-002 tables parsed from the seed."""

from __future__ import annotations

import re

import pytest

from engine.core.cycle import Branch, Element, GanZhi, Stem
from engine.shensha import evaluate, star_defs
from tests.shensha.helpers import MONTHS, SEEDS, day_with_stem

B = Branch
BR = "子丑寅卯辰巳午未申酉戌亥"
DAY = GanZhi.parse("甲子")


def b(i: int) -> Branch:
    return Branch(i % 12)


def ch(v):
    if isinstance(v, tuple):
        return tuple(sorted(v))
    return v


# ------------------------------------------------------------------ month stars: m = 月建 index (子 = 0), i = 正月 0 …
def _group_middle(m):  # 中神 of the month's 三合: 子 午 卯 酉
    return {0: 0, 1: 9, 2: 6, 3: 3}[m % 4]


def _group_start(m):  # 長生 of the 三合: 申 巳 寅 亥
    return _group_middle(m) - 4


MONTH_RULES = {
    "天德": lambda m, i: b(m + 9),
    "月德": lambda m, i: b(m + 5),
    "天財": lambda m, i: b(4 + 2 * i),
    "地財": lambda m, i: b(5 + 2 * i),
    "天馬": lambda m, i: b(6 + 2 * i),
    "天喜": lambda m, i: b(m + 8),
    "活曜": lambda m, i: b(3 + i),
    "雷火": lambda m, i: b(_group_start(m)),
    "網羅": lambda m, i: b(_group_start(m)),
    "天罡煞": lambda m, i: b(2 + i % 4),
    "天犬": lambda m, i: b(10 + i),
    "天豬": lambda m, i: b(11 - i),
    "天鼠": lambda m, i: b(0 - i),
    "天牛": lambda m, i: b(1 - i),
    "勾陳煞": lambda m, i: b(4 - i),
    "暗金": lambda m, i: b((5, 9, 1)[i % 3]),
    "破碎": lambda m, i: b((9, 5, 1)[i % 3]),
    "大耗": lambda m, i: b(m + 6),
    "小耗": lambda m, i: b(m + 5),
    "天賊": lambda m, i: b(m + (2, 6, 10)[i % 3]),  # 建除 滿 (孟) 破 (仲) 開 (季): 「辰滿酉破寅開」
    "天狗": lambda m, i: b(m + (1, 5, 9)[i % 3]),  # 建除 除 (孟) 執 (仲) 收 (季): 「欲除之、執之、收之」
    "地賊": lambda m, i: b(1 - i),
    "天燭": lambda m, i: b(5 + i),
    "天火": lambda m, i: b(3 * i),
    "生氣": lambda m, i: b(i),
    "死氣": lambda m, i: b(6 + i),
    "官符": lambda m, i: b(6 + i),
    "鎚門官符": lambda m, i: b(2 - 2 * i),
    "天獄": lambda m, i: b(_group_start(m) - 3),
    "地獄": lambda m, i: b(10 - i),
    "陰煞": lambda m, i: b(2 + 2 * i),
    "折煞": lambda m, i: b(_group_start(m) + 7),
    "咸池": lambda m, i: b(_group_start(m) + 1),
    "天哭": lambda m, i: b(7 + i % 4),
    "喪門": lambda m, i: b(_group_middle(m) + 4),
    "弔客": lambda m, i: b(_group_middle(m) + 10),
    "往亡": lambda m, i: b(2 + i // 4 + 3 * (i % 4)),
    "歸忌": lambda m, i: b((1, 2, 0)[i % 3]),
    "覆舟": lambda m, i: b(8 + i),
    "白浪": lambda m, i: b(2 + i),
    "月解": lambda m, i: b((8, 9, 10, 11, 6, 7)[i // 2]),
    "天醫": lambda m, i: b((3, 11, 1, 7, 5)[i % 5]),
    "月上飛廉": lambda m, i: b(8 - i),
    "月上五鬼": lambda m, i: b(2 - i),
    "紫微": lambda m, i: b(i),
    "天市": lambda m, i: b(2 + i),
    "太微": lambda m, i: b(5 + i),
    "天罡": lambda m, i: b(5 + i),
    "河魁": lambda m, i: b(11 + i),
    "月建": lambda m, i: b(m),
    "月將": lambda m, i: b(1 - m),  # 六合 of 月建
    "將星": lambda m, i: b(_group_middle(m)),
    "亡神": lambda m, i: b(_group_middle(m) + 11),
    "驛馬": lambda m, i: b(_group_start(m) + 6),
    "月煞(將星)": lambda m, i: b(_group_middle(m) + 10),
    "月煞": lambda m, i: b({2: 1, 3: 10, 0: 7, 1: 4}[m % 4]),
}

SEASON_RULES = {  # q = 0 春 … 3 冬
    "天解": lambda q: b(2 + 3 * q),
    "喝散": lambda q: b(5 + 3 * q),
    "天耳": lambda q: b(5 - 3 * q),
    "天目": lambda q: b(11 - 3 * q),
    "浴盆煞": lambda q: b(4 + 3 * q),
    "亡人": lambda q: b(8 + 3 * q),
    "喪車": lambda q: b(9 + 3 * q),
    "五墓": lambda q: b(7 + 3 * q),
    "三坵": lambda q: b(1 + 3 * q),
    "孤辰": lambda q: b(5 + 3 * q),
    "寡宿": lambda q: b(1 + 3 * q),
    "關": lambda q: b(5 + 3 * q),
    "鎖": lambda q: b(1 + 3 * q),
    "旌旗": lambda q: b((3, 0, 9, 0)[q]),
    "荒蕪": lambda q: tuple(sorted(b(5 + 3 * q + 4 * k) for k in range(3))),
}

STEM_RULES = {  # s = stem index
    "天元祿": lambda s: b((2, 3, 5, 6, 5, 6, 8, 9, 11, 0)[s]),
    "羊刃": lambda s: b((2, 3, 5, 6, 5, 6, 8, 9, 11, 0)[s] + (1 if s % 2 == 0 else -1)),
    "文昌": lambda s: b(10) if s == 7 else b((2, 3, 5, 6, 5, 6, 8, 9, 11, 0)[s] + 3),
    "陽貴": lambda s: b((7, 8, 9, 11, 1, 0, 1, 2, 3, 5)[s]),
    "陰貴": lambda s: b((1, 0, 11, 9, 7, 8, 7, 6, 5, 3)[s]),
    "天廚貴人": lambda s: b((5, 6, 0, 5, 6, 8, 2, 6, 9, 11)[s]),
    "喜神": lambda s: b((2, 10, 8, 6, 4)[s % 5]),
    "絕路空": lambda s: (b((8, 6, 4, 2, 0)[s % 5]), b((8, 6, 4, 2, 0)[s % 5] + 1)),
    "五符": lambda s: b((2, 3, 5, 6, 5, 6, 8, 9, 11, 0)[s]),
    "天賊(五符)": lambda s: b((2, 3, 5, 6, 5, 6, 8, 9, 11, 0)[s] + (11 if s % 2 == 0 else -11)),
    "天關": lambda s: b((2, 3, 5, 6, 5, 6, 8, 9, 11, 0)[s] + (9 if s % 2 == 0 else -9)),
}


@pytest.mark.parametrize("name", sorted(MONTH_RULES))
def test_month_star_for_all_twelve_months(name):
    for m in MONTHS:
        i = (m - 2) % 12
        assert evaluate(DAY, m).get(name).value == MONTH_RULES[name](int(m), i), (name, m.char)


@pytest.mark.parametrize("name", sorted(SEASON_RULES))
def test_season_star_for_all_months(name):
    for m in MONTHS:
        q = ((m - 2) % 12) // 3
        assert ch(evaluate(DAY, m).get(name).value) == ch(SEASON_RULES[name](q)), (name, m.char)


@pytest.mark.parametrize("name", sorted(STEM_RULES))
def test_stem_star_for_all_ten_stems(name):
    for s in Stem:
        assert ch(evaluate(day_with_stem(s)).get(name).value) == ch(STEM_RULES[name](int(s))), (name, s.char)


def test_tiangan_tiande_tiangan_yuede_yuekong_all_months():
    for m in MONTHS:
        r = evaluate(DAY, m)
        group = {2: "火", 3: "木", 0: "水", 1: "金"}[m % 4]
        yang = {"木": Stem.JIA, "火": Stem.BING, "金": Stem.GENG, "水": Stem.REN}[group]
        assert r.get("天干月德").value == yang
        assert (
            r.get("月空").value
            == {Stem.JIA: Stem.GENG, Stem.BING: Stem.REN, Stem.GENG: Stem.JIA, Stem.REN: Stem.BING}[yang]
        )
        if m % 3 == 0:  # 子午卯酉: 坤乾艮巽 branch
            assert r.get("天干天德").value == m.shift(5)
        else:
            assert isinstance(r.get("天干天德").value, Stem)


def test_jiangxing_family_keyed_by_day_for_all_branches():
    from engine.shensha import Options

    opts = Options(jiangxing_key="day")
    for i in range(60):
        day = GanZhi.of(i)
        mid = _group_middle(int(day.branch))
        r = evaluate(day, B.YIN, options=opts)
        assert r.get("將星").value == b(mid) and r.get("亡神").value == b(mid + 11)
        assert r.get("將星").key == "day branch"
        assert r.get("咸池").value == b(_group_start(int(day.branch)) + 1)


def test_year_stars_all_years():
    for i in range(12):
        year = GanZhi.of(i)
        r = evaluate(DAY, year=year)
        for k, name in enumerate(
            [
                "太歲",
                "太陽",
                "喪門(歲)",
                "太陰",
                "官符(歲)",
                "死符",
                "歲破",
                "龍德",
                "白虎",
                "福德",
                "弔客(歲)",
                "病符",
            ]
        ):
            assert r.get(name).value == year.branch.shift(k)


def test_tianguanfu_all_groups_start_in_the_center_at_linguan():
    for year_char, start in {"子": "亥", "午": "巳", "酉": "申", "卯": "寅"}.items():
        year = next(GanZhi.of(i) for i in range(60) if GanZhi.of(i).branch.char == year_char)
        assert evaluate(DAY, Branch.from_char(start), year).get("天官符").value == "中宮"
        nxt = Branch.from_char(start).shift(3)
        assert evaluate(DAY, nxt, year).get("天官符").value == "中宮"


def test_heshen_covers_sixty_days_with_the_stated_stays():
    seq = [evaluate(GanZhi.of(45 + k)).get("鶴神").value for k in range(60)]
    runs = []
    for v in seq:
        if runs and runs[-1][0] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    assert [n for _, n in runs] == [6, 5, 6, 5, 6, 5, 6, 5, 5, 2, 3, 1, 4, 1]


def test_pojun_all_months_and_hours():
    for m in MONTHS:
        for h in Branch:
            r = evaluate(DAY, m, hour=h)
            assert r.get("破軍").value == b(m + h + 2)
            assert r.get("左輔").value == b(m + h + 3) and r.get("右弼").value == b(m + h + 4)


def test_dingshen_all_days():
    for i in range(60):
        day = GanZhi.of(i)
        hit = evaluate(day).get("丁神")
        head = day.xun_head
        assert Stem((head.index + (hit.value - head.branch) % 12) % 10) == Stem.DING


# ------------------------------------------------------------------ seed 002, parsed from the seed's own text
def _parse_stem_clauses(text: str) -> dict[str, str]:
    """「甲乙日亥子，丙丁日寅卯…」 → {stem: branches}; handles 002's slip 「甲乙卯」 (= 甲日卯)."""
    out: dict[str, str] = {}
    for part in re.split("[，,]", text):
        part = part.strip()
        if not part:
            continue
        if "日" in part:
            stems, branches = part.split("日")
        else:  # 「甲乙卯」
            stems, branches = part[0], part[-1]
        for s in stems:
            out.setdefault(s, branches)
    return out


def _seed002_clause(name: str) -> str:
    for text in SEEDS["002"].values():
        m = re.search(rf"(?:^|[。 ]){name} ([^。若]*?)[。，]?若問", text)
        if m:
            return m.group(1)
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["印", "盜", "鬼", "財", "劫"])
def test_liuqin_tables_from_seed_text(name):
    table = _parse_stem_clauses(_seed002_clause(name))
    assert set(table) == set("甲乙丙丁戊己庚辛壬癸")
    for s, branches in table.items():
        got = evaluate(day_with_stem(s)).get(name).value
        assert sorted(x.char for x in got) == sorted(branches), (name, s)


@pytest.mark.parametrize("name", "長生 沐浴 冠帶 臨官 帝旺 衰 病 死 墓 絕 胎 養".split())
def test_changsheng_tables_from_seed_text(name):
    table = _parse_stem_clauses(_seed002_clause(name))
    assert set(table) == set("甲乙丙丁戊己庚辛壬癸"), (name, table)
    for s, branch in table.items():
        assert evaluate(day_with_stem(s)).get(name).value.char == branch, (name, s)


def test_relations_and_ma_from_seed_text():
    text = "".join(SEEDS["002"].values())
    for a, c in re.findall("(.)(.)相沖", text):
        assert (
            evaluate(GanZhi.from_parts(Stem(BR.index(a) % 2), Branch.from_char(a))).get("沖").value.char == c
        )
    for kind in "破害合":
        for a, c in re.findall(f"(.)(.)相{kind}", text):
            for x, y in ((a, c), (c, a)):
                day = GanZhi.from_parts(Stem(BR.index(x) % 2), Branch.from_char(x))
                assert evaluate(day).get(kind).value.char == y, (kind, x)
    for a, c in re.findall("(.)刑(.)", _seed002_clause("刑")):
        c = a if c == "害" else c  # 002 slip 「亥刑害」 = 亥刑亥
        day = GanZhi.from_parts(Stem(BR.index(a) % 2), Branch.from_char(a))
        assert evaluate(day).get("刑").value.char == c
    for group, c in re.findall("(...)日(.)", _seed002_clause("馬")):
        for x in group:
            day = GanZhi.from_parts(Stem(BR.index(x) % 2), Branch.from_char(x))
            assert evaluate(day).get("馬").value.char == c


@pytest.mark.parametrize("grade", ["旺", "相", "死", "囚", "休"])
def test_vitality_from_seed_text(grade):
    clause = next(
        m.group(1) for t in SEEDS["002"].values() for m in re.finditer(rf"{grade} (春[^。若]*)。?若問", t)
    )
    seasons = {"春": "寅卯", "夏": "巳午", "秋": "申酉", "冬": "亥子", "季月": "辰未戌丑"}
    name = "死(旺相)" if grade == "死" else grade
    for part in clause.rstrip("。").split("、"):
        season = "季月" if part.startswith("季月") else part[0]
        branches = part[len(season) :]
        for m in seasons[season]:
            got = evaluate(DAY, Branch.from_char(m)).get(name).value
            assert sorted(x.char for x in got) == sorted(branches), (grade, m)


def test_month_jian_jiang_and_xunkong_from_seed_text():
    numbers = ["正", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]
    for name in ("月建", "月將"):
        clause = _seed002_clause(name)
        cells = re.findall("([正二三四五六七八九十一]+)月(.)", clause)
        assert len(cells) == 12
        for num, c in cells:
            month = MONTHS[numbers.index(num)]
            assert evaluate(DAY, month).get(name).value.char == c
    xun = re.search("旬空 (.*?)謂之逢空", "".join(SEEDS["002"].values())).group(1)
    assert len(re.findall("(甲.)旬中(..)空", xun)) == 6
    for head, pair in re.findall("(甲.)旬中(..)空", xun):
        start = GanZhi.parse(head)
        for k in range(10):
            got = evaluate(start.shift(k)).get("旬空").value
            assert "".join(x.char for x in got) == pair


def test_summary_of_the_day():
    r = evaluate(GanZhi.parse("甲子"), Branch.YIN)
    assert r.get("日支六親").value == "印"  # 子水 生 甲木
    assert r.get("日支長生").value == "沐浴"  # 甲 沐浴 子
    assert r.get("日支旺衰").value == "休"  # 水 in 寅 month (木旺): 休
    assert r.get("大耗").value == Branch.SHEN  # 月破
    assert Element.WATER == r.day.branch.element


def test_every_star_evaluates_for_every_day_month_year_hour_combination_sample():
    """No rule raises for any key (60 days × 12 months × 12 years × 12 hours sampled on diagonals)."""
    n = len([s for s in star_defs() if s.group != "general"])
    for i in range(60):
        r = evaluate(GanZhi.of(i), MONTHS[i % 12], GanZhi.of((i * 7) % 60), Branch(i % 12))
        present = {h.id for h in r.stars} | {o.id for o in r.omitted}
        assert len(present) == n
        assert all(o.reason == "inactive" for o in r.omitted)  # only 血刃/血忌 outside their months
