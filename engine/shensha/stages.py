"""十二長生 of the day stem with a named 墓 convention (issue 20).

Seed 002 counts the stages 陽順陰逆 and so gives the 陰干 their own 墓 (「墓 甲癸日未，乙丙戊日戌，丁己庚日丑，
辛壬日辰」: 辛 墓 辰). Seed 003 reads the 日墓 by the stem's 五行 instead: for 辛巳 「丑為日墓」 and 「初墓逢丁」
(entry 8, 初傳 丑), while it keeps the other stages 陰逆 (「午為辛金之病地」, seed 002 「病 … 辛日午」).

- ``wuxing`` (the 大六壬 default, seed 003): the 墓 of every stem is the 墓 of its 五行 (木未 火戌 土戌 金丑 水辰,
  the 陽干 row of the seed-002 table). For a 陰干 that branch is its seed-002 養, which it replaces; the
  seed-002 墓 branch of a 陰干 (辰 for 辛) then has no stage — the seeds give none.
- ``changsheng`` (the seed-002 table as written; the 神煞 engine's default): 陰干 counted backward, 辛 墓 辰.
"""

from __future__ import annotations

from enum import StrEnum

from engine.core.cycle import Branch, Stem
from engine.core.relations import Stage, changsheng, stage_branch


class MuRule(StrEnum):
    """Which 墓 a day stem has: by its 五行 (seed 003 「丑為日墓」 for 辛) or by seed 002's 陽順陰逆 table."""

    WUXING = "wuxing"
    CHANGSHENG = "changsheng"


def _yang_of(stem: Stem) -> Stem:
    return stem if stem.is_yang else Stem(stem - 1)


def mu_branch(stem: Stem, rule: MuRule) -> Branch:
    """The day stem's 墓 under ``rule`` (辛: 丑 by 五行, 辰 by the seed-002 table)."""
    if rule is MuRule.WUXING:
        return stage_branch(_yang_of(stem), Stage.MU)
    return stage_branch(stem, Stage.MU)


def stage_at(stem: Stem, branch: Branch, rule: MuRule) -> Stage | None:
    """The stage of ``stem`` at ``branch``; None where the convention leaves a branch without one."""
    stage = changsheng(stem, branch)
    if rule is MuRule.CHANGSHENG or stem.is_yang:
        return stage
    if branch == mu_branch(stem, rule):
        return Stage.MU
    if stage is Stage.MU:
        return None
    return stage


def stage_branch_under(stem: Stem, stage: Stage, rule: MuRule) -> Branch | None:
    """Where ``stem`` is at ``stage`` under ``rule`` (None: the 陰干 養 under ``wuxing``, which became the 墓)."""
    if rule is MuRule.CHANGSHENG or stem.is_yang:
        return stage_branch(stem, stage)
    if stage is Stage.MU:
        return mu_branch(stem, rule)
    if stage is Stage.YANG:
        return None
    return stage_branch(stem, stage)
