"""A graph follow-up on a document's title section (issue 32, router24b): a heading whose own
text names no code ("# The pool", lines 1-1) stands for what the sections under it document,
so "who uses it?" / "which tests use it?" with that heading in focus follow those definitions'
edges (T4) instead of refusing ("stands for no definition"), as main did. Hand-built graphs in
the indexer's node and edge shapes (tests/test_graph_focus.py's)."""

from __future__ import annotations

import networkx as nx

from controller.continuity.graph_focus import (
    describe_followup,
    graph_followup,
    resolve_focus_symbols,
)
from controller.continuity.state import TargetRef

TITLE = "sec:docs/pool.md#1"


def _graph(*, documented_at: str = "sec:docs/pool.md#5") -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    for nid, kind, path, lo, hi in (
            ("file:docs/pool.md", "file", "docs/pool.md", 1, 20),
            (TITLE, "section", "docs/pool.md", 1, 1),
            ("sec:docs/pool.md#3", "section", "docs/pool.md", 3, 9),
            ("sec:docs/pool.md#5", "section", "docs/pool.md", 5, 9),
            ("sec:docs/pool.md#11", "section", "docs/pool.md", 11, 20),
            ("file:lib/pool.py", "file", "lib/pool.py", 1, 40),
            ("def:lib/pool.py::Pool", "def", "lib/pool.py", 3, 40),
            ("file:app/run.py", "file", "app/run.py", 1, 10),
            ("def:app/run.py::start", "def", "app/run.py", 2, 10)):
        g.add_node(nid, kind=kind, path=path, start_line=lo, end_line=hi, title=nid)
    for parent, child in (("file:docs/pool.md", TITLE), (TITLE, "sec:docs/pool.md#3"),
                          ("sec:docs/pool.md#3", "sec:docs/pool.md#5"),
                          (TITLE, "sec:docs/pool.md#11"),
                          ("file:lib/pool.py", "def:lib/pool.py::Pool"),
                          ("file:app/run.py", "def:app/run.py::start")):
        g.add_edge(parent, child, key="contains")
    g.add_edge(documented_at, "def:lib/pool.py::Pool", key="documents")
    g.add_edge("def:app/run.py::start", "def:lib/pool.py::Pool", key="calls")
    return g


TARGET = TargetRef(kind="section", id=TITLE, label="The pool", path="docs/pool.md",
                   start_line=1, end_line=1)


def test_a_title_stands_for_what_the_sections_under_it_document():
    graph = _graph()
    focus = resolve_focus_symbols(graph, TARGET, context="who uses it",
                                  section_text="# The pool", max_symbols=3)
    assert (focus.defs, focus.basis) == (("def:lib/pool.py::Pool",),
                                         "documented under the section")
    result = graph_followup(graph, focus, "callers", turn_id=2, max_items=5)
    assert result.option_set is not None
    assert [i.target.id for i in result.option_set.items] == ["def:app/run.py::start"]
    answer = describe_followup("callers", TARGET, result, graph)
    assert "its subsections document" in answer and "stands for no definition" not in answer


def test_a_section_that_documents_nothing_anywhere_below_still_stands_for_nothing():
    graph = _graph(documented_at="file:app/run.py")  # no section documents Pool
    focus = resolve_focus_symbols(graph, TARGET, context="who uses it",
                                  section_text="# The pool", max_symbols=3)
    assert (focus.defs, focus.basis) == ((), "none")
