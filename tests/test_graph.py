"""The repository graph: containment tree, DAG edges, import and name resolution."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from helix.core.config import IndexSettings
from indexers.formats import graph_digest
from indexers.graph import build_graph, edge_counts, is_test_path
from indexers.parse import parse_file
from indexers.resolve import ModuleIndex, mentioned_symbols
from indexers.trees import parse_tree_file
from indexers.walker import walk
from tests.index_fixtures import TREE_PATH, write_repo


def _graph(root: Path) -> nx.MultiDiGraph:
    settings = IndexSettings(trees=("docs/trees/*.json",))
    walked = walk(root, settings)
    parsed, records, trees = [], [], []
    for wf in walked.files:
        if wf.record.path == TREE_PATH:
            _chunks, nodes = parse_tree_file(wf.record.path, wf.text)
            trees.extend(nodes)
            records.append(wf.record)
            continue
        parsed.append(parse_file(wf.record, wf.text, settings))
        records.append(wf.record)
    return build_graph(records, parsed, trees)


@pytest.fixture()
def graph(tmp_path: Path) -> nx.MultiDiGraph:
    return _graph(write_repo(tmp_path / "repo", with_tree=True))


def _edges(graph: nx.MultiDiGraph, kind: str) -> set[tuple[str, str]]:
    return {(u, v) for u, v, k in graph.edges(keys=True) if k == kind}


def test_containment_tree(graph: nx.MultiDiGraph) -> None:
    contains = nx.DiGraph(list(_edges(graph, "contains")))
    assert nx.is_tree(contains)  # one root, one parent each
    assert [n for n in contains if contains.in_degree(n) == 0] == ["repo:"]
    assert set(graph.nodes) == set(contains.nodes)
    assert ("repo:", "dir:pkg") in contains.edges
    assert ("dir:pkg", "file:pkg/util.py") in contains.edges
    assert ("file:pkg/util.py", "def:pkg/util.py::Backoff") in contains.edges
    # methods nest under their class
    assert ("def:pkg/util.py::Backoff", "def:pkg/util.py::Backoff.delay") in contains.edges
    # sections nest by heading
    assert ("file:docs/guide.md", "sec:docs/guide.md#1") in contains.edges
    assert ("sec:docs/guide.md#1", "sec:docs/guide.md#5") in contains.edges
    assert ("sec:docs/guide.md#5", "sec:docs/guide.md#9") in contains.edges
    # tree nodes hang under their file
    tree_root = f"tree:{TREE_PATH}#retries"
    assert (f"file:{TREE_PATH}", tree_root) in contains.edges
    assert (tree_root, f"tree:{TREE_PATH}#backoff") in contains.edges


def test_node_attributes(graph: nx.MultiDiGraph) -> None:
    attrs = graph.nodes["def:pkg/util.py::retry_policy"]
    assert attrs["kind"] == "def" and attrs["path"] == "pkg/util.py"
    assert (attrs["start_line"], attrs["end_line"]) == (4, 6)
    assert attrs["content_hash"].startswith("sha256:")
    assert attrs["title"] == "retry_policy" and attrs["chunk_ids"]
    assert graph.nodes["file:pkg/util.py"]["kind"] == "file"
    assert graph.nodes["sec:docs/guide.md#5"]["title"] == "Retries"
    tree = graph.nodes[f"tree:{TREE_PATH}#retries"]
    assert tree["kind"] == "tree" and tree["checklist"]["deterministic"] is True
    assert tree["checklist"]["inputs"] == [{"name": "attempts"}]
    for node, data in graph.nodes(data=True):
        assert {"kind", "path", "start_line", "end_line", "content_hash", "title",
                "chunk_ids"} <= set(data), node


def test_imports(graph: nx.MultiDiGraph) -> None:
    assert _edges(graph, "imports") == {
        ("file:pkg/client.py", "file:pkg/util.py"),
        ("file:tests/test_client.py", "file:pkg/client.py"),
        ("file:tests/test_client.py", "file:pkg/util.py"),
    }


def test_calls(graph: nx.MultiDiGraph) -> None:
    calls = _edges(graph, "calls")
    assert ("def:pkg/client.py::fetch", "def:pkg/util.py::retry_policy") in calls
    assert ("def:pkg/util.py::Backoff.delay", "def:pkg/util.py::retry_policy") in calls
    assert ("def:pkg/util.py::Backoff.reset", "def:pkg/util.py::Backoff.delay") in calls
    assert all(u != v for u, v in calls)


def test_documents(graph: nx.MultiDiGraph) -> None:
    docs = _edges(graph, "documents")
    assert ("sec:docs/guide.md#5", "def:pkg/util.py::retry_policy") in docs
    assert ("sec:docs/guide.md#5", "def:pkg/client.py::fetch") in docs
    # tree nodes: evidence symbols and backticked names
    assert (f"tree:{TREE_PATH}#retries", "def:pkg/util.py::retry_policy") in docs
    assert (f"tree:{TREE_PATH}#backoff", "def:pkg/util.py::Backoff.delay") in docs


def test_tests_edges(graph: nx.MultiDiGraph) -> None:
    assert _edges(graph, "tests") == {
        ("def:tests/test_client.py::test_fetch", "def:pkg/client.py::fetch"),
        ("def:tests/test_client.py::TestBackoff.test_delay", "def:pkg/util.py::Backoff"),
        ("def:tests/test_client.py::TestBackoff.test_delay", "def:pkg/util.py::Backoff.delay"),
    }


def test_deterministic_and_stable_ids(tmp_path: Path) -> None:
    first = _graph(write_repo(tmp_path / "a", with_tree=True))
    second = _graph(write_repo(tmp_path / "b", with_tree=True))
    assert list(first.nodes) == list(second.nodes)
    assert list(first.edges(keys=True)) == list(second.edges(keys=True))
    assert list(first.nodes(data=True)) == list(second.nodes(data=True))
    assert graph_digest(first) == graph_digest(second)
    assert edge_counts(first)["contains"] == first.number_of_nodes() - 1


def test_module_index_resolution() -> None:
    paths = ["src/app/__init__.py", "src/app/core.py", "src/app/sub/helpers.py",
             "web/lib/util.ts", "web/lib/index.ts", "web/main.tsx",
             "go/pkg/store/store.go", "go/pkg/store/store_test.go", "go/cmd/main.go",
             "rs/src/net/client.rs", "rs/src/main.rs",
             "java/src/main/java/com/acme/Widget.java", "java/src/main/java/com/acme/App.java"]
    modules = ModuleIndex(paths)
    assert modules.resolve("src/app/sub/helpers.py", "..core") == ["src/app/core.py"]
    # `from . import sub` where sub/ is no module: the package itself
    assert modules.resolve("src/app/core.py", ".", "sub") == ["src/app/__init__.py"]
    assert modules.resolve("src/app/core.py", ".sub.helpers") == ["src/app/sub/helpers.py"]
    assert modules.resolve("src/app/sub/helpers.py", "app.core") == ["src/app/core.py"]
    assert modules.resolve("src/app/sub/helpers.py", "app", "core") == ["src/app/core.py"]
    assert modules.resolve("src/app/sub/helpers.py", "os.path") == []
    assert modules.resolve("web/main.tsx", "./lib/util") == ["web/lib/util.ts"]
    assert modules.resolve("web/main.tsx", "./lib") == ["web/lib/index.ts"]
    assert modules.resolve("web/main.tsx", "react") == []
    assert modules.resolve("go/cmd/main.go", "example.com/proj/go/pkg/store") == [
        "go/pkg/store/store.go"]
    assert modules.resolve("rs/src/main.rs", "crate::net::client::Client") == [
        "rs/src/net/client.rs"]
    assert modules.resolve("java/src/main/java/com/acme/App.java", "com.acme.Widget") == [
        "java/src/main/java/com/acme/Widget.java"]


def test_mentioned_symbols() -> None:
    text = "Call `Store.open()` or parse_file(); see IndexReader and fooBar, not Plain words."
    assert mentioned_symbols(text) == ["IndexReader", "Store.open", "fooBar", "parse_file"]


@pytest.mark.parametrize("path,expected", [
    ("tests/test_a.py", True), ("pkg/test_a.py", True), ("pkg/a_test.py", True),
    ("x/a_test.go", True), ("web/a.test.ts", True), ("web/a.spec.js", True),
    ("java/src/test/java/FooTest.java", True), ("pkg/a.py", False), ("pkg/testing.md", False),
])
def test_is_test_path(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


def _parse_all(root: Path) -> tuple[list, list, list]:
    settings = IndexSettings(trees=("docs/trees/*.json",))
    parsed, records, trees = [], [], []
    for wf in walk(root, settings).files:
        records.append(wf.record)
        if wf.record.path == TREE_PATH:
            trees.extend(parse_tree_file(wf.record.path, wf.text)[1])
        else:
            parsed.append(parse_file(wf.record, wf.text, settings))
    return records, parsed, trees


def _shape(graph: nx.MultiDiGraph) -> tuple:
    """Everything a reader can observe, in order: nodes with attributes, adjacency both ways."""
    return (list(graph.nodes(data=True)),
            [(u, [(v, list(keys.items())) for v, keys in nbrs.items()])
             for u, nbrs in graph.adjacency()],
            [(v, list(preds)) for v, preds in graph.pred.items()])


EDITS: dict[str, dict[str, str]] = {
    "new def, removed method": {"pkg/util.py": (
        "def retry_policy(attempts):\n    return attempts\n\n\ndef jitter(x):\n"
        "    return retry_policy(x) + fetch(x)\n\n\nclass Backoff:\n"
        "    def delay(self, n):\n        return jitter(n)\n")},
    "renamed def, imports dropped": {"pkg/client.py": (
        "import os\n\n\ndef fetch_all(url):\n    return retry_policy(len(url))\n")},
    "name made ambiguous": {"pkg/client.py": (
        "def retry_policy(n):\n    return n\n\n\ndef fetch(url):\n    return retry_policy(1)\n")},
    "an unchanged file's reference resolves elsewhere": {"pkg/client.py": (
        "from .util import Backoff, retry_policy\n\n\ndef delay(n):\n    return n\n\n\n"
        "def fetch(url):\n    return retry_policy(len(url))\n")},
    "an old name gone, a reference falls back": {"pkg/util.py": (
        "def retry_rule(attempts):\n    return attempts\n\n\nclass Backoff:\n"
        "    def delay(self, n):\n        return retry_rule(n)\n")},
    "test file": {"tests/test_client.py": (
        "from pkg.util import Backoff\n\n\ndef test_backoff():\n    assert Backoff().reset()\n")},
    "doc sections": {"docs/guide.md": (
        "# Guide\n\n## Backoff\n\n`Backoff.delay` and `jitter()`.\n\n### Deep\n\nfetch_all\n")},
    "two files": {"pkg/util.py": "def fetch(u):\n    return u\n",
                  "pkg/client.py": "from .util import fetch\n\n\ndef go():\n    return fetch(1)\n"},
}


# Unchanged files written before the first build (a second definition to fall back to).
BASE_EXTRA = {"an old name gone, a reference falls back": {
    "pkg/other.py": "def retry_policy(n):\n    return n\n",
    "pkg/caller.py": ("from .util import retry_policy\n\n\ndef call():\n"
                      "    return retry_policy(2)\n")}}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_update_graph_equals_fresh_build(tmp_path: Path, edit: str) -> None:
    from indexers.graph_update import update_graph

    root = write_repo(tmp_path / "repo", with_tree=True)
    for path, text in BASE_EXTRA.get(edit, {}).items():
        (root / path).write_text(text, encoding="utf-8")
    records, parsed, trees = _parse_all(root)
    graph = build_graph(records, parsed, trees)
    changed = sorted(EDITS[edit])
    old_defs = [d for p in parsed if p.path in changed for d in p.defs]
    for path, text in EDITS[edit].items():
        (root / path).write_text(text, encoding="utf-8")
    records, parsed, trees = _parse_all(root)
    fresh = build_graph(records, parsed, trees)
    updated = update_graph(graph, records, parsed, trees, changed, old_defs)
    assert _shape(updated) == _shape(fresh)
    assert _shape(updated) != _shape(build_graph(*_parse_all(write_repo(tmp_path / "b",
                                                                         with_tree=True))))
