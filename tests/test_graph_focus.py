"""T4 on any focused object: a definition, a span, a doc section, a file or module window.

Hand-built graphs (the indexer's node and edge shapes, indexers/api.py) so each resolution rule
is checked on its own, independent of any ranking."""

from __future__ import annotations

import networkx as nx
import pytest

from controller.continuity.graph_focus import (
    code_names,
    describe_followup,
    graph_followup,
    resolve_focus_symbols,
)
from controller.continuity.state import TargetRef

MAX = 3


def _graph() -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()

    def node(nid: str, kind: str, path: str, start: int, end: int, title: str) -> None:
        g.add_node(nid, kind=kind, path=path, start_line=start, end_line=end, title=title)

    node("file:pkg/index.py", "file", "pkg/index.py", 1, 60, "index.py")
    node("def:pkg/index.py::Index", "def", "pkg/index.py", 5, 30, "Index")
    node("def:pkg/index.py::Index.__init__", "def", "pkg/index.py", 8, 12, "__init__")
    node("def:pkg/index.py::Index.lookup", "def", "pkg/index.py", 14, 30, "lookup")
    node("def:pkg/index.py::build_index", "def", "pkg/index.py", 33, 50, "build_index")
    node("def:pkg/index.py::helper", "def", "pkg/index.py", 52, 60, "helper")
    node("file:pkg/cli.py", "file", "pkg/cli.py", 1, 20, "cli.py")
    node("def:pkg/cli.py::main", "def", "pkg/cli.py", 3, 20, "main")
    node("file:tests/test_index.py", "file", "tests/test_index.py", 1, 20, "test_index.py")
    node("def:tests/test_index.py::test_build", "def", "tests/test_index.py", 3, 8, "test_build")
    node("def:tests/test_index.py::test_lookup", "def", "tests/test_index.py", 10, 15,
         "test_lookup")
    node("file:docs/guide.md", "file", "docs/guide.md", 1, 30, "guide.md")
    node("sec:docs/guide.md#3", "section", "docs/guide.md", 3, 9, "Building")
    node("sec:docs/guide.md#11", "section", "docs/guide.md", 11, 20, "Looking up")
    node("sec:docs/guide.md#22", "section", "docs/guide.md", 22, 30, "Install")
    for parent, child in (("file:pkg/index.py", "def:pkg/index.py::Index"),
                          ("def:pkg/index.py::Index", "def:pkg/index.py::Index.__init__"),
                          ("def:pkg/index.py::Index", "def:pkg/index.py::Index.lookup"),
                          ("file:pkg/index.py", "def:pkg/index.py::build_index"),
                          ("file:pkg/index.py", "def:pkg/index.py::helper")):
        g.add_edge(parent, child, key="contains")
    for src, dst, kind in (
            ("def:pkg/index.py::build_index", "def:pkg/index.py::Index", "calls"),
            ("def:pkg/cli.py::main", "def:pkg/index.py::build_index", "calls"),
            ("def:pkg/cli.py::main", "def:pkg/index.py::Index.lookup", "calls"),
            ("def:tests/test_index.py::test_build", "def:pkg/index.py::build_index", "calls"),
            ("def:tests/test_index.py::test_build", "def:pkg/index.py::build_index", "tests"),
            ("def:tests/test_index.py::test_lookup", "def:pkg/index.py::Index", "calls"),
            ("def:tests/test_index.py::test_lookup", "def:pkg/index.py::Index.lookup", "tests"),
            ("file:pkg/cli.py", "file:pkg/index.py", "imports"),
            ("file:tests/test_index.py", "file:pkg/index.py", "imports"),
            ("sec:docs/guide.md#3", "def:pkg/index.py::build_index", "documents")):
        g.add_edge(src, dst, key=kind)
    return g


def _resolve(target: TargetRef, context: str = "", text: str = "") -> tuple[tuple[str, ...],
                                                                             str]:
    focus = resolve_focus_symbols(_graph(), target, context=context, section_text=text,
                                  max_symbols=MAX)
    return focus.defs, focus.basis


def test_a_definition_stands_for_itself():
    target = TargetRef(kind="symbol", id="def:pkg/index.py::build_index", label="build_index",
                       path="pkg/index.py", start_line=33, end_line=50)
    assert _resolve(target) == (("def:pkg/index.py::build_index",), "definition")


def test_a_span_inside_a_definition_is_its_innermost_enclosing_definition():
    target = TargetRef(kind="span", id="chunk-1", label="pkg/index.py", path="pkg/index.py",
                       start_line=15, end_line=20)
    assert _resolve(target) == (("def:pkg/index.py::Index.lookup",), "enclosing definition")


def test_a_doc_section_stands_for_what_it_documents_else_the_names_it_gives():
    documented = TargetRef(kind="section", id="sec:docs/guide.md#3", label="Building",
                           path="docs/guide.md", start_line=3, end_line=9)
    assert _resolve(documented) == (("def:pkg/index.py::build_index",),
                                    "documented by the section")
    naming = TargetRef(kind="section", id="sec:docs/guide.md#11", label="Looking up",
                       path="docs/guide.md", start_line=11, end_line=20)
    defs, basis = _resolve(naming, text="Call `Index.lookup` or `helper()`; see `pkg/`.")
    assert (defs, basis) == (("def:pkg/index.py::Index.lookup", "def:pkg/index.py::helper"),
                             "named in the section")
    nothing = TargetRef(kind="section", id="sec:docs/guide.md#22", label="Install",
                        path="docs/guide.md", start_line=22, end_line=30)
    assert _resolve(nothing, text="Run `pip install pkg` in a lookup shell.") == ((), "none")


