"""A tree JSON file costs work linear in its size, and one past its bounds is plain JSON
(issue 28: a 28,000-node file under 1 MiB did not index in 300 s; a 28,000-deep chain then
put every node on each tree walk's path).

The work is counted, not timed: Python lines run inside `indexers/trees.py` plus the
characters handed to its regular expressions. Doubling the nodes must about double it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import Any

import pytest
from cli_helpers import run

import indexers.trees as trees
from helix.core.errors import TreeFileBoundError
from helix.core.schemas import node_id_tree

SMALL, LARGE = 1000, 2000


def tree_text(count: int, shape: str) -> str:
    """`count` nodes, ids in hex, as a chain (each the next's parent) or a binary tree;
    compact, so 28,000 nodes stay under 1 MiB."""
    nodes = []
    for i in range(count):
        kids = ([i + 1] if i + 1 < count else []) if shape == "chain" else [
            j for j in (2 * i + 1, 2 * i + 2) if j < count]
        nodes.append({"id": f"{i:x}", "children": [f"{j:x}" for j in kids]})
    return json.dumps({"version": 1, "rootId": "0", "nodes": nodes}, separators=(",", ":"))


def _work(call: Callable[[], Any], monkeypatch: pytest.MonkeyPatch) -> int:
    """Lines run in indexers/trees.py, plus characters its regular expressions were given."""
    count = 0
    source = trees.__file__

    def counted(name: str) -> Callable[..., Any]:
        real = getattr(re, name)

        def wrapper(pattern: Any, string: str, *args: Any, **kwargs: Any) -> Any:
            nonlocal count
            count += len(string)
            return real(pattern, string, *args, **kwargs)
        return wrapper

    shim = SimpleNamespace(**{name: getattr(re, name) for name in dir(re)
                              if not name.startswith("__")})
    for name in ("search", "match", "fullmatch", "finditer", "findall"):
        setattr(shim, name, counted(name))
    monkeypatch.setattr(trees, "re", shim)

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if frame.f_code.co_filename != source:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        call()
    finally:
        sys.settrace(None)
        monkeypatch.undo()
    return count


@pytest.mark.parametrize("shape", ["chain", "binary"])
def test_parsing_and_containment_are_linear(shape: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def parse_and_contain(count: int) -> Callable[[], Any]:
        text = tree_text(count, shape)

        def run_it() -> None:
            _, nodes = trees.parse_tree_file("t.json", text)
            trees.containment_edges(nodes)
        return run_it

    small = _work(parse_and_contain(SMALL), monkeypatch)
    large = _work(parse_and_contain(LARGE), monkeypatch)
    assert large / small < 2.4, (small, large)  # quadratic work would be about 4x


def test_a_28000_node_file_under_a_mebibyte_is_a_tree() -> None:
    text = tree_text(28_000, "binary")
    assert len(text.encode("utf-8")) < 1024 * 1024
    chunks, nodes = trees.parse_tree_file("t.json", text)
    assert len(chunks) == len(nodes) == 28_000
    assert trees.tree_depth(nodes) == 15
    assert len(trees.containment_edges(nodes)) == 27_999
    # each node's lines: from its id to the line before the next node's id (one line here)
    pretty = json.dumps(json.loads(tree_text(50, "binary")), indent=1)
    _, small = trees.parse_tree_file("t.json", pretty)
    lines = pretty.splitlines()
    for node, following in zip(small, [*small[1:], None], strict=True):
        assert f'"id": "{node.local_id}"' in lines[node.start_line - 1]
        expected_end = following.start_line - 1 if following else len(lines)
        assert node.end_line == expected_end


def test_the_line_of_an_escaped_or_repeated_id() -> None:
    text = ('{"nodes": [\n{"id": "caf\\u00e9", "title": "x"},\n'
            '{"id": "b", "links": [{"to": "caf\\u00e9"}]},\n{"id": "b", "title": "dup"}\n]}')
    _, nodes = trees.parse_tree_file("t.json", text)
    assert [(n.local_id, n.start_line, n.end_line) for n in nodes] == [
        ("café", 2, 2), ("b", 3, 5)]


def test_cycles_are_broken_once_each_at_their_first_member() -> None:
    text = json.dumps({"rootId": "r", "nodes": [
        {"id": "r", "children": ["a"]},
        {"id": "x", "children": ["y"]}, {"id": "y", "children": ["z"]},
        {"id": "z", "children": ["x"]},  # x -> y -> z -> x
        {"id": "w", "links": [{"rel": "parent", "to": "y"}]},  # hangs below the cycle
        {"id": "a"}]})
    _, nodes = trees.parse_tree_file("c.json", text)
    edges = trees.containment_edges(nodes)
    n = lambda local: node_id_tree("c.json", local)  # noqa: E731
    assert edges == sorted([(n("r"), n("a")), (n("x"), n("y")), (n("y"), n("z")),
                            (n("y"), n("w"))])


def test_node_and_depth_bounds() -> None:
    with pytest.raises(TreeFileBoundError, match=r"t\.json holds 300 tree nodes, over "
                       r"index\.max_tree_nodes = 299"):
        trees.parse_tree_file("t.json", tree_text(300, "binary"), max_nodes=299)
    with pytest.raises(TreeFileBoundError, match=r"t\.json nests tree nodes 300 deep, over "
                       r"index\.max_tree_depth = 200"):
        trees.parse_tree_file("t.json", tree_text(300, "chain"), max_depth=200)
    _, nodes = trees.parse_tree_file("t.json", tree_text(200, "chain"), max_nodes=200,
                                     max_depth=200)
    assert len(nodes) == 200


def test_a_deep_chain_is_indexed_as_plain_json_with_a_notice(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELIX_INDEX__EMBED_ENABLED", "false")
    repo = tmp_path / "repo"
    (repo / "trees").mkdir(parents=True)
    (repo / "trees" / "deep.json").write_text(tree_text(5_000, "chain"), encoding="utf-8")
    (repo / "trees" / "wide.json").write_text(tree_text(5_000, "binary"), encoding="utf-8")
    code, out, err = run(["index", str(repo), "--json"], capsys)
    assert code == 0, err
    note = ("tree file indexed as plain JSON: trees/deep.json nests tree nodes 5,000 deep, "
            "over index.max_tree_depth = 200")
    assert f"helix: {note}" in err.splitlines()
    report = json.loads(out)
    assert note in report["warnings"]
    assert report["chunks"]["tree_node"] == 5_000  # the wide one is a tree
