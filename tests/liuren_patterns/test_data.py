"""The data files carry their seed reference and both languages (ground rules: tables live in data with
``source``, ``ko`` and ``lzh``)."""

from __future__ import annotations

import json
from importlib import resources

from engine.liuren.leishen import categories, entries


def load(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads(resources.files("engine.liuren").joinpath("data", name).read_text(encoding="utf-8"))


def test_patterns_have_source_ko_lzh() -> None:
    for p in load("patterns.json")["patterns"]:
        assert p["source"], p["id"]
        for lang in ("ko", "lzh"):
            assert all(p[lang][k] for k in ("name", "definition")), (p["id"], lang)
            # a meaning is given, or the entry says the seeds give none (its entry commentary is a remark)
            assert p[lang]["meaning"] or (p["meaning_note"] and p["remarks"]), (p["id"], lang)
        for r in p.get("remarks", ()):
            assert r["source"] == f"seed 003 entry {r['entry']}" and r["lzh"] and r["ko"], p["id"]


def _seed003_paragraphs() -> list[str]:
    from pathlib import Path

    seed = next(Path("/work/shared/seeds").glob("003_*.txt"), None)
    assert seed is not None, "seed 003 missing"
    return [line for line in seed.read_text(encoding="utf-8").splitlines() if line.startswith("斷曰")]


def test_generic_keti_texts_do_not_carry_entry_commentary() -> None:
    # 間傳 is a generic 課體 (entries 4 and 8); 「極陰間傳，昏晦之中，復多阻隔」 is entry 8's 斷曰 of 辛巳 第3局,
    # 「居上者宜以禮法自持」 entry 7's 斷曰 of its 元首 課 「元首課以上克下，格合退茹」.
    duan = _seed003_paragraphs()
    assert "極陰間傳，昏晦之中，復多阻隔" in duan[7] and "居上者宜以禮法自持" in duan[6]
    by_id = {p["id"]: p for p in load("patterns.json")["patterns"]}
    for pid, entry in (("jianchuan", 8), ("tuiru", 7), ("jinru", 5)):
        p = by_id[pid]
        # no generic meaning in the seeds: the data says so (issue 15), in both languages
        note = load("patterns.json")["no_meaning"]
        assert p["lzh"]["meaning"] == note["lzh"] and p["ko"]["meaning"] == note["ko"]
        assert [r["entry"] for r in p["remarks"]] == [entry]
        assert p["remarks"][0]["lzh"].replace("此蒿矢之卦，", "")[:6] in duan[entry - 1]
    assert "極陰" not in by_id["jianchuan"]["lzh"]["definition"]


def test_leishen_has_source_ko_lzh() -> None:
    # seed 002 目錄：天文、地理、宮室、人物、姓氏、臟腑、飲食、器用、數目、顏色、飛潛動植
    assert categories() == tuple("天文 地理 宮室 人物 姓氏 臟腑 飲食 器用 數目 顏色 飛潛動植".split())
    data = load("leishen.json")["categories"]
    for name in categories():
        assert data[name]["source"] and data[name]["ko"] and data[name]["lzh"]
        for e in entries(name):
            assert e["source"] and e["ko"] and e["lzh"], e["id"]


def test_leishen_seed_slips_fixed_and_flagged() -> None:
    # spec §6: 氐 for 「氏」, 柳星張 belongs to 午, 寅屬虎; 巳與白虎 and 地理卯 柳星張 kept and flagged
    tianwen = {e["lzh"]: e for e in entries("天文")}
    assert tianwen["氐房心宿"]["match"] == {"branch": "卯"}
    assert tianwen["柳星張宿"]["match"] == {"branch": "午"}
    assert "flag" in tianwen["風"]
    assert any(e["lzh"].startswith("虎") and e["match"] == {"branch": "寅"} for e in entries("飛潛動植"))
    assert any("flag" in e and e["match"] == {"branch": "卯"} for e in entries("地理"))


def test_meanings_cover_seed002_44() -> None:
    # seed 002 目錄 of the 44 神煞 (死 appears twice: the 長生 stage and the 旺相死囚休 grade)
    table = json.loads(
        resources.files("engine.shensha").joinpath("data", "meanings002.json").read_text(encoding="utf-8")
    )["meanings"]
    toc = "印 盜 鬼 財 劫 長生 沐浴 冠帶 臨官 帝旺 衰 病 死 墓 絕 胎 養 刑 沖 破 害 合 馬 太歲 旺 相 死 囚 休 月建 月將 旬空 貴人 螣蛇 朱雀 六合 勾陳 青龍 天空 白虎 太常 玄武 太陰 天后".split()
    assert len(toc) == 44
    names = {m["name_lzh"] for m in table.values()}
    assert set(toc) <= names
    for key, m in table.items():
        assert m["source"].startswith("seed 002") and m["ko"] and m["lzh"], key
    # seed 002 keywords 「以扶助論」 「以行程論」 「以干貴論」 「以不實論」
    assert table["relative.印"]["lzh"] == "扶助"
    assert table["yima"]["lzh"] == "行程"
    assert table["general.貴人"]["lzh"] == "干貴"
    assert table["xunkong"]["lzh"] == "不實"


def test_seed_readings_both_languages() -> None:
    for e in load("readings_seed003.json")["entries"]:
        assert e["source"].startswith("seed 003")
        for s in e["sections"]:
            assert s["lzh"] and s["ko"]
            assert not any("\uac00" <= ch <= "\ud7a3" for ch in s["lzh"])
            assert any("\uac00" <= ch <= "\ud7a3" for ch in s["ko"])


def test_one_file_of_seed002_meanings_read_by_both_engines() -> None:
    # issue 11 「seed-002 meaning texts in both engine/liuren/data/meanings.json and engine/shensha/data/stars.json」
    from engine.liuren.reading import glossary, meanings
    from engine.liuren.verdict import judge
    from engine.shensha import meanings002, star, star_defs

    assert not resources.files("engine.liuren").joinpath("data", "meanings.json").is_file()
    shared = meanings002()
    assert meanings() is shared or dict(meanings()) == dict(shared)
    # the 神煞 engine: every seed-002 star but the three summaries points into the file, none carries its own text
    raw = json.loads(
        resources.files("engine.shensha").joinpath("data", "stars.json").read_text(encoding="utf-8")
    )
    seed002 = [s for s in raw["stars"] if s["seed"] == "002" and s["group"] != "summary"]
    assert len(seed002) == 43 and all("meaning_ref" in s and "meaning" not in s for s in seed002)
    # seed 002 「印 … 以扶助論」: the same text through both engines
    assert star("印").meaning["lzh"] == shared["relative.印"]["lzh"] == "扶助"
    # the reading glossary gives the keyword with its explanation (issue 15: a gloss explains), from the same entry
    assert glossary("lzh")["relative.印"]["text"] == shared["relative.印"]["gloss"]["lzh"]
    assert glossary("lzh")["relative.印"]["text"].startswith("以扶助論：")
    assert (
        star("貴人").meaning["ko"] == shared["general.貴人"]["ko"] == glossary("ko")["general.貴人"]["text"]
    )
    # 「刑干傷我傷人，刑支傷彼傷事」: the star joins its two entries
    assert star("刑").meaning["lzh"] == "傷我傷人；傷彼傷事"
    assert all(s.meaning["lzh"] and s.meaning["ko"] for s in star_defs())
    # the verdict quotes the same file
    from engine.core.cycle import GanZhi
    from engine.liuren import chart_for_ju

    r = judge(chart_for_ju(GanZhi.parse("庚辰"), 8)).reasons
    yin = next(x for x in r if x.id == "relative.印")
    assert yin.to_json()["text"] == f"印：{shared['relative.印']['lzh']}"