def test_a_module_window_stands_for_the_definitions_the_question_names_else_the_file():
    window = TargetRef(kind="span", id="chunk-2", label="pkg/index.py", path="pkg/index.py",
                       start_line=1, end_line=4)  # imports and constants: inside no definition
    defs, basis = _resolve(window, context="where is the index built? who calls it?")
    assert (defs, basis) == (("def:pkg/index.py::Index", "def:pkg/index.py::build_index"),
                             "named in the question")
    whole = TargetRef(kind="file", id="file:pkg/index.py", label="pkg/index.py",
                      path="pkg/index.py")
    focus = resolve_focus_symbols(_graph(), whole, context="what is this?", max_symbols=MAX)
    assert (focus.defs, focus.files, focus.basis) == ((), ("file:pkg/index.py",), "file")


def test_several_definitions_are_bounded_in_a_stable_order():
    g = _graph()
    for n in range(5):
        g.add_node(f"def:pkg/extra.py::f{n}", kind="def", path="pkg/extra.py",
                   start_line=10 - n, end_line=10 - n, title=f"f{n}")
        g.add_edge("sec:docs/guide.md#22", f"def:pkg/extra.py::f{n}", key="documents")
    target = TargetRef(kind="section", id="sec:docs/guide.md#22", label="Install")
    focus = resolve_focus_symbols(g, target, context="", max_symbols=MAX)
    assert focus.defs == ("def:pkg/extra.py::f4", "def:pkg/extra.py::f3",
                          "def:pkg/extra.py::f2")  # by path, then line, then id
    assert focus.total == 5
    result = graph_followup(g, focus, "callers", turn_id=2, max_items=12)
    assert "(the first 3 of 5)" in describe_followup("callers", target, result, g)


@pytest.mark.parametrize(("kind", "expected"), [
    ("callers", ["def:pkg/cli.py::main", "def:tests/test_index.py::test_build"]),
    ("tests", ["def:tests/test_index.py::test_build"]),
])
def test_callers_and_tests_of_a_documented_definition(kind, expected):
    g = _graph()
    target = TargetRef(kind="section", id="sec:docs/guide.md#3", label="Building")
    focus = resolve_focus_symbols(g, target, context="", max_symbols=MAX)
    result = graph_followup(g, focus, kind, turn_id=4, max_items=12)
    assert result.option_set is not None
    assert [i.id for i in result.option_set.items] == expected
    text = describe_followup(kind, target, result, g)
    assert text.startswith("For Building: the definitions the focused section documents, "
                           "build_index.")


def test_a_class_counts_calls_to_its_methods_and_a_constructor_its_class():
    g = _graph()
    cls = resolve_focus_symbols(g, TargetRef(kind="symbol", id="def:pkg/index.py::Index"),
                                context="", max_symbols=MAX)
    callers = graph_followup(g, cls, "callers", turn_id=1, max_items=12).option_set
    assert callers is not None and [i.id for i in callers.items] == [
        "def:pkg/cli.py::main", "def:pkg/index.py::build_index",
        "def:tests/test_index.py::test_lookup"]
    init = resolve_focus_symbols(
        g, TargetRef(kind="symbol", id="def:pkg/index.py::Index.__init__"), context="",
        max_symbols=MAX)
    made = graph_followup(g, init, "callers", turn_id=1, max_items=12).option_set
    assert made is not None and "def:pkg/index.py::build_index" in [i.id for i in made.items]


def test_never_none_while_the_focused_file_has_edges():
    g = _graph()
    target = TargetRef(kind="symbol", id="def:pkg/index.py::helper", label="helper")
    focus = resolve_focus_symbols(g, target, context="", max_symbols=MAX)
    result = graph_followup(g, focus, "tests", turn_id=3, max_items=12)
    assert result.widened_to == "pkg/index.py" and result.option_set is not None
    assert [i.id for i in result.option_set.items] == ["def:tests/test_index.py::test_build",
                                                       "def:tests/test_index.py::test_lookup"]
    text = describe_followup("tests", target, result, g)
    assert text.startswith("No test exercises helper directly; 2 tests exercising its file "
                           "pkg/index.py")


def test_a_file_lists_its_importers_and_the_tests_of_its_definitions():
    g = _graph()
    focus = resolve_focus_symbols(g, TargetRef(kind="file", id="file:pkg/index.py",
                                               path="pkg/index.py"), context="",
                                  max_symbols=MAX)
    callers = graph_followup(g, focus, "callers", turn_id=1, max_items=12).option_set
    assert callers is not None and [i.id for i in callers.items] == [
        "def:pkg/cli.py::main", "def:tests/test_index.py::test_build",
        "def:tests/test_index.py::test_lookup"]
    g.remove_edge("def:pkg/cli.py::main", "def:pkg/index.py::build_index", key="calls")
    g.remove_edge("def:pkg/cli.py::main", "def:pkg/index.py::Index.lookup", key="calls")
    importers = graph_followup(g, focus, "callers", turn_id=1, max_items=12).option_set
    assert importers is not None and "file:pkg/cli.py" in [i.id for i in importers.items]


def test_the_same_focus_gives_the_same_list():
    g = _graph()
    target = TargetRef(kind="section", id="sec:docs/guide.md#3", label="Building")
    runs = [graph_followup(g, resolve_focus_symbols(g, target, context="", max_symbols=MAX),
                           "callers", turn_id=4, max_items=12).option_set for _ in range(2)]
    assert runs[0] == runs[1] and runs[0] is not None


def test_code_names_are_code_spans_or_code_shaped_words():
    assert code_names("`search/` holds `tokenize` and `Engine.rebuild()`") == [
        "tokenize", "Engine.rebuild"]
    assert code_names("build_index makes a BM25Index; search is plain prose") == [
        "build_index", "BM25Index"]
