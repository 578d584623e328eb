"""The import rules: no circles in ``bot`` or ``engine`` (issue 11), and the layer contracts of
``[tool.importlinter]`` in pyproject.toml (issue 31; docs/architecture.md "The layers").

The graph is grimp's (every ``import`` statement, also inside functions and under ``TYPE_CHECKING``); the
circles are its strongly connected components of more than one module, computed here (Tarjan). The
contracts are checked by import-linter's ``lint-imports`` (the console script of this interpreter's
environment), whose report is printed when one is broken.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import grimp

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
ANSI_STYLE = re.compile(r"\x1b\[[0-9;]*m")

# The engine's public surface: what the shell (bot) may import. Every other engine module is internal and
# listed in the ``engine-surface`` contract's forbidden modules; each engine module is one or the other.
ENGINE_PUBLIC = frozenset(
    {
        "engine",
        "engine.errors",
        "engine.core",
        "engine.core.cycle",
        "engine.core.relations",
        "engine.calendar",
        "engine.liuren",
        "engine.liuren.leishen",
        "engine.liuren.nianming",
        "engine.liuren.options",
        "engine.liuren.reading",
        "engine.liuren.request",
        "engine.liuren.topics",
        "engine.liuren.types",
        "engine.liuren.verdict",
        "engine.lexicon",
        "engine.liuyao",
        "engine.liuyao.analysis",
        "engine.liuyao.cast",
        "engine.liuyao.chart",
        "engine.liuyao.judgments",
        "engine.liuyao.table",
        "engine.liuyao.verdict",
        "engine.qizheng",
        "engine.qizheng.chart",
        "engine.qizheng.options",
        "engine.qizheng.places",
        "engine.qizheng.tables",
        "engine.shensha",
        "engine.shensha.model",
    }
)

# Circles in the engine that are known and tolerated: none (the 六爻 chart ↔ judgments and 七政 chart ↔
# patterns circles are gone; issue 11: "the chart is data; judgments and patterns read it").
KNOWN_ENGINE_CYCLES: frozenset[frozenset[str]] = frozenset()


def cycles(edges: Mapping[str, Iterable[str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one node (each is at least one circle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    counter = 0

    def visit(root: str) -> None:  # iterative Tarjan: no recursion limit on a deep graph
        nonlocal counter
        work: list[tuple[str, list[str]]] = [(root, sorted(edges.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(edges.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def import_graph() -> dict[str, set[str]]:
    graph = grimp.build_graph("bot", "engine", cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def test_cycle_finder_finds_a_circle_and_nothing_else():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == {frozenset({"a", "b", "c"})}
    assert cycles({"a": {"b"}, "b": set()}) == set()


def test_no_import_circle_in_bot():
    found = cycles(import_graph())
    in_bot = {c for c in found if any(m.startswith("bot.") or m == "bot" for m in c)}
    assert in_bot == set(), sorted(sorted(c) for c in in_bot)


def test_no_import_circle_in_engine():
    found = cycles(import_graph())
    in_engine = {c for c in found if all(m.startswith("engine") for m in c)}
    assert in_engine <= KNOWN_ENGINE_CYCLES, sorted(sorted(c) for c in in_engine - KNOWN_ENGINE_CYCLES)


def lint_imports(*args: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run on this checkout; its report without terminal styles (some versions style it
    even into a pipe)."""
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    result.stdout = ANSI_STYLE.sub("", result.stdout)
    return result


def contracts() -> dict[str, dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def test_import_contracts_hold():
    """engine pure; chat libraries only in the adapters; the shell's layers; adapters independent; the
    engine's public surface (pyproject.toml [tool.importlinter]). An ignored import that no longer exists
    fails too, so a fixed violation leaves the list."""
    result = lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    for contract in contracts().values():  # every contract was checked, and kept
        assert f"{contract['name']} KEPT" in result.stdout, result.stdout


def test_a_broken_contract_fails_the_check(tmp_path):
    """The check can fail: a contract the code breaks (the scheduler imports the context) is reported with
    the import that breaks it."""
    config = tmp_path / "broken.toml"
    config.write_text(
        "[tool.importlinter]\n"
        'root_packages = ["bot"]\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "the scheduler does not import the context"\n'
        'type = "forbidden"\n'
        'source_modules = ["bot.scheduler"]\n'
        'forbidden_modules = ["bot.context"]\n',
        encoding="utf-8",
    )
    result = lint_imports("--config", str(config))
    assert result.returncode != 0
    assert "BROKEN" in result.stdout and "bot.scheduler -> bot.context" in result.stdout, result.stdout


def test_every_engine_module_is_public_or_internal():
    """A new engine module is classified: added to ENGINE_PUBLIC or to the contract's forbidden modules."""
    internal = set(contracts()["engine-surface"]["forbidden_modules"])
    modules = {m for m in grimp.build_graph("engine", cache_dir=None).modules}
    assert ENGINE_PUBLIC.isdisjoint(internal), sorted(ENGINE_PUBLIC & internal)
    assert modules == ENGINE_PUBLIC | internal, (
        sorted(modules - ENGINE_PUBLIC - internal),
        sorted((ENGINE_PUBLIC | internal) - modules),
    )
