"""No import circles in ``bot`` or ``engine`` (issue 11): every import runs one way.

The graph is grimp's (every ``import`` statement, also inside functions and under ``TYPE_CHECKING``); the
circles are its strongly connected components of more than one module, computed here (Tarjan).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import grimp

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
