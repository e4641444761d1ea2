"""The suite's CPU budget (tests/cpu_budget.py, `--cpu-budget` in scripts/test): a test over its
budget fails the run, a listed one has its own, every listed test exists."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.cpu_budget import DEFAULT_S, LISTED, Spent, listed_key, over_budget, summary

ROOT = Path(__file__).resolve().parents[1]


def test_a_test_over_the_budget_is_named_and_a_listed_one_has_its_own() -> None:
    listed = {"tests/test_a.py::test_big": (10.0, "why")}
    spent = [Spent("tests/test_a.py::test_big", 8.0, 1.0),  # 9 <= its 10
             Spent("tests/test_a.py::test_small[x]", 1.0, 0.5),
             Spent("tests/test_a.py::test_child[y]", 0.5, 2.0),  # children count
             Spent("tests/test_b.py::test_self", 3.0, 0.0)]
    over = over_budget(spent, 2.0, listed)
    assert [(row.nodeid, budget) for row, budget in over] == [
        ("tests/test_b.py::test_self", 2.0), ("tests/test_a.py::test_child[y]", 2.0)]
    assert over_budget([Spent("tests/test_a.py::test_big", 10.5, 0.0)], 2.0, listed)
    lines = summary(spent, shown=2)
    assert lines[0].startswith("tests' CPU: 16.0 s over 4 tests (12.5 s in the test processes")
    assert len(lines) == 3 and lines[1].endswith("tests/test_a.py::test_big")


def test_every_listed_test_exists_says_why_and_is_over_the_default() -> None:
    for nodeid, (budget, why) in LISTED.items():
        assert listed_key(nodeid) == nodeid and why and budget > DEFAULT_S, nodeid
        path, name = nodeid.split("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        assert name in {node.name for node in tree.body
                        if isinstance(node, ast.FunctionDef)}, nodeid


def test_a_run_with_a_test_over_its_budget_fails(tmp_path: Path) -> None:
    """A real pytest run with the plugin: one test burns CPU past a 0.05 s budget."""
    (tmp_path / "test_spin.py").write_text(
        "import time\n\n"
        "def test_spins():\n"
        "    end = time.process_time() + 0.3\n"
        "    while time.process_time() < end:\n"
        "        pass\n\n"
        "def test_idles():\n"
        "    assert True\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

    def run(budget: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "tests.cpu_budget", "-p",
             "no:cacheprovider", "--rootdir", str(tmp_path), "--cpu-budget", budget,
             str(tmp_path / "test_spin.py")],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)

    spun = run("0.05")
    assert spun.returncode == 1, spun.stdout + spun.stderr
    assert "2 passed" in spun.stdout and "tests' CPU:" in spun.stdout
    assert "OVER BUDGET: test_spin.py::test_spins took" in spun.stdout
    assert "test_idles took" not in spun.stdout
    assert run("30").returncode == 0
