"""The eval sub-commands import no one another in a circle (what they share lives in
`evals.cli.run_common`): every import among `evals.cli` modules, at any depth of a module."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[1] / "evals" / "cli"


def _imports() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(CLI.glob("*.py")):
        name = f"evals.cli.{path.stem}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evals.cli."):
                edges.setdefault(name, set()).add(node.module or "")
    return edges


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node):], node]
        for nxt in sorted(edges.get(node, ())):
            found = visit(nxt, [*path, node])
            if found:
                return found
        return None

    for start in sorted(edges):
        found = visit(start, [])
        if found:
            return found
    return None


def test_the_guard_sees_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}}) is None


def test_no_eval_command_imports_another_in_a_circle() -> None:
    edges = _imports()
    assert "evals.cli.run_common" in edges["evals.cli.qa_cmd"]
    assert _cycle(edges) is None
