"""The shape of the controller's code: no function of 60 lines or more, none of cyclomatic
complexity above 25 (`ruff` checks C901 with `max-complexity = 25`, pyproject.toml)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 59
MAX_COMPLEXITY = 25
# Functions of the continuity lanes and router over the limit, left to the rewrite of the router
# that is under way on another branch (classify turns by meaning): listed by name so that no
# new one joins them; the list only shrinks.
IN_FLIGHT = {
    "controller/continuity/selection_match.py:resolve_deterministic",
    "controller/continuity/lanes/__init__.py:run_root",
    "controller/continuity/selection.py:advisory_model",
    "controller/continuity/semantic_binding.py:bind_action",
}


def long_functions(package: str = "controller") -> dict[str, int]:
    """`path:name` -> lines, for every function of `package` of more than MAX_LINES lines."""
    out: dict[str, int] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_LINES:
                    out[f"{path.relative_to(ROOT).as_posix()}:{node.name}"] = lines
    return out


def test_no_controller_function_of_60_lines_or_more() -> None:
    assert set(long_functions()) <= IN_FLIGHT, long_functions()


def test_ruff_checks_complexity_at_25() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    assert "C901" in lint["select"]
    assert lint["mccabe"]["max-complexity"] == MAX_COMPLEXITY
